//! The acting commands: `click`, `dblclick`, `type`, `fill`, `select`, `check`, `uncheck`,
//! `press`, `hover`, `scroll`, `wait`, `evaluate`, `navigate`, `back`, `forward`, `reload`.
//!
//! Each finds its target with [`resolve`], acts as a person would (scroll into view, the pointer
//! and key events in browser order, values through the element's native setter so controlled
//! inputs of React, Vue and Svelte see them) and says what it matched. Every executed step also
//! carries `at` (ms since the batch started), `target` (`{label, box}`) and `viewport`, which the
//! host appends to the page's action log.
//!
//! Page loads: a step that navigates (or a click that starts a navigation) posts the results so far
//! to `POST {prefix}/results` with `handover: {tab, remaining, offset}` before the page unloads;
//! the host gives the remaining steps to the next page of the same tab (`tab=` on every poll, kept
//! in `sessionStorage`), whose first result carries the `url` it ended up at.

use super::executor::Outcome;
use super::resolve::{self, ci_contains, describe, field, Target};
use crate::cursor;
use crate::snapshot::{cat, now_ms, push_number, sleep};
use crate::{as_element, get, set};
use core::future::{ready, Future};
use core::pin::Pin;
use js_sys::{Array, Function, JsString, Object, Promise, Reflect};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Element;

/// How long `wait` waits by default (ms).
const WAIT_DEFAULT_MS: f64 = 5_000.0;
/// How often `wait` looks (ms).
const WAIT_POLL_MS: i32 = 100;
/// How long a page that was told to navigate may take to leave (ms).
const LEAVE_MAX_MS: i32 = 10_000;
/// Longest scroll settle (ms).
const SETTLE_MAX_MS: f64 = 1_000.0;
/// Bounds of `evaluate` results.
const EVAL_DEPTH: u32 = 10;
const EVAL_ITEMS: u32 = 500;
const EVAL_CHARS: u32 = 20_000;
/// Values an evaluate result may hold in all (so 500 × 500 × … cannot explode).
const EVAL_BUDGET: u32 = 20_000;

/// A navigation a step asked for, performed after the handover is posted.
enum Nav {
    Go(String),
    Back,
    Forward,
    Reload,
    /// Already under way (a click on a link, a form submission).
    Started,
}

struct Batch {
    id: JsValue,
    steps: Array,
    results: Array,
    offset: u32,
    started: f64,
    /// Index (in `steps`) of the step running now.
    current: u32,
    /// The running step's target: label and box.
    target: Option<(String, [f64; 4])>,
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
    static BATCH: RefCell<Option<Batch>> = const { RefCell::new(None) };
    /// The element the pointer is over (for enter/leave events).
    static HOVERED: RefCell<Option<Element>> = const { RefCell::new(None) };
    /// A text field without a selection API (email, number) whose whole value `Control+a` selected.
    static SELECTED_ALL: RefCell<Option<Element>> = const { RefCell::new(None) };
    /// The document whose `:hover` rules were mirrored, the size of its sheets then, and whether
    /// it had any.
    static HOVER_MIRRORED: RefCell<Option<(JsValue, f64, bool)>> = const { RefCell::new(None) };
    /// It and its ancestors, which carry the `:hover` stand-in attribute.
    static HOVER_CHAIN: RefCell<Vec<Element>> = const { RefCell::new(Vec::new()) };
    /// The destination of a cross-document navigation that started during an action.
    static NAVIGATING: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn with_batch<R>(f: impl FnOnce(&mut Batch) -> R) -> Option<R> {
    BATCH.with(|b| b.try_borrow_mut().ok()?.as_mut().map(f))
}

fn global() -> JsValue {
    js_sys::global().into()
}

fn s(v: &str) -> JsValue {
    JsValue::from_str(v)
}

fn n(v: f64) -> JsValue {
    JsValue::from_f64(v)
}

/// Calls `obj[method](...args)`.
fn call(obj: &JsValue, method: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(obj, method).dyn_into().map_err(|_| s(method))?;
    let a = Array::new();
    for x in args {
        a.push(x);
    }
    Reflect::apply(&f, obj, &a)
}

fn obj(pairs: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    for (k, v) in pairs {
        set(&o, k, v);
    }
    o
}

/// Dispatches `new <ctor>(ty, init)` on `target`; false when a listener cancelled it.
fn fire(target: &JsValue, ctor: &str, ty: &str, init: &Object) -> bool {
    let c = get(&global(), ctor)
        .dyn_into::<Function>()
        .or_else(|_| get(&global(), "Event").dyn_into::<Function>());
    let Ok(c) = c else { return true };
    let Ok(ev) = Reflect::construct(&c, &Array::of2(&s(ty), init)) else {
        return true;
    };
    call(target, "dispatchEvent", &[&ev]).map_or(true, |v| v.is_truthy())
}

fn base(bubbles: bool) -> Object {
    obj(&[
        ("bubbles", JsValue::from_bool(bubbles)),
        ("cancelable", JsValue::from_bool(bubbles)),
        ("composed", JsValue::TRUE),
        ("view", global()),
    ])
}

fn mouse(x: f64, y: f64, buttons: u32, detail: u32, bubbles: bool) -> Object {
    let o = base(bubbles);
    for (k, v) in [
        ("clientX", x),
        ("clientY", y),
        ("screenX", x),
        ("screenY", y),
        ("button", 0.0),
        ("buttons", f64::from(buttons)),
        ("detail", f64::from(detail)),
        ("pointerId", 1.0),
        ("width", 1.0),
        ("height", 1.0),
        ("pressure", if buttons > 0 { 0.5 } else { 0.0 }),
    ] {
        set(&o, k, &n(v));
    }
    set(&o, "pointerType", &s("mouse"));
    set(&o, "isPrimary", &JsValue::TRUE);
    o
}

// ---------------------------------------------------------------------------------------------
// The batch: hooks the executor calls, the session log fields, the handover.

/// A batch starts; returns the index of its first step (`offset` when handed over).
pub(crate) fn batch_start(batch: &JsValue, results: &Array) -> u32 {
    let offset = get(batch, "offset").as_f64().unwrap_or(0.0).max(0.0) as u32;
    let b = Batch {
        id: get(batch, "id"),
        steps: get(batch, "steps").dyn_into::<Array>().unwrap_or_default(),
        results: results.clone(),
        offset,
        started: now_ms(),
        current: 0,
        target: None,
        nav: None,
        handed: false,
        resumed: get(batch, "offset").as_f64().is_some(),
        deadline: get(batch, "timeoutMs").as_f64().map(|ms| now_ms() + ms),
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

/// The batch ended in this page.
pub(crate) fn batch_end() {
    BATCH.with(|s| s.borrow_mut().take());
    cursor::batch_end();
}

fn viewport() -> Object {
    let w = global();
    obj(&[("w", get(&w, "innerWidth")), ("h", get(&w, "innerHeight"))])
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
    set(r, "at", &n((now_ms() - started).round()));
    if let Some((label, [x, y, w, h])) = target {
        set(r, "matched", &s(&label));
        let bx = obj(&[
            ("x", n(x.round())),
            ("y", n(y.round())),
            ("w", n(w.round())),
            ("h", n(h.round())),
        ]);
        set(r, "target", &obj(&[("label", s(&label)), ("box", bx.into())]));
    }
    set(r, "viewport", &viewport());
    if resumed {
        set(r, "url", &get(&get(&global(), "location"), "href"));
    }
}

/// Records the running step's target (for `matched` and the action log).
fn note(t: &Target) {
    let r = t.el.get_bounding_client_rect();
    let b = [r.x(), r.y(), r.width(), r.height()];
    with_batch(|bt| bt.target = Some((t.label.clone(), b)));
}

/// The results so far with the handover of the steps after `next` (an index into the batch's
/// steps), as the JSON body for `POST {prefix}/results`.
fn handover_body(b: &Batch, results: &Array, next: u32) -> Option<String> {
    let remaining = b.steps.slice(next, b.steps.length());
    let h = obj(&[
        ("tab", s(&super::tab_id())),
        ("remaining", remaining.into()),
        ("offset", JsValue::from(b.offset + next)),
    ]);
    // Where the page is going, when known: the host names it if no client starts there.
    let dest = NAVIGATING.with(|n| n.borrow().clone()).or_else(|| b.dest.clone());
    if let Some(url) = dest {
        set(&h, "url", &s(&url));
    }
    let body = obj(&[
        ("id", b.id.clone()),
        ("steps", results.clone().into()),
        ("logs", super::executor::tapped().into()),
        ("handover", h.into()),
        ("duration", n((now_ms() - b.started).round())),
    ]);
    js_sys::JSON::stringify(&body).ok().map(String::from)
}

/// Posts the results with a request that survives the page's unload.
fn post_keepalive(body: &str) -> Option<Promise> {
    let h = super::host()?;
    let mut url = h.prefix;
    url.push_str(browser_agent_core::protocol::RESULTS_PATH);
    let init = super::init("POST", &h.key, Some(body));
    set(&init, "keepalive", &JsValue::TRUE);
    super::fetch(&url, &init)
}

/// After step `i` (0-based within this batch): when it navigates, posts the results so far with
/// the handover, performs the navigation and waits for the page to leave (or for a same-document
/// navigation to finish, after which this page's next poll gets the remaining steps). True when
/// the batch was handed over (the executor posts nothing more).
pub(crate) async fn hand_over(i: usize) -> bool {
    let Some((nav, body)) = with_batch(|b| {
        let nav = b.nav.take()?;
        if b.handed {
            // The page already unloaded and handed the batch over from `pagehide`.
            return Some((Nav::Started, None));
        }
        b.handed = true;
        let body = handover_body(b, &b.results, i as u32 + 1);
        Some((nav, body))
    })
    .flatten() else {
        return false;
    };
    if let Some(p) = body.as_deref().and_then(post_keepalive) {
        let _ = JsFuture::from(p).await;
    }
    let left = leave_watch();
    let loc = get(&global(), "location");
    let history = get(&global(), "history");
    let _ = match nav {
        Nav::Go(url) => call(&loc, "assign", &[&s(&url)]),
        Nav::Back => call(&history, "back", &[]),
        Nav::Forward => call(&history, "forward", &[]),
        Nav::Reload => call(&loc, "reload", &[]),
        Nav::Started => Ok(JsValue::UNDEFINED),
    };
    let _ = JsFuture::from(left).await;
    BATCH.with(|s| s.borrow_mut().take());
    cursor::batch_end();
    true
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
                &[&s(ev), &resolve, &obj(&[("once", JsValue::TRUE)])],
            );
        }
        let nav = get(&g, "navigation");
        if nav.is_object() {
            let _ = call(&nav, "addEventListener", &[&s("navigatesuccess"), &resolve]);
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
            Some(url) => cat(&["navigating to ", &url]),
            None => "the page unloaded (navigation)".to_owned(),
        };
        let r = obj(&[
            ("index", JsValue::from(b.offset + b.current)),
            ("command", get(&step, "command")),
            ("result", s(&text)),
        ]);
        if let Some((label, _)) = &b.target {
            set(&r, "matched", &s(label));
        }
        results.push(&r);
        handover_body(b, &results, b.current + 1)
    })
    .flatten();
    if let Some(body) = body {
        let _ = post_keepalive(&body);
    }
}

