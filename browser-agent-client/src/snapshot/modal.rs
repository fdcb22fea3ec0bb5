//! The open modal dialog of a document, which makes the rest of the page unreachable for the
//! snapshot and for commands alike.

use crate::js::check_visibility;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The open modal dialog of `doc`, if any: a `showModal()` dialog, else a rendered
/// `role=dialog`/`alertdialog` with `aria-modal=true` (the last, which is usually on top).
pub(crate) fn open_modal(doc: &web_sys::Document) -> Option<Element> {
    if let Some(d) = doc.query_selector("dialog:modal").ok().flatten() {
        return Some(d);
    }
    let list = doc
        .query_selector_all("[role=dialog][aria-modal=true],[role=alertdialog][aria-modal=true]")
        .ok()?;
    (0..list.length())
        .rev()
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into::<Element>())
        .find(|d| check_visibility(d).unwrap_or_else(|| d.get_bounding_client_rect().width() > 0.0))
}
