//! Redaction of secrets in log entries before they are stored or written to the NDJSON file (on
//! by default; `BrowserAgent::builder().redact(false)` turns it off, `.redact_names([…])` adds
//! names). What is replaced with `[redacted]`:
//! - the value of a query or form parameter whose name looks secret (`?token=…`, `password=…`);
//! - the value of a JSON key whose name looks secret, in a structured field (`{"api_key": …}`) or
//!   inside a string (a failure body, a console argument serialized as JSON);
//! - the credentials after `Bearer ` or `Basic ` (when they look random, not a word);
//! - JWT-shaped strings (`eyJ….….…`).
//!
//! Names are compared without case and without `_`, `-` and `.` (`access_token`, `accessToken`
//! and `Access-Token` are one name). `key` and `code` count only as query or form parameters
//! (`?key=AIza…`, an OAuth callback's `?code=…`): as JSON keys they are a key press or an error
//! code. Every scan starts only when a cheap test finds its marker, so entries without secrets
//! are not copied.

use std::borrow::Cow;

use serde_json::Value;

use super::LogEntry;

/// What replaces a secret.
pub(crate) const REDACTED: &str = "[redacted]";

/// Secret names (normalized: lower case, no `_ - .`), in parameters and JSON keys alike.
const NAMES: &[&str] = &[
    "token",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "authtoken",
    "apikey",
    "secret",
    "clientsecret",
    "password",
    "passwd",
    "pwd",
    "auth",
    "authorization",
    "session",
    "sessionid",
    "sid",
    "sig",
    "signature",
    "csrf",
    "xsrf",
    "cookie",
    "privatekey",
    "credentials",
];
/// Names that are secret only as query or form parameters.
const PARAM_ONLY: &[&str] = &["key", "code"];
/// Endings that make a name secret (`githubToken`, `db_password`, `x-api-key`).
const SUFFIXES: &[&str] = &["token", "secret", "password", "passwd", "apikey", "signature"];

/// The redaction settings of a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redaction {
    /// Whether entries are redacted at all.
    pub(crate) on: bool,
    /// Names added by the host (normalized).
    pub(crate) extra: Vec<String>,
}

impl Default for Redaction {
    fn default() -> Self {
        Redaction {
            on: true,
            extra: Vec::new(),
        }
    }
}

/// `Access-Token` → `accesstoken`.
pub(crate) fn normalize(name: &str) -> String {
    name.bytes()
        .filter(|b| !matches!(b, b'_' | b'-' | b'.'))
        .map(|b| b.to_ascii_lowercase() as char)
        .collect()
}

impl Redaction {
    /// Whether `name` (as sent) names a secret; `param` for query and form parameters.
    fn is_secret(&self, name: &str, param: bool) -> bool {
        if name.len() < 3 || name.len() > 64 {
            return false;
        }
        // The fields our client and the dsh client send: never secret, and most keys are these.
        if !param
            && self.extra.is_empty()
            && matches!(
                name,
                "method"
                    | "url"
                    | "status"
                    | "statusText"
                    | "duration"
                    | "ok"
                    | "body"
                    | "message"
                    | "stack"
                    | "source"
                    | "line"
                    | "column"
                    | "args"
                    | "via"
                    | "level"
                    | "type"
                    | "text"
                    | "page"
                    | "from"
                    | "to"
                    | "target"
                    | "label"
                    | "selector"
                    | "elementText"
                    | "clientText"
                    | "count"
            )
        {
            return false;
        }
        let mut buf = [0u8; 64];
        let mut n = 0;
        for b in name.bytes() {
            if !matches!(b, b'_' | b'-' | b'.') {
                buf[n] = b.to_ascii_lowercase();
                n += 1;
            }
        }
        let Ok(norm) = std::str::from_utf8(&buf[..n]) else {
            return false;
        };
        // A parameter of a form array (`user[password]`) is named by its last part.
        let norm = norm.rsplit('[').next().unwrap_or(norm).trim_end_matches(']');
        NAMES.contains(&norm)
            || (param && PARAM_ONLY.contains(&norm))
            || SUFFIXES.iter().any(|s| norm.ends_with(s))
            || self.extra.iter().any(|e| e == norm)
    }

