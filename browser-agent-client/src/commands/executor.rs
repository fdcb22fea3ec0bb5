//! The step loop of one batch: its steps in order, stopping at the first failing step (one marked
//! `"optional": true` is reported with `"optional": true` and the batch goes on), then always
//! a fresh snapshot (after the network-idle wait), and the log entries recorded while the batch ran.
//! Once a step acted, a snapshot or screenshot (a step's, or the answer's) first waits for the
//! requests the batch started to finish, bounded: the answer shows what the click led to ("Order
//! confirmed", the request's log entry), not the page mid-request ("Placing order…").
//!
//! Result: `{"id","steps":[{"index","command","result"?,"error"?,"elapsed"}],"snapshot","logs",
//! "duration"}`. A command is an async fn from its step (the JSON object) to a result or an error
//! message; [`actions::run`] picks it by name. The batch's state lives in [`batch`].

use super::actions::{self, wait};
use super::batch;
use crate::bootstrap;
use crate::js::{get, now_ms, set};
use crate::snapshot;
use browser_agent_protocol::{field, OPTIONAL};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Longest a snapshot or screenshot after an acting step waits for the requests the batch started
/// (ms); never closer than [`SETTLE_MARGIN_MS`] to the batch's deadline. A request that outlives it
/// (a long poll the click opened) is left running.
const SETTLE_REQUESTS_MS: f64 = 5_000.0;
/// What the wait leaves of the batch's time, so the answer is the page's, not a timeout.
const SETTLE_MARGIN_MS: f64 = 500.0;

/// Waits until no more than `before` of the page's requests are in flight (those the batch started
/// finished), bounded by [`SETTLE_REQUESTS_MS`] and the batch's time; then while a dialog fades in
/// or out (a dialog a request's answer closed).
async fn requests_settled(before: f64) {
    let left = batch::time_left().map_or(f64::MAX, |l| l - SETTLE_MARGIN_MS);
    let _ = snapshot::idle::wait_requests_done(before, SETTLE_REQUESTS_MS.min(left).max(0.0)).await;
    super::overlays::dialogs_still().await;
}

/// Milliseconds, rounded, as a JS number.
fn ms(v: f64) -> JsValue {
    JsValue::from_f64(v.round())
}

