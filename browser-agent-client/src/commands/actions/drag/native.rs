//! HTML5 drag and drop, as Chromium runs it once a drag starts from a `draggable` element:
//! - `dragstart` on the draggable element (at the press point) with a new `DataTransfer` the page
//!   fills (`setData`, `effectAllowed`; a link or image carries its URL as `text/uri-list` and
//!   `text/plain`, as Chromium puts it); cancelled, no drag starts and the mouse moves go on;
//! - then `pointercancel` and `pointerout` where the pointer was (the pointer events end there);
//! - each move: `drag` on the source; where the element under the pointer changed, `dragenter` on
//!   it, then `dragleave` on the previous one; else `dragover` on it. `dropEffect` is set from
//!   `effectAllowed` before each (`move` when the page left it unset), and the drop is accepted
//!   when the page cancels that event with an effect `effectAllowed` allows;
//! - at the end: `drop` on the element under the pointer when the last dragenter/dragover
//!   accepted it, else `dragleave` there; `dragend` on the source with the effect (`none` when
//!   nothing was dropped). No `pointerup`, `mouseup` or `click` follow, as in Chromium.
//!
//! Unlike a person's drag, the page can read the data during `dragover` too (a constructed
//! `DataTransfer` has no protected mode).

use super::point::{drag_init, element_at};
use crate::js::{fire, get, global, js_string, set};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The draggable element a press on `at` would drag: `at` or its nearest ancestor whose
/// `draggable` is true (the attribute, or a link's or image's default).
pub(super) fn draggable(at: &Element) -> Option<Element> {
    let mut cur = Some(at.clone());
    while let Some(e) = cur {
        if get(&e, "draggable").as_bool() == Some(true) {
            return Some(e);
        }
        cur = e.parent_element();
    }
    None
}

/// An HTML5 drag under way.
pub(super) struct Drag {
    /// The dragged element (`dragstart`, `drag`, `dragend`).
    source: Element,
    /// The `DataTransfer` every event of the drag carries.
    dt: JsValue,
    /// The element under the pointer at the last move.
    current: Option<Element>,
    /// The effect the last dragenter/dragover accepted (`None`: not accepted).
    effect: Option<String>,
    /// The page cancelled a `drag` event: the drag ends without a drop.
    cancelled: bool,
}

impl Drag {
    /// `dragstart` on `source` (pressed at `(x, y)`); `None` when the page cancelled it. Then the
    /// pointer events end at `under`.
    pub(super) fn start(source: &Element, under: &Element, x: f64, y: f64) -> Option<Drag> {
        let ctor = get(&global(), "DataTransfer");
        let dt = Reflect::construct(ctor.dyn_ref::<js_sys::Function>()?, &js_sys::Array::new()).ok()?;
        // Chromium's `new DataTransfer()` is a clipboard one: its `dropEffect` reads "none" and
        // its `effectAllowed` "uninitialized" whatever is set. Own writable properties shadow
        // them, so the page and this module read back what was set, as in a drag.
        let object = get(&global(), "Object");
        for (name, initial) in [("dropEffect", "none"), ("effectAllowed", "uninitialized")] {
            let descriptor = crate::js::object(&[
                ("value", js_string(initial)),
                ("writable", JsValue::TRUE),
                ("configurable", JsValue::TRUE),
                ("enumerable", JsValue::TRUE),
            ]);
            let _ = crate::js::call(&object, "defineProperty", &[&dt, &js_string(name), &descriptor]);
        }
        let url = match source.local_name().as_str() {
            "a" => get(source, "href").as_string(),
            "img" => get(source, "currentSrc").as_string().filter(|s| !s.is_empty()),
            _ => None,
        };
        if let Some(url) = url {
            for kind in ["text/uri-list", "text/plain"] {
                let _ = crate::js::call(&dt, "setData", &[&js_string(kind), &js_string(&url)]);
            }
        }
        if !fire(source, "DragEvent", "dragstart", &drag_init(x, y, 1, &dt, true)) {
            return None;
        }
        let end = super::super::reach::mouse(x, y, 0, 0, true);
        set(&end, "cancelable", &JsValue::FALSE);
        fire(under, "PointerEvent", "pointercancel", &end);
        fire(under, "PointerEvent", "pointerout", &end);
        Some(Drag {
            source: source.clone(),
            dt,
            current: None,
            effect: None,
            cancelled: false,
        })
    }

