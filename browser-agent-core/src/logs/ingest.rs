//! Turning what the page clients send into [`LogEntry`]s: MindStudio's typed entries and dsh's
//! `{t, level, text}` items. Pure functions: no clock, no I/O (the caller passes `now`).

use serde_json::{Map, Value};

use super::LogEntry;
use crate::error::EntryError;
use crate::protocol::{entry_type, field, Level, MAX_ID_LEN};
use crate::snapshot::push_decimal as push_u64;
use crate::util::{truncate_chars, truncate_marked};
use std::borrow::Cow;

/// The fields the host owns, as sent: taken from the entry into the stored entry's own slots.
/// [`Slots::get_mut`] is the one place that maps their names.
#[derive(Debug, Default)]
pub(crate) struct Slots {
    kind: Option<Value>,
    level: Option<Value>,
    t: Option<Value>,
    client_id: Option<Value>,
    seq: Option<Value>,
    text: Option<Value>,
    page: Option<Value>,
}

impl Slots {
    /// The slot of a host-owned field, `None` for any other name.
    fn get_mut(&mut self, name: &str) -> Option<&mut Option<Value>> {
        Some(match name {
            field::TYPE => &mut self.kind,
            field::LEVEL => &mut self.level,
            field::T => &mut self.t,
            field::CLIENT_ID => &mut self.client_id,
            field::SEQ => &mut self.seq,
            field::TEXT => &mut self.text,
            field::PAGE => &mut self.page,
            _ => return None,
        })
    }
}
const MAX_DEPTH: usize = 6;
const MAX_ITEMS: usize = 100;

/// The cuts applied at ingestion.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) max_text: usize,
    pub(crate) max_field: usize,
    pub(crate) max_page: usize,
}

/// A typed entry, normalized, with its `(clientId, seq)` when the client sent both.
pub(crate) struct Normalized {
    pub(crate) entry: LogEntry,
    pub(crate) origin: Option<(String, u64)>,
}

/// One element of a `POST {prefix}/logs` array as parsed: the keys the host owns go straight into
/// [`Slots`] and everything else into `fields`, so normalizing moves values
/// instead of removing them from a map.
#[derive(Debug)]
// Boxing the large variant would add the allocation per entry this type exists to avoid.
#[allow(clippy::large_enum_variant)]
pub(crate) enum RawEntry {
    NotObject,
    Object { slots: Slots, fields: Map<String, Value> },
}

impl<'de> serde::Deserialize<'de> for RawEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RawEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a log entry")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RawEntry, A::Error> {
                let mut slots = Slots::default();
                let mut fields = Map::new();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match slots.get_mut(&key) {
                        Some(slot) => *slot = Some(map.next_value()?),
                        None => {
                            fields.insert(key.into_owned(), map.next_value()?);
                        }
                    }
                }
                Ok(RawEntry::Object { slots, fields })
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawEntry, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(RawEntry::NotObject)
            }
            fn visit_bool<E>(self, _: bool) -> Result<RawEntry, E> {
                Ok(RawEntry::NotObject)
            }
            fn visit_i64<E>(self, _: i64) -> Result<RawEntry, E> {
                Ok(RawEntry::NotObject)
            }
            fn visit_u64<E>(self, _: u64) -> Result<RawEntry, E> {
                Ok(RawEntry::NotObject)
            }
            fn visit_f64<E>(self, _: f64) -> Result<RawEntry, E> {
                Ok(RawEntry::NotObject)
            }
            fn visit_str<E>(self, _: &str) -> Result<RawEntry, E> {
                Ok(RawEntry::NotObject)
            }
            fn visit_unit<E>(self) -> Result<RawEntry, E> {
                Ok(RawEntry::NotObject)
            }
        }
        d.deserialize_any(V)
    }
}

impl RawEntry {
    /// Takes a JSON value apart (the `logs` of a `POST {prefix}/results`, and tests).
    pub(crate) fn from_value(v: Value) -> RawEntry {
        let Value::Object(obj) = v else {
            return RawEntry::NotObject;
        };
        let mut slots = Slots::default();
        let mut fields = Map::new();
        for (k, v) in obj {
            match slots.get_mut(&k) {
                Some(slot) => *slot = Some(v),
                None => {
                    fields.insert(k, v);
                }
            }
        }
        RawEntry::Object { slots, fields }
    }