/// Runs `batch` (`{"id","steps":[…]}`) and returns the results object, or null when the batch was
/// handed over to the next page (its results were posted already).
pub(crate) async fn run(batch: &JsValue) -> JsValue {
    let started = now_ms();
    let steps = get(batch, field::STEPS).dyn_into::<Array>().unwrap_or_default();
    let results = Array::new();
    // Handed over from the page before a navigation: indices continue at `offset`.
    let offset = batch::start(batch, &results) as usize;
    // The dialogs the page answered while no batch ran are this batch's entries.
    super::dialogs::batch_starts();
    let id = get(batch, field::ID);
    if offset == 0 {
        bootstrap::to_parent("command-started", &[("id", &id), ("steps", &steps)]);
    }
    let mut success = true;
    // The page's requests in flight before the batch acted (its own long polls). On a page the
    // batch reached by navigating, none: the requests of its load are the batch's doing.
    let before = if offset > 0 { 0.0 } else { snapshot::idle::inflight() };
    let mut acted = offset > 0;
    // The text of a snapshot step that ran last: it already is the snapshot after the batch.
    let mut last_snapshot: Option<String> = None;
    let all: Vec<JsValue> = steps.iter().collect();
    // Text waits count from before the acting step ahead of them; on a page the batch reached by
    // navigating, the ones ahead of any action here count everything as new.
    wait::forget();
    if offset > 0 {
        wait::remember(&all, true);
    }
    // While the batch acts, where the page's scripts spend its steps' time (where the page
    // allows profiling): each acting step's window, by its result's place.
    let acts_at_all = all
        .iter()
        .any(|s| wait::acts(&get(s, field::COMMAND).as_string().unwrap_or_default()));
    if acts_at_all {
        crate::source::profile::start();
    }
    let mut windows: Vec<(u32, f64, f64)> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        last_snapshot = None;
        let command = get(&step, field::COMMAND).as_string().unwrap_or_default();
        if wait::acts(&command) {
            wait::remember(&all[index + 1..], false);
        }
        if acted && matches!(command.as_str(), "snapshot" | "screenshot") {
            requests_settled(before).await;
        }
        acted |= wait::acts(&command);
        // The dialogs and popups shown before an acting step: its answer says what it opened or closed.
        let shown = wait::acts(&command).then(super::overlays::shown);
        let t0 = now_ms();
        crate::source::prepare(&step).await;
        let started_at = if wait::acts(&command) {
            crate::source::profile::step_begins(&command)
        } else {
            0.0
        };
        let outcome = if batch::out_of_time() {
            Err("Not run: the batch's time ran out before this step (the agent was answered with a timeout)".to_owned())
        } else {
            actions::run(&command, &step).await
        };
        if wait::acts(&command) {
            windows.push((results.length(), started_at, crate::source::profile::step_ends()));
        }
        // `source`: an acting step's answer names its target's source location.
        let outcome = crate::source::answer(&command, &step, outcome).await;
        let r = Object::new();
        set(&r, field::INDEX, &JsValue::from((offset + index) as u32));
        set(&r, field::COMMAND, &JsValue::from_str(&command));
        let failed = match outcome {
            Ok(v) => {
                if command == "snapshot" {
                    // What the budget left out, and whether this is not the page's default view
                    // (the host then neither diffs it nor keeps it as the next diff's baseline).
                    let left = snapshot::left_out();
                    if left > 0 {
                        set(&r, field::CUT, &JsValue::from(left as u32));
                    }
                    let scoped = snapshot::View::of(&step).scoped();
                    if scoped {
                        set(&r, field::SCOPED, &JsValue::TRUE);
                    } else {
                        last_snapshot = v.as_string();
                    }
                }
                match (&shown, v.as_string()) {
                    (Some(before), Some(text)) => {
                        let change = super::overlays::change(before, &super::overlays::shown());
                        set(&r, field::RESULT, &JsValue::from_str(&(text + &change)));
                    }
                    _ => set(&r, field::RESULT, &v),
                }
                false
            }
            Err(message) => {
                set(&r, field::ERROR, &JsValue::from_str(&message));
                // An optional step's failure is reported, marked, and the batch goes on.
                let optional = get(&step, OPTIONAL).is_truthy();
                if optional {
                    set(&r, OPTIONAL, &JsValue::TRUE);
                }
                !optional
            }
        };
        set(&r, field::ELAPSED, &ms(now_ms() - t0));
        batch::after_step(&r);
        results.push(&r);
        if failed {
            success = false;
            break;
        }
        // The step navigates (null), or opened a tab that goes on with the batch (undefined: this
        // page stays): the results so far went to the host with the remaining steps.
        if let Some(leaves) = batch::hand_over(index).await {
            return if leaves { JsValue::NULL } else { JsValue::UNDEFINED };
        }
    }
    // The steps whose page scripts ran long say which functions took the time.
    if acts_at_all {
        let spans: Vec<(f64, f64)> = windows.iter().map(|w| (w.1, w.2)).collect();
        let mut hot = crate::source::profile::finish(&spans).await;
        if crate::source::profile::refused() {
            for (text, (start, end)) in hot.iter_mut().zip(&spans) {
                let ms = actions::vitals::long_task_ms(*start, *end);
                if ms >= 50.0 {
                    *text = crate::source::profile::unprofiled(ms);
                }
            }
        }
        for ((at, _, _), text) in windows.iter().zip(hot) {
            let r = results.get(*at);
            if let (false, Some(result)) = (text.is_empty(), get(&r, field::RESULT).as_string()) {
                set(&r, field::RESULT, &JsValue::from_str(&(result + "; " + &text)));
            }
        }
    }
    // A button a `down` step left held is released before the page is read: no press outlives
    // its batch. The last step's result says so.
    if let Some(note) = actions::release_held() {
        last_snapshot = None;
        let last = results.get(results.length().saturating_sub(1));
        if let Some(text) = get(&last, field::RESULT).as_string() {
            set(&last, field::RESULT, &JsValue::from_str(&(text + &note)));
        }
    }
    // A batch that only lists the page's own tools takes no snapshot (it changed nothing): the
    // host keeps the page's last one as the next diff's baseline. A batch that calls one answers
    // with what it changed, after the requests it started, as a click does.
    // (Not a page a batch navigated to with no steps left: it answers with its snapshot.)
    let tools_only = !all.is_empty()
        && all
            .iter()
            .all(|s| get(s, field::COMMAND).as_string().as_deref() == Some("tools"));
    let text = match last_snapshot {
        Some(text) => text,
        None if tools_only => String::new(),
        None => {
            if acted {
                requests_settled(before).await;
            }
            snapshot::take(&snapshot::View::page()).await.unwrap_or_default()
        }
    };
    let logs = batch::end();
    super::dialogs::batch_ends();
    bootstrap::to_parent(
        "command-completed",
        &[("id", &id), ("success", &JsValue::from(success))],
    );
    let out = Object::new();
    set(&out, field::ID, &get(batch, field::ID));
    set(&out, field::STEPS, &results);
    set(&out, field::SNAPSHOT, &JsValue::from_str(&text));
    // A modal dialog open at the end: the snapshot is it alone (the page behind it is inert).
    if !text.is_empty() && super::overlays::modal_open() {
        set(&out, field::MODAL, &JsValue::TRUE);
    }
    set(&out, field::LOGS, &logs);
    set(&out, field::DURATION, &ms(now_ms() - started));
    out.into()
}
