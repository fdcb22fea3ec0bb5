//! The client's own requests to the host: all go through the page's original `fetch` (saved by the
//! bootstrap), so they are never captured or counted as the page's; request options with the page
//! key; query strings; and the tab id sent on heartbeats and polls.

use crate::bootstrap::{self, cfg};
use crate::js::{get, set};
use crate::text::push_number;
use browser_agent_protocol::{KEY_HEADER, TAB_STORAGE_KEY};
use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Where to reach the host, from the client state.
pub(crate) struct Host {
    /// The route prefix.
    pub(crate) prefix: String,
    /// The page key.
    pub(crate) key: String,
    /// This page load's client id.
    pub(crate) client_id: String,
    /// The client revision the host served with this page.
    pub(crate) rev: String,
}

/// Where to reach the host, from the tag's config the bootstrap parsed (`None` without one).
pub(crate) fn host() -> Option<Host> {
    let config = bootstrap::field(bootstrap::CFG);
    let text = |o: &JsValue, name: &str| get(o, name).as_string();
    Some(Host {
        prefix: text(&config, cfg::PREFIX)?,
        key: text(&config, cfg::KEY)?,
        client_id: text(&bootstrap::agent(), bootstrap::CLIENT_ID)?,
        rev: text(&config, cfg::REV).unwrap_or_default(),
    })
}

/// The absolute URL of one of our paths: `location.origin` + `path`, never resolved against the
/// document's base URL, so a page that adds `<base href="http://elsewhere/">` cannot send the page
/// key (or anything else of ours) to another origin. A document with an opaque origin (`"null"`:
/// a sandboxed frame) keeps the path as it is: it has no origin to name.
pub(crate) fn url(path: &str) -> String {
    let origin = crate::js::window().location().origin().unwrap_or_default();
    if origin.is_empty() || origin == "null" {
        return path.to_owned();
    }
    let mut url = origin;
    url.push_str(path);
    url
}

/// `fetch(url, init)` as the page had it before any wrapper (the page's current `fetch` only when
/// the bootstrap saved none). A path (`/…`) is made absolute with [`url`] first, so no request of
/// ours is ever resolved against `<base>`.
pub(crate) fn fetch(url: &str, init: &Object) -> Option<Promise> {
    let absolute;
    let url = if url.starts_with('/') && !url.starts_with("//") {
        absolute = self::url(url);
        absolute.as_str()
    } else {
        url
    };
    let global = js_sys::global();
    let f = bootstrap::original(bootstrap::original::FETCH)
        .dyn_into::<Function>()
        .ok()
        .or_else(|| get(&global, "fetch").dyn_into::<Function>().ok())?;
    f.call2(&global, &JsValue::from_str(url), init)
        .ok()?
        .dyn_into::<Promise>()
        .ok()
}

/// Request options: never from a cache, with the page key header when `key` is given, and a JSON
/// body when `body` is given.
pub(crate) fn init(method: &str, key: Option<&str>, body: Option<&JsValue>) -> Object {
    let init = Object::new();
    set(&init, "method", &JsValue::from_str(method));
    set(&init, "cache", &JsValue::from_str("no-store"));
    let headers = Object::new();
    if let Some(key) = key {
        set(&headers, KEY_HEADER, &JsValue::from_str(key));
    }
    if let Some(body) = body {
        set(&headers, "content-type", &JsValue::from_str("application/json"));
        set(&init, "body", body);
    }
    set(&init, "headers", &headers);
    init
}

/// This tab's id: random, made once per tab and kept in `sessionStorage` ([`TAB_STORAGE_KEY`]), so
/// the host can hand a batch's remaining steps over to the next page loaded in the same tab. Sent as
/// `tab=` on every heartbeat and poll; empty where storage is blocked. A frame's adds its place
/// among the tab's frames ([`frame_path`]), as the sensor's `tabId` does.
pub(crate) fn tab_id() -> String {
    if let Ok(Some(id)) = crate::js::session_get(TAB_STORAGE_KEY) {
        if !id.is_empty() {
            return id + &frame_path();
        }
    }
    let mut id = String::from("t");
    for _ in 0..3 {
        push_number(&mut id, (js_sys::Math::random() * 1e9) as u32);
    }
    match crate::js::session_set(TAB_STORAGE_KEY, &id) {
        Ok(()) => id + &frame_path(),
        Err(_) => String::new(),
    }
}

/// Where this page is among its tab's frames (`/0/1`; empty for the tab's page): a same-origin
/// frame shares the tab's `sessionStorage`, and must not take the tab page's handover.
fn frame_path() -> String {
    let mut path = String::new();
    let mut w = crate::js::global();
    loop {
        let parent = get(&w, "parent");
        // The top window is its own parent; a cross-origin parent still answers `frames`.
        if !parent.is_object() || parent == w {
            return path;
        }
        let frames = get(&parent, "frames");
        let n = get(&frames, "length").as_f64().unwrap_or(0.0) as u32;
        let i = (0..n)
            .find(|&i| js_sys::Reflect::get(&frames, &JsValue::from(i)).is_ok_and(|f| f == w))
            .unwrap_or(n);
        let mut at = String::from("/");
        push_number(&mut at, i);
        path.insert_str(0, &at);
        w = parent;
    }
}