/// Listens for `pagehide` and for navigations (once per page load).
pub(crate) fn install() {
    let cb = Closure::<dyn Fn()>::new(on_pagehide).into_js_value();
    let _ = call(&global(), "addEventListener", &[&s("pagehide"), &cb]);
    let nav = get(&global(), "navigation");
    if nav.is_object() {
        let cb = Closure::<dyn Fn(JsValue)>::new(on_navigate).into_js_value();
        let _ = call(&nav, "addEventListener", &[&s("navigate"), &cb]);
    }
}

// ---------------------------------------------------------------------------------------------
// Dispatch.

/// Runs the acting command `command`; `Unknown command` for anything else.
pub(crate) async fn run(command: &str, step: &JsValue) -> Outcome {
    with_batch(|b| {
        let i = b.steps.index_of(step, 0);
        if i >= 0 {
            b.current = i as u32;
        }
        b.target = None;
    });
    let fut: Pin<Box<dyn Future<Output = Outcome> + '_>> = match command {
        "click" => Box::pin(click(step, 1)),
        "dblclick" => Box::pin(click(step, 2)),
        "type" => Box::pin(type_text(step, false)),
        "fill" => Box::pin(type_text(step, true)),
        "select" => Box::pin(select(step)),
        "check" => Box::pin(check(step, true)),
        "uncheck" => Box::pin(check(step, false)),
        "press" => Box::pin(press(step)),
        "hover" => Box::pin(hover(step)),
        "scroll" => Box::pin(scroll(step)),
        "wait" => Box::pin(wait(step)),
        "evaluate" => Box::pin(evaluate(step)),
        "navigate" => Box::pin(ready(navigate(step))),
        "back" => Box::pin(ready(history_step(Nav::Back, "back"))),
        "forward" => Box::pin(ready(history_step(Nav::Forward, "forward"))),
        "reload" => {
            with_batch(|b| b.nav = Some(Nav::Reload));
            Box::pin(ready(Ok(s("reloading"))))
        }
        _ => Box::pin(ready(Err(cat(&[
            "Unknown command: ",
            command,
            ". Commands: ",
            &browser_agent_core::protocol::COMMANDS.join(", "),
        ])))),
    };
    let out = fut.await;
    // An action that started a cross-document navigation: its result says where to.
    match (out, NAVIGATING.with(|n| n.borrow_mut().take())) {
        (Ok(v), Some(url)) => {
            with_batch(|b| {
                b.nav = Some(Nav::Started);
                b.dest = Some(url.clone());
            });
            let mut text = v.as_string().unwrap_or_else(|| "ok".to_owned());
            text.push_str("; navigating to ");
            text.push_str(&url);
            Ok(s(&text))
        }
        (out, _) => out,
    }
}

fn target(step: &JsValue, typing: bool) -> Result<Target, String> {
    let t = resolve::resolve(step, typing, true)?;
    note(&t);
    Ok(t)
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
    if !same_doc {
        let url = get(&dest, "url").as_string().unwrap_or_default();
        NAVIGATING.with(|n| *n.borrow_mut() = Some(url));
    }
}

// ---------------------------------------------------------------------------------------------
// Pointer.

fn rect(el: &Element) -> (f64, f64, f64, f64) {
    let r = el.get_bounding_client_rect();
    (r.x(), r.y(), r.width(), r.height())
}

fn in_viewport(el: &Element) -> bool {
    let (x, y, w, h) = rect(el);
    // The element's own window: a frame's elements measure against the frame's viewport.
    let g = window_of(el);
    let vw = get(&g, "innerWidth").as_f64().unwrap_or(0.0);
    let vh = get(&g, "innerHeight").as_f64().unwrap_or(0.0);
    x >= 0.0 && y >= 0.0 && x + w <= vw && y + h <= vh
}

/// Scrolls `el` to the middle of its scroll containers unless it is fully visible, and waits until
/// it stops moving.
async fn scroll_into_view(el: &Element) {
    if in_viewport(el) {
        return;
    }
    let behavior = if cursor::enabled() { "smooth" } else { "instant" };
    let opts = obj(&[
        ("block", s("center")),
        ("inline", s("nearest")),
        ("behavior", s(behavior)),
    ]);
    let _ = call(el, "scrollIntoView", &[&opts]);
    let start = now_ms();
    let mut last = rect(el);
    let mut still = 0;
    while now_ms() - start < SETTLE_MAX_MS && still < 2 {
        sleep(if cursor::enabled() { 30 } else { 0 }).await;
        let r = rect(el);
        if (r.0 - last.0).abs() < 0.5 && (r.1 - last.1).abs() < 0.5 {
            still += 1;
        } else {
            still = 0;
        }
        last = r;
    }
}

fn centre(el: &Element) -> (f64, f64) {
    let (x, y, w, h) = rect(el);
    (x + w / 2.0, y + h / 2.0)
}

/// The element at a point in `el`'s document or shadow root.
fn hit(el: &Element, x: f64, y: f64) -> Option<Element> {
    let root = el.get_root_node();
    let root: JsValue = if get(&root, "elementFromPoint").is_function() {
        root.into()
    } else {
        get(&global(), "document")
    };
    as_element(call(&root, "elementFromPoint", &[&n(x), &n(y)]).ok()?)
}

fn disabled(el: &Element) -> bool {
    el.matches(":disabled").unwrap_or(false) || el.closest("[aria-disabled=true]").ok().flatten().is_some()
}

/// Where a pointer action lands: the element at the target's centre when it is the target or
/// inside it (or the target's `<label>`). Otherwise an error naming what covers it.
fn landing(t: &Target) -> Result<(Element, f64, f64), String> {
    let el = &t.el;
    let (x, y) = centre(el);
    let Some(top) = hit(el, x, y) else {
        return Err(cat(&[
            &t.label,
            " is outside the visible area even after scrolling (at ",
            &num(x),
            ", ",
            &num(y),
            ")",
        ]));
    };
    if el.contains(Some(&top)) {
        return Ok((top, x, y));
    }
    let label_of_target = top
        .closest("label")
        .ok()
        .flatten()
        .is_some_and(|l| get(&l, "control") == JsValue::from(el.clone()));
    if label_of_target {
        return Ok((top, x, y));
    }
    // What covers it: the outermost ancestor of the hit element that does not contain the target.
    let mut cover = top.clone();
    while let Some(p) = cover.parent_element() {
        if p.contains(Some(el)) {
            break;
        }
        cover = p;
    }
    let mut m = cat(&[&t.label, " is covered by ", &describe_cover(&top, &cover)]);
    let buttons: Vec<String> = cover
        .query_selector_all("button, a[href], [role=button]")
        .ok()
        .map(|l| {
            (0..l.length())
                .filter_map(|i| l.item(i))
                .map(|n| n.unchecked_into::<Element>())
                .filter(|b| resolve::hidden_reason(b).is_none())
                .take(3)
                .map(|b| describe(&b))
                .collect()
        })
        .unwrap_or_default();
    if buttons.is_empty() {
        m.push_str("; it would get the click. Close or remove it first");
    } else {
        m.push_str("; it would get the click. Close it first, e.g. with ");
        m.push_str(&buttons.join(" or "));
    }
    Err(m)
}

