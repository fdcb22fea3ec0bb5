//! Refs: an element keeps its number for the whole page load (a `WeakMap` from element to number,
//! one counter that never goes back), so an earlier ref still means the same element after
//! unrelated changes. A ref whose element is gone goes to no other element, with one exception:
//! the element that took its place when the page redrew it, the one control of the same role and
//! name in a row with the same text ([`adopt`]), so a list redrawn after each change keeps its refs
//! and its diff shows what changed, not every row. Frames get numbers the same way (`f1e3` is
//! element 3 in frame 1).

use super::seen;
use crate::js::{as_element, get};
use crate::text::{cat, push_number};
use browser_agent_protocol::{Ref, ROWS};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Ref bookkeeping for the page load.
struct Refs {
    /// Element → its number (weak: a removed element takes its number with it).
    numbers: js_sys::WeakMap,
    /// Frame element → its frame number (`f1`, `f2`, … in ref prefixes).
    frames: js_sys::WeakMap,
    /// Number → element, for commands. Weak: an element taken out and put back (a menu closed
    /// and opened again) still answers to its ref, and one the page dropped is freed (its entry
    /// pruned each snapshot).
    elements: Vec<(u32, js_sys::WeakRef<Element>)>,
    /// The elements most recently given a number, held strongly (a ring of [`HELD`]), with their
    /// number and, for a snapshot's control, its role and name: one the page re-renders stays
    /// readable for a while, so a step with its ref can find the element that took its place
    /// ([`former_element`]) and the next snapshot can give that element its ref ([`adopt`]),
    /// instead of depending on when the browser collects it.
    held: Vec<Held>,
    /// The controls of `held` that left the page before this walk, each with its role, name and
    /// row text, found once each: the refs the walk may give to the elements that took their
    /// places ([`begin_walk`]).
    orphans: Vec<Orphan>,
    /// Where the next held element goes in `held`.
    next_held: usize,
    /// The last number given.
    last: u32,
    /// The last frame number given.
    last_frame: u32,
}

/// How many of the most recently numbered elements are held strongly (a bound on what detached
/// elements the refs keep alive).
const HELD: usize = 512;

