//! `scroll`: the page or a target's scroll container by a direction and amount, or a target
//! into view.

use super::super::batch;
use super::super::resolve::{self, field};
use super::super::Outcome;
use super::bad_field;
use super::target;
use crate::js::{call, get, global, js_number, js_string, object, sleep};
use crate::text::{cat, num};
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// The element that scrolls `el` (itself when it scrolls), or `None` for the page.
fn scroller(el: &Element) -> Option<Element> {
    let win = crate::snapshot::page_window();
    let mut cur = Some(el.clone());
    while let Some(e) = cur {
        if e.local_name() == "body" || e.local_name() == "html" {
            return None;
        }
        if let Ok(style) = win.computed_style(&e, None) {
            let o = get(&style, "overflowY").as_string().unwrap_or_default();
            let ox = get(&style, "overflowX").as_string().unwrap_or_default();
            let scrolls = |o: &str| o == "auto" || o == "scroll" || o == "overlay";
            if (scrolls(&o) && e.scroll_height() > e.client_height())
                || (scrolls(&ox) && e.scroll_width() > e.client_width())
            {
                return Some(e);
            }
        }
        cur = e.parent_element();
    }
    None
}

/// `scroll`: by `direction` and `amount` (the page, or the target's container), or the target into view.
pub(super) async fn scroll(step: &JsValue) -> Outcome {
    let direction = field(step, "direction").map(|d| d.to_ascii_lowercase());
    let has_target = resolve::has_target(step, false);
    let t = if has_target { Some(target(step, false)?) } else { None };
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
    let g = global();
    let container = t.as_ref().and_then(|t| scroller(&t.el));
    let (view_w, view_h) = match &container {
        Some(c) => (f64::from(c.client_width()), f64::from(c.client_height())),
        None => (
            get(&g, "innerWidth").as_f64().unwrap_or(800.0),
            get(&g, "innerHeight").as_f64().unwrap_or(600.0),
        ),
    };
    let (dx, dy) = match direction.as_str() {
        "down" => (0.0, 1.0),
        "up" => (0.0, -1.0),
        "right" => (1.0, 0.0),
        "left" => (-1.0, 0.0),
        _ => return Err(bad_field("direction")),
    };
    let amount = get(step, "amount")
        .as_f64()
        .unwrap_or(if dy != 0.0 { view_h * 0.8 } else { view_w * 0.8 })
        .round();
    let by = object(&[
        ("left", js_number(dx * amount)),
        ("top", js_number(dy * amount)),
        ("behavior", js_string("instant")),
    ]);
    type Position = Box<dyn Fn() -> (f64, f64, f64)>;
    let (target_obj, pos): (JsValue, Position) = match container {
        Some(c) => {
            let c2 = c.clone();
            (
                c.into(),
                Box::new(move || {
                    (
                        f64::from(c2.scroll_top()),
                        f64::from(c2.scroll_height() - c2.client_height()),
                        f64::from(c2.scroll_left()),
                    )
                }),
            )
        }
        None => (
            g.clone(),
            Box::new(move || {
                let g = global();
                let doc = get(&get(&g, "document"), "documentElement");
                (
                    get(&g, "scrollY").as_f64().unwrap_or(0.0),
                    get(&doc, "scrollHeight").as_f64().unwrap_or(0.0) - get(&g, "innerHeight").as_f64().unwrap_or(0.0),
                    get(&g, "scrollX").as_f64().unwrap_or(0.0),
                )
            }),
        ),
    };
    let before = pos();
    let _ = call(&target_obj, "scrollBy", &[&by]);
    sleep(20).await;
    let after = pos();
    let what = if has_target { "the container" } else { "the page" };
    let mut out = cat(&["scrolled ", what, " ", &direction, " ", &num(amount), "px"]);
    if dy != 0.0 {
        out.push_str(" (now at y=");
        out.push_str(&num(after.0));
        out.push_str(" of ");
        out.push_str(&num(after.1.max(0.0)));
        out.push(')');
        if (after.0 - before.0).abs() < 1.0 {
            out.push_str("; it did not move (already at the ");
            out.push_str(if dy > 0.0 { "bottom)" } else { "top)" });
        }
    } else {
        out.push_str(" (now at x=");
        out.push_str(&num(after.2));
        out.push(')');
    }
    Ok(js_string(&out))
}
