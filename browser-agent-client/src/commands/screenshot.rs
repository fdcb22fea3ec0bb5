//! The `screenshot` step: hands the step, with its resolved element, to the capture module
//! ([`browser_agent_protocol::lazy::SCREENSHOT`], loaded on the first screenshot). The module
//! captures, uploads the encoded bytes to the host (so they never pass through wasm memory) and
//! answers the host's description of the stored image. The host checks the step's options
//! before the batch is queued.

use super::resolve;
use super::step::Outcome;
use crate::bootstrap;
use crate::js::{js_string, set};
use crate::lazy;
use browser_agent_protocol::lazy::SCREENSHOT;
use js_sys::Object;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Runs one `screenshot` step (see the module docs).
pub(crate) async fn screenshot(step: &JsValue) -> Outcome {
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
