//! Page APIs the capture and transport paths call, declared directly: each is one small import in
//! the JS glue, without the `Window` lookups and `instanceof` checks of the web-sys accessors. (DOM
//! types come from web-sys, shared with the snapshot code.)

use js_sys::Function;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The queue of entries not yet confirmed by the host: a JS array (entries are JS objects;
    /// a batch is `JSON.stringify(queue.slice(…))`).
    #[wasm_bindgen(extends = js_sys::Array)]
    pub(crate) type Queue;
    /// `queue.splice(start, count)`, without inserting anything.
    #[wasm_bindgen(method, js_name = splice)]
    pub(crate) fn remove(this: &Queue, start: u32, count: u32);

    #[wasm_bindgen(js_name = setTimeout)]
    pub(crate) fn set_timeout(f: &Function, ms: i32) -> i32;
    #[wasm_bindgen(js_name = clearTimeout)]
    pub(crate) fn clear_timeout(handle: i32);
    #[wasm_bindgen(js_name = setInterval)]
    pub(crate) fn set_interval(f: &Function, ms: i32) -> i32;
    /// `window.addEventListener(type, f)`.
    #[wasm_bindgen(js_name = addEventListener)]
    pub(crate) fn listen_window(ty: &str, f: &Function);
    /// `document.addEventListener(type, f, capture)`.
    #[wasm_bindgen(js_namespace = document, js_name = addEventListener)]
    pub(crate) fn listen_document(ty: &str, f: &Function, capture: bool);

    #[wasm_bindgen(js_namespace = location, js_name = reload)]
    pub(crate) fn reload();

    /// `navigator.sendBeacon(url, body)`.
    #[wasm_bindgen(js_namespace = navigator, js_name = sendBeacon, catch)]
    pub(crate) fn send_beacon(url: &str, body: &JsValue) -> Result<bool, JsValue>;
    /// `sessionStorage.getItem(key)` (throws where storage is blocked).
    #[wasm_bindgen(js_namespace = sessionStorage, js_name = getItem, catch)]
    pub(crate) fn session_get(key: &str) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(js_namespace = sessionStorage, js_name = setItem, catch)]
    pub(crate) fn session_set(key: &str, value: &str) -> Result<(), JsValue>;

    /// A fetch `Response` (its status, and a header).
    pub(crate) type Response;
    #[wasm_bindgen(method, getter)]
    pub(crate) fn status(this: &Response) -> u16;
    #[wasm_bindgen(method, getter)]
    pub(crate) fn headers(this: &Response) -> Headers;
    pub(crate) type Headers;
    #[wasm_bindgen(method, js_name = get)]
    pub(crate) fn get(this: &Headers, name: &str) -> Option<String>;
}
