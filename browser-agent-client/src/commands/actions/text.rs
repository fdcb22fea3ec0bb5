//! Text entry: `type` (key by key) and `fill` (the whole value), values set through the native
//! setter, the caret and selection of text fields and contenteditable elements, and the input
//! events a person's typing makes.

use super::super::batch;
use super::super::resolve::Target;
use super::super::step::Outcome;
use super::super::target::target;
use super::keymap::{key_inits, Mods};
use super::reach::{rect, scroll_into_view};
use crate::cursor;
use crate::js::{call, disabled, event_init, fire, get, has_attribute, js_string, object, set, sleep, window_of};
use crate::text::{cat, char_count, ci_contains, quote};
use browser_agent_protocol::SECRET_VALUE;
use js_sys::{Function, JsString, Object};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

thread_local! {
    /// A text field without a selection API (email, number) whose whole value `Control+a` selected.
    static SELECTED_ALL: RefCell<Option<Element>> = const { RefCell::new(None) };
}

/// Remembers that `Control+a` selected all of `el`, a text field without a selection API.
pub(super) fn mark_selected_all(el: &Element) {
    SELECTED_ALL.with(|a| *a.borrow_mut() = Some(el.clone()));
}

/// Sets `el[prop] = v` through the prototype's own setter (what React's value tracker misses).
pub(super) fn native_set(el: &Element, prop: &str, v: &JsValue) {
    let class = match el.local_name().as_str() {
        "input" => "HTMLInputElement",
        "textarea" => "HTMLTextAreaElement",
        "select" => "HTMLSelectElement",
        _ => "",
    };
    let proto = get(&get(&window_of(el), class), "prototype");
    let setter = if proto.is_object() {
        get(
            &Object::get_own_property_descriptor(proto.unchecked_ref::<Object>(), &js_string(prop)),
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

/// The `value` of a form field (empty when it has none).
fn value(el: &Element) -> String {
    get(el, "value").as_string().unwrap_or_default()
}

/// The text field (or slider) a web component's shadow tree draws.
fn inner_field(host: &Element) -> Option<Element> {
    let root = get(host, "shadowRoot");
    if !root.is_object() {
        return None;
    }
    let root: &web_sys::DocumentFragment = root.unchecked_ref();
    let list = root.query_selector_all("input,textarea,[contenteditable]").ok()?;
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(JsCast::unchecked_into::<Element>)
        .find(|e| {
            text_field(e) || editable(e) || matches!(get(e, "type").as_string().as_deref(), Some("range" | "color"))
        })
}

/// Whether `el` is contenteditable.
pub(super) fn editable(el: &Element) -> bool {
    get(el, "isContentEditable").is_truthy()
}

/// Whether `el` is a `<textarea>` or an `<input>` that takes text.
pub(super) fn text_field(el: &Element) -> bool {
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

/// The init of an `InputEvent` of `inputType` `kind`.
fn input_init(kind: &str, data: Option<&JsValue>) -> Object {
    let o = object(&[
        ("bubbles", JsValue::TRUE),
        ("composed", JsValue::TRUE),
        ("inputType", js_string(kind)),
    ]);
    if let Some(d) = data {
        set(&o, "data", d);
    }
    o
}

/// Puts the caret at the end of a contenteditable element.
pub(super) fn caret_to_end(el: &Element, select_all: bool) {
    let Ok(sel) = call(&window_of(el), "getSelection", &[]) else {
        return;
    };
    let _ = call(&sel, "selectAllChildren", &[el]);
    if !select_all {
        let _ = call(&sel, "collapseToEnd", &[]);
    }
}

/// `document.execCommand(cmd, false, arg)` in `el`'s document; whether it did something.
pub(super) fn exec_command(el: &Element, cmd: &str, arg: &str) -> bool {
    let doc = get(el, "ownerDocument");
    call(
        &doc,
        "execCommand",
        &[&js_string(cmd), &JsValue::FALSE, &js_string(arg)],
    )
    .is_ok_and(|v| v.is_truthy())
}

/// Inserts `text` where a person's typing would put it, with the input events. `shown` is what
/// a number or date field would show a person when its value reads `""`: the browser empties a
/// partial value (`1.`, `-`), which the next character goes on from.
pub(super) fn insert(el: &Element, text: &str, shown: &str) {
    if editable(el) {
        if !exec_command(el, "insertText", text) {
            let doc = get(el, "ownerDocument");
            if let Ok(node) = call(&doc, "createTextNode", &[&js_string(text)]) {
                let _ = call(el, "appendChild", &[&node]);
            }
            fire(
                el,
                "InputEvent",
                "input",
                &input_init("insertText", Some(&js_string(text))),
            );
        }
        return;
    }
    let mut v = value(el);
    // Only a field without a text selection (number, date and time fields, whose value the
    // browser empties while it holds a partial one) goes on from what it would show; a text field
    // the page emptied (a tag input at a comma) goes on empty.
    if v.is_empty() && get(el, "selectionStart").is_null() {
        v = shown.to_owned();
    }
    let v = JsString::from(v);
    let len = v.length();
    let (start, end) = selection(el, len);
    let text = fitting(el, text, len - (end - start));
    if text.length() == 0 {
        return;
    }
    let new = v.slice(0, start).concat(&text).concat(&v.slice(end, len));
    native_set(el, "value", &new);
    let caret = JsValue::from(start + text.length());
    let _ = call(el, "setSelectionRange", &[&caret, &caret]);
    fire(el, "InputEvent", "input", &input_init("insertText", Some(&text)));
}

/// `text`, cut to what the field's `maxlength` leaves room for beside `kept` UTF-16 units: a
/// person's typing stops there (a number field ignores the attribute, as the browser does).
fn fitting(el: &Element, text: &str, kept: u32) -> JsString {
    let text = JsString::from(text);
    match get(el, "maxLength").as_f64() {
        Some(max) if max >= 0.0 && get(el, "type") != "number" => text.slice(0, (max as u32).saturating_sub(kept)),
        _ => text,
    }
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
pub(super) fn delete_back(el: &Element) {
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

/// One character typed: keydown, keypress, the text, keyup, with the key properties Chromium
/// gives (a newline is the Enter key); the text goes in only when no handler prevented the
/// keydown or the keypress.
fn key_char(el: &Element, ch: &str, shown: &str) {
    let key = if ch == "\n" { "Enter" } else { ch };
    let (init, press) = key_inits(key, Mods::default());
    if fire(el, "KeyboardEvent", "keydown", &init) && press.is_none_or(|p| fire(el, "KeyboardEvent", "keypress", &p)) {
        insert(el, ch, shown);
    }
    fire(el, "KeyboardEvent", "keyup", &init);
}

/// `type` (each character) and `fill` (the whole value at once).
pub(super) async fn type_text(step: &JsValue, whole: bool) -> Outcome {
    let text = get(step, "text").as_string().or_else(|| get(step, "value").as_string());
    let Some(text) = text else {
        return Err(super::super::step::bad_field("text"));
    };
    let t = if whole || super::super::resolve::has_target(step, true) {
        target(step, true)?
    } else {
        focused_field()?
    };
    type_into(&t, &text, whole, whole || get(step, "clear").is_truthy()).await
}

/// What a `type` step with no target types into: the focused element, as a person types after
/// clicking into a field (recorded as the step's target).
fn focused_field() -> Result<Target, String> {
    let el = super::focus::active_element();
    if matches!(el.local_name().as_str(), "body" | "html") {
        return Err("type has no target and nothing is focused: name the field (label, placeholder, ref, role and name, or selector), or click into it first".into());
    }
    let t = Target {
        label: super::super::resolve::describe::describe_with_row(&el),
        el,
    };
    batch::note(&t);
    Ok(t)
}

/// Types `text` into `t` (each character, or the `whole` value at once), after emptying it when
/// `clear`; the answer.
pub(super) async fn type_into(t: &Target, text: &str, whole: bool, clear: bool) -> Outcome {
    let mut el = t.el.clone();
    if !text_field(&el) && !editable(&el) && el.local_name().contains('-') {
        // A web component's host: the field its shadow tree draws, or (a slider, a number field
        // drawn without one: FAST's) its own `value`, set as the component's API takes it.
        if let Some(inner) = inner_field(&el) {
            el = inner;
        } else if whole && get(&el, "value").as_string().is_some() {
            if disabled(&el) {
                return Err(cat(&[&t.label, " is disabled"]));
            }
            scroll_into_view(&el).await;
            batch::note(t);
            let mark = super::settle::mark();
            crate::js::set(&el, "value", &js_string(text));
            fire(&el, "Event", "input", &crate::js::event_init(true));
            fire(&el, "Event", "change", &crate::js::event_init(true));
            let _ = super::settle::settle(mark, 0, true).await;
            let now = get(&el, "value").as_string().unwrap_or_default();
            return Ok(js_string(&cat(&["filled ", &quote(&now)])));
        }
    }
    // `fill` also sets a slider or a colour (a value a person picks, not types).
    let picked = whole
        && el.local_name() == "input"
        && matches!(get(&el, "type").as_string().as_deref(), Some("range" | "color"));
    // A slider drawn without an input (`role=slider`) is set with its keys, as a person sets it.
    if whole && !picked && el == t.el && super::super::resolve::role_of(&el) == "slider" {
        return super::slider::fill(t, text).await;
    }
    if !picked && !text_field(&el) && !editable(&el) {
        return Err(cat(&[
            &t.label,
            " is not a text field (type and fill need an input, a textarea or a contenteditable element; fill also sets a slider or a colour)",
        ]));
    }
    if disabled(&el) {
        return Err(cat(&[&t.label, " is disabled"]));
    }
    if has_attribute(&el, "readonly") {
        return Err(cat(&[&t.label, " is read-only"]));
    }
    scroll_into_view(&el).await;
    batch::note(t);
    let (x, y, w, h) = rect(&el);
    cursor::move_to(x + (0.3 * w).max(16.0).min(w / 2.0), y + h / 2.0).await;
    super::focus::focus(Some(&el));
    let mark = super::settle::mark();
    // What the app renders after the previous step (a field it cleared on Enter) lands first, so
    // the text never goes onto an older value.
    super::settle::next_frame(&el).await;
    let is_edit = editable(&el);
    if is_edit {
        caret_to_end(&el, clear);
        if clear && !el.text_content().unwrap_or_default().is_empty() {
            exec_command(&el, "delete", "");
        }
    } else {
        if clear && !picked && !value(&el).is_empty() {
            native_set(&el, "value", &js_string(""));
            fire(&el, "InputEvent", "input", &input_init("deleteContentBackward", None));
        }
        // The caret goes to the end, as after a click at the end of the text; a selection in the
        // field (`Control+a`, or a code editor's own over its hidden textarea) stays, and the
        // text replaces it, as a person's typing does.
        if get(&el, "selectionStart") == get(&el, "selectionEnd") {
            let end = JsValue::from(JsString::from(value(&el)).length());
            let _ = call(&el, "setSelectionRange", &[&end, &end]);
        }
    }
    if whole {
        if is_edit {
            insert(&el, text, "");
        } else {
            let fits = fitting(&el, text, 0);
            native_set(&el, "value", &fits);
            fire(
                &el,
                "InputEvent",
                "input",
                &input_init("insertReplacementText", Some(&fits)),
            );
        }
    } else {
        let count = char_count(text).max(1) as f64;
        let delay = if cursor::enabled() {
            (1500.0 / count).min(40.0) as i32
        } else {
            0
        };
        let mut buf = [0u8; 4];
        let mut shown = value(&el);
        for ch in text.chars() {
            if ch == '\n' && !is_edit && el.local_name() == "input" {
                continue;
            }
            key_char(&el, ch.encode_utf8(&mut buf), &shown);
            shown.push(ch);
            if delay > 0 {
                sleep(delay).await;
            }
        }
    }
    if !is_edit {
        fire(&el, "Event", "change", &event_init(true));
    }
    // The app's render of the typed text, and the release of its input lock, before the next step;
    // and what it set off after a short delay (an autocomplete's search, jQuery UI's 300 ms), as
    // after a hover.
    super::settle::next_frame(&el).await;
    let _ = super::settle::settle(mark, 0, true).await;
    let verb = if whole { "filled " } else { "typed " };
    // A password is not repeated: the answer goes into the action log and proofs for PRs.
    let secret = get(&el, "type").as_string().is_some_and(|t| t == "password");
    let mut out = cat(&[verb, &quote(if secret { SECRET_VALUE } else { text })]);
    let now = if is_edit {
        el.text_content().unwrap_or_default()
    } else {
        value(&el)
    };
    if !is_edit && !secret && !ci_contains(&now, text) {
        out.push_str("; the field now holds ");
        out.push_str(&quote(&now));
    }
    Ok(js_string(&out))
}
