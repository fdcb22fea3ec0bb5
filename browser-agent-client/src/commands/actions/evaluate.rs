//! `evaluate`: the agent's script runs in the module [`browser_agent_protocol::lazy::EVALUATE`]
//! (`evaluate.js`, loaded on the first evaluate), which compiles it as an async function (through
//! a nonce'd `<script>` where the page's CSP forbids `eval`) and returns a JSON-safe copy of its
//! result. Most pages never evaluate, so none of this is in the code every page loads.

use super::super::step::{bad_field, field, Outcome};
use crate::js::js_string;
use crate::lazy;
use wasm_bindgen::JsValue;

/// `evaluate`: runs `script` (or `expression`, `code`, `js`) and returns its JSON-safe result;
/// `undefined` (the step gets no `result`) when the script returned nothing.
pub(super) async fn evaluate(step: &JsValue) -> Outcome {
    let Some(src) = field(step, "script")
        .or_else(|| field(step, "expression"))
        .or_else(|| field(step, "code"))
        .or_else(|| field(step, "js"))
    else {
        return Err(bad_field("script"));
    };
    let module = lazy::module(browser_agent_protocol::lazy::EVALUATE).await?;
    lazy::call(&module, "run", &[&js_string(&src)]).await
}
