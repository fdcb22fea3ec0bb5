//! `vitals`: the page's Web Vitals and jank, each element as the snapshot shows it, with its ref:
//! LCP and its element, CLS and the elements that shifted, INP and the slowest interactions with
//! their targets, long tasks and long animation frames with the scripts that ran, the slowest
//! resources. The sensor keeps the records (one `PerformanceObserver`, `buffered`, the worst few of
//! each kind: see `sensor.js`); this step reads them through [`VITALS`] when an agent asks, and
//! answers in a few lines of text.

use super::super::step::Outcome;
use crate::bootstrap;
use crate::commands::resolve::describe::{describe, element_of, role_of};
use crate::js::{get, js_string};
use crate::snapshot::refs::ref_of;
use crate::text::{cat, has_sub, num, push_number};
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// `vt()`: the sensor's kept records (`{l, c, s, e, t, f, r}`: the LCP entry, the CLS, and the
/// `[score, entry]` lists of shifts, interactions' events, long tasks, long animation frames and
/// resources, worst first), with those not yet delivered; the observer starts then if the page was
/// never idle. Filled in at build time (`scripts/build-bootstrap.mjs`).
pub(crate) const VITALS: &str = "vt";

/// Items shown of each list.
const SHOWN: u32 = 3;
/// Layout-shift sources named per shift (the browser keeps five).
const SOURCES: u32 = 3;
/// URLs are cut to this many characters.
const MAX_URL: usize = 80;

/// Scripts of the page's own origin read to turn a character position into a line (`app.js:19`).
const SOURCES_READ: usize = 4;

/// The time of the page's long tasks that began between `from` and `to` (`performance.now()`
/// time), from the sensor's records: what an acting step cost where no profiler could run.
pub(crate) fn long_task_ms(from: f64, to: f64) -> f64 {
    let f = bootstrap::field(VITALS);
    let Ok(v) = js_sys::Function::from(f).call0(&bootstrap::agent()) else {
        return 0.0;
    };
    list(&get(&v, "t"))
        .iter()
        .filter(|(_, e)| get(e, "startTime").as_f64().is_some_and(|t| t >= from && t <= to))
        .map(|(d, _)| d)
        .sum()
}

