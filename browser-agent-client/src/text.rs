//! String helpers for building the texts the agent reads, without the formatting machinery
//! (`format!`, `str::find` with a `&str` pattern, `chars().count()` each link kilobytes of code
//! into the wasm).

/// Concatenates string pieces.
/// Appends `items` to `out`, `sep` between them: one small loop instead of a copy of the standard
/// `join` for every element type (each costs about 1 KB of wasm).
pub(crate) fn push_joined(out: &mut String, items: &[&str], sep: &str) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(item);
    }
}

pub(crate) fn cat(parts: &[&str]) -> String {
    let mut out = String::new();
    for p in parts {
        out.push_str(p);
    }
    out
}

/// Appends the decimal digits of `n` (core's shared digit writer).
pub(crate) fn push_number(out: &mut String, n: u32) {
    browser_agent_protocol::snapshot::push_decimal(out, u64::from(n));
}

/// `v` rounded to a whole number, as text (`-3`, `120`).
pub(crate) fn num(v: f64) -> String {
    let mut out = String::new();
    if v < 0.0 {
        out.push('-');
    }
    push_number(&mut out, v.abs().round() as u32);
    out
}

/// A non-negative decimal integer (ASCII digits only, at most 9 of them).
pub(crate) fn parse_number(s: &str) -> Option<i32> {
    if s.is_empty() || s.len() > 9 {
        return None;
    }
    let mut n = 0i32;
    for b in s.bytes() {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i32::from(b - b'0');
    }
    Some(n)
}

/// A decimal number as written in a field or an ARIA value: an optional sign, digits, an optional
/// fraction (`"80"`, `"-2.5"`, `".5"`); no exponent. (Rust's float parser would add 16 KB of
/// tables to the wasm.)
pub(crate) fn parse_decimal(s: &str) -> Option<f64> {
    let s = s.trim();
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if (whole.is_empty() && fraction.is_empty()) || whole.len() > 15 || fraction.len() > 15 {
        return None;
    }
    let mut v = 0.0f64;
    for c in whole.chars() {
        v = v * 10.0 + f64::from(c.to_digit(10)?);
    }
    let mut scale = 1.0f64;
    for c in fraction.chars() {
        scale /= 10.0;
        v += f64::from(c.to_digit(10)?) * scale;
    }
    Some(if negative { -v } else { v })
}

/// Byte offset of the first `needle` in `hay` (a plain scan).
pub(crate) fn find_sub(hay: &str, needle: &str) -> Option<usize> {
    hay.as_bytes()
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
}

/// Whether `needle` occurs in `hay`.
pub(crate) fn has_sub(hay: &str, needle: &str) -> bool {
    needle.is_empty() || find_sub(hay, needle).is_some()
}

/// ASCII case-insensitive substring test.
pub(crate) fn ci_contains(hay: &str, needle: &str) -> bool {
    let n = needle.as_bytes();
    n.is_empty() || hay.as_bytes().windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// Number of chars in `s`.
pub(crate) fn char_count(s: &str) -> usize {
    s.bytes().filter(|b| (b & 0xC0) != 0x80).count()
}

/// Joins non-empty parts with single spaces.
pub(crate) fn join_words(parts: &[String]) -> String {
    let mut out = String::new();
    for p in parts.iter().filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

/// `"v"`, cut after 80 characters with `…` (a value the agent gave or the page holds).
pub(crate) fn quote(v: &str) -> String {
    let mut out = String::from("\"");
    for (i, c) in v.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_number("0"), Some(0));
        assert_eq!(parse_number("42"), Some(42));
        assert_eq!(parse_number(" 4"), None);
        assert_eq!(parse_number("1234567890"), None);
        let mut s = String::from("e");
        push_number(&mut s, 0);
        push_number(&mut s, 4_294_967_295);
        assert_eq!(s, "e04294967295");
        assert_eq!(num(2.5), "3");
        assert_eq!(num(-12.2), "-12");
        assert_eq!(num(0.0), "0");
        assert_eq!(parse_decimal("80"), Some(80.0));
        assert_eq!(parse_decimal(" -2.5 "), Some(-2.5));
        assert_eq!(parse_decimal(".5"), Some(0.5));
        assert_eq!(parse_decimal("+7"), Some(7.0));
        for bad in ["", "-", ".", "8o", "1e3", "1.2.3"] {
            assert_eq!(parse_decimal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn search() {
        assert_eq!(find_sub("a [ref=e1]", " [ref="), Some(1));
        assert_eq!(find_sub("abc", "x"), None);
        assert!(has_sub("abc", ""));
        assert!(ci_contains("Save Changes", "save c"));
        assert!(ci_contains("anything", ""));
        assert!(!ci_contains("Save", "saved"));
    }

    #[test]
    fn counting_and_cutting() {
        assert_eq!(char_count("héllo…"), 6);
        assert_eq!(cat(&["a", "", "bc"]), "abc");
        assert_eq!(join_words(&["a".into(), String::new(), "b".into()]), "a b");
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("Ada"), "\"Ada\"");
        let long = "x".repeat(100);
        let q = quote(&long);
        assert_eq!(char_count(&q), 83);
        assert!(q.ends_with("…\""));
    }
}
