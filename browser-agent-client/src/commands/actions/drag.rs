//! `drag`: presses the target, moves the pointer in steps to the destination (`to`, or `dx`/`dy`
//! from the press point) and releases there, as a person's mouse does; and HTML5 drag and drop
//! ([`native`]) where Chromium would start one. The answer says what moved: the order of the
//! lists around the source and the destination before and after ([`lists`]), or how far the
//! source moved.
//!
//! The sequence (Chromium's, for a mouse; what SortableJS, dnd-kit, @hello-pangea/dnd and jQuery
//! UI listen to):
//! - over/enter events and a move onto the source, then `pointerdown`, `mousedown`;
//! - [`MIN_MOVES`] to [`MAX_MOVES`] moves along the line, one a frame (Chromium sends at most one
//!   move a frame; libraries need a distance past a threshold, and some a frame between moves):
//!   `pointermove` (`button` -1) and `mousemove` (`button` 0), `buttons` 1, at the element under
//!   the point (`elementsFromPoint`, into shadow roots), with over/out/enter/leave as it changes;
//!   the page's own frame and short timers run between moves;
//! - `pointerup`, `mouseup` at the element under the destination, then `click` at the nearest
//!   element holding both the pressed and the released one (Chromium's click after a move).
//!
//! A `pointerdown` the page cancels keeps the mouse events (but over/out/enter/leave) from being
//! sent, as in Chromium. HTML5: when the `mousedown` was not cancelled and the pressed element or
//! an ancestor is `draggable` (the attribute, or a link or image, whose default it is; SortableJS
//! sets it in its `pointerdown`), the first move past 4 px starts a drag: see [`native`].
//!
//! A page that captures the pointer in its `pointerdown` gets the moves and the release at the
//! capturing element, as from a person's mouse ([`super::capture`]); a slider's answer says its
//! value before and after.
//!
//! An item that moves only by its handle is pressed on the handle ([`handle`]). A drop that saves
//! first and redraws when the server answers is judged once the requests it started ended.

mod handle;
mod lists;
mod native;
mod point;

use super::super::batch;
use super::super::resolve::{self, describe, short, Target};
use super::super::step::Outcome;
use super::super::target::target;
use super::capture;
use super::pointer::focus_for_press;
use super::reach::{centre, landing_when_still_at, mouse, rect, scroll_into_view};
use super::settle;
use crate::cursor;
use crate::js::{
    attribute, call, disabled, fire, get, global, js_number, js_string, now_ms, object, set, set_timeout, sleep,
    window_of,
};
use crate::snapshot::idle;
use crate::text::{cat, num};
use browser_agent_protocol::{DRAG_DX, DRAG_DY, DRAG_TO};
use js_sys::{Function, Promise};
use point::element_at;
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// Fewest moves between the press and the release (a short drag still crosses a library's
/// threshold in several moves, as a hand does).
const MIN_MOVES: f64 = 8.0;
/// Most moves (a long drag's steps grow past [`STEP_PX`]).
const MAX_MOVES: f64 = 40.0;
/// Length of a move (CSS pixels) between those bounds.
const STEP_PX: f64 = 16.0;
/// How long the pointer rests on the destination before the release (ms).
const REST_MS: i32 = 60;
/// How far the pointer moves before Chromium starts an HTML5 drag (its drag threshold).
const DRAG_THRESHOLD_PX: f64 = 4.0;
/// Longest the step waits for the requests the drag started (a drop that saves, then redraws
/// from the server's answer) before it reads what moved (ms); never closer than
/// [`SAVE_MARGIN_MS`] to the batch's deadline.
const SAVE_WAIT_MS: f64 = 5_000.0;
/// What that wait leaves of the batch's time.
const SAVE_MARGIN_MS: f64 = 500.0;