/// `{"command":"vitals"}`: the text.
pub(super) async fn vitals(_step: &JsValue) -> Outcome {
    let f = bootstrap::field(VITALS);
    let v = match js_sys::Function::from(f).call0(&bootstrap::agent()) {
        Ok(v) if v.is_object() => v,
        _ => return Err("this page's sensor keeps no vitals (an older client: reload the page)".into()),
    };
    let supported = supported_types();
    let has = |t: &str| supported.iter().any(|s| s == t);
    let loafs = list(&get(&v, "f"));
    let src = sources(&loafs).await;
    let src = &src;
    let mut out = String::new();

    // LCP.
    if !has("largest-contentful-paint") {
        out.push_str("LCP: not measured by this browser");
    } else {
        let l = get(&v, "l");
        if !l.is_object() {
            out.push_str("LCP: none yet (no contentful paint seen)");
        } else {
            out.push_str("LCP ");
            out.push_str(&time(get(&l, "startTime").as_f64().unwrap_or(0.0)));
            out.push(' ');
            out.push_str(&element(&get(&l, "element")));
            let size = get(&l, "size").as_f64().unwrap_or(0.0);
            let url = get(&l, "url").as_string().unwrap_or_default();
            out.push_str(" (");
            push_number(&mut out, size as u32);
            out.push_str(" px²");
            if !url.is_empty() {
                out.push_str(", ");
                out.push_str(&short_url(&url));
            }
            out.push(')');
        }
    }
    out.push('\n');

    // CLS.
    if !has("layout-shift") {
        out.push_str("CLS: not measured by this browser");
    } else {
        let shifts = list(&get(&v, "s"));
        out.push_str("CLS ");
        out.push_str(&decimal(get(&v, "c").as_f64().unwrap_or(0.0)));
        if shifts.is_empty() {
            out.push_str(": no layout shift");
        }
        for (i, (value, e)) in shifts.iter().take(SHOWN as usize).enumerate() {
            out.push_str(if i == 0 { ": " } else { "; " });
            out.push_str(&decimal(*value));
            out.push_str(" at ");
            out.push_str(&time(get(e, "startTime").as_f64().unwrap_or(0.0)));
            let sources = get(e, "sources");
            let n = get(&sources, "length").as_f64().unwrap_or(0.0) as u32;
            for j in 0..n.min(SOURCES) {
                let s = Reflect::get_u32(&sources, j).unwrap_or(JsValue::UNDEFINED);
                out.push_str(if j == 0 { ": " } else { ", " });
                out.push_str(&element(&get(&s, "node")));
                let moved = distance(&get(&s, "previousRect"), &get(&s, "currentRect"));
                if moved > 0.0 {
                    out.push_str(" moved ");
                    out.push_str(&num(moved));
                    out.push_str("px");
                }
            }
        }
    }
    out.push('\n');

    // INP and the slowest interactions.
    if !has("event") {
        out.push_str("INP: not measured by this browser");
    } else {
        let interactions = interactions(&list(&get(&v, "e")));
        if interactions.is_empty() {
            // The agent's steps are synthetic events, which the browser's Event Timing leaves out.
            out.push_str(
                "INP: no interaction yet (the agent's steps are synthetic events, which the browser does not time: \
                 a step whose page scripts ran long says so in its answer)",
            );
        }
        for (i, x) in interactions.iter().take(SHOWN as usize).enumerate() {
            out.push_str(if i == 0 { "INP " } else { "; " });
            out.push_str(&ms(x.duration));
            out.push(' ');
            out.push_str(&x.kind);
            out.push(' ');
            out.push_str(&element(&x.target));
            out.push_str(" at ");
            out.push_str(&time(x.start));
            out.push_str(" (delay ");
            out.push_str(&ms(x.delay));
            out.push_str(", handlers ");
            out.push_str(&ms(x.handlers));
            out.push_str(", paint ");
            out.push_str(&ms((x.duration - x.delay - x.handlers).max(0.0)));
            if let Some(s) = script_in(&loafs, x.start, x.start + x.duration, src) {
                out.push_str("; ");
                out.push_str(&s);
            }
            out.push(')');
            if i == 0 && interactions.len() > 1 {
                out.push_str("; slower ones next:");
            }
        }
    }
    out.push('\n');

    // Long tasks.
    if has("longtask") {
        let tasks = list(&get(&v, "t"));
        out.push_str("long tasks");
        if tasks.is_empty() {
            out.push_str(": none");
        }
        for (i, (d, e)) in tasks.iter().take(SHOWN as usize).enumerate() {
            out.push_str(if i == 0 { ": " } else { "; " });
            let start = get(e, "startTime").as_f64().unwrap_or(0.0);
            out.push_str(&ms(*d));
            out.push_str(" at ");
            out.push_str(&time(start));
            if let Some(s) = script_in(&loafs, start, start + d, src)
                .or_else(|| crate::source::profile::agent_step_in(start, start + d))
            {
                out.push_str(" (");
                out.push_str(&s);
                out.push(')');
            }
        }
        out.push('\n');
    }

    // Long animation frames.
    if has("long-animation-frame") {
        out.push_str("long animation frames");
        if loafs.is_empty() {
            out.push_str(": none");
        }
        for (i, (d, e)) in loafs.iter().take(SHOWN as usize).enumerate() {
            out.push_str(if i == 0 { ": " } else { "; " });
            out.push_str(&ms(*d));
            out.push_str(" at ");
            out.push_str(&time(get(e, "startTime").as_f64().unwrap_or(0.0)));
            let blocking = get(e, "blockingDuration").as_f64().unwrap_or(0.0);
            if blocking > 0.0 {
                out.push_str(", blocking ");
                out.push_str(&ms(blocking));
            }
            let scripts = list_of(&get(e, "scripts"));
            if let Some(s) = scripts.iter().max_by(|a, b| dur(a).total_cmp(&dur(b))) {
                out.push_str(": ");
                out.push_str(&script(s, src));
            }
        }
        out.push('\n');
    }

    // Resources.
    // (Not this step's own reads of the scripts, from an earlier ask.)
    let resources: Vec<_> = list(&get(&v, "r"))
        .into_iter()
        .filter(|(_, e)| {
            let url = get(e, "name").as_string().unwrap_or_default();
            get(e, "initiatorType").as_string().as_deref() != Some("fetch") || !src.iter().any(|(u, _)| *u == url)
        })
        .collect();
    out.push_str("slowest resources");
    if resources.is_empty() {
        out.push_str(": none");
    }
    for (i, (d, e)) in resources.iter().take(SHOWN as usize).enumerate() {
        out.push_str(if i == 0 { ": " } else { "; " });
        out.push_str(&ms(*d));
        out.push(' ');
        out.push_str(&get(e, "initiatorType").as_string().unwrap_or_default());
        out.push(' ');
        out.push_str(&short_url(&get(e, "name").as_string().unwrap_or_default()));
        let bytes = get(e, "transferSize").as_f64().unwrap_or(0.0);
        if bytes > 0.0 {
            out.push_str(" (");
            out.push_str(&num((bytes / 1024.0).max(1.0)));
            out.push_str(" KB)");
        }
    }
    Ok(js_string(&out))
}