    /// Gives an entry that names no `clientId` this one (the page a batch ran in).
    pub(crate) fn default_client(&mut self, client: &str) {
        if let RawEntry::Object { slots, .. } = self {
            let slot = &mut slots.client_id;
            if matches!(slot, None | Some(Value::Null)) {
                *slot = Some(Value::String(client.to_owned()));
            }
        }
    }
}

/// Normalizes one element of a `POST {prefix}/logs` array. `Err` names what is wrong with it;
/// `Ok(None)` means it is valid but carries no text (dropped, as the dsh host does).
pub(crate) fn normalize_typed(
    raw: RawEntry,
    limits: Limits,
    page_of_client: impl Fn(&str) -> Option<String>,
    now: u64,
) -> Result<Option<Normalized>, EntryError> {
    let RawEntry::Object { slots, mut fields } = raw else {
        return Err(EntryError::NotObject);
    };
    let Slots {
        kind,
        level,
        t,
        client_id,
        seq,
        text: own_text,
        page: page_field,
    } = slots;
    let kind = match kind {
        None | Some(Value::Null) => entry_type::CONSOLE.to_owned(),
        Some(Value::String(s)) if !s.is_empty() && s.len() <= 40 => s,
        Some(_) => return Err(EntryError::Type),
    };
    let client_id = match client_id {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) if s.len() <= MAX_ID_LEN => s,
        Some(_) => return Err(EntryError::ClientId),
    };
    let seq = match seq {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or(EntryError::Seq)?),
    };
    let own_level = level.as_ref().and_then(Value::as_str).and_then(Level::parse);
    let own_text = own_text.and_then(|v| match v {
        Value::String(s) => Some(s),
        Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
        _ => None,
    });
    let (level, mut text) = describe(&kind, &fields, own_text.as_deref(), own_level);
    // Each piece that may be a stack was cut to its first line in `describe`; what is left of
    // line breaks (a url, a status text, …) becomes spaces.
    if has_breaks(&text) {
        let mut flat = String::with_capacity(text.len());
        push_collapsed(&mut flat, &text);
        text = flat;
    }
    truncate_marked(&mut text, limits.max_text);
    if text.is_empty() {
        return Ok(None);
    }
    let t = time_of(t.as_ref(), now);

    // The entry's own fields: bounded in place.
    if fields.len() > MAX_ITEMS {
        let extra: Vec<String> = fields.keys().skip(MAX_ITEMS).cloned().collect();
        for k in extra {
            fields.remove(&k);
        }
    }
    let mut field_bytes: usize = fields
        .iter_mut()
        .map(|(k, v)| k.len() + bound(v, 0, limits.max_field))
        .sum();
    // The host owns `text` and `seq`; keep what the client meant by them under other names
    // (a click's `text` is the element's own text; `seq` is the page's counter).
    if let Some(mut own) = own_text {
        if own != text {
            let name = if kind == entry_type::INTERACTION {
                "elementText"
            } else {
                "clientText"
            };
            truncate_marked(&mut own, limits.max_field);
            field_bytes += name.len() + own.len() + 2;
            fields.insert(name.into(), Value::String(own));
        }
    }

    let mut page = match page_field {
        Some(Value::String(p)) => p,
        // A network entry's `url` is the request's, not the page's.
        _ if kind != entry_type::NETWORK => fields
            .get(field::URL)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_default(),
        _ => String::new(),
    };
    if page.is_empty() && !client_id.is_empty() {
        page = page_of_client(&client_id).unwrap_or_default();
    }
    truncate_chars(&mut page, limits.max_page);

    let origin = match (client_id.is_empty(), seq) {
        (false, Some(seq)) => Some((client_id.clone(), seq)),
        _ => None,
    };
    let approx_bytes = LogEntry::size(&text, &page, &client_id, &kind, field_bytes);
    let entry = LogEntry {
        seq: 0,
        t,
        client_id,
        client_seq: seq,
        kind,
        level,
        text,
        page,
        fields,
        approx_bytes,
    };
    Ok(Some(Normalized { entry, origin }))
}