    /// Redacts an entry in place: its text, page and every field.
    pub(crate) fn entry(&self, e: &mut LogEntry) {
        if !self.on {
            return;
        }
        let before = e.text.len() + e.page.len();
        if let Cow::Owned(s) = self.text(&e.text) {
            e.text = s;
        }
        if let Cow::Owned(s) = self.text(&e.page) {
            e.page = s;
        }
        for (k, v) in e.fields.iter_mut() {
            if self.is_secret(k, false) && !v.is_null() {
                *v = Value::String(REDACTED.to_owned());
            } else {
                self.value(v);
            }
        }
        let after = e.text.len() + e.page.len();
        e.approx_bytes = (e.approx_bytes + after).saturating_sub(before);
    }

    /// Redacts a JSON value in place (strings, and fields with a secret name), as an entry's fields.
    pub(crate) fn json(&self, v: &mut Value) {
        if self.on {
            self.value(v);
        }
    }

    fn value(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                if let Cow::Owned(r) = self.text(s) {
                    *s = r;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.value(i)),
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if self.is_secret(k, false) && !v.is_null() {
                        *v = Value::String(REDACTED.to_owned());
                    } else {
                        self.value(v);
                    }
                }
            }
            _ => {}
        }
    }

    /// A string with its secrets replaced (borrowed when it has none).
    pub(crate) fn text<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if !self.on || s.len() < 8 {
            return Cow::Borrowed(s);
        }
        let found = markers(s.as_bytes());
        if found == 0 {
            return Cow::Borrowed(s);
        }
        let mut out = Cow::Borrowed(s);
        if found & EQ != 0 {
            if let Some(r) = self.params(&out) {
                out = Cow::Owned(r);
            }
        }
        if found & JSON != 0 {
            if let Some(r) = self.json_keys(&out) {
                out = Cow::Owned(r);
            }
        }
        if found & SCHEME != 0 {
            if let Some(r) = schemes(&out) {
                out = Cow::Owned(r);
            }
        }
        if found & JWT != 0 {
            if let Some(r) = jwts(&out) {
                out = Cow::Owned(r);
            }
        }
        out
    }

    /// `name=value` pairs (a query, a form body, `key=value` in a message) with a secret name.
    fn params(&self, s: &str) -> Option<String> {
        let b = s.as_bytes();
        let mut out = Spans::new(s);
        let mut i = 0;
        while let Some(off) = memchr(b'=', &b[i..]) {
            let eq = i + off;
            i = eq + 1;
            let mut start = eq;
            while start > 0 && is_name_byte(b[start - 1]) {
                start -= 1;
            }
            if start == eq || (start > 0 && !is_param_boundary(b[start - 1])) {
                continue;
            }
            let mut end = eq + 1;
            while end < b.len() && !is_value_end(b[end]) {
                end += 1;
            }
            if end == eq + 1 || s[eq + 1..].starts_with(REDACTED) || !self.is_secret(&s[start..eq], true) {
                continue;
            }
            out.redact(eq + 1, end);
            i = end;
        }
        out.finish()
    }

    /// `"name": value` in JSON text with a secret name: a string, number or literal value.
    fn json_keys(&self, s: &str) -> Option<String> {
        let b = s.as_bytes();
        let mut out = Spans::new(s);
        let mut i = 0;
        while let Some(off) = memchr(b'"', &b[i..]) {
            let open = i + off;
            // The key: up to the next quote (names with escapes are not secret names).
            let Some(len) = memchr(b'"', &b[open + 1..]) else { break };
            let close = open + 1 + len;
            let name = &s[open + 1..close];
            let mut j = close + 1;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if j >= b.len() || b[j] != b':' {
                i = close;
                continue;
            }
            i = close + 1;
            j += 1;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if j >= b.len() || !self.is_secret(name, false) {
                continue;
            }
            let (vstart, vend) = if b[j] == b'"' {
                let mut k = j + 1;
                while k < b.len() && b[k] != b'"' {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
                (j + 1, k.min(b.len()))
            } else if b[j].is_ascii_alphanumeric() || b[j] == b'-' {
                let mut k = j;
                while k < b.len() && (b[k].is_ascii_alphanumeric() || matches!(b[k], b'-' | b'.' | b'+')) {
                    k += 1;
                }
                (j, k)
            } else {
                continue;
            };
            if vstart == vend || &s[vstart..vend] == REDACTED || &s[vstart..vend] == "null" {
                continue;
            }
            out.redact(vstart, vend);
            i = vend;
        }
        out.finish()
    }
}

