//! Popups and new tabs an agent's step opens (`docs/popups.md`). The agent's events are synthetic
//! (untrusted): they carry no user activation, so Chromium's popup blocker refuses the windows they
//! open unless the site may open pop-ups. Either way the step's answer says what happened.
//!
//! For the length of an acting step only, `window.open` is wrapped (and put back after it: pages
//! no agent acts in pay nothing, not a byte of the bootstrap), and the agent's clicks on links and
//! its form submissions that target another window are noted (capture listeners on the window,
//! idle between steps). After the step:
//! - a `window.open` that gave a window back names the new page once its client runs
//!   (`opened page ID: URL (popup of ID)`); the new page's sensor reads its opener's id from
//!   `window.opener` and the host lists it with it;
//! - one that gave null without `noopener` was blocked: the answer says why and what to do;
//! - a link, a form, or a `noopener` popup give no window back: the step leaves a note in
//!   `localStorage` ([`OPENER_STORAGE_KEY`]) before the browser acts, which the new page's sensor
//!   claims, appending its own id (sensor.js); the step waits for that claim, bounded
//!   ([`NOTE_WAIT_MS`]), and says the popup blocker most likely refused the page when none came.
//!
//! A page that took a reference to `window.open` before the step (`const open = window.open`)
//! calls the browser's own past the wrapper: its blocked popup is then reported only if it was a
//! link or a form. The OAuth SDKs checked (Firebase Auth, MSAL.js, Auth0 SPA) call
//! `window.open` at the moment they open.

use super::batch;
use super::step::Outcome;
use crate::bootstrap;
use crate::js::{attribute, call, get, global, has_attribute, js_string, now_ms, sleep};
use crate::text::{cat, num};
use browser_agent_protocol::OPENER_STORAGE_KEY;
use js_sys::{Array, Function, Reflect};
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How long a step waits for the client of a window `window.open` gave back (ms): a page that
/// opened for sure, whose client starts after its first frame.
const WINDOW_WAIT_MS: f64 = 5_000.0;
/// How long a step waits for a new tab to claim its note (ms): what a link to a new tab costs
/// when the popup blocker refused it (nothing tells the page so).
pub(crate) const NOTE_WAIT_MS: f64 = 3_000.0;
/// What the waits leave of the batch's time, so the answer is the page's, not a timeout.
const MARGIN_MS: f64 = 500.0;
/// Popups one step reports; more are counted.
const MAX_SEEN: usize = 4;
/// How often the wait looks at the new window (ms).
const POLL_MS: i32 = 25;

/// What the step's action did to open a page.
enum How {
    /// `window.open` gave this window back.
    Window(JsValue),
    /// `window.open` gave null, without `noopener`: the browser refused it.
    Blocked,
    /// No window comes back (a link, a form, a `noopener` popup): a note waits for the new page;
    /// `event` is the link's click or the form's submit (prevented: nothing opened), and `what`
    /// names the opener for the answer.
    Note { event: Option<JsValue>, what: &'static str },
    /// No window comes back and the new page cannot tell it was this one's (`noreferrer`: it has
    /// no referrer, which the sensor's check for a new tab needs): said, not waited for.
    Untold { event: Option<JsValue>, what: &'static str },
}

struct Seen {
    url: String,
    how: How,
}

#[derive(Default)]
struct State {
    /// A step is being watched.
    active: bool,
    seen: Vec<Seen>,
    /// Popups beyond [`MAX_SEEN`].
    more: u32,
    /// The client ids of new pages that claimed this page's notes, in the order they did.
    claims: Vec<String>,
    /// `window.open` as the page had it when the step began.
    page_open: Option<Function>,
    /// `window.close` as the page had it when the step began.
    page_close: Option<Function>,
    /// The page called `window.close()` during the step.
    closing: bool,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
    /// The wrappers of `window.open` and `window.close`, made once per page load.
    static WRAPPER: RefCell<Option<JsValue>> = const { RefCell::new(None) };
    static CLOSE_WRAPPER: RefCell<Option<JsValue>> = const { RefCell::new(None) };
    /// The listeners are on the window (once per page load).
    static LISTENING: Cell<bool> = const { Cell::new(false) };
}

/// The commands whose actions may open a page.
fn acts(command: &str) -> bool {
    matches!(
        command,
        "click"
            | "dblclick"
            | "press"
            | "type"
            | "fill"
            | "select"
            | "check"
            | "uncheck"
            | "hover"
            | "drag"
            | "down"
            | "up"
    )
}

/// Starts watching the step of `command` when it may open a page; whether it does ([`end`] must
/// then follow).
pub(crate) fn begin(command: &str) -> bool {
    if !acts(command) {
        return false;
    }
    listen();
    let win = global();
    let page_open = get(&win, "open").dyn_into::<Function>().ok();
    let page_close = get(&win, "close").dyn_into::<Function>().ok();
    let wrapper = WRAPPER.with(|w| w.borrow_mut().get_or_insert_with(make_wrapper).clone());
    let close_wrapper = CLOSE_WRAPPER.with(|w| w.borrow_mut().get_or_insert_with(make_close_wrapper).clone());
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.active = true;
        s.seen.clear();
        s.more = 0;
        s.claims.clear();
        s.closing = false;
        s.page_open = page_open.clone();
        s.page_close = page_close.clone();
    });
    if page_open.is_some() {
        let _ = Reflect::set(&win, &js_string("open"), &wrapper);
    }
    if page_close.is_some() {
        let _ = Reflect::set(&win, &js_string("close"), &close_wrapper);
    }
    true
}

