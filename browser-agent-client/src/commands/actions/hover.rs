//! Hovering: the pointer's enter/leave/over/out/move events as it moves onto an element, the
//! `:hover` stand-in for CSS-only hover menus, and the `hover` command.

use super::super::batch;
use super::super::step::Outcome;
use super::super::target::target;
use super::reach::{landing_at, mouse, mouse_button, scroll_into_view};
use crate::cursor;
use crate::js::{as_element, call, fire, get, js_string, set};
use js_sys::{Function, JsString, Reflect};
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

thread_local! {
    /// The element the pointer is over (for enter/leave events), and where.
    static HOVERED: RefCell<Option<(Element, f64, f64)>> = const { RefCell::new(None) };
    /// The document whose `:hover` rules were mirrored, the size of its sheets then, and whether
    /// it had any.
    static HOVER_MIRRORED: RefCell<Option<(JsValue, f64, bool)>> = const { RefCell::new(None) };
    /// It and its ancestors, which carry the `:hover` stand-in attribute.
    static HOVER_CHAIN: RefCell<Vec<Element>> = const { RefCell::new(Vec::new()) };
    /// The `buttons` bits a `down` step holds (the pointer's steps keep it), for the moves a held
    /// pointer makes.
    static HELD_BUTTONS: Cell<u32> = const { Cell::new(0) };
}

/// Which buttons the pointer holds from now on (`0`: none): a hover then moves it held.
pub(super) fn hold_buttons(bits: u32) {
    HELD_BUTTONS.with(|h| h.set(bits));
}

/// Moves the pointer onto `at`: leave/out events for what it leaves, enter/over/move for `at`.
pub(super) fn hover_at(at: &Element, x: f64, y: f64) {
    let prev = HOVERED.with(|h| h.borrow_mut().replace((at.clone(), x, y)));
    // A button a `down` step holds is in the moves' `buttons`.
    let held = HELD_BUTTONS.with(Cell::get);
    let moved = prev
        .as_ref()
        .is_some_and(|p| (p.1 - x).abs() >= 0.5 || (p.2 - y).abs() >= 0.5);
    let prev = prev.map(|p| p.0);
    // Each step of the pointer is a pointer event (`button` -1: none changed) and its mouse event.
    let both = |e: &Element, pointer: &str, mouse_type: &str, bubbles: bool| {
        fire(e, "PointerEvent", pointer, &mouse_button(x, y, -1, held, 0, bubbles));
        fire(e, "MouseEvent", mouse_type, &mouse(x, y, held, 0, bubbles));
    };
    // A held press the page captured: the move goes to the capturing element, with no boundary
    // events for what the pointer crosses.
    if held != 0 {
        if let Some(to) = super::capture::held_route(at, x, y) {
            both(&to, "pointermove", "mousemove", true);
            return;
        }
    }
    if prev.as_ref() == Some(at) {
        if moved {
            // A move within the element (a point on a canvas, a held press's stroke).
            both(at, "pointermove", "mousemove", true);
        }
        return;
    }
    let mut entered: Vec<Element> = Vec::new();
    let mut cur = Some(at.clone());
    while let Some(e) = cur {
        if prev.as_ref().is_some_and(|p| e.contains(Some(p))) {
            break;
        }
        cur = e.parent_element();
        entered.push(e);
    }
    if let Some(p) = prev.filter(|p| p.is_connected()) {
        both(&p, "pointerout", "mouseout", true);
        let mut cur = Some(p);
        while let Some(e) = cur {
            if e.contains(Some(at)) {
                break;
            }
            both(&e, "pointerleave", "mouseleave", false);
            cur = e.parent_element();
        }
    }
    both(at, "pointerover", "mouseover", true);
    for e in entered.iter().rev() {
        both(e, "pointerenter", "mouseenter", false);
    }
    both(at, "pointermove", "mousemove", true);
    hover_state(at);
}

/// Stands in for `:hover`, which synthetic events cannot set: the element under the agent's
/// pointer and its ancestors (across shadow hosts) carry this attribute, and the page's `:hover`
/// rules are mirrored with the attribute in their place (same specificity, later in the cascade),
/// so CSS-only hover menus open as they would for a person. Moves with the pointer.
const HOVER_ATTR: &str = "data-browser-agent-hover";

/// The id of the `<style>` holding the mirrored rules.
const HOVER_STYLE_ID: &str = "__browser-agent-hover";

