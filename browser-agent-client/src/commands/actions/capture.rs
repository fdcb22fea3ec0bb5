//! Pointer capture for the agent's pointer, as Chromium gives it to a person's mouse: a page that
//! calls `setPointerCapture` while the button is down (Radix's slider, which shadcn/ui wraps, in
//! its `pointerdown`; splitters, colour pickers, canvases) gets the pointer's later events at the
//! capturing element wherever the pointer goes, `hasPointerCapture` says so, and the capture ends
//! at the release. The browser grants capture only to a pointer whose real buttons are down, so
//! for the agent's (synthetic) presses it would do nothing: while a gesture runs, the three
//! methods answer for the agent's pointer id from here, through a `Proxy` on `Element.prototype`
//! (whose `apply` trap gets the element as `this`), and every other call goes to the browser's.

use super::reach::{mouse, POINTER_ID};
use crate::js::{fire, function_proxy, get, object, set, window_of};
use js_sys::{Array, Function, Reflect};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::Element;

thread_local! {
    /// The capture of a press a `down` step holds, until its `up` (or the batch's end).
    static HELD: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

/// The methods answered for the agent's pointer.
const METHODS: [&str; 3] = ["setPointerCapture", "hasPointerCapture", "releasePointerCapture"];

/// A `Proxy`'s `apply` trap: (the method, `this`, the arguments) -> its result, or what it throws.
type Trap = Closure<dyn Fn(JsValue, JsValue, JsValue) -> Result<JsValue, JsValue>>;

/// Capture emulated for the agent's pointer in one window, from [`Capture::emulate`] until dropped
/// (which puts the browser's methods back).
pub(super) struct Capture {
    holder: Rc<RefCell<Option<Element>>>,
    /// The element last told `gotpointercapture`.
    told: Option<Element>,
    proto: JsValue,
    originals: Vec<(&'static str, JsValue)>,
    _traps: Vec<Trap>,
}

impl Capture {
    /// Starts answering the capture methods for the agent's pointer in `near`'s window (before
    /// the press, whose `pointerdown` handler is where pages capture).
    pub(super) fn emulate(near: &Element) -> Capture {
        let win = window_of(near);
        let proto = get(&get(&win, "Element"), "prototype");
        let holder: Rc<RefCell<Option<Element>>> = Rc::new(RefCell::new(None));
        let mut originals = Vec::new();
        let mut traps = Vec::new();
        for method in METHODS {
            let original = get(&proto, method);
            let held = holder.clone();
            // `Fn`, not `FnMut`: a page's own wrapper of these methods may call another of them
            // from inside (re-entering a trap).
            let trap: Trap = Closure::new(move |f: JsValue, this: JsValue, args: JsValue| {
                let ours = Reflect::get_u32(&args, 0).ok().and_then(|id| id.as_f64()) == Some(POINTER_ID);
                // A disconnected element's capture fails in the browser's own way, below.
                if let Some(el) = this.dyn_ref::<Element>().filter(|e| ours && e.is_connected()) {
                    let mut h = held.borrow_mut();
                    return Ok(match method {
                        "setPointerCapture" => {
                            *h = Some(el.clone());
                            JsValue::UNDEFINED
                        }
                        "hasPointerCapture" => JsValue::from_bool(h.as_ref() == Some(el)),
                        _ => {
                            if h.as_ref() == Some(el) {
                                *h = None;
                            }
                            JsValue::UNDEFINED
                        }
                    });
                }
                match (f.dyn_ref::<Function>(), args.dyn_ref::<Array>()) {
                    (Some(f), Some(a)) => Reflect::apply(f, &this, a),
                    _ => Ok(JsValue::UNDEFINED),
                }
            });
            let handler = object(&[("apply", trap.as_ref().clone())]);
            if let Some(proxy) = function_proxy(&win, &original, &handler) {
                set(&proto, method, &proxy);
                originals.push((method, original));
                traps.push(trap);
            }
        }
        Capture {
            holder,
            told: None,
            proto,
            originals,
            _traps: traps,
        }
    }

    /// Whether an element holds the agent's pointer.
    pub(super) fn held(&self) -> bool {
        self.holder.borrow().as_ref().is_some_and(|e| e.is_connected())
    }

    /// Where the pointer's next event at `(x, y)` goes: the element holding the capture (told
    /// `gotpointercapture` first, as the browser tells it before its first captured event), else
    /// `under`, the element under the pointer (after `lostpointercapture` to a former holder).
    pub(super) fn route(&mut self, under: &Element, x: f64, y: f64) -> Element {
        let holder = self.holder.borrow().clone().filter(|e| e.is_connected());
        if self.told != holder {
            if let Some(old) = self.told.take() {
                fire(&old, "PointerEvent", "lostpointercapture", &mouse(x, y, 1, 0, true));
            }
            if let Some(new) = &holder {
                fire(new, "PointerEvent", "gotpointercapture", &mouse(x, y, 1, 0, true));
            }
            self.told = holder.clone();
        }
        holder.unwrap_or_else(|| under.clone())
    }

    /// The release after `pointerup`: the capture ends (`lostpointercapture`), as the browser
    /// ends it.
    pub(super) fn release(&mut self, x: f64, y: f64) {
        *self.holder.borrow_mut() = None;
        if let Some(old) = self.told.take() {
            fire(&old, "PointerEvent", "lostpointercapture", &mouse(x, y, 0, 0, true));
        }
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        for (method, original) in &self.originals {
            set(&self.proto, method, original);
        }
    }
}

/// A `down` step's press: the capture is emulated until [`end_held`].
pub(super) fn hold(capture: Capture) {
    HELD.with(|h| *h.borrow_mut() = Some(capture));
}

/// Where a held pointer's event at `(x, y)` goes: the element holding its capture, if a `down`
/// step's press was captured; `None` when nothing holds it (the element under the pointer does).
pub(super) fn held_route(under: &Element, x: f64, y: f64) -> Option<Element> {
    HELD.with(|h| {
        let mut h = h.borrow_mut();
        let c = h.as_mut()?;
        let held = c.held();
        let to = c.route(under, x, y);
        held.then_some(to)
    })
}

/// The held press's release: the capture ends and the page's methods are the browser's again.
pub(super) fn end_held(x: f64, y: f64) {
    if let Some(mut c) = HELD.with(|h| h.borrow_mut().take()) {
        c.release(x, y);
    }
}
