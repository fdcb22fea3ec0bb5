//! The client's view of JavaScript: property access by name ([`get`], [`set`]), method calls,
//! plain objects, events, time, and the page APIs the hot paths call, declared
//! directly (each is one small import in the JS glue, without the `Window` lookups and
//! `instanceof` checks of the web-sys accessors). DOM types come from web-sys.

use js_sys::{Array, Function, Object, Reflect};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    pub(crate) fn set_timeout(f: &Function, ms: i32) -> i32;
    /// `sessionStorage.getItem(key)` (throws where storage is blocked).
    #[wasm_bindgen(js_namespace = sessionStorage, js_name = getItem, catch)]
    pub(crate) fn session_get(key: &str) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(js_namespace = sessionStorage, js_name = setItem, catch)]
    pub(crate) fn session_set(key: &str, value: &str) -> Result<(), JsValue>;

    /// `el.getAttribute(name)`, the name a JS string made once ([`key`]): the walk asks a few
    /// dozen names of every element, and a name made from Rust on each call is a UTF-8 decode.
    type KeyedElement;
    #[wasm_bindgen(method, js_name = getAttribute)]
    fn get_attribute_by_key(this: &KeyedElement, name: &JsValue) -> Option<String>;
    #[wasm_bindgen(method, js_name = hasAttribute)]
    fn has_attribute_by_key(this: &KeyedElement, name: &JsValue) -> bool;
    #[wasm_bindgen(method, js_name = matches, catch)]
    fn matches_by_key(this: &KeyedElement, selector: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, js_name = closest, catch)]
    fn closest_by_key(this: &KeyedElement, selector: &JsValue) -> Result<Option<web_sys::Element>, JsValue>;

}

/// The page's global object (`window`).
pub(crate) fn global() -> JsValue {
    js_sys::global().into()
}

/// Most windows [`same_origin_windows`] returns: a bound on pages that nest frames without end.
const MAX_WINDOWS: usize = 32;

/// The page's window and those of its same-origin frames, nested, the page's first: a step on an
/// element inside a frame sets off its requests and its text there, where that frame's bootstrap
/// counts them. (A cross-origin frame's `document` throws: [`get`] reads it as undefined.)
pub(crate) fn same_origin_windows() -> Vec<JsValue> {
    let mut out = vec![global()];
    let mut i = 0;
    while i < out.len() && out.len() < MAX_WINDOWS {
        let frames = get(&out[i], "frames");
        let n = get(&frames, "length").as_f64().unwrap_or(0.0) as u32;
        for k in 0..n {
            let w = Reflect::get(&frames, &JsValue::from(k)).unwrap_or(JsValue::UNDEFINED);
            if get(&w, "document").is_object() && out.len() < MAX_WINDOWS {
                out.push(w);
            }
        }
        i += 1;
    }
    out
}

/// The page's window, typed.
pub(crate) fn window() -> web_sys::Window {
    web_sys::window().unwrap_throw()
}

