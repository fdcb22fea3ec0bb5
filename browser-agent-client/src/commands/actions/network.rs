//! `network`: the request and response bodies of one fetch/XHR entry, or the last messages of a
//! WebSocket, as one text. The bootstrap keeps them by reference (`nb`, its ring of the page's
//! last [`KEPT_RECORDS`] requests and socket events) and reads none; this step reads them when an
//! agent asks, bounds each body to [`BODY_SHOWN`] characters and each message to
//! [`MESSAGE_SHOWN`], and the host redacts the text with the logs' rules before anyone sees it.
//!
//! The host fills in which entry: the page's own number for it ([`network::PAGE_SEQ`]) and the
//! page load that made it ([`network::PAGE_CLIENT`]), from the agent's `seq`.

use super::super::step::{bad_field, Outcome};
use crate::bootstrap;
use crate::js::{get, js_string, set, set_timeout};
use crate::text::{cat, char_count, num};
use browser_agent_protocol::network::{self, BODY_SHOWN, KEPT_MESSAGES, KEPT_RECORDS, MESSAGE_SHOWN};
use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The bootstrap's ring of kept requests and socket events (its own field, like `s` and `b`).
const KEPT: &str = "nb";
/// `nb.w`: the page's last [`KEPT_SOCKETS`] sockets' message rings.
const SOCKETS: &str = "w";
/// How many sockets `nb.w` holds (the bootstrap's literal).
const KEPT_SOCKETS: u32 = 10;
/// Longest the step waits for a response body still arriving, in ms.
const BODY_WAIT_MS: i32 = 3_000;

/// `{"command":"network","seq":12}` (with the host's `clientSeq` and `clientId`).
pub(super) async fn network(step: &JsValue) -> Outcome {
    let shown = get(step, network::SEQ).as_f64().unwrap_or(0.0);
    let Some(page_seq) = get(step, network::PAGE_SEQ).as_f64() else {
        return Err(bad_field(network::PAGE_SEQ));
    };
    let this_load = bootstrap::field(bootstrap::CLIENT_ID).as_string().unwrap_or_default();
    let load = get(step, network::PAGE_CLIENT).as_string().unwrap_or_default();
    if load != this_load {
        return Err(cat(&[
            "entry #",
            &num(shown),
            " was captured by an earlier page load of this tab (client ",
            &load,
            "); its bodies went with it",
        ]));
    }
    let kept = bootstrap::field(KEPT);
    let record = (0..KEPT_RECORDS as u32)
        .map(|i| Reflect::get_u32(&kept, i).unwrap_or(JsValue::UNDEFINED))
        .find(|r| r.is_object() && get(&get(r, "e"), "seq").as_f64() == Some(page_seq));
    // A socket whose entries left the ring: among the last sockets, by its entries' numbers.
    let sockets = get(&kept, SOCKETS);
    let socket_of = |m: &JsValue| {
        let seqs = get(m, "s");
        let n = get(&seqs, "length").as_f64().unwrap_or(0.0) as u32;
        (0..n.min(64)).any(|i| Reflect::get_u32(&seqs, i).ok().and_then(|v| v.as_f64()) == Some(page_seq))
    };
    let record = record.or_else(|| {
        (0..KEPT_SOCKETS)
            .map(|i| Reflect::get_u32(&sockets, i).unwrap_or(JsValue::UNDEFINED))
            .find(|m| m.is_object() && socket_of(m))
            .map(|m| crate::js::object(&[("m", m)]).into())
    });
    let Some(record) = record else {
        return Err(cat(&[
            "the page no longer keeps entry #",
            &num(shown),
            ": it keeps its last ",
            &num(KEPT_RECORDS as f64),
            " requests and socket events",
        ]));
    };
    let entry = get(&record, "e");
    let messages = get(&record, "m");
    let text = if messages.is_object() {
        socket(&messages, shown)
    } else {
        request(&record, &entry, shown).await
    };
    Ok(js_string(&text))
}

/// A string field of `o`, or "".
fn text_of(o: &JsValue, name: &str) -> String {
    let v = get(o, name);
    v.as_string().or_else(|| v.as_f64().map(num)).unwrap_or_default()
}

/// `s` cut at `max` characters, with how many more there were.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((at, _)) => cat(&[&s[..at], "… (", &num((char_count(s) - max) as f64), " more chars)"]),
    }
}

/// `(type, 12 B)`: what is known of a body.
fn about(kind: &str, size: Option<f64>, read: Option<&str>) -> String {
    let size = size.or_else(|| read.map(|t| t.len() as f64));
    let mut parts: Vec<String> = Vec::new();
    if !kind.is_empty() {
        parts.push(kind.to_owned());
    }
    if let Some(n) = size {
        parts.push(cat(&[&num(n), " B"]));
    }
    if parts.is_empty() {
        String::new()
    } else {
        cat(&[" (", &parts.join(", "), ")"])
    }
}

