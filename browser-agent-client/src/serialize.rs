//! Turning arbitrary page values into bounded strings without changing the page's behaviour.
//!
//! String arguments are the bootstrap's (it cuts them to 4000 UTF-16 units); errors become their stack; DOM nodes a
//! short description (`<button#save.primary>`); objects and arrays bounded JSON (depth, items,
//! length) with cycles marked `"[Circular]"`; symbols and functions are named. Getters that throw,
//! proxies whose traps throw and objects whose `toString` throws never escape as exceptions.
//!
//! What a value is comes from the bootstrap's `k(v)` (one call instead of a dozen `typeof` and
//! `instanceof` imports; it never throws).

use js_sys::{Array, JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Longest JSON rendering of one object argument, in bytes (then `…`).
const MAX_JSON: usize = 2000;
/// Nesting depth rendered before `[Object]` / `[Array]`.
const MAX_DEPTH: usize = 4;
/// Items per object or array rendered before a `… N more` marker.
const MAX_ITEMS: u32 = 30;
/// Longest string inside an object, in UTF-16 units.
const MAX_INNER: u32 = 300;

/// The kinds `k(v)` returns (the bootstrap's side is in `bootstrap.js`).
mod kind {
    pub(super) const UNDEFINED: u32 = 0;
    pub(super) const NULL: u32 = 1;
    pub(super) const STRING: u32 = 2;
    pub(super) const FUNCTION: u32 = 3;
    pub(super) const SYMBOL: u32 = 4;
    pub(super) const BIGINT: u32 = 5;
    pub(super) const NUMBER: u32 = 6;
    pub(super) const ERROR: u32 = 7;
    pub(super) const NODE: u32 = 8;
    pub(super) const DATE: u32 = 9;
    pub(super) const MAP: u32 = 10;
    pub(super) const SET: u32 = 11;
    pub(super) const ARRAY: u32 = 12;
    pub(super) const OBJECT: u32 = 13;
    // 14: `instanceof` threw (a revoked proxy, a proxy with a throwing trap).
    pub(super) const TRUE: u32 = 15;
    pub(super) const FALSE: u32 = 16;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(o: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(js_name = String, catch)]
    fn js_string(v: &JsValue) -> Result<JsString, JsValue>;

    /// `window.__browserAgent`.
    pub(crate) type Agent;
    #[wasm_bindgen(method, js_name = k)]
    fn kind_of(this: &Agent, v: &JsValue) -> u32;
}

/// One console argument as a JS string value (the bootstrap turns primitives into strings itself).
pub(crate) fn arg(agent: &Agent, v: &JsValue) -> JsValue {
    let mut w = Writer {
        agent,
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
    Reflect::get(v, &crate::key(name)).ok().and_then(|s| s.as_string())
}

/// The stack of an error (or the best text it has), for `error` entries and console arguments.
pub(crate) fn error_stack(agent: &Agent, v: &JsValue) -> Option<String> {
    let k = agent.kind_of(v);
    (k == kind::ERROR || (k == kind::OBJECT && duck_error(v))).then(|| stack_of(v))
}

/// An object from another frame (or a hand-made one) that carries `stack` and `message`.
fn duck_error(v: &JsValue) -> bool {
    prop_str(v, "stack").is_some() && prop_str(v, "message").is_some()
}

fn stack_of(v: &JsValue) -> String {
    match prop_str(v, "stack") {
        Some(s) if !s.is_empty() => s,
        _ => error_headline(v),
    }
}

/// `Name: message` of an error.
fn error_headline(v: &JsValue) -> String {
    let mut s = prop_str(v, "name").unwrap_or_else(|| "Error".into());
    let msg = prop_str(v, "message").unwrap_or_default();
    if !msg.is_empty() {
        s.push_str(": ");
        s.push_str(&msg);
    }
    s
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
    let mut s = n.node_name();
    if matches!(n.node_type(), 3 | 8) {
        s.push_str(" \"");
        let text = n.text_content().unwrap_or_default();
        s.extend(text.trim().chars().take(60));
        s.push('"');
    }
    s
}

/// Appends an integer that `f64` holds exactly, as JS prints it.
fn push_int(out: &mut String, x: f64) {
    if x < 0.0 {
        out.push('-');
    }
    let mut n = x.abs() as u64;
    let mut digits = [0u8; 20];
    let mut len = 0;
    while len < digits.len() {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in digits[..len].iter().rev() {
        out.push(d as char);
    }
}

struct Writer<'a> {
    agent: &'a Agent,
    out: String,
    seen: Vec<JsValue>,
}

impl Writer<'_> {
    fn full(&self) -> bool {
        self.out.len() > MAX_JSON
    }

    /// Writes `v`; `top` means it is the argument itself (strings unquoted).
    fn value(&mut self, v: &JsValue, depth: usize, top: bool) {
        let k = self.agent.kind_of(v);
        match k {
            kind::UNDEFINED => self.out.push_str("undefined"),
            kind::NULL => self.out.push_str("null"),
            kind::TRUE => self.out.push_str("true"),
            kind::FALSE => self.out.push_str("false"),
            kind::NUMBER => match v.as_f64() {
                Some(x) if x.trunc() == x && x.abs() < 1e15 => push_int(&mut self.out, x),
                _ => self.out.push_str(&string_of(v)),
            },
            kind::BIGINT => {
                self.out.push_str(&string_of(v));
                self.out.push('n');
            }
            kind::STRING => {
                let s: &JsString = v.unchecked_ref();
                let s: String = if s.length() > MAX_INNER {
                    let mut cut = String::from(s.slice(0, MAX_INNER));
                    cut.push('…');
                    cut
                } else {
                    s.into()
                };
                self.text(&s, top);
            }
            kind::SYMBOL => self.text(&string_of(v), top),
            kind::FUNCTION => {
                let mut s = String::from("[Function: ");
                match prop_str(v, "name") {
                    Some(n) if !n.is_empty() => s.push_str(&n),
                    _ => s.push_str("anonymous"),
                }
                s.push(']');
                self.text(&s, top);
            }
            _ if self.seen.iter().any(|s| s == v) => self.out.push_str("\"[Circular]\""),
            kind::ERROR => self.error(v, top),
            kind::OBJECT if duck_error(v) => self.error(v, top),
            kind::NODE => self.text(&describe_node(v.unchecked_ref()), top),
            kind::DATE => {
                let d: &js_sys::Date = v.unchecked_ref();
                let s = if d.get_time().is_nan() {
                    "Invalid Date".into()
                } else {
                    String::from(d.to_iso_string())
                };
                self.text(&s, top);
            }
            kind::MAP | kind::SET => {
                let mut s = String::from(if k == kind::MAP { "[Map(" } else { "[Set(" });
                s.push_str(&string_of(&crate::get(v, "size")));
                s.push_str(")]");
                self.text(&s, top);
            }
            kind::ARRAY => self.array(v, depth),
            kind::OBJECT => self.object(v, depth),
            // 14 (unreadable) and anything newer.
            _ => self.out.push_str("\"[Object]\""),
        }
    }

    fn error(&mut self, v: &JsValue, top: bool) {
        let s = if top { stack_of(v) } else { error_headline(v) };
        self.text(&s, top);
    }

    fn array(&mut self, v: &JsValue, depth: usize) {
        if depth >= MAX_DEPTH {
            self.out.push_str("\"[Array]\"");
            return;
        }
        self.seen.push(v.clone());
        let len = v.unchecked_ref::<Array>().length();
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
            push_int(&mut self.out, f64::from(len - MAX_ITEMS));
            self.out.push_str(" more\"");
        }
        self.out.push(']');
        self.seen.pop();
    }

    fn object(&mut self, v: &JsValue, depth: usize) {
        if depth >= MAX_DEPTH {
            self.out.push_str("\"[Object]\"");
            return;
        }
        let Ok(keys) = object_keys(v) else {
            self.out.push_str("\"[Object]\"");
            return;
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
            push_int(&mut self.out, f64::from(len - MAX_ITEMS));
            self.out.push_str(" more\"");
        }
        self.out.push('}');
        self.seen.pop();
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
