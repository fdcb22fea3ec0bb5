//! The page side of browser-agent.
//!
//! The host injects one `<script data-browser-agent='{…}'>` whose inline bootstrap
//! (`browser-agent-core/assets/bootstrap.js`) wraps `console`, `fetch` and XHR and listens for
//! `error`, `unhandledrejection` and navigation (pushState, replaceState, popstate, hashchange) at
//! once. It stamps every entry with `t`, `page`, `clientId` (made by the bootstrap) and the next
//! `seq`, turns console arguments into strings (objects as bounded JSON, at call time, so a logged
//! object is reported as it was, even before this module runs), reads errors' messages and stacks,
//! and queues the entries on `window.__browserAgent` until this module runs. On start the client
//! drains that queue in order and installs itself as the bootstrap's handler, so every later
//! capture crosses into wasm once, complete. The client adds clicks, and delivers the entries to
//! `POST {prefix}/logs` in batches, retrying with the same sequence numbers until the host has them
//! (the host stores each `(clientId, seq)` once). A heartbeat reports the page to
//! `GET /browser/probe` and reloads the page when the host serves a newer client revision.
//!
//! Nothing here panics on purpose: a failure inside the client must never break the page.

#[cfg(target_arch = "wasm32")]
mod alloc;
mod capture;
mod commands;
mod cursor;
mod describe;
mod js;
mod snapshot;
mod transport;

use js_sys::Reflect;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: alloc::Allocator = alloc::Allocator::new();

/// Name of the window global the bootstrap creates.
pub(crate) const GLOBAL: &str = "__browserAgent";

/// The client's whole mutable state; one per page load.
pub(crate) struct State {
    /// `window.__browserAgent`.
    pub(crate) global: JsValue,
    pub(crate) key: String,
    pub(crate) prefix: String,
    pub(crate) rev: String,
    /// Made by the bootstrap, which stamps it (and `seq`) on every entry.
    pub(crate) client_id: String,
    /// Entries not yet confirmed by the host, oldest first.
    pub(crate) pending: js::Queue,
    /// Entries dropped (oldest first) since the last `dropped` report.
    pub(crate) dropped: u32,
    /// Number of entries at the front of `pending` in the request now in flight.
    pub(crate) in_flight: usize,
    pub(crate) sending: bool,
    /// Bumped when a beacon takes entries out from under an in-flight request.
    pub(crate) epoch: u32,
    pub(crate) batch_max: usize,
    pub(crate) backoff_ms: i32,
    pub(crate) timer: Option<i32>,
    /// The host refused the page key: stop sending.
    pub(crate) dead: bool,
    pub(crate) phase: browser_agent_core::protocol::Phase,
}

thread_local! {
    pub(crate) static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// Runs `f` on the state, if the client started. Never call page code inside `f`.
pub(crate) fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> Option<R> {
    STATE.with(|s| s.try_borrow_mut().ok()?.as_mut().map(f))
}

pub(crate) fn window() -> web_sys::Window {
    web_sys::window().unwrap_throw()
}

thread_local! {
    /// JS strings of the property names used so far, made once each (a JS string made from Rust
    /// costs a UTF-8 decode; a linear search over a few dozen short names costs far less).
    static NAMES: RefCell<Vec<(Box<str>, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// Names kept in [`NAMES`]; later ones are made on every use.
const NAMES_MAX: usize = 64;

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

/// A property (undefined when reading it throws).
pub(crate) fn get(o: &JsValue, name: &str) -> JsValue {
    Reflect::get(o, &key(name)).unwrap_or(JsValue::UNDEFINED)
}

/// `v` as an element when it is one, from this window or a frame's (`dyn_into::<Element>` checks
/// `instanceof Element`, which is false for another frame's elements).
pub(crate) fn as_element(v: JsValue) -> Option<web_sys::Element> {
    (get(&v, "nodeType").as_f64() == Some(1.0)).then(|| v.unchecked_into())
}

pub(crate) fn set(o: &JsValue, name: &str, v: &JsValue) {
    let _ = Reflect::set(o, &key(name), v);
}

/// Entry point: runs once when the module is instantiated.
#[wasm_bindgen(start)]
pub fn start() {
    let global = get(&window(), GLOBAL);
    if !global.is_object() || get(&global, "started").is_truthy() {
        // No bootstrap (nothing to talk to) or a second copy of the client: do nothing.
        return;
    }
    set(&global, "started", &JsValue::TRUE);
    let cfg = get(&global, "cfg");
    let text = |o: &JsValue, name: &str| get(o, name).as_string().unwrap_or_default();
    let state = State {
        key: text(&cfg, "key"),
        prefix: text(&cfg, "prefix"),
        rev: text(&cfg, "rev"),
        client_id: text(&global, "clientId"),
        global: global.clone(),
        pending: wasm_bindgen::JsCast::unchecked_into(js_sys::Array::new()),
        dropped: 0,
        in_flight: 0,
        sending: false,
        epoch: 0,
        batch_max: transport::BATCH_MAX,
        backoff_ms: 0,
        timer: None,
        dead: false,
        phase: browser_agent_core::protocol::Phase::Hooked,
    };
    STATE.with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            *s = Some(state);
        }
    });
    capture::install(&global);
    transport::install();
    commands::install();
}