/// `{"command":"drag", target, "to": {target} | "dx"?, "dy"?}`.
pub(super) async fn drag(step: &JsValue) -> Outcome {
    let src = target(step, false)?;
    if disabled(&src.el) {
        return Err(cat(&[&src.label, " is disabled"]));
    }
    let to = get(step, DRAG_TO);
    let dest = if to.is_object() {
        let d = resolve::resolve(&to, false, true).map_err(|m| cat(&["to: ", &m.into_text()]))?;
        if src.el.contains(Some(&d.el)) {
            return Err(cat(&["to: ", &d.label, " is inside the dragged ", &src.label]));
        }
        Some(d)
    } else {
        None
    };
    let offset = (
        get(step, DRAG_DX).as_f64().unwrap_or(0.0),
        get(step, DRAG_DY).as_f64().unwrap_or(0.0),
    );
    scroll_into_view(&src.el).await;
    if let Some(d) = &dest {
        both_in_view(&src, d).await?;
    }
    batch::note(&src);
    let (mut at, mut x0, mut y0) = landing_when_still_at(&src, None).await?;
    // Its item's handle, when the item moves only by it (a person grabs the handle).
    let item = lists::item_of(&src.el).unwrap_or_else(|| src.el.clone());
    let mut by_handle = None;
    let mut unused = Vec::new();
    if item.contains(Some(&at)) {
        let found = handle::handles(&item);
        match found.as_slice() {
            [h] if !handle::grabs(&at, &item) => {
                let t = Target {
                    el: h.clone(),
                    label: short(h),
                };
                if let Ok(l) = landing_when_still_at(&t, None).await {
                    (at, x0, y0) = l;
                    by_handle = Some(t.label);
                }
            }
            _ => {}
        }
        if by_handle.is_none() {
            unused = found;
            unused.retain(|h| !h.contains(Some(&at)));
        }
    }
    let (x1, y1) = match &dest {
        Some(d) => {
            // 1 px past the centre, along the drag (down and right where it is level): a pointer
            // on the centre line is in neither half, and libraries that compare halves (jQuery
            // UI, SortableJS between lists) then move nothing.
            let (cx, cy) = centre(&d.el);
            let past = |v: f64| if v < 0.0 { -1.0 } else { 1.0 };
            (cx + past(cx - x0), cy + past(cy - y0))
        }
        None => (x0 + offset.0, y0 + offset.1),
    };
    let Some(end_el) = element_at(&at, x1, y1) else {
        return Err(match &dest {
            Some(d) => cat(&[
                &d.label,
                " is outside the visible area (at ",
                &num(x1),
                ", ",
                &num(y1),
                ")",
            ]),
            None => cat(&[
                "the point ",
                &num(offset.0),
                ", ",
                &num(offset.1),
                " from ",
                &src.label,
                " (",
                &num(x1),
                ", ",
                &num(y1),
                ") is outside the visible area",
            ]),
        });
    };
    let before = lists::Around::before(&src.el, dest.as_ref().map_or(&end_el, |d| &d.el));
    let box0 = rect(&src.el);
    let (inflight, t0) = (idle::inflight(), now_ms());

    cursor::move_to(x0, y0).await;
    super::hover::hover_at(&at, x0, y0);
    cursor::press().await;
    let mut capture = capture::Capture::emulate(&at);
    let mark = settle::mark();
    let down = fire(&at, "PointerEvent", "pointerdown", &mouse(x0, y0, 1, 1, true));
    // A cancelled pointerdown keeps the mouse events from being sent (boundary events aside).
    let pressed = down && fire(&at, "MouseEvent", "mousedown", &mouse(x0, y0, 1, 1, true));
    if pressed {
        focus_for_press(&at);
    }
    let _ = settle::settle(mark, 0, false).await;
    // Read after the press: SortableJS makes its item draggable in its pointerdown.
    let source = if pressed { native::draggable(&at) } else { None };
    let value0 = slider_value(&src.el);

    if cursor::enabled() {
        // The drawn cursor glides to the destination while the moves go there.
        wasm_bindgen_futures::spawn_local(cursor::move_to(x1, y1));
    }
    let distance = (x1 - x0).hypot(y1 - y0);
    let moves = (distance / STEP_PX).ceil().clamp(MIN_MOVES, MAX_MOVES);
    let mut under = at.clone();
    let mut dnd: Option<native::Drag> = None;
    let mut tried = false;
    for i in 1..=moves as u32 {
        let t = f64::from(i) / moves;
        let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
        let mark = settle::mark();
        if let Some(d) = &mut dnd {
            d.step(&at, x, y);
        } else {
            if let Some(now) = element_at(&at, x, y) {
                // Under capture the browser sends no boundary events to what the pointer crosses.
                if !capture.held() {
                    cross(&under, &now, x, y);
                }
                under = now;
            }
            let to = capture.route(&under, x, y);
            let mv = mouse(x, y, 1, 0, true);
            set(&mv, "button", &js_number(-1.0));
            fire(&to, "PointerEvent", "pointermove", &mv);
            if down {
                fire(&to, "MouseEvent", "mousemove", &mouse(x, y, 1, 0, true));
            }
            let past = (x - x0).hypot(y - y0) > DRAG_THRESHOLD_PX;
            if let (Some(s), false, true) = (&source, tried, past) {
                tried = true;
                dnd = native::Drag::start(s, &under, x0, y0);
                if let Some(d) = &mut dnd {
                    d.step(&at, x, y);
                }
            }
        }
        let _ = settle::settle(mark, 0, false).await;
        frame().await;
    }
    let how = if let Some(mut d) = dnd {
        // A pointer resting over a drop target: Chromium repeats dragover every 50 ms.
        for _ in 0..2 {
            sleep(50).await;
            let mark = settle::mark();
            d.step(&at, x1, y1);
            let _ = settle::settle(mark, 0, false).await;
        }
        d.finish(x1, y1)
    } else {
        // A hand rests on the destination before letting go (SortableJS's fallback reads
        // the pointer every 50 ms).
        sleep(REST_MS).await;
        release(&at, &under, x1, y1, down, &mut capture);
        ""
    };
    // The page's capture methods are the browser's again.
    drop(capture);
    cursor::release().await;
    let _ = settle::settle(settle::mark(), if cursor::enabled() { 120 } else { 0 }, false).await;
    // A drop that re-renders (React's commit after a drop animation) has its frame.
    frame().await;
    let _ = settle::settle(settle::mark(), 0, false).await;
    let mut late = String::new();
    if idle::last_activity() >= t0 && !batch::navigating() {
        // A drop that saves first and redraws from the server's answer (`await fetch(…); await
        // load()`): what moved shows once the requests it started are answered.
        let max = batch::time_left().map_or(SAVE_WAIT_MS, |l| (l - SAVE_MARGIN_MS).min(SAVE_WAIT_MS));
        if let Err(n) = idle::wait_requests_done(inflight, max.max(0.0)).await {
            late = cat(&[
                "; ",
                &num(n),
                if n == 1.0 { " request" } else { " requests" },
                " it started still ran after ",
                &num(max.max(0.0)),
                " ms",
            ]);
        }
        frame().await;
        let _ = settle::settle(settle::mark(), 0, false).await;
    }

    let mut out = match &by_handle {
        Some(h) => {
            let mut label = if item == src.el {
                src.label.clone()
            } else {
                describe(&item)
            };
            if !label.contains('"') {
                // A list item has no name of its own: its text.
                label.push_str(" \"");
                label.push_str(&lists::text_of(&item));
                label.push('"');
            }
            cat(&["dragged ", &label, " by its handle ", h])
        }
        None => cat(&["dragged ", &src.label]),
    };
    match &dest {
        Some(d) => {
            out.push_str(" to ");
            out.push_str(&d.label);
        }
        None => {
            out.push_str(" by ");
            out.push_str(&num(offset.0));
            out.push_str(", ");
            out.push_str(&num(offset.1));
        }
    }
    out.push_str(how);
    let value1 = slider_value(&src.el);
    match before.after() {
        Some(changes) => out.push_str(&changes),
        None if value0 != value1 => {
            out.push_str("; its value ");
            out.push_str(value0.as_deref().unwrap_or("(none)"));
            out.push_str(" → ");
            out.push_str(value1.as_deref().unwrap_or("(none)"));
        }
        None if src.el.is_connected() => {
            let box1 = rect(&src.el);
            let (mx, my) = (box1.0 - box0.0, box1.1 - box0.1);
            if mx.abs() >= 1.0 || my.abs() >= 1.0 {
                out.push_str("; it moved ");
                out.push_str(&num(mx));
                out.push_str(", ");
                out.push_str(&num(my));
                out.push_str(" px");
            } else {
                out.push_str("; no list order changed and it did not move");
                if let Some(h) = unused.first() {
                    out.push_str("; its item holds ");
                    out.push_str(&short(h));
                    out.push_str(if unused.len() == 1 {
                        ", which looks like a drag handle: drag by that"
                    } else {
                        " and other elements that look like drag handles: drag by one of those"
                    });
                    if let Some(sel) = handle::selector(h) {
                        out.push_str(" ({\"selector\":\"");
                        out.push_str(&sel);
                        out.push_str("\"})");
                    }
                }
            }
        }
        None => {
            out.push_str("; the page replaced the dragged element");
            if let Some(now) = before.found_now() {
                out.push_str(": ");
                out.push_str(&now);
            }
        }
    }
    out.push_str(&late);
    Ok(js_string(&out))
}

