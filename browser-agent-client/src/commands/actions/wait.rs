//! `wait`: for a target or a text to appear (or go), or for a number of milliseconds, never past
//! the batch's own deadline.
//!
//! A wait for text (`text`, a list of texts, `pattern`s; in the page, or in the element of `ref`)
//! after an acting step in this page's part of the batch (a click, typing, …; [`remember`] keeps
//! the lines before it) is answered by a *new* occurrence only: a line of the page's visible text
//! that matches and was not there before that step. Text that was there already proves nothing
//! about what the step set off; on timeout the error says it was there. `already: true` accepts
//! it at once, and so does a wait with no acting step ahead of it (nothing the batch did can have
//! put it there), which answers that it "was already there". On a page the batch reached by
//! navigating, everything counts as new. The first alternative to appear answers, and says which.

use super::super::batch;
use super::super::resolve::{self, Miss};
use super::super::step::{bad_field, field, Outcome};
use crate::js::{call, get, global, js_string, now_ms, sleep};
use crate::snapshot::idle;
use crate::text::{cat, ci_contains, num, quote};
use core::cell::RefCell;
use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How long `wait` waits by default (ms).
const WAIT_DEFAULT_MS: f64 = 5_000.0;
/// How often `wait` looks (ms).
const WAIT_POLL_MS: i32 = 100;
/// Longest a text that came while the acting step's requests run waits for them before it answers
/// (ms): a request that never ends (a long poll) must not hold a wait to its timeout.
const HOLD_MS: f64 = 3_000.0;
/// The target fields that name an element to wait for; with one of them, `text` is part of the
/// target (a button named "Save"), not text to read.
const ELEMENT_FIELDS: [&str; 6] = ["role", "label", "placeholder", "selector", "name", "nth"];

/// A text wait's step, its alternatives' matching lines before the acting step ahead of it, and the
/// page's requests in flight then (more in flight later are the acting step's own).
type Remembered = (JsValue, Vec<Vec<String>>, f64);

thread_local! {
    /// The text waits of this page's part of the running batch and, for each, its alternatives'
    /// matching lines before the acting step ahead of it ([`remember`]).
    static BEFORE: RefCell<Vec<Remembered>> = const { RefCell::new(Vec::new()) };
}

/// One alternative of a text wait: a text (contained, any case; with `exact` a whole line, as
/// written) or a regular expression.
struct Alt {
    /// How the answers name it: `text "Saved"`, `pattern /Order #\d+/`.
    label: String,
    text: Option<String>,
    regex: Option<JsValue>,
}

impl Alt {
    fn matches(&self, line: &str, exact: bool) -> bool {
        match (&self.text, &self.regex) {
            (Some(t), _) if exact => line == t.trim(),
            (Some(t), _) => ci_contains(line, t),
            (None, Some(re)) => call(re, "test", &[&js_string(line)]).is_ok_and(|v| v.is_truthy()),
            _ => false,
        }
    }
}

/// Whether `command` acts on the page (its text waits count from before it).
pub(crate) fn acts(command: &str) -> bool {
    matches!(
        command,
        "click"
            | "dblclick"
            | "type"
            | "fill"
            | "select"
            | "check"
            | "uncheck"
            | "press"
            | "hover"
            | "scroll"
            | "navigate"
            | "back"
            | "forward"
            | "reload"
            // The page's own tool: what it does to the page (its requests, its redraw) is the
            // step's, as a click's is.
            | "tool"
    )
}

/// A new part of a batch starts in this page: no text wait has lines remembered.
pub(crate) fn forget() {
    BEFORE.with(|b| b.borrow_mut().clear());
}

