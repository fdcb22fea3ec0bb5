//! The pointer's presses: the pointer and mouse events of a press in browser order, at where it
//! lands ([`super::reach`]) (the target's centre, or a point in it), with the left, right or
//! middle button: `click`/`dblclick`, and `down`/`up`, which hold a button across steps.

use super::super::batch;
use super::super::resolve::{self, describe, Target};
use super::super::step::{field, Outcome};
use super::super::target::target;
use super::capture;
use super::hover::hover_at;
use super::reach::{hit, landing_when_still_at, mouse, mouse_button, scroll_into_view, step_point};
use super::settle;
use crate::bootstrap;
use crate::cursor;
use crate::js::{as_element, call, closest, disabled, fire, get, js_string};
use crate::text::cat;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// A mouse button, as a step's `button` names it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Button {
    Left,
    Right,
    Middle,
}

impl Button {
    /// The step's `button` (the host refused any other word); left when not given.
    fn of(step: &JsValue) -> Button {
        match field(step, "button").map(|b| b.to_ascii_lowercase()).as_deref() {
            Some("right") => Button::Right,
            Some("middle") => Button::Middle,
            _ => Button::Left,
        }
    }

    /// Its events' `button`.
    fn code(self) -> i32 {
        match self {
            Button::Left => 0,
            Button::Right => 2,
            Button::Middle => 1,
        }
    }

    /// Its bit in the events' `buttons` while it is held.
    fn bit(self) -> u32 {
        match self {
            Button::Left => 1,
            Button::Right => 2,
            Button::Middle => 4,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Button::Left => "left",
            Button::Right => "right",
            Button::Middle => "middle",
        }
    }
}

/// A button a `down` step pressed and no `up` released yet: where it went down.
struct Held {
    button: Button,
    at: Element,
    /// The point it went down at, in the viewport.
    x: f64,
    y: f64,
    /// Whether the press fired mouse events (a prevented pointerdown stops them until the release).
    mouse_events: bool,
}