thread_local! {
    /// JS strings of the property names used so far, made once each (a JS string made from Rust
    /// costs a UTF-8 decode; a linear search over a few dozen short names costs far less).
    static NAMES: RefCell<Vec<(Box<str>, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// Names kept in [`NAMES`]; later ones are made on every use.
const NAMES_MAX: usize = 128;

/// `name` as a JS string.
pub(crate) fn key(name: &str) -> JsValue {
    NAMES.with(|names| {
        let Ok(mut names) = names.try_borrow_mut() else {
            return JsValue::from_str(name);
        };
        if let Some((_, k)) = names.iter().find(|(n, _)| **n == *name) {
            return k.clone();
        }
        let k = JsValue::from_str(name);
        if names.len() < NAMES_MAX {
            names.push((name.into(), k.clone()));
        }
        k
    })
}

/// An attribute of `el`, when present.
pub(crate) fn attribute(el: &web_sys::Element, name: &str) -> Option<String> {
    el.unchecked_ref::<KeyedElement>().get_attribute_by_key(&key(name))
}

/// Whether `el` has the attribute `name`.
pub(crate) fn has_attribute(el: &web_sys::Element, name: &str) -> bool {
    el.unchecked_ref::<KeyedElement>().has_attribute_by_key(&key(name))
}

/// Whether `el` matches `selector` (false when the selector is not one).
pub(crate) fn matches(el: &web_sys::Element, selector: &str) -> bool {
    el.unchecked_ref::<KeyedElement>()
        .matches_by_key(&key(selector))
        .unwrap_or(false)
}

/// The closest inclusive ancestor of `el` matching `selector`.
pub(crate) fn closest(el: &web_sys::Element, selector: &str) -> Option<web_sys::Element> {
    el.unchecked_ref::<KeyedElement>()
        .closest_by_key(&key(selector))
        .ok()
        .flatten()
}

/// [`closest`] across shadow roots: in `el`'s tree, then in its shadow host's, and so on out (a
/// component's button in a table row: the row is the host's ancestor).
pub(crate) fn closest_composed(el: &web_sys::Element, selector: &str) -> Option<web_sys::Element> {
    let mut cur = el.clone();
    for _ in 0..32 {
        if let Some(found) = closest(&cur, selector) {
            return Some(found);
        }
        let root = cur.get_root_node();
        if root.node_type() != web_sys::Node::DOCUMENT_FRAGMENT_NODE {
            return None;
        }
        cur = as_element(get(&root, "host"))?;
    }
    None
}

/// Whether `el` is `:disabled` or inside `aria-disabled=true` (ARIA gives that state to the
/// element's focusable descendants too: a jQuery UI menu puts it on the `<li>` around the item).
/// The snapshot shows a control so and the actions refuse it, by this one rule.
pub(crate) fn disabled(el: &web_sys::Element) -> bool {
    matches(el, ":disabled") || closest(el, "[aria-disabled=true]").is_some()
}

/// A property (undefined when reading it throws).
pub(crate) fn get(o: &JsValue, name: &str) -> JsValue {
    Reflect::get(o, &key(name)).unwrap_or(JsValue::UNDEFINED)
}

/// Sets a property (a setter that throws is ignored).
pub(crate) fn set(o: &JsValue, name: &str, v: &JsValue) {
    let _ = Reflect::set(o, &key(name), v);
}

/// `v` as an element when it is one, from this window or a frame's (`dyn_into::<Element>` checks
/// `instanceof Element`, which is false for another frame's elements).
pub(crate) fn as_element(v: JsValue) -> Option<web_sys::Element> {
    (get(&v, "nodeType").as_f64() == Some(1.0)).then(|| v.unchecked_into())
}

/// A JS string.
pub(crate) fn js_string(v: &str) -> JsValue {
    JsValue::from_str(v)
}

/// A JS number.
pub(crate) fn js_number(v: f64) -> JsValue {
    JsValue::from_f64(v)
}

/// Calls `obj[method](...args)`; `Err` when it is not a function or throws.
pub(crate) fn call(obj: &JsValue, method: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(obj, method).dyn_into().map_err(|_| js_string(method))?;
    let a = Array::new();
    for x in args {
        a.push(x);
    }
    Reflect::apply(&f, obj, &a)
}

/// `new Proxy(f, handler)` for a function `f`, made with `win`'s `Proxy` (the page's own: the
/// glue names only the built-ins the bootstrap keeps); `None` when `f` is not a function.
pub(crate) fn function_proxy(win: &JsValue, f: &JsValue, handler: &JsValue) -> Option<JsValue> {
    let proxy: Function = get(win, "Proxy").dyn_into().ok()?;
    if !f.is_function() {
        return None;
    }
    Reflect::construct(&proxy, &Array::of2(f, handler)).ok()
}

/// `el.checkVisibility({visibilityProperty: true})`: whether the browser shows `el` (not in a
/// `display:none` subtree, not `visibility:hidden`); `None` in a browser without it (Chromium
/// < 105, Firefox < 106, Safari < 17.4; before Chromium 121 the option is ignored).
pub(crate) fn check_visibility(el: &JsValue) -> Option<bool> {
    let options = object(&[("visibilityProperty", JsValue::TRUE)]);
    call(el, "checkVisibility", &[&options]).ok().map(|v| v.is_truthy())
}

/// A plain object with these properties.
pub(crate) fn object(pairs: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    for (k, v) in pairs {
        set(&o, k, v);
    }
    o
}

/// Dispatches `new <ctor>(ty, init)` on `target` (`Event` when the page lacks `ctor`); false when a
/// listener cancelled it.
pub(crate) fn fire(target: &JsValue, ctor: &str, ty: &str, init: &Object) -> bool {
    let c = get(&global(), ctor)
        .dyn_into::<Function>()
        .or_else(|_| get(&global(), "Event").dyn_into::<Function>());
    let Ok(c) = c else { return true };
    let Ok(ev) = Reflect::construct(&c, &Array::of2(&js_string(ty), init)) else {
        return true;
    };
    call(target, "dispatchEvent", &[&ev]).map_or(true, |v| v.is_truthy())
}

/// The init of an event: bubbling and cancelable (or neither), composed, in this window.
pub(crate) fn event_init(bubbles: bool) -> Object {
    object(&[
        ("bubbles", JsValue::from_bool(bubbles)),
        ("cancelable", JsValue::from_bool(bubbles)),
        ("composed", JsValue::TRUE),
        ("view", global()),
    ])
}

/// The window an element lives in (frames have their own prototypes and viewports).
pub(crate) fn window_of(el: &web_sys::Element) -> JsValue {
    let w = get(&get(el, "ownerDocument"), "defaultView");
    if w.is_object() {
        w
    } else {
        global()
    }
}

/// Milliseconds since the epoch.
pub(crate) fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// The animations running in `root` (a document or shadow root; `getAnimations()`) that end: a
/// fade or slide, not a spinner's endless loop nor a scroll-driven one.
pub(crate) fn ending_animations(root: &JsValue) -> Vec<JsValue> {
    let Ok(list) = call(root, "getAnimations", &[]) else {
        return Vec::new();
    };
    let list: js_sys::Array = list.unchecked_into();
    list.iter()
        .filter(|a| {
            let running = get(a, "playState").as_string().as_deref() == Some("running");
            let timing = call(&get(a, "effect"), "getComputedTiming", &[]).unwrap_or_default();
            running && get(&timing, "endTime").as_f64().is_some_and(f64::is_finite)
        })
        .collect()
}

/// Resolves after `ms` milliseconds.
pub(crate) async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        set_timeout(&resolve, ms);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}
