//! The commands a batch step may name: `snapshot`, `click`, `dblclick`, `type`, `fill`, `select`,
//! `check`, `uncheck`, `press`, `hover`, `drag`, `down`, `up`, `scroll`, `wait`, `evaluate`, `navigate`, `back`,
//! `forward`, `reload`, `network`, `vitals`, `screenshot` (in [`super::screenshot`]), `audit`; [`run`] is the dispatch table.
//!
//! Each finds its target with [`super::target`] (through [`super::resolve`]), acts as a person would (scroll into view, the pointer
//! and key events in browser order, values through the element's native setter so controlled
//! inputs of React, Vue and Svelte see them) and says what it matched. Every executed step also
//! carries `at` (ms since the batch started), `target` (`{label, box}`) and `viewport`, which the
//! host appends to the page's action log. A step that navigates hands the rest of the batch over
//! ([`batch`]).

mod audit;
mod capture;
mod choice;
mod drag;
mod evaluate;
mod focus;
mod hover;
mod keymap;
mod keys;
mod navigate;
mod network;
pub(crate) mod page_tools;
mod pointer;
mod reach;
mod scroll;
mod settle;
mod slider;
mod text;
mod upload;
pub(super) mod vitals;
pub(super) mod wait;

/// A button a `down` step left held, released at the batch's end (no press outlives its batch).
pub(super) use pointer::release_held;

use super::batch::{self, Nav};
// Also the path `snapshot/refs.rs` names it by.
use super::step::bad_field;
use super::step::Outcome;
use crate::js::js_string;
use crate::snapshot::idle;
use crate::text::{cat, num};
use core::future::Future;
use core::pin::Pin;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Longest a step's `waitNetwork` waits for the requests it started (ms); never closer than
/// [`NETWORK_MARGIN_MS`] to the batch's deadline.
const NETWORK_WAIT_MS: f64 = 10_000.0;
/// What `waitNetwork` leaves of the batch's time, so the answer is the page's, not a timeout.
const NETWORK_MARGIN_MS: f64 = 500.0;

/// Runs the acting command `command`; with `waitNetwork`, then waits for the requests it started.
pub(crate) async fn run(command: &str, step: &JsValue) -> Outcome {
    let network = crate::js::get(step, browser_agent_protocol::WAIT_NETWORK).is_truthy();
    let before = network.then(|| (idle::inflight(), crate::js::now_ms()));
    let outcome = act(command, step).await;
    match (outcome, before) {
        // A page that navigates away is not waited for: its requests end with it (and the
        // navigation's own request is no fetch or XHR: "it started no requests" would be false).
        (Ok(v), Some((inflight, t0))) if !batch::leaving() => network_done(v, inflight, t0).await,
        (outcome, _) => outcome,
    }
}

/// `waitNetwork`: the step's result `v`, with how long the requests it started took (or that it
/// started none); an error when they are still running at the bound.
async fn network_done(v: JsValue, inflight: f64, t0: f64) -> Outcome {
    let left = batch::time_left().map_or(f64::MAX, |l| l - NETWORK_MARGIN_MS);
    let max = NETWORK_WAIT_MS.min(left).max(0.0);
    let done = idle::wait_requests_done(inflight, max).await;
    let started = idle::last_activity() >= t0;
    // A value that is not text (`evaluate`'s) stays as it is; a failure still says what happened.
    let Some(text) = v.as_string() else {
        return done.map(|_| v).map_err(|n| {
            cat(&[
                "the step ran; but ",
                &num(n),
                " of its requests still ran after ",
                &num(max),
                " ms (waitNetwork)",
            ])
        });
    };
    match done {
        Ok(_) if !started => Ok(js_string(&cat(&[&text, "; it started no requests"]))),
        Ok(ms) => Ok(js_string(&cat(&[
            &text,
            "; the requests it started finished after ",
            &num(ms),
            " ms",
        ]))),
        Err(n) => Err(cat(&[
            &text,
            "; but ",
            &num(n),
            if n == 1.0 { " request" } else { " requests" },
            " it started still ran after ",
            &num(max),
            " ms (waitNetwork)",
        ])),
    }
}