thread_local! {
    /// The button held between a batch's `down` and `up` steps (released at the batch's end).
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// Focuses what a press at `el` focuses: its nearest focusable ancestor-or-self; otherwise the
/// focused element loses focus.
pub(super) fn focus_for_press(el: &Element) {
    let focusable = closest(
        el,
        "a[href],button,input,select,textarea,summary,iframe,[tabindex],[contenteditable]",
    );
    super::focus::focus(focusable.as_ref());
}

/// A button going down at `at`: pointerdown, then (unless the page prevented it) mousedown and
/// the focus; a right button then opens the context menu (`contextmenu`, fired on the press as
/// Chromium does outside Windows, whether or not the page prevented the press). Returns whether
/// the mouse events follow the pointer events (a prevented pointerdown stops them) and, for the
/// right button, whether the page let the browser's own menu open.
fn button_down(at: &Element, x: f64, y: f64, button: Button, detail: u32) -> (bool, bool) {
    let (code, bits) = (button.code(), button.bit());
    let down = fire(
        at,
        "PointerEvent",
        "pointerdown",
        &mouse_button(x, y, code, bits, 0, true),
    );
    if down
        && fire(
            at,
            "MouseEvent",
            "mousedown",
            &mouse_button(x, y, code, bits, detail, true),
        )
    {
        focus_for_press(at);
    }
    let native_menu = button == Button::Right
        && fire(
            at,
            "PointerEvent",
            "contextmenu",
            &mouse_button(x, y, code, bits, 0, true),
        );
    (down, native_menu)
}

/// A button going up at `at`: pointerup, mouseup (when the press's mouse events were fired).
fn button_up(at: &Element, x: f64, y: f64, button: Button, detail: u32, mouse_events: bool) {
    let code = button.code();
    fire(at, "PointerEvent", "pointerup", &mouse_button(x, y, code, 0, 0, true));
    if mouse_events {
        fire(at, "MouseEvent", "mouseup", &mouse_button(x, y, code, 0, detail, true));
    }
}

/// The click that follows a release at `up` of a press at `down`: on their nearest common
/// ancestor, as Chromium does; `click` for the main button (which also runs the element's
/// activation), `auxclick` for the others.
fn button_click(down: &Element, up: &Element, x: f64, y: f64, button: Button, detail: u32) {
    let mut on = Some(up.clone());
    while let Some(e) = &on {
        if e.contains(Some(down)) {
            break;
        }
        on = e.parent_element();
    }
    let Some(on) = on else { return };
    let kind = if button == Button::Left { "click" } else { "auxclick" };
    fire(
        &on,
        "PointerEvent",
        kind,
        &mouse_button(x, y, button.code(), 0, detail, true),
    );
}

/// The press events of `clicks` clicks of `button` at `at` (and dblclick after the second left
/// click); for the right button, whether the page let the browser's own menu open.
fn press_sequence(at: &Element, x: f64, y: f64, clicks: u32, button: Button) -> bool {
    let mut native_menu = false;
    for detail in 1..=clicks {
        let (mouse_events, menu) = button_down(at, x, y, button, detail);
        native_menu |= menu;
        // The release goes to what is under the pointer then: a menu the page drew at the point
        // of a right click gets it, and the auxclick goes to what the two share (the left
        // button's click keeps to the element pressed, as it always has here).
        let up_at = match button {
            Button::Left => at.clone(),
            _ => hit(at, x, y).unwrap_or_else(|| at.clone()),
        };
        button_up(&up_at, x, y, button, detail, mouse_events);
        button_click(at, &up_at, x, y, button, detail);
    }
    if clicks == 2 && button == Button::Left {
        fire(at, "MouseEvent", "dblclick", &mouse(x, y, 0, 2, true));
    }
    native_menu
}

/// Scrolls, checks, moves the cursor and clicks `t` (`clicks` times).
pub(super) async fn click_target(t: &Target, clicks: u32) -> Result<(), String> {
    click_at(t, clicks, Button::Left, None).await.map(|_| ())
}

/// Scrolls, checks, moves the cursor and clicks `t` (`clicks` times) with `button` at `point` (in
/// the viewport; `None`: where [`landing_at`] puts a press); for the right button, whether the page
/// let the browser's own menu open.
async fn click_at(t: &Target, clicks: u32, button: Button, point: Option<(f64, f64)>) -> Result<bool, String> {
    if disabled(&t.el) {
        return Err(cat(&[&t.label, " is disabled"]));
    }
    scroll_into_view(&t.el).await;
    batch::note(t);
    let (at, x, y) = landing_when_still_at(t, point).await?;
    cursor::move_to(x, y).await;
    let mark = settle::mark();
    let due = bootstrap::field(bootstrap::HOVER_DUE);
    hover_at(&at, x, y);
    // A timer the pointer's arrival set (a menu that opens when the pointer stays on its button)
    // is waited for, as after a `hover`, once the pointer has left what the click hid: the next
    // step finds the menu's items, and a chosen item's menu stays closed.
    let hover_intent = bootstrap::field(bootstrap::HOVER_DUE) != due;
    cursor::press().await;
    let native_menu = press_sequence(&at, x, y, clicks, button);
    if batch::navigating() {
        // The page is about to go: hand the batch over before it does.
        return Ok(native_menu);
    }
    cursor::release().await;
    // Let the page's handlers (timers, microtasks, re-renders) run before the next step.
    let _ = settle::settle(mark, if cursor::enabled() { 120 } else { 0 }, false).await;
    // A web component the press is in that animates (a dialog or list fading out after its
    // button closed it): the next step finds it gone, not half-closed over the page.
    super::reach::components_still(&at).await;
    // What the click hid or moved from under the pointer (a menu's chosen item) is left, and what
    // is there now entered, as for a person's still mouse: a menu's leave handler then cancels
    // the reopen its enter handler had set.
    if let Some(under) = hit(&at, x, y) {
        hover_at(&under, x, y);
    }
    if hover_intent {
        let _ = settle::settle(settle::mark(), 0, true).await;
    }
    Ok(native_menu)
}

/// `click` (`clicks` = 1) and `dblclick` (2); says when a form was not submitted or a link opens another window.
pub(super) async fn click(step: &JsValue, clicks: u32) -> Outcome {
    if let Some(held) = held_name() {
        return Err(cat(&[
            "the ",
            &held,
            " button is held (a down step): send up before clicking",
        ]));
    }
    let t = target(step, false)?;
    let button = Button::of(step);
    let point = step_point(step, &t)?;
    let native_menu = click_at(&t, clicks, button, point).await?;
    let mut out = String::from(match (button, clicks) {
        (Button::Right, _) => "right-clicked",
        (Button::Middle, _) => "middle-clicked",
        (_, 2) => "double-clicked",
        _ => "clicked",
    });
    if button == Button::Right {
        // Whether a menu of the page's own is open is in the diff; the browser's is out of reach.
        out.push_str(if native_menu {
            "; the page left contextmenu to the browser (a person would see the browser's own menu, which is not in the page)"
        } else {
            "; the page handled contextmenu (a menu it drew is in the diff)"
        });
    }
    if button != Button::Left {
        return Ok(js_string(&out));
    }
    if get(&t.el, "type").as_string().as_deref() == Some("submit") {
        if let Some(why) = blocked_submit(&get(&t.el, "form")) {
            out.push_str(&why);
        }
    }
    // A link or form to a new window: `commands::popups` says whether it opened and where.
    Ok(js_string(&out))
}

/// Why the browser refused to submit `form` (its own validation, as a person would see in the
/// bubble): `; the form was not submitted: textbox "Email" [ref=e3]: Please include an '@' …`.
/// Read with `:invalid`, which, unlike `checkValidity()`, fires no `invalid` events.
pub(super) fn blocked_submit(form: &JsValue) -> Option<String> {
    if !form.is_object() || get(form, "noValidate").is_truthy() || batch::navigating() {
        return None;
    }
    // The first invalid field (a fieldset holding one is `:invalid` too, but says nothing).
    let fields = js_string("input:invalid, select:invalid, textarea:invalid");
    let field = as_element(call(form, "querySelector", &[&fields]).ok()?)?;
    let message = get(&field, "validationMessage").as_string().unwrap_or_default();
    Some(cat(&[
        "; the form was not submitted: ",
        &describe(&field),
        ": ",
        &message,
    ]))
}

/// The name of the button held now, if any.
fn held_name() -> Option<String> {
    HELD.with(|h| h.borrow().as_ref().map(|h| h.button.name().to_owned()))
}

/// `down`: presses `button` on the target (at its centre or `x`/`y`) and holds it: pointerdown,
/// mousedown, the focus (and `contextmenu` for the right button). It stays down through the
/// steps after it (a `hover` moves it held) until `up`, or the batch's end.
pub(super) async fn down(step: &JsValue) -> Outcome {
    if let Some(held) = held_name() {
        return Err(cat(&[
            "the ",
            &held,
            " button is held already (a down step): send up first",
        ]));
    }
    let t = target(step, false)?;
    if disabled(&t.el) {
        return Err(cat(&[&t.label, " is disabled"]));
    }
    let button = Button::of(step);
    scroll_into_view(&t.el).await;
    batch::note(&t);
    let point = step_point(step, &t)?;
    let (at, x, y) = landing_when_still_at(&t, point).await?;
    cursor::move_to(x, y).await;
    let mark = settle::mark();
    hover_at(&at, x, y);
    cursor::press().await;
    let capture = capture::Capture::emulate(&at);
    let (mouse_events, native_menu) = button_down(&at, x, y, button, 1);
    capture::hold(capture);
    HELD.with(|h| {
        *h.borrow_mut() = Some(Held {
            button,
            at: at.clone(),
            x,
            y,
            mouse_events,
        })
    });
    super::hover::hold_buttons(button.bit());
    // A held press's handlers (a long-press timer counts from here) run before the next step.
    let _ = settle::settle(mark, 0, false).await;
    let mut out = cat(&["pressed the ", button.name(), " button and holds it"]);
    if !mouse_events {
        out.push_str(" (the page prevented pointerdown: no mousedown)");
    }
    if button == Button::Right && native_menu {
        out.push_str("; the page left contextmenu to the browser");
    }
    Ok(js_string(&out))
}

/// `up`: releases the held button where the pointer is, or on the target (at its centre or
/// `x`/`y`), moved there with the button held: pointerup, mouseup, then the click (`auxclick`
/// for another button) on what the press and the release share, as Chromium does.
pub(super) async fn up(step: &JsValue) -> Outcome {
    let held = HELD.with(|h| {
        let h = h.borrow();
        h.as_ref().map(|h| (h.button, h.at.clone(), h.x, h.y, h.mouse_events))
    });
    let Some((button, pressed_at, px, py, mouse_events)) = held else {
        return Err("no button is held: up releases what a down step pressed".into());
    };
    if field(step, "button").is_some() && Button::of(step) != button {
        return Err(cat(&["the ", button.name(), " button is the one held"]));
    }
    let mark = settle::mark();
    let (at, x, y) = if resolve::has_target(step, false) {
        // A failure here leaves it held: the agent may try another target (the batch's end
        // releases it).
        let t = target(step, false)?;
        scroll_into_view(&t.el).await;
        batch::note(&t);
        let point = step_point(step, &t)?;
        let (at, x, y) = landing_when_still_at(&t, point).await?;
        cursor::move_to(x, y).await;
        // Moved with the button held (its bit in the move's `buttons`).
        hover_at(&at, x, y);
        (at, x, y)
    } else {
        (hit(&pressed_at, px, py).unwrap_or_else(|| pressed_at.clone()), px, py)
    };
    HELD.with(|h| h.borrow_mut().take());
    super::hover::hold_buttons(0);
    // A press the page captured is released at the capturing element.
    let at = capture::held_route(&at, x, y).unwrap_or(at);
    button_up(&at, x, y, button, 1, mouse_events);
    capture::end_held(x, y);
    if pressed_at.is_connected() {
        button_click(&pressed_at, &at, x, y, button, 1);
    }
    cursor::release().await;
    let _ = settle::settle(mark, 0, false).await;
    Ok(js_string(&cat(&[
        "released the ",
        button.name(),
        " button on ",
        &describe(&at),
    ])))
}

/// At a batch's end: a button a `down` step left held is released where the pointer is
/// (pointerup and mouseup, no click: the agent asked for none), so no press outlives its batch.
/// Returns the text the batch's last result gets, when it did.
pub(crate) fn release_held() -> Option<String> {
    let held = HELD.with(|h| h.borrow_mut().take())?;
    super::hover::hold_buttons(0);
    let at = hit(&held.at, held.x, held.y).unwrap_or_else(|| held.at.clone());
    let at = capture::held_route(&at, held.x, held.y).unwrap_or(at);
    button_up(&at, held.x, held.y, held.button, 1, held.mouse_events);
    capture::end_held(held.x, held.y);
    Some(cat(&[
        "; the ",
        held.button.name(),
        " button a down step held was released at the batch's end (no up step; no click)",
    ]))
}
