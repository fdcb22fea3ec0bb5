//! How elements are described, with the snapshot's roles and names: the target lines of commands
//! and their errors (`button "Save" [ref=e7]`, `tag#id` or `tag.class` without role or name), and
//! the shorter text of a click the page logs (`button "Save"`, `"text"`, `tag#id`; the MindStudio
//! client's `describeTarget`).

use super::scope::with_labels;
use crate::js::{attribute, closest, has_attribute};
use crate::snapshot::name::{self, squash};
use crate::snapshot::refs::ref_of;
use crate::snapshot::roles;
use crate::snapshot::style::page_window;
use crate::text::char_count;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Names longer than this are cut in descriptions.
const MAX_NAME: usize = 60;

/// Elements a click is attributed to when it lands inside them.
const CLICKABLE: &str = "button,a[href],input,select,textarea,summary,label,[role],[onclick],[tabindex]";

/// Appends `"s"` with `"` and `\` escaped, cut to 57 characters plus `...` beyond [`MAX_NAME`].
pub(super) fn quoted(out: &mut String, s: &str) {
    out.push('"');
    let long = char_count(s) > MAX_NAME;
    for (i, c) in s.chars().enumerate() {
        if long && i == MAX_NAME - 3 {
            out.push_str("...");
            break;
        }
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// `s` quoted as [`quoted`] writes it.
pub(super) fn q(s: &str) -> String {
    let mut out = String::new();
    quoted(&mut out, s);
    out
}

/// The snapshot role of `el`, with `clickable` for role-less elements that look clickable.
pub(crate) fn role_of(el: &Element) -> &'static str {
    let tag = el.local_name().to_ascii_lowercase();
    let r = roles::role(el, &tag);
    if !roles::is_dropped(r) {
        return r;
    }
    if takes_clicks(el, &tag, true) && inner_control(el, &tag).is_none() {
        return "clickable";
    }
    ""
}

/// What a component's shadow tree or light DOM holds that acts (the snapshot's rule: a host
/// that only wraps its control is no node of its own; the control is).
const CONTROLS: &str =
    "button,input:not([type=hidden]),select,textarea,a[href],[contenteditable=''],[contenteditable=true],\
    [role=button],[role=checkbox],[role=combobox],[role=link],[role=menuitem],[role=option],[role=radio],\
    [role=searchbox],[role=slider],[role=spinbutton],[role=switch],[role=tab],[role=textbox]";

/// What a `<label>` labels: its `control` (the `for` element or the first field inside, when that
/// is a form control or a `<button>`), else the element its `for` names (jQuery UI's selectmenu
/// points it at the combobox it draws; a custom radio is a `<button role=radio>`).
pub(crate) fn label_control(label: &Element) -> Option<Element> {
    let pointed = || {
        label
            .owner_document()?
            .get_element_by_id(&crate::js::attribute(label, "for")?)
    };
    crate::js::as_element(crate::js::get(label, "control")).or_else(pointed)
}

/// The one control a component's shadow tree draws (`<sl-button>`'s `<button>`): what a text
/// target naming the component means.
pub(crate) fn sole_control(el: &Element) -> Option<Element> {
    let shadow = crate::js::get(el, "shadowRoot");
    if !shadow.is_object() {
        return None;
    }
    // (Checked as an object, not by `instanceof`: a frame's nodes come from another realm.)
    let list = shadow
        .unchecked_ref::<web_sys::DocumentFragment>()
        .query_selector_all(CONTROLS)
        .ok()?;
    if list.length() != 1 {
        return None;
    }
    list.item(0).map(JsCast::unchecked_into)
}

/// The control inside `el` when `el` is a web component that wraps one (a custom element or
/// shadow host: its shadow tree's first control, else its light DOM's).
pub(crate) fn inner_control(el: &Element, tag: &str) -> Option<Element> {
    let shadow = crate::js::get(el, "shadowRoot");
    if !tag.contains('-') && !shadow.is_object() {
        return None;
    }
    let in_shadow = shadow.is_object().then(|| {
        shadow
            .unchecked_ref::<web_sys::DocumentFragment>()
            .query_selector(CONTROLS)
            .ok()
            .flatten()
    });
    let in_shadow = in_shadow.flatten();
    in_shadow.or_else(|| el.query_selector(CONTROLS).ok().flatten())
}

/// Whether `el` takes clicks by the snapshot's rule ([`roles::clickable`]), reading the `onclick`
/// property only where it has no role of its own (`bare`), as the walker does.
fn takes_clicks(el: &Element, tag: &str, bare: bool) -> bool {
    let pointer = |e: &Element| {
        page_window()
            .computed_style(e, None)
            .map(|s| s.cursor() == "pointer")
            .unwrap_or(false)
    };
    let own_pointer = pointer(el) && !el.parent_element().is_some_and(|p| pointer(&p));
    let tabindex = attribute(el, "tabindex");
    roles::clickable(
        el,
        tag,
        own_pointer,
        has_attribute(el, "onclick"),
        tabindex.as_deref(),
        || bare && roles::onclick_handler(el),
    )
}

/// Elements an agent acts on.
pub(super) fn interactive(role: &str) -> bool {
    role == "clickable" || roles::is_interactive(role)
}

/// Whether `el` is an element an agent acts on: an interactive role, a `clickable`, or a row,
/// cell or item that takes clicks (the snapshot gives each a ref: `cell "15" [ref=e69]`).
pub(super) fn is_interactive_el(el: &Element) -> bool {
    let r = role_of(el);
    let tag = el.local_name();
    interactive(r) || (!r.is_empty() && takes_clicks(el, &tag, false) && inner_control(el, &tag).is_none())
}

/// The accessible name of `el` for `role`.
pub(crate) fn name_of(el: &Element, role: &str) -> String {
    with_labels(|| {
        let tag = el.local_name().to_ascii_lowercase();
        if role.is_empty() || role == "clickable" {
            let mut t = squash(&el.text_content().unwrap_or_default());
            if t.is_empty() {
                t = attribute(el, "aria-label")
                    .or_else(|| attribute(el, "title"))
                    .unwrap_or_default();
            }
            return t;
        }
        name::name(&page_window(), el, &tag, role).0
    })
}

/// `role "name"` (or [`short`]), and whether the snapshot gives the element a ref.
fn head(el: &Element) -> (String, bool) {
    let role = role_of(el);
    let name = name_of(el, role);
    let mut out = String::new();
    if !role.is_empty() {
        out.push_str(role);
    }
    if !name.is_empty() {
        if !out.is_empty() {
            out.push(' ');
        }
        quoted(&mut out, &name);
    }
    if out.is_empty() {
        return (short(el), false);
    }
    // The snapshot's rule: what takes clicks has a ref; landmarks and dialogs print none.
    let tag = el.local_name();
    let with_ref =
        interactive(role) || (!role.is_empty() && takes_clicks(el, &tag, false) && inner_control(el, &tag).is_none());
    (out, with_ref)
}

/// `button "Save" [ref=e7]`, as the snapshot shows it; `tag#id` or `tag.class` for elements
/// without role or name.
pub(crate) fn describe(el: &Element) -> String {
    let (mut out, with_ref) = head(el);
    if with_ref {
        out.push_str(" [ref=");
        out.push_str(&ref_of(el));
        out.push(']');
    }
    out
}

/// [`describe`] without the ref (for errors that name the ref already).
pub(super) fn describe_no_ref(el: &Element) -> String {
    head(el).0
}

/// Characters of a row's text shown beside a control named only by a glyph.
const ROW_SHOWN: usize = 40;

/// [`describe`], and for a control whose name says nothing alone (a glyph such as `"✖"`, or none)
/// the words of the row it sits in: `button "✖" [ref=e5] in "Walk the dog"`, as the answers name
/// what a step acted on.
pub(crate) fn describe_with_row(el: &Element) -> String {
    let mut out = describe(el);
    if name_of(el, role_of(el)).chars().any(char::is_alphanumeric) {
        return out;
    }
    let Some(row) = crate::snapshot::refs::row_text(el) else {
        return out;
    };
    // Its words: the row's own glyphs (the same "✖") say nothing either.
    let words: String = row
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c.is_ascii_punctuation() {
                c
            } else {
                ' '
            }
        })
        .collect();
    let words: Vec<&str> = words.split_whitespace().collect();
    if words.is_empty() {
        return out;
    }
    push_in_row(&mut out, &words.join(" "));
    out
}