/// Ends the watch [`begin`] started: puts `window.open` back and adds what the step opened, or
/// was refused, to its result (text results and errors).
pub(crate) async fn end(outcome: Outcome) -> Outcome {
    let win = global();
    let (page_open, page_close, seen, more, closing) = STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.active = false;
        (
            s.page_open.clone(),
            s.page_close.clone(),
            std::mem::take(&mut s.seen),
            s.more,
            s.closing,
        )
    });
    // Only when it is still ours: a page that wrapped it meanwhile keeps its wrapper (ours passes
    // calls through while no step is watched).
    for (name, page, ours) in [
        ("open", &page_open, WRAPPER.with(|w| w.borrow().clone())),
        ("close", &page_close, CLOSE_WRAPPER.with(|w| w.borrow().clone())),
    ] {
        if let (Some(page), Some(ours)) = (page, ours) {
            if get(&win, name) == ours {
                let _ = Reflect::set(&win, &js_string(name), page);
            }
        }
    }
    let outcome = if closing {
        add(outcome, browser_agent_protocol::CLOSES_ITSELF)
    } else {
        outcome
    };
    // A link whose click the page prevented opened nothing (a script may have, through the wrapper).
    let seen: Vec<Seen> = seen
        .into_iter()
        .filter(|s| match &s.how {
            How::Note { event: Some(e), .. } | How::Untold { event: Some(e), .. } => {
                !get(e, "defaultPrevented").is_truthy()
            }
            _ => true,
        })
        .collect();
    if seen.is_empty() {
        return outcome;
    }
    let text = said(seen, more).await;
    add(outcome, &text)
}

/// `text` added to a step's text result or error (a value, `evaluate`'s, stays as it is).
fn add(outcome: Outcome, text: &str) -> Outcome {
    match outcome {
        Ok(v) => match v.as_string() {
            Some(s) => Ok(js_string(&cat(&[&s, text]))),
            None => Ok(v),
        },
        Err(e) => Err(cat(&[&e, text])),
    }
}

/// The wrapper of `window.close`: during a watched step the close waits for the batch's answer
/// (the sensor calls it once the results are posted, [`bootstrap::CLOSE`]), so an OAuth popup that
/// closes itself on the agent's click still answers the batch; otherwise it closes at once.
fn make_close_wrapper() -> JsValue {
    let f = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(|| {
        let (watched, close) = STATE.with(|s| {
            let s = s.borrow();
            (s.active, s.page_close.clone())
        });
        let Some(close) = close else {
            return Ok(JsValue::UNDEFINED);
        };
        if watched {
            STATE.with(|s| s.borrow_mut().closing = true);
            let bound = close.bind0(&global());
            bootstrap::set_field(bootstrap::CLOSE, &bound);
            return Ok(JsValue::UNDEFINED);
        }
        Reflect::apply(&close, &global(), &Array::new())
    });
    f.into_js_value()
}

