//! Turning arbitrary page values into bounded strings without changing the page's behaviour.
//!
//! Strings pass through (cut to [`MAX_ARG`] UTF-16 units); errors become their stack; DOM nodes a
//! short description (`<button#save.primary>`); objects and arrays bounded JSON (depth, items,
//! length) with cycles marked `"[Circular]"`; symbols and functions are named. Getters that throw,
//! proxies whose traps throw and objects whose `toString` throws never escape as exceptions.

use js_sys::{Array, JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Longest string argument kept, in UTF-16 units.
pub(crate) const MAX_ARG: u32 = 4000;
/// Longest JSON rendering of one object argument, in bytes (then `…`).
const MAX_JSON: usize = 2000;
/// Nesting depth rendered before `[Object]` / `[Array]`.
const MAX_DEPTH: usize = 4;
/// Items per object or array rendered before a `… N more` marker.
const MAX_ITEMS: u32 = 30;
/// Longest string inside an object, in UTF-16 units.
const MAX_INNER: u32 = 300;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(o: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(js_name = String, catch)]
    fn js_string(v: &JsValue) -> Result<JsString, JsValue>;
    #[wasm_bindgen(js_namespace = Array, js_name = isArray)]
    fn is_array(v: &JsValue) -> bool;
}

/// One console argument as a JS string value (the bootstrap turns primitives into strings itself).
pub(crate) fn arg(v: &JsValue) -> JsValue {
    if let Some(s) = v.dyn_ref::<JsString>() {
        return if s.length() > MAX_ARG {
            s.slice(0, MAX_ARG).into()
        } else {
            v.clone()
        };
    }
    let mut w = Writer {
        out: String::new(),
        seen: Vec::new(),
    };
    w.value(v, 0, true);
    JsValue::from_str(&w.out)
}

/// `String(v)` that never throws.
pub(crate) fn string_of(v: &JsValue) -> String {
    match js_string(v) {
        Ok(s) => s.into(),
        Err(_) => "[unprintable]".into(),
    }
}

/// A property as a Rust string, when it is a string.
pub(crate) fn prop_str(v: &JsValue, name: &str) -> Option<String> {
    if !v.is_object() && !v.is_function() {
        return None;
    }
    Reflect::get(v, &crate::key(name)).ok().and_then(|s| s.as_string())
}

/// The stack of an error (or the best text it has), for `error` entries and console arguments.
pub(crate) fn error_stack(v: &JsValue) -> Option<String> {
    if !looks_like_error(v) {
        return None;
    }
    let stack = prop_str(v, "stack").unwrap_or_default();
    if !stack.is_empty() {
        return Some(stack);
    }
    Some(error_headline(v))
}

fn looks_like_error(v: &JsValue) -> bool {
    v.is_instance_of::<js_sys::Error>()
        || (v.is_object() && prop_str(v, "stack").is_some() && prop_str(v, "message").is_some())
}

/// `Name: message` of an error.
fn error_headline(v: &JsValue) -> String {
    let name = prop_str(v, "name").unwrap_or_else(|| "Error".into());
    let msg = prop_str(v, "message").unwrap_or_default();
    if msg.is_empty() {
        name
    } else {
        let mut s = name;
        s.push_str(": ");
        s.push_str(&msg);
        s
    }
}

/// `<tag#id.cls>`, `#text "…"` or `#document`.
pub(crate) fn describe_node(n: &web_sys::Node) -> String {
    if let Some(el) = n.dyn_ref::<web_sys::Element>() {
        let mut s = String::from("<");
        s.push_str(&el.tag_name().to_ascii_lowercase());
        let id = el.id();
        if !id.is_empty() {
            s.push('#');
            s.push_str(&id);
        }
        if let Some(class) = el.get_attribute("class") {
            for c in class.split_ascii_whitespace().take(5) {
                s.push('.');
                s.push_str(c);
            }
        }
        s.push('>');
        return s;
    }
    let name = n.node_name();
    match n.node_type() {
        3 | 8 => {
            let mut s = name;
            s.push_str(" \"");
            let text = n.text_content().unwrap_or_default();
            s.extend(text.trim().chars().take(60));
            s.push('"');
            s
        }
        _ => name,
    }
}

struct Writer {
    out: String,
    seen: Vec<JsValue>,
}

impl Writer {
    fn full(&self) -> bool {
        self.out.len() > MAX_JSON
    }

