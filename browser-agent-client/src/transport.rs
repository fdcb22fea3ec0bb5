//! Delivery: batches to `POST {prefix}/logs` every 2 s (at once on errors), retries with backoff
//! keeping the same sequence numbers, splits on 413, stops on 403, `sendBeacon` on `pagehide` and
//! `visibilitychange` to hidden; the heartbeat to `GET /browser/probe` with the reload on a new
//! client revision.

use crate::capture::href;
use crate::{get, set, window, with_state};
use browser_agent_core::protocol::{self, entry_type, Phase};
use js_sys::{Array, Function, Object, Promise};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};

/// Most entries in one request (halved on 413).
pub(crate) const BATCH_MAX: usize = 200;
/// Longest wait between retries while the host is unreachable.
const BACKOFF_MAX_MS: i32 = 8000;
/// First retry delay.
const BACKOFF_MIN_MS: i32 = 500;
/// Entries per beacon (a beacon's body is limited to 64 KiB in total).
const BEACON_CHUNK: usize = 50;
/// sessionStorage key remembering the revision we reloaded for (one reload per revision).
const RELOAD_KEY: &str = "__browserAgentReload";

thread_local! {
    static FLUSH_CB: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Calls the page's original `fetch` (saved by the bootstrap) so our requests bypass every wrapper.
fn raw_fetch(url: &str, init: &Object) -> Option<Promise> {
    let global = with_state(|s| s.global.clone())?;
    let original = get(&get(&global, "o"), "fetch");
    let f = original
        .dyn_into::<Function>()
        .ok()
        .or_else(|| get(&window(), "fetch").dyn_into::<Function>().ok())?;
    f.call2(&window(), &JsValue::from_str(url), init)
        .ok()?
        .dyn_into::<Promise>()
        .ok()
}

/// Arms the flush timer to fire in `ms` (0 = as soon as possible). A pending timer that would fire
/// later than an urgent request is replaced; otherwise the earlier one stands.
pub(crate) fn schedule(ms: i32) {
    let w = window();
    let replace = with_state(|s| {
        if s.dead {
            return None;
        }
        match s.timer {
            Some(h) if ms == 0 => {
                w.clear_timeout_with_handle(h);
                s.timer = None;
                Some(())
            }
            Some(_) => None,
            None => Some(()),
        }
    })
    .flatten();
    if replace.is_none() {
        return;
    }
    let handle = FLUSH_CB.with(|cb| {
        cb.borrow()
            .as_ref()
            .and_then(|f| w.set_timeout_with_callback_and_timeout_and_arguments_0(f, ms).ok())
    });
    with_state(|s| s.timer = handle);
}

fn on_timer() {
    with_state(|s| s.timer = None);
    spawn_local(flush());
}

/// What one send needs, taken from the state.
struct Batch {
    body: String,
    count: usize,
    epoch: u32,
    url: String,
    key: String,
}

/// Appends a `dropped` entry when the local queue lost entries since the last report.
fn report_drops(s: &mut crate::State) {
    if s.dropped == 0 {
        return;
    }
    let e = Object::new();
    let page = JsValue::from_str(&href());
    set(&e, "type", &JsValue::from_str(entry_type::DROPPED));
    set(&e, "t", &JsValue::from_f64(js_sys::Date::now()));
    set(&e, "page", &page);
    set(&e, "url", &page);
    set(&e, "count", &JsValue::from(s.dropped));
    s.seq += 1;
    set(&e, "clientId", &s.client_id_js);
    set(&e, "seq", &JsValue::from(s.seq));
    s.dropped = 0;
    s.pending.push_back(e.into());
}

fn stringify(entries: impl Iterator<Item = JsValue>) -> String {
    let arr = Array::new();
    for e in entries {
        arr.push(&e);
    }
    js_sys::JSON::stringify(&arr)
        .map(String::from)
        .unwrap_or_else(|_| "[]".into())
}

fn take_batch() -> Option<Batch> {
    with_state(|s| {
        if s.sending || s.dead {
            return None;
        }
        report_drops(s);
        if s.pending.is_empty() {
            return None;
        }
        let count = s.pending.len().min(s.batch_max);
        s.sending = true;
        s.in_flight = count;
        let mut url = s.prefix.clone();
        url.push_str(protocol::LOGS_PATH);
        Some(Batch {
            body: stringify(s.pending.iter().take(count).cloned()),
            count,
            epoch: s.epoch,
            url,
            key: s.key.clone(),
        })
    })
    .flatten()
}

/// Sends one batch and settles the outcome.
async fn flush() {
    let Some(batch) = take_batch() else { return };
    let init = Object::new();
    set(&init, "method", &JsValue::from_str("POST"));
    let headers = Object::new();
    set(&headers, "content-type", &JsValue::from_str("application/json"));
    set(&headers, protocol::KEY_HEADER, &JsValue::from_str(&batch.key));
    set(&init, "headers", &headers);
    set(&init, "body", &JsValue::from_str(&batch.body));
    let status = match raw_fetch(&batch.url, &init) {
        Some(p) => match JsFuture::from(p).await {
            Ok(r) => get(&r, "status").as_f64().unwrap_or(0.0) as u16,
            Err(_) => 0,
        },
        None => 0,
    };
    let mut warn = false;
    let next = with_state(|s| {
        s.sending = false;
        let current = s.epoch == batch.epoch;
        let count = if current { batch.count.min(s.pending.len()) } else { 0 };
        s.in_flight = 0;
        match status {
            200..=299 => {
                s.pending.drain(..count);
                s.backoff_ms = 0;
                if s.pending.len() >= s.batch_max {
                    Some(0)
                } else if s.pending.is_empty() {
                    None
                } else {
                    Some(protocol::FLUSH_INTERVAL_MS as i32)
                }
            }
            403 => {
                s.dead = true;
                s.pending.clear();
                warn = true;
                None
            }
            413 => {
                if count <= 1 {
                    // One entry the host will never take: give it up and say so.
                    s.pending.drain(..count);
                    s.dropped += count as u32;
                } else {
                    s.batch_max = (count / 2).max(1);
                }
                Some(0)
            }
            _ => {
                s.backoff_ms = (s.backoff_ms * 2).clamp(BACKOFF_MIN_MS, BACKOFF_MAX_MS);
                Some(s.backoff_ms)
            }
        }
    })
    .flatten();
    if warn {
        warn_once(
            "[browser-agent] the dev server refused this page's key (403); logs are no longer sent. Reload the page to reconnect.",
        );
    }
    if let Some(ms) = next {
        schedule(ms);
    }
}

/// Writes to the page's original `console.warn` (never captured).
fn warn_once(msg: &str) {
    let Some(global) = with_state(|s| s.global.clone()) else {
        return;
    };
    if let Ok(f) = get(&get(&global, "o"), "warn").dyn_into::<Function>() {
        let _ = f.call1(&get(&window(), "console"), &JsValue::from_str(msg));
    }
}

/// Sends everything still queued with `sendBeacon` (the page is going away or hidden).
fn beacon() {
    let nav = window().navigator();
    with_state(|s| {
        if s.dead {
            return;
        }
        report_drops(s);
        let mut url = s.prefix.clone();
        url.push_str(protocol::LOGS_PATH);
        url.push('?');
        url.push_str(protocol::KEY_PARAM);
        url.push('=');
        url.push_str(&String::from(js_sys::encode_uri_component(&s.key)));
        let mut sent = 0;
        while sent < s.pending.len() {
            let end = (sent + BEACON_CHUNK).min(s.pending.len());
            let body = stringify(s.pending.range(sent..end).cloned());
            if !nav.send_beacon_with_opt_str(&url, Some(&body)).unwrap_or(false) {
                break;
            }
            sent = end;
        }
        if sent > 0 {
            s.pending.drain(..sent);
            // A request in flight covered entries the beacon took: its answer must not drain.
            s.epoch = s.epoch.wrapping_add(1);
            s.in_flight = 0;
        }
    });
}

fn query(url: &mut String, name: &str, value: &str) {
    url.push(if url.contains('?') { '&' } else { '?' });
    url.push_str(name);
    url.push('=');
    url.push_str(&String::from(js_sys::encode_uri_component(value)));
}

/// Sends a heartbeat now.
pub(crate) fn heartbeat() {
    spawn_local(send_heartbeat());
}

async fn send_heartbeat() {
    let w = window();
    let Some((key, client, rev, phase)) = with_state(|s| (s.key.clone(), s.client_id.clone(), s.rev.clone(), s.phase))
    else {
        return;
    };
    let doc = w.document().unwrap_throw();
    let flag = |b: bool| if b { "1" } else { "0" };
    let iframe = get(&w, "parent") != JsValue::from(w.clone());
    let mut url = String::from(protocol::PROBE_PATH);
    query(&mut url, protocol::KEY_PARAM, &key);
    query(&mut url, "client", &client);
    query(&mut url, "page", &href());
    query(&mut url, "title", &doc.title());
    query(&mut url, "phase", phase.as_str());
    query(&mut url, "visible", flag(!doc.hidden()));
    query(&mut url, "focused", flag(doc.has_focus().unwrap_or(false)));
    query(&mut url, "iframe", flag(iframe));
    query(&mut url, "rev", &rev);
    let init = Object::new();
    set(&init, "cache", &JsValue::from_str("no-store"));
    let Some(p) = raw_fetch(&url, &init) else {
        return;
    };
    let Ok(resp) = JsFuture::from(p).await else {
        return;
    };
    let Ok(resp) = resp.dyn_into::<web_sys::Response>() else {
        return;
    };
    if !resp.ok() {
        return;
    }
    // The host is there: whatever waits for a retry goes now.
    let waiting = with_state(|s| !s.pending.is_empty() && s.backoff_ms > 0 && !s.sending);
    if waiting == Some(true) {
        schedule(0);
    }
    let served = resp
        .headers()
        .get(protocol::REV_HEADER)
        .ok()
        .flatten()
        .unwrap_or_default();
    if served.is_empty() || served == rev {
        return;
    }
    let Ok(Some(storage)) = w.session_storage() else {
        return;
    };
    if storage.get_item(RELOAD_KEY).ok().flatten().as_deref() == Some(served.as_str()) {
        return;
    }
    let _ = storage.set_item(RELOAD_KEY, &served);
    beacon();
    let _ = w.location().reload();
}

fn listen(target: &web_sys::EventTarget, event: &str, f: impl Fn() + 'static) {
    let cb = Closure::<dyn Fn()>::new(f).into_js_value();
    let _ = target.add_event_listener_with_callback(event, cb.unchecked_ref());
}

/// Timers and page life-cycle listeners; the first heartbeat.
pub(crate) fn install() {
    let w = window();
    let doc = w.document().unwrap_throw();
    let cb = Closure::<dyn Fn()>::new(on_timer).into_js_value();
    FLUSH_CB.with(|f| *f.borrow_mut() = cb.dyn_into::<Function>().ok());

    let beat = Closure::<dyn Fn()>::new(heartbeat).into_js_value();
    let _ = w.set_interval_with_callback_and_timeout_and_arguments_0(
        beat.unchecked_ref(),
        protocol::HEARTBEAT_INTERVAL_MS as i32,
    );
    listen(&w, "pagehide", beacon);
    {
        let doc2 = doc.clone();
        listen(&doc, "visibilitychange", move || {
            if doc2.hidden() {
                beacon();
            }
            heartbeat();
        });
    }
    listen(&w, "focus", heartbeat);
    listen(&w, "blur", heartbeat);
    if get(&doc, "readyState").as_string().as_deref() == Some("loading") {
        listen(&doc, "DOMContentLoaded", || {
            with_state(|s| s.phase = Phase::Ready);
            heartbeat();
        });
    } else {
        with_state(|s| s.phase = Phase::Ready);
    }
    heartbeat();
    schedule(0);
}