/// Normalizes one dsh `{t?, level?, text?}` item (`POST /browser/probe`), with dsh's rules:
/// a non-string text is stringified, an empty text drops the item, a non-string level is `info`,
/// a missing or non-finite `t` is now, `page` is the host's current page.
pub(crate) fn normalize_plain(raw: &Value, limits: Limits, page: &str, now: u64) -> Option<LogEntry> {
    let empty = Map::new();
    let obj = raw.as_object().unwrap_or(&empty);
    let mut text = match obj.get("text") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    };
    if let Cow::Owned(flat) = one_line(&text) {
        text = flat;
    }
    truncate_marked(&mut text, limits.max_text);
    if text.is_empty() {
        return None;
    }
    let level = obj
        .get("level")
        .and_then(Value::as_str)
        .and_then(Level::parse)
        .unwrap_or_default();
    let mut page = page.to_owned();
    truncate_chars(&mut page, limits.max_page);
    Some(finish(LogEntry {
        seq: 0,
        t: time_of(obj.get("t"), now),
        client_id: String::new(),
        client_seq: None,
        kind: entry_type::CONSOLE.to_owned(),
        level,
        text,
        page,
        fields: Map::new(),
        approx_bytes: 0,
    }))
}

fn finish(mut entry: LogEntry) -> LogEntry {
    let field_bytes = entry.fields.iter().map(|(k, v)| k.len() + value_bytes(v)).sum();
    entry.approx_bytes = LogEntry::size(&entry.text, &entry.page, &entry.client_id, &entry.kind, field_bytes);
    entry
}

fn time_of(t: Option<&Value>, now: u64) -> u64 {
    match t.and_then(Value::as_f64) {
        Some(t) if (0.0..1e16).contains(&t) => t as u64,
        _ => now,
    }
}

/// Joins `parts` into one string of the right capacity.
fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum::<usize>() + 24);
    parts.iter().for_each(|p| out.push_str(p));
    out
}

/// Level and one-line text of a typed entry.
fn describe(kind: &str, obj: &Map<String, Value>, own_text: Option<&str>, own: Option<Level>) -> (Level, String) {
    let s = |name: &str| obj.get(name).and_then(Value::as_str).unwrap_or("");
    match kind {
        entry_type::CONSOLE => {
            let text = match obj.get("args") {
                Some(Value::Array(args)) => args_text(args),
                _ => first_text(obj, own_text),
            };
            (own.unwrap_or(Level::Log), text)
        }
        entry_type::ERROR => {
            let message = one_line(if s("message").is_empty() {
                s("stack")
            } else {
                s("message")
            });
            let prefix = if s("kind") == "unhandledrejection" {
                "Unhandled rejection: "
            } else {
                ""
            };
            let mut text = concat(&[prefix, &message]);
            if !s("source").is_empty() {
                text.push_str(" (");
                text.push_str(s("source"));
                for name in ["line", "column"] {
                    if let Some(n) = obj.get(name).and_then(Value::as_u64) {
                        text.push(':');
                        push_u64(&mut text, n);
                    }
                }
                text.push(')');
            }
            (Level::Error, text)
        }
        entry_type::NETWORK => network_line(obj, own),
        entry_type::INTERACTION => {
            let event = if s(field::EVENT).is_empty() {
                "click"
            } else {
                s(field::EVENT)
            };
            let target = if s(field::TARGET).is_empty() {
                s(field::TEXT)
            } else {
                s(field::TARGET)
            };
            let mut text = concat(&[event, " ", target]).trim_end().to_owned();
            // What a `fill`, `select` or `upload` left in the field, quoted as the steps write
            // it (`fill textbox "Email" "ada@example.com"`): the line says what was entered, not
            // only where. (A password's value is never sent; the page says `(hidden)`.)
            if let (true, Some(Value::String(value))) =
                (matches!(event, "fill" | "select" | "upload"), obj.get(field::VALUE))
            {
                text.push(' ');
                text.push_str(&Value::from(value.as_str()).to_string());
            }
            (own.unwrap_or(Level::Info), text)
        }
        entry_type::NAVIGATION => {
            let mut text = concat(&["navigated to ", s(field::URL)]);
            if !s("via").is_empty() {
                text.push_str(" (");
                text.push_str(s("via"));
                text.push(')');
            }
            (own.unwrap_or(Level::Info), text)
        }
        // One the page opened on its own while no batch ran is a warning: nobody asked for it.
        entry_type::DIALOG => {
            let outside = obj.contains_key(crate::protocol::dialogs::OUTSIDE);
            let level = if outside { Level::Warn } else { Level::Info };
            (own.unwrap_or(level), crate::dialogs::entry_text(obj))
        }
        entry_type::DROPPED => {
            let mut text = String::from("the page dropped ");
            push_u64(&mut text, obj.get(field::COUNT).and_then(Value::as_u64).unwrap_or(0));
            text.push_str(" log entries (its local queue was full)");
            (Level::Warn, text)
        }
        _ => {
            let text = first_text(obj, own_text);
            let text = if text.is_empty() && !obj.is_empty() {
                Value::Object(obj.clone()).to_string()
            } else {
                text
            };
            (own.unwrap_or(Level::Info), text)
        }
    }
}

