//! `tools` and `tool`: the page's own tools (WebMCP, `docs/page-tools.md`), read and called where
//! the page registered them. Three places, in this order: the bootstrap's shim (its tools by name
//! in [`TOOLS`]`.m`, when `document.modelContext` is still the shim), a model context of the
//! browser's or a polyfill's (`getTools()` and `executeTool(tool, input)`, Chromium's), or
//! Chromium's testing API (`navigator.modelContextTesting`: `listTools()`,
//! `executeTool(name, json)`). A name the page did not register is never called: the step looks it
//! up in the page's registry as it is now.

use super::super::step::{bad_field, field, Outcome};
use crate::bootstrap;
use crate::js::{call, get, js_string, set};
use crate::lazy::settle;
use crate::text::{cat, num};
use browser_agent_protocol::page_tools::{
    valid_name, MAX_DESCRIPTION, MAX_RESULT, MAX_SCHEMA, MAX_TOOLS, REVISION, SKIPPED, SOURCE, TOOLS as LIST,
};
use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `t`: the bootstrap's record of the page's tools: `r` how many times they changed, `m` the
/// shim's tools by name, `c` the shim (absent where the browser had a model context of its own).
pub(crate) const TOOLS: &str = "t";
/// `tb`: set by the sensor; the bootstrap calls it when the tools change (a heartbeat soon).
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const TOOLS_BEAT: &str = "tb";

/// Where the page's tools are.
enum Registry {
    /// The bootstrap's shim: its tools by name.
    Shim(JsValue),
    /// A model context with `getTools` (the browser's, or a polyfill's that replaced the shim).
    Context(JsValue),
    /// `navigator.modelContextTesting`.
    Testing(JsValue),
}

fn registry() -> Option<Registry> {
    let record = bootstrap::field(TOOLS);
    let window = crate::js::global();
    let context = [
        get(&get(&window, "document"), "modelContext"),
        get(&get(&window, "navigator"), "modelContext"),
    ]
    .into_iter()
    .find(|c| c.is_object());
    let shim = get(&record, "c");
    let is_function = |o: &JsValue, f: &str| get(o, f).is_function();
    match context {
        Some(c) if shim.is_object() && c == shim => Some(Registry::Shim(get(&record, "m"))),
        Some(c) if is_function(&c, "getTools") => Some(Registry::Context(c)),
        _ => {
            let testing = get(&get(&window, "navigator"), "modelContextTesting");
            if is_function(&testing, "listTools") {
                Some(Registry::Testing(testing))
            } else if shim.is_object() {
                Some(Registry::Shim(get(&record, "m")))
            } else {
                None
            }
        }
    }
}

/// A built-in of the page's as it is now (`Object.keys`, `JSON.parse`): the glue's kept ones do
/// not include these, and the values read are the page's own tools.
fn page_builtin(owner: &str, name: &str) -> Option<Function> {
    get(&get(&crate::js::global(), owner), name).dyn_into().ok()
}

fn array(v: &JsValue) -> Array {
    v.clone().dyn_into::<Array>().unwrap_or_default()
}

/// The shim's tools, in registration order.
fn shim_tools(map: &JsValue) -> Vec<JsValue> {
    let Some(keys) = page_builtin("Object", "keys") else {
        return Vec::new();
    };
    let names = keys.call1(&JsValue::NULL, map).map(|k| array(&k)).unwrap_or_default();
    names
        .iter()
        .map(|n| Reflect::get(map, &n).unwrap_or(JsValue::UNDEFINED))
        .collect()
}

/// A context's tools: those of this window (Chromium's `getTools` also returns its frames').
async fn context_tools(context: &JsValue) -> Result<Vec<JsValue>, String> {
    let all = settle(call(context, "getTools", &[])).await?;
    let window = crate::js::global();
    Ok(array(&all)
        .iter()
        .filter(|t| {
            let w = get(t, "window");
            w.is_undefined() || w == window
        })
        .collect())
}

async fn listed_tools(registry: &Registry) -> Result<Vec<JsValue>, String> {
    match registry {
        Registry::Shim(map) => Ok(shim_tools(map)),
        Registry::Context(c) => context_tools(c).await,
        Registry::Testing(t) => Ok(array(&settle(call(t, "listTools", &[])).await?).iter().collect()),
    }
}

/// `v` as JSON text (the kept `JSON.stringify`); `None` when it is not JSON (a cycle, a BigInt).
fn json_text(v: &JsValue) -> Option<String> {
    js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string())
}

