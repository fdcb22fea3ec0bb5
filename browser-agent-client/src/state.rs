//! The delivery state of the page load: the page key and prefix, the queue of entries not yet
//! confirmed by the host, and the sending machinery's counters. Capture writes the queue,
//! transport drains it.

use crate::js;
use browser_agent_core::protocol::Phase;
use std::cell::RefCell;

/// The client's delivery state; one per page load.
pub(crate) struct State {
    /// The page key (sent as a header, or a query parameter where no header can be set).
    pub(crate) key: String,
    /// The route prefix (`/__mindstudio_dev__`).
    pub(crate) prefix: String,
    /// The client revision the host served with this page.
    pub(crate) rev: String,
    /// Made by the bootstrap, which stamps it (and `seq`) on every entry.
    pub(crate) client_id: String,
    /// Entries not yet confirmed by the host, oldest first.
    pub(crate) pending: js::Queue,
    /// Entries dropped (oldest first) since the last `dropped` report.
    pub(crate) dropped: u32,
    /// Number of entries at the front of `pending` in the request now in flight.
    pub(crate) in_flight: usize,
    /// A request with entries is in flight.
    pub(crate) sending: bool,
    /// Bumped when a beacon takes entries out from under an in-flight request.
    pub(crate) epoch: u32,
    /// Most entries in one request (halved on 413).
    pub(crate) batch_max: usize,
    /// The current retry delay (0 when the last send succeeded).
    pub(crate) backoff_ms: i32,
    /// The armed flush timer.
    pub(crate) timer: Option<i32>,
    /// The host refused the page key: stop sending.
    pub(crate) dead: bool,
    /// The page's life-cycle phase, reported by the heartbeat.
    pub(crate) phase: Phase,
}

thread_local! {
    /// The state, from the client's start on.
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// Installs the state (once, at start).
pub(crate) fn init(state: State) {
    STATE.with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            *s = Some(state);
        }
    });
}

/// Runs `f` on the state, if the client started. Never call page code inside `f`.
pub(crate) fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> Option<R> {
    STATE.with(|s| s.try_borrow_mut().ok()?.as_mut().map(f))
}