/// The request line, then each body under its heading.
async fn request(record: &JsValue, entry: &JsValue, shown: f64) -> String {
    let mut out = cat(&[&text_of(entry, "method"), " ", &text_of(entry, "url"), " → "]);
    let error = text_of(entry, "error");
    if !error.is_empty() {
        out.push_str(&cat(&["failed: ", &error]));
    } else {
        out.push_str(&cat(&[&text_of(entry, "status"), " ", &text_of(entry, "statusText")]));
    }
    out.push_str(&cat(&[" (#", &num(shown), ")\n"]));
    let sent = get(record, "q");
    let body = if sent.is_undefined() || sent.is_null() {
        None
    } else {
        Some(body_text(&sent).await)
    };
    out.push_str("request body");
    out.push_str(&about(
        &text_of(entry, "reqType"),
        get(entry, "reqSize").as_f64(),
        body.as_ref().and_then(|b| b.as_deref().ok()),
    ));
    out.push_str(":\n");
    out.push_str(&shown_body(body, "(none)"));
    let answer = get(record, "r");
    let body = if answer.is_undefined() {
        None
    } else {
        let read = response_text(&answer).await;
        // Read once: a copy's body cannot be read again, its text can.
        if let Ok(Some(text)) = &read {
            set(record, "r", &js_string(text));
        }
        read.transpose()
    };
    out.push_str("response body");
    out.push_str(&about(
        &text_of(entry, "resType"),
        get(entry, "resSize").as_f64(),
        body.as_ref().and_then(|b| b.as_deref().ok()),
    ));
    out.push_str(":\n");
    let none = if !error.is_empty() {
        "(none: the request failed)"
    } else {
        "(not kept: a streamed answer, or one over 1 MB)"
    };
    out.push_str(&shown_body(body, none));
    out
}

/// A body as shown: its text cut, a reason it could not be read, or `none`.
fn shown_body(body: Option<Result<String, String>>, none: &str) -> String {
    match body {
        None => cat(&[none, "\n"]),
        Some(Ok(t)) if t.is_empty() => String::from("(empty)\n"),
        Some(Ok(t)) => cat(&[&cut(&t, BODY_SHOWN), "\n"]),
        Some(Err(why)) => cat(&["(", &why, ")\n"]),
    }
}

/// What kind of object `v` is (`FormData`, `Blob`, `Response`, …: `[object FormData]` without
/// its brackets), or "" (a URLSearchParams' own `toString` gives its text, which is no kind).
/// Read through the object's `toString`, as the glue may name no global the bootstrap did not keep.
fn tag(v: &JsValue) -> String {
    let s = crate::js::call(v, "toString", &[])
        .ok()
        .and_then(|t| t.as_string())
        .unwrap_or_default();
    s.strip_prefix("[object ")
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or("")
        .to_owned()
}

/// Awaits the text promise `v` for [`BODY_WAIT_MS`] at most: `None` when it has not settled by
/// then (a body still arriving; the timer resolves with nothing, a text is a string).
async fn bounded(v: JsValue) -> Result<Option<JsValue>, String> {
    if !v.has_type::<Promise>() {
        return Ok(Some(v));
    }
    let first = Promise::new(&mut |resolve, reject| {
        let _ = crate::js::call(&v, "then", &[&resolve, &reject]);
        set_timeout(&resolve, BODY_WAIT_MS);
    });
    match JsFuture::from(first).await {
        Ok(v) if v.is_undefined() => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(e) => Err(crate::lazy::message(e)),
    }
}

/// A request body as text: a string as it is, a form's fields as `name=value` lines, the rest
/// (URLSearchParams, Blob, ArrayBuffer, a Request's copy) read through a `Response`.
async fn body_text(v: &JsValue) -> Result<String, String> {
    if let Some(s) = v.as_string() {
        return Ok(s);
    }
    let kind = tag(v);
    if kind == "FormData" {
        return Ok(form_text(v));
    }
    if kind == "ReadableStream" {
        return Err("a stream: the browser read it while sending".into());
    }
    let text = if kind == "Request" {
        crate::js::call(v, "text", &[])
    } else {
        // The page's Response as it was before its scripts ran (the bootstrap's KEPT).
        let ctor: Function = get(&bootstrap::field(bootstrap::PRISTINE), "Response")
            .dyn_into()
            .map_err(|_| String::from("this browser cannot read it"))?;
        Reflect::construct(&ctor, &Array::of1(v)).and_then(|r| crate::js::call(&r, "text", &[]))
    };
    let text = text.map_err(crate::lazy::message)?;
    match bounded(text).await? {
        Some(t) => binary_or(t.as_string().unwrap_or_default()),
        None => Err("still arriving after 3 s".into()),
    }
}

