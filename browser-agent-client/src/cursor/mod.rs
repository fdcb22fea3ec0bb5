//! The visible cursor: a pink (#DD2590) Figma-style arrow with a name tag that shows a person
//! watching the page what the agent does. Only when the page runs in an iframe (an agent's preview
//! pane) or the tag's config says `cursor: true` (or a name: `cursor: "Ada"`; `cursorName` also
//! names it).
//!
//! It enters from a random viewport edge on the first action, glides to each target in
//! clamp(220 + 0.55·distance, 280, 800) ms (eased), presses and releases with a ripple on clicks,
//! fades out 1.5 s after the batch and comes back where it was (also across page loads, through
//! `sessionStorage`). It is `position:fixed`, topmost, `pointer-events:none`, appended to `<html>`
//! so it never changes layout, and marked `data-browser-agent-ui` with an `__browser-agent` id so
//! the snapshot walker and target resolution skip it. When it is off nothing here waits.

use crate::bootstrap::{self, cfg};
use crate::js::{call, get, global, set, sleep};
use crate::text::{cat, push_number};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The cursor's colour.
const PINK: &str = "#DD2590";
/// The topmost `z-index`.
const Z: &str = "2147483647";
/// Where the last position is kept across page loads.
const STORE_KEY: &str = "__browserAgentCursor";
/// The cursor fades this long after a batch (ms).
const FADE_AFTER_MS: i32 = 1_500;
/// The pointer's tip is kept this far inside the viewport (px).
const MARGIN: f64 = 10.0;

/// The cursor's elements and state.
struct Cursor {
    /// The fixed, positioned container.
    root: JsValue,
    /// The arrow (scaled on press).
    arrow: JsValue,
    /// Where the tip is (viewport x).
    x: f64,
    /// Where the tip is (viewport y).
    y: f64,
    /// Visible now.
    shown: bool,
    /// The pending fade-out timer.
    fade: Option<i32>,
}

thread_local! {
    static CURSOR: RefCell<Option<Cursor>> = const { RefCell::new(None) };
}

/// The tag configuration.
fn config() -> JsValue {
    bootstrap::field(bootstrap::CFG)
}

/// Whether the cursor shows: in an iframe, or when the config asks for it.
pub(crate) fn enabled() -> bool {
    let g = global();
    get(&config(), cfg::CURSOR).is_truthy() || get(&g, "parent") != g
}

/// The name the tag shows (`Agent` unless the config names it).
fn name() -> String {
    let c = config();
    get(&c, cfg::CURSOR_NAME)
        .as_string()
        .or_else(|| get(&c, cfg::CURSOR).as_string())
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "Agent".to_owned())
}

/// `s` (its first 40 characters) with `<`, `>` and `&` escaped for HTML.
fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().take(40) {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            _ => out.push(c),
        }
    }
    out
}

/// `v` rounded, in CSS pixels.
fn px(v: f64) -> String {
    let mut out = String::new();
    if v < 0.0 {
        out.push('-');
    }
    push_number(&mut out, v.abs().round() as u32);
    out.push_str("px");
    out
}

/// A CSS `translate(x, y)`.
fn translate(x: f64, y: f64) -> String {
    cat(&["translate(", &px(x), ",", &px(y), ")"])
}

/// Sets one inline style property.
fn style(el: &JsValue, prop: &str, v: &str) {
    set(&get(el, "style"), prop, &JsValue::from_str(v));
}

/// The viewport's size.
fn viewport() -> (f64, f64) {
    let g = global();
    (
        get(&g, "innerWidth").as_f64().unwrap_or(800.0),
        get(&g, "innerHeight").as_f64().unwrap_or(600.0),
    )
}

/// The position kept from the last page load of this tab.
fn stored() -> Option<(f64, f64)> {
    let v = crate::js::session_get(STORE_KEY).ok()??;
    let (x, y) = v.split_once(',')?;
    let p = |s: &str| crate::text::parse_number(s).map(f64::from);
    Some((p(x)?, p(y)?))
}

/// Keeps the position for the next page load of this tab.
fn store(x: f64, y: f64) {
    let mut v = String::new();
    push_number(&mut v, x.max(0.0).round() as u32);
    v.push(',');
    push_number(&mut v, y.max(0.0).round() as u32);
    let _ = crate::js::session_set(STORE_KEY, &v);
}