/// A slider's value as it says it (`aria-valuetext`, else `aria-valuenow`; a range input's
/// `value`): what a drag of its thumb changes.
fn slider_value(el: &Element) -> Option<String> {
    attribute(el, "aria-valuetext")
        .or_else(|| attribute(el, "aria-valuenow"))
        .or_else(|| {
            (el.tag_name() == "INPUT" && attribute(el, "type").as_deref() == Some("range"))
                .then(|| get(el, "value").as_string())
                .flatten()
        })
}

/// Scrolls `dest` into view (nearest edge) when it is not, and fails when the source is then out
/// of view: a person's drag needs both on screen (page auto-scroll aside).
async fn both_in_view(src: &Target, dest: &Target) -> Result<(), String> {
    if in_view(&dest.el) {
        return Ok(());
    }
    let opts = object(&[("block", js_string("nearest")), ("inline", js_string("nearest"))]);
    let _ = call(&dest.el, "scrollIntoView", &[&opts]);
    frame().await;
    if in_view(&src.el) && in_view(&dest.el) {
        return Ok(());
    }
    Err(cat(&[
        &src.label,
        " and ",
        &dest.label,
        " do not fit in the window together; scroll or resize so both show, or drag by dx/dy in steps",
    ]))
}

/// Whether the centre of `el` is inside its window's viewport.
fn in_view(el: &Element) -> bool {
    let (x, y) = centre(el);
    let w = window_of(el);
    let vw = get(&w, "innerWidth").as_f64().unwrap_or(0.0);
    let vh = get(&w, "innerHeight").as_f64().unwrap_or(0.0);
    (0.0..vw).contains(&x) && (0.0..vh).contains(&y)
}

