//! A step as the commands read it: its string fields, what a command gives back, and the error for
//! a field it lacks or holds wrongly. The leaf the commands, the target lookup and the batch share.

use crate::js::get;
use crate::text::cat;
use wasm_bindgen::prelude::*;

/// What a command gives back: its result, or an error message for the agent.
pub(crate) type Outcome = Result<JsValue, String>;

/// The string field `name` of a step, when present and non-empty.
pub(crate) fn field(step: &JsValue, name: &str) -> Option<String> {
    let v = get(step, name);
    let s = match v.as_string() {
        Some(s) => s,
        None if v.as_f64().is_some() => String::from(js_sys::JSON::stringify(&v).ok()?),
        None => return None,
    };
    (!s.is_empty()).then_some(s)
}

/// A field the step lacks or holds wrongly. Every step passes the host's check first (core's
/// `protocol::STEP_FIELDS`, with the texts that say what to send), so this only names the field.
pub(crate) fn bad_field(name: &str) -> String {
    cat(&["invalid or missing \"", name, "\""])
}
