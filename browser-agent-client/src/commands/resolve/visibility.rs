//! Whether an element can be used, and why not: detached, inert, behind an open modal dialog,
//! `display:none` or `visibility:hidden` on it or an ancestor (across shadow hosts), an ancestor's
//! `content-visibility:hidden`, an ancestor that clips it to nothing, zero size.

use super::describe::{name_of, quoted, short};
use super::scope::modal_of;
use crate::js::{as_element, closest, get};
use crate::snapshot::roles;
use crate::snapshot::style::page_window;
use crate::text::cat;
use web_sys::Element;

/// Why `el` cannot be seen (`display:none on section#billing`), or `None` when it can.
pub(crate) fn hidden_reason(el: &Element) -> Option<String> {
    if !el.is_connected() {
        return Some("it is no longer in the document".to_owned());
    }
    // Inert content takes no clicks, focus or input (and the snapshot leaves it out); so is all
    // but the open modal dialog.
    if let Some(i) = closest(el, "[inert]") {
        return Some(cat(&["inert on ", &short(&i)]));
    }
    if let Some(modal) = modal_of(&get(el, "ownerDocument")).filter(|m| !m.reaches(el)) {
        let mut why = String::from("behind the open modal dialog");
        let name = name_of(&modal.dialog, "dialog");
        if !name.is_empty() {
            why.push(' ');
            quoted(&mut why, &name);
        }
        return Some(why);
    }
    // A drop-down `<select>`'s options are picked through it (`select`), never clicked alone (a
    // hidden native select behind select2 or bootstrap-select holds copies of what they show).
    if el.local_name() == "option" && closest(el, "select").is_some_and(|s| roles::role(&s, "select") == "combobox") {
        return Some("it is an option of a drop-down <select>: use select on it".to_owned());
    }
    let win = page_window();
    let mut cur = Some(el.clone());
    let mut first = true;
    while let Some(e) = cur {
        if let Ok(style) = win.computed_style(&e, None) {
            if style.display() == "none" {
                return Some(cat(&["display:none on ", &short(&e)]));
            }
            if !first && crate::snapshot::style::hides_contents(&style) {
                return Some(cat(&["content-visibility:hidden on ", &short(&e)]));
            }
            if !first && crate::snapshot::style::clips_to_nothing(&e, &style) {
                return Some(cat(&["clipped by ", &short(&e), ", which has no width or height"]));
            }
            if first && style.visibility() != "visible" {
                // Inherited: name the outermost element that sets it.
                let mut from = e.clone();
                let mut p = e.parent_element();
                while let Some(pe) = p {
                    match win.computed_style(&pe, None) {
                        Ok(s) if s.visibility() != "visible" => from = pe.clone(),
                        _ => break,
                    }
                    p = pe.parent_element();
                }
                return Some(cat(&["visibility:hidden on ", &short(&from)]));
            }
        }
        first = false;
        cur = e
            .parent_element()
            .or_else(|| as_element(get(&e.get_root_node(), "host")));
    }
    let r = el.get_bounding_client_rect();
    // A control drawn as its label (Element Plus's checkbox and switch: a 0×0 input inside it)
    // is used there, as a person does.
    let drawn_as_label = || as_element(get(&get(el, "labels"), "0")).is_some_and(|l| hidden_reason(&l).is_none());
    if r.width() == 0.0 && r.height() == 0.0 && el.local_name() != "option" && !drawn_as_label() {
        return Some("it has zero size".to_owned());
    }
    None
}

/// `<subject> exists but is hidden (<why>)`, or `… cannot be used (<why>)` when it is inert.
pub(super) fn hidden_err(subject: &str, h: &Element) -> String {
    let why = hidden_reason(h).unwrap_or_default();
    let state = if why.starts_with("inert") || why.starts_with("behind") {
        " exists but cannot be used ("
    } else {
        " exists but is hidden ("
    };
    cat(&[subject, state, &why, ")"])
}

/// Whether `el` can be seen.
pub(super) fn visible(el: &Element) -> bool {
    hidden_reason(el).is_none()
}
