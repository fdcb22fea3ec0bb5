//! Delivery: batches to `POST {prefix}/logs` every 2 s (at once on errors), retries with backoff
//! keeping the same sequence numbers, splits on 413, stops on 403, `sendBeacon` on `pagehide` and
//! `visibilitychange` to hidden; the heartbeat to `GET /browser/probe` with the reload on a new
//! client revision.

use crate::bootstrap::{self, emit};
use crate::js::{self, get, set, window};
use crate::net::{self, push_query};
use crate::state::with_state;
use browser_agent_core::protocol::{self, entry_type, field, param, Phase};
use js_sys::{Array, Function, Object};
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

/// Arms the flush timer to fire in `ms` (0 = as soon as possible). A pending timer that would fire
/// later than an urgent request is replaced; otherwise the earlier one stands.
pub(crate) fn schedule(ms: i32) {
    let arm = with_state(|s| match s.timer {
        _ if s.dead => false,
        Some(h) if ms == 0 => {
            js::clear_timeout(h);
            s.timer = None;
            true
        }
        Some(_) => false,
        None => true,
    });
    if arm != Some(true) {
        return;
    }
    let handle = FLUSH_CB.with(|cb| cb.try_borrow().ok()?.as_ref().map(|f| js::set_timeout(f, ms)));
    with_state(|s| s.timer = handle);
}

/// The flush timer fired: send a batch.
fn on_timer() {
    with_state(|s| s.timer = None);
    spawn_local(flush());
}

/// What one send needs, taken from the state.
struct Batch {
    /// The JSON array of entries, a JS string.
    body: JsValue,
    /// How many entries it holds.
    count: usize,
    /// The state's epoch when it was taken.
    epoch: u32,
    /// Where to post it.
    url: String,
    /// The page key.
    key: String,
}

/// Records a `dropped` entry when the local queue lost entries since the last report. Not inside
/// `with_state`: the entry goes through the bootstrap, which hands it back to the client.
fn report_drops() {
    let dropped = with_state(|s| std::mem::take(&mut s.dropped)).unwrap_or(0);
    if dropped == 0 {
        return;
    }
    let e = Object::new();
    set(&e, field::TYPE, &JsValue::from_str(entry_type::DROPPED));
    set(&e, field::COUNT, &JsValue::from(dropped));
    emit(&e);
}

/// `pending[start..end]` as a JSON array, a JS string.
fn stringify(pending: &Array, start: usize, end: usize) -> JsValue {
    let slice = pending.slice(start as u32, end as u32);
    js_sys::JSON::stringify(&slice).map_or_else(|_| JsValue::from_str("[]"), JsValue::from)
}

