//! The agent's hands in the page: the sensor (`browser-agent-client/sensor/sensor.js`) polls the
//! host for batches and hands each to [`executor`] (through the exported `run`), which runs its
//! steps and returns the results (with the logs captured meanwhile and a fresh snapshot). Also the page's debug hooks on `window.__browserAgent`: `snapshot()` (a promise of
//! the snapshot text), `ref("e3")` (the element a ref names, or an error saying what is there) and
//! `describe(element)` (it as the snapshot writes it, `button "Save" [ref=e7]`: notes mode names
//! what a note points at with it).

pub(crate) mod actions;
pub(crate) mod batch;
pub(crate) mod dialogs;
pub(crate) mod executor;
pub(crate) mod overlays;
pub(crate) mod popups;
pub(crate) mod resolve;
pub(crate) mod screenshot;
pub(crate) mod step;
pub(crate) mod target;

use crate::bootstrap;
use crate::js::set;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

/// Exposes the debug hooks and the tap, and listens for the page's navigations.
pub(crate) fn install() {
    let global = bootstrap::agent();
    let snapshot = Closure::<dyn Fn() -> Promise>::new(|| {
        wasm_bindgen_futures::future_to_promise(async {
            let text = crate::snapshot::take(&crate::snapshot::View::page()).await;
            Ok(JsValue::from_str(&text.unwrap_or_default()))
        })
    })
    .into_js_value();
    set(&global, bootstrap::SNAPSHOT_HOOK, &snapshot);
    let by_ref = Closure::<dyn Fn(String) -> Result<JsValue, JsValue>>::new(|r: String| {
        crate::snapshot::refs::element_for_ref(&r)
            .map(JsValue::from)
            .map_err(|e| js_sys::Error::new(&e.message()).into())
    })
    .into_js_value();
    set(&global, bootstrap::REF_HOOK, &by_ref);
    // `describe(el)` names what a press at `el` lands on (notes); `describe(el, true)` names `el`.
    let describe = Closure::<dyn Fn(JsValue, bool) -> String>::new(|el: JsValue, exact: bool| {
        crate::commands::resolve::describe::element_of(&el)
            .map(|el| {
                let el = if exact {
                    el
                } else {
                    resolve::describe::click_target(&el)
                };
                resolve::describe::describe(&el)
            })
            .unwrap_or_default()
    })
    .into_js_value();
    set(&global, bootstrap::DESCRIBE_HOOK, &describe);
    // Every entry the sensor records passes the running batch, which keeps those of its own time.
    let tap = Closure::<dyn Fn(JsValue)>::new(|e: JsValue| batch::tap(&e)).into_js_value();
    set(&global, bootstrap::TAP, &tap);
    batch::install(dialogs::may_leave);
    dialogs::install();
}