/// `PerformanceObserver.supportedEntryTypes` (empty where it is missing).
fn supported_types() -> Vec<String> {
    let types = get(&get(&js_sys::global(), "PerformanceObserver"), "supportedEntryTypes");
    list_of(&types).iter().filter_map(JsValue::as_string).collect()
}

/// The items of a JS array (at most 64).
fn list_of(a: &JsValue) -> Vec<JsValue> {
    let n = get(a, "length").as_f64().unwrap_or(0.0).min(64.0) as u32;
    (0..n)
        .map(|i| Reflect::get_u32(a, i).unwrap_or(JsValue::UNDEFINED))
        .collect()
}

/// A kept `[score, entry]` list.
fn list(a: &JsValue) -> Vec<(f64, JsValue)> {
    list_of(a)
        .into_iter()
        .filter(Array::is_array)
        .map(|p| {
            let p: Array = p.into();
            (p.get(0).as_f64().unwrap_or(0.0), p.get(1))
        })
        .collect()
}

/// One interaction: its events grouped by `interactionId`.
struct Interaction {
    kind: String,
    target: JsValue,
    start: f64,
    duration: f64,
    delay: f64,
    handlers: f64,
}

/// The interactions of the kept events, slowest first (they come slowest first).
fn interactions(events: &[(f64, JsValue)]) -> Vec<Interaction> {
    let mut ids: Vec<f64> = Vec::new();
    let mut out: Vec<Interaction> = Vec::new();
    for (d, e) in events {
        let id = get(e, "interactionId").as_f64().unwrap_or(0.0);
        let start = get(e, "startTime").as_f64().unwrap_or(0.0);
        let p0 = get(e, "processingStart").as_f64().unwrap_or(start);
        let p1 = get(e, "processingEnd").as_f64().unwrap_or(p0);
        let name = get(e, "name").as_string().unwrap_or_default();
        let kind = match name.as_str() {
            "pointerdown" | "pointerup" | "click" | "mousedown" | "mouseup" => "click",
            "keydown" | "keyup" | "keypress" => "key",
            other => other,
        };
        let target = get(e, "target");
        if let Some(i) = ids.iter().position(|x| *x == id) {
            let x = &mut out[i];
            x.handlers += p1 - p0;
            if x.start > start {
                x.delay = p0 - start;
                x.start = start;
            }
            if !x.target.is_object() {
                x.target = target;
            }
        } else {
            ids.push(id);
            out.push(Interaction {
                kind: kind.into(),
                target,
                start,
                duration: *d,
                delay: (p0 - start).max(0.0),
                handlers: p1 - p0,
            });
        }
    }
    out
}

fn dur(v: &JsValue) -> f64 {
    get(v, "duration").as_f64().unwrap_or(0.0)
}

/// The longest script of the kept long animation frames that ran between `from` and `to`.
fn script_in(loafs: &[(f64, JsValue)], from: f64, to: f64, src: &[(String, String)]) -> Option<String> {
    let mut best: Option<JsValue> = None;
    for (_, f) in loafs {
        for s in list_of(&get(f, "scripts")) {
            let start = get(&s, "startTime").as_f64().unwrap_or(0.0);
            let end = start + dur(&s);
            if start < to && end > from && best.as_ref().is_none_or(|b| dur(b) < dur(&s)) {
                best = Some(s);
            }
        }
    }
    best.map(|s| script(&s, src))
}

/// A long animation frame's script: `onSave in /app.js:19:1 (BUTTON#save.onclick) 205 ms` (the
/// line and column where the function begins; `char 120` when the script could not be read).
fn script(s: &JsValue, src: &[(String, String)]) -> String {
    let mut out = String::new();
    let function = get(s, "sourceFunctionName").as_string().unwrap_or_default();
    let url = get(s, "sourceURL").as_string().unwrap_or_default();
    let invoker = get(s, "invoker").as_string().unwrap_or_default();
    let start = get(s, "startTime").as_f64().unwrap_or(0.0);
    let agent_step = url
        .is_empty()
        .then(|| crate::source::profile::agent_step_in(start, start + dur(s)))
        .flatten();
    if let Some(step) = agent_step {
        // The page's handlers ran inside the agent's synthetic event: no page function is named.
        out.push_str(&step);
        out.push_str(": the page's handlers ran inside it, ");
        out.push_str(&ms(dur(s)));
        return out;
    }
    if !function.is_empty() {
        out.push_str(&function);
        out.push_str(" in ");
    }
    if url.is_empty() {
        out.push_str("a script without URL");
    } else {
        out.push_str(&short_url(&url));
        let at = get(s, "sourceCharPosition").as_f64().unwrap_or(-1.0);
        match src.iter().find(|(u, _)| *u == url) {
            Some((_, text)) if at >= 0.0 => {
                let (line, column) = line_column(text, at as usize);
                out.push(':');
                push_number(&mut out, line);
                out.push(':');
                push_number(&mut out, column);
            }
            _ if at >= 0.0 => {
                out.push_str(" char ");
                out.push_str(&num(at));
            }
            _ => {}
        }
    }
    if !invoker.is_empty() {
        out.push_str(" (");
        out.push_str(&cut(&invoker, MAX_URL));
        out.push(')');
    }
    out.push(' ');
    out.push_str(&ms(dur(s)));
    out
}

