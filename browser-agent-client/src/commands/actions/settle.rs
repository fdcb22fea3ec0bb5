//! After an action, what the page set to run soon lands before the next step: its microtasks,
//! the timers it set for at most [`SETTLE_MS`](bootstrap::SETTLE_MS) and a frame it asked for (Vue
//! 0.x/1.x, Mithril and Elm render on the next animation frame), for at most that long in all. A
//! page that sets nothing is settled after one task, where every action used to pause a fixed
//! 20 ms. The bootstrap keeps the counts (its `setTimeout` and `requestAnimationFrame` wrappers)
//! and does the waiting ([`bootstrap::SETTLE`]), which costs the wasm nothing.

use crate::bootstrap;
use crate::js::{call, set_timeout, window_of};
use wasm_bindgen::prelude::*;

/// The page's frame requests before an action.
pub(super) struct Mark(JsValue);

/// Taken before the action's events are dispatched.
pub(super) fn mark() -> Mark {
    Mark(bootstrap::field(bootstrap::FRAMES))
}

/// Waits for what the page set to run soon since `mark` (see the module), and `at_least` ms (the
/// visible cursor's pause); with `intent` (after a `hover`, `type` or `fill`), for the timers of
/// up to [`bootstrap::HOVER_INTENT_MS`] too: hover intent, an autocomplete's delayed search. (A
/// future, not an `async fn`: no state machine of its own.)
pub(super) fn settle(mark: Mark, at_least: u32, intent: bool) -> wasm_bindgen_futures::JsFuture {
    let p = call(
        &bootstrap::agent(),
        bootstrap::SETTLE,
        &[&mark.0, &JsValue::from(at_least), &JsValue::from(intent)],
    );
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&p.unwrap_or_default()))
}

/// Resolves at the next animation frame of `el`'s window (or after 100 ms, where frames do not
/// come: a hidden tab). Frameworks that render on the next frame (Vue 0.x and 1.x batch through
/// `requestAnimationFrame`) have then written the field, and released the lock their `input`
/// listener holds until then (while it is held, a model change does not reach the field).
pub(super) async fn next_frame(el: &web_sys::Element) {
    let win = window_of(el);
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let _ = call(&win, "requestAnimationFrame", &[&resolve]);
        set_timeout(&resolve, 100);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}
