//! Keys on a US layout: the legacy `keyCode`, `charCode` and `code` Chromium gives a key, and the
//! inits of the `KeyboardEvent`s of one press (`press` and typing share them).

use crate::js::{event_init, js_string, set};
use crate::text::{cat, char_count};
pub(super) use browser_agent_protocol::keys::Mods;
use js_sys::Object;
use wasm_bindgen::prelude::*;

/// The key of a US layout that types `ch`: the legacy `keyCode` Chromium gives its keydown and
/// keyup (the unshifted key's), and its `code`.
fn us_layout(ch: char) -> Option<(u32, String)> {
    /// Punctuation: unshifted, shifted, keyCode, code.
    const PUNCT: [(char, char, u32, &str); 11] = [
        ('-', '_', 189, "Minus"),
        ('=', '+', 187, "Equal"),
        ('[', '{', 219, "BracketLeft"),
        (']', '}', 221, "BracketRight"),
        ('\\', '|', 220, "Backslash"),
        (';', ':', 186, "Semicolon"),
        ('\'', '"', 222, "Quote"),
        (',', '<', 188, "Comma"),
        ('.', '>', 190, "Period"),
        ('/', '?', 191, "Slash"),
        ('`', '~', 192, "Backquote"),
    ];
    /// The shifted digits, `0` to `9`.
    const SHIFTED_DIGITS: &str = ")!@#$%^&*(";
    if ch.is_ascii_alphabetic() {
        let up = ch.to_ascii_uppercase();
        return Some((up as u32, cat(&["Key", &String::from(up)])));
    }
    let digit = if ch.is_ascii_digit() {
        Some(ch)
    } else {
        SHIFTED_DIGITS
            .chars()
            .position(|c| c == ch)
            .and_then(|i| char::from_digit(i as u32, 10))
    };
    if let Some(d) = digit {
        return Some((d as u32, cat(&["Digit", &String::from(d)])));
    }
    if ch == ' ' {
        return Some((32, "Space".to_owned()));
    }
    PUNCT
        .iter()
        .find(|p| p.0 == ch || p.1 == ch)
        .map(|p| (p.2, p.3.to_owned()))
}

/// The single character of `key`, if it is one.
fn single(key: &str) -> Option<char> {
    let mut c = key.chars();
    match (c.next(), c.next()) {
        (Some(ch), None) => Some(ch),
        _ => None,
    }
}

/// The legacy `keyCode` (and `which`) of a DOM key name on keydown and keyup, as Chromium gives it
/// on a US layout; a character not on it keeps its own code; 0 when it has none.
fn key_code(key: &str) -> u32 {
    match key {
        "Enter" => 13,
        "Tab" => 9,
        "Backspace" => 8,
        "Escape" => 27,
        "Delete" => 46,
        "ArrowLeft" => 37,
        "ArrowUp" => 38,
        "ArrowRight" => 39,
        "ArrowDown" => 40,
        "Home" => 36,
        "End" => 35,
        "PageUp" => 33,
        "PageDown" => 34,
        "Shift" => 16,
        "Control" => 17,
        "Alt" => 18,
        "Meta" => 91,
        // F1–F24: 112–135 (parsed by hand: `str::parse` links the number-parsing machinery).
        _ if key.len() > 1 && key.starts_with('F') => key
            .bytes()
            .skip(1)
            .try_fold(0u32, |n, b| b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0')))
            .map_or(0, |n| 111 + n),
        _ => match single(key) {
            Some(ch) => us_layout(ch).map_or(ch as u32, |(kc, _)| kc),
            None => 0,
        },
    }
}

/// The `charCode` of the keypress of `key` (its character's first UTF-16 unit; 13 for Enter); 0
/// for a key that makes no keypress.
fn char_code(key: &str) -> u32 {
    if key == "Enter" {
        return 13;
    }
    let mut units = [0u16; 2];
    single(key).map_or(0, |ch| ch.encode_utf16(&mut units)[0] as u32)
}

/// The `code` of a key on a US layout: `KeyA`, `Digit1`, `Space`, `Minus`; named keys keep their
/// name; other characters have none.
pub(super) fn code_of(key: &str) -> String {
    match single(key) {
        Some(ch) => us_layout(ch).map(|(_, code)| code).unwrap_or_default(),
        None => key.to_owned(),
    }
}

/// The init of a `KeyboardEvent` for `key` with the held modifiers: `keyCode` and `which` as
/// given, `charCode` as given.
fn init_of(key: &str, mods: Mods, key_code: u32, char_code: u32) -> Object {
    let o = event_init(true);
    set(&o, "key", &js_string(key));
    set(&o, "code", &js_string(&code_of(key)));
    set(&o, "keyCode", &JsValue::from(key_code));
    set(&o, "which", &JsValue::from(key_code));
    set(&o, "charCode", &JsValue::from(char_code));
    set(&o, "ctrlKey", &JsValue::from_bool(mods.ctrl));
    set(&o, "shiftKey", &JsValue::from_bool(mods.shift));
    set(&o, "altKey", &JsValue::from_bool(mods.alt));
    set(&o, "metaKey", &JsValue::from_bool(mods.meta));
    o
}

/// The events of one press of `key` as Chromium fires them: the init of its keydown and keyup
/// (`keyCode` = `which` = the key's code, `charCode` 0), and of its keypress, fired only for a
/// key that makes a character (without Control, Alt or Meta) and for Enter (`keyCode` = `which`
/// = `charCode` = the character's code).
pub(super) fn key_inits(key: &str, mods: Mods) -> (Object, Option<Object>) {
    let down = init_of(key, mods, key_code(key), 0);
    let chars = char_count(key) == 1 && !mods.ctrl && !mods.meta && !mods.alt;
    let press = (chars || key == "Enter").then(|| {
        let cc = char_code(key);
        init_of(key, mods, cc, cc)
    });
    (down, press)
}

#[cfg(test)]
mod tests {
    use super::{char_code, code_of, key_code};

    #[test]
    fn key_codes() {
        for (key, code) in [
            ("Enter", 13),
            ("Tab", 9),
            ("Backspace", 8),
            ("Escape", 27),
            (" ", 32),
            ("ArrowDown", 40),
            ("Meta", 91),
            ("a", 65),
            ("Z", 90),
            ("7", 55),
            ("+", 187),
            ("-", 189),
            ("!", 49),
            (")", 48),
            ("?", 191),
            ("é", 233),
            ("F5", 116),
        ] {
            assert_eq!(key_code(key), code, "{key}");
        }
    }

    #[test]
    fn char_codes() {
        for (key, code) in [
            ("a", 97),
            ("A", 65),
            ("7", 55),
            (" ", 32),
            ("Enter", 13),
            ("é", 233),
            ("Tab", 0),
            ("F5", 0),
        ] {
            assert_eq!(char_code(key), code, "{key}");
        }
    }

    #[test]
    fn codes() {
        assert_eq!(code_of("a"), "KeyA");
        assert_eq!(code_of("Q"), "KeyQ");
        assert_eq!(code_of("7"), "Digit7");
        assert_eq!(code_of(" "), "Space");
        assert_eq!(code_of("-"), "Minus");
        assert_eq!(code_of("_"), "Minus");
        assert_eq!(code_of("@"), "Digit2");
        assert_eq!(code_of("é"), "");
        assert_eq!(code_of("Enter"), "Enter");
        assert_eq!(code_of("ArrowUp"), "ArrowUp");
    }
}
