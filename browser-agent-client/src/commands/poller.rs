//! The command channel: a long-poll `GET {prefix}/commands?client=<id>&wait=25000` (answers
//! `200 {"id","steps"}` or `204` on timeout, then at once the next poll), a batch run by the
//! executor and its results posted to `POST {prefix}/results`. Network errors and 5xx back off
//! 1 s doubling to 10 s; a 403 (the host refused the page key) stops the channel. The poll in
//! flight is aborted on `pagehide` and a new one starts on `pageshow`, so navigations and the
//! back/forward cache never leave connections behind. Idle cost: one request per 25 s, shared by
//! every page of the browser's origin ([`tabs`]: one page polls for all, and relays their
//! batches; a new set of pages polls anew, and the host ends the older poll, never losing a batch
//! it handed to it: the older poll is read to its end, not aborted).

use super::{executor, tabs};
use crate::bootstrap;
use crate::js::get;
use crate::net::{fetch, host, init, push_query, tab_id};
use crate::text::push_number;
use browser_agent_core::protocol;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Polls never start more often than this when the host answers at once (a host without
/// long-polling), which keeps the idle cost at 0.2 requests/s at most.
const MIN_POLL_INTERVAL_MS: f64 = 5_000.0;
/// First retry delay after a failed poll (ms).
const BACKOFF_MIN_MS: i32 = 1_000;
/// Longest retry delay (ms).
const BACKOFF_MAX_MS: i32 = 10_000;
/// Attempts to deliver one batch's results.
const RESULT_ATTEMPTS: u32 = 3;

/// The poll loop.
struct Poll {
    /// Bumped on every start and stop: a loop whose generation is stale ends.
    generation: u32,
    /// A loop runs.
    active: bool,
    /// Aborts the poll in flight.
    controller: Option<web_sys::AbortController>,
}

thread_local! {
    static POLL: RefCell<Poll> = const { RefCell::new(Poll { generation: 0, active: false, controller: None }) };
}

/// How one poll ended.
enum Outcome {
    /// The host delivered a batch.
    Batch(JsValue),
    /// Nothing to do before the hold ran out (204).
    Empty,
    /// A network error or an unexpected status: retry after a backoff.
    Failed,
    /// The host refused the page key (403), or the client has no state: stop.
    Refused,
}

/// Whether the loop of `generation` is still the current one.
fn current(generation: u32) -> bool {
    POLL.with(|p| p.borrow().generation == generation)
}

/// Starts the loop unless it runs.
pub(crate) fn start() {
    let generation = POLL.with(|p| {
        let mut p = p.borrow_mut();
        if p.active {
            return None;
        }
        p.active = true;
        p.generation = p.generation.wrapping_add(1);
        Some(p.generation)
    });
    if let Some(g) = generation {
        wasm_bindgen_futures::spawn_local(run(g, 0));
    }
}

/// Polls anew (for a new set of pages) if the loop runs: the poll in flight is left to end (the
/// host answers it 204 when the new one arrives) and a batch it still brings is run or relayed.
pub(crate) fn restart() {
    let generation = POLL.with(|p| {
        let mut p = p.borrow_mut();
        p.generation = p.generation.wrapping_add(1);
        p.active.then_some(p.generation)
    });
    if let Some(g) = generation {
        // After a short wait: one poll for a burst of new pages.
        wasm_bindgen_futures::spawn_local(run(g, 50));
    }
}

/// Runs a batch on this page and posts its results, beside whatever else runs.
pub(crate) fn spawn_batch(batch: JsValue) {
    wasm_bindgen_futures::spawn_local(run_batch(batch));
}

/// Runs a batch on this page and posts its results.
async fn run_batch(batch: JsValue) {
    bootstrap::set_field(bootstrap::BUSY, &JsValue::TRUE);
    let results = executor::run(&batch).await;
    bootstrap::set_field(bootstrap::BUSY, &JsValue::FALSE);
    // Null: handed over to the next page (the results were posted already).
    if !results.is_null() {
        post_results(&results).await;
    }
}

/// Ends the loop and aborts its poll in flight.
fn stop() {
    let controller = POLL.with(|p| {
        let mut p = p.borrow_mut();
        p.active = false;
        p.generation = p.generation.wrapping_add(1);
        p.controller.take()
    });
    if let Some(c) = controller {
        c.abort();
    }
}

/// The poll loop: poll, run the batch, post its results, again.
async fn run(generation: u32, delay: i32) {
    crate::js::sleep(delay).await;
    let mut backoff = 0;
    while current(generation) {
        let started = crate::js::now_ms();
        let outcome = poll(generation).await;
        if let Outcome::Batch(batch) = &outcome {
            backoff = 0;
            // Another page's (the poll covered it): relayed. This page's runs before the next poll:
            // a batch that navigates hands its rest over to the tab's next page, which a poll of
            // this page (the same tab) must not take first.
            let c = get(batch, protocol::field::CLIENT);
            if c.is_string() && c != bootstrap::field(bootstrap::CLIENT_ID) {
                tabs::relay(&c, batch);
            } else {
                run_batch(batch.clone()).await;
            }
        }
        if !current(generation) {
            break;
        }
        match outcome {
            Outcome::Batch(_) => {}
            Outcome::Empty => {
                backoff = 0;
                let took = crate::js::now_ms() - started;
                let interval = poll_ms().unwrap_or(MIN_POLL_INTERVAL_MS);
                if took < interval {
                    crate::js::sleep((interval - took) as i32).await;
                }
            }
            Outcome::Refused => {
                POLL.with(|p| p.borrow_mut().active = false);
                break;
            }
            Outcome::Failed => {
                backoff = (backoff * 2).clamp(BACKOFF_MIN_MS, BACKOFF_MAX_MS);
                crate::js::sleep(backoff).await;
            }
        }
    }
}

/// `window.__browserAgent.pollMs` when set: poll without `wait`, every that many ms (the seed's
/// way; the latency benchmark compares it with the long-poll).
fn poll_ms() -> Option<f64> {
    bootstrap::field(bootstrap::POLL_MS).as_f64().filter(|ms| *ms > 0.0)
}

/// One long-poll for a batch.
async fn poll(generation: u32) -> Outcome {
    let Some(h) = host() else {
        return Outcome::Refused;
    };
    let mut url = crate::net::url(&h.prefix);
    url.push_str(protocol::COMMANDS_PATH);
    push_query(&mut url, protocol::param::CLIENT, &h.client_id);
    if poll_ms().is_none() {
        // The longest hold the host grants.
        let mut wait = String::new();
        push_number(&mut wait, protocol::POLL_WAIT_MS as u32);
        push_query(&mut url, protocol::param::WAIT, &wait);
    }
    push_query(&mut url, protocol::param::TAB, &tab_id());
    let covered = tabs::covered();
    if !covered.is_empty() {
        push_query(&mut url, protocol::param::CLIENTS, &covered);
    }
    let opts = init("GET", Some(&h.key), None);
    let Ok(controller) = web_sys::AbortController::new() else {
        return Outcome::Failed;
    };
    crate::js::set(&opts, "signal", &controller.signal());
    POLL.with(|p| p.borrow_mut().controller = Some(controller));
    let response = match fetch(&url, &opts) {
        Some(p) => JsFuture::from(p).await,
        None => Err(JsValue::NULL),
    };
    POLL.with(|p| {
        let mut p = p.borrow_mut();
        if p.generation == generation {
            p.controller = None;
        }
    });
    // A poll replaced by a newer one is still read to its end: it may bring a batch. (A poll
    // aborted by `stop` fails; its loop then ends.)
    let Ok(response) = response else {
        return Outcome::Failed;
    };
    match get(&response, "status").as_f64().unwrap_or(0.0) as u16 {
        200 => {
            let Ok(body) = crate::js::call(&response, "json", &[]) else {
                return Outcome::Failed;
            };
            match JsFuture::from(js_sys::Promise::resolve(&body)).await {
                Ok(batch) if batch.is_object() => Outcome::Batch(batch),
                _ => Outcome::Failed,
            }
        }
        204 => Outcome::Empty,
        403 => Outcome::Refused,
        _ => Outcome::Failed,
    }
}

/// Posts a batch's results; a few attempts when the host is briefly unreachable.
async fn post_results(results: &JsValue) {
    let Some(h) = host() else { return };
    let Ok(body) = js_sys::JSON::stringify(results) else {
        return;
    };
    let body = JsValue::from(body);
    let mut url = crate::net::url(&h.prefix);
    url.push_str(protocol::RESULTS_PATH);
    for attempt in 0..RESULT_ATTEMPTS {
        let opts = init("POST", Some(&h.key), Some(&body));
        let status = match fetch(&url, &opts) {
            Some(p) => match JsFuture::from(p).await {
                Ok(r) => get(&r, "status").as_f64().unwrap_or(0.0) as u16,
                Err(_) => 0,
            },
            None => 0,
        };
        if status != 0 && status < 500 {
            return;
        }
        crate::js::sleep(BACKOFF_MIN_MS << attempt).await;
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = addEventListener)]
    fn add_event_listener(event: &str, f: &js_sys::Function);
}

/// Calls `f` on each `event` of the window.
fn listen(event: &str, f: fn()) {
    let cb = Closure::<dyn Fn()>::new(f).into_js_value();
    add_event_listener(event, cb.unchecked_ref());
}

/// Shares the poll with the browser's other pages of this origin, or polls alone.
fn open() {
    if !tabs::start() {
        start();
    }
}

/// Stops polling and sharing when the page hides.
fn close() {
    stop();
    tabs::stop();
}

/// Starts the channel, stops it on `pagehide` and starts it again on `pageshow`.
pub(crate) fn install() {
    listen("pagehide", close);
    listen("pageshow", open);
    open();
}
