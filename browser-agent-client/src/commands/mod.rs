//! The agent's line to the page: [`poller`] long-polls the host for batches of steps,
//! [`executor`] runs them and posts the results (with the logs captured meanwhile and a fresh
//! snapshot). Also the page's debug hooks on `window.__browserAgent`: `snapshot()` (a promise of
//! the snapshot text) and `ref("e3")` (the element a ref names, or an error saying what is there).

pub(crate) mod actions;
pub(crate) mod executor;
pub(crate) mod poller;
pub(crate) mod resolve;

use crate::{get, set, with_state, GLOBAL};
use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Where to reach the host, from the client state.
pub(crate) struct Host {
    pub(crate) prefix: String,
    pub(crate) key: String,
    pub(crate) client_id: String,
}

pub(crate) fn host() -> Option<Host> {
    with_state(|s| Host {
        prefix: s.prefix.clone(),
        key: s.key.clone(),
        client_id: s.client_id.clone(),
    })
}

/// `fetch` as the page had it before any wrapper (saved by the bootstrap), so the agent's own
/// requests are never captured or counted as the page's.
pub(crate) fn fetch(url: &str, init: &Object) -> Option<Promise> {
    let global = js_sys::global();
    let original = get(&get(&get(&global, GLOBAL), "o"), "fetch");
    let f = original
        .dyn_into::<Function>()
        .ok()
        .or_else(|| get(&global, "fetch").dyn_into::<Function>().ok())?;
    f.call2(&global, &JsValue::from_str(url), init)
        .ok()?
        .dyn_into::<Promise>()
        .ok()
}

/// Request options with the page key header (and a JSON content type when `body` is given).
pub(crate) fn init(method: &str, key: &str, body: Option<&str>) -> Object {
    let init = Object::new();
    set(&init, "method", &JsValue::from_str(method));
    set(&init, "cache", &JsValue::from_str("no-store"));
    let headers = Object::new();
    set(
        &headers,
        browser_agent_core::protocol::KEY_HEADER,
        &JsValue::from_str(key),
    );
    if let Some(body) = body {
        set(&headers, "content-type", &JsValue::from_str("application/json"));
        set(&init, "body", &JsValue::from_str(body));
    }
    set(&init, "headers", &headers);
    init
}

/// Every entry the client records passes here; the executor keeps those of the running batch.
pub(crate) fn tap(entry: &JsValue) {
    executor::tap(entry);
}

/// Starts the poller and exposes the debug hooks.
pub(crate) fn install() {
    let global = get(&js_sys::global(), GLOBAL);
    let snapshot = Closure::<dyn Fn() -> Promise>::new(|| {
        wasm_bindgen_futures::future_to_promise(async { Ok(JsValue::from_str(&crate::snapshot::take().await)) })
    })
    .into_js_value();
    set(&global, "snapshot", &snapshot);
    let by_ref = Closure::<dyn Fn(String) -> Result<JsValue, JsValue>>::new(|r: String| {
        crate::snapshot::element_for_ref(&r)
            .map(JsValue::from)
            .map_err(|m| js_sys::Error::new(&m).into())
    })
    .into_js_value();
    set(&global, "ref", &by_ref);
    actions::install();
    poller::install();
}

/// This tab's id: random, made once per tab and kept in `sessionStorage` (`__browserAgentTab`), so
/// the host can hand a batch's remaining steps over to the next page loaded in the same tab. Sent as
/// `tab=` on every heartbeat and poll; empty where storage is blocked.
pub(crate) fn tab_id() -> String {
    const KEY: &str = "__browserAgentTab";
    if let Ok(Some(id)) = crate::js::session_get(KEY) {
        if !id.is_empty() {
            return id;
        }
    }
    let mut id = String::from("t");
    for _ in 0..3 {
        crate::snapshot::push_number(&mut id, (js_sys::Math::random() * 1e9) as u32);
    }
    match crate::js::session_set(KEY, &id) {
        Ok(()) => id,
        Err(_) => String::new(),
    }
}