fn describe_cover(top: &Element, cover: &Element) -> String {
    let mut d = resolve::short(cover);
    if top != cover {
        let inner = describe(top);
        if !inner.starts_with(top.local_name().as_str()) || inner != d {
            d.push_str(" (");
            d.push_str(&inner);
            d.push(')');
        }
    }
    d
}

fn num(v: f64) -> String {
    let mut out = String::new();
    if v < 0.0 {
        out.push('-');
    }
    push_number(&mut out, v.abs().round() as u32);
    out
}

/// Focuses what a press at `el` focuses: its nearest focusable ancestor-or-self; otherwise the
/// focused element loses focus.
fn focus_for_press(el: &Element) {
    let focusable = el
        .closest("a[href],button,input,select,textarea,summary,iframe,[tabindex],[contenteditable]")
        .ok()
        .flatten();
    match focusable {
        Some(f) => {
            let _ = call(&f, "focus", &[]);
        }
        None => {
            let active = get(&get(&global(), "document"), "activeElement");
            if active.is_object() && get(&active, "localName").as_string().as_deref() != Some("body") {
                let _ = call(&active, "blur", &[]);
            }
        }
    }
}

/// pointerdown, mousedown, focus, pointerup, mouseup, click (and dblclick after the second).
fn press_sequence(at: &Element, x: f64, y: f64, clicks: u32) {
    for detail in 1..=clicks {
        let down = fire(at, "PointerEvent", "pointerdown", &mouse(x, y, 1, detail, true));
        if down {
            let md = fire(at, "MouseEvent", "mousedown", &mouse(x, y, 1, detail, true));
            if md {
                focus_for_press(at);
            }
        }
        fire(at, "PointerEvent", "pointerup", &mouse(x, y, 0, detail, true));
        if down {
            fire(at, "MouseEvent", "mouseup", &mouse(x, y, 0, detail, true));
        }
        // Also runs the element's activation (a link follows, a checkbox toggles, a form submits).
        fire(at, "PointerEvent", "click", &mouse(x, y, 0, detail, true));
    }
    if clicks == 2 {
        fire(at, "MouseEvent", "dblclick", &mouse(x, y, 0, 2, true));
    }
}

/// Scrolls, checks, moves the cursor and clicks `t` (`clicks` times).
async fn click_target(t: &Target, clicks: u32) -> Result<(), String> {
    if disabled(&t.el) {
        return Err(cat(&[&t.label, " is disabled"]));
    }
    scroll_into_view(&t.el).await;
    note(t);
    let (at, x, y) = landing(t)?;
    cursor::move_to(x, y).await;
    hover_at(&at, x, y);
    cursor::press().await;
    press_sequence(&at, x, y, clicks);
    if NAVIGATING.with(|n| n.borrow().is_some()) {
        // The page is about to go: hand the batch over before it does.
        return Ok(());
    }
    cursor::release().await;
    // Let the page's handlers (timers, microtasks, re-renders) run before the next step.
    sleep(if cursor::enabled() { 120 } else { 20 }).await;
    Ok(())
}

async fn click(step: &JsValue, clicks: u32) -> Outcome {
    let t = target(step, false)?;
    click_target(&t, clicks).await?;
    let mut out = String::from(if clicks == 2 { "double-clicked" } else { "clicked" });
    if get(&t.el, "type").as_string().as_deref() == Some("submit") {
        if let Some(why) = blocked_submit(&get(&t.el, "form")) {
            out.push_str(&why);
        }
    }
    if let Some(href) = new_window_link(&t.el) {
        // A scripted click may not open windows (the popup blocker): nothing visible happened.
        out.push_str(
            "; the link opens a new window (target), which the browser blocks for a scripted click: navigate to ",
        );
        out.push_str(&href);
        out.push_str(" instead");
    }
    Ok(s(&out))
}

/// The URL of the link `el` is in, when it opens in another window (`target="_blank"` or a name).
fn new_window_link(el: &Element) -> Option<String> {
    let a = el.closest("a[href][target]").ok()??;
    let target = a.get_attribute("target")?.to_ascii_lowercase();
    if target.is_empty() || matches!(target.as_str(), "_self" | "_top" | "_parent") {
        return None;
    }
    get(&a, "href").as_string()
}

/// Why the browser refused to submit `form` (its own validation, as a person would see in the
/// bubble): `; the form was not submitted: textbox "Email" [ref=e3]: Please include an '@' …`.
/// Read with `:invalid`, which, unlike `checkValidity()`, fires no `invalid` events.
fn blocked_submit(form: &JsValue) -> Option<String> {
    if !form.is_object() || get(form, "noValidate").is_truthy() || NAVIGATING.with(|n| n.borrow().is_some()) {
        return None;
    }
    // The first invalid field (a fieldset holding one is `:invalid` too, but says nothing).
    let fields = s("input:invalid, select:invalid, textarea:invalid");
    let field = as_element(call(form, "querySelector", &[&fields]).ok()?)?;
    let message = get(&field, "validationMessage").as_string().unwrap_or_default();
    Some(cat(&[
        "; the form was not submitted: ",
        &describe(&field),
        ": ",
        &message,
    ]))
}

/// Moves the pointer onto `at`: leave/out events for what it leaves, enter/over/move for `at`.
fn hover_at(at: &Element, x: f64, y: f64) {
    let prev = HOVERED.with(|h| h.borrow_mut().replace(at.clone()));
    if prev.as_ref() == Some(at) {
        return;
    }
    let mut entered: Vec<Element> = Vec::new();
    let mut cur = Some(at.clone());
    while let Some(e) = cur {
        if prev.as_ref().is_some_and(|p| e.contains(Some(p))) {
            break;
        }
        cur = e.parent_element();
        entered.push(e);
    }
    if let Some(p) = prev.filter(|p| p.is_connected()) {
        fire(&p, "PointerEvent", "pointerout", &mouse(x, y, 0, 0, true));
        fire(&p, "MouseEvent", "mouseout", &mouse(x, y, 0, 0, true));
        let mut cur = Some(p);
        while let Some(e) = cur {
            if e.contains(Some(at)) {
                break;
            }
            fire(&e, "PointerEvent", "pointerleave", &mouse(x, y, 0, 0, false));
            fire(&e, "MouseEvent", "mouseleave", &mouse(x, y, 0, 0, false));
            cur = e.parent_element();
        }
    }
    fire(at, "PointerEvent", "pointerover", &mouse(x, y, 0, 0, true));
    fire(at, "MouseEvent", "mouseover", &mouse(x, y, 0, 0, true));
    for e in entered.iter().rev() {
        fire(e, "PointerEvent", "pointerenter", &mouse(x, y, 0, 0, false));
        fire(e, "MouseEvent", "mouseenter", &mouse(x, y, 0, 0, false));
    }
    fire(at, "PointerEvent", "pointermove", &mouse(x, y, 0, 0, true));
    fire(at, "MouseEvent", "mousemove", &mouse(x, y, 0, 0, true));
    hover_state(at);
}

/// Stands in for `:hover`, which synthetic events cannot set: the element under the agent's
/// pointer and its ancestors (across shadow hosts) carry this attribute, and the page's `:hover`
/// rules are mirrored with the attribute in their place (same specificity, later in the cascade),
/// so CSS-only hover menus open as they would for a person. Moves with the pointer.
const HOVER_ATTR: &str = "data-browser-agent-hover";
/// The id of the `<style>` holding the mirrored rules.
const HOVER_STYLE_ID: &str = "__browser-agent-hover";

#[inline(never)]
fn hover_state(at: &Element) {
    HOVER_CHAIN.with(|chain| {
        let mut chain = chain.borrow_mut();
        for e in chain.drain(..) {
            let _ = e.remove_attribute(HOVER_ATTR);
        }
        let mut cur = Some(at.clone());
        while let Some(e) = cur {
            let _ = e.set_attribute(HOVER_ATTR, "");
            cur = e
                .parent_element()
                .or_else(|| as_element(get(&e.get_root_node(), "host")));
            chain.push(e);
        }
    });
    let doc = get(at, "ownerDocument");
    // The page's sheets (not ours): their rules are mirrored again only when they changed (a
    // count of sheets and rules), not on every pointer move of every click.
    let sheets = get(&doc, "styleSheets");
    let mut page_sheets = Vec::new();
    let mut size = 0.0;
    for i in 0..get(&sheets, "length").as_f64().unwrap_or(0.0) as u32 {
        let sheet = Reflect::get_u32(&sheets, i).unwrap_or_default();
        if get(&get(&sheet, "ownerNode"), "id").as_string().as_deref() == Some(HOVER_STYLE_ID) {
            continue;
        }
        // Cross-origin sheets throw on `cssRules`: their rules stay out of reach, as for the page.
        if let Ok(rules) = Reflect::get(&sheet, &s("cssRules")) {
            size += 1.0 + get(&rules, "length").as_f64().unwrap_or(0.0);
            page_sheets.push(rules);
        }
    }
    let existing = get(&doc, "getElementById")
        .dyn_into::<Function>()
        .ok()
        .and_then(|f| f.call1(&doc, &s(HOVER_STYLE_ID)).ok())
        .filter(|v| v.is_object());
    // Up to date: same sheets, and our `<style>` still there if there was anything to mirror.
    let current = HOVER_MIRRORED.with(|m| {
        m.borrow()
            .as_ref()
            .is_some_and(|(d, n, any)| *d == doc && *n == size && (!any || existing.is_some()))
    });
    if current {
        return;
    }
    let mut css = JsString::from("");
    for rules in &page_sheets {
        css = css.concat(&hover_rules(rules));
    }
    let mut style = existing;
    if style.is_none() && css.length() > 0 {
        style = call(&doc, "createElement", &[&s("style")]).ok();
        if let Some(st) = &style {
            set(st, "id", &s(HOVER_STYLE_ID));
            let _ = call(st, "setAttribute", &[&s("data-browser-agent-ui"), &s("")]);
            let _ = call(&get(&doc, "documentElement"), "appendChild", &[st]);
        }
    }
    let any = css.length() > 0;
    if let Some(st) = style {
        set(&st, "textContent", &css);
    }
    HOVER_MIRRORED.with(|m| *m.borrow_mut() = Some((doc, size, any)));
}

