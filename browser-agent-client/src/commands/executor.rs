//! Runs one batch: its steps in order, stopping at the first failing step, then always a fresh
//! snapshot (after the network-idle wait), and the log entries recorded while the batch ran.
//!
//! Result: `{"id","steps":[{"index","command","result"?,"error"?,"elapsed"}],"snapshot","logs",
//! "duration"}`. A command is an async fn from its step (the JSON object) to a result or an error
//! message; [`dispatch`] picks it by name.

use crate::snapshot::{self, now_ms};
use crate::{get, set};
use js_sys::{Array, Object};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What a command gives back: its result, or an error message for the agent.
pub(crate) type Outcome = Result<JsValue, String>;

thread_local! {
    /// The entries recorded while a batch runs.
    static TAPPED: RefCell<Option<Array>> = const { RefCell::new(None) };
}

/// The entries recorded so far in the running batch (sent with a handover, so the answer keeps
/// what the page logged before it navigated).
pub(crate) fn tapped() -> Array {
    TAPPED.with(|t| t.borrow().clone().unwrap_or_default())
}

pub(crate) fn tap(entry: &JsValue) {
    TAPPED.with(|t| {
        if let Some(list) = t.borrow().as_ref() {
            list.push(entry);
        }
    });
}

/// The command named `command`.
async fn dispatch(command: &str, step: &JsValue) -> Outcome {
    match command {
        "snapshot" => snapshot_command(step).await,
        _ => super::actions::run(command, step).await,
    }
}

/// `{"command":"snapshot","diff"?:true}`: the full snapshot text (the host makes the diff).
async fn snapshot_command(_step: &JsValue) -> Outcome {
    Ok(JsValue::from_str(&snapshot::take().await))
}

fn ms(v: f64) -> JsValue {
    JsValue::from_f64(v.round())
}

/// Runs `batch` (`{"id","steps":[…]}`) and returns the results object.
pub(crate) async fn run(batch: &JsValue) -> JsValue {
    let started = now_ms();
    TAPPED.with(|t| *t.borrow_mut() = Some(Array::new()));
    let steps = get(batch, "steps").dyn_into::<Array>().unwrap_or_default();
    let results = Array::new();
    // Handed over from the page before a navigation: indices continue at `offset`.
    let offset = super::actions::batch_start(batch, &results) as usize;
    // The text of a snapshot step that ran last: it already is the snapshot after the batch.
    let mut last_snapshot: Option<String> = None;
    for (index, step) in steps.iter().enumerate() {
        last_snapshot = None;
        let command = get(&step, "command").as_string().unwrap_or_default();
        let t0 = now_ms();
        let outcome = if super::actions::out_of_time() {
            Err("Not run: the batch's time ran out before this step (the agent was answered with a timeout)".to_owned())
        } else {
            dispatch(&command, &step).await
        };
        let r = Object::new();
        set(&r, "index", &JsValue::from((offset + index) as u32));
        set(&r, "command", &JsValue::from_str(&command));
        let failed = match outcome {
            Ok(v) => {
                if command == "snapshot" {
                    last_snapshot = v.as_string();
                }
                set(&r, "result", &v);
                false
            }
            Err(message) => {
                set(&r, "error", &JsValue::from_str(&message));
                true
            }
        };
        set(&r, "elapsed", &ms(now_ms() - t0));
        super::actions::after_step(&r);
        results.push(&r);
        if failed {
            break;
        }
        // The step navigates: the results so far went to the host with the remaining steps.
        if super::actions::hand_over(index).await {
            TAPPED.with(|t| t.borrow_mut().take());
            return JsValue::NULL;
        }
    }
    let text = match last_snapshot {
        Some(text) => text,
        None => snapshot::take().await,
    };
    super::actions::batch_end();
    let logs = TAPPED.with(|t| t.borrow_mut().take()).unwrap_or_default();
    let out = Object::new();
    set(&out, "id", &get(batch, "id"));
    set(&out, "steps", &results);
    set(&out, "snapshot", &JsValue::from_str(&text));
    set(&out, "logs", &logs);
    set(&out, "duration", &ms(now_ms() - started));
    out.into()
}
