//! Drag handles: a list whose items move only when pressed on their handle (a `⠿` grip; the
//! page's `pointerdown` checks `e.target.closest('.handle')`). A person grabs the handle, so when
//! the pressed element and its item neither are `draggable`, draw a grab cursor nor look like a
//! handle themselves, and the item holds exactly one element that looks like a handle, the step
//! presses that. Looks like a handle: a grab or move cursor of its own (not one the whole item
//! draws), `data-drag-handle`, react-beautiful-dnd's and @hello-pangea/dnd's handle attributes,
//! or a class with `handle` or `grip` in it.

use crate::js::{attribute, matches, window_of};
use crate::snapshot::style::{Style, Win};
use crate::text::cat;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The handle attributes of the libraries.
const MARKED: &str = "[data-drag-handle], [data-rfd-drag-handle-draggable-id], [data-rbd-drag-handle-draggable-id]";
/// Most elements of an item looked at.
const SCANNED: u32 = 200;

/// `el`'s computed style.
fn style(el: &Element) -> Option<Style> {
    window_of(el).unchecked_into::<Win>().computed_style(el, None).ok()
}

/// Whether `el`'s computed cursor is a grab or move one.
fn grab_cursor(el: &Element) -> bool {
    style(el).is_some_and(|s| matches!(s.cursor().as_str(), "grab" | "move" | "-webkit-grab"))
}

/// Whether `el` is marked as a handle (attribute or class).
fn marked(el: &Element) -> bool {
    if matches(el, MARKED) {
        return true;
    }
    let class = attribute(el, "class").unwrap_or_default().to_ascii_lowercase();
    crate::text::has_sub(&class, "handle") || crate::text::has_sub(&class, "grip")
}

/// Whether a press on `at` already grabs what is dragged: `at` or an ancestor up to `item` is
/// `draggable`, looks like a handle, or `at` draws a grab cursor.
pub(super) fn grabs(at: &Element, item: &Element) -> bool {
    if grab_cursor(at) {
        return true;
    }
    let mut cur = Some(at.clone());
    while let Some(e) = cur {
        if attribute(&e, "draggable").as_deref() == Some("true") || marked(&e) {
            return true;
        }
        if e == *item {
            break;
        }
        cur = e.parent_element();
    }
    false
}

/// The visible elements inside `item` that look like a drag handle, outermost only (not the
/// icon inside a handle).
pub(super) fn handles(item: &Element) -> Vec<Element> {
    // A cursor the whole item draws says nothing of its parts.
    let by_cursor = !grab_cursor(item);
    let mut found: Vec<Element> = Vec::new();
    let Ok(all) = item.query_selector_all("*") else {
        return found;
    };
    for i in 0..all.length().min(SCANNED) {
        let Some(e) = all.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
            continue;
        };
        if found.iter().any(|f| f.contains(Some(&e))) {
            continue;
        }
        if (marked(&e) || (by_cursor && grab_cursor(&e))) && super::super::super::resolve::is_visible(&e) {
            found.push(e);
        }
    }
    found
}

/// Whether `s` can stand in a selector as it is (an id or class).
fn plain(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A selector for `el` from its nearest ancestor with an id (6 levels up at most):
/// `#backlog > li:nth-child(3) > span.handle`.
pub(super) fn selector(el: &Element) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = el.clone();
    for _ in 0..6 {
        let id = cur.id();
        if plain(&id) {
            parts.push(cat(&["#", &id]));
            parts.reverse();
            let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
            let mut out = String::new();
            crate::text::push_joined(&mut out, &refs, " > ");
            return Some(out);
        }
        let mut part = cur.local_name();
        let class = attribute(&cur, "class").unwrap_or_default();
        match class.split_ascii_whitespace().next() {
            // The handle itself by its class.
            Some(c) if parts.is_empty() && plain(c) => {
                part.push('.');
                part.push_str(c);
            }
            _ => {
                let mut n = 1;
                let mut s = cur.previous_element_sibling();
                while let Some(e) = s {
                    n += 1;
                    s = e.previous_element_sibling();
                }
                part.push_str(":nth-child(");
                crate::text::push_number(&mut part, n);
                part.push(')');
            }
        }
        parts.push(part);
        cur = cur.parent_element()?;
    }
    None
}
