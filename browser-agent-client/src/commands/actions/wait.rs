//! `wait`: for a target or a text to appear (or go), or for a number of milliseconds, never past
//! the batch's own deadline.

use super::super::batch;
use super::super::resolve::{self, Miss};
use super::super::step::{bad_field, field, Outcome};
use crate::js::{get, global, js_string, now_ms, sleep};
use crate::text::{cat, ci_contains, num, quote};
use wasm_bindgen::prelude::*;

/// How long `wait` waits by default (ms).
const WAIT_DEFAULT_MS: f64 = 5_000.0;
/// How often `wait` looks (ms).
const WAIT_POLL_MS: i32 = 100;

/// The page's visible text (`document.body.innerText`).
fn page_text() -> String {
    let body = get(&get(&global(), "document"), "body");
    get(&body, "innerText").as_string().unwrap_or_default()
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

/// `wait`: for the target (or `text` anywhere) to appear, or with `gone` to go away; or for `ms`.
pub(super) async fn wait(step: &JsValue) -> Outcome {
    // Never past the batch's own deadline (the agent would have its timeout by then).
    let left = batch::time_left();
    let timeout = ms_field(step, "timeout")?
        .filter(|t| *t > 0.0)
        .unwrap_or(WAIT_DEFAULT_MS)
        .min(left.unwrap_or(f64::MAX).max(0.0));
    let gone = get(step, "gone").is_truthy();
    let start = now_ms();
    // `text` alone: that text anywhere on the page.
    let text_only = field(step, "text").filter(|_| !resolve::has_target(step, true));
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
    loop {
        let elapsed = now_ms() - start;
        let found: Option<String> = match &text_only {
            Some(t) => ci_contains(&page_text(), t).then(|| quote(t)),
            None => match resolve::resolve(step, false, false) {
                Ok(t) => Some(t.label),
                // Several matches: it is there.
                Err(Miss::Several(e)) => Some(e),
                Err(_) => None,
            },
        };
        if found.is_some() != gone {
            let took = num(elapsed);
            return Ok(js_string(&match (found, gone) {
                (Some(label), false) => cat(&[&label, " appeared after ", &took, " ms"]),
                _ => cat(&["gone after ", &took, " ms"]),
            }));
        }
        if elapsed >= timeout {
            let what = match &text_only {
                Some(t) => cat(&["text ", &quote(t)]),
                None => "the target".to_owned(),
            };
            let mut m = cat(&["Timed out after ", &num(timeout), " ms waiting for ", &what]);
            if gone {
                m.push_str(" to go away; it is still there");
            } else if text_only.is_none() {
                if let Err(e) = resolve::resolve(step, false, true) {
                    m.push_str(". ");
                    m.push_str(&e.into_text());
                }
            } else {
                m.push_str(" to appear");
            }
            return Err(m);
        }
        sleep(WAIT_POLL_MS).await;
    }
}