/// Runs the acting command `command`.
async fn act(command: &str, step: &JsValue) -> Outcome {
    // Its dialog policy answers from now on.
    if let Some(index) = batch::step_begins(step) {
        super::dialogs::step_begins(step, index);
    }
    // A popup or new tab the action opens, or the browser refuses, is said in its result.
    let popups = super::popups::begin(command);
    let outcome = match command {
        // Those that finish at once need no future (nor `core::future::ready`'s panic text).
        "navigate" => navigate::navigate(step),
        "back" => navigate::history_step(Nav::Back, "back"),
        "forward" => navigate::history_step(Nav::Forward, "forward"),
        "reload" => super::dialogs::leave(Nav::Reload, None, "reloading"),
        _ => {
            let fut: Pin<Box<dyn Future<Output = Outcome> + '_>> = match command {
                "snapshot" => Box::pin(snapshot_command(step)),
                "click" => Box::pin(pointer::click(step, 1)),
                "dblclick" => Box::pin(pointer::click(step, 2)),
                "type" => Box::pin(text::type_text(step, false)),
                "fill" => Box::pin(text::type_text(step, true)),
                "select" => Box::pin(choice::select(step)),
                "check" => Box::pin(choice::check(step, true)),
                "uncheck" => Box::pin(choice::check(step, false)),
                "press" => Box::pin(keys::press(step)),
                "hover" => Box::pin(hover::hover(step)),
                "drag" => Box::pin(drag::drag(step)),
                "down" => Box::pin(pointer::down(step)),
                "up" => Box::pin(pointer::up(step)),
                "scroll" => Box::pin(scroll::scroll(step)),
                "wait" => Box::pin(wait::wait(step)),
                "evaluate" => Box::pin(evaluate::evaluate(step)),
                "network" => Box::pin(network::network(step)),
                "vitals" => Box::pin(vitals::vitals(step)),
                "screenshot" => Box::pin(super::screenshot::screenshot(step)),
                "audit" => Box::pin(audit::audit(step)),
                "upload" => Box::pin(upload::upload(step)),
                "notes" => Box::pin(notes(step)),
                "tools" => Box::pin(page_tools::list(step)),
                "tool" => Box::pin(page_tools::call_tool(step)),
                // The host refuses an unknown command with the list of them (core's `COMMANDS`).
                _ => return batch::step_outcome(Err(bad_field("command"))),
            };
            fut.await
        }
    };
    let outcome = if popups {
        super::popups::end(outcome).await
    } else {
        outcome
    };
    // An action that started a cross-document navigation: its result says where to.
    batch::step_outcome(outcome)
}

/// `{"command":"snapshot","diff"?:true, "ref"?, "offset"?, "limit"?, "filter"?, "viewport"?,
/// "budget"?, "full"?}`: the snapshot text (the host makes the diff; see [`crate::snapshot::View`]).
async fn snapshot_command(step: &JsValue) -> Outcome {
    let step = &scope_by_selector(step)?;
    let view = crate::snapshot::View::of(step);
    let mut text = crate::snapshot::take(&view).await?;
    // `source`: the legend of the refs' source locations (`docs/source-locations.md`).
    if crate::source::asked(step) {
        text.push('\n');
        let scope = crate::js::get(step, "ref").as_string().filter(|r| !r.is_empty());
        text.push_str(&crate::source::legend(scope).await);
    }
    Ok(js_string(&text))
}

/// A snapshot step's `selector` (without `ref`) as the `ref` of the element it names, so the
/// snapshot is that element's subtree; a selector that names none fails as a target does.
fn scope_by_selector(step: &JsValue) -> Result<JsValue, String> {
    let given = |f: &str| crate::js::get(step, f).as_string().is_some_and(|s| !s.is_empty());
    if !given("selector") || given("ref") {
        return Ok(step.clone());
    }
    let el = super::resolve::resolve(step, false, true)
        .map_err(|m| m.into_text())?
        .el;
    let scoped = js_sys::Object::assign(&js_sys::Object::new(), step.unchecked_ref());
    crate::js::set(&scoped, "ref", &js_string(&crate::snapshot::refs::ref_of(&el)));
    Ok(scoped.into())
}

/// `{"command":"notes","mode":"enter"|"exit"}`: notes mode in the page, through the bootstrap
/// (which loads its module on first use); `{mode, notes}`.
async fn notes(step: &JsValue) -> Outcome {
    let mode = crate::js::get(step, "mode").as_string().unwrap_or_default();
    if mode != "enter" && mode != "exit" {
        return Err(bad_field("mode"));
    }
    let agent = crate::bootstrap::agent();
    let f = crate::js::get(&agent, crate::bootstrap::NOTES_FN);
    let f: &js_sys::Function = f
        .dyn_ref()
        .ok_or_else(|| String::from("this page's bootstrap has no notes mode"))?;
    crate::lazy::settle(f.call1(&agent, &js_string(&mode))).await
}
