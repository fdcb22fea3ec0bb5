//! `evaluate`: runs the agent's script as an async function (through a nonce'd `<script>` where the
//! page's CSP forbids `eval`) and returns a JSON-safe copy of its result.

use super::super::resolve::{describe, field};
use super::super::Outcome;
use crate::bootstrap;
use crate::js::{as_element, call, get, global, js_string, object, set};
use crate::snapshot::name::squash;
use crate::text::{cat, has_sub, push_number};
use browser_agent_core::protocol::CONFIG_ATTR;
use js_sys::{Array, Function, JsString, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Bounds of `evaluate` results: depth.
const EVAL_DEPTH: u32 = 10;
/// Bounds of `evaluate` results: items of an array or keys of an object.
const EVAL_ITEMS: u32 = 500;
/// Bounds of `evaluate` results: characters of a string.
const EVAL_CHARS: u32 = 20_000;
/// Values an evaluate result may hold in all (so 500 × 500 × … cannot explode).
const EVAL_BUDGET: u32 = 20_000;

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
        return Err(
            "evaluate needs \"script\": an expression, or a function body with return (await works)".to_owned(),
        );
    };
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
    let mut seen = Vec::new();
    let mut budget = EVAL_BUDGET;
    Ok(safe(&v, 0, &mut seen, &mut budget))
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

/// `text` as a JS string of at most `max` UTF-16 units, then `…(+N chars)`.
fn cut(text: &str, max: u32) -> JsValue {
    let js = JsString::from(text);
    let len = js.length();
    if len <= max {
        return js.into();
    }
    let mut more = String::from("…(+");
    push_number(&mut more, len - max);
    more.push_str(" chars)");
    js.slice(0, max).concat(&js_string(&more)).into()
}