fn network_line(obj: &Map<String, Value>, own: Option<Level>) -> (Level, String) {
    let s = |name: &str| obj.get(name).and_then(Value::as_str).unwrap_or("");
    let mut text = String::with_capacity(64 + s(field::URL).len());
    match s("method") {
        "" => text.push_str("GET"),
        m => text.extend(m.chars().map(|c| c.to_ascii_uppercase())),
    }
    text.push(' ');
    text.push_str(s(field::URL));
    text.push_str(" → ");
    let status = obj.get("status").and_then(Value::as_u64);
    let level = match (status, s("error")) {
        (_, err) if !err.is_empty() => {
            text.push_str("failed: ");
            text.push_str(&one_line(err));
            Level::Error
        }
        (Some(0) | None, _) => {
            text.push_str("failed (no response)");
            Level::Error
        }
        (Some(code), _) => {
            push_u64(&mut text, code);
            if !s("statusText").is_empty() {
                text.push(' ');
                text.push_str(s("statusText"));
            }
            match code {
                500.. => Level::Error,
                400..=499 => Level::Warn,
                _ if obj.get("ok") == Some(&Value::Bool(false)) => Level::Warn,
                _ => Level::Info,
            }
        }
    };
    if let Some(d) = obj
        .get("duration")
        .and_then(Value::as_f64)
        .filter(|d| d.is_finite() && *d >= 0.0)
    {
        text.push_str(" (");
        push_u64(&mut text, d.round() as u64);
        text.push_str(" ms)");
    }
    (own.filter(|l| *l > level).unwrap_or(level), text)
}

fn first_text(obj: &Map<String, Value>, own_text: Option<&str>) -> String {
    match own_text {
        Some(t) if !t.is_empty() => one_line(t).into_owned(),
        _ => match obj.get("message") {
            Some(Value::String(s)) => one_line(s).into_owned(),
            Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
            _ => String::new(),
        },
    }
}

/// Whether `s` holds a newline, carriage return or tab (what keeps a text from being one line).
fn has_breaks(s: &str) -> bool {
    // Runs over every console argument and text on the POST /logs path: memchr's search is
    // several times cheaper than a byte loop.
    memchr::memchr3(b'\n', b'\r', b'\t', s.as_bytes()).is_some()
}

/// Pushes `s` with each run of newlines, carriage returns and tabs as one space (none at the ends).
fn push_collapsed(out: &mut String, s: &str) {
    let mut parts = s.split(['\n', '\r', '\t']).filter(|p| !p.is_empty());
    if let Some(first) = parts.next() {
        out.push_str(first);
        for part in parts {
            out.push(' ');
            out.push_str(part);
        }
    }
}

/// Whether `s` is a JS stack: a later line is a frame, V8's `    at f (url:1:2)` or Firefox's
/// `f@url:1:2`.
fn is_stack(s: &str) -> bool {
    s.lines().skip(1).any(|line| {
        let rest = line.trim_start();
        (rest.len() < line.len() && rest.starts_with("at ")) || is_gecko_frame(line)
    })
}

/// `name@url:line:column`, as Firefox and Safari write a stack frame.
fn is_gecko_frame(line: &str) -> bool {
    let Some((_, location)) = line.trim_end().split_once('@') else {
        return false;
    };
    let mut from_end = location.rsplitn(3, ':');
    let digits = |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    digits(from_end.next()) && digits(from_end.next()) && from_end.next().is_some_and(|url| !url.is_empty())
}

