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
//! The module map is in this crate's `README.md`.

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub, rust_2018_idioms, clippy::undocumented_unsafe_blocks)]

mod bootstrap;
mod capture;
mod commands;
mod cursor;
mod js;
mod lazy;
mod net;
mod snapshot;
mod state;
mod text;
mod transport;

use bootstrap::cfg;
use js::{get, set};
use wasm_bindgen::prelude::*;

/// The global allocator: talc (a well-kept allocator for wasm; dlmalloc, Rust's default there,
/// costs several KB more), growing the heap with `memory.grow`.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Entry point: runs once when the module is instantiated.
#[wasm_bindgen(start)]
pub fn start() {
    let global = bootstrap::agent();
    if !global.is_object() || get(&global, bootstrap::STARTED).is_truthy() {
        // No bootstrap (nothing to talk to) or a second copy of the client: do nothing.
        return;
    }
    set(&global, bootstrap::STARTED, &JsValue::TRUE);
    let config = get(&global, bootstrap::CFG);
    let text = |o: &JsValue, name: &str| get(o, name).as_string().unwrap_or_default();
    state::init(state::State {
        key: text(&config, cfg::KEY),
        prefix: text(&config, cfg::PREFIX),
        rev: text(&config, cfg::REV),
        client_id: text(&global, bootstrap::CLIENT_ID),
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
    });
    capture::install(&global);
    // The running batch keeps the entries recorded meanwhile.
    capture::observe(commands::batch::tap);
    transport::install(commands::tabs::beat);
    commands::install();
}
