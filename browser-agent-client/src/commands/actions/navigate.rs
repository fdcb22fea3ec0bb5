//! Navigation: `navigate` (an http or https URL), `back`, `forward`, `reload`. Each only records
//! what to do; the batch performs it after handing the rest of the batch over.

use super::super::batch::Nav;
use super::super::step::{bad_field, field, Outcome};
use crate::js::{get, global, js_string};
use crate::text::{cat, quote};
use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `navigate`: `url` resolved against the page's URL; only http and https.
pub(super) fn navigate(step: &JsValue) -> Outcome {
    let Some(url) = field(step, "url") else {
        return Err(bad_field("url"));
    };
    let base = get(&get(&global(), "location"), "href");
    let ctor: Function = get(&global(), "URL").unchecked_into();
    // The host refuses other schemes with a text that says which to use (core's
    // `commands::validate`); resolved against this http(s) page, what it lets through stays http(s).
    let abs = Reflect::construct(&ctor, &Array::of2(&js_string(&url), &base))
        .ok()
        .and_then(|u| get(&u, "href").as_string())
        .filter(|abs| abs.starts_with("http:") || abs.starts_with("https:"));
    let Some(abs) = abs else {
        return Err(cat(&["Not a URL: ", &quote(&url)]));
    };
    let out = cat(&[browser_agent_protocol::NAVIGATING_TO, &abs]);
    // (Unless the page asks to stay and the step's dialog policy is dismiss.)
    super::super::dialogs::leave(Nav::Go(abs.clone()), Some(abs), &out)
}

/// `back` and `forward` (`which`), refused when the tab's history has no page there.
pub(super) fn history_step(nav: Nav, which: &str) -> Outcome {
    let navigation = get(&global(), "navigation");
    let can = get(&navigation, if which == "back" { "canGoBack" } else { "canGoForward" });
    if can == JsValue::FALSE {
        return Err(cat(&["There is no page to go ", which, " to in this tab's history"]));
    }
    super::super::dialogs::leave(nav, None, &cat(&["going ", which]))
}