/// Makes the cursor's elements (hidden, at `(x, y)`).
fn create(x: f64, y: f64) -> Option<Cursor> {
    let doc = get(&global(), "document");
    let root = call(&doc, "createElement", &[&JsValue::from_str("div")]).ok()?;
    set(&root, "id", &JsValue::from_str("__browser-agent-cursor"));
    call(&root, "setAttribute", &[&"data-browser-agent-ui".into(), &"".into()]).ok()?;
    call(&root, "setAttribute", &[&"aria-hidden".into(), &"true".into()]).ok()?;
    let css = cat(&[
        "position:fixed;left:0;top:0;width:0;height:0;margin:0;padding:0;border:0;z-index:",
        Z,
        ";pointer-events:none;opacity:0;will-change:transform;contain:layout style;transition:opacity .3s;transform:",
        &translate(x, y),
    ]);
    call(&root, "setAttribute", &[&"style".into(), &JsValue::from_str(&css)]).ok()?;
    let html = cat(&[
        "<div style=\"transform-origin:3px 2px;transition:transform 90ms cubic-bezier(.4,0,1,1)\">",
        "<svg width=\"26\" height=\"26\" viewBox=\"0 0 26 26\" style=\"display:block;filter:drop-shadow(0 1px 2px rgba(0,0,0,.35))\">",
        "<path d=\"M3 2 L22 10.5 L13.5 13.2 L9.8 22 Z\" fill=\"",
        PINK,
        "\" stroke=\"#fff\" stroke-width=\"1.6\" stroke-linejoin=\"round\"/></svg>",
        "<span style=\"position:absolute;left:20px;top:22px;background:",
        PINK,
        ";color:#fff;font:600 12px/1.3 system-ui,sans-serif;padding:3px 8px;border-radius:9px;white-space:nowrap;box-shadow:0 1px 3px rgba(0,0,0,.3)\">",
        &escape(&name()),
        "</span></div>",
    ]);
    set(&root, "innerHTML", &JsValue::from_str(&html));
    let arrow = get(&root, "firstChild");
    call(&get(&doc, "documentElement"), "appendChild", &[&root]).ok()?;
    Some(Cursor {
        root,
        arrow,
        x,
        y,
        shown: false,
        fade: None,
    })
}

/// A point 20 px outside a random viewport edge, level with `(x, y)`.
fn edge_start(x: f64, y: f64) -> (f64, f64) {
    let (w, h) = viewport();
    match (js_sys::Math::random() * 4.0) as u32 {
        0 => (x, -20.0 - 26.0),
        1 => (w + 20.0, y),
        2 => (x, h + 20.0),
        _ => (-20.0 - 26.0, y),
    }
}

/// Cancels a pending fade-out.
fn cancel_fade(c: &mut Cursor) {
    if let Some(t) = c.fade.take() {
        crate::js::clear_timeout(t);
    }
}

/// Glides to `(x, y)` (viewport coordinates); enters or comes back first when hidden.
pub(crate) async fn move_to(x: f64, y: f64) {
    if !enabled() {
        return;
    }
    let (w, h) = viewport();
    // Not `f64::clamp`: its NaN assertion formats two f64s, which links ~17 KB of float printing.
    let x = x.min(w - MARGIN).max(MARGIN);
    let y = y.min(h - MARGIN).max(MARGIN);
    let exists = CURSOR.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|c| get(&c.root, "isConnected").is_truthy())
    });
    if !exists {
        let (sx, sy) = stored().unwrap_or_else(|| edge_start(x, y));
        let Some(c) = create(sx, sy) else { return };
        CURSOR.with(|s| *s.borrow_mut() = Some(c));
    }
    let Some((root, from_x, from_y)) = CURSOR.with(|c| {
        let mut c = c.borrow_mut();
        let c = c.as_mut()?;
        cancel_fade(c);
        let start = (c.root.clone(), c.x, c.y);
        c.x = x;
        c.y = y;
        c.shown = true;
        Some(start)
    }) else {
        return;
    };
    let distance = ((x - from_x).powi(2) + (y - from_y).powi(2)).sqrt();
    let ms = (220.0 + 0.55 * distance).clamp(280.0, 800.0);
    let mut dur = String::new();
    push_number(&mut dur, ms as u32);
    style(&root, "transition", "none");
    style(&root, "transform", &translate(from_x, from_y));
    // Flush so the glide starts from there.
    let _ = get(&root, "offsetWidth");
    style(
        &root,
        "transition",
        &cat(&["transform ", &dur, "ms cubic-bezier(.65,0,.35,1),opacity .2s"]),
    );
    style(&root, "opacity", "1");
    style(&root, "transform", &translate(x, y));
    store(x, y);
    sleep(ms as i32).await;
}

