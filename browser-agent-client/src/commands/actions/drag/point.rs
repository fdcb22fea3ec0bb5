//! Where a drag's events go and what they carry: the element under a point, a drag event's init
//! (shared by the pointer moves and HTML5 drag and drop).

use super::super::reach::{deepest, hit, mouse};
use crate::js::{get, set, window_of};
use js_sys::Object;
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// The element under `(x, y)` in `near`'s document, as deep as shadow trees go (what Chromium
/// targets a mouse event at); `None` outside the viewport.
pub(super) fn element_at(near: &Element, x: f64, y: f64) -> Option<Element> {
    let w = window_of(near);
    let inside = x >= 0.0
        && y >= 0.0
        && x < get(&w, "innerWidth").as_f64().unwrap_or(0.0)
        && y < get(&w, "innerHeight").as_f64().unwrap_or(0.0);
    if !inside {
        return None;
    }
    let root = near.owner_document()?.document_element()?;
    let top = hit(&root, x, y)?;
    Some(deepest(&top, x, y))
}

/// The init of a drag event at `(x, y)` carrying `dt` (cancelable as the HTML standard says).
pub(super) fn drag_init(x: f64, y: f64, buttons: u32, dt: &JsValue, cancelable: bool) -> Object {
    let o = mouse(x, y, buttons, 0, true);
    set(&o, "cancelable", &JsValue::from_bool(cancelable));
    set(&o, "dataTransfer", dt);
    o
}