/// Text that is not UTF-8 (a NUL or a replacement character in it) is named by its size.
fn binary_or(t: String) -> Result<String, String> {
    if t.contains('\0') || t.contains('\u{FFFD}') {
        Err(cat(&["binary, ", &num(t.len() as f64), " B"]))
    } else {
        Ok(t)
    }
}

/// A FormData's fields, `name=value` one a line; a file as `name=<file name, type, N B>`.
fn form_text(form: &JsValue) -> String {
    let mut out = String::new();
    let Ok(items) = crate::js::call(form, "entries", &[]) else {
        return out;
    };
    // A form holds what the page put in it: at most this many fields are listed.
    for _ in 0..200 {
        let Ok(next) = crate::js::call(&items, "next", &[]) else {
            break;
        };
        if get(&next, "done").is_truthy() {
            break;
        }
        let pair = get(&next, "value");
        let name = Reflect::get_u32(&pair, 0)
            .ok()
            .and_then(|n| n.as_string())
            .unwrap_or_default();
        let value = Reflect::get_u32(&pair, 1).unwrap_or(JsValue::UNDEFINED);
        let value = match value.as_string() {
            Some(s) => s,
            None => cat(&[
                "<file ",
                &text_of(&value, "name"),
                ", ",
                &text_of(&value, "type"),
                ", ",
                &text_of(&value, "size"),
                " B>",
            ]),
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&cat(&[&name, "=", &value]));
    }
    out
}

/// A response as text: a copy's body, a failed answer's text (a promise), an XHR's `response`
/// (text, a parsed JSON value, a document, binary); `Ok(None)` for no body.
async fn response_text(v: &JsValue) -> Result<Option<String>, String> {
    if v.is_null() {
        return Ok(None);
    }
    if let Some(s) = v.as_string() {
        return Ok(Some(s));
    }
    let kind = tag(v);
    if kind == "Response" {
        let text = crate::js::call(v, "text", &[]).map_err(crate::lazy::message)?;
        return match bounded(text).await? {
            Some(t) => binary_or(t.as_string().unwrap_or_default()).map(Some),
            None => Err("still arriving after 3 s".into()),
        };
    }
    if v.has_type::<Promise>() {
        return match bounded(v.clone()).await? {
            Some(t) => Ok(t.as_string()),
            None => Err("still arriving after 3 s".into()),
        };
    }
    if kind.ends_with("Document") {
        return Ok(get(&get(v, "documentElement"), "outerHTML").as_string());
    }
    if kind == "ArrayBuffer" || kind == "Blob" {
        return body_text(v).await.map(Some);
    }
    // An XHR's JSON (responseType "json").
    Ok(js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string()))
}

/// A socket's last messages, oldest first: `→` sent, `←` received.
fn socket(messages: &JsValue, shown: f64) -> String {
    let at = get(messages, "i").as_f64().unwrap_or(0.0) as u32;
    let counts = get(messages, "c");
    let count = |i| {
        Reflect::get_u32(&counts, i)
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0)
    };
    let n = KEPT_MESSAGES as u32;
    let mut lines = String::new();
    let mut listed = 0;
    for k in 0..n {
        let m = Reflect::get_u32(messages, (at + k) % n).unwrap_or(JsValue::UNDEFINED);
        if !m.is_object() {
            continue;
        }
        listed += 1;
        let sent = Reflect::get_u32(&m, 0).ok().and_then(|v| v.as_f64()) == Some(1.0);
        let data = Reflect::get_u32(&m, 2).unwrap_or(JsValue::UNDEFINED);
        let text = match data.as_string() {
            Some(s) => cut(&s, MESSAGE_SHOWN).replace('\n', " "),
            None => {
                let size = get(&data, "byteLength")
                    .as_f64()
                    .or_else(|| get(&data, "size").as_f64());
                cat(&["(binary, ", &size.map(num).unwrap_or_default(), " B)"])
            }
        };
        lines.push_str(if sent { "→ " } else { "← " });
        lines.push_str(&text);
        lines.push('\n');
    }
    let head = cat(&[
        "WebSocket ",
        &text_of(messages, "u"),
        " (#",
        &num(shown),
        "): ",
        &num(count(1)),
        " sent, ",
        &num(count(0)),
        " received; ",
    ]);
    if listed == 0 {
        return cat(&[&head, "no messages\n"]);
    }
    cat(&[
        &head,
        "the last ",
        &num(listed as f64),
        ", oldest first (→ sent, ← received):\n",
        &lines,
    ])
}