/// The next batch to send, unless one is in flight, the client is dead or nothing waits.
fn take_batch() -> Option<Batch> {
    report_drops();
    with_state(|s| {
        if s.sending || s.dead {
            return None;
        }
        let len = s.pending.length() as usize;
        if len == 0 {
            return None;
        }
        let count = len.min(s.batch_max);
        s.sending = true;
        s.in_flight = count;
        let mut url = net::url(&s.prefix);
        url.push_str(protocol::LOGS_PATH);
        Some(Batch {
            body: stringify(&s.pending, 0, count),
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
    let init = net::init("POST", Some(&batch.key), Some(&batch.body));
    let status = match net::fetch(&batch.url, &init) {
        Some(p) => match JsFuture::from(p).await {
            Ok(r) => r.unchecked_into::<js::Response>().status(),
            Err(_) => 0,
        },
        None => 0,
    };
    let mut warn = false;
    let next = with_state(|s| {
        s.sending = false;
        let current = s.epoch == batch.epoch;
        let len = s.pending.length() as usize;
        let count = if current { batch.count.min(len) } else { 0 };
        s.in_flight = 0;
        match status {
            200..=299 => {
                s.pending.remove(0, count as u32);
                s.backoff_ms = 0;
                if len - count >= s.batch_max {
                    Some(0)
                } else if len == count {
                    None
                } else {
                    Some(protocol::FLUSH_INTERVAL_MS as i32)
                }
            }
            403 => {
                s.dead = true;
                s.pending.set_length(0);
                warn = true;
                None
            }
            413 => {
                if count <= 1 {
                    // One entry the host will never take: give it up and say so.
                    s.pending.remove(0, count as u32);
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
    if with_state(|_| ()).is_none() {
        return;
    }
    let warn: Function = bootstrap::original(bootstrap::original::WARN).unchecked_into();
    let _ = warn.call1(&JsValue::UNDEFINED, &JsValue::from_str(msg));
}

/// Sends everything still queued with `sendBeacon` (the page is going away or hidden).
fn beacon(gone: bool) {
    report_drops();
    with_state(|s| {
        if s.dead {
            return;
        }
        // sendBeacon cannot set a header: the key rides in the query, of an absolute URL.
        let mut url = net::url(&s.prefix);
        url.push_str(protocol::LOGS_PATH);
        push_query(&mut url, param::KEY, &s.key);
        let len = s.pending.length() as usize;
        if gone {
            // The page is going (closed, navigated away, or into the back/forward cache): the host
            // stops offering it as a target at once instead of after the heartbeat's TTL. A page
            // that comes back polls again, which makes it alive again.
            push_query(&mut url, param::CLIENT, &s.client_id);
            push_query(&mut url, param::GONE, "1");
            if len == 0 {
                let _ = js::send_beacon(&url, &JsValue::from_str("[]"));
            }
        }
        let mut sent = 0;
        while sent < len {
            let end = (sent + BEACON_CHUNK).min(len);
            let body = stringify(&s.pending, sent, end);
            if !matches!(js::send_beacon(&url, &body), Ok(true)) {
                break;
            }
            sent = end;
        }
        if sent > 0 {
            s.pending.remove(0, sent as u32);
            // A request in flight covered entries the beacon took: its answer must not drain.
            s.epoch = s.epoch.wrapping_add(1);
            s.in_flight = 0;
        }
    });
}

/// Sends a heartbeat now.
pub(crate) fn heartbeat() {
    spawn_local(send_heartbeat());
}

/// The origin of the page that frames this one: `location.ancestorOrigins[0]` (Chromium,
/// Safari), else `null` (the browser does not say: Firefox; the host then keeps treating the
/// frame as before). The parent's own `location` is not read: across origins that throws.
fn parent_origin(w: &web_sys::Window) -> String {
    get(&get(&w.location(), "ancestorOrigins"), "0")
        .as_string()
        .unwrap_or_else(|| String::from("null"))
}

/// One heartbeat: the page's state to the probe; reloads once when the host serves a newer revision.
async fn send_heartbeat() {
    let Some((key, client, rev, phase)) = with_state(|s| (s.key.clone(), s.client_id.clone(), s.rev.clone(), s.phase))
    else {
        return;
    };
    let w = window();
    let Some(doc) = w.document() else { return };
    let flag = |b: bool| if b { "1" } else { "0" };
    let iframe = get(&w, "parent") != ***w;
    let mut url = net::url(protocol::PROBE_PATH);
    push_query(&mut url, param::CLIENT, &client);
    push_query(&mut url, param::TAB, &net::tab_id());
    push_query(&mut url, param::PAGE, &w.location().href().unwrap_or_default());
    push_query(&mut url, param::TITLE, &doc.title());
    push_query(&mut url, param::PHASE, phase.as_str());
    push_query(&mut url, param::VISIBLE, flag(!doc.hidden()));
    push_query(&mut url, param::FOCUSED, flag(doc.has_focus().unwrap_or(false)));
    push_query(&mut url, param::IFRAME, flag(iframe));
    if iframe {
        push_query(&mut url, param::PARENT, &parent_origin(&w));
    }
    push_query(&mut url, param::REV, &rev);
    // The key in a header, not the URL: it stays out of the host's access logs and proxies.
    let init = net::init("GET", Some(&key), None);
    let Some(p) = net::fetch(&url, &init) else {
        return;
    };
    let Ok(resp) = JsFuture::from(p).await else {
        return;
    };
    let resp: js::Response = resp.unchecked_into();
    if !(200..300).contains(&resp.status()) {
        return;
    }
    // The host is there: whatever waits for a retry goes now.
    let waiting = with_state(|s| s.pending.length() > 0 && s.backoff_ms > 0 && !s.sending);
    if waiting == Some(true) {
        schedule(0);
    }
    let served = resp.headers().get(protocol::REV_HEADER).unwrap_or_default();
    if served.is_empty() || served == rev {
        return;
    }
    // One reload per revision; never where sessionStorage is blocked (it could not remember).
    match js::session_get(RELOAD_KEY) {
        Ok(seen) if seen.as_deref() != Some(served.as_str()) => {}
        _ => return,
    }
    if js::session_set(RELOAD_KEY, &served).is_err() {
        return;
    }
    beacon(false);
    js::reload();
}

/// Calls `f` on each `event` of the window (or the document).
fn listen(event: &str, on_document: bool, f: impl Fn() + 'static) {
    let cb = Closure::<dyn Fn()>::new(f).into_js_value();
    if on_document {
        js::listen_document(event, cb.unchecked_ref(), false);
    } else {
        js::listen_window(event, cb.unchecked_ref());
    }
}

/// Timers and page life-cycle listeners; the first heartbeat. `beat` also runs on every
/// periodic heartbeat (the many-tabs roll call rides on this timer instead of a timer of its own).
pub(crate) fn install(beat: fn()) {
    let cb = Closure::<dyn Fn()>::new(on_timer).into_js_value();
    FLUSH_CB.with(|f| f.replace(Some(cb.unchecked_into())));

    let beat = Closure::<dyn Fn()>::new(move || {
        heartbeat();
        beat();
    })
    .into_js_value();
    js::set_interval(beat.unchecked_ref(), protocol::HEARTBEAT_INTERVAL_MS as i32);
    listen("pagehide", false, || beacon(true));
    listen("visibilitychange", true, || {
        if window().document().is_some_and(|d| d.hidden()) {
            beacon(false);
        }
        heartbeat();
    });
    listen("focus", false, heartbeat);
    listen("blur", false, heartbeat);
    let loading = window()
        .document()
        .is_some_and(|d| get(&d, "readyState").as_string().as_deref() == Some("loading"));
    if loading {
        listen("DOMContentLoaded", true, || {
            with_state(|s| s.phase = Phase::Ready);
            heartbeat();
        });
    } else {
        with_state(|s| s.phase = Phase::Ready);
    }
    heartbeat();
    schedule(0);
}