/// ` in "row text"` after a control's description, the text cut at [`ROW_SHOWN`] characters.
pub(super) fn push_in_row(out: &mut String, row: &str) {
    out.push_str(" in \"");
    let mut chars = row.chars();
    out.extend(chars.by_ref().take(ROW_SHOWN));
    if chars.next().is_some() {
        out.push('…');
    }
    out.push('"');
}

/// `tag#id`, `tag.class` or `tag`.
pub(crate) fn short(el: &Element) -> String {
    let mut out = el.local_name().to_ascii_lowercase();
    if let Some(id) = attribute(el, "id").filter(|i| !i.is_empty()) {
        out.push('#');
        out.push_str(&id);
    } else if let Some(class) = attribute(el, "class") {
        if let Some(c) = class.split_ascii_whitespace().next() {
            out.push('.');
            out.push_str(c);
        }
    }
    out
}

/// The element a click on `target` means: the nearest interactive ancestor, else the target.
pub(crate) fn click_target(target: &Element) -> Element {
    closest(target, CLICKABLE).unwrap_or_else(|| target.clone())
}

/// The element of an event target (text nodes give their parent element).
pub(crate) fn element_of(target: &wasm_bindgen::JsValue) -> Option<Element> {
    if let Some(el) = target.dyn_ref::<Element>() {
        return Some(el.clone());
    }
    target.dyn_ref::<web_sys::Node>().and_then(|n| n.parent_element())
}

/// The plural of a role name (`buttons`, `checkboxes`).
pub(super) fn plural(role: &str) -> String {
    let mut p = role.to_owned();
    p.push_str(if role.ends_with('x') { "es" } else { "s" });
    p
}

#[cfg(test)]
mod tests {
    use super::{plural, q};

    #[test]
    fn quoting() {
        assert_eq!(q("Save"), "\"Save\"");
        assert_eq!(q(r#"say "hi" \o/"#), r#""say \"hi\" \\o/""#);
        let long = "n".repeat(61);
        let out = q(&long);
        assert_eq!(out, format!("\"{}...\"", "n".repeat(57)));
        assert_eq!(q(&"n".repeat(60)).len(), 62);
    }

    #[test]
    fn plurals() {
        assert_eq!(plural("button"), "buttons");
        assert_eq!(plural("checkbox"), "checkboxes");
        assert_eq!(plural("listbox"), "listboxes");
    }
}
