//! The window and computed-style bindings every part of the snapshot and the commands read: a leaf,
//! so the walker, names and resolution depend on it and it on nothing of theirs.

use crate::js::get;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

#[wasm_bindgen]
extern "C" {
    /// A page's or a frame's window.
    pub(crate) type Win;
    /// `win.getComputedStyle(el, pseudo)`.
    #[wasm_bindgen(method, js_name = getComputedStyle, catch)]
    pub(crate) fn computed_style(this: &Win, el: &Element, pseudo: Option<&str>) -> Result<Style, JsValue>;
    /// A computed `CSSStyleDeclaration`, read through its getters.
    pub(crate) type Style;
    /// `style.display`.
    #[wasm_bindgen(method, getter)]
    pub(crate) fn display(this: &Style) -> String;
    /// `style.visibility`.
    #[wasm_bindgen(method, getter)]
    pub(crate) fn visibility(this: &Style) -> String;
    /// `style.cursor`.
    #[wasm_bindgen(method, getter)]
    pub(crate) fn cursor(this: &Style) -> String;
    /// `style.content` (of a pseudo-element).
    #[wasm_bindgen(method, getter)]
    pub(crate) fn content(this: &Style) -> String;
    /// `style.pointerEvents`.
    #[wasm_bindgen(method, getter, js_name = pointerEvents)]
    pub(crate) fn pointer_events(this: &Style) -> String;
    /// `style.overflow`.
    #[wasm_bindgen(method, getter)]
    pub(crate) fn overflow(this: &Style) -> String;
}

/// Whether a computed style skips its element's contents (`content-visibility: hidden`, also what
/// `hidden="until-found"` sets): neither drawn nor in the accessibility tree. Read as a plain
/// property: a browser without it (Firefox < 125, Safari < 18) has `undefined` there.
pub(crate) fn hides_contents(style: &Style) -> bool {
    get(style, "contentVisibility")
        .as_string()
        .is_some_and(|v| v == "hidden")
}

/// Whether `el`, with its computed `style`, cuts its contents off to nothing: a box without width
/// or height whose `overflow` is not `visible` (antd's copy of a Select's options for screen
/// readers, a collapsed panel). Chromium keeps such contents in its tree; nobody sees or clicks
/// them, so the snapshot and the commands leave them out.
pub(crate) fn clips_to_nothing(el: &Element, style: &Style) -> bool {
    if style.overflow() == "visible" || style.display() == "contents" {
        return false;
    }
    let r = el.get_bounding_client_rect();
    r.width() == 0.0 || r.height() == 0.0
}

/// The page's window.
pub(crate) fn page_window() -> Win {
    js_sys::global().unchecked_into()
}
