//! One command poll per browser and origin: the pages of one origin, route prefix and page key
//! (tabs and same-origin frames) share one long-poll, so any number of tabs leaves the browser's
//! six connections per host to the pages. The page holding the Web Lock named
//! `{prefix} {key}` is the leader: it polls for itself and for every page that
//! announced itself on the `BroadcastChannel` of the same name, and relays a batch for another
//! page over the channel; that page runs it and posts its own results. When the leader leaves,
//! the lock passes to another page, which asks the others to announce themselves and polls.
//! Without `BroadcastChannel` or `navigator.locks` (an insecure context, an opaque origin) each
//! page polls alone.
//!
//! A page that ends without `pagehide` (a crashed renderer, a killed process) says no [`BYE`]: on
//! every heartbeat ([`beat`], every [`HEARTBEAT_INTERVAL_MS`]) the leader drops the pages that
//! did not answer the previous heartbeat's roll call ([`WHO`]) and calls the roll again, so a dead
//! page leaves the poll within two heartbeats. The roll call rides on the leader's own timer, and
//! the pages answer it from their message task, which a hidden tab's timer throttling does not
//! delay: a live page is never dropped for being in the background.
//!
//! Every page the leader hears of is covered, however many (no cap here): the host covers as many
//! pages as it keeps records for (see [`MAX_POLL_CLIENTS`]), in this one poll, because any other
//! poll (a page polling alone, a second poll of the leader) would hold another of the browser's
//! six connections per host, the very stall the shared poll exists to prevent.
//!
//! Messages `[kind, c, b]`: [`HELLO`] a page announces itself (`c`: its client id; the host knows
//! its tab), [`BYE`] it leaves, [`WHO`] the leader asks every page to announce itself, [`RUN`]
//! run batch `b` on page `c`. The state is one JS object: `ch` the channel, `rel` the lock's release,
//! `p` the pages the leader covers (a `Set` of client ids), `h` those heard since the last roll
//! call, `me` this page's client id.
//!
//! [`HEARTBEAT_INTERVAL_MS`]: browser_agent_core::protocol::HEARTBEAT_INTERVAL_MS
//! [`MAX_POLL_CLIENTS`]: browser_agent_core::protocol::MAX_POLL_CLIENTS

use super::poller;
use crate::js::{call, get, js_string, object, set};
use crate::net::host;
use js_sys::Promise;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = BroadcastChannel)]
    type Channel;
    #[wasm_bindgen(constructor, catch)]
    fn new(name: &str) -> Result<Channel, JsValue>;
    /// `navigator.locks.request(name, f)`: `f` runs once the lock is ours and holds it until the
    /// promise it returns settles.
    #[wasm_bindgen(js_namespace = ["navigator", "locks"], js_name = request, catch)]
    fn lock(name: &str, f: &JsValue) -> Result<JsValue, JsValue>;
}

/// The kinds of message.
const HELLO: f64 = 0.0;
const BYE: f64 = 1.0;
const WHO: f64 = 2.0;
const RUN: f64 = 3.0;

thread_local! {
    /// The sharing state (undefined unless this page shares the poll).
    static STATE: RefCell<JsValue> = const { RefCell::new(JsValue::UNDEFINED) };
    /// Bumped on every start and stop: a lock granted to a stopped start is given back at once.
    static GENERATION: Cell<u32> = const { Cell::new(0) };
    /// This page holds the lock (the poll loop runs here).
    static LEADER: Cell<bool> = const { Cell::new(false) };
}

/// The sharing state.
fn state() -> JsValue {
    STATE.with(|s| s.borrow().clone())
}

/// Posts `[t, c, b]` on the channel.
fn post(kind: f64, c: &JsValue, b: &JsValue) {
    let msg = js_sys::Array::of3(&JsValue::from_f64(kind), c, b);
    let _ = call(&get(&state(), "ch"), "postMessage", &[&msg]);
}

/// Announces this page to the leader.
fn hello() {
    post(HELLO, &get(&state(), "me"), &JsValue::UNDEFINED);
}

