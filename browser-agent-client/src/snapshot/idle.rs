//! The network-idle wait before a snapshot: at most 2 of the page's requests in flight for 200 ms
//! (5 s at most; it never fails). The bootstrap's fetch and XHR wrappers keep the count. And an
//! acting step's `waitNetwork`: [`wait_requests_done`], for the requests it started.

use crate::bootstrap;
use crate::js::{get, now_ms, sleep};

/// Idle means at most this many of the page's requests in flight.
const IDLE_INFLIGHT: f64 = 2.0;
/// ... for this long.
const IDLE_SETTLE_MS: f64 = 200.0;
/// The wait never lasts longer than this.
const IDLE_MAX_MS: f64 = 5000.0;
/// How often the in-flight counter is read while waiting.
const IDLE_POLL_MS: i32 = 50;

/// A field of the bootstrap's global in the page and in each of its same-origin frames (a click
/// inside a payment frame starts its request there).
fn in_every_window(name: &str) -> impl Iterator<Item = f64> + '_ {
    crate::js::same_origin_windows()
        .into_iter()
        .filter_map(move |w| get(&get(&w, bootstrap::GLOBAL), name).as_f64())
}

/// The page's requests in flight, its frames' included, as counted by the bootstrap's fetch and
/// XHR wrappers.
pub(crate) fn inflight() -> f64 {
    in_every_window(bootstrap::INFLIGHT).sum()
}

/// When the page's (or a frame's) request count last changed (a request started or finished),
/// ms since the epoch; 0 when it never did.
pub(crate) fn last_activity() -> f64 {
    in_every_window(bootstrap::LAST_ACTIVITY).fold(0.0, f64::max)
}

/// Waits until at most 2 requests have been in flight for 200 ms; gives up quietly after 5 s.
/// The 200 ms count from the last network activity, so an already quiet page is idle at once;
/// failing that, from when the wait saw at most 2 in flight (steady polling still counts as idle).
pub(crate) async fn wait_network_idle() {
    let start = now_ms();
    let mut idle_since: Option<f64> = None;
    loop {
        let now = now_ms();
        let mut pause = IDLE_POLL_MS;
        if inflight() <= IDLE_INFLIGHT {
            let since = *idle_since.get_or_insert(now);
            let quiet = (now - last_activity()).max(now - since);
            if quiet >= IDLE_SETTLE_MS {
                return;
            }
            pause = pause.min((IDLE_SETTLE_MS - quiet).ceil() as i32);
        } else {
            idle_since = None;
        }
        if now - start >= IDLE_MAX_MS {
            return;
        }
        sleep(pause).await;
    }
}

/// `waitNetwork`: how long no more requests than `before` (the count when the step began) must
/// be in flight, from the last start or end of one, for those the step started to count as done
/// (a request started from another's answer starts within this).
const DONE_QUIET_MS: f64 = 100.0;

/// Waits until the requests a step started have finished: no more than `before` in flight for
/// [`DONE_QUIET_MS`]; at most `max_ms`. `Ok(ms waited)`, or `Err(how many are still in flight
/// beyond before)` when `max_ms` passed first. (The count cannot tell requests apart: one of the
/// page's own that ends meanwhile lets one of the step's count as ended.)
pub(crate) async fn wait_requests_done(before: f64, max_ms: f64) -> Result<f64, f64> {
    let start = now_ms();
    loop {
        let now = now_ms();
        let extra = inflight() - before;
        let mut pause = IDLE_POLL_MS;
        if extra <= 0.0 {
            let quiet = now - last_activity();
            if quiet >= DONE_QUIET_MS {
                return Ok(now - start);
            }
            pause = pause.min((DONE_QUIET_MS - quiet).ceil().max(1.0) as i32);
        }
        if now - start >= max_ms {
            return Err(extra.max(1.0));
        }
        sleep(pause).await;
    }
}