/// Before an acting step: remembers, for each text wait among `later` (the steps after it, up to
/// the next acting one), the lines that match it now. `fresh`: this page is new to the batch and
/// nothing acted here yet, so nothing on it was there before (empty lines).
pub(crate) fn remember(later: &[JsValue], fresh: bool) {
    for step in later {
        let command = get(step, "command").as_string().unwrap_or_default();
        if acts(&command) {
            break;
        }
        if command != "wait" || !text_wait(step) {
            continue;
        }
        let Ok(alts) = alternatives(step) else { continue };
        let lines = if fresh { Vec::new() } else { lines_in(step) };
        let exact = get(step, "exact").is_truthy();
        let seen = alts.iter().map(|a| matching(a, &lines, exact)).collect();
        BEFORE.with(|b| b.borrow_mut().push((step.clone(), seen, idle::inflight())));
    }
}

/// The lines remembered for `step` ([`remember`]), if any.
fn remembered(step: &JsValue) -> Option<(Vec<Vec<String>>, f64)> {
    BEFORE.with(|b| {
        b.borrow()
            .iter()
            .find(|(s, _, _)| s == step)
            .map(|(_, seen, inflight)| (seen.clone(), *inflight))
    })
}

/// Whether a wait step waits for text (`text` or `pattern`, scoped by `ref` at most) rather than
/// for an element.
fn text_wait(step: &JsValue) -> bool {
    let has = |name: &str| {
        let v = get(step, name);
        !(v.is_undefined() || v.is_null() || v.as_string().is_some_and(|s| s.is_empty()))
    };
    (has("text") || has("pattern")) && !ELEMENT_FIELDS.iter().any(|f| field(step, f).is_some())
}

/// The strings of a field that is a string (or a number) or a list of them.
fn strings(step: &JsValue, name: &str) -> Vec<String> {
    let v = get(step, name);
    if let Some(list) = v.dyn_ref::<Array>() {
        list.iter()
            .filter_map(|s| s.as_string())
            .filter(|s| !s.is_empty())
            .collect()
    } else {
        field(step, name).into_iter().collect()
    }
}

/// The wait's alternatives: its texts, then its patterns (`/source/flags` or a source).
fn alternatives(step: &JsValue) -> Result<Vec<Alt>, String> {
    let mut alts: Vec<Alt> = strings(step, "text")
        .into_iter()
        .map(|t| Alt {
            label: quote(&t),
            text: Some(t),
            regex: None,
        })
        .collect();
    for p in strings(step, "pattern") {
        let (source, flags) = match p.strip_prefix('/').and_then(|rest| rest.rsplit_once('/')) {
            Some((source, flags)) if !source.is_empty() && flags.chars().all(|c| "dgimsuvy".contains(c)) => {
                (source.to_owned(), flags.to_owned())
            }
            _ => (p.clone(), String::new()),
        };
        let args = Array::of2(&js_string(&source), &js_string(&flags));
        let ctor: Function = get(&global(), "RegExp").unchecked_into();
        let regex = Reflect::construct(&ctor, &args).map_err(|e| {
            let why = get(&e, "message").as_string().unwrap_or_default();
            cat(&["invalid pattern ", &quote(&p), ": ", &why])
        })?;
        alts.push(Alt {
            label: cat(&["pattern /", &source, "/", &flags]),
            text: None,
            regex: Some(regex),
        });
    }
    Ok(alts)
}

/// The visible text's lines (trimmed, not empty) of the page, or of the element of the step's
/// `ref`; none while that element is not there.
fn lines_in(step: &JsValue) -> Vec<String> {
    let text = if field(step, "ref").is_some() {
        match resolve::resolve(step, false, false) {
            Ok(t) => {
                let inner = get(&t.el, "innerText");
                inner.as_string().or_else(|| t.el.text_content()).unwrap_or_default()
            }
            Err(_) => return Vec::new(),
        }
    } else {
        // The page's text and its same-origin frames' (a payment frame's "Payment failed").
        let mut text = String::new();
        for w in crate::js::same_origin_windows() {
            let body = get(&get(&w, "document"), "body");
            text.push_str(&get(&body, "innerText").as_string().unwrap_or_default());
            text.push('\n');
        }
        text
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The lines that match `alt`.
fn matching(alt: &Alt, lines: &[String], exact: bool) -> Vec<String> {
    lines.iter().filter(|l| alt.matches(l, exact)).cloned().collect()
}

/// A line of `now` that `before` does not account for: one more of its kind than there was.
fn new_line<'a>(now: &'a [String], before: &[String]) -> Option<&'a String> {
    now.iter()
        .find(|l| now.iter().filter(|x| x == l).count() > before.iter().filter(|x| x == l).count())
}