/// What became of each page the step opened, waited for within the bounds (not at all when this
/// page is navigating away); `; opened page …` clauses.
async fn said(seen: Vec<Seen>, more: u32) -> String {
    let me = bootstrap::field(bootstrap::CLIENT_ID).as_string().unwrap_or_default();
    let left = batch::time_left().map_or(f64::MAX, |l| l - MARGIN_MS);
    let start = now_ms();
    let leaving = batch::navigating();
    let window_until = start + WINDOW_WAIT_MS.min(left).max(0.0);
    let note_until = start + NOTE_WAIT_MS.min(left).max(0.0);
    // Each page's outcome: its client id once known.
    let mut ids: Vec<Option<String>> = vec![None; seen.len()];
    let mut foreign = vec![false; seen.len()];
    let mut closed = vec![false; seen.len()];
    let mut claimed = 0;
    loop {
        let now = now_ms();
        let mut waiting = false;
        for (i, s) in seen.iter().enumerate() {
            if ids[i].is_some() || foreign[i] || closed[i] {
                continue;
            }
            match &s.how {
                How::Window(w) => match Reflect::get(w, &js_string(bootstrap::GLOBAL)) {
                    // Another origin's window throws.
                    Err(_) => foreign[i] = true,
                    Ok(g) if get(&g, bootstrap::HANDLER).is_truthy() => {
                        ids[i] = get(&g, bootstrap::CLIENT_ID).as_string();
                    }
                    Ok(_) if get(w, "closed").is_truthy() => closed[i] = true,
                    Ok(_) => waiting |= now < window_until,
                },
                How::Note { .. } => {
                    let claim = STATE.with(|st| st.borrow().claims.get(claimed).cloned());
                    if let Some(id) = claim {
                        claimed += 1;
                        ids[i] = Some(id);
                    } else {
                        waiting |= now < note_until;
                    }
                }
                How::Blocked | How::Untold { .. } => {}
            }
        }
        if !waiting || leaving {
            break;
        }
        sleep(POLL_MS).await;
    }
    let waited = ((now_ms() - start) / 1000.0).round();
    // The rest of the batch goes on in the first page the step opened, where a person would look
    // next (the step's answer says which page that is).
    if let Some(id) = ids.iter().flatten().next().filter(|_| !leaving) {
        batch::navigate(batch::Nav::Popup(id.clone()), None);
    }
    let mut out = String::new();
    for (i, s) in seen.iter().enumerate() {
        let url = &s.url;
        if let Some(id) = &ids[i] {
            out.push_str(&cat(&[
                browser_agent_protocol::OPENED_PAGE,
                id,
                ": ",
                url,
                " (popup of ",
                &me,
                ")",
            ]));
            continue;
        }
        match &s.how {
            How::Blocked => {
                out.push_str(&cat(&["; the browser blocked the popup window.open(", url, "): "]));
                out.push_str(&why(url));
            }
            How::Window(_) if foreign[i] => out.push_str(&cat(&[
                "; opened a popup at ",
                url,
                ", on another origin, where this page's client does not run",
            ])),
            How::Window(_) if closed[i] => out.push_str(&cat(&[
                "; opened a popup at ",
                url,
                ", which closed before its client started",
            ])),
            How::Window(_) => out.push_str(&cat(&[
                "; opened a popup at ",
                url,
                if leaving {
                    " (not waited for: this page is navigating)"
                } else {
                    ", whose client had not started when the step ended (pages lists it once it does)"
                },
            ])),
            How::Untold { what, .. } => out.push_str(&cat(&[
                "; the ",
                what,
                " opens a new window at ",
                url,
                " without a referrer, so its page cannot say it was opened here: pages lists it if the browser allowed it; the popup blocker refuses it unless pop-ups are allowed for this site",
            ])),
            How::Note { what, .. } if leaving => {
                out.push_str(&cat(&["; the ", what, " opens a new window at ", url]));
            }
            How::Note { what, .. } => {
                out.push_str(&cat(&[
                    "; the ",
                    what,
                    " opens a new window at ",
                    url,
                    ", and no page of it started within ",
                    &num(waited),
                    " s: the browser's popup blocker most likely refused it, as ",
                ]));
                out.push_str(&why(url));
            }
        }
    }
    if more > 0 {
        out.push_str(&cat(&["; and ", &num(more as f64), " more popups"]));
    }
    out
}