/// Moves the `:hover` stand-in attribute to `at` and its ancestors, mirroring the page's `:hover`
/// rules when its sheets changed.
#[inline(never)]
fn hover_state(at: &Element) {
    HOVER_CHAIN.with(|chain| {
        let mut chain = chain.borrow_mut();
        for e in chain.drain(..) {
            let _ = e.remove_attribute(HOVER_ATTR);
        }
        let mut cur = Some(at.clone());
        while let Some(e) = cur {
            let _ = e.set_attribute(HOVER_ATTR, "");
            cur = e
                .parent_element()
                .or_else(|| as_element(get(&e.get_root_node(), "host")));
            chain.push(e);
        }
    });
    let doc = get(at, "ownerDocument");
    // The page's sheets (not ours): their rules are mirrored again only when they changed (a
    // count of sheets and rules), not on every pointer move of every click.
    let sheets = get(&doc, "styleSheets");
    let mut page_sheets = Vec::new();
    let mut size = 0.0;
    for i in 0..get(&sheets, "length").as_f64().unwrap_or(0.0) as u32 {
        let sheet = Reflect::get_u32(&sheets, i).unwrap_or_default();
        if get(&get(&sheet, "ownerNode"), "id").as_string().as_deref() == Some(HOVER_STYLE_ID) {
            continue;
        }
        // Cross-origin sheets throw on `cssRules`: their rules stay out of reach, as for the page.
        if let Ok(rules) = Reflect::get(&sheet, &js_string("cssRules")) {
            size += 1.0 + get(&rules, "length").as_f64().unwrap_or(0.0);
            page_sheets.push(rules);
        }
    }
    let existing = get(&doc, "getElementById")
        .dyn_into::<Function>()
        .ok()
        .and_then(|f| f.call1(&doc, &js_string(HOVER_STYLE_ID)).ok())
        .filter(|v| v.is_object());
    // Up to date: same sheets, and our `<style>` still there if there was anything to mirror.
    let current = HOVER_MIRRORED.with(|m| {
        m.borrow()
            .as_ref()
            .is_some_and(|(d, n, any)| *d == doc && *n == size && (!any || existing.is_some()))
    });
    if current {
        return;
    }
    let mut css = JsString::from("");
    for rules in &page_sheets {
        css = css.concat(&hover_rules(rules));
    }
    let mut style = existing;
    if style.is_none() && css.length() > 0 {
        style = call(&doc, "createElement", &[&js_string("style")]).ok();
        if let Some(st) = &style {
            set(st, "id", &js_string(HOVER_STYLE_ID));
            let _ = call(
                st,
                "setAttribute",
                &[&js_string(browser_agent_protocol::UI_ATTR), &js_string("")],
            );
            let _ = call(&get(&doc, "documentElement"), "appendChild", &[st]);
        }
    }
    let any = css.length() > 0;
    if let Some(st) = style {
        set(&st, "textContent", &css);
    }
    HOVER_MIRRORED.with(|m| *m.borrow_mut() = Some((doc, size, any)));
}

/// The `:hover` rules of a rule list (inside their `@media`/`@supports`/`@layer` blocks), with the
/// attribute in place of `:hover`. (JS strings throughout: CSS text never needs to cross into wasm.)
fn hover_rules(rules: &JsValue) -> JsString {
    let mut out = JsString::from("");
    for i in 0..get(rules, "length").as_f64().unwrap_or(0.0) as u32 {
        let rule = Reflect::get_u32(rules, i).unwrap_or_default();
        let text: JsString = get(&rule, "cssText").dyn_into().unwrap_or_else(|_| JsString::from(""));
        if !text.includes(":hover", 0) {
            continue;
        }
        let selector = get(&rule, "selectorText");
        if let Some(sel) = selector.dyn_ref::<JsString>() {
            if sel.includes(":hover", 0) {
                out = out
                    .concat(&text.replace_all(":hover", "[data-browser-agent-hover]"))
                    .concat(&js_string("\n"));
            }
        } else if get(&rule, "cssRules").is_object() {
            // A block: its header as written, then only its hover rules.
            let inner = hover_rules(&get(&rule, "cssRules"));
            let open = text.index_of("{", 0);
            if open > 0 && inner.length() > 0 {
                out = out
                    .concat(&text.slice(0, open as u32))
                    .concat(&js_string("{\n"))
                    .concat(&inner)
                    .concat(&js_string("}\n"));
            }
        }
    }
    out
}

/// `hover`: moves the pointer onto the target (scrolled into view), at its centre or `x`/`y`, and
/// leaves it there (with a button a `down` step holds still held).
pub(super) async fn hover(step: &JsValue) -> Outcome {
    let t = target(step, false)?;
    scroll_into_view(&t.el).await;
    batch::note(&t);
    let point = super::reach::step_point(step, &t)?;
    let (at, x, y) = landing_at(&t, point)?;
    cursor::move_to(x, y).await;
    let mark = super::settle::mark();
    hover_at(&at, x, y);
    let _ = super::settle::settle(mark, if cursor::enabled() { 120 } else { 0 }, true).await;
    Ok(js_string("hovered"))
}
