//! Moving the focus as a person's action does, with the events a window without the system's
//! focus leaves out.

use crate::js::{as_element, get, global};
use wasm_bindgen::JsCast;

/// Moves the focus to `el`, or off the focused element (`None`), as a person's action does. In a
/// window without the system's focus (the developer's browser beside the IDE) the browser moves it
/// silently, without the focus and blur events widgets open and validate on (jQuery UI's
/// datepicker, AngularJS's touched state): they are fired here then.
pub(super) fn focus(el: Option<&web_sys::Element>) {
    use crate::js::{call, event_init, fire, get, global};
    let doc = el.map_or_else(|| get(&global(), "document"), |e| get(e, "ownerDocument"));
    let before = get(&doc, "activeElement");
    let _ = match el {
        Some(el) => call(el, "focus", &[]),
        None => call(&before, "blur", &[]),
    };
    let after = get(&doc, "activeElement");
    if after != before && !call(&doc, "hasFocus", &[]).is_ok_and(|v| v.is_truthy()) {
        fire(&before, "FocusEvent", "blur", &event_init(false));
        fire(&before, "FocusEvent", "focusout", &event_init(true));
        fire(&after, "FocusEvent", "focus", &event_init(false));
        fire(&after, "FocusEvent", "focusin", &event_init(true));
    }
}

/// The focused element, inside open shadow roots; the body (or the root element) when nothing is focused.
pub(super) fn active_element() -> web_sys::Element {
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