/// A JSON-safe copy of `v`: depth ≤ 10, ≤ 500 items, strings ≤ 20,000 chars, cycles marked,
/// DOM nodes described, errors as `{__type, name, message, stack}`.
fn safe(v: &JsValue, depth: u32, seen: &mut Vec<JsValue>, budget: &mut u32) -> JsValue {
    if *budget == 0 {
        return js_string("[Truncated]");
    }
    *budget -= 1;
    if v.is_undefined() {
        return js_string("[undefined]");
    }
    if v.is_null() || v.as_bool().is_some() {
        return v.clone();
    }
    if let Some(x) = v.as_f64() {
        return if x.is_finite() {
            v.clone()
        } else {
            js_string(&text_of(v))
        };
    }
    if let Some(t) = v.as_string() {
        return cut(&t, EVAL_CHARS);
    }
    if v.is_bigint() {
        return js_string(&cat(&[&text_of(v), "n"]));
    }
    if v.is_symbol() {
        return js_string(
            &call(v, "toString", &[])
                .ok()
                .and_then(|x| x.as_string())
                .unwrap_or_default(),
        );
    }
    if v.is_function() {
        let name = get(v, "name").as_string().unwrap_or_default();
        return js_string(&cat(&[
            "[Function: ",
            if name.is_empty() { "anonymous" } else { &name },
            "]",
        ]));
    }
    if seen.iter().any(|x| x == v) {
        return js_string("[Circular]");
    }
    if depth >= EVAL_DEPTH {
        return js_string("[Max depth]");
    }
    let node_type = get(v, "nodeType");
    if node_type.as_f64().is_some() && get(v, "nodeName").is_string() {
        return node(v);
    }
    let to_string = get(&get(&get(&global(), "Object"), "prototype"), "toString");
    let tag = to_string
        .dyn_into::<Function>()
        .ok()
        .and_then(|f| f.call0(v).ok())
        .and_then(|x| x.as_string())
        .unwrap_or_default();
    match tag.as_str() {
        "[object Error]" | "[object DOMException]" => {
            return object(&[
                ("__type", js_string("Error")),
                ("name", get(v, "name")),
                ("message", get(v, "message")),
                (
                    "stack",
                    get(v, "stack")
                        .as_string()
                        .map(|t| cut(&t, 2000))
                        .unwrap_or(JsValue::NULL),
                ),
            ])
            .into();
        }
        "[object Date]" => {
            return call(v, "toISOString", &[]).unwrap_or_else(|_| js_string("Invalid Date"));
        }
        "[object RegExp]" => return call(v, "toString", &[]).unwrap_or(JsValue::NULL),
        "[object Promise]" => return js_string("[Promise]"),
        "[object Window]" => return js_string("[Window]"),
        _ => {}
    }
    seen.push(v.clone());
    let out: JsValue = if Array::is_array(v)
        || tag == "[object Set]"
        || tag == "[object NodeList]"
        || tag == "[object HTMLCollection]"
        || get(v, "BYTES_PER_ELEMENT").as_f64().is_some()
    {
        let items = Array::from(v);
        let total = items.length();
        let arr = Array::new();
        for i in 0..total.min(EVAL_ITEMS) {
            arr.push(&safe(&items.get(i), depth + 1, seen, budget));
        }
        if total > EVAL_ITEMS {
            let mut m = String::from("…(+");
            push_number(&mut m, total - EVAL_ITEMS);
            m.push_str(" more)");
            arr.push(&js_string(&m));
        }
        arr.into()
    } else {
        let o = Object::new();
        let entries: Array = if tag == "[object Map]" {
            Array::from(&call(v, "entries", &[]).unwrap_or_else(|_| Array::new().into()))
        } else {
            // Own enumerable keys, read one by one (a throwing getter spoils only its own key).
            // (A loop, not `Array::filter`/`map` with Rust closures: each closure type adds glue.)
            let pairs = Array::new();
            for k in Reflect::own_keys(v).unwrap_or_default().iter() {
                if !k.is_string() {
                    continue;
                }
                let val = Reflect::get(v, &k)
                    .unwrap_or_else(|e| js_string(&cat(&["[Unserializable: ", &text_of(&get(&e, "message")), "]"])));
                pairs.push(&Array::of2(&k, &val));
            }
            pairs
        };
        let total = entries.length();
        for i in 0..total.min(EVAL_ITEMS) {
            let pair = entries.get(i);
            let k = Reflect::get_u32(&pair, 0).unwrap_or(JsValue::UNDEFINED);
            let key = k.as_string().unwrap_or_else(|| text_of(&k));
            let val = Reflect::get_u32(&pair, 1).unwrap_or(JsValue::UNDEFINED);
            set(&o, &key, &safe(&val, depth + 1, seen, budget));
        }
        if total > EVAL_ITEMS {
            let mut m = String::new();
            push_number(&mut m, total - EVAL_ITEMS);
            m.push_str(" more keys");
            set(&o, "…", &js_string(&m));
        }
        o.into()
    };
    seen.pop();
    out
}

/// A DOM node described: `{__type:"Element", tag, id?, class?, text?, html, label}`.
fn node(v: &JsValue) -> JsValue {
    let Some(el) = as_element(v.clone()) else {
        let o = object(&[("__type", js_string("Node")), ("nodeName", get(v, "nodeName"))]);
        if let Some(t) = get(v, "textContent").as_string() {
            set(&o, "text", &cut(squash(&t).as_str(), 200));
        }
        return o.into();
    };
    let o = object(&[("__type", js_string("Element")), ("tag", js_string(&el.local_name()))]);
    if let Some(id) = el.get_attribute("id") {
        set(&o, "id", &js_string(&id));
    }
    if let Some(c) = el.get_attribute("class") {
        set(&o, "class", &js_string(&c));
    }
    let text = squash(&el.text_content().unwrap_or_default());
    if !text.is_empty() {
        set(&o, "text", &cut(&text, 200));
    }
    set(&o, "html", &cut(&el.outer_html(), 1000));
    if el.is_connected() {
        set(&o, "label", &js_string(&describe(&el)));
    }
    o.into()
}