    /// Writes `v`; `top` means it is the argument itself (strings unquoted).
    fn value(&mut self, v: &JsValue, depth: usize, top: bool) {
        if v.is_undefined() {
            self.out.push_str("undefined");
        } else if v.is_null() {
            self.out.push_str("null");
        } else if let Some(s) = v.dyn_ref::<JsString>() {
            let cut = s.length() > MAX_INNER;
            let s: String = if cut { s.slice(0, MAX_INNER).into() } else { s.into() };
            if top {
                self.out.push_str(&s);
            } else {
                self.quote(&s);
            }
            if cut {
                self.out.push('…');
            }
        } else if v.is_function() {
            let name = prop_str(v, "name").filter(|n| !n.is_empty());
            let mut s = String::from("[Function: ");
            s.push_str(name.as_deref().unwrap_or("anonymous"));
            s.push(']');
            self.text(&s, top);
        } else if v.is_symbol() || v.is_bigint() || !v.is_object() {
            let mut s = string_of(v);
            if v.is_bigint() {
                s.push('n');
            }
            if v.is_symbol() {
                self.text(&s, top)
            } else {
                self.out.push_str(&s)
            }
        } else if self.seen.iter().any(|s| s == v) {
            self.out.push_str("\"[Circular]\"");
        } else if looks_like_error(v) {
            let s = if top {
                error_stack(v).unwrap_or_default()
            } else {
                error_headline(v)
            };
            self.text(&s, top);
        } else if let Some(n) = v.dyn_ref::<web_sys::Node>() {
            let s = describe_node(n);
            self.text(&s, top);
        } else if let Some(d) = v.dyn_ref::<js_sys::Date>() {
            let s = if d.get_time().is_nan() {
                "Invalid Date".into()
            } else {
                String::from(d.to_iso_string())
            };
            self.text(&s, top);
        } else if v.is_instance_of::<js_sys::Map>() || v.is_instance_of::<js_sys::Set>() {
            let mut s = String::from(if v.is_instance_of::<js_sys::Map>() {
                "[Map("
            } else {
                "[Set("
            });
            s.push_str(&string_of(&crate::get(v, "size")));
            s.push_str(")]");
            self.text(&s, top);
        } else if is_array(v) {
            if depth >= MAX_DEPTH {
                self.out.push_str("\"[Array]\"");
                return;
            }
            self.seen.push(v.clone());
            let arr: &Array = v.unchecked_ref();
            let len = arr.length();
            self.out.push('[');
            for i in 0..len.min(MAX_ITEMS) {
                if i > 0 {
                    self.out.push(',');
                }
                if self.full() {
                    self.out.push('…');
                    break;
                }
                match Reflect::get_u32(v, i) {
                    Ok(item) => self.value(&item, depth + 1, false),
                    Err(_) => self.out.push_str("\"[Throws]\""),
                }
            }
            if len > MAX_ITEMS && !self.full() {
                self.out.push_str(",\"… ");
                self.out.push_str(&string_of(&JsValue::from(len - MAX_ITEMS)));
                self.out.push_str(" more\"");
            }
            self.out.push(']');
            self.seen.pop();
        } else {
            if depth >= MAX_DEPTH {
                self.out.push_str("\"[Object]\"");
                return;
            }
            let keys = match object_keys(v) {
                Ok(k) => k,
                Err(_) => {
                    self.out.push_str("\"[Object]\"");
                    return;
                }
            };
            self.seen.push(v.clone());
            self.out.push('{');
            let len = keys.length();
            for i in 0..len.min(MAX_ITEMS) {
                if i > 0 {
                    self.out.push(',');
                }
                if self.full() {
                    self.out.push('…');
                    break;
                }
                let k = keys.get(i);
                self.quote(&k.as_string().unwrap_or_default());
                self.out.push(':');
                match Reflect::get(v, &k) {
                    Ok(item) => self.value(&item, depth + 1, false),
                    Err(_) => self.out.push_str("\"[Throws]\""),
                }
            }
            if len > MAX_ITEMS && !self.full() {
                self.out.push_str(",\"…\":\"");
                self.out.push_str(&string_of(&JsValue::from(len - MAX_ITEMS)));
                self.out.push_str(" more\"");
            }
            self.out.push('}');
            self.seen.pop();
        }
    }

    fn text(&mut self, s: &str, top: bool) {
        if top {
            self.out.push_str(s);
        } else {
            self.quote(s);
        }
    }

    /// Appends `s` as a JSON string literal.
    fn quote(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                c if (c as u32) < 0x20 => {
                    self.out.push_str("\\u00");
                    self.out.push(HEX[(c as usize) >> 4] as char);
                    self.out.push(HEX[(c as usize) & 15] as char);
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }
}