/// `s` as one line: a stack's first line (`Error: outer`), else `s` with its line breaks and tabs
/// as spaces. Borrows when `s` already is one line.
pub(crate) fn one_line(s: &str) -> Cow<'_, str> {
    if !has_breaks(s) {
        return Cow::Borrowed(s);
    }
    let s = if is_stack(s) {
        let first = s.lines().next().unwrap_or("").trim_end();
        if !has_breaks(first) {
            return Cow::Borrowed(first);
        }
        first
    } else {
        s
    };
    let mut out = String::with_capacity(s.len());
    push_collapsed(&mut out, s);
    Cow::Owned(out)
}

/// Console args joined with spaces, into one buffer (strings as they are, other values as JSON).
fn args_text(args: &[Value]) -> String {
    let mut out = String::with_capacity(args.iter().map(|a| a.as_str().map_or(16, str::len) + 1).sum());
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match arg {
            Value::String(s) => out.push_str(&one_line(s)),
            other => out.push_str(&other.to_string()),
        }
    }
    out
}

/// Bounds `v` in place: strings cut (marked `…`), arrays and objects to [`MAX_ITEMS`], nesting to
/// [`MAX_DEPTH`]. Nothing is copied unless it is cut.
/// Returns the approximate bytes the bounded value holds (one walk does both).
pub(crate) fn bound(v: &mut Value, depth: usize, max_field: usize) -> usize {
    match v {
        Value::String(s) => {
            truncate_marked(s, max_field);
            s.len() + 2
        }
        Value::Array(_) | Value::Object(_) if depth >= MAX_DEPTH => {
            *v = Value::String("[…]".into());
            7
        }
        Value::Array(items) => {
            items.truncate(MAX_ITEMS);
            2 + items.iter_mut().map(|i| bound(i, depth + 1, max_field)).sum::<usize>()
        }
        Value::Object(map) => {
            if map.len() > MAX_ITEMS {
                let extra: Vec<String> = map.keys().skip(MAX_ITEMS).cloned().collect();
                for k in extra {
                    map.remove(&k);
                }
            }
            2 + map
                .iter_mut()
                .map(|(k, v)| k.len() + 4 + bound(v, depth + 1, max_field))
                .sum::<usize>()
        }
        _ => 8,
    }
}

