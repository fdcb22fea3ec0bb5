//! The visible cursor: a pink (#DD2590) Figma-style arrow with a name tag that shows a person
//! watching the page what the agent does. Only when the page runs in an iframe (an agent's preview
//! pane) or the tag's config says `cursor: true` (or a name: `cursor: "Ada"`; `cursorName` also
//! names it).
//!
//! It enters from a random viewport edge on the first action, glides to each target in
//! clamp(220 + 0.55·distance, 280, 800) ms (eased), presses and releases with a ripple on clicks,
//! fades out 1.5 s after the batch and comes back where it was (also across page loads, through
//! `sessionStorage`). It is `position:fixed`, topmost, `pointer-events:none`, appended to `<html>`
//! so it never changes layout, and marked `data-browser-agent-ui` with an `__browser-agent` id so
//! the snapshot walker and target resolution skip it.
//!
//! The drawing is JS (`cursor.js`), loaded on the first action where the cursor shows: most pages
//! (plain tabs) never load it. When it is off nothing here waits.

use crate::bootstrap::{self, cfg};
use crate::js::{get, global, js_number};
use crate::lazy;
use browser_agent_protocol::lazy::CURSOR;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The loaded module, once an action needed it.
    static MODULE: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// Whether the cursor shows: as the parent frame set it (`cursor-show`, `cursor-hide`), else in an
/// iframe, or when the config asks for it.
pub(crate) fn enabled() -> bool {
    match bootstrap::field(bootstrap::CURSOR_MODE).as_string().as_deref() {
        Some("show") => return true,
        Some("hide") => return false,
        _ => {}
    }
    let g = global();
    get(&bootstrap::field(bootstrap::CFG), cfg::CURSOR).is_truthy() || get(&g, "parent") != g
}

/// Runs `f(args…)` of the module, loading it first; nothing when the cursor is off or the module
/// cannot load (the action goes on without a cursor).
async fn drive(f: &str, args: &[&JsValue]) {
    if !enabled() {
        return;
    }
    let loaded = MODULE.with(|m| m.borrow().clone());
    let module = match loaded {
        Some(m) => m,
        None => match lazy::module(CURSOR).await {
            Ok(m) => {
                MODULE.with(|s| *s.borrow_mut() = Some(m.clone()));
                m
            }
            Err(_) => return,
        },
    };
    let _ = lazy::call(&module, f, args).await;
}

/// Glides to `(x, y)` (viewport coordinates); enters or comes back first when hidden.
pub(crate) async fn move_to(x: f64, y: f64) {
    drive("moveTo", &[&js_number(x), &js_number(y)]).await;
}

/// Presses (the arrow shrinks).
pub(crate) async fn press() {
    drive("press", &[]).await;
}

/// Releases, with a ripple where it clicked.
pub(crate) async fn release() {
    drive("release", &[]).await;
}

/// Calls `f` of the module when it is loaded (before the first move there is no cursor to tell).
fn tell(f: &str) {
    if let Some(m) = MODULE.with(|m| m.borrow().clone()) {
        let _ = crate::js::call(&m, f, &[]);
    }
}

/// A batch starts: no fade while it runs.
pub(crate) fn batch_start() {
    tell("batchStart");
}

/// A batch ended: fade out in 1.5 s (the position is kept for the next entrance).
pub(crate) fn batch_end() {
    tell("batchEnd");
}
