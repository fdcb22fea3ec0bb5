//! One batch's whole life in this page, and all its state: it starts ([`start`]), each step is
//! marked ([`step_begins`]) and completed with the session-log fields ([`after_step`]), the
//! entries recorded meanwhile are kept ([`tap`]), and it ends here ([`end`]) or is handed over to
//! the next page of the tab ([`hand_over`], or [`on_pagehide`] when a navigation nothing announced
//! unloads the page).
//!
//! Page loads: a step that navigates (or a click that starts a navigation) posts the results so far
//! to `POST {prefix}/results` with `handover: {tab, remaining, offset}` before the page unloads;
//! the host gives the remaining steps to the next page of the same tab (`tab=` on every poll, kept
//! in `sessionStorage`), whose first result carries the `url` it ended up at.

use super::resolve::{self, Target};
use super::step::Outcome;
use crate::bootstrap;
use crate::cursor;
use crate::js::{call, get, global, js_number, js_string, now_ms, object, set};
use crate::net;
use crate::text::cat;
use browser_agent_protocol::{self as protocol, field};
use js_sys::{Array, Object, Promise};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// How long a page that was told to navigate may take to leave (ms).
const LEAVE_MAX_MS: i32 = 10_000;

/// A navigation a step asked for, performed after the handover is posted.
pub(crate) enum Nav {
    /// `location.assign(url)`.
    Go(String),
    /// `history.back()`.
    Back,
    /// `history.forward()`.
    Forward,
    /// `location.reload()`.
    Reload,
    /// Already under way (a click on a link, a form submission).
    Started,
    /// The step opened a new tab, whose page (this client id) takes the rest: this page stays.
    Popup(String),
}

/// The running batch.
struct Batch {
    /// The batch id.
    id: JsValue,
    /// The steps delivered to this page.
    steps: Array,
    /// The step results so far.
    results: Array,
    /// Index of the first of `steps` within the agent's whole batch.
    offset: u32,
    /// When the batch started here (ms since the epoch).
    started: f64,
    /// Index (in `steps`) of the step running now.
    current: u32,
    /// The running step's target: label and box.
    target: Option<(String, [f64; 4])>,
    /// The navigation the running step asked for.
    nav: Option<Nav>,
    /// The results were posted with a handover: this page is done with the batch.
    handed: bool,
    /// Handed over from another page: the first result says where it ended up.
    resumed: bool,
    /// When the host gives up on the batch (`timeoutMs` of the batch, from its arrival here).
    deadline: Option<f64>,
    /// The destination of the navigation a step started (for the handover).
    dest: Option<String>,
}