/// The pointer moves from `prev` onto `next` with the button held: out/leave for what it leaves,
/// over/enter for what it enters (pointer and mouse; these are sent even after a cancelled
/// pointerdown).
fn cross(prev: &Element, next: &Element, x: f64, y: f64) {
    if prev == next {
        return;
    }
    let both = |e: &Element, pointer: &str, mouse_type: &str, bubbles: bool| {
        fire(e, "PointerEvent", pointer, &mouse(x, y, 1, 0, bubbles));
        fire(e, "MouseEvent", mouse_type, &mouse(x, y, 1, 0, bubbles));
    };
    if prev.is_connected() {
        both(prev, "pointerout", "mouseout", true);
        let mut cur = Some(prev.clone());
        while let Some(e) = cur {
            if e.contains(Some(next)) {
                break;
            }
            both(&e, "pointerleave", "mouseleave", false);
            cur = e.parent_element();
        }
    }
    both(next, "pointerover", "mouseover", true);
    let mut entered = Vec::new();
    let mut cur = Some(next.clone());
    while let Some(e) = cur {
        if e.contains(Some(prev)) {
            break;
        }
        cur = e.parent_element();
        entered.push(e);
    }
    for e in entered.iter().rev() {
        both(e, "pointerenter", "mouseenter", false);
    }
}

/// Releases the button over `under` (at the destination), or at the element holding the
/// pointer's capture: pointerup, mouseup (unless the pointerdown was cancelled), the end of the
/// capture, then click at the nearest element holding both `pressed` and the released one, as
/// Chromium clicks after a move (libraries that dragged cancel that click).
fn release(pressed: &Element, under: &Element, x: f64, y: f64, compat: bool, capture: &mut capture::Capture) {
    let under = &capture.route(under, x, y);
    fire(under, "PointerEvent", "pointerup", &mouse(x, y, 0, 1, true));
    if compat {
        fire(under, "MouseEvent", "mouseup", &mouse(x, y, 0, 1, true));
    }
    capture.release(x, y);
    if !pressed.is_connected() || !under.is_connected() {
        return;
    }
    let mut common = Some(pressed.clone());
    while let Some(e) = &common {
        if e.contains(Some(under)) {
            break;
        }
        common = e.parent_element();
    }
    if let Some(c) = common {
        fire(&c, "PointerEvent", "click", &mouse(x, y, 0, 1, true));
    }
}

/// Resolves on the page's next animation frame (or after 50 ms, where frames do not run: a
/// hidden tab).
async fn frame() {
    let p = Promise::new(&mut |resolve: Function, _| {
        let _ = call(&global(), "requestAnimationFrame", &[&resolve]);
        set_timeout(&resolve, 50);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}