/// The `:hover` rules of a rule list (inside their `@media`/`@supports`/`@layer` blocks), with the
/// attribute in place of `:hover`. (JS strings throughout: CSS text never needs to cross into wasm.)
fn hover_rules(rules: &JsValue) -> JsString {
    let mut out = JsString::from("");
    for i in 0..get(rules, "length").as_f64().unwrap_or(0.0) as u32 {
        let rule = Reflect::get_u32(rules, i).unwrap_or_default();
        let text: JsString = get(&rule, "cssText").dyn_into().unwrap_or_else(|_| JsString::from(""));
        if !text.includes(":hover", 0) {
            continue;
        }
        let selector = get(&rule, "selectorText");
        if let Some(sel) = selector.dyn_ref::<JsString>() {
            if sel.includes(":hover", 0) {
                out = out
                    .concat(&text.replace_all(":hover", "[data-browser-agent-hover]"))
                    .concat(&s("\n"));
            }
        } else if get(&rule, "cssRules").is_object() {
            // A block: its header as written, then only its hover rules.
            let inner = hover_rules(&get(&rule, "cssRules"));
            let open = text.index_of("{", 0);
            if open > 0 && inner.length() > 0 {
                out = out
                    .concat(&text.slice(0, open as u32))
                    .concat(&s("{\n"))
                    .concat(&inner)
                    .concat(&s("}\n"));
            }
        }
    }
    out
}

async fn hover(step: &JsValue) -> Outcome {
    let t = target(step, false)?;
    scroll_into_view(&t.el).await;
    note(&t);
    let (at, x, y) = landing(&t)?;
    cursor::move_to(x, y).await;
    hover_at(&at, x, y);
    sleep(if cursor::enabled() { 120 } else { 20 }).await;
    Ok(s("hovered"))
}

// ---------------------------------------------------------------------------------------------
// Text entry.

/// The window an element lives in (frames have their own prototypes).
fn window_of(el: &Element) -> JsValue {
    let w = get(&get(el, "ownerDocument"), "defaultView");
    if w.is_object() {
        w
    } else {
        global()
    }
}

/// Sets `el[prop] = v` through the prototype's own setter (what React's value tracker misses).
fn native_set(el: &Element, prop: &str, v: &JsValue) {
    let class = match el.local_name().as_str() {
        "input" => "HTMLInputElement",
        "textarea" => "HTMLTextAreaElement",
        "select" => "HTMLSelectElement",
        _ => "",
    };
    let proto = get(&get(&window_of(el), class), "prototype");
    let setter = if proto.is_object() {
        get(
            &Object::get_own_property_descriptor(proto.unchecked_ref::<Object>(), &s(prop)),
            "set",
        )
    } else {
        JsValue::UNDEFINED
    };
    match setter.dyn_into::<Function>() {
        Ok(f) => {
            let _ = f.call1(el, v);
        }
        Err(_) => set(el, prop, v),
    }
}

fn value(el: &Element) -> String {
    get(el, "value").as_string().unwrap_or_default()
}

fn editable(el: &Element) -> bool {
    get(el, "isContentEditable").is_truthy()
}

fn text_field(el: &Element) -> bool {
    match el.local_name().as_str() {
        "textarea" => true,
        "input" => !matches!(
            get(el, "type").as_string().as_deref(),
            Some(
                "checkbox" | "radio" | "button" | "submit" | "reset" | "file" | "image" | "hidden" | "range" | "color"
            )
        ),
        _ => false,
    }
}

fn key_init(key: &str, code: &str, mods: Mods) -> Object {
    let o = base(true);
    set(&o, "key", &s(key));
    set(&o, "code", &s(code));
    let kc = key_code(key);
    set(&o, "keyCode", &JsValue::from(kc));
    set(&o, "which", &JsValue::from(kc));
    set(&o, "ctrlKey", &JsValue::from_bool(mods.ctrl));
    set(&o, "shiftKey", &JsValue::from_bool(mods.shift));
    set(&o, "altKey", &JsValue::from_bool(mods.alt));
    set(&o, "metaKey", &JsValue::from_bool(mods.meta));
    o
}

fn input_init(kind: &str, data: Option<&str>) -> Object {
    let o = obj(&[
        ("bubbles", JsValue::TRUE),
        ("composed", JsValue::TRUE),
        ("inputType", s(kind)),
    ]);
    if let Some(d) = data {
        set(&o, "data", &s(d));
    }
    o
}

fn key_code(key: &str) -> u32 {
    match key {
        "Enter" => 13,
        "Tab" => 9,
        "Backspace" => 8,
        "Escape" => 27,
        " " => 32,
        "Delete" => 46,
        "ArrowLeft" => 37,
        "ArrowUp" => 38,
        "ArrowRight" => 39,
        "ArrowDown" => 40,
        "Home" => 36,
        "End" => 35,
        "PageUp" => 33,
        "PageDown" => 34,
        "Shift" => 16,
        "Control" => 17,
        "Alt" => 18,
        "Meta" => 91,
        _ => {
            let mut c = key.chars();
            match (c.next(), c.next()) {
                (Some(ch), None) if ch.is_ascii_alphanumeric() => ch.to_ascii_uppercase() as u32,
                (Some(ch), None) => ch as u32,
                _ => 0,
            }
        }
    }
}

fn code_of(key: &str) -> String {
    let mut c = key.chars();
    match (c.next(), c.next()) {
        (Some(ch), None) if ch.is_ascii_alphabetic() => cat(&["Key", &String::from(ch.to_ascii_uppercase())]),
        (Some(ch), None) if ch.is_ascii_digit() => cat(&["Digit", &String::from(ch)]),
        (Some(' '), None) => "Space".to_owned(),
        (Some(_), None) => String::new(),
        _ => key.to_owned(),
    }
}

/// Puts the caret at the end of a contenteditable element.
fn caret_to_end(el: &Element, select_all: bool) {
    let Ok(sel) = call(&window_of(el), "getSelection", &[]) else {
        return;
    };
    let _ = call(&sel, "selectAllChildren", &[el]);
    if !select_all {
        let _ = call(&sel, "collapseToEnd", &[]);
    }
}

fn exec_command(el: &Element, cmd: &str, arg: &str) -> bool {
    let doc = get(el, "ownerDocument");
    call(&doc, "execCommand", &[&s(cmd), &JsValue::FALSE, &s(arg)]).is_ok_and(|v| v.is_truthy())
}

/// Inserts `text` where a person's typing would put it, with the input events.
fn insert(el: &Element, text: &str) {
    if editable(el) {
        if !exec_command(el, "insertText", text) {
            let doc = get(el, "ownerDocument");
            if let Ok(node) = call(&doc, "createTextNode", &[&s(text)]) {
                let _ = call(el, "appendChild", &[&node]);
            }
            fire(el, "InputEvent", "input", &input_init("insertText", Some(text)));
        }
        return;
    }
    let v = JsString::from(value(el));
    let len = v.length();
    let (start, end) = selection(el, len);
    let new = v.slice(0, start).concat(&s(text)).concat(&v.slice(end, len));
    native_set(el, "value", &new);
    let caret = JsValue::from(start + JsString::from(text).length());
    let _ = call(el, "setSelectionRange", &[&caret, &caret]);
    fire(el, "InputEvent", "input", &input_init("insertText", Some(text)));
}

/// The selection in a text field of `len` UTF-16 units. Email and number inputs have no selection
/// API (`selectionStart` is null): there the caret is at the end, unless `Control+a` selected it
/// all (remembered in [`SELECTED_ALL`] until the next edit).
fn selection(el: &Element, len: u32) -> (u32, u32) {
    let all = SELECTED_ALL.with(|a| a.borrow_mut().take()).is_some_and(|a| a == *el);
    match (get(el, "selectionStart").as_f64(), get(el, "selectionEnd").as_f64()) {
        (Some(a), Some(b)) => {
            let end = (b as u32).min(len);
            ((a as u32).min(end), end)
        }
        _ if all => (0, len),
        _ => (len, len),
    }
}

/// Deletes the selection, or the character before the caret.
fn delete_back(el: &Element) {
    if editable(el) {
        exec_command(el, "delete", "");
        return;
    }
    let v = JsString::from(value(el));
    let len = v.length();
    let (mut start, end) = selection(el, len);
    if start == end {
        if start == 0 {
            return;
        }
        start -= 1;
    }
    native_set(el, "value", &v.slice(0, start).concat(&v.slice(end, len)));
    let caret = JsValue::from(start);
    let _ = call(el, "setSelectionRange", &[&caret, &caret]);
    fire(el, "InputEvent", "input", &input_init("deleteContentBackward", None));
}

