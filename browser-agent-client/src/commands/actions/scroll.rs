//! `scroll`: the page or a target's scroll container by a direction and amount, or to a position
//! (`to` an edge, or `x`/`y` px) (the module [`browser_agent_protocol::lazy::SCROLL`], `scroll.js`,
//! loaded on the first such scroll), or a target into view.

use super::super::batch;
use super::super::resolve;
use super::super::step::{bad_field, field, Outcome};
use super::super::target::target;
use crate::js::{call, get, js_string, object, sleep};
use crate::lazy;
use browser_agent_protocol::lazy::SCROLL;
use wasm_bindgen::prelude::*;

/// `scroll`: by `direction` and `amount`, or to `to` or `x`/`y` (the page, or the target's
/// scroller), or the target into view.
pub(super) async fn scroll(step: &JsValue) -> Outcome {
    let direction = field(step, "direction").map(|d| d.to_ascii_lowercase());
    let has_target = resolve::has_target(step, false);
    let t = if has_target { Some(target(step, false)?) } else { None };
    let to = field(step, "to").map(|d| d.to_ascii_lowercase());
    let (x, y) = (get(step, "x"), get(step, "y"));
    if to.is_some() || x.as_f64().is_some() || y.as_f64().is_some() {
        if let Some(t) = &t {
            batch::note(t);
        }
        let el = t.map_or(JsValue::NULL, |t| t.el.into());
        let to = to.map_or(JsValue::UNDEFINED, |to| js_string(&to));
        let module = lazy::module(SCROLL).await?;
        return lazy::call(&module, "to", &[&el, &to, &x, &y]).await;
    }
    let Some(direction) = direction else {
        let Some(t) = t else {
            return Err(bad_field("direction"));
        };
        let opts = object(&[("block", js_string("center")), ("inline", js_string("nearest"))]);
        let _ = call(&t.el, "scrollIntoView", &[&opts]);
        sleep(20).await;
        batch::note(&t);
        return Ok(js_string("scrolled into view"));
    };
    let el = t.map_or(JsValue::NULL, |t| t.el.into());
    let module = lazy::module(SCROLL).await?;
    lazy::call(&module, "by", &[&el, &js_string(&direction), &get(step, "amount")]).await
}
