//! Modules loaded on first use ([`browser_agent_protocol::lazy`]): the screenshot capture
//! and the cursor are JS, served as `{prefix}/assets/{name}-{rev}.js` and imported through the
//! bootstrap (wasm cannot `import()`, and the bootstrap's import runs under the page's nonce).

use crate::bootstrap;
use crate::js::{get, js_string};
use crate::text::cat;
use browser_agent_protocol::ASSETS_DIR;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// A thrown value's text: `message` of an Error, else a fixed sentence.
pub(crate) fn message(e: JsValue) -> String {
    get(&e, "message")
        .as_string()
        .unwrap_or_else(|| "a browser-agent module failed".into())
}

/// Awaits a call's promise (or value); a throw or a rejection becomes its message.
pub(crate) async fn settle(value: Result<JsValue, JsValue>) -> Result<JsValue, String> {
    let v = value.map_err(message)?;
    match v.dyn_into::<Promise>() {
        Ok(p) => JsFuture::from(p).await.map_err(message),
        Err(v) => Ok(v),
    }
}

/// The module `name` (the browser caches it after the first import).
pub(crate) async fn module(name: &str) -> Result<JsValue, String> {
    let (prefix, rev) = crate::net::host().map(|h| (h.prefix, h.rev)).unwrap_or_default();
    let agent = bootstrap::agent();
    let load: Function = get(&agent, bootstrap::LOAD).unchecked_into();
    let path = cat(&[&prefix, ASSETS_DIR, name, "-", rev.get(..12).unwrap_or(&rev), ".js"]);
    settle(load.call1(&agent, &js_string(&path))).await
}

/// Calls `module.f(args…)` and awaits what it returns.
pub(crate) async fn call(module: &JsValue, f: &str, args: &[&JsValue]) -> Result<JsValue, String> {
    settle(crate::js::call(module, f, args)).await
}