/// One printable key: keydown, keypress, the text, keyup.
fn key_char(el: &Element, ch: &str) {
    let init = key_init(ch, &code_of(ch), Mods::default());
    if fire(el, "KeyboardEvent", "keydown", &init) && fire(el, "KeyboardEvent", "keypress", &init) {
        insert(el, ch);
    }
    fire(el, "KeyboardEvent", "keyup", &init);
}

fn quote(v: &str) -> String {
    let mut out = String::from("\"");
    for (i, c) in v.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// `type` (each character) and `fill` (the whole value at once).
async fn type_text(step: &JsValue, whole: bool) -> Outcome {
    let text = get(step, "text").as_string().or_else(|| get(step, "value").as_string());
    let Some(text) = text else {
        return Err("type and fill need \"text\": the text to enter (the target comes from ref, label, placeholder, role with name, or selector)".to_owned());
    };
    let t = target(step, true)?;
    let el = t.el.clone();
    if !text_field(&el) && !editable(&el) {
        return Err(cat(&[
            &t.label,
            " is not a text field (type and fill need an input, a textarea or a contenteditable element)",
        ]));
    }
    if disabled(&el) {
        return Err(cat(&[&t.label, " is disabled"]));
    }
    if el.has_attribute("readonly") {
        return Err(cat(&[&t.label, " is read-only"]));
    }
    scroll_into_view(&el).await;
    note(&t);
    let (x, y, w, h) = rect(&el);
    cursor::move_to(x + (0.3 * w).max(16.0).min(w / 2.0), y + h / 2.0).await;
    let _ = call(&el, "focus", &[]);
    let clear = whole || get(step, "clear").is_truthy();
    let is_edit = editable(&el);
    if is_edit {
        caret_to_end(&el, clear);
        if clear && !el.text_content().unwrap_or_default().is_empty() {
            exec_command(&el, "delete", "");
        }
    } else {
        if clear && !value(&el).is_empty() {
            native_set(&el, "value", &s(""));
            fire(&el, "InputEvent", "input", &input_init("deleteContentBackward", None));
        }
        // The caret goes to the end, as after a click at the end of the text.
        let end = JsValue::from(JsString::from(value(&el)).length());
        let _ = call(&el, "setSelectionRange", &[&end, &end]);
    }
    if whole {
        if is_edit {
            insert(&el, &text);
        } else {
            native_set(&el, "value", &s(&text));
            fire(
                &el,
                "InputEvent",
                "input",
                &input_init("insertReplacementText", Some(&text)),
            );
        }
    } else {
        let count = crate::snapshot::char_count(&text).max(1) as f64;
        let delay = if cursor::enabled() {
            (1500.0 / count).min(40.0) as i32
        } else {
            0
        };
        let mut buf = [0u8; 4];
        for ch in text.chars() {
            if ch == '\n' && !is_edit && el.local_name() == "input" {
                continue;
            }
            key_char(&el, ch.encode_utf8(&mut buf));
            if delay > 0 {
                sleep(delay).await;
            }
        }
    }
    if !is_edit {
        fire(&el, "Event", "change", &base(true));
    }
    let verb = if whole { "filled " } else { "typed " };
    let mut out = cat(&[verb, &quote(&text)]);
    let now = if is_edit {
        el.text_content().unwrap_or_default()
    } else {
        value(&el)
    };
    if !is_edit && !ci_contains(&now, &text) {
        out.push_str("; the field now holds ");
        out.push_str(&quote(&now));
    }
    Ok(s(&out))
}

// ---------------------------------------------------------------------------------------------
// Choices.

async fn select(step: &JsValue) -> Outcome {
    let want = field(step, "option").or_else(|| field(step, "value")).or_else(|| {
        if field(step, "name").is_some() || field(step, "ref").is_some() {
            field(step, "text")
        } else {
            None
        }
    });
    let Some(want) = want else {
        return Err("select needs \"option\": the option's text, value or label".to_owned());
    };
    // `text` may name the option, so the target comes from the other fields.
    let t = target(step, true)?;
    let el = t.el.clone();
    if el.local_name() != "select" {
        return Err(cat(&[
            &t.label,
            " is not a <select>; click it to open it, then click the option",
        ]));
    }
    if disabled(&el) {
        return Err(cat(&[&t.label, " is disabled"]));
    }
    scroll_into_view(&el).await;
    note(&t);
    let (x, y) = centre(&el);
    cursor::move_to(x, y).await;
    let options = get(&el, "options");
    let count = get(&options, "length").as_f64().unwrap_or(0.0) as u32;
    let mut best: Option<(u32, JsValue, String)> = None;
    let mut names = Vec::new();
    let want_t = want.trim();
    for i in 0..count {
        let o = Reflect::get_u32(&options, i).unwrap_or(JsValue::UNDEFINED);
        let text = crate::snapshot::name::squash(&get(&o, "text").as_string().unwrap_or_default());
        let val = get(&o, "value").as_string().unwrap_or_default();
        let label = get(&o, "label").as_string().unwrap_or_default();
        names.push(quote(&text));
        let exact =
            text.eq_ignore_ascii_case(want_t) || val.eq_ignore_ascii_case(want_t) || label.eq_ignore_ascii_case(want_t);
        let rank = if exact {
            2
        } else if ci_contains(&text, want_t) || ci_contains(&label, want_t) {
            1
        } else {
            0
        };
        if rank > 0 && best.as_ref().is_none_or(|b| rank > b.0) {
            best = Some((rank, o, text));
        }
    }
    let Some((_, option, text)) = best else {
        let mut m = cat(&["No option ", &quote(want_t), " in ", &t.label, ". Options: "]);
        let more = names.len().saturating_sub(10);
        names.truncate(10);
        m.push_str(&names.join(", "));
        if more > 0 {
            m.push_str(" and ");
            push_number(&mut m, more as u32);
            m.push_str(" more");
        }
        return Err(m);
    };
    if get(&option, "disabled").is_truthy() {
        return Err(cat(&["The option ", &quote(&text), " in ", &t.label, " is disabled"]));
    }
    let _ = call(&el, "focus", &[]);
    native_set(&el, "value", &get(&option, "value"));
    set(&option, "selected", &JsValue::TRUE);
    fire(&el, "Event", "input", &base(true));
    fire(&el, "Event", "change", &base(true));
    Ok(s(&cat(&["selected ", &quote(&text)])))
}

fn is_checked(el: &Element) -> bool {
    if el.local_name() == "input" {
        get(el, "checked").is_truthy()
    } else {
        el.get_attribute("aria-checked").as_deref() == Some("true")
    }
}

async fn check(step: &JsValue, on: bool) -> Outcome {
    let mut t = target(step, false)?;
    if t.el.local_name() == "label" {
        if let Some(c) = as_element(get(&t.el, "control")) {
            t = Target {
                label: describe(&c),
                el: c,
            };
        }
    }
    let kind = get(&t.el, "type").as_string().unwrap_or_default();
    let role = resolve::role_of(&t.el);
    let checkable = kind == "checkbox"
        || kind == "radio"
        || matches!(
            role,
            "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
        );
    if !checkable {
        return Err(cat(&[&t.label, " is not a checkbox, radio button or switch"]));
    }
    if is_checked(&t.el) == on {
        note(&t);
        return Ok(s(if on { "already checked" } else { "already unchecked" }));
    }
    if !on && (kind == "radio" || role == "radio") {
        return Err(cat(&[
            &t.label,
            " is a radio button: check another option of its group instead",
        ]));
    }
    click_target(&t, 1).await?;
    if is_checked(&t.el) != on {
        return Err(cat(&[
            "Clicked ",
            &t.label,
            " but it is still ",
            if on { "unchecked" } else { "checked" },
            " (the page reverted it)",
        ]));
    }
    Ok(s(if on { "checked" } else { "unchecked" }))
}

// ---------------------------------------------------------------------------------------------
// Keys.

#[derive(Clone, Copy, Default)]
struct Mods {
    ctrl: bool,
    shift: bool,
    alt: bool,
    meta: bool,
}

/// `Control+a` → the modifiers and the key (`a`); aliases become DOM key names.
fn parse_chord(chord: &str) -> Result<(Mods, String), String> {
    let mut mods = Mods::default();
    let mut parts: Vec<&str> = chord.split('+').collect();
    // `Control++`: the last key is `+`.
    if chord.ends_with("++") || chord == "+" {
        parts.retain(|p| !p.is_empty());
        parts.push("+");
    }
    let key = parts.pop().unwrap_or("");
    for m in parts {
        match m.trim().to_ascii_lowercase().as_str() {
            "control" | "ctrl" => mods.ctrl = true,
            "shift" => mods.shift = true,
            "alt" | "option" => mods.alt = true,
            "meta" | "cmd" | "command" | "super" => mods.meta = true,
            // Playwright's name for Control (Meta on macOS); pages here run anywhere: Control.
            "controlormeta" => mods.ctrl = true,
            _ => {
                return Err(cat(&[
                    "Unknown modifier \"",
                    m,
                    "\" in \"",
                    chord,
                    "\" (use Control, Shift, Alt or Meta)",
                ]))
            }
        }
    }
    let lower = key.to_ascii_lowercase();
    let named = match lower.as_str() {
        "enter" | "return" => "Enter",
        "tab" => "Tab",
        "esc" | "escape" => "Escape",
        "space" | " " => " ",
        "backspace" => "Backspace",
        "delete" | "del" => "Delete",
        "up" | "arrowup" => "ArrowUp",
        "down" | "arrowdown" => "ArrowDown",
        "left" | "arrowleft" => "ArrowLeft",
        "right" | "arrowright" => "ArrowRight",
        "home" => "Home",
        "end" => "End",
        "pageup" => "PageUp",
        "pagedown" => "PageDown",
        _ if crate::snapshot::char_count(key) == 1 => key,
        _ if key.len() > 1 && key.starts_with('F') && key.bytes().skip(1).all(|b| b.is_ascii_digit()) => key,
        _ => return Err(cat(&["Unknown key \"", key, "\" (use a character, or Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, F1–F12, with Control+, Shift+, Alt+, Meta+)"])),
    };
    Ok((mods, named.to_owned()))
}

fn active_element() -> Element {
    let doc = get(&global(), "document");
    let mut a = get(&doc, "activeElement");
    // Into open shadow roots.
    loop {
        let inner = get(&get(&a, "shadowRoot"), "activeElement");
        if !inner.is_object() {
            break;
        }
        a = inner;
    }
    as_element(a)
        .or_else(|| as_element(get(&doc, "body")))
        .unwrap_or_else(|| get(&doc, "documentElement").unchecked_into())
}

/// Elements Tab reaches, in document order (positive tabindex first).
fn tabbables() -> Vec<Element> {
    let Some(doc) = resolve::page_window_document() else {
        return Vec::new();
    };
    let Ok(list) = doc.query_selector_all(
        "a[href],button,input,select,textarea,summary,iframe,[tabindex],[contenteditable=''],[contenteditable=true]",
    ) else {
        return Vec::new();
    };
    let mut out: Vec<(i32, Element)> = (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into::<Element>())
        .filter(|e| {
            get(e, "tabIndex").as_f64().unwrap_or(-1.0) >= 0.0
                && !e.matches(":disabled").unwrap_or(false)
                && get(e, "type").as_string().as_deref() != Some("hidden")
                && resolve::hidden_reason(e).is_none()
        })
        .map(|e| {
            let ti = get(&e, "tabIndex").as_f64().unwrap_or(0.0) as i32;
            (if ti > 0 { ti } else { i32::MAX }, e)
        })
        .collect();
    // Stable insertion sort: nearly all keys are equal (no moves), and it links no sort machinery.
    for i in 1..out.len() {
        let mut j = i;
        while j > 0 && out[j - 1].0 > out[j].0 {
            out.swap(j - 1, j);
            j -= 1;
        }
    }
    out.into_iter().map(|(_, e)| e).collect()
}

async fn press(step: &JsValue) -> Outcome {
    let Some(chord) = field(step, "key").or_else(|| field(step, "keys")) else {
        return Err("press needs \"key\", e.g. \"Enter\", \"Control+a\" or \"Shift+Tab\"".to_owned());
    };
    let (mods, key) = parse_chord(&chord)?;
    let el = if resolve::has_target(step, false) {
        let t = target(step, false)?;
        scroll_into_view(&t.el).await;
        note(&t);
        let (x, y) = centre(&t.el);
        cursor::move_to(x, y).await;
        let _ = call(&t.el, "focus", &[]);
        t.el
    } else {
        active_element()
    };
    let init = key_init(&key, &code_of(&key), mods);
    let mut outcome = Ok(());
    {
        let go = fire(&el, "KeyboardEvent", "keydown", &init);
        let printable = crate::snapshot::char_count(&key) == 1 && !mods.ctrl && !mods.meta && !mods.alt;
        if go && (printable || key == "Enter") {
            let pressed = fire(&el, "KeyboardEvent", "keypress", &init);
            if pressed && printable && (text_field(&el) || editable(&el)) {
                insert(&el, &key);
            }
        }
        if go {
            outcome = default_action(&el, &key, mods);
        }
        fire(&el, "KeyboardEvent", "keyup", &init);
    }
    outcome?;
    let mut out = cat(&["pressed ", &chord]);
    if !resolve::has_target(step, false) {
        out.push_str(" on ");
        out.push_str(&describe(&el));
    }
    sleep(20).await;
    if key == "Enter" && el.local_name() == "input" {
        if let Some(why) = blocked_submit(&get(&el, "form")) {
            out.push_str(&why);
        }
    }
    Ok(s(&out))
}

/// What the browser does for a key that synthetic events do not do by themselves.
fn default_action(el: &Element, key: &str, mods: Mods) -> Result<(), String> {
    let tag = el.local_name();
    match key {
        "Enter" if !mods.ctrl && !mods.meta => {
            if tag == "textarea" {
                insert(el, "\n");
            } else if editable(el) {
                exec_command(el, "insertParagraph", "");
            } else if tag == "input" && text_field(el) {
                let form = get(el, "form");
                if form.is_object() {
                    let _ = call(&form, "requestSubmit", &[]);
                }
            } else if matches!(tag.as_str(), "a" | "button" | "summary") || resolve::role_of(el) == "button" {
                let _ = call(el, "click", &[]);
            }
        }
        " " if matches!(tag.as_str(), "button" | "summary")
            || get(el, "type").as_string().as_deref() == Some("checkbox") =>
        {
            let _ = call(el, "click", &[]);
        }
        "Escape" => {
            // The browser closes the topmost modal dialog (its `cancel` first) or open popover;
            // a synthetic key does not.
            let doc = get(el, "ownerDocument");
            for sel in ["dialog:modal", "[popover]:popover-open"] {
                let open = call(&doc, "querySelectorAll", &[&s(sel)]).unwrap_or_default();
                let len = get(&open, "length").as_f64().unwrap_or(0.0) as u32;
                if len > 0 {
                    let top = Reflect::get_u32(&open, len - 1).unwrap_or_default();
                    let how = ["requestClose", "close", "hidePopover"]
                        .into_iter()
                        .find(|m| get(&top, m).is_function());
                    if let Some(m) = how {
                        let _ = call(&top, m, &[]);
                    }
                    break;
                }
            }
        }
        "Tab" => {
            let all = tabbables();
            if !all.is_empty() {
                let pos = all.iter().position(|e| e == el);
                let next = match (pos, mods.shift) {
                    (Some(i), false) => (i + 1) % all.len(),
                    (Some(i), true) => (i + all.len() - 1) % all.len(),
                    (None, false) => 0,
                    (None, true) => all.len() - 1,
                };
                let _ = call(&all[next], "focus", &[]);
            }
        }
        "Backspace" | "Delete" if text_field(el) || editable(el) => delete_back(el),
        "a" | "A" if mods.ctrl || mods.meta => {
            if text_field(el) {
                let _ = call(el, "select", &[]);
                if get(el, "selectionStart").as_f64().is_none() {
                    SELECTED_ALL.with(|a| *a.borrow_mut() = Some(el.clone()));
                }
            } else if editable(el) {
                caret_to_end(el, true);
            } else {
                let _ = call(&get(el, "ownerDocument"), "execCommand", &[&s("selectAll")]);
            }
        }
        _ => {}
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Scrolling and waiting.

/// The element that scrolls `el` (itself when it scrolls), or `None` for the page.
fn scroller(el: &Element) -> Option<Element> {
    let win = crate::snapshot::page_window();
    let mut cur = Some(el.clone());
    while let Some(e) = cur {
        if e.local_name() == "body" || e.local_name() == "html" {
            return None;
        }
        if let Ok(style) = win.computed_style(&e, None) {
            let o = get(&style, "overflowY").as_string().unwrap_or_default();
            let ox = get(&style, "overflowX").as_string().unwrap_or_default();
            let scrolls = |o: &str| o == "auto" || o == "scroll" || o == "overlay";
            if (scrolls(&o) && e.scroll_height() > e.client_height())
                || (scrolls(&ox) && e.scroll_width() > e.client_width())
            {
                return Some(e);
            }
        }
        cur = e.parent_element();
    }
    None
}

async fn scroll(step: &JsValue) -> Outcome {
    let direction = field(step, "direction").map(|d| d.to_ascii_lowercase());
    let has_target = resolve::has_target(step, false);
    let t = if has_target { Some(target(step, false)?) } else { None };
    let Some(direction) = direction else {
        let Some(t) = t else {
            return Err("scroll needs \"direction\" (up, down, left, right) with an optional \"amount\" in pixels, or a target to scroll into view".to_owned());
        };
        let opts = obj(&[("block", s("center")), ("inline", s("nearest"))]);
        let _ = call(&t.el, "scrollIntoView", &[&opts]);
        sleep(20).await;
        note(&t);
        return Ok(s("scrolled into view"));
    };
    let g = global();
    let container = t.as_ref().and_then(|t| scroller(&t.el));
    let (view_w, view_h) = match &container {
        Some(c) => (f64::from(c.client_width()), f64::from(c.client_height())),
        None => (
            get(&g, "innerWidth").as_f64().unwrap_or(800.0),
            get(&g, "innerHeight").as_f64().unwrap_or(600.0),
        ),
    };
    let (dx, dy) = match direction.as_str() {
        "down" => (0.0, 1.0),
        "up" => (0.0, -1.0),
        "right" => (1.0, 0.0),
        "left" => (-1.0, 0.0),
        _ => {
            return Err(cat(&[
                "Unknown direction \"",
                &direction,
                "\" (use up, down, left or right)",
            ]))
        }
    };
    let amount = get(step, "amount")
        .as_f64()
        .unwrap_or(if dy != 0.0 { view_h * 0.8 } else { view_w * 0.8 })
        .round();
    let by = obj(&[
        ("left", n(dx * amount)),
        ("top", n(dy * amount)),
        ("behavior", s("instant")),
    ]);
    type Position = Box<dyn Fn() -> (f64, f64, f64)>;
    let (target_obj, pos): (JsValue, Position) = match container {
        Some(c) => {
            let c2 = c.clone();
            (
                c.into(),
                Box::new(move || {
                    (
                        f64::from(c2.scroll_top()),
                        f64::from(c2.scroll_height() - c2.client_height()),
                        f64::from(c2.scroll_left()),
                    )
                }),
            )
        }
        None => (
            g.clone(),
            Box::new(move || {
                let g = global();
                let doc = get(&get(&g, "document"), "documentElement");
                (
                    get(&g, "scrollY").as_f64().unwrap_or(0.0),
                    get(&doc, "scrollHeight").as_f64().unwrap_or(0.0) - get(&g, "innerHeight").as_f64().unwrap_or(0.0),
                    get(&g, "scrollX").as_f64().unwrap_or(0.0),
                )
            }),
        ),
    };
    let before = pos();
    let _ = call(&target_obj, "scrollBy", &[&by]);
    sleep(20).await;
    let after = pos();
    let what = if has_target { "the container" } else { "the page" };
    let mut out = cat(&["scrolled ", what, " ", &direction, " ", &num(amount), "px"]);
    if dy != 0.0 {
        out.push_str(" (now at y=");
        out.push_str(&num(after.0));
        out.push_str(" of ");
        out.push_str(&num(after.1.max(0.0)));
        out.push(')');
        if (after.0 - before.0).abs() < 1.0 {
            out.push_str("; it did not move (already at the ");
            out.push_str(if dy > 0.0 { "bottom)" } else { "top)" });
        }
    } else {
        out.push_str(" (now at x=");
        out.push_str(&num(after.2));
        out.push(')');
    }
    Ok(s(&out))
}

fn page_text() -> String {
    let body = get(&get(&global(), "document"), "body");
    get(&body, "innerText").as_string().unwrap_or_default()
}

/// A step's field of milliseconds: absent, or a number ≥ 0 (else an error naming the field).
fn ms_field(step: &JsValue, name: &str) -> Result<Option<f64>, String> {
    let v = get(step, name);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(ms) if ms >= 0.0 => Ok(Some(ms)),
        _ => Err(cat(&[
            "\"",
            name,
            "\" must be a number of milliseconds (0 or more), not ",
            &js_sys::JSON::stringify(&v).map(String::from).unwrap_or_default(),
        ])),
    }
}

async fn wait(step: &JsValue) -> Outcome {
    // Never past the batch's own deadline (the agent would have its timeout by then).
    let left = with_batch(|b| b.deadline.map(|d| d - now_ms())).flatten();
    let timeout = ms_field(step, "timeout")?
        .filter(|t| *t > 0.0)
        .unwrap_or(WAIT_DEFAULT_MS)
        .min(left.unwrap_or(f64::MAX).max(0.0));
    let gone = get(step, "gone").is_truthy();
    let start = now_ms();
    // `text` alone: that text anywhere on the page.
    let text_only = field(step, "text").filter(|_| {
        ["ref", "role", "label", "placeholder", "selector", "name"]
            .iter()
            .all(|f| field(step, f).is_none())
    });
    if !resolve::has_target(step, false) {
        let ms = match ms_field(step, "ms")? {
            Some(ms) => Some(ms),
            None => ms_field(step, "timeout")?,
        };
        return match ms {
            Some(ms) if left.is_some_and(|left| ms > left) => {
                // The agent gets its timeout before this wait would end: stop here.
                sleep(left.unwrap_or(0.0).max(0.0) as i32).await;
                Err("Stopped: the batch's time (timeoutMs) ran out during this wait".to_owned())
            }
            Some(ms) => {
                sleep(ms.min(60_000.0) as i32).await;
                Ok(s(&cat(&["waited ", &num(ms), " ms"])))
            }
            None => Err("wait needs a target (ref, text, role, label, placeholder, selector), \"text\" to find anywhere on the page, or \"ms\"".to_owned()),
        };
    }
    loop {
        let elapsed = now_ms() - start;
        let found: Option<String> = match &text_only {
            Some(t) => ci_contains(&page_text(), t).then(|| quote(t)),
            None => match resolve::resolve(step, false, false) {
                Ok(t) => Some(t.label),
                // Several matches: it is there.
                Err(e) if crate::snapshot::has_sub(&e, " elements match ") => Some(e),
                Err(_) => None,
            },
        };
        if found.is_some() != gone {
            let took = num(elapsed);
            return Ok(s(&match (found, gone) {
                (Some(label), false) => cat(&[&label, " appeared after ", &took, " ms"]),
                _ => cat(&["gone after ", &took, " ms"]),
            }));
        }
        if elapsed >= timeout {
            let what = match &text_only {
                Some(t) => cat(&["text ", &quote(t)]),
                None => "the target".to_owned(),
            };
            let mut m = cat(&["Timed out after ", &num(timeout), " ms waiting for ", &what]);
            if gone {
                m.push_str(" to go away; it is still there");
            } else if text_only.is_none() {
                if let Err(e) = resolve::resolve(step, false, true) {
                    m.push_str(". ");
                    m.push_str(&e);
                }
            } else {
                m.push_str(" to appear");
            }
            return Err(m);
        }
        sleep(WAIT_POLL_MS).await;
    }
}

// ---------------------------------------------------------------------------------------------
// Navigation.

fn navigate(step: &JsValue) -> Outcome {
    let Some(url) = field(step, "url") else {
        return Err("navigate needs \"url\"".to_owned());
    };
    let base = get(&get(&global(), "location"), "href");
    let ctor: Function = get(&global(), "URL").unchecked_into();
    let abs = Reflect::construct(&ctor, &Array::of2(&s(&url), &base))
        .ok()
        .and_then(|u| get(&u, "href").as_string());
    let Some(abs) = abs else {
        return Err(cat(&["Not a URL: ", &quote(&url)]));
    };
    if !(abs.starts_with("http:") || abs.starts_with("https:")) {
        return Err(cat(&["navigate only follows http and https URLs, not ", &quote(&abs)]));
    }
    let out = cat(&["navigating to ", &abs]);
    with_batch(|b| {
        b.dest = Some(abs.clone());
        b.nav = Some(Nav::Go(abs));
    });
    Ok(s(&out))
}

fn history_step(nav: Nav, which: &str) -> Outcome {
    let navigation = get(&global(), "navigation");
    let can = get(&navigation, if which == "back" { "canGoBack" } else { "canGoForward" });
    if can == JsValue::FALSE {
        return Err(cat(&["There is no page to go ", which, " to in this tab's history"]));
    }
    with_batch(|b| b.nav = Some(nav));
    Ok(s(&cat(&["going ", which])))
}

// ---------------------------------------------------------------------------------------------
// evaluate.

/// Compiles `src` as an async function's expression (returned) or, when that is not an
/// expression, as its body. `Err` carries the thrown value.
fn compile(src: &str) -> Result<Function, JsValue> {
    let expr = src.trim().trim_end_matches(';');
    let as_expr = cat(&["return (async () => (\n", expr, "\n))()"]);
    match Function::new_no_args_checked(&as_expr) {
        Ok(f) => Ok(f),
        Err(e) if get(&e, "name").as_string().as_deref() == Some("SyntaxError") => {
            Function::new_no_args_checked(&cat(&["return (async () => {\n", src, "\n})()"]))
        }
        Err(e) => Err(e),
    }
}

trait NewChecked {
    fn new_no_args_checked(body: &str) -> Result<Function, JsValue>;
}

impl NewChecked for Function {
    fn new_no_args_checked(body: &str) -> Result<Function, JsValue> {
        let ctor: Function = get(&global(), "Function").unchecked_into();
        Reflect::construct(&ctor, &Array::of1(&s(body))).map(JsCast::unchecked_into)
    }
}

/// Runs the code through a `<script>` that carries the injected tag's nonce (for pages whose CSP
/// forbids `eval` but allows our tag by nonce); the promise is left on `__browserAgent.ev`.
fn via_script(src: &str) -> Option<JsValue> {
    let doc = get(&global(), "document");
    let tag = call(&doc, "querySelector", &[&s("script[data-browser-agent]")]).ok()?;
    let nonce = get(&tag, "nonce").as_string().unwrap_or_default();
    if nonce.is_empty() {
        return None;
    }
    let agent = get(&global(), crate::GLOBAL);
    set(&agent, "ev", &JsValue::UNDEFINED);
    let code = cat(&["window.__browserAgent.ev = (async () => {\n", src, "\n})();"]);
    let script = call(&doc, "createElement", &[&s("script")]).ok()?;
    set(&script, "nonce", &s(&nonce));
    set(&script, "textContent", &s(&code));
    let parent = get(&doc, "head");
    let parent = if parent.is_object() {
        parent
    } else {
        get(&doc, "documentElement")
    };
    call(&parent, "appendChild", &[&script]).ok()?;
    let _ = call(&script, "remove", &[]);
    let p = get(&agent, "ev");
    p.is_object().then_some(p)
}

async fn evaluate(step: &JsValue) -> Outcome {
    let Some(src) = field(step, "script")
        .or_else(|| field(step, "expression"))
        .or_else(|| field(step, "code"))
        .or_else(|| field(step, "js"))
    else {
        return Err(
            "evaluate needs \"script\": an expression, or a function body with return (await works)".to_owned(),
        );
    };
    let promise = match compile(&src) {
        Ok(f) => f.call0(&global()).map_err(|e| failed(&e))?,
        Err(e) if get(&e, "name").as_string().as_deref() == Some("EvalError") => {
            let body = if crate::snapshot::has_sub(&src, "return") {
                src.clone()
            } else {
                cat(&["return (", src.trim().trim_end_matches(';'), ")"])
            };
            via_script(&body).ok_or_else(|| {
                "evaluate failed: the page's Content-Security-Policy forbids running code from a string ('unsafe-eval' is not allowed and the agent's script tag has no nonce)".to_owned()
            })?
        }
        Err(e) => return Err(failed(&e)),
    };
    let v = JsFuture::from(Promise::resolve(&promise))
        .await
        .map_err(|e| failed(&e))?;
    let mut seen = Vec::new();
    let mut budget = EVAL_BUDGET;
    Ok(safe(&v, 0, &mut seen, &mut budget))
}

/// `String(v)`: any value as text (never throws for symbols, bigints, odd objects).
fn text_of(v: &JsValue) -> String {
    get(&global(), "String")
        .dyn_into::<Function>()
        .ok()
        .and_then(|f| f.call1(&JsValue::UNDEFINED, v).ok())
        .and_then(|t| t.as_string())
        .unwrap_or_default()
}

/// `evaluate failed: TypeError: x is undefined` plus the first stack lines.
fn failed(e: &JsValue) -> String {
    let mut m = String::from("evaluate failed: ");
    let name = get(e, "name").as_string();
    let message = get(e, "message").as_string();
    match (name, message) {
        (Some(n), Some(msg)) => {
            m.push_str(&n);
            m.push_str(": ");
            m.push_str(&msg);
            if let Some(stack) = get(e, "stack").as_string() {
                let lines: Vec<&str> = stack.lines().skip(1).take(5).collect();
                if !lines.is_empty() {
                    m.push('\n');
                    m.push_str(&lines.join("\n"));
                }
            }
        }
        _ => m.push_str(&text_of(e)),
    }
    m
}

fn cut(text: &str, max: u32) -> JsValue {
    let js = JsString::from(text);
    let len = js.length();
    if len <= max {
        return js.into();
    }
    let mut more = String::from("…(+");
    push_number(&mut more, len - max);
    more.push_str(" chars)");
    js.slice(0, max).concat(&s(&more)).into()
}

/// A JSON-safe copy of `v`: depth ≤ 10, ≤ 500 items, strings ≤ 20,000 chars, cycles marked,
/// DOM nodes described, errors as `{__type, name, message, stack}`.
fn safe(v: &JsValue, depth: u32, seen: &mut Vec<JsValue>, budget: &mut u32) -> JsValue {
    if *budget == 0 {
        return s("[Truncated]");
    }
    *budget -= 1;
    if v.is_undefined() {
        return s("[undefined]");
    }
    if v.is_null() || v.as_bool().is_some() {
        return v.clone();
    }
    if let Some(x) = v.as_f64() {
        return if x.is_finite() { v.clone() } else { s(&text_of(v)) };
    }
    if let Some(t) = v.as_string() {
        return cut(&t, EVAL_CHARS);
    }
    if v.is_bigint() {
        return s(&cat(&[&text_of(v), "n"]));
    }
    if v.is_symbol() {
        return s(&call(v, "toString", &[])
            .ok()
            .and_then(|x| x.as_string())
            .unwrap_or_default());
    }
    if v.is_function() {
        let name = get(v, "name").as_string().unwrap_or_default();
        return s(&cat(&[
            "[Function: ",
            if name.is_empty() { "anonymous" } else { &name },
            "]",
        ]));
    }
    if seen.iter().any(|x| x == v) {
        return s("[Circular]");
    }
    if depth >= EVAL_DEPTH {
        return s("[Max depth]");
    }
    let node_type = get(v, "nodeType");
    if node_type.as_f64().is_some() && get(v, "nodeName").is_string() {
        return node(v);
    }
    let to_string = get(&get(&get(&global(), "Object"), "prototype"), "toString");
    let tag = to_string
        .dyn_into::<Function>()
        .ok()
        .and_then(|f| f.call0(v).ok())
        .and_then(|x| x.as_string())
        .unwrap_or_default();
    match tag.as_str() {
        "[object Error]" | "[object DOMException]" => {
            return obj(&[
                ("__type", s("Error")),
                ("name", get(v, "name")),
                ("message", get(v, "message")),
                (
                    "stack",
                    get(v, "stack")
                        .as_string()
                        .map(|t| cut(&t, 2000))
                        .unwrap_or(JsValue::NULL),
                ),
            ])
            .into();
        }
        "[object Date]" => {
            return call(v, "toISOString", &[]).unwrap_or_else(|_| s("Invalid Date"));
        }
        "[object RegExp]" => return call(v, "toString", &[]).unwrap_or(JsValue::NULL),
        "[object Promise]" => return s("[Promise]"),
        "[object Window]" => return s("[Window]"),
        _ => {}
    }
    seen.push(v.clone());
    let out: JsValue = if Array::is_array(v)
        || tag == "[object Set]"
        || tag == "[object NodeList]"
        || tag == "[object HTMLCollection]"
        || get(v, "BYTES_PER_ELEMENT").as_f64().is_some()
    {
        let items = Array::from(v);
        let total = items.length();
        let arr = Array::new();
        for i in 0..total.min(EVAL_ITEMS) {
            arr.push(&safe(&items.get(i), depth + 1, seen, budget));
        }
        if total > EVAL_ITEMS {
            let mut m = String::from("…(+");
            push_number(&mut m, total - EVAL_ITEMS);
            m.push_str(" more)");
            arr.push(&s(&m));
        }
        arr.into()
    } else {
        let o = Object::new();
        let entries: Array = if tag == "[object Map]" {
            Array::from(&call(v, "entries", &[]).unwrap_or_else(|_| Array::new().into()))
        } else {
            // Own enumerable keys, read one by one (a throwing getter spoils only its own key).
            // (A loop, not `Array::filter`/`map` with Rust closures: each closure type adds glue.)
            let pairs = Array::new();
            for k in Reflect::own_keys(v).unwrap_or_default().iter() {
                if !k.is_string() {
                    continue;
                }
                let val = Reflect::get(v, &k)
                    .unwrap_or_else(|e| s(&cat(&["[Unserializable: ", &text_of(&get(&e, "message")), "]"])));
                pairs.push(&Array::of2(&k, &val));
            }
            pairs
        };
        let total = entries.length();
        for i in 0..total.min(EVAL_ITEMS) {
            let pair = entries.get(i);
            let k = Reflect::get_u32(&pair, 0).unwrap_or(JsValue::UNDEFINED);
            let key = k.as_string().unwrap_or_else(|| text_of(&k));
            let val = Reflect::get_u32(&pair, 1).unwrap_or(JsValue::UNDEFINED);
            set(&o, &key, &safe(&val, depth + 1, seen, budget));
        }
        if total > EVAL_ITEMS {
            let mut m = String::new();
            push_number(&mut m, total - EVAL_ITEMS);
            m.push_str(" more keys");
            set(&o, "…", &s(&m));
        }
        o.into()
    };
    seen.pop();
    out
}

/// A DOM node described: `{__type:"Element", tag, id?, class?, text?, html, label}`.
fn node(v: &JsValue) -> JsValue {
    let Some(el) = as_element(v.clone()) else {
        let o = obj(&[("__type", s("Node")), ("nodeName", get(v, "nodeName"))]);
        if let Some(t) = get(v, "textContent").as_string() {
            set(&o, "text", &cut(crate::snapshot::name::squash(&t).as_str(), 200));
        }
        return o.into();
    };
    let o = obj(&[("__type", s("Element")), ("tag", s(&el.local_name()))]);
    if let Some(id) = el.get_attribute("id") {
        set(&o, "id", &s(&id));
    }
    if let Some(c) = el.get_attribute("class") {
        set(&o, "class", &s(&c));
    }
    let text = crate::snapshot::name::squash(&el.text_content().unwrap_or_default());
    if !text.is_empty() {
        set(&o, "text", &cut(&text, 200));
    }
    set(&o, "html", &cut(&el.outer_html(), 1000));
    if el.is_connected() {
        set(&o, "label", &s(&describe(&el)));
    }
    o.into()
}
