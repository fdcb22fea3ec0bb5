//! Native dialogs while a batch runs, by the running step's policy (its `dialog` and
//! `promptText` fields; the host gives every step the batch's unless it sets its own):
//! - `alert`, `confirm`, `prompt`: the bootstrap's wrappers call [`answer`] (the global's `dh`),
//!   which answers by the policy and records a `dialog` entry with the step's index;
//! - `beforeunload`: before a navigation of the agent's leaves the page, [`may_leave`] asks the
//!   page's handlers (a `BeforeUnloadEvent` dispatched on the window: they run once, as for a
//!   navigation); when they ask to stay, the policy decides (accept: leave; dismiss: stay) and a
//!   `dialog` entry says so. Leaving, the bootstrap's first `beforeunload` listener keeps the
//!   handlers from running again (`bu`): Chromium then never asks a person, even on a page they
//!   clicked (sticky activation), and without one it would skip the prompt and leave anyway;
//! - the dialogs the bootstrap answered while no batch ran (`dl`) join the next batch's entries
//!   ([`batch_starts`]), so its answer reports them.

use super::batch;
use crate::bootstrap;
use crate::js::{call, get, global, js_string, set};
use browser_agent_protocol::dialogs::{ANSWER, DIALOG, DISMISS, KIND, MESSAGE, PROMPT_TEXT, STEP};
use browser_agent_protocol::entry_type;
use js_sys::Array;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How the running step answers.
#[derive(Clone, Default)]
enum Policy {
    /// OK (the prompt's own default text); `beforeunload` leaves.
    #[default]
    Accept,
    /// Cancel; `beforeunload` stays.
    Dismiss,
    /// OK with this text for a prompt.
    Text(String),
}

thread_local! {
    /// The running step's policy and its index within the agent's batch.
    static RUNNING: RefCell<(Policy, Option<u32>)> = const { RefCell::new((Policy::Accept, None)) };
}

/// Step `index` (within the agent's batch) begins: its policy answers from now on.
pub(crate) fn step_begins(step: &JsValue, index: u32) {
    let policy = match (get(step, DIALOG).as_string(), get(step, PROMPT_TEXT).as_string()) {
        // (The host refuses `dismiss` with a `promptText`.)
        (_, Some(text)) => Policy::Text(text),
        (Some(d), None) if d.eq_ignore_ascii_case(DISMISS) => Policy::Dismiss,
        _ => Policy::Accept,
    };
    RUNNING.with(|r| *r.borrow_mut() = (policy, Some(index)));
    // A navigation an earlier step checked did not leave (a download, a 204): ask anew.
    bootstrap::set_field(bootstrap::SKIP_BEFOREUNLOAD, &JsValue::FALSE);
}

/// A batch starts: the dialogs the page answered while no batch ran become its entries (its
/// answer reports them; the host stores each entry once).
pub(crate) fn batch_starts() {
    let outside = bootstrap::field(bootstrap::DIALOGS_OUTSIDE);
    if let Some(list) = outside.dyn_ref::<Array>() {
        for entry in list.iter() {
            batch::tap(&entry);
        }
        list.set_length(0);
    }
}

/// The batch ended here: the default policy, and the page's `beforeunload` handlers run again.
pub(crate) fn batch_ends() {
    RUNNING.with(|r| *r.borrow_mut() = (Policy::Accept, None));
    bootstrap::set_field(bootstrap::SKIP_BEFOREUNLOAD, &JsValue::FALSE);
}

/// Records `entry` (a `dialog` entry) with the running step's index, sent at once.
fn record(entry: &JsValue, step: Option<u32>) {
    if let Some(i) = step {
        set(entry, STEP, &JsValue::from(i));
    }
    let _ = call(
        &bootstrap::agent(),
        bootstrap::STAMP,
        &[entry, &JsValue::from(bootstrap::URGENT)],
    );
}

/// `dh(entry)`: the answer to the `alert`/`confirm`/`prompt` of `entry` (`{type, kind, message,
/// answer}`, the answer OK would give) by the running step's policy; the entry is recorded.
fn answer(entry: JsValue) -> JsValue {
    let (policy, step) = RUNNING.with(|r| r.borrow().clone());
    let kind = get(&entry, KIND).as_string().unwrap_or_default();
    let value = match (kind.as_str(), &policy) {
        ("alert", _) => JsValue::UNDEFINED,
        ("confirm", Policy::Dismiss) => JsValue::FALSE,
        ("confirm", _) => JsValue::TRUE,
        ("prompt", Policy::Dismiss) => JsValue::NULL,
        ("prompt", Policy::Text(text)) => js_string(text),
        _ => get(&entry, ANSWER),
    };
    set(&entry, ANSWER, &value);
    record(&entry, step);
    value
}

/// Installs `dh` (once per page load).
pub(crate) fn install() {
    let dh = Closure::<dyn Fn(JsValue) -> JsValue>::new(answer).into_js_value();
    bootstrap::set_field(bootstrap::DIALOG_HANDLER, &dh);
}

/// Asks the page's `beforeunload` handlers whether to stay: a cancelable `BeforeUnloadEvent` on
/// the window (as the browser dispatches before a navigation; `onbeforeunload`'s returned text
/// cancels it too). Their `returnValue` when they ask, else `None`.
fn asks_to_stay() -> Option<String> {
    let doc = get(&global(), "document");
    let ev = call(&doc, "createEvent", &[&js_string("BeforeUnloadEvent")]).ok()?;
    call(
        &ev,
        "initEvent",
        &[&js_string("beforeunload"), &JsValue::FALSE, &JsValue::TRUE],
    )
    .ok()?;
    let _ = call(&global(), "dispatchEvent", &[&ev]);
    let text = get(&ev, "returnValue").as_string().unwrap_or_default();
    (get(&ev, "defaultPrevented").is_truthy() || !text.is_empty()).then_some(text)
}

/// A navigation of the agent's is about to leave the page: whether it may, by the running step's
/// policy when the page's `beforeunload` handlers ask to stay (recorded then). Once asked, until
/// the next step, the handlers do not run again (`bu`), so a second look (the `navigate` event
/// of the navigation asked for) lets it go.
pub(crate) fn may_leave() -> bool {
    if bootstrap::field(bootstrap::SKIP_BEFOREUNLOAD).is_truthy() {
        return true;
    }
    let (policy, step) = RUNNING.with(|r| r.borrow().clone());
    let leave = !matches!(policy, Policy::Dismiss);
    if let Some(text) = asks_to_stay() {
        let entry = crate::js::object(&[
            ("type", js_string(entry_type::DIALOG)),
            (KIND, js_string("beforeunload")),
            (MESSAGE, js_string(&text)),
            (ANSWER, JsValue::from_bool(leave)),
        ]);
        record(&entry, step);
    }
    if leave {
        bootstrap::set_field(bootstrap::SKIP_BEFOREUNLOAD, &JsValue::TRUE);
    }
    leave
}

/// A step's navigation (`navigate`, `back`, `forward`, `reload`): done after the handover when the
/// page may be left ([`may_leave`]), with `going` as the step's result; else the step says it stayed.
pub(crate) fn leave(nav: batch::Nav, dest: Option<String>, going: &str) -> super::step::Outcome {
    if !may_leave() {
        return Ok(js_string(
            "stayed on the page: its beforeunload handler asked to stay, and the step's dialog policy is dismiss",
        ));
    }
    batch::navigate(nav, dest);
    Ok(js_string(going))
}
