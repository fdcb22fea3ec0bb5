//! Recording the bootstrap's captures, and the capture only the client makes: clicks (capture
//! phase, with an accessible description of the target).
//!
//! The bootstrap completes every entry before it gets here: it stamps it (`t`, `page`, `url`,
//! `clientId`, `seq`), serializes console arguments at call time (bounded JSON, cycles marked,
//! nodes described, errors as their stack) and reads an error's message and stack, all in JS,
//! where a property read costs no boundary crossing. It then calls the handler `h(entry, kind)`
//! once per capture, so each one is a single push onto the queue here; `kind` says whether to send
//! at once and whether the page navigated.

use crate::bootstrap::{self, emit, NAV, URGENT};
use crate::commands::resolve::describe::{click_label, click_target, element_of};
use crate::js::{self, get, set};
use crate::snapshot::name::squash;
use crate::state::with_state;
use crate::text::truncate_chars;
use crate::transport;
use browser_agent_core::protocol::{entry_type, field, FLUSH_INTERVAL_MS};
use js_sys::{Array, Object};
use std::cell::Cell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Entries kept locally while the host is unreachable; the oldest go first beyond this.
pub(crate) const MAX_PENDING: usize = 1000;

thread_local! {
    /// Sees every entry recorded (the command batch keeps those recorded while it runs).
    static OBSERVER: Cell<Option<fn(&JsValue)>> = const { Cell::new(None) };
}

/// Installs the function that sees every recorded entry.
pub(crate) fn observe(f: fn(&JsValue)) {
    OBSERVER.with(|o| o.set(Some(f)));
}

/// Queues a stamped entry for the next batch.
pub(crate) fn record(e: JsValue, urgent: bool) {
    let queued = with_state(|s| {
        if s.dead {
            return false;
        }
        if let Some(observer) = OBSERVER.with(Cell::get) {
            observer(&e);
        }
        let len = s.pending.push(&e) as usize;
        if len > MAX_PENDING {
            // Drop the oldest entry that is not part of the request in flight.
            // (shift is O(1) on a JS array; splice from the front is not.)
            let at = if s.sending { s.in_flight } else { 0 };
            if at == 0 {
                s.pending.shift();
                s.dropped += 1;
            } else if at < len {
                s.pending.remove(at as u32, 1);
                s.dropped += 1;
            }
        }
        true
    });
    if queued == Some(true) {
        transport::schedule(if urgent { 0 } else { FLUSH_INTERVAL_MS as i32 });
    }
}

/// The handler the bootstrap calls for every capture once the client runs.
fn on_entry(e: JsValue, kind: u32) {
    record(e, kind & URGENT != 0);
    if kind & NAV != 0 {
        transport::heartbeat();
    }
}

/// Drains the bootstrap's queue in order, becomes its handler, and listens for clicks.
pub(crate) fn install(global: &JsValue) {
    let early_drops = get(global, bootstrap::DROPPED).as_f64().unwrap_or(0.0) as u32;
    with_state(|s| s.dropped += early_drops);
    set(global, bootstrap::DROPPED, &JsValue::from(0));
    let q: Array = get(global, bootstrap::QUEUE).unchecked_into();
    for i in 0..q.length() {
        let pair: Array = q.get(i).unchecked_into();
        on_entry(pair.get(0), pair.get(1).as_f64().unwrap_or(0.0) as u32);
    }
    q.set_length(0);
    let handler = Closure::<dyn Fn(JsValue, u32)>::new(on_entry).into_js_value();
    set(global, bootstrap::HANDLER, &handler);

    let click = Closure::<dyn Fn(JsValue)>::new(on_click).into_js_value();
    js::listen_document("click", click.unchecked_ref(), true);
}

/// A click anywhere (capture phase): an `interaction` entry naming what was clicked.
fn on_click(ev: JsValue) {
    // The element clicked, inside an open shadow root too: `target` is retargeted to the host for
    // a listener outside it, `composedPath()` is not (a closed root's inside stays hidden).
    let path = js::call(&ev, "composedPath", &[]).unwrap_or_default();
    let Some(el) = element_of(&get(&path, "0")) else {
        return;
    };
    let el = click_target(&el);
    let e = Object::new();
    set(&e, field::TYPE, &JsValue::from_str(entry_type::INTERACTION));
    set(&e, field::EVENT, &JsValue::from_str("click"));
    set(&e, field::TARGET, &JsValue::from_str(&click_label(&el)));
    let mut text = squash(&el.text_content().unwrap_or_default());
    truncate_chars(&mut text, 100);
    set(&e, field::TEXT, &JsValue::from_str(&text));
    emit(&e);
}