/// An element as the snapshot shows it, always with its ref (a role-less element with its tag);
/// a text node is its parent's; `(removed)` when the page took it out.
fn element(v: &JsValue) -> String {
    let Some(el) = element_of(v) else {
        return "(an element no longer there)".into();
    };
    if !el.is_connected() {
        return cat(&["(removed) ", &el.local_name()]);
    }
    let mut out = describe(&el);
    if !has_sub(&out, "[ref=") {
        if role_of(&el).is_empty() && out.starts_with('"') {
            out = cat(&[&el.local_name(), " ", &out]);
        }
        out.push_str(" [ref=");
        out.push_str(&ref_of(&el));
        out.push(']');
    }
    out
}

/// How far a box moved: the larger of its horizontal and vertical moves, in CSS px.
fn distance(before: &JsValue, after: &JsValue) -> f64 {
    let d = |k: &str| (get(after, k).as_f64().unwrap_or(0.0) - get(before, k).as_f64().unwrap_or(0.0)).abs();
    d("x").max(d("y"))
}

/// `240 ms`, or `1.2 s` from a second on.
fn ms(v: f64) -> String {
    if v < 1000.0 {
        return cat(&[&num(v), " ms"]);
    }
    time(v)
}

/// A time since the page's start in seconds, one decimal: `0.8 s`.
fn time(v: f64) -> String {
    let tenths = (v.max(0.0) / 100.0).round() as u32;
    let mut out = String::new();
    push_number(&mut out, tenths / 10);
    out.push('.');
    push_number(&mut out, tenths % 10);
    out.push_str(" s");
    out
}

/// A score with two decimals: `0.18`.
fn decimal(v: f64) -> String {
    let hundredths = (v.max(0.0) * 100.0).round() as u32;
    let mut out = String::new();
    push_number(&mut out, hundredths / 100);
    out.push('.');
    if hundredths % 100 < 10 {
        out.push('0');
    }
    push_number(&mut out, hundredths % 100);
    out
}

/// A URL of the page's own origin as its path; others whole; cut to [`MAX_URL`] characters.
fn short_url(url: &str) -> String {
    let origin = get(&get(&js_sys::global(), "location"), "origin")
        .as_string()
        .unwrap_or_default();
    let path = match url.strip_prefix(origin.as_str()) {
        Some(p) if !origin.is_empty() && p.starts_with('/') => p,
        _ => url,
    };
    cut(path, MAX_URL)
}

/// `s` cut to `n` characters with `...`.
fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.into();
    }
    let mut out: String = s.chars().take(n - 3).collect();
    out.push_str("...");
    out
}

/// The texts of the scripts of the page's own origin that the kept long animation frames name (at
/// most [`SOURCES_READ`], from the browser's cache where it has them), by URL.
async fn sources(loafs: &[(f64, JsValue)]) -> Vec<(String, String)> {
    let origin = get(&get(&js_sys::global(), "location"), "origin")
        .as_string()
        .unwrap_or_default();
    let mut tried: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (_, f) in loafs {
        for s in list_of(&get(f, "scripts")) {
            let url = get(&s, "sourceURL").as_string().unwrap_or_default();
            let own = !origin.is_empty() && url.strip_prefix(origin.as_str()).is_some_and(|p| p.starts_with('/'));
            if !own || tried.len() >= SOURCES_READ || tried.contains(&url) {
                continue;
            }
            tried.push(url.clone());
            if let Some(text) = read(&url).await {
                out.push((url, text));
            }
        }
    }
    out
}

/// The text at `url` (the page's `fetch` before any wrapper, from the cache when there).
async fn read(url: &str) -> Option<String> {
    let init = js_sys::Object::new();
    crate::js::set(&init, "cache", &js_string("force-cache"));
    let res = JsFuture::from(crate::net::fetch(url, &init)?).await.ok()?;
    if !get(&res, "ok").is_truthy() {
        return None;
    }
    let text: js_sys::Promise = crate::js::call(&res, "text", &[]).ok()?.dyn_into().ok()?;
    JsFuture::from(text).await.ok()?.as_string()
}

/// The line and column (from 1) of the UTF-16 offset `at` in `text`.
fn line_column(text: &str, at: usize) -> (u32, u32) {
    let (mut line, mut column) = (1, 1);
    for u in text.encode_utf16().take(at) {
        if u == u16::from(b'\n') {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}