const EQ: u8 = 1;
const JSON: u8 = 2;
const SCHEME: u8 = 4;
const JWT: u8 = 8;

/// `s` with some byte ranges replaced by [`REDACTED`], copied only once the first range is found
/// (most strings hold no secret and are returned as they are).
struct Spans<'a> {
    s: &'a str,
    out: Option<String>,
    copied: usize,
}

impl<'a> Spans<'a> {
    fn new(s: &'a str) -> Self {
        Spans {
            s,
            out: None,
            copied: 0,
        }
    }

    /// Replaces `s[start..end]` (after everything replaced so far).
    fn redact(&mut self, start: usize, end: usize) {
        let o = self.out.get_or_insert_with(|| String::with_capacity(self.s.len()));
        o.push_str(&self.s[self.copied..start]);
        o.push_str(REDACTED);
        self.copied = end;
    }

    /// The rewritten string, or `None` when nothing was replaced.
    fn finish(self) -> Option<String> {
        self.out.map(|mut o| {
            o.push_str(&self.s[self.copied..]);
            o
        })
    }
}

/// Which scans a string needs, in one pass: `=` (parameters), `":` (JSON keys), `bearer ` or
/// `basic ` (credentials), `eyJ` (a JWT).
fn markers(b: &[u8]) -> u8 {
    let mut found = 0;
    for i in 1..b.len() {
        match b[i] {
            b'=' => found |= EQ,
            b':' if b[i - 1] == b'"' || (b[i - 1] == b' ' && i > 1 && b[i - 2] == b'"') => found |= JSON,
            b'J' if i > 1 && b[i - 1] == b'y' && b[i - 2] == b'e' => found |= JWT,
            b' ' if i > 4
                && matches!(b[i - 1] | 0x20, b'r' | b'c')
                && ((i > 5 && b[i - 6..i].eq_ignore_ascii_case(b"bearer"))
                    || b[i - 5..i].eq_ignore_ascii_case(b"basic")) =>
            {
                found |= SCHEME
            }
            _ => {}
        }
    }
    found
}

