//! `evaluate`: runs the agent's script as an async function (through a nonce'd `<script>` where the
//! page's CSP forbids `eval`) and returns a JSON-safe copy of its result, made by the module
//! [`browser_agent_core::protocol::lazy::EVALUATE`] (`evaluate.js`, loaded on the first evaluate).

use super::super::resolve::field;
use super::super::Outcome;
use super::bad_field;
use crate::bootstrap;
use crate::js::{call, get, global, js_string, set};
use crate::text::{cat, has_sub};
use browser_agent_core::protocol::CONFIG_ATTR;
use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Compiles `src` as an async function's expression (returned) or, when that is not an
/// expression, as its body. `Err` carries the thrown value.
fn compile(src: &str) -> Result<Function, JsValue> {
    let expr = src.trim().trim_end_matches(';');
    let as_expr = cat(&["return (async () => (\n", expr, "\n))()"]);
    match Function::new_no_args_checked(&as_expr) {
        Ok(f) => Ok(f),
        Err(e) if get(&e, "name").as_string().as_deref() == Some("SyntaxError") => {
            Function::new_no_args_checked(&cat(&["return (async () => {\n", src, "\n})()"]))
        }
        Err(e) => Err(e),
    }
}

/// `new Function(body)` that reports a syntax or CSP error instead of throwing.
trait NewChecked {
    /// Compiles `body` as a function without arguments; `Err` carries the thrown value.
    fn new_no_args_checked(body: &str) -> Result<Function, JsValue>;
}

impl NewChecked for Function {
    fn new_no_args_checked(body: &str) -> Result<Function, JsValue> {
        let ctor: Function = get(&global(), "Function").unchecked_into();
        Reflect::construct(&ctor, &Array::of1(&js_string(body))).map(JsCast::unchecked_into)
    }
}

/// Runs the code through a `<script>` that carries the injected tag's nonce (for pages whose CSP
/// forbids `eval` but allows our tag by nonce); the promise is left on `__browserAgent.ev`.
fn via_script(src: &str) -> Option<JsValue> {
    let doc = get(&global(), "document");
    let tag = call(
        &doc,
        "querySelector",
        &[&js_string(&cat(&["script[", CONFIG_ATTR, "]"]))],
    )
    .ok()?;
    let nonce = get(&tag, "nonce").as_string().unwrap_or_default();
    if nonce.is_empty() {
        return None;
    }
    let agent = bootstrap::agent();
    set(&agent, bootstrap::EVAL, &JsValue::UNDEFINED);
    let code = cat(&[
        "window.",
        bootstrap::GLOBAL,
        ".",
        bootstrap::EVAL,
        " = (async () => {\n",
        src,
        "\n})();",
    ]);
    let script = call(&doc, "createElement", &[&js_string("script")]).ok()?;
    set(&script, "nonce", &js_string(&nonce));
    set(&script, "textContent", &js_string(&code));
    let parent = get(&doc, "head");
    let parent = if parent.is_object() {
        parent
    } else {
        get(&doc, "documentElement")
    };
    call(&parent, "appendChild", &[&script]).ok()?;
    let _ = call(&script, "remove", &[]);
    let p = get(&agent, bootstrap::EVAL);
    p.is_object().then_some(p)
}

/// `evaluate`: runs `script` (or `expression`, `code`, `js`) and returns its JSON-safe result.
pub(super) async fn evaluate(step: &JsValue) -> Outcome {
    let Some(src) = field(step, "script")
        .or_else(|| field(step, "expression"))
        .or_else(|| field(step, "code"))
        .or_else(|| field(step, "js"))
    else {
        return Err(bad_field("script"));
    };
    // The JSON-safe copy is made by a module loaded on the first evaluate, before the script runs.
    let module = crate::lazy::module(browser_agent_core::protocol::lazy::EVALUATE).await?;
    let promise = match compile(&src) {
        Ok(f) => f.call0(&global()).map_err(|e| failed(&e))?,
        Err(e) if get(&e, "name").as_string().as_deref() == Some("EvalError") => {
            let body = if has_sub(&src, "return") {
                src.clone()
            } else {
                cat(&["return (", src.trim().trim_end_matches(';'), ")"])
            };
            via_script(&body).ok_or_else(|| {
                "evaluate failed: the page's Content-Security-Policy forbids running code from a string ('unsafe-eval' is not allowed and the agent's script tag has no nonce)".to_owned()
            })?
        }
        Err(e) => return Err(failed(&e)),
    };
    let v = JsFuture::from(Promise::resolve(&promise))
        .await
        .map_err(|e| failed(&e))?;
    // Copied at once, as the promise settles (what the script set off, a navigation on the next
    // frame, has not happened yet).
    call(&module, "copy", &[&v]).map_err(|e| failed(&e))
}

/// `String(v)`: any value as text (never throws for symbols, bigints, odd objects).
fn text_of(v: &JsValue) -> String {
    get(&global(), "String")
        .dyn_into::<Function>()
        .ok()
        .and_then(|f| f.call1(&JsValue::UNDEFINED, v).ok())
        .and_then(|t| t.as_string())
        .unwrap_or_default()
}

/// `evaluate failed: TypeError: x is undefined` plus the first stack lines.
fn failed(e: &JsValue) -> String {
    let mut m = String::from("evaluate failed: ");
    let name = get(e, "name").as_string();
    let message = get(e, "message").as_string();
    match (name, message) {
        (Some(n), Some(msg)) => {
            m.push_str(&n);
            m.push_str(": ");
            m.push_str(&msg);
            if let Some(stack) = get(e, "stack").as_string() {
                let lines: Vec<&str> = stack.lines().skip(1).take(5).collect();
                if !lines.is_empty() {
                    m.push('\n');
                    crate::text::push_joined(&mut m, &lines, "\n");
                }
            }
        }
        _ => m.push_str(&text_of(e)),
    }
    m
}
