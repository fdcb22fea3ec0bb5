//! The commands a batch step may name: `snapshot`, `click`, `dblclick`, `type`, `fill`, `select`,
//! `check`, `uncheck`, `press`, `hover`, `scroll`, `wait`, `evaluate`, `navigate`, `back`,
//! `forward`, `reload`, `screenshot` (in [`super::screenshot`]); [`run`] is the dispatch table.
//!
//! Each finds its target with [`super::target`] (through [`super::resolve`]), acts as a person would (scroll into view, the pointer
//! and key events in browser order, values through the element's native setter so controlled
//! inputs of React, Vue and Svelte see them) and says what it matched. Every executed step also
//! carries `at` (ms since the batch started), `target` (`{label, box}`) and `viewport`, which the
//! host appends to the page's action log. A step that navigates hands the rest of the batch over
//! ([`batch`]).

mod choice;
mod evaluate;
mod focus;
mod hover;
mod keymap;
mod keys;
mod navigate;
mod pointer;
mod reach;
mod scroll;
mod settle;
mod text;
mod wait;

use super::batch::{self, Nav};
// Also the path `snapshot/refs.rs` names it by.
use super::step::bad_field;
use super::step::Outcome;
use crate::js::js_string;
use core::future::Future;
use core::pin::Pin;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Runs the acting command `command`.
pub(crate) async fn run(command: &str, step: &JsValue) -> Outcome {
    batch::step_begins(step);
    let outcome = match command {
        // Those that finish at once need no future (nor `core::future::ready`'s panic text).
        "navigate" => navigate::navigate(step),
        "back" => navigate::history_step(Nav::Back, "back"),
        "forward" => navigate::history_step(Nav::Forward, "forward"),
        "reload" => {
            batch::navigate(Nav::Reload, None);
            Ok(js_string("reloading"))
        }
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
                "scroll" => Box::pin(scroll::scroll(step)),
                "wait" => Box::pin(wait::wait(step)),
                "evaluate" => Box::pin(evaluate::evaluate(step)),
                "screenshot" => Box::pin(super::screenshot::screenshot(step)),
                "notes" => Box::pin(notes(step)),
                // The host refuses an unknown command with the list of them (core's `COMMANDS`).
                _ => return batch::step_outcome(Err(bad_field("command"))),
            };
            fut.await
        }
    };
    // An action that started a cross-document navigation: its result says where to.
    batch::step_outcome(outcome)
}

/// `{"command":"snapshot","diff"?:true, "ref"?, "offset"?, "limit"?, "filter"?, "viewport"?,
/// "budget"?, "full"?}`: the snapshot text (the host makes the diff; see [`crate::snapshot::View`]).
async fn snapshot_command(step: &JsValue) -> Outcome {
    let view = crate::snapshot::View::of(step);
    Ok(js_string(&crate::snapshot::take(&view).await?))
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