/// Starts sharing the poll (a no-op when it is shared already); false when this browser cannot
/// share (then the page polls alone).
pub(crate) fn start() -> bool {
    if state().is_object() {
        return true;
    }
    // An opaque origin (a sandboxed frame) has no locks to share: it polls alone.
    let Some(h) = host().filter(|_| !crate::net::url("").is_empty()) else {
        return false;
    };
    let name = crate::text::cat(&[&h.prefix, " ", &h.key]);
    let Ok(channel) = Channel::new(&name) else {
        return false;
    };
    let me = crate::bootstrap::field(crate::bootstrap::CLIENT_ID);
    let s = object(&[
        ("ch", channel.into()),
        ("p", js_sys::Set::new(&JsValue::UNDEFINED).into()),
        ("h", js_sys::Set::new(&JsValue::UNDEFINED).into()),
        ("me", me),
    ]);
    STATE.with(|v| *v.borrow_mut() = s.clone().into());
    let generation = GENERATION.with(Cell::get);
    // Called with the lock once it is ours; holds it until the promise it returns settles.
    let granted = Closure::<dyn Fn() -> Promise>::new(move || {
        if GENERATION.with(Cell::get) != generation {
            return Promise::resolve(&JsValue::UNDEFINED);
        }
        LEADER.with(|l| l.set(true));
        post(WHO, &JsValue::UNDEFINED, &JsValue::UNDEFINED);
        poller::start();
        Promise::new(&mut |resolve, _| set(&state(), "rel", &resolve))
    })
    .into_js_value();
    // No `navigator.locks` (an insecure context): this page polls alone.
    if lock(&name, &granted).is_err() {
        stop();
        return false;
    }
    let on = Closure::<dyn Fn(JsValue)>::new(|e: JsValue| on_message(&get(&e, "data"))).into_js_value();
    set(&get(&s, "ch"), "onmessage", &on);
    hello();
    true
}

/// Stops sharing: says so, gives the lock to another page and closes the channel (so the page
/// stays fit for the back/forward cache).
pub(crate) fn stop() {
    let s = state();
    post(BYE, &get(&s, "me"), &JsValue::UNDEFINED);
    GENERATION.with(|g| g.set(g.get().wrapping_add(1)));
    LEADER.with(|l| l.set(false));
    STATE.with(|v| *v.borrow_mut() = JsValue::UNDEFINED);
    let _ = call(&get(&s, "ch"), "close", &[]);
    let _ = call(&get(&s, "rel"), "call", &[]);
}

/// One message from another page of the channel.
fn on_message(d: &JsValue) {
    let s = state();
    let c = get(d, "1");
    let kind = get(d, "0").as_f64();
    if kind == Some(RUN) {
        if c == get(&s, "me") {
            poller::spawn_batch(get(d, "2"));
        }
        return;
    }
    if !LEADER.with(Cell::get) {
        if kind == Some(WHO) {
            hello();
        }
        return;
    }
    // A page to cover (a new one: poll anew soon), or one that left (dropped from the next poll).
    let pages = get(&s, "p");
    if !c.is_string() {
        return;
    }
    if kind == Some(BYE) {
        let _ = call(&pages, "delete", &[&c]);
    } else {
        let _ = call(&get(&s, "h"), "add", &[&c]);
        if call(&pages, "has", &[&c]).is_ok_and(|v| !v.is_truthy()) {
            let _ = call(&pages, "add", &[&c]);
            poller::restart();
        }
    }
}

/// On every heartbeat: the leader drops the pages that did not answer the last roll call (they
/// ended without `pagehide`; the poll then starts anew without them) and calls the roll again.
pub(crate) fn beat() {
    if !LEADER.with(Cell::get) {
        return;
    }
    let s = state();
    let (pages, heard) = (get(&s, "p"), get(&s, "h"));
    let mut dropped = false;
    for c in js_sys::Array::from(&pages).iter() {
        if call(&heard, "has", &[&c]).is_ok_and(|v| !v.is_truthy()) {
            let _ = call(&pages, "delete", &[&c]);
            dropped = true;
        }
    }
    let _ = call(&heard, "clear", &[]);
    post(WHO, &JsValue::UNDEFINED, &JsValue::UNDEFINED);
    if dropped {
        poller::restart();
    }
}

/// The `clients=` of the leader's poll (`ID,…`, every page it covers); empty unless this page
/// leads.
pub(crate) fn covered() -> String {
    if !LEADER.with(Cell::get) {
        return String::new();
    }
    let keys = js_sys::Array::from(&get(&state(), "p"));
    call(&keys, "join", &[&js_string(",")])
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// Hands `batch` to page `client` over the channel.
pub(crate) fn relay(client: &JsValue, batch: &JsValue) {
    post(RUN, client, batch);
}