    /// The pointer is at `(x, y)` (in `near`'s document): drag, then dragenter/dragleave or
    /// dragover.
    pub(super) fn step(&mut self, near: &Element, x: f64, y: f64) {
        if self.cancelled {
            return;
        }
        if !fire(&self.source, "DragEvent", "drag", &drag_init(x, y, 1, &self.dt, true)) {
            self.cancelled = true;
            self.effect = None;
            return;
        }
        let now = element_at(near, x, y);
        set(&self.dt, "dropEffect", &js_string(self.default_effect()));
        // (`fire` says whether the event went uncancelled: a cancelled one accepts.)
        let accepted = match (&now, &self.current) {
            (Some(n), Some(c)) if n == c => !fire(n, "DragEvent", "dragover", &drag_init(x, y, 1, &self.dt, true)),
            (now, prev) => {
                let entered = now
                    .as_ref()
                    .is_some_and(|n| !fire(n, "DragEvent", "dragenter", &drag_init(x, y, 1, &self.dt, true)));
                if let Some(p) = prev.as_ref().filter(|p| p.is_connected()) {
                    fire(p, "DragEvent", "dragleave", &drag_init(x, y, 1, &self.dt, false));
                }
                entered
            }
        };
        self.current = now;
        // Not cancelled: the page is no drop target here. Cancelled: the effect it chose, if
        // the source allows it.
        self.effect = if accepted {
            let effect = get(&self.dt, "dropEffect").as_string().unwrap_or_default();
            self.allows(&effect).then_some(effect)
        } else {
            None
        };
    }

    /// The release at `(x, y)`: drop (when accepted) or dragleave, then dragend; what happened,
    /// for the step's answer.
    pub(super) fn finish(self, x: f64, y: f64) -> &'static str {
        let dropped = match (&self.effect, &self.current) {
            (Some(effect), Some(target)) => {
                set(&self.dt, "dropEffect", &js_string(effect));
                fire(target, "DragEvent", "drop", &drag_init(x, y, 0, &self.dt, true));
                true
            }
            (_, Some(target)) => {
                fire(target, "DragEvent", "dragleave", &drag_init(x, y, 0, &self.dt, false));
                false
            }
            _ => false,
        };
        if !dropped {
            set(&self.dt, "dropEffect", &js_string("none"));
        }
        fire(
            &self.source,
            "DragEvent",
            "dragend",
            &drag_init(x, y, 0, &self.dt, false),
        );
        match (dropped, self.cancelled) {
            (true, _) => " (HTML5 drag and drop: dropped)",
            (false, true) => " (HTML5 drag and drop: the page cancelled the drag; nothing dropped)",
            (false, false) => " (HTML5 drag and drop: nothing there accepted the drop, no dragover was cancelled)",
        }
    }

    /// The page's `effectAllowed`.
    fn allowed(&self) -> String {
        get(&self.dt, "effectAllowed").as_string().unwrap_or_default()
    }

    /// The `dropEffect` a dragenter/dragover starts with, from `effectAllowed` (the HTML
    /// standard's table; `move` for `uninitialized`, a page's own elements).
    fn default_effect(&self) -> &'static str {
        match self.allowed().as_str() {
            "none" => "none",
            "copy" | "copyLink" | "copyMove" | "all" => "copy",
            "link" | "linkMove" => "link",
            _ => "move",
        }
    }

    /// Whether `effect` is one `effectAllowed` allows.
    fn allows(&self, effect: &str) -> bool {
        let allowed = self.allowed().to_ascii_lowercase();
        effect != "none"
            && !effect.is_empty()
            && (allowed == "all" || allowed == "uninitialized" || crate::text::has_sub(&allowed, effect))
    }
}
