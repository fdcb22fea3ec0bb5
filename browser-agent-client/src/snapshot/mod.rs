//! The accessibility snapshot: a compact tree of what an agent can see and act on, in the shared
//! grammar of `browser_agent_core::snapshot` (`role "name" [attr]… [ref=eN]`, two spaces per depth).
//!
//! - [`walker`] walks the page (open shadow roots with their slots, same-origin frames) and builds
//!   the nodes; [`roles`] holds the role tables; [`name`] computes accessible names.
//! - [`refs`] numbers elements for the page load; [`seen`] keeps the ref lines the agent saw.
//! - Before walking, [`idle::wait_network_idle`] waits until the page's requests settle.
//! - [`modal`] finds the open modal dialog, outside which nothing is reachable.

pub(crate) mod flat;
pub(crate) mod idle;
pub(crate) mod labels;
pub(crate) mod modal;
pub(crate) mod name;
mod options;
pub(crate) mod refs;
pub(crate) mod roles;
pub(crate) mod seen;
pub(crate) mod walker;

use crate::bootstrap;
use crate::js::now_ms;
use browser_agent_core::snapshot::render;
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
}

/// The page's window.
pub(crate) fn page_window() -> Win {
    js_sys::global().unchecked_into()
}

/// Walks the page now and renders the snapshot text; records the walk time on
/// `window.__browserAgent.walkMs`.
pub(crate) fn take_now() -> String {
    let t0 = now_ms();
    refs::prune();
    let nodes = walker::walk_page();
    let text = render(&nodes);
    let text = if text.is_empty() {
        "(empty page)".to_owned()
    } else {
        text
    };
    seen::record(&text);
    bootstrap::set_field(bootstrap::WALK_MS, &JsValue::from_f64(now_ms() - t0));
    text
}

/// Waits for network idle, then walks the page.
pub(crate) async fn take() -> String {
    idle::wait_network_idle().await;
    take_now()
}
