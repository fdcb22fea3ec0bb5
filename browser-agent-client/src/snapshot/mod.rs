//! The accessibility snapshot: a compact tree of what an agent can see and act on, in the shared
//! grammar of `browser_agent_core::snapshot` (`role "name" [attr]… [ref=eN]`, two spaces per depth).
//!
//! - [`walker`] walks the page (open shadow roots with their slots, same-origin frames) and builds
//!   the nodes; [`roles`] holds the role tables; [`name`] computes accessible names.
//! - Refs: an element keeps its number for the whole page load (a `WeakMap` from element to number,
//!   one counter that never goes back), so an earlier ref still means the same element after
//!   unrelated changes, and a ref whose element is gone is never given to another element.
//! - Before walking, [`wait_network_idle`] waits until at most 2 of the page's requests are in
//!   flight for 200 ms (5 s at most; it never fails).

pub(crate) mod name;
pub(crate) mod roles;
pub(crate) mod walker;

use crate::get;
use browser_agent_core::snapshot::render;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

#[wasm_bindgen]
extern "C" {
    /// A page's or a frame's window.
    pub(crate) type Win;
    /// `win.getComputedStyle(el, pseudo)`.
    #[wasm_bindgen(method, js_name = getComputedStyle, catch)]
    pub(crate) fn computed_style(this: &Win, el: &Element, pseudo: Option<&str>) -> Result<Style, JsValue>;
    /// A computed `CSSStyleDeclaration`, read through its getters.
    pub(crate) type Style;
    #[wasm_bindgen(method, getter)]
    pub(crate) fn display(this: &Style) -> String;
    #[wasm_bindgen(method, getter)]
    pub(crate) fn visibility(this: &Style) -> String;
    #[wasm_bindgen(method, getter)]
    pub(crate) fn cursor(this: &Style) -> String;
    #[wasm_bindgen(method, getter)]
    pub(crate) fn content(this: &Style) -> String;
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(f: &js_sys::Function, ms: i32) -> i32;
}

/// The page's window.
pub(crate) fn page_window() -> Win {
    js_sys::global().unchecked_into()
}

/// `window.__browserAgent`.
fn agent_global() -> JsValue {
    get(&js_sys::global(), crate::GLOBAL)
}

/// Appends the decimal digits of `n` (core's shared digit writer: no formatting machinery in the wasm).
pub(crate) fn push_number(out: &mut String, n: u32) {
    browser_agent_core::snapshot::push_decimal(out, u64::from(n));
}

/// Whether `needle` occurs in `hay` (a plain scan; small code).
pub(crate) fn has_sub(hay: &str, needle: &str) -> bool {
    needle.is_empty() || find_sub(hay, needle).is_some()
}

/// Number of chars in `s` (`chars().count()` links a large unrolled counter).
pub(crate) fn char_count(s: &str) -> usize {
    s.bytes().filter(|b| (b & 0xC0) != 0x80).count()
}

/// Byte offset of the first `needle` in `hay` (a plain scan: `str::find` with a `&str` pattern
/// links the two-way searcher).
pub(crate) fn find_sub(hay: &str, needle: &str) -> Option<usize> {
    hay.as_bytes()
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
}

