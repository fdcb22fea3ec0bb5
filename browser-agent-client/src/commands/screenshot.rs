//! The `screenshot` step: hands the step, with its resolved element, to the capture module
//! ([`browser_agent_protocol::lazy::SCREENSHOT`], loaded on the first screenshot). The module
//! captures, uploads the encoded bytes to the host (so they never pass through wasm memory) and
//! answers the host's description of the stored image. The host checks the step's options
//! before the batch is queued.
//!
//! A picture a proof session added after an acting step (`"proof": true`) shows what the step
//! led to, not the page mid-way ("Placing order…"): it is taken once the page has settled, its
//! requests finished ([`crate::snapshot::idle::wait_requests_done`]) and what it then set to run
//! soon run (the timers and a frame it asked for, [`bootstrap::SETTLE`]), for at most
//! [`PROOF_SETTLE_MS`] and never past the batch's deadline.

use super::resolve;
use super::step::Outcome;
use crate::bootstrap;
use crate::js::{call, get, js_string, now_ms, set};
use crate::lazy;
use browser_agent_protocol::lazy::SCREENSHOT;
use js_sys::Object;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Longest a proof's picture waits for the page to settle (ms): a request that runs longer (a
/// long poll, a stream) is not waited for past it.
const PROOF_SETTLE_MS: f64 = 3_000.0;
/// What that wait leaves of the batch's time, so the picture is still taken.
const PROOF_MARGIN_MS: f64 = 1_000.0;

/// Runs one `screenshot` step (see the module docs).
pub(crate) async fn screenshot(step: &JsValue) -> Outcome {
    if get(step, "proof").is_truthy() {
        settle_for_proof().await;
    }
    let element: JsValue = if resolve::has_target(step, false) {
        super::target::target(step, false)?.el.into()
    } else {
        JsValue::NULL
    };
    let module = lazy::module(SCREENSHOT).await?;
    let (prefix, key, client) = crate::net::host()
        .map(|h| (h.prefix, h.key, h.client_id))
        .unwrap_or_default();
    let opts = Object::assign(&Object::new(), step.unchecked_ref());
    for (name, value) in [
        ("element", element),
        ("fetch", bootstrap::original(bootstrap::original::FETCH)),
        ("key", js_string(&key)),
        ("client", js_string(&client)),
        ("prefix", js_string(&prefix)),
    ] {
        set(&opts, name, &value);
    }
    lazy::call(&module, "run", &[&opts]).await
}

/// Waits until the page has settled for a proof's picture (see the module); never fails.
async fn settle_for_proof() {
    let t0 = now_ms();
    let left = super::batch::time_left().map_or(f64::MAX, |l| l - PROOF_MARGIN_MS);
    let max = PROOF_SETTLE_MS.min(left).max(0.0);
    let frames = bootstrap::field(bootstrap::FRAMES);
    // Every request the page has in flight finished (and none started for a moment after).
    let _ = crate::snapshot::idle::wait_requests_done(0.0, max).await;
    if now_ms() - t0 >= max {
        return;
    }
    // What the answers set off: its short timers and a frame asked for since the wait began.
    if let Ok(p) = call(
        &bootstrap::agent(),
        bootstrap::SETTLE,
        &[&frames, &JsValue::from(0), &JsValue::FALSE],
    ) {
        let _ = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&p)).await;
    }
}