/// Presses (the arrow shrinks).
pub(crate) async fn press() {
    let Some(arrow) = CURSOR.with(|c| c.borrow().as_ref().filter(|c| c.shown).map(|c| c.arrow.clone())) else {
        return;
    };
    style(&arrow, "transform", "scale(.88)");
    sleep(90).await;
}

/// Releases, with a ripple where it clicked.
pub(crate) async fn release() {
    let Some((arrow, x, y)) = CURSOR.with(|c| {
        c.borrow()
            .as_ref()
            .filter(|c| c.shown)
            .map(|c| (c.arrow.clone(), c.x, c.y))
    }) else {
        return;
    };
    style(&arrow, "transition", "transform 160ms ease-out");
    style(&arrow, "transform", "scale(1)");
    let doc = get(&global(), "document");
    let Some(ripple) = call(&doc, "createElement", &[&JsValue::from_str("div")]).ok() else {
        return;
    };
    let _ = call(&ripple, "setAttribute", &[&"data-browser-agent-ui".into(), &"".into()]);
    set(&ripple, "id", &JsValue::from_str("__browser-agent-ripple"));
    let css = cat(&[
        "position:fixed;left:",
        &px(x - 36.0),
        ";top:",
        &px(y - 36.0),
        ";width:72px;height:72px;border-radius:50%;box-sizing:border-box;border:2px solid ",
        PINK,
        ";background:rgba(221,37,144,.15);pointer-events:none;z-index:2147483646;transform:scale(0);opacity:.9;transition:transform .45s ease-out,opacity .45s ease-out",
    ]);
    let _ = call(&ripple, "setAttribute", &[&"style".into(), &JsValue::from_str(&css)]);
    let _ = call(&get(&doc, "documentElement"), "appendChild", &[&ripple]);
    let _ = get(&ripple, "offsetWidth");
    style(&ripple, "transform", "scale(1)");
    style(&ripple, "opacity", "0");
    let r = ripple.clone();
    let done = Closure::once_into_js(move || {
        let _ = call(&r, "remove", &[]);
    });
    crate::js::set_timeout(done.unchecked_ref(), 500);
    sleep(40).await;
}

/// A batch starts: no fade while it runs.
pub(crate) fn batch_start() {
    CURSOR.with(|c| {
        if let Some(c) = c.borrow_mut().as_mut() {
            cancel_fade(c);
        }
    });
}

/// A batch ended: fade out in 1.5 s (the position is kept for the next entrance).
pub(crate) fn batch_end() {
    CURSOR.with(|c| {
        let mut c = c.borrow_mut();
        let Some(cur) = c.as_mut().filter(|c| c.shown) else {
            return;
        };
        cancel_fade(cur);
        let fade = Closure::once_into_js(|| {
            CURSOR.with(|c| {
                if let Some(c) = c.borrow_mut().as_mut() {
                    c.fade = None;
                    c.shown = false;
                    style(&c.root, "opacity", "0");
                }
            });
        });
        cur.fade = Some(crate::js::set_timeout(fade.unchecked_ref(), FADE_AFTER_MS));
    });
}

#[cfg(test)]
mod tests {
    use super::{escape, px, translate};

    #[test]
    fn name_tag_is_escaped_and_cut() {
        assert_eq!(escape("<b>Ada & co</b>"), "&lt;b&gt;Ada &amp; co&lt;/b&gt;");
        assert_eq!(escape(&"a".repeat(50)).len(), 40);
    }

    #[test]
    fn css_lengths() {
        assert_eq!(px(12.4), "12px");
        assert_eq!(px(-46.0), "-46px");
        assert_eq!(translate(1.5, -2.0), "translate(2px,-2px)");
    }
}
