//! Where the page's scripts spent an acting step's time. A synthetic event's handlers run inside
//! the step (the browser's Event Timing ignores them, and a long frame names the step's callback,
//! not the page's code), so while a batch acts, a JS Self-Profiling `Profiler` samples the page;
//! a step whose page scripts ran long ends its answer with the functions that took the time, at
//! their source-mapped file:line (`source.js`'s `hot`). The `Profiler` exists only on pages the
//! host served with `Document-Policy: js-profiling` (while an agent is attached); elsewhere
//! nothing runs.

use crate::js::{get, global, js_string, object};
use crate::lazy;
use browser_agent_protocol::lazy::SOURCE;
use browser_agent_protocol::ASSETS_DIR;
use js_sys::{Array, Function, Reflect};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Sampling interval asked for (ms; Chromium samples no finer than 10 ms outside Windows).
const SAMPLE_MS: f64 = 10.0;
/// Samples kept: 100 s at 10 ms, longer than a batch may run.
const MAX_SAMPLES: f64 = 10_000.0;
/// Samples in a step under which its page scripts are not worth a look (50 ms: a long task).
const MIN_SAMPLES: u32 = 5;

/// Acting steps remembered for `vitals` (the latest).
const STEPS_KEPT: usize = 32;

/// `ai`: the latest acting steps' `[start, end]` (in [`now`] time; `end` is `Infinity` while one
/// runs), for the sensor: a layout shift in one or within 500 ms of its end is the agent's input's
/// doing, left out of the CLS as the browser leaves out a person's (`hadRecentInput`), which a
/// synthetic event does not set.
pub(crate) const INPUTS: &str = "ai";

thread_local! {
    /// The profiler of the running batch.
    static RUNNING: RefCell<Option<JsValue>> = const { RefCell::new(None) };
    /// Whether the page refused a profiler (served without the policy: loaded before an agent
    /// attached).
    static REFUSED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The page load's latest acting steps: `(start, end, command)` in [`now`] time.
    static STEPS: RefCell<Vec<(f64, f64, String)>> = const { RefCell::new(Vec::new()) };
}

/// An acting step begins now: `vitals` names it beside what ran inside it (a synthetic event's
/// handlers run in the step's own task, which the browser files under the agent's callback), and
/// the sensor leaves the layout shifts it causes out of the CLS. Returns its start.
pub(crate) fn step_begins(command: &str) -> f64 {
    let start = now();
    STEPS.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() == STEPS_KEPT {
            s.remove(0);
        }
        s.push((start, f64::INFINITY, command.to_owned()));
    });
    tell_sensor();
    start
}

/// The acting step [`step_begins`] began has ended; returns its end.
pub(crate) fn step_ends() -> f64 {
    let end = now();
    STEPS.with(|s| {
        if let Some(last) = s.borrow_mut().last_mut() {
            last.1 = end;
        }
    });
    tell_sensor();
    end
}

/// [`INPUTS`] as the steps are now.
fn tell_sensor() {
    let list = Array::new();
    STEPS.with(|s| {
        for (start, end, _) in s.borrow().iter() {
            list.push(&Array::of2(&JsValue::from_f64(*start), &JsValue::from_f64(*end)));
        }
    });
    crate::js::set(&crate::bootstrap::agent(), INPUTS, &list);
}

/// The agent's acting step that overlaps `from..to`, if any: `the agent's type step`.
pub(crate) fn agent_step_in(from: f64, to: f64) -> Option<String> {
    STEPS.with(|s| {
        s.borrow()
            .iter()
            .rev()
            .find(|(start, end, _)| *start < to && *end > from)
            .map(|(_, _, command)| crate::text::cat(&["the agent's ", command, " step"]))
    })
}

/// The clock of the profiler's samples (`performance.now()`).
pub(crate) fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Starts sampling, where the page allows it.
pub(crate) fn start() {
    let Ok(ctor) = get(&global(), "Profiler").dyn_into::<Function>() else {
        return;
    };
    let options = object(&[
        ("sampleInterval", JsValue::from_f64(SAMPLE_MS)),
        ("maxBufferSize", JsValue::from_f64(MAX_SAMPLES)),
    ]);
    // One left running by a batch that handed over (its page stayed): stopped, its trace unread.
    if let Some(old) = RUNNING.with(|r| r.borrow_mut().take()) {
        let _ = crate::js::call(&old, "stop", &[]);
    }
    // Throws where the document's policy does not allow profiling.
    match Reflect::construct(&ctor, &Array::of1(&options)) {
        Ok(p) => RUNNING.with(|r| *r.borrow_mut() = Some(p)),
        Err(_) => REFUSED.with(|r| r.set(true)),
    }
}

/// Whether this page refused to be profiled (it was loaded before an agent attached): a slow
/// step then says to reload it.
pub(crate) fn refused() -> bool {
    REFUSED.with(std::cell::Cell::get)
}

/// What a step whose page scripts ran `ms` in long tasks says where no profiler could run.
pub(crate) fn unprofiled(ms: f64) -> String {
    crate::text::cat(&[
        "the page's scripts ran ",
        &crate::text::num(ms),
        " ms in long tasks (reload the page to see which functions: a page loaded while an agent is attached can be profiled)",
    ])
}

/// Stops sampling; for each window (`[start, end]` in [`now`] time) what the page's scripts did
/// in it, or `""`.
pub(crate) async fn finish(windows: &[(f64, f64)]) -> Vec<String> {
    let none = || vec![String::new(); windows.len()];
    let Some(profiler) = RUNNING.with(|r| r.borrow_mut().take()) else {
        return none();
    };
    let Ok(trace) = lazy::call(&profiler, "stop", &[]).await else {
        return none();
    };
    // Whether any window holds enough samples to look at (the module loads only then).
    let samples: Array = get(&trace, "samples").dyn_into().unwrap_or_default();
    let busy = windows.iter().any(|&(start, end)| {
        samples
            .iter()
            .filter(|s| {
                let t = get(s, "timestamp").as_f64().unwrap_or(-1.0);
                t >= start && t <= end && !get(s, "stackId").is_undefined()
            })
            .count() as u32
            >= MIN_SAMPLES
    });
    if !busy {
        return none();
    }
    let own = crate::net::host().map(|h| h.prefix).unwrap_or_default();
    let origin = get(&get(&global(), "location"), "origin")
        .as_string()
        .unwrap_or_default();
    let own = js_string(&crate::text::cat(&[&origin, &own, ASSETS_DIR]));
    let list = Array::new();
    for &(start, end) in windows {
        list.push(&Array::of2(&JsValue::from_f64(start), &JsValue::from_f64(end)));
    }
    let Ok(module) = lazy::module(SOURCE).await else {
        return none();
    };
    match lazy::call(&module, "hot", &[&trace, &list, &own]).await {
        Ok(v) => v
            .dyn_into::<Array>()
            .map(|a| a.iter().map(|t| t.as_string().unwrap_or_default()).collect())
            .unwrap_or_else(|_| none()),
        Err(_) => none(),
    }
}
