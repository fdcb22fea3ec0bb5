//! The pointer's presses: the pointer and mouse events of a press in browser order, at where it
//! lands ([`super::reach`]), and `click`/`dblclick`.

use super::super::batch;
use super::super::resolve::{describe, Target};
use super::super::step::Outcome;
use super::super::target::target;
use super::hover::hover_at;
use super::reach::{hit, landing_when_still, mouse, scroll_into_view};
use super::settle;
use crate::bootstrap;
use crate::cursor;
use crate::js::{as_element, attribute, call, closest, disabled, fire, get, js_string};
use crate::text::cat;
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// Focuses what a press at `el` focuses: its nearest focusable ancestor-or-self; otherwise the
/// focused element loses focus.
fn focus_for_press(el: &Element) {
    let focusable = closest(
        el,
        "a[href],button,input,select,textarea,summary,iframe,[tabindex],[contenteditable]",
    );
    super::focus::focus(focusable.as_ref());
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
pub(super) async fn click_target(t: &Target, clicks: u32) -> Result<(), String> {
    if disabled(&t.el) {
        return Err(cat(&[&t.label, " is disabled"]));
    }
    scroll_into_view(&t.el).await;
    batch::note(t);
    let (at, x, y) = landing_when_still(t).await?;
    cursor::move_to(x, y).await;
    let mark = settle::mark();
    let due = bootstrap::field(bootstrap::HOVER_DUE);
    hover_at(&at, x, y);
    // A timer the pointer's arrival set (a menu that opens when the pointer stays on its button)
    // is waited for, as after a `hover`, once the pointer has left what the click hid: the next
    // step finds the menu's items, and a chosen item's menu stays closed.
    let hover_intent = bootstrap::field(bootstrap::HOVER_DUE) != due;
    cursor::press().await;
    press_sequence(&at, x, y, clicks);
    if batch::navigating() {
        // The page is about to go: hand the batch over before it does.
        return Ok(());
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
    Ok(())
}

/// `click` (`clicks` = 1) and `dblclick` (2); says when a form was not submitted or a link opens another window.
pub(super) async fn click(step: &JsValue, clicks: u32) -> Outcome {
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
    Ok(js_string(&out))
}

/// The URL of the link `el` is in, when it opens in another window (`target="_blank"` or a name).
fn new_window_link(el: &Element) -> Option<String> {
    let a = closest(el, "a[href][target]")?;
    let target = attribute(&a, "target")?.to_ascii_lowercase();
    if target.is_empty() || matches!(target.as_str(), "_self" | "_top" | "_parent") {
        return None;
    }
    get(&a, "href").as_string()
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