/// A step's field of milliseconds: absent, or a number ≥ 0 (else an error naming the field).
fn ms_field(step: &JsValue, name: &str) -> Result<Option<f64>, String> {
    let v = get(step, name);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(ms) if ms >= 0.0 => Ok(Some(ms)),
        _ => Err(bad_field(name)),
    }
}

/// `wait`: for the target (or a text, in the page or the element of `ref`) to appear, or with
/// `gone` to go away; or for `ms`.
pub(super) async fn wait(step: &JsValue) -> Outcome {
    // Never past the batch's own deadline (the agent would have its timeout by then).
    let left = batch::time_left();
    let timeout = ms_field(step, "timeout")?
        .filter(|t| *t > 0.0)
        .unwrap_or(WAIT_DEFAULT_MS)
        .min(left.unwrap_or(f64::MAX).max(0.0));
    if text_wait(step) {
        return wait_text(step, timeout).await;
    }
    let gone = get(step, "gone").is_truthy();
    let start = now_ms();
    if !resolve::has_target(step, false) {
        let ms = match ms_field(step, "ms")? {
            Some(ms) => Some(ms),
            None => ms_field(step, "timeout")?,
        };
        return match ms {
            Some(ms) if left.is_some_and(|left| ms > left) => {
                // The agent gets its timeout before this wait would end: stop here.
                sleep(left.unwrap_or(0.0).max(0.0) as i32).await;
                Err("Stopped: the batch's time (timeoutMs) ran out during this wait".to_owned())
            }
            Some(ms) => {
                sleep(ms.min(60_000.0) as i32).await;
                Ok(js_string(&cat(&["waited ", &num(ms), " ms"])))
            }
            None => Err(bad_field("ms")),
        };
    }
    let mut first = true;
    loop {
        let elapsed = now_ms() - start;
        let found: Option<String> = match resolve::resolve(step, false, false) {
            Ok(t) => Some(t.label),
            // Several matches: it is there.
            Err(Miss::Several(e)) => Some(e),
            Err(_) => None,
        };
        if found.is_some() != gone {
            let took = num(elapsed);
            return Ok(js_string(&match (found, gone, first) {
                // Said as it is: it did not appear, it was there.
                (Some(label), false, true) => cat(&[&label, " was already there"]),
                (Some(label), false, false) => cat(&[&label, " appeared after ", &took, " ms"]),
                (_, _, true) => "the target was not there".to_owned(),
                _ => cat(&["gone after ", &took, " ms"]),
            }));
        }
        if elapsed >= timeout {
            let mut m = cat(&["Timed out after ", &num(timeout), " ms waiting for the target"]);
            if gone {
                m.push_str(" to go away; it is still there");
            } else if let Err(e) = resolve::resolve(step, false, true) {
                m.push_str(". ");
                m.push_str(&e.into_text());
            }
            return Err(m);
        }
        first = false;
        sleep(WAIT_POLL_MS).await;
    }
}