/// `Bearer <credentials>` and `Basic <credentials>` (any case), when the credentials look random.
fn schemes(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Spans::new(s);
    let mut i = 0;
    while i + 6 < b.len() {
        let (c, rest) = (b[i] | 0x20, &b[i..]);
        let word = if c == b'b' && rest.len() > 7 && rest[..6].eq_ignore_ascii_case(b"bearer") {
            6
        } else if c == b'b' && rest[..5].eq_ignore_ascii_case(b"basic") {
            5
        } else {
            i += 1;
            continue;
        };
        if i > 0 && b[i - 1].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let mut start = i + word;
        if start >= b.len() || b[start] != b' ' {
            i += 1;
            continue;
        }
        while start < b.len() && b[start] == b' ' {
            start += 1;
        }
        let mut end = start;
        while end < b.len()
            && (b[end].is_ascii_alphanumeric() || matches!(b[end], b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-'))
        {
            end += 1;
        }
        if !looks_random(&b[start..end]) {
            i += word;
            continue;
        }
        out.redact(start, end);
        i = end;
    }
    out.finish()
}

/// Credentials, not a word: at least 8 chars with a digit, a symbol or an inner capital.
fn looks_random(t: &[u8]) -> bool {
    t.len() >= 8
        && t.iter().enumerate().any(|(i, b)| {
            b.is_ascii_digit()
                || matches!(b, b'+' | b'/' | b'=' | b'.' | b'_' | b'-')
                || (i > 0 && b.is_ascii_uppercase())
        })
}

/// `eyJ<header>.<payload>.<signature>`: base64url segments, the header and payload at least 2 chars.
fn jwts(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Spans::new(s);
    let mut i = 0;
    while let Some(off) = s[i..].find("eyJ") {
        let start = i + off;
        i = start + 3;
        if start > 0 && is_b64url(b[start - 1]) {
            continue;
        }
        let seg = |from: usize| {
            let mut k = from;
            while k < b.len() && is_b64url(b[k]) {
                k += 1;
            }
            k
        };
        let h = seg(start);
        if h - start < 10 || h >= b.len() || b[h] != b'.' {
            continue;
        }
        let p = seg(h + 1);
        if p - (h + 1) < 2 || p >= b.len() || b[p] != b'.' {
            continue;
        }
        let end = seg(p + 1);
        out.redact(start, end);
        i = end;
    }
    out.finish()
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|b| *b == needle)
}

fn is_b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'[' | b']')
}

fn is_param_boundary(b: u8) -> bool {
    matches!(b, b'?' | b'&' | b';' | b'"' | b'\'' | b'(' | b',' | b'{' | b'[' | b'#') || b.is_ascii_whitespace()
}