/// Joins non-empty parts with single spaces.
pub(crate) fn join_words(parts: &[String]) -> String {
    let mut out = String::new();
    for p in parts.iter().filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

/// Idle means at most this many of the page's requests in flight.
const IDLE_INFLIGHT: f64 = 2.0;
/// ... for this long.
const IDLE_SETTLE_MS: f64 = 200.0;
/// The wait never lasts longer than this.
const IDLE_MAX_MS: f64 = 5000.0;
/// How often the in-flight counter is read while waiting.
const IDLE_POLL_MS: i32 = 50;

/// Ref bookkeeping for the page load.
struct Refs {
    /// Element → its number (weak: a removed element takes its number with it).
    numbers: js_sys::WeakMap,
    /// Frame element → its frame number (`f1`, `f2`, … in ref prefixes).
    frames: js_sys::WeakMap,
    /// Number → element, for commands; only elements still in the document (pruned each snapshot).
    elements: Vec<(u32, Element)>,
    last: u32,
    last_frame: u32,
    /// The last snapshot's lines that carry refs, for error messages.
    last_lines: Vec<String>,
}

thread_local! {
    static REFS: RefCell<Option<Refs>> = const { RefCell::new(None) };
}

fn with_refs<R>(f: impl FnOnce(&mut Refs) -> R) -> R {
    REFS.with(|r| {
        let mut r = r.borrow_mut();
        let refs = r.get_or_insert_with(|| Refs {
            numbers: js_sys::WeakMap::new(),
            frames: js_sys::WeakMap::new(),
            elements: Vec::new(),
            last: 0,
            last_frame: 0,
            last_lines: Vec::new(),
        });
        f(refs)
    })
}

/// The open modal dialog of `doc`, if any: a `showModal()` dialog, else a rendered
/// `role=dialog`/`alertdialog` with `aria-modal=true` (the last, which is usually on top). Either
/// makes the rest of the page unreachable, for the snapshot and for commands alike.
pub(crate) fn open_modal(doc: &web_sys::Document) -> Option<Element> {
    if let Some(d) = doc.query_selector("dialog:modal").ok().flatten() {
        return Some(d);
    }
    let list = doc
        .query_selector_all("[role=dialog][aria-modal=true],[role=alertdialog][aria-modal=true]")
        .ok()?;
    (0..list.length())
        .rev()
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into::<Element>())
        .find(|d| {
            let check = get(d, "checkVisibility");
            if check.is_function() {
                check
                    .unchecked_ref::<js_sys::Function>()
                    .call0(d)
                    .is_ok_and(|v| v.is_truthy())
            } else {
                d.get_bounding_client_rect().width() > 0.0
            }
        })
}

/// The number of `el`, given on first sight and kept for the page load.
pub(crate) fn ref_number(el: &Element) -> u32 {
    with_refs(|r| {
        let key: &js_sys::Object = el.unchecked_ref();
        if let Some(n) = r.numbers.get(key).as_f64() {
            let n = n as u32;
            if let Err(i) = r.elements.binary_search_by_key(&n, |e| e.0) {
                // Taken out of the document and put back: still the same element.
                r.elements.insert(i, (n, el.clone()));
            }
            return n;
        }
        r.last += 1;
        let n = r.last;
        r.numbers.set(key, &JsValue::from(n));
        r.elements.push((n, el.clone()));
        n
    })
}

/// The frame number of a frame element (`f1` is the first frame ever seen).
pub(crate) fn frame_number(frame: &Element) -> u32 {
    with_refs(|r| {
        let key: &js_sys::Object = frame.unchecked_ref();
        if let Some(n) = r.frames.get(key).as_f64() {
            return n as u32;
        }
        r.last_frame += 1;
        r.frames.set(key, &JsValue::from(r.last_frame));
        r.last_frame
    })
}

/// The element a ref (`e12`, `f1e40`) names, or an error that says what is on the page instead.
pub(crate) fn element_for_ref(r: &str) -> Result<Element, String> {
    let r = r.trim();
    let r = r.strip_prefix('@').unwrap_or(r);
    let r = r.strip_prefix("ref=").unwrap_or(r);
    let Some(n) = parse_ref(r) else {
        return Err(cat(&[
            "Not a ref: \"",
            r,
            "\" (refs look like e12, or f1e12 inside a frame)",
        ]));
    };
    let found = with_refs(|refs| {
        refs.elements
            .binary_search_by_key(&n, |e| e.0)
            .ok()
            .map(|i| refs.elements[i].1.clone())
    });
    if let Some(el) = found.filter(|el| el.is_connected()) {
        return Ok(el);
    }
    let last = with_refs(|refs| refs.last);
    let mut msg = if n > last {
        // Not a ref of this page load (a typo, or one from before a reload).
        let mut m = cat(&["There is no [ref=", r, "] on this page"]);
        if last > 0 {
            m.push_str(" (its refs go up to e");
            push_number(&mut m, last);
            m.push(')');
        }
        m
    } else {
        cat(&["Element [ref=", r, "] is no longer on the page"])
    };
    let lines = with_refs(|refs| refs.last_lines.clone());
    if lines.is_empty() {
        msg.push_str(". Take a snapshot first.");
    } else {
        msg.push_str(". Take a new snapshot; refs in the last one include: ");
        for (i, l) in lines.iter().take(10).enumerate() {
            if i > 0 {
                msg.push_str("; ");
            }
            msg.push_str(l.trim());
        }
    }
    Err(msg)
}