/// `{"command":"tools"}`: `{revision, source, tools:[{name, title?, description, inputSchema?
/// (JSON text), readOnly?, untrustedOutput?}], skipped:["name: why"]}`, at most [`MAX_TOOLS`]
/// tools, descriptions cut, schemas over [`MAX_SCHEMA`] bytes left out (the host checks it all
/// again).
pub(super) async fn list(_step: &JsValue) -> Outcome {
    let out = Object::new();
    set(&out, REVISION, &get(&bootstrap::field(TOOLS), "r"));
    let tools = Array::new();
    let skipped = Array::new();
    let registry = registry();
    let source = match registry {
        Some(Registry::Shim(_)) => "shim",
        Some(Registry::Context(_)) => "browser",
        Some(Registry::Testing(_)) => "testing",
        None => "none",
    };
    set(&out, SOURCE, &js_string(source));
    let all = match &registry {
        Some(r) => listed_tools(r).await?,
        None => Vec::new(),
    };
    for tool in all {
        let name = get(&tool, "name").as_string().unwrap_or_default();
        let why = if !valid_name(&name) {
            Some("not a tool name (1 to 128 of A-Z a-z 0-9 _ - .)".to_owned())
        } else if tools.length() as usize >= MAX_TOOLS {
            Some(cat(&["over ", &num(MAX_TOOLS as f64), " tools on one page"]))
        } else {
            None
        };
        if let Some(why) = why {
            skipped.push(&js_string(&cat(&[
                &name.chars().take(64).collect::<String>(),
                ": ",
                &why,
            ])));
            continue;
        }
        let entry = Object::new();
        set(&entry, "name", &js_string(&name));
        if let Some(title) = get(&tool, "title").as_string().filter(|t| !t.is_empty()) {
            set(
                &entry,
                "title",
                &js_string(&title.chars().take(120).collect::<String>()),
            );
        }
        let description: String = get(&tool, "description")
            .as_string()
            .unwrap_or_default()
            .chars()
            .take(MAX_DESCRIPTION)
            .collect();
        set(&entry, "description", &js_string(&description));
        let schema = get(&tool, "inputSchema");
        let schema_text = match schema.as_string() {
            Some(text) => Some(text),
            None if schema.is_object() => json_text(&schema),
            None => None,
        };
        if let Some(text) = schema_text {
            if text.len() > MAX_SCHEMA {
                let size = num(text.len() as f64);
                let why = cat(&[
                    &name,
                    ": input schema of ",
                    &size,
                    " bytes, over ",
                    &num(MAX_SCHEMA as f64),
                ]);
                skipped.push(&js_string(&why));
                continue;
            }
            set(&entry, "inputSchema", &js_string(&text));
        }
        let hints = get(&tool, "annotations");
        if get(&hints, "readOnlyHint").is_truthy() {
            set(&entry, "readOnly", &JsValue::TRUE);
        }
        if get(&hints, "untrustedContentHint").is_truthy() {
            set(&entry, "untrustedOutput", &JsValue::TRUE);
        }
        tools.push(&entry);
    }
    set(&out, LIST, &tools);
    set(&out, SKIPPED, &skipped);
    Ok(out.into())
}

/// `{"command":"tool","name":…,"input"?:{…}}`: runs the page's `execute(input)` and answers with
/// what it returned (a JSON-safe value, at most [`MAX_RESULT`] bytes as JSON); a throw or a
/// rejection fails the step with its message.
pub(super) async fn call_tool(step: &JsValue) -> Outcome {
    let Some(name) = field(step, "name") else {
        return Err(bad_field("name"));
    };
    let input = match get(step, "input") {
        v if v.is_object() => v,
        _ => Object::new().into(),
    };
    let Some(registry) = registry() else {
        return Err(cat(&[
            "this page registers no tools (it has no document.modelContext); no ",
            &name,
        ]));
    };
    let tools = listed_tools(&registry).await?;
    let Some(tool) = tools
        .iter()
        .find(|t| get(t, "name").as_string().as_deref() == Some(name.as_str()))
    else {
        let names: Vec<String> = tools.iter().filter_map(|t| get(t, "name").as_string()).collect();
        let known = if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        };
        return Err(cat(&[
            "the page has no tool named ",
            &name,
            " (its tools now: ",
            &known,
            ")",
        ]));
    };
    let threw = |e: String| cat(&["the page's tool ", &name, " failed: ", &e]);
    let value = match &registry {
        Registry::Shim(_) => {
            let execute: Function = get(tool, "execute")
                .dyn_into()
                .map_err(|_| threw("it has no execute".into()))?;
            settle(execute.call1(tool, &input)).await.map_err(threw)?
        }
        Registry::Context(c) => {
            // Chromium 155 and later take the input as an object, earlier ones (and the MCP-B
            // polyfill) as JSON text; both answer with the result as JSON text.
            let text = match settle(call(c, "executeTool", &[tool, &input])).await {
                Err(e) if e.contains("parse input") => {
                    let json = js_string(&json_text(&input).unwrap_or_else(|| "{}".into()));
                    settle(call(c, "executeTool", &[tool, &json])).await.map_err(threw)?
                }
                other => other.map_err(threw)?,
            };
            parsed(text)
        }
        Registry::Testing(t) => {
            let json = json_text(&input).unwrap_or_else(|| "{}".into());
            parsed(
                settle(call(t, "executeTool", &[&js_string(&name), &js_string(&json)]))
                    .await
                    .map_err(threw)?,
            )
        }
    };
    if value.is_undefined() {
        return Ok(JsValue::NULL);
    }
    let Some(text) = json_text(&value) else {
        return Err(threw("its result is not JSON (a cycle, a BigInt or a function)".into()));
    };
    if text.len() > MAX_RESULT {
        return Err(cat(&[
            "the page's tool ",
            &name,
            " answered ",
            &num(text.len() as f64),
            " bytes of JSON, over the ",
            &num(MAX_RESULT as f64),
            " an answer carries",
        ]));
    }
    Ok(value)
}

/// JSON text parsed (with the page's `JSON.parse`); other values, and text that is not JSON, as they are.
fn parsed(v: JsValue) -> JsValue {
    let Some(text) = v.as_string() else {
        return v;
    };
    page_builtin("JSON", "parse")
        .and_then(|parse| parse.call1(&JsValue::NULL, &js_string(&text)).ok())
        .unwrap_or(v)
}
