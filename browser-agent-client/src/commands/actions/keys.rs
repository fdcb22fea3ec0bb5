//! Keys: chords (`Control+a`, `Shift+Tab`), the key events of a press, and what the browser
//! does for a key that synthetic events do not do by themselves (Enter submits, Tab moves focus,
//! Escape closes the top dialog, arrows move in a control or a multi-select, and where no control
//! takes them the arrows, PageUp, PageDown, Home, End and Space scroll, …).

use super::super::batch;
use super::super::resolve::{self, describe};
use super::super::step::{bad_field, field, Outcome};
use super::super::target::target;
use super::focus::active_element;
use super::keymap::{key_inits, Mods};
use super::pointer::blocked_submit;
use super::reach::{centre, scroll_into_view};
use super::text::{caret_to_end, delete_back, editable, exec_command, insert, mark_selected_all, text_field};
use crate::cursor;
use crate::js::{as_element, call, fire, get, has_attribute, js_string};
use crate::lazy;
use crate::text::cat;
use browser_agent_protocol::keys::parse_chord;
use browser_agent_protocol::lazy::KEYS;
use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// `press`: a key or chord on the target (focused first) or on the focused element.
pub(super) async fn press(step: &JsValue) -> Outcome {
    let Some(chord) = field(step, "key").or_else(|| field(step, "keys")) else {
        return Err(bad_field("key"));
    };
    // The host refused a chord that is none, with the text that says what to write.
    let (mods, key) = parse_chord(&chord).map_err(|_| bad_field("key"))?;
    let el = if resolve::has_target(step, false) {
        let t = target(step, false)?;
        scroll_into_view(&t.el).await;
        batch::note(&t);
        let (x, y) = centre(&t.el);
        cursor::move_to(x, y).await;
        super::focus::focus(Some(&t.el));
        t.el
    } else {
        active_element()
    };
    let (init, press_init) = key_inits(&key, mods);
    let mut outcome = Ok(());
    let mark = super::settle::mark();
    let mut up_at = el.clone();
    {
        // The browser's default action runs only when no handler prevented the keydown or the
        // keypress (a keydown prevented fires no keypress). Enter on a link acts on the keydown
        // and fires no keypress, as Chromium does.
        let down = fire(&el, "KeyboardEvent", "keydown", &init);
        let mut go = down;
        let link = key == "Enter" && el.local_name() == "a" && has_attribute(&el, "href");
        if let (true, false, Some(p)) = (go, link, press_init) {
            go = fire(&el, "KeyboardEvent", "keypress", &p);
            let printable = key != "Enter";
            if go && printable && (text_field(&el) || editable(&el)) {
                insert(&el, &key, "");
            }
        }
        if go {
            let focused = active_element();
            outcome = default_action(&el, &key, mods).await;
            // The keyup goes where the key moved the focus (Tab, an arrow in a radio group).
            let now = active_element();
            if now != focused {
                up_at = now;
            }
        }
        // Space clicks a button, a checkbox or a radio on its keyup (the keydown made it active,
        // whatever became of the keypress), unless that keyup is prevented.
        let click_after = down && key == " " && clicked_by_key(&el);
        let up = fire(&up_at, "KeyboardEvent", "keyup", &init);
        if up && click_after && up_at == el {
            let _ = call(&el, "click", &[]);
        }
    }
    outcome?;
    let mut out = cat(&["pressed ", &chord]);
    if !resolve::has_target(step, false) {
        out.push_str(" on ");
        out.push_str(&describe(&el));
    }
    // What the app renders for the key (a field it clears on Enter) lands before the next step.
    let _ = super::settle::settle(mark, 0, false).await;
    super::settle::next_frame(&el).await;
    if key == "Enter" && el.local_name() == "input" {
        if let Some(why) = blocked_submit(&get(&el, "form")) {
            out.push_str(&why);
        }
    }
    Ok(js_string(&out))
}