/// A wait for text: the first alternative with a new matching line (or, with `gone`, with no
/// matching line left).
async fn wait_text(step: &JsValue, timeout: f64) -> Outcome {
    let alts = alternatives(step)?;
    let exact = get(step, "exact").is_truthy();
    let gone = get(step, "gone").is_truthy();
    let remembered = remembered(step);
    // With no acting step ahead of it in this page's part of the batch, nothing the batch did can
    // have put the text there: text already present answers at once, and says so (never
    // "appeared after 0 ms").
    let already = get(step, "already").is_truthy() || remembered.is_none();
    let start = now_ms();
    // The page's requests before the acting step: more in flight now are the step's own.
    let requests_before = remembered.as_ref().map(|r| r.1);
    let before = match remembered.map(|r| r.0) {
        Some(before) if !already => before,
        _ => {
            let lines = lines_in(step);
            alts.iter().map(|a| matching(a, &lines, exact)).collect()
        }
    };
    let which = |i: usize| {
        if alts.len() > 1 {
            cat(&[
                " (the first of ",
                &num(alts.len() as f64),
                " alternatives, #",
                &num((i + 1) as f64),
                ")",
            ])
        } else {
            String::new()
        }
    };
    let the_line = |alt: &Alt, line: &str| {
        if alt.text.as_deref() == Some(line) {
            String::new()
        } else {
            cat(&[": ", &quote(line)])
        }
    };
    if already && !gone {
        if let Some((i, alt, line)) = alts
            .iter()
            .enumerate()
            .find_map(|(i, a)| before[i].first().map(|l| (i, a, l)))
        {
            let m = cat(&[&alt.label, " was already there", &the_line(alt, line), &which(i)]);
            return Ok(js_string(&m));
        }
    }
    // When a new match was first seen while the acting step's requests ran.
    let mut held_since: Option<f64> = None;
    loop {
        let elapsed = now_ms() - start;
        let lines = lines_in(step);
        for (i, alt) in alts.iter().enumerate() {
            let now = matching(alt, &lines, exact);
            let took = num(elapsed);
            if gone && now.is_empty() {
                let m = if before[i].is_empty() && elapsed == 0.0 {
                    cat(&[&alt.label, " was not there", &which(i)])
                } else {
                    cat(&[&alt.label, " gone after ", &took, " ms", &which(i)])
                };
                return Ok(js_string(&m));
            }
            if let Some(line) = new_line(&now, &before[i]).filter(|_| !gone) {
                // Text that came while the acting step's requests still run may be their loading
                // state ("Placing order…" for "order"): it answers only if it is still there when
                // they are done (or after [`HOLD_MS`] of them).
                let held = *held_since.get_or_insert(now_ms());
                let time_left = elapsed + f64::from(WAIT_POLL_MS) < timeout;
                if requests_before.is_some_and(|b| idle::inflight() > b) && now_ms() - held < HOLD_MS && time_left {
                    continue;
                }
                let m = cat(&[
                    &alt.label,
                    " appeared after ",
                    &took,
                    " ms",
                    &the_line(alt, line),
                    &which(i),
                ]);
                return Ok(js_string(&m));
            }
        }
        if elapsed >= timeout {
            return Err(timed_out(&alts, &before, gone, timeout, field(step, "ref")));
        }
        sleep(WAIT_POLL_MS).await;
    }
}

/// The error of a text wait that timed out: what it waited for, and what was there before.
fn timed_out(alts: &[Alt], before: &[Vec<String>], gone: bool, timeout: f64, scope: Option<String>) -> String {
    let names: Vec<&str> = alts.iter().map(|a| a.label.as_str()).collect();
    let mut m = cat(&["Timed out after ", &num(timeout), " ms waiting for "]);
    if names.len() > 1 {
        m.push_str("any of ");
    }
    m.push_str(&names.join(", "));
    if let Some(r) = &scope {
        m.push_str(&cat(&[" in [ref=", r, "]"]));
    }
    if gone {
        m.push_str(" to go away; it is still there");
        return m;
    }
    m.push_str(" to appear");
    if let Some(line) = before.iter().find_map(|b| b.first()) {
        m.push_str(&cat(&[
            "; it was already there before (",
            &quote(line),
            ") and no new occurrence came: wait for a text only the outcome shows, or send \"already\": true to accept one already there",
        ]));
    }
    m
}