thread_local! {
    /// The batch running in this page, if any.
    static BATCH: RefCell<Option<Batch>> = const { RefCell::new(None) };
    /// The destination of a cross-document navigation that started during an action.
    static NAVIGATING: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The entries recorded while a batch runs.
    static TAPPED: RefCell<Option<Array>> = const { RefCell::new(None) };
    /// The frames tapped for the running batch: each frame's global, the tap set there, and the
    /// frame's own tap it replaced (restored at the end).
    static FRAME_TAPS: RefCell<Vec<(JsValue, JsValue, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the running batch, if any.
fn with_batch<R>(f: impl FnOnce(&mut Batch) -> R) -> Option<R> {
    BATCH.with(|b| b.try_borrow_mut().ok()?.as_mut().map(f))
}

/// Every entry the client records passes here; those recorded while a batch runs are kept.
pub(crate) fn tap(entry: &JsValue) {
    TAPPED.with(|t| {
        if let Some(list) = t.borrow().as_ref() {
            list.push(entry);
        }
    });
}

/// The entries recorded so far in the running batch (sent with a handover, so the answer keeps
/// what the page logged before it navigated).
fn tapped() -> Array {
    TAPPED.with(|t| t.borrow().clone().unwrap_or_default())
}

/// While a batch runs, what the same-origin frames of its page record passes this page's tap too
/// (then the frame's own, when its hands run): a payment frame's failed request is the batch's,
/// in its answer. The frame delivers the same entries later; the host stores each
/// `(clientId, seq)` once.
fn tap_frames(on: bool) {
    if !on {
        for (agent, wrapper, theirs) in FRAME_TAPS.with(|f| f.take()) {
            if get(&agent, bootstrap::TAP) == wrapper {
                set(&agent, bootstrap::TAP, &theirs);
            }
        }
        return;
    }
    let mut taps = Vec::new();
    for w in crate::js::same_origin_windows().into_iter().skip(1) {
        let agent = get(&w, bootstrap::GLOBAL);
        if !agent.is_object() {
            continue;
        }
        let theirs = get(&agent, bootstrap::TAP);
        let forward = theirs.clone();
        let wrapper = Closure::<dyn Fn(JsValue)>::new(move |e: JsValue| {
            tap(&e);
            if let Some(f) = forward.dyn_ref::<js_sys::Function>() {
                let _ = f.call1(&JsValue::UNDEFINED, &e);
            }
        })
        .into_js_value();
        set(&agent, bootstrap::TAP, &wrapper);
        taps.push((agent, wrapper, theirs));
    }
    FRAME_TAPS.with(|f| *f.borrow_mut() = taps);
}

/// A batch starts; `results` is where its step results go. Returns the index of its first step
/// (`offset` when handed over).
pub(crate) fn start(batch: &JsValue, results: &Array) -> u32 {
    TAPPED.with(|t| *t.borrow_mut() = Some(Array::new()));
    tap_frames(true);
    let offset = get(batch, field::OFFSET).as_f64().unwrap_or(0.0).max(0.0) as u32;
    let b = Batch {
        id: get(batch, field::ID),
        steps: get(batch, field::STEPS).dyn_into::<Array>().unwrap_or_default(),
        results: results.clone(),
        offset,
        started: now_ms(),
        current: 0,
        target: None,
        nav: None,
        handed: false,
        resumed: get(batch, field::OFFSET).as_f64().is_some(),
        deadline: get(batch, field::TIMEOUT_MS).as_f64().map(|ms| now_ms() + ms),
        dest: None,
    };
    BATCH.with(|s| *s.borrow_mut() = Some(b));
    NAVIGATING.with(|n| n.borrow_mut().take());
    resolve::remember();
    cursor::batch_start();
    offset
}

/// Whether the host has given up on the running batch (its `timeoutMs` ran out): later steps
/// must not run, or an agent that retries after its timeout would act twice.
pub(crate) fn out_of_time() -> bool {
    with_batch(|b| b.deadline.is_some_and(|d| now_ms() > d)).unwrap_or(false)
}

/// Milliseconds until the host gives up on the running batch, when it has a deadline.
pub(crate) fn time_left() -> Option<f64> {
    with_batch(|b| b.deadline.map(|d| d - now_ms())).flatten()
}

/// The batch ended in this page; returns the entries recorded while it ran.
pub(crate) fn end() -> Array {
    BATCH.with(|s| s.borrow_mut().take());
    tap_frames(false);
    cursor::batch_end();
    TAPPED.with(|t| t.borrow_mut().take()).unwrap_or_default()
}

/// A step starts: it becomes the current one, without a target yet.
pub(crate) fn step_begins(step: &JsValue) -> Option<u32> {
    with_batch(|b| {
        let i = b.steps.index_of(step, 0);
        if i >= 0 {
            b.current = i as u32;
        }
        b.target = None;
        b.offset + b.current
    })
}

/// A step asks for a navigation (performed after the handover is posted); `dest` is where to,
/// when known.
pub(crate) fn navigate(nav: Nav, dest: Option<String>) {
    with_batch(|b| {
        if dest.is_some() {
            b.dest = dest;
        }
        b.nav = Some(nav);
    });
}

/// Whether a cross-document navigation started during this batch (the page is about to go).
pub(crate) fn navigating() -> bool {
    NAVIGATING.with(|n| n.borrow().is_some())
}

/// Whether the running step is leaving the page: a navigation started (not yet said in a result)
/// or one its result says, which the rest of the batch is handed over for.
pub(crate) fn leaving() -> bool {
    navigating() || with_batch(|b| b.nav.is_some()).unwrap_or(false)
}

/// A command finished: when it started a cross-document navigation, its result says where to and
/// the rest of the batch will be handed over.
pub(crate) fn step_outcome(out: Outcome) -> Outcome {
    match (out, NAVIGATING.with(|n| n.borrow_mut().take())) {
        (Ok(v), Some(url)) => {
            navigate(Nav::Started, Some(url.clone()));
            let mut text = v.as_string().unwrap_or_else(|| "ok".to_owned());
            text.push_str("; ");
            text.push_str(protocol::NAVIGATING_TO);
            text.push_str(&url);
            Ok(js_string(&text))
        }
        (out, _) => out,
    }
}

/// The viewport's size: `{w, h}`.
fn viewport() -> Object {
    let w = global();
    object(&[("w", get(&w, "innerWidth")), ("h", get(&w, "innerHeight"))])
}

/// Adds the session-log fields to a step's result: `at`, `viewport`, and when the step had a
/// target `matched` and `target: {label, box}`; `url` on the first step after a handover.
pub(crate) fn after_step(r: &Object) {
    let Some((started, target, resumed)) = with_batch(|b| {
        let resumed = std::mem::take(&mut b.resumed);
        (b.started, b.target.take(), resumed)
    }) else {
        return;
    };
    set(r, field::AT, &js_number((now_ms() - started).round()));
    if let Some((label, [x, y, w, h])) = target {
        set(r, field::MATCHED, &js_string(&label));
        let bx = object(&[
            ("x", js_number(x.round())),
            ("y", js_number(y.round())),
            ("w", js_number(w.round())),
            ("h", js_number(h.round())),
        ]);
        set(
            r,
            field::TARGET,
            &object(&[(field::LABEL, js_string(&label)), (field::BOX, bx.into())]),
        );
    }
    set(r, field::VIEWPORT, &viewport());
    if resumed {
        set(r, field::URL, &get(&get(&global(), "location"), "href"));
    }
}

/// Records the running step's target (for `matched` and the action log).
pub(crate) fn note(t: &Target) {
    let r = t.el.get_bounding_client_rect();
    let b = [r.x(), r.y(), r.width(), r.height()];
    with_batch(|bt| bt.target = Some((t.label.clone(), b)));
    crate::source::noted(&t.el);
}

/// The results so far with the handover of the steps after `next` (an index into the batch's
/// steps), as the JSON body for `POST {prefix}/results`.
fn handover_body(b: &Batch, results: &Array, next: u32, tab: &str) -> Option<String> {
    let remaining = b.steps.slice(next, b.steps.length());
    let h = object(&[
        (field::TAB, js_string(tab)),
        (field::REMAINING, remaining.into()),
        (field::OFFSET, JsValue::from(b.offset + next)),
    ]);
    // Where the page is going, when known: the host names it if no client starts there.
    let dest = NAVIGATING.with(|n| n.borrow().clone()).or_else(|| b.dest.clone());
    if let Some(url) = dest {
        set(&h, field::URL, &js_string(&url));
    }
    let body = object(&[
        (field::ID, b.id.clone()),
        (field::STEPS, results.clone().into()),
        (field::LOGS, tapped().into()),
        (field::HANDOVER, h.into()),
        (field::DURATION, js_number((now_ms() - b.started).round())),
    ]);
    js_sys::JSON::stringify(&body).ok().map(String::from)
}

/// Posts the results with a request that survives the page's unload.
fn post_keepalive(body: &str) -> Option<Promise> {
    let h = net::host()?;
    let mut url = h.prefix;
    url.push_str(protocol::RESULTS_PATH);
    let init = net::init("POST", Some(&h.key), Some(&JsValue::from_str(body)));
    set(&init, "keepalive", &JsValue::TRUE);
    net::fetch(&url, &init)
}

/// After step `i` (0-based within this batch): when it navigates, posts the results so far with
/// the handover, performs the navigation and waits for the page to leave (or for a same-document
/// navigation to finish, after which this page's next poll gets the remaining steps). `Some` when
/// the batch was handed over (the executor posts nothing more): true when this page leaves, false
/// when it stays (the rest went to a tab the step opened).
pub(crate) async fn hand_over(i: usize) -> Option<bool> {
    let (nav, body) = with_batch(|b| {
        let nav = b.nav.take()?;
        if b.handed {
            // The page already unloaded and handed the batch over from `pagehide`.
            return Some((Nav::Started, None));
        }
        b.handed = true;
        let tab = match &nav {
            Nav::Popup(id) => cat(&[protocol::HANDOVER_TO_PAGE, id]),
            _ => net::tab_id(),
        };
        let body = handover_body(b, &b.results, i as u32 + 1, &tab);
        Some((nav, body))
    })
    .flatten()?;
    if let Some(p) = body.as_deref().and_then(post_keepalive) {
        let _ = JsFuture::from(p).await;
    }
    if matches!(nav, Nav::Popup(_)) {
        end();
        return Some(false);
    }
    let left = leave_watch();
    let loc = get(&global(), "location");
    let history = get(&global(), "history");
    let _ = match nav {
        Nav::Go(url) => call(&loc, "assign", &[&js_string(&url)]),
        Nav::Back => call(&history, "back", &[]),
        Nav::Forward => call(&history, "forward", &[]),
        Nav::Reload => call(&loc, "reload", &[]),
        Nav::Started | Nav::Popup(_) => Ok(JsValue::UNDEFINED),
    };
    let _ = JsFuture::from(left).await;
    end();
    Some(true)
}

/// A promise that resolves when the page leaves, a same-document navigation completes, or after
/// [`LEAVE_MAX_MS`].
fn leave_watch() -> Promise {
    Promise::new(&mut |resolve, _| {
        let g = global();
        for ev in ["pagehide", "hashchange", "popstate"] {
            let _ = call(
                &g,
                "addEventListener",
                &[&js_string(ev), &resolve, &object(&[("once", JsValue::TRUE)])],
            );
        }
        let nav = get(&g, "navigation");
        if nav.is_object() {
            let _ = call(&nav, "addEventListener", &[&js_string("navigatesuccess"), &resolve]);
        }
        let _ = call(&g, "setTimeout", &[&resolve, &JsValue::from(LEAVE_MAX_MS)]);
    })
}

/// The page unloads while a step runs (a navigation nothing announced): hand the rest over.
fn on_pagehide() {
    let body = with_batch(|b| {
        if b.handed {
            return None;
        }
        b.handed = true;
        let results = b.results.slice(0, b.results.length());
        let step = b.steps.get(b.current);
        let text = match NAVIGATING.with(|n| n.borrow().clone()) {
            Some(url) => cat(&[protocol::NAVIGATING_TO, &url]),
            None => "the page unloaded (navigation)".to_owned(),
        };
        let r = object(&[
            (field::INDEX, JsValue::from(b.offset + b.current)),
            (field::COMMAND, get(&step, field::COMMAND)),
            (field::RESULT, js_string(&text)),
        ]);
        if let Some((label, _)) = &b.target {
            set(&r, field::MATCHED, &js_string(label));
        }
        results.push(&r);
        handover_body(b, &results, b.current + 1, &net::tab_id())
    })
    .flatten();
    if let Some(body) = body {
        let _ = post_keepalive(&body);
    }
}

/// Records the destination of a cross-document navigation that starts while a batch runs, in
/// [`NAVIGATING`]: the step that started it (a link click, a form submitted by a click or by Enter,
/// a script) then says where to, and the rest of the batch is handed over. Listening for the whole
/// batch, not only during an action's events, matters: a form submission navigates from a task
/// queued after the click, not inside it.
fn on_navigate(ev: JsValue) {
    if with_batch(|_| ()).is_none() {
        return;
    }
    let dest = get(&ev, "destination");
    let same_doc = get(&dest, "sameDocument").is_truthy()
        || get(&ev, "hashChange").is_truthy()
        || get(&ev, "downloadRequest").is_string();
    // A page whose beforeunload handlers ask to stay is left or kept by the step's policy
    // (a navigation the step itself asked for was checked before its handover).
    if !same_doc && get(&ev, "cancelable").is_truthy() && !MAY_LEAVE.with(|m| m.get()()) {
        let _ = call(&ev, "preventDefault", &[]);
        return;
    }
    if !same_doc {
        let url = get(&dest, "url").as_string().unwrap_or_default();
        NAVIGATING.with(|n| *n.borrow_mut() = Some(url));
    }
}

thread_local! {
    /// Whether the page may be left now, by the batch's dialog policy (the dialogs module's
    /// `may_leave`, given at [`install`]: this module stays below it).
    static MAY_LEAVE: std::cell::Cell<fn() -> bool> = const { std::cell::Cell::new(|| true) };
}

/// Listens for `pagehide` and for navigations (once per page load); `may_leave` answers whether a
/// navigation the page's `beforeunload` handlers object to goes on.
pub(crate) fn install(may_leave: fn() -> bool) {
    MAY_LEAVE.with(|m| m.set(may_leave));
    let cb = Closure::<dyn Fn()>::new(on_pagehide).into_js_value();
    let _ = call(&global(), "addEventListener", &[&js_string("pagehide"), &cb]);
    let nav = get(&global(), "navigation");
    if nav.is_object() {
        let cb = Closure::<dyn Fn(JsValue)>::new(on_navigate).into_js_value();
        let _ = call(&nav, "addEventListener", &[&js_string("navigate"), &cb]);
    }
}