fn value_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(value_bytes).sum::<usize>(),
        Value::Object(map) => 2 + map.iter().map(|(k, v)| k.len() + 4 + value_bytes(v)).sum::<usize>(),
        _ => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIMITS: Limits = Limits {
        max_text: 800,
        max_field: 4000,
        max_page: 300,
    };

    fn typed(v: Value) -> LogEntry {
        normalize_typed(
            RawEntry::from_value(v),
            LIMITS,
            |_| Some("http://from-registry/".into()),
            42,
        )
        .unwrap()
        .unwrap()
        .entry
    }

    #[test]
    fn mindstudio_entries_get_levels_and_one_line_text() {
        let e = typed(
            json!({"type":"network","method":"get","url":"/api/items","status":500,"statusText":"Internal Server Error","duration":12.4,"ok":false,"body":"oops"}),
        );
        assert_eq!(e.text, "GET /api/items → 500 Internal Server Error (12 ms)");
        assert_eq!(e.level, Level::Error);
        assert_eq!(e.field_str("body"), Some("oops"));
        assert_eq!(e.page, "", "a network url is not the page");
        let e = typed(
            json!({"type":"network","method":"POST","url":"/x","status":404,"statusText":"Not Found","duration":3,"ok":false}),
        );
        assert_eq!(
            (e.level, e.text.as_str()),
            (Level::Warn, "POST /x → 404 Not Found (3 ms)")
        );
        let e = typed(
            json!({"type":"network","method":"GET","url":"/y","error":"Failed to fetch","duration":1,"ok":false}),
        );
        assert_eq!(
            (e.level, e.text.as_str()),
            (Level::Error, "GET /y → failed: Failed to fetch (1 ms)")
        );
        let e = typed(
            json!({"type":"network","method":"GET","url":"/z","status":200,"statusText":"OK","duration":1,"ok":true}),
        );
        assert_eq!(e.level, Level::Info);
        let e = typed(json!({"type":"console","level":"warn","args":["a", {"b":1}, 3],"url":"http://127.0.0.1/p"}));
        assert_eq!(
            (e.level, e.text.as_str(), e.page.as_str()),
            (Level::Warn, "a {\"b\":1} 3", "http://127.0.0.1/p")
        );
        let e = typed(
            json!({"type":"error","message":"TypeError: x is undefined\nmore","stack":"s","source":"http://h/app.js","line":12,"column":5}),
        );
        assert_eq!(
            (e.level, e.text.as_str()),
            (Level::Error, "TypeError: x is undefined more (http://h/app.js:12:5)")
        );
        let e = typed(json!({"type":"error","kind":"unhandledrejection","message":"nope","stack":""}));
        assert_eq!(e.text, "Unhandled rejection: nope");
        let e = typed(
            json!({"type":"interaction","event":"click","target":"button \"Save\"","text":"Save changes","seq":4,"clientId":"c"}),
        );
        assert_eq!(e.text, "click button \"Save\"");
        assert_eq!(
            (e.field_str("elementText"), e.client_seq),
            (Some("Save changes"), Some(4))
        );
        // Issue 33: what was entered, chosen or pressed reads in the line itself.
        let e =
            typed(json!({"type":"interaction","event":"fill","target":"textbox \"Email\"","value":"ada@example.com"}));
        assert_eq!(e.text, "fill textbox \"Email\" \"ada@example.com\"");
        let e =
            typed(json!({"type":"interaction","event":"select","target":"combobox \"Size\"","value":"Large, \"XL\""}));
        assert_eq!(e.text, "select combobox \"Size\" \"Large, \\\"XL\\\"\"");
        let e = typed(json!({"type":"interaction","event":"fill","target":"textbox \"Password\"","value":"(hidden)"}));
        assert_eq!(e.text, "fill textbox \"Password\" \"(hidden)\"");
        let e =
            typed(json!({"type":"interaction","event":"press","target":"Enter in textbox \"Search\"","key":"Enter"}));
        assert_eq!(e.text, "press Enter in textbox \"Search\"");
        let e = typed(json!({"type":"interaction","event":"dblclick","target":"row \"Ada\""}));
        assert_eq!(e.text, "dblclick row \"Ada\"");
        let e = typed(json!({"type":"dropped","count":7,"clientId":"c1","seq":9}));
        assert_eq!((e.level, e.page.as_str()), (Level::Warn, "http://from-registry/"));
        let e = typed(json!({"type":"custom","message":"hi","extra":{"deep":[1,2]}}));
        assert_eq!((e.level, e.text.as_str()), (Level::Info, "hi"));
        assert_eq!(e.fields["extra"], json!({"deep":[1,2]}));
    }

    #[test]
    fn time_level_and_text_defaults() {
        let e = typed(json!({"type":"console","args":["x"],"t":"soon"}));
        assert_eq!((e.t, e.level), (42, Level::Log));
        let e = typed(json!({"type":"console","args":["x"],"t":1700000000123.7}));
        assert_eq!(e.t, 1700000000123);
        assert!(normalize_typed(
            RawEntry::from_value(json!({"type":"console","args":[]})),
            LIMITS,
            |_| None,
            1
        )
        .unwrap()
        .is_none());
        let long = "é".repeat(1000);
        let e = typed(json!({"type":"console","args":[long]}));
        assert_eq!(e.text.chars().count(), 800);
        assert!(e.text.ends_with('…'), "a cut text says so");
        let e = typed(json!({"type":"console","args":["x".repeat(4000)]}));
        assert_eq!((e.text.chars().count(), e.text.ends_with('…')), (800, true));
        assert_eq!(
            e.fields["args"][0].as_str().unwrap().len(),
            4000,
            "args keep their value"
        );
        let e = normalize_plain(&json!({"text": "y".repeat(4000)}), LIMITS, "", 7).unwrap();
        assert_eq!((e.text.chars().count(), e.text.ends_with('…')), (800, true));
        let e = typed(json!({"type":"console","args":["exactly", "x".repeat(792)]}));
        assert!(!e.text.ends_with('…'), "800 chars are not cut");
    }

    #[test]
    fn text_is_one_line_and_fields_keep_their_value() {
        let v8 = "Error: outer\n    at eval (eval at <anonymous> (http://h/app.js:1:1), <anonymous>:1:15)\n    at f (http://h/app.js:2:3)";
        let e = typed(json!({"type":"console","level":"error","args":["cause", v8]}));
        assert_eq!(e.text, "cause Error: outer");
        assert_eq!(e.fields["args"][1], v8, "the stack stays in args");
        let e = typed(json!({"type":"console","args":["multi\nline\ttext", "a\r\n\r\nb\n"]}));
        assert_eq!(e.text, "multi line text a b");
        assert_eq!(e.fields["args"][0], "multi\nline\ttext");
        let gecko = "Error: outer\nf@http://h/app.js:2:3\n@debugger eval code:1:1\n";
        let e = typed(json!({"type":"console","args":[gecko, "é\tü"]}));
        assert_eq!(e.text, "Error: outer é ü");
        let e = typed(json!({"type":"error","message":"","stack":v8}));
        assert_eq!((e.text.as_str(), e.field_str("stack")), ("Error: outer", Some(v8)));
        let e = typed(json!({"type":"error","message":"bad\n\tthing","stack":v8}));
        assert_eq!(
            (e.text.as_str(), e.field_str("message")),
            ("bad thing", Some("bad\n\tthing"))
        );
        let e = typed(
            json!({"type":"network","method":"GET","url":"/y\n/z","error":"TypeError: Failed\n    at fetch (x:1:1)","duration":1,"body":"a\nb"}),
        );
        assert_eq!(e.text, "GET /y /z → failed: TypeError: Failed (1 ms)");
        assert_eq!(e.field_str("body"), Some("a\nb"));
        let e = typed(json!({"type":"custom","message":"two\nlines"}));
        assert_eq!(e.text, "two lines");
        let e = normalize_plain(&json!({"text": "dsh\nline"}), LIMITS, "", 7).unwrap();
        assert_eq!(e.text, "dsh line");
        assert!(
            matches!(one_line("plain"), Cow::Borrowed("plain")),
            "one line is not copied"
        );
        // "at " after a break but not indented is prose, not a frame.
        assert_eq!(one_line("meet\nat noon"), "meet at noon");
    }

    #[test]
    fn wrong_shapes_are_named() {
        for (v, needle) in [
            (json!(3), "not an object"),
            (json!({"type": 5}), "\"type\""),
            (json!({"type": "console", "clientId": 5}), "\"clientId\""),
            (json!({"type": "console", "seq": -1}), "\"seq\""),
        ] {
            let err = normalize_typed(RawEntry::from_value(v), LIMITS, |_| None, 1)
                .err()
                .unwrap();
            assert!(err.to_string().contains(needle), "{err}");
        }
    }

    #[test]
    fn fields_are_bounded() {
        let e =
            typed(json!({"type":"console","args":["x"],"body":"b".repeat(10_000),"list":(0..500).collect::<Vec<_>>()}));
        assert_eq!(e.field_str("body").unwrap().chars().count(), 4000);
        assert_eq!(e.fields["list"].as_array().unwrap().len(), MAX_ITEMS);
        let mut deep = json!("leaf");
        for _ in 0..20 {
            deep = json!([deep]);
        }
        let e = typed(json!({"type":"console","args":["x"],"deep":deep}));
        assert!(e.fields["deep"].to_string().contains("[…]"));
    }

    #[test]
    fn decimal_digits() {
        for n in [0u64, 7, 10, 12345, u64::MAX] {
            let mut s = String::new();
            push_u64(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }

    #[test]
    fn dsh_rules() {
        let page = "http://127.0.0.1:3080/ | App";
        let e = normalize_plain(&json!({"text": 42}), LIMITS, page, 7).unwrap();
        assert_eq!(
            (e.text.as_str(), e.level, e.t, e.page.as_str()),
            ("42", Level::Info, 7, page)
        );
        assert!(normalize_plain(&json!({"text": ""}), LIMITS, page, 7).is_none());
        assert!(normalize_plain(&json!({"level": "error"}), LIMITS, page, 7).is_none());
        let e = normalize_plain(&json!({"text": "  ", "level": 3, "t": 5}), LIMITS, page, 7).unwrap();
        assert_eq!((e.text.as_str(), e.level, e.t), ("  ", Level::Info, 5));
        let e = normalize_plain(&json!({"text": "x", "level": "warn"}), LIMITS, &"p".repeat(500), 7).unwrap();
        assert_eq!((e.level, e.page.len()), (Level::Warn, 300));
    }
}