/// One held element: its number and, when a snapshot numbered it as a control, its role and name.
struct Held {
    el: Element,
    number: u32,
    key: Option<(&'static str, String)>,
}

/// A held control that left the page: what it was and the row it sat in.
struct Orphan {
    number: u32,
    role: &'static str,
    name: String,
    row: String,
}

/// The text of the row `el` sits in, whitespace collapsed: its [`ROWS`] ancestor's, else, for a
/// control whose own text says nothing (a glyph: a card of `<div>`s,
/// `<span>Fix login bug</span><button>×</button>`), the nearest of its [`CARD_DEPTH`] ancestors
/// that has more text than `el`, when that text is short (a card, not a section; a toolbar's
/// `Save` is told by its name alone). `None` outside any, or for an empty one.
pub(crate) fn row_text(el: &Element) -> Option<String> {
    let words = |e: &Element| -> String {
        let text = e.text_content().unwrap_or_default();
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    // (A component's control, in its shadow root, is in the row around its host.)
    if let Some(row) = crate::js::closest_composed(el, ROWS) {
        let text = words(&row);
        return (!text.is_empty()).then_some(text);
    }
    // Named by something of its own (a field by its label, a button by its text, `aria-label` or
    // `title`): told apart by that, as before.
    let says = |t: &str| t.chars().any(char::is_alphanumeric);
    let own = words(el);
    if says(&own)
        || matches!(el.local_name().as_str(), "input" | "select" | "textarea")
        || ["aria-label", "title"]
            .iter()
            .any(|a| el.get_attribute(a).is_some_and(|v| says(&v)))
    {
        return None;
    }
    let own = own.len();
    let mut at = el.parent_element();
    for _ in 0..CARD_DEPTH {
        let card = at?;
        if matches!(card.local_name().as_str(), "body" | "html") {
            return None;
        }
        let text = words(&card);
        if text.len() > own {
            return (text.len() <= CARD_TEXT).then_some(text);
        }
        at = card.parent_element();
    }
    None
}

/// How many ancestors up a control's card is looked for ([`row_text`]).
const CARD_DEPTH: usize = 3;
/// Most bytes of text a card has (more is a section or a page, not one item).
const CARD_TEXT: usize = 120;

thread_local! {
    /// The page load's refs, made on first use.
    static REFS: RefCell<Option<Refs>> = const { RefCell::new(None) };
}

/// Runs `f` on the refs (made on first use).
fn with_refs<R>(f: impl FnOnce(&mut Refs) -> R) -> R {
    REFS.with(|r| {
        let mut r = r.borrow_mut();
        let refs = r.get_or_insert_with(|| Refs {
            numbers: js_sys::WeakMap::new(),
            frames: js_sys::WeakMap::new(),
            elements: Vec::new(),
            held: Vec::new(),
            orphans: Vec::new(),
            next_held: 0,
            last: 0,
            last_frame: 0,
        });
        f(refs)
    })
}

/// Why a ref names no element.
pub(crate) enum RefError {
    /// Not the syntax of a ref.
    NotARef,
    /// A number this page load never gave out (a typo, or a ref from before a reload); `last` is
    /// the highest it gave.
    Unknown {
        /// The ref as given.
        r: String,
        /// The highest number given so far.
        last: u32,
    },
    /// The element it named left the document.
    Gone(String),
}

impl RefError {
    /// The text for the agent: what is wrong, and what the last snapshot had instead.
    pub(crate) fn message(&self) -> String {
        let mut msg = match self {
            // The host reads every step's ref first and refuses what is none, saying what refs
            // look like (core's `REF_FORM`): this is only a guard.
            RefError::NotARef => return crate::commands::step::bad_field("ref"),
            RefError::Unknown { r, last } => {
                let mut m = cat(&["There is no [ref=", r, "] on this page"]);
                if *last > 0 {
                    m.push_str(" (its refs go up to e");
                    push_number(&mut m, *last);
                    m.push(')');
                }
                m
            }
            RefError::Gone(r) => cat(&["Element [ref=", r, "] is no longer on the page"]),
        };
        let lines = seen::last_lines();
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
        msg
    }
}

/// The number of `el`, given on first sight and kept for the page load.
pub(crate) fn ref_number(el: &Element) -> u32 {
    numbered(el, None)
}

/// The number of a snapshot's control `el` of `role` and `name`: its own, or, when it is new, the
/// one of the control it took the place of ([`adopt`]), or a new one.
pub(crate) fn control_ref_number(el: &Element, role: &'static str, name: &str) -> u32 {
    numbered(el, Some((role, name)))
}

fn numbered(el: &Element, control: Option<(&'static str, &str)>) -> u32 {
    let key: &js_sys::Object = el.unchecked_ref();
    if let Some(n) = with_refs(|r| r.numbers.get(key).as_f64()) {
        return n as u32;
    }
    // (Read outside the borrow: the row's text is the page's.)
    let adopted = control.and_then(|(role, name)| adopt(el, role, name));
    with_refs(|r| {
        let n = adopted.unwrap_or_else(|| {
            r.last += 1;
            r.last
        });
        r.numbers.set(key, &JsValue::from(n));
        let weak = js_sys::WeakRef::new(el);
        match r.elements.binary_search_by_key(&n, |e| e.0) {
            Ok(i) => r.elements[i].1 = weak,
            Err(i) => r.elements.insert(i, (n, weak)),
        }
        r.hold(Held {
            el: el.clone(),
            number: n,
            key: control.map(|(role, name)| (role, name.to_owned())),
        });
        n
    })
}

impl Refs {
    /// Holds `held` in the ring, in place of the oldest when it is full.
    fn hold(&mut self, held: Held) {
        if self.held.len() < HELD {
            self.held.push(held);
        } else {
            self.held[self.next_held] = held;
        }
        self.next_held = (self.next_held + 1) % HELD;
    }
}

/// Finds the controls of the last walks that left the page since (a list redrawn: its rows'
/// checkboxes and buttons are new elements), so this walk can give their refs to the ones that
/// took their places. Nothing to do, and nothing read, when every held element is still there.
pub(crate) fn begin_walk() {
    let gone: Vec<(u32, &'static str, String, Element)> = with_refs(|r| {
        r.orphans.clear();
        r.held
            .iter()
            .filter_map(|h| {
                let (role, name) = h.key.as_ref()?;
                (!h.el.is_connected()).then(|| (h.number, *role, name.clone(), h.el.clone()))
            })
            .collect()
    });
    if gone.is_empty() {
        return;
    }
    let mut orphans: Vec<Orphan> = Vec::new();
    for (number, role, name, el) in gone {
        // Its number must still be its own (not given to a successor already).
        let own = with_refs(|r| {
            r.elements
                .binary_search_by_key(&number, |e| e.0)
                .ok()
                .and_then(|i| r.elements[i].1.deref())
                .is_some_and(|e| e == el)
        });
        if let (true, Some(row)) = (own, row_text(&el)) {
            orphans.push(Orphan {
                number,
                role,
                name,
                row,
            });
        }
    }
    // Rows alike in all three tell nothing apart: none of them passes its ref on.
    let alike = |a: &Orphan, b: &Orphan| a.role == b.role && a.name == b.name && a.row == b.row;
    let unique: Vec<Orphan> = orphans
        .iter()
        .enumerate()
        .filter(|(i, a)| !orphans.iter().enumerate().any(|(j, b)| j != *i && alike(a, b)))
        .map(|(_, a)| Orphan {
            number: a.number,
            role: a.role,
            name: a.name.clone(),
            row: a.row.clone(),
        })
        .collect();
    with_refs(|r| r.orphans = unique);
}

/// The number of the control that left the page and that `el` took the place of: the same role
/// and name in a row with the same text. Each is given once, to the first such control the walk
/// meets in document order.
fn adopt(el: &Element, role: &'static str, name: &str) -> Option<u32> {
    if with_refs(|r| !r.orphans.iter().any(|o| o.role == role && o.name == name)) {
        return None;
    }
    let row = row_text(el)?;
    with_refs(|r| {
        let i = r
            .orphans
            .iter()
            .position(|o| o.role == role && o.name == name && o.row == row)?;
        Some(r.orphans.swap_remove(i).number)
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

/// The frame number of the frame whose document holds `el` (`None` in the page's own document).
fn frame_of(el: &Element) -> Option<u32> {
    let doc = get(el, "ownerDocument");
    if doc == get(&js_sys::global(), "document") {
        return None;
    }
    as_element(get(&get(&doc, "defaultView"), "frameElement")).map(|frame| frame_number(&frame))
}

/// A ref as the snapshot writes it: `e3`, or `f1e3` inside frame 1.
fn write(frame: Option<u32>, number: u32) -> String {
    let mut r = String::new();
    if let Some(f) = frame {
        r.push('f');
        push_number(&mut r, f);
    }
    r.push('e');
    push_number(&mut r, number);
    r
}

/// The ref of an element (given now if it has none yet; the snapshot keeps the same number), with
/// its frame's prefix (`f1e3`) when it lives in a frame's document, as the snapshot writes it.
pub(crate) fn ref_of(el: &Element) -> String {
    write(frame_of(el), ref_number(el))
}

/// The element a ref (`e12`, `f1e40`, as agents write them: `@e12`, `ref=e12`) names.
pub(crate) fn element_for_ref(r: &str) -> Result<Element, RefError> {
    let Some(Ref { frame, number: n }) = Ref::parse(r) else {
        return Err(RefError::NotARef);
    };
    let found = with_refs(|refs| {
        refs.elements
            .binary_search_by_key(&n, |e| e.0)
            .ok()
            .and_then(|i| refs.elements[i].1.deref())
    });
    let last = with_refs(|refs| refs.last);
    let r = write(frame, n);
    match found.filter(|el| el.is_connected()) {
        // Numbers are unique across frames, so `e3` finds frame 1's `f1e3`; a prefix given must
        // be the element's own (`f9e3` is a wrong ref, not another way to write it).
        Some(el) if frame.is_none() || frame_of(&el) == frame => Ok(el),
        Some(_) => Err(RefError::Unknown { r, last }),
        None if n > last || n == 0 => Err(RefError::Unknown { r, last }),
        None => Err(RefError::Gone(r)),
    }
}

/// The element ref `r` named, when it has left the page (re-rendered, removed) and the browser
/// still holds it: what it was, to find the element that took its place.
pub(crate) fn former_element(r: &str) -> Option<Element> {
    let Ref { number: n, .. } = Ref::parse(r)?;
    with_refs(|refs| {
        refs.elements
            .binary_search_by_key(&n, |e| e.0)
            .ok()
            .and_then(|i| refs.elements[i].1.deref())
    })
    .filter(|el| !el.is_connected())
}

/// Gives ref `r`, whose element left the page, to `el`, the element that took its place (a step
/// with the old ref found it), when `el` has no number of its own yet: answers and later
/// snapshots name it as the agent did.
pub(crate) fn pass_on(r: &str, el: &Element) {
    let Some(Ref { number: n, .. }) = Ref::parse(r) else {
        return;
    };
    with_refs(|refs| {
        let key: &js_sys::Object = el.unchecked_ref();
        if !refs.numbers.get(key).is_undefined() {
            return;
        }
        if let Ok(i) = refs.elements.binary_search_by_key(&n, |e| e.0) {
            refs.numbers.set(key, &JsValue::from(n));
            refs.elements[i].1 = js_sys::WeakRef::new(el);
            // Held with what the snapshot saw, so a redraw after this step passes it on again.
            let key = refs.held.iter().find(|h| h.number == n).and_then(|h| h.key.clone());
            refs.hold(Held {
                el: el.clone(),
                number: n,
                key,
            });
        }
    })
}

/// Forgets elements the page let go of (their numbers are never given out again).
pub(crate) fn prune() {
    with_refs(|r| r.elements.retain(|(_, el)| el.deref().is_some()));
}

#[cfg(test)]
mod tests {
    use super::RefError;
    use crate::snapshot::seen;

    #[test]
    fn messages() {
        assert_eq!(RefError::NotARef.message(), "invalid or missing \"ref\"");
        seen::record(Vec::new());
        assert_eq!(
            RefError::Unknown {
                r: "e99".into(),
                last: 0
            }
            .message(),
            "There is no [ref=e99] on this page. Take a snapshot first."
        );
        seen::tests::record("button \"Save\" [ref=e1]\nlink \"Home\" [ref=e2]");
        assert_eq!(
            RefError::Unknown { r: "e99".into(), last: 7 }.message(),
            "There is no [ref=e99] on this page (its refs go up to e7). Take a new snapshot; refs in the last one include: button \"Save\" [ref=e1]; link \"Home\" [ref=e2]"
        );
        assert_eq!(
            RefError::Gone("e1".into()).message(),
            "Element [ref=e1] is no longer on the page. Take a new snapshot; refs in the last one include: button \"Save\" [ref=e1]; link \"Home\" [ref=e2]"
        );
    }
}
