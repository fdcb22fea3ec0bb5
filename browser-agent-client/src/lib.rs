//! The hands of browser-agent's page client: what only acting needs.
//!
//! Every page the host serves runs the inline bootstrap (capture from the first millisecond) and
//! the sensor (`sensor/sensor.js`: delivery, heartbeat and phase, the command poll the tabs share,
//! the failure report). This wasm module is loaded by the sensor when a batch first arrives for
//! the page, or while the page is idle when the host says an agent is attached; the sensor then
//! hands it every batch through [`run`]. It holds the snapshot walker, targeting, every action,
//! the settle logic, the cursor, and the glue of the screenshot, notes and `evaluate` modules.
//!
//! Nothing here panics on purpose: a failure inside the client must never break the page.
//! The module map is in this crate's `README.md`.

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub, rust_2018_idioms, clippy::undocumented_unsafe_blocks)]

mod bootstrap;
mod commands;
mod cursor;
mod js;
mod lazy;
mod net;
mod snapshot;
mod source;
mod text;

use js::{get, set};
use wasm_bindgen::prelude::*;

/// The global allocator: talc (a well-kept allocator for wasm; dlmalloc, Rust's default there,
/// costs several KB more), growing the heap with `memory.grow`.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Runs once when the sensor instantiates the module: exposes the debug hooks and the tap through
/// which the sensor shows the running batch every entry it records.
#[wasm_bindgen(start)]
pub fn start() {
    let global = bootstrap::agent();
    if !global.is_object() || get(&global, bootstrap::HANDS_STARTED).is_truthy() {
        // No bootstrap (nothing to talk to) or a second copy of the hands: do nothing.
        return;
    }
    set(&global, bootstrap::HANDS_STARTED, &JsValue::TRUE);
    commands::install();
}

/// Runs a batch (`{"id","steps":[…],"offset"?,"timeoutMs"?}`, as the host delivered it) and
/// resolves to its results object, or to null when the batch was handed over to the next page of
/// the tab (its results were posted already).
#[wasm_bindgen]
pub async fn run(batch: JsValue) -> JsValue {
    commands::executor::run(&batch).await
}
