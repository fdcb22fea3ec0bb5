//! The page side of browser-agent.
//!
//! The host injects one `<script data-browser-agent='{…}'>` whose inline bootstrap
//! (`browser-agent-core/assets/bootstrap.js`) wraps `console`, `fetch` and XHR and listens for
//! `error` and `unhandledrejection` at once, queueing raw entries on `window.__browserAgent`. It
//! then imports this module. On start the client drains that queue in order and installs itself as
//! the bootstrap's handler, so every later capture goes straight to it; it adds clicks and
//! navigation, stamps each entry with `clientId` and `seq`, and delivers the entries to
//! `POST {prefix}/logs` in batches, retrying with the same sequence numbers until the host has them
//! (the host stores each `(clientId, seq)` once). A heartbeat reports the page to
//! `GET /browser/probe` and reloads the page when the host serves a newer client revision.
//!
//! Nothing here panics on purpose: a failure inside the client must never break the page.

mod capture;
mod describe;
mod serialize;
mod transport;

use js_sys::{Object, Reflect};
use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Name of the window global the bootstrap creates.
pub(crate) const GLOBAL: &str = "__browserAgent";

/// The client's whole mutable state; one per page load.
pub(crate) struct State {
    /// `window.__browserAgent`.
    pub(crate) global: Object,
    pub(crate) key: String,
    pub(crate) prefix: String,
    pub(crate) rev: String,
    pub(crate) client_id: String,
    /// `client_id` as a JS string, made once.
    pub(crate) client_id_js: JsValue,
    /// Last sequence number given out.
    pub(crate) seq: u32,
    /// Entries not yet confirmed by the host, oldest first.
    pub(crate) pending: VecDeque<JsValue>,
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

/// A property; names are interned (creating a JS string from Rust is the expensive part).
pub(crate) fn get(o: &JsValue, name: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(wasm_bindgen::intern(name))).unwrap_or(JsValue::UNDEFINED)
}

pub(crate) fn set(o: &JsValue, name: &str, v: &JsValue) {
    let _ = Reflect::set(o, &JsValue::from_str(wasm_bindgen::intern(name)), v);
}

/// 16 random hex characters from `crypto.getRandomValues`.
fn random_id() -> String {
    let bytes = js_sys::Uint8Array::new_with_length(8);
    let crypto = get(&window(), "crypto");
    if let Ok(f) = get(&crypto, "getRandomValues").dyn_into::<js_sys::Function>() {
        let _ = f.call1(&crypto, &bytes);
    }
    let mut buf = [0u8; 8];
    bytes.copy_to(&mut buf);
    if buf == [0; 8] {
        // No crypto (very old browser): fall back to Math.random.
        for b in buf.iter_mut() {
            *b = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(16);
    for b in buf {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

/// Entry point: runs once when the module is instantiated.
#[wasm_bindgen(start)]
pub fn start() {
    let w = window();
    let global = get(&w, GLOBAL);
    if !global.is_object() || get(&global, "started").is_truthy() {
        // No bootstrap (nothing to talk to) or a second copy of the client: do nothing.
        return;
    }
    set(&global, "started", &JsValue::TRUE);
    let cfg = get(&global, "cfg");
    let text = |name: &str| get(&cfg, name).as_string().unwrap_or_default();
    let client_id = random_id();
    set(&global, "clientId", &JsValue::from_str(&client_id));
    let state = State {
        global: global.clone().unchecked_into(),
        key: text("key"),
        prefix: text("prefix"),
        rev: text("rev"),
        client_id_js: JsValue::from_str(&client_id),
        client_id,
        seq: 0,
        pending: VecDeque::new(),
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
    STATE.with(|s| *s.borrow_mut() = Some(state));
    capture::install(&global);
    transport::install();
}