/// Why a popup was refused and what to do, for `url`.
fn why(url: &str) -> String {
    let origin = get(&get(&global(), "location"), "origin")
        .as_string()
        .unwrap_or_default();
    cat(&[
        "an agent's step is synthetic input, without the user activation Chromium's popup blocker asks for. ",
        "Allow pop-ups for ",
        &origin,
        " in the browser's site settings (then it opens and is listed in pages with its opener), or navigate to ",
        url,
        " in this tab",
    ])
}

/// Records what the step opened (bounded).
fn note_seen(s: Seen) {
    STATE.with(|st| {
        let mut st = st.borrow_mut();
        if st.seen.len() < MAX_SEEN {
            st.seen.push(s);
        } else {
            st.more += 1;
        }
    });
}

fn active() -> bool {
    STATE.with(|s| s.borrow().active)
}

/// `url` resolved against the document's base, as the browser opens it.
fn resolve(url: &JsValue) -> String {
    let raw = if url.is_undefined() || url.is_null() {
        String::new()
    } else {
        // String(url): a URL object or anything else the page passes, as the browser reads it.
        get(&global(), "String")
            .dyn_ref::<Function>()
            .and_then(|f| f.call1(&JsValue::UNDEFINED, url).ok())
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    if raw.is_empty() {
        return String::from("about:blank");
    }
    let base = get(&get(&global(), "document"), "baseURI");
    let ctor = get(&global(), "URL");
    let made = ctor
        .dyn_ref::<Function>()
        .and_then(|c| Reflect::construct(c, &Array::of2(&js_string(&raw), &base)).ok());
    made.and_then(|u| get(&u, "href").as_string()).unwrap_or(raw)
}

/// Whether `window.open`'s features ask for no opener, and for no referrer (which implies no
/// opener): `noopener`, `noreferrer`, each unless `=0`/`=no`.
fn no_opener(features: &JsValue) -> (bool, bool) {
    let Some(f) = features.as_string() else {
        return (false, false);
    };
    let f = f.to_ascii_lowercase();
    let on = |wanted: &str| {
        f.split(|c: char| c == ',' || c.is_ascii_whitespace()).any(|token| {
            let (name, value) = token.split_once('=').unwrap_or((token, ""));
            name.trim() == wanted && !matches!(value.trim(), "0" | "no" | "false")
        })
    };
    let noreferrer = on("noreferrer");
    (noreferrer || on("noopener"), noreferrer)
}

/// Leaves the note a new page without an opener claims: `{this client id} {epoch ms}`.
fn leave_note() {
    let me = bootstrap::field(bootstrap::CLIENT_ID).as_string().unwrap_or_default();
    let mut value = cat(&[&me, " "]);
    // (Epoch ms do not fit `num`'s u32.)
    browser_agent_protocol::snapshot::push_decimal(&mut value, now_ms() as u64);
    let storage = get(&global(), "localStorage");
    let _ = call(
        &storage,
        "setItem",
        &[&js_string(OPENER_STORAGE_KEY), &js_string(&value)],
    );
}

/// The wrapper of `window.open`: while a step is watched, notes what the call gave back (a note
/// first for a `noopener` call, which gives null either way); otherwise it only passes the call on.
fn make_wrapper() -> JsValue {
    let f = Closure::<dyn Fn(JsValue, JsValue, JsValue) -> Result<JsValue, JsValue>>::new(
        |url: JsValue, target: JsValue, features: JsValue| {
            let (watched, open) = STATE.with(|s| {
                let s = s.borrow();
                (s.active, s.page_open.clone())
            });
            // (Installed only over a page's own function: this is never None.)
            let Some(open) = open else {
                return Ok(JsValue::NULL);
            };
            let (noopener, noreferrer) = if watched { no_opener(&features) } else { (false, false) };
            if noopener && !noreferrer {
                leave_note();
            }
            let args = Array::of3(&url, &target, &features);
            let got = Reflect::apply(&open, &global(), &args)?;
            if watched {
                let url = resolve(&url);
                let how = if !got.is_null() && !got.is_undefined() {
                    How::Window(got.clone())
                } else if noreferrer {
                    How::Untold {
                        event: None,
                        what: "noreferrer popup",
                    }
                } else if noopener {
                    How::Note {
                        event: None,
                        what: "noopener popup",
                    }
                } else {
                    How::Blocked
                };
                note_seen(Seen { url, how });
            }
            Ok(got)
        },
    );
    f.into_js_value()
}

/// The window's listeners (once per page load): the agent's clicks on links and its form
/// submissions that target another window, and the new pages' claims of this page's notes.
fn listen() {
    if LISTENING.with(|l| l.replace(true)) {
        return;
    }
    let win = global();
    let capture = js_sys::Object::new();
    let _ = Reflect::set(&capture, &js_string("capture"), &JsValue::TRUE);
    let click = Closure::<dyn Fn(JsValue)>::new(on_click).into_js_value();
    let _ = call(&win, "addEventListener", &[&js_string("click"), &click, &capture]);
    let submit = Closure::<dyn Fn(JsValue)>::new(on_submit).into_js_value();
    let _ = call(&win, "addEventListener", &[&js_string("submit"), &submit, &capture]);
    let storage = Closure::<dyn Fn(JsValue)>::new(on_storage).into_js_value();
    let _ = call(&win, "addEventListener", &[&js_string("storage"), &storage]);
}

/// Whether a link's or form's `target` opens another window (`_blank` or a window's name); an
/// element without one takes the document's `<base target>`.
fn other_window(target: Option<String>) -> bool {
    let target = target.or_else(|| {
        let doc = get(&global(), "document");
        let base = call(&doc, "querySelector", &[&js_string("base[target]")]).ok()?;
        base.dyn_ref::<web_sys::Element>().and_then(|b| attribute(b, "target"))
    });
    let t = target.unwrap_or_default().trim().to_ascii_lowercase();
    !t.is_empty() && !matches!(t.as_str(), "_self" | "_top" | "_parent")
}

/// The agent's click on a link to another window (the first link in the event's path).
fn on_click(ev: JsValue) {
    if !active() || get(&ev, "isTrusted").is_truthy() {
        return;
    }
    let Ok(path) = call(&ev, "composedPath", &[]) else {
        return;
    };
    let Ok(path) = path.dyn_into::<Array>() else { return };
    let link = path.iter().find_map(|n| {
        let el = n.dyn_into::<web_sys::Element>().ok()?;
        let name = el.local_name();
        ((name == "a" || name == "area") && has_attribute(&el, "href")).then_some(el)
    });
    let Some(link) = link else { return };
    if has_attribute(&link, "download") || !other_window(attribute(&link, "target")) {
        return;
    }
    let url = get(&link, "href").as_string().unwrap_or_default();
    let rel = attribute(&link, "rel").unwrap_or_default().to_ascii_lowercase();
    let how = if rel.split_ascii_whitespace().any(|r| r == "noreferrer") {
        How::Untold {
            event: Some(ev),
            what: "link",
        }
    } else {
        leave_note();
        How::Note {
            event: Some(ev),
            what: "link",
        }
    };
    note_seen(Seen { url, how });
}

/// The agent's submission of a form to another window (the submitter's `formtarget` first). The
/// browser's `submit` event is trusted even when an agent's click caused it: any during the step
/// counts.
fn on_submit(ev: JsValue) {
    if !active() {
        return;
    }
    let Ok(form) = get(&ev, "target").dyn_into::<web_sys::Element>() else {
        return;
    };
    let submitter = get(&ev, "submitter").dyn_into::<web_sys::Element>().ok();
    let target = submitter
        .as_ref()
        .and_then(|s| attribute(s, "formtarget"))
        .or_else(|| attribute(&form, "target"));
    if !other_window(target) {
        return;
    }
    leave_note();
    let url = match submitter.as_ref().filter(|s| has_attribute(s, "formaction")) {
        Some(s) => get(s, "formAction"),
        None => get(&form, "action"),
    };
    note_seen(Seen {
        url: url.as_string().unwrap_or_default(),
        how: How::Note {
            event: Some(ev),
            what: "form",
        },
    });
}

/// A new page claimed a note of this page: `{this client id} {time} {its client id}`.
fn on_storage(ev: JsValue) {
    if get(&ev, "key").as_string().as_deref() != Some(OPENER_STORAGE_KEY) {
        return;
    }
    let Some(value) = get(&ev, "newValue").as_string() else {
        return;
    };
    let parts: Vec<&str> = value.split(' ').collect();
    let me = bootstrap::field(bootstrap::CLIENT_ID).as_string().unwrap_or_default();
    if parts.len() == 3 && parts[0] == me && !parts[2].is_empty() {
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            if s.claims.len() < MAX_SEEN {
                s.claims.push(parts[2].to_owned());
            }
        });
    }
}