fn is_value_end(b: u8) -> bool {
    matches!(
        b,
        b'&' | b'"' | b'\'' | b'#' | b'<' | b'>' | b',' | b';' | b')' | b'}' | b']'
    ) || b.is_ascii_whitespace()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn on() -> Redaction {
        Redaction::default()
    }

    const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

    #[test]
    fn query_and_form_parameters() {
        let r = on();
        for (input, want) in [
            (
                "GET http://127.0.0.1:3000/api/me?token=s3cr3tV4lue&page=2 → 500",
                "GET http://127.0.0.1:3000/api/me?token=[redacted]&page=2 → 500",
            ),
            (
                "http://localhost/cb?code=4/0AY0e-g7xYz&state=abc&scope=email",
                "http://localhost/cb?code=[redacted]&state=abc&scope=email",
            ),
            (
                "https://maps.googleapis.com/maps/api/js?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
                "https://maps.googleapis.com/maps/api/js?key=[redacted]",
            ),
            (
                "username=ada&password=hunter2&remember=1",
                "username=ada&password=[redacted]&remember=1",
            ),
            (
                "/s3?X-Amz-Signature=a1b2c3d4e5&X-Amz-Date=20240101",
                "/s3?X-Amz-Signature=[redacted]&X-Amz-Date=20240101",
            ),
            (
                "?access_token=ya29.a0AfH6SM&refresh_token=1//0gx&api_key=k_live_9",
                "?access_token=[redacted]&refresh_token=[redacted]&api_key=[redacted]",
            ),
            (
                "user[password]=pw1234&user[name]=ada",
                "user[password]=[redacted]&user[name]=ada",
            ),
            ("/x?sig=abc123#frag", "/x?sig=[redacted]#frag"),
        ] {
            assert_eq!(r.text(input), want, "{input}");
        }
        for keep in [
            "GET /api/items?page=2&sort=asc → 404",
            "a == b and x=1",
            "monkey=1&donkey=2",
            "?keyboard=us&codec=h264",
        ] {
            assert!(matches!(r.text(keep), Cow::Borrowed(_)), "{keep}: {}", r.text(keep));
        }
    }

    #[test]
    fn json_keys_in_strings_and_fields() {
        let r = on();
        assert_eq!(
            r.text(r#"{"error":"bad","apiKey":"sk-live-51Hxyz","user":{"password": "hunter2","name":"ada"}}"#),
            r#"{"error":"bad","apiKey":"[redacted]","user":{"password": "[redacted]","name":"ada"}}"#
        );
        assert_eq!(
            r.text(r#"{"session":12345678,"ok":true}"#),
            r#"{"session":[redacted],"ok":true}"#
        );
        // As JSON keys, `key` and `code` are a key press and an error code.
        let keep = r#"{"key":"Enter","code":"ERR_NETWORK","status":500}"#;
        assert!(matches!(r.text(keep), Cow::Borrowed(_)));
        let mut e = LogEntry::new("network", crate::protocol::Level::Error, "POST /login → 401", 1);
        e.fields
            .insert("body".into(), json!("{\"refresh_token\":\"1//0gxyz\"}"));
        e.fields.insert(
            "args".into(),
            json!(["login with", {"password": "hunter2", "nested": [{"client_secret": 5}]}]),
        );
        e.fields.insert("authorization".into(), json!("Bearer abc"));
        e.fields.insert("key".into(), json!("Escape"));
        r.entry(&mut e);
        assert_eq!(e.fields["body"], "{\"refresh_token\":\"[redacted]\"}");
        assert_eq!(
            e.fields["args"],
            json!(["login with", {"password": "[redacted]", "nested": [{"client_secret": "[redacted]"}]}])
        );
        assert_eq!(e.fields["authorization"], REDACTED);
        assert_eq!(e.fields["key"], "Escape");
    }

    #[test]
    fn bearer_basic_and_jwts() {
        let r = on();
        assert_eq!(
            r.text("fetch failed: Authorization: Bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
            "fetch failed: Authorization: Bearer [redacted]"
        );
        assert_eq!(
            r.text("authorization: basic dXNlcjpwYXNzd29yZA=="),
            "authorization: basic [redacted]"
        );
        assert_eq!(
            r.text(&format!("token is {JWT}, expired")),
            "token is [redacted], expired"
        );
        assert_eq!(r.text(&format!("Bearer {JWT}")), "Bearer [redacted]");
        for keep in [
            "Basic authentication is not configured",
            "the Bearer scheme",
            "eyJustSomething here",
            "needs the header Authorization: Bearer <token>",
        ] {
            assert!(matches!(r.text(keep), Cow::Borrowed(_)), "{keep}: {}", r.text(keep));
        }
    }

    #[test]
    fn off_and_extra_names() {
        let off = Redaction {
            on: false,
            extra: Vec::new(),
        };
        assert_eq!(off.text("?token=abcdefgh"), "?token=abcdefgh");
        let mut e = LogEntry::new("console", crate::protocol::Level::Log, "?token=abcdefgh", 1);
        off.entry(&mut e);
        assert_eq!(e.text, "?token=abcdefgh");
        let extra = Redaction {
            on: true,
            extra: vec![normalize("Tenant-Id")],
        };
        assert_eq!(extra.text("/x?tenant_id=acme-corp&y=1"), "/x?tenant_id=[redacted]&y=1");
        assert_eq!(extra.text(r#"{"tenantId":"acme"}"#), r#"{"tenantId":"[redacted]"}"#);
    }

    #[test]
    fn idempotent_and_utf8_safe() {
        let r = on();
        let once = r
            .text("é?token=ñandú-42&x=“quoted” Bearer 日本語日本語日本語")
            .into_owned();
        assert_eq!(r.text(&once), once);
        assert!(once.contains("token=[redacted]"), "{once}");
        for s in [
            "=",
            "==",
            "\"\":",
            "eyJ",
            "Bearer",
            "basic ",
            "a=\"",
            "\"k\":",
            "x=é&token=é",
        ] {
            let _ = r.text(&format!("padding-{s}"));
        }
    }
}