/// Whether Space (on its keyup) and Enter (on its keypress) click `el`, as Chromium does: a button,
/// a `<summary>`, an input drawn as a button; Space also a checkbox or a radio. (A link is followed
/// by Enter on its keydown; a `role=button` element does neither: its own key handler acts.)
fn clicked_by_key(el: &Element) -> bool {
    match el.local_name().as_str() {
        "button" | "summary" => true,
        "input" => matches!(
            get(el, "type").as_string().as_deref(),
            Some("submit" | "button" | "reset" | "image" | "checkbox" | "radio")
        ),
        _ => false,
    }
}

/// Whether `el` is a checkbox or a radio, which Enter does not click.
fn checkable(el: &Element) -> bool {
    matches!(get(el, "type").as_string().as_deref(), Some("checkbox" | "radio"))
}

/// What the browser does for a key that synthetic events do not do by themselves (Tab's order,
/// Escape's closing, the keys that move in a control and Enter's implicit submission in the module
/// [`KEYS`], `keys.js`, loaded on the first of them). Space's click comes after the keyup, in
/// [`press`].
async fn default_action(el: &Element, key: &str, mods: Mods) -> Result<(), String> {
    let tag = el.local_name();
    match key {
        "Enter" if !mods.ctrl && !mods.meta => {
            if tag == "textarea" {
                insert(el, "\n", "");
            } else if editable(el) {
                exec_command(el, "insertParagraph", "");
            } else if (tag == "a" && has_attribute(el, "href")) || (clicked_by_key(el) && !checkable(el)) {
                let _ = call(el, "click", &[]);
            } else if tag == "input" && !matches!(get(el, "type").as_string().as_deref(), Some("file" | "color")) {
                let keys = lazy::module(KEYS).await?;
                lazy::call(&keys, "submit", &[el]).await?;
            }
        }
        "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight" | "Home" | "End" | "PageUp" | "PageDown"
            if !mods.alt && !mods.meta =>
        {
            let keys = lazy::module(KEYS).await?;
            let (shift, ctrl) = (JsValue::from_bool(mods.shift), JsValue::from_bool(mods.ctrl));
            let next = lazy::call(&keys, "control", &[el, &js_string(key), &shift, &ctrl]).await?;
            // A radio group's next radio: focused, then clicked (checked, with its events).
            if let Some(next) = as_element(next) {
                super::focus::focus(Some(&next));
                let _ = call(&next, "click", &[]);
            }
        }
        // Space that clicks nothing: a multi-select's toggle, else a page down (up with Shift)
        // where it types nothing (`keys.js` decides which).
        " " if !clicked_by_key(el) && !mods.alt && !mods.meta && !text_field(el) && !editable(el) => {
            let keys = lazy::module(KEYS).await?;
            let (shift, ctrl) = (JsValue::from_bool(mods.shift), JsValue::from_bool(mods.ctrl));
            lazy::call(&keys, "control", &[el, &js_string(key), &shift, &ctrl]).await?;
        }
        "Escape" | "Tab" => {
            let keys = lazy::module(KEYS).await?;
            let shift = JsValue::from_bool(mods.shift);
            let order = lazy::call(&keys, "act", &[el, &js_string(key), &shift]).await?;
            // Tab: the first element that can be used, in the order it tries them.
            let order = order.unchecked_into::<Array>();
            if let Some(next) = order
                .iter()
                .filter_map(as_element)
                .find(|e| resolve::hidden_reason(e).is_none())
            {
                super::focus::focus(Some(&next));
            }
        }
        "Backspace" | "Delete" if text_field(el) || editable(el) => delete_back(el),
        "a" | "A" if mods.ctrl || mods.meta => {
            if text_field(el) {
                let _ = call(el, "select", &[]);
                if get(el, "selectionStart").as_f64().is_none() {
                    mark_selected_all(el);
                }
            } else if editable(el) {
                caret_to_end(el, true);
            } else {
                let _ = call(&get(el, "ownerDocument"), "execCommand", &[&js_string("selectAll")]);
            }
        }
        _ => {}
    }
    Ok(())
}
