//! Short accessible descriptions of click targets: `button "Save"`, `link "Home"`, `textbox "Email"`,
//! falling back to `"text"`, `tag#id` or `tag` (the MindStudio client's `describeTarget`). Role and
//! name are the snapshot's (ARIA roles, accname), so a click reads like the snapshot line of its
//! target.

pub(crate) use crate::snapshot::name::squash;
use crate::snapshot::{name, page_window, roles};
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Elements a click is attributed to when it lands inside them.
const INTERACTIVE: &str = "button,a[href],input,select,textarea,summary,label,[role],[onclick],[tabindex]";

/// The element a click on `target` means: the nearest interactive ancestor, else the target.
pub(crate) fn click_target(target: &Element) -> Element {
    target
        .closest(INTERACTIVE)
        .ok()
        .flatten()
        .unwrap_or_else(|| target.clone())
}

/// Cuts `s` to its first `n` characters.
pub(crate) fn truncate_chars(s: &mut String, n: usize) {
    if let Some((at, _)) = s.char_indices().nth(n) {
        s.truncate(at);
    }
}

/// `role "name"`, `role`, `"text"`, `tag#id` or `tag`; names over 60 chars are cut to 57 plus `...`.
pub(crate) fn describe(el: &Element) -> String {
    let tag = el.tag_name().to_ascii_lowercase();
    let mut role = roles::role(el, &tag);
    if matches!(role, "generic" | "none" | "presentation") {
        role = "";
    }
    let (mut name, _) = name::name(&page_window(), el, &tag, role);
    if name.is_empty() && role.is_empty() {
        // A plain element (a clickable div): its text says what was clicked.
        name = squash(&el.text_content().unwrap_or_default());
    }
    if name.char_indices().nth(60).is_some() {
        truncate_chars(&mut name, 57);
        name.push_str("...");
    }
    let mut out = String::from(role);
    if !name.is_empty() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push('"');
        out.push_str(&name);
        out.push('"');
    }
    if out.is_empty() {
        out = tag;
        let id = el.id();
        if !id.is_empty() {
            out.push('#');
            out.push_str(&id);
        }
    }
    out
}

/// The element of an event target (text nodes give their parent element).
pub(crate) fn element_of(target: &wasm_bindgen::JsValue) -> Option<Element> {
    if let Some(el) = target.dyn_ref::<Element>() {
        return Some(el.clone());
    }
    target.dyn_ref::<web_sys::Node>().and_then(|n| n.parent_element())
}
