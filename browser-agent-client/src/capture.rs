//! Turning the bootstrap's raw captures into log entries, plus the captures only the client makes:
//! clicks (capture phase) and navigation (pushState, replaceState, popstate, hashchange).

use crate::describe;
use crate::serialize::{self, error_stack, prop_str, string_of};
use crate::transport;
use crate::{get, set, window, with_state};
use browser_agent_core::protocol::entry_type;
use js_sys::{Array, Function, Object};
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Entries kept locally while the host is unreachable; the oldest go first beyond this.
pub(crate) const MAX_PENDING: usize = 1000;

thread_local! {
    /// Set while page code may run under us (getters during serialization): a capture made
    /// then is an artifact of our serialization, not of the page, and is not recorded.
    static BUSY: Cell<bool> = const { Cell::new(false) };
    static LAST_NAV: RefCell<String> = const { RefCell::new(String::new()) };
}

/// `location.href`.
pub(crate) fn href() -> String {
    window().location().href().unwrap_or_default()
}

/// A fresh entry of `ty` with `t`, `page` and `url` set.
fn new_entry(ty: &str) -> Object {
    let e = Object::new();
    let page = JsValue::from_str(&href());
    set(&e, "type", &JsValue::from_str(ty));
    set(&e, "t", &JsValue::from_f64(js_sys::Date::now()));
    set(&e, "page", &page);
    set(&e, "url", &page);
    e
}

/// Clears a raw field (JSON leaves undefined out; cheaper than `delete`, which de-optimizes the object).
fn delete(o: &JsValue, name: &str) {
    set(o, name, &JsValue::UNDEFINED);
}

/// Completes a raw entry from the bootstrap; returns whether it should be sent at once.
fn prepare(e: &JsValue) -> bool {
    let ty = get(e, "type");
    let is = |name: &str| ty == JsValue::from_str(wasm_bindgen::intern(name));
    if is(entry_type::CONSOLE) {
        {
            let args = Array::new();
            if let Some(raw) = get(e, "a").dyn_ref::<Array>() {
                for v in raw.iter() {
                    args.push(&serialize::arg(&v));
                }
            }
            set(e, "args", &args);
            delete(e, "a");
            get(e, "level") == JsValue::from_str(wasm_bindgen::intern("error"))
        }
    } else if is(entry_type::ERROR) {
        {
            let err = get(e, "e");
            delete(e, "e");
            if get(e, "kind").as_string().as_deref() == Some("unhandledrejection") {
                let message = prop_str(&err, "message").unwrap_or_else(|| string_of(&err));
                set(e, "message", &JsValue::from_str(&message));
                let stack = prop_str(&err, "stack").unwrap_or_default();
                set(e, "stack", &JsValue::from_str(&stack));
            } else {
                let stack = error_stack(&err).unwrap_or_default();
                set(e, "stack", &JsValue::from_str(&stack));
                if !get(e, "message").is_string() {
                    set(e, "message", &JsValue::from_str(&string_of(&err)));
                }
            }
            true
        }
    } else {
        false
    }
}

/// Stamps `e` with `clientId` and the next `seq` and queues it.
pub(crate) fn record(e: &JsValue, urgent: bool) {
    let queued = with_state(|s| {
        if s.dead {
            return false;
        }
        s.seq += 1;
        set(e, "clientId", &s.client_id_js);
        set(e, "seq", &JsValue::from(s.seq));
        if s.pending.len() >= MAX_PENDING {
            // Drop the oldest entry that is not part of the request in flight.
            let at = if s.sending { s.in_flight } else { 0 };
            if at < s.pending.len() {
                s.pending.remove(at);
                s.dropped += 1;
            }
        }
        s.pending.push_back(e.clone());
        true
    });
    if queued == Some(true) {
        transport::schedule(if urgent {
            0
        } else {
            browser_agent_core::protocol::FLUSH_INTERVAL_MS as i32
        });
    }
}

/// The handler the bootstrap calls for every capture once the client runs.
fn on_entry(e: &JsValue) {
    if BUSY.with(Cell::get) {
        return;
    }
    BUSY.with(|b| b.set(true));
    let urgent = prepare(e);
    BUSY.with(|b| b.set(false));
    record(e, urgent);
}

/// Drains the bootstrap's queue in order, becomes its handler, and adds clicks and navigation.
pub(crate) fn install(global: &JsValue) {
    let early_drops = get(global, "d").as_f64().unwrap_or(0.0);
    if early_drops > 0.0 {
        let e = new_entry(entry_type::DROPPED);
        set(&e, "count", &JsValue::from_f64(early_drops));
        record(&e, false);
        set(global, "d", &JsValue::from(0));
    }
    if let Some(q) = get(global, "q").dyn_ref::<Array>() {
        for e in q.iter() {
            on_entry(&e);
        }
        q.set_length(0);
    }
    let handler = Closure::<dyn Fn(JsValue)>::new(|e: JsValue| on_entry(&e)).into_js_value();
    set(global, "h", &handler);

    let w = window();
    let doc = w.document().unwrap_throw();
    let click = Closure::<dyn Fn(web_sys::Event)>::new(on_click).into_js_value();
    let _ = doc.add_event_listener_with_callback_and_bool("click", click.unchecked_ref(), true);

    let history = get(&w, "history");
    for via in ["pushState", "replaceState"] {
        let original = get(&history, via);
        let Ok(original) = original.dyn_into::<Function>() else {
            continue;
        };
        if get(&original, "__ba").is_truthy() {
            continue;
        }
        let this = history.clone();
        let wrapper = Closure::<dyn Fn(JsValue, JsValue, JsValue) -> Result<JsValue, JsValue>>::new(
            move |state: JsValue, title: JsValue, url: JsValue| {
                let r = original.call3(&this, &state, &title, &url)?;
                navigated(via, false);
                Ok(r)
            },
        )
        .into_js_value();
        set(&wrapper, "__ba", &JsValue::TRUE);
        set(&history, via, &wrapper);
    }
    for via in ["popstate", "hashchange"] {
        let cb = Closure::<dyn Fn()>::new(move || navigated(via, true)).into_js_value();
        let _ = w.add_event_listener_with_callback(via, cb.unchecked_ref());
    }
    LAST_NAV.with(|l| *l.borrow_mut() = href());
}

fn on_click(ev: web_sys::Event) {
    let Some(target) = ev.target() else { return };
    let Some(el) = describe::element_of(&target) else {
        return;
    };
    let el = describe::click_target(&el);
    let e = new_entry(entry_type::INTERACTION);
    set(&e, "event", &JsValue::from_str("click"));
    set(&e, "target", &JsValue::from_str(&describe::describe(&el)));
    let text: String = describe::squash(&el.text_content().unwrap_or_default())
        .chars()
        .take(100)
        .collect();
    set(&e, "text", &JsValue::from_str(&text));
    record(&e, false);
}

/// Records a navigation and reports the new URL with a heartbeat at once.
fn navigated(via: &str, only_if_changed: bool) {
    let url = href();
    let same = LAST_NAV.with(|l| *l.borrow() == url);
    if only_if_changed && same {
        return;
    }
    LAST_NAV.with(|l| *l.borrow_mut() = url);
    let e = new_entry(entry_type::NAVIGATION);
    set(&e, "via", &JsValue::from_str(via));
    record(&e, false);
    transport::heartbeat();
}