/// The last snapshot's lines that carry refs (`button "Save" [ref=e9]`); lets a command say what a
/// stale ref was.
pub(crate) fn last_lines() -> Vec<String> {
    with_refs(|refs| refs.last_lines.clone())
}

/// The number of `eN` or `fMeN`.
fn parse_ref(r: &str) -> Option<u32> {
    let rest = match r.strip_prefix('f') {
        Some(frame) => {
            let (f, n) = frame.split_once('e')?;
            parse_number(f)?;
            n
        }
        None => r.strip_prefix('e')?,
    };
    parse_number(rest).and_then(|n| u32::try_from(n).ok())
}

/// A non-negative decimal integer (ASCII digits only, at most 9 of them).
pub(crate) fn parse_number(s: &str) -> Option<i32> {
    if s.is_empty() || s.len() > 9 {
        return None;
    }
    let mut n = 0i32;
    for b in s.bytes() {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i32::from(b - b'0');
    }
    Some(n)
}

/// Concatenates string pieces.
pub(crate) fn cat(parts: &[&str]) -> String {
    let mut out = String::new();
    for p in parts {
        out.push_str(p);
    }
    out
}

/// Forgets elements that left the document (their numbers are never given out again).
fn prune() {
    with_refs(|r| r.elements.retain(|(_, el)| el.is_connected()));
}

/// Milliseconds since the epoch.
pub(crate) fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Resolves after `ms` milliseconds.
pub(crate) async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        set_timeout(&resolve, ms);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

/// The page's requests in flight, as counted by the bootstrap's fetch and XHR wrappers.
fn inflight() -> f64 {
    get(&agent_global(), "inflight").as_f64().unwrap_or(0.0)
}

/// When the page's request count last changed (a request started or finished), ms since the
/// epoch; 0 when it never did. Kept by the bootstrap as `la`.
fn last_activity() -> f64 {
    get(&agent_global(), "la").as_f64().unwrap_or(0.0)
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

/// Walks the page now and renders the snapshot text; records the walk time on
/// `window.__browserAgent.walkMs`.
pub(crate) fn take_now() -> String {
    let t0 = now_ms();
    prune();
    let nodes = walker::walk_page();
    let text = render(&nodes);
    let text = if text.is_empty() {
        "(empty page)".to_owned()
    } else {
        text
    };
    let lines: Vec<String> = text
        .lines()
        .filter(|l| has_sub(l, "[ref="))
        .map(str::to_owned)
        .collect();
    with_refs(|r| r.last_lines = lines);
    crate::set(&agent_global(), "walkMs", &JsValue::from_f64(now_ms() - t0));
    text
}

/// Waits for network idle, then walks the page.
pub(crate) async fn take() -> String {
    wait_network_idle().await;
    take_now()
}

#[cfg(test)]
mod tests {
    use super::{parse_number, parse_ref, push_number};

    #[test]
    fn ref_syntax() {
        assert_eq!(parse_ref("e1"), Some(1));
        assert_eq!(parse_ref("e123"), Some(123));
        assert_eq!(parse_ref("f1e3"), Some(3));
        assert_eq!(parse_ref("f12e400"), Some(400));
        for bad in ["", "e", "x1", "f1", "fe1", "e1x", "f1e", "1", "e-1", "e1234567890"] {
            assert_eq!(parse_ref(bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_number("0"), Some(0));
        assert_eq!(parse_number("42"), Some(42));
        assert_eq!(parse_number(" 4"), None);
        let mut s = String::from("e");
        push_number(&mut s, 0);
        push_number(&mut s, 4_294_967_295);
        assert_eq!(s, "e04294967295");
    }
}
