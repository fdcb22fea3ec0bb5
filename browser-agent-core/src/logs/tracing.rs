//! The app's `tracing` ERROR and WARN events as `server` entries ([`TracingLayer`], the `tracing`
//! feature): message, fields, target, location, and the spans the event happened in with their
//! fields, so a 500 and the error the handler logged before it sit in the same timeline.

use std::fmt::{self, Write as _};

use serde_json::{Map, Value};
use tracing_core::field::{Field, Visit};
use tracing_core::span::{Attributes, Id, Record};
use tracing_core::{Event, Level as TracingLevel, Subscriber};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

use super::ingest::one_line;
use super::server::{source, MAX_STACK_LINES};
use crate::protocol::Level;
use crate::{util, BrowserAgent};

/// Fields kept per span, at most (more are dropped).
const MAX_SPAN_FIELDS: usize = 32;

/// A [`tracing_subscriber::Layer`] that stores the app's ERROR and WARN events as `server` entries
/// (ERROR at level `error`, WARN at `warn`), read with `GET {prefix}/console?type=server`. Make it
/// with [`BrowserAgent::tracing_layer`] and add it to the registry beside the app's own layers.
///
/// An entry's text reads like `tracing_subscriber::fmt`'s line, `request{method="GET"}:db:
/// my_app::db: query failed attempt=3`, and its fields are `target`, `message`, `fields` (the
/// event's own), `spans` (`[{name, fields}]`, outermost first) and `location` (`file:line`).
/// Strings are cut at `max_field` chars (`max_text` for the text), at most 32 fields per span.
/// Redaction applies as to every entry: a secret-looking field (`password`, `token`, …) is
/// `[redacted]` in the fields and the text, and the text, like any text, also redacts what
/// reads as a query parameter, so `code=7` shows as `code=[redacted]` there (not in `fields`).
///
/// What it costs the app: the layer asks for nothing below INFO (its level hint), so DEBUG and
/// TRACE callsites stay off unless another layer wants them; INFO events return at the level
/// check; the layer never disables a callsite, so the app's other layers see everything as before.
/// Every new span of INFO or above has its fields copied once, so that an event inside it can
/// name them (a `debug_span!` is named only when another layer enables DEBUG). A disabled
/// agent's layer asks for nothing at all.
///
/// ```
/// use browser_agent_core::{BrowserAgent, LogQuery};
/// use tracing_subscriber::layer::SubscriberExt;
///
/// let agent = BrowserAgent::builder().enabled(true).build();
/// let subscriber = tracing_subscriber::registry().with(agent.tracing_layer());
/// tracing::subscriber::with_default(subscriber, || {
///     let span = tracing::info_span!("request", method = "GET", path = "/demo/boom");
///     let _inside = span.enter();
///     tracing::info!("not recorded");
///     tracing::error!(attempt = 3, "database down");
/// });
/// let entries = agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap());
/// assert_eq!(entries.len(), 1);
/// let e = &entries[0];
/// assert_eq!(e.text, r#"request{method="GET" path="/demo/boom"}: rust_out: database down attempt=3"#);
/// assert_eq!(e.field_str("message"), Some("database down"));
/// assert_eq!(e.fields["fields"]["attempt"], 3);
/// assert_eq!(e.fields["spans"][0]["name"], "request");
/// assert_eq!(e.fields["spans"][0]["fields"]["path"], "/demo/boom");
/// ```
#[derive(Debug, Clone)]
pub struct TracingLayer {
    agent: BrowserAgent,
}

impl TracingLayer {
    /// The layer for `agent` (the same as [`BrowserAgent::tracing_layer`]).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// let _layer = browser_agent_core::TracingLayer::new(agent);
    /// ```
    pub fn new(agent: BrowserAgent) -> TracingLayer {
        TracingLayer { agent }
    }
}

impl BrowserAgent {
    /// A [`TracingLayer`] storing the app's `tracing` ERROR and WARN events, with their fields and
    /// spans, as `server` entries (feature `tracing`):
    /// `tracing_subscriber::registry().with(fmt::layer()).with(agent.tracing_layer()).init()`.
    /// A disabled agent's layer stores nothing.
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, LogQuery};
    /// use tracing_subscriber::layer::SubscriberExt;
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let subscriber = tracing_subscriber::registry().with(agent.tracing_layer());
    /// tracing::subscriber::with_default(subscriber, || tracing::warn!(target: "app::cache", "slow"));
    /// let entry = &agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap())[0];
    /// assert_eq!((entry.text.as_str(), entry.field_str("target")), ("app::cache: slow", Some("app::cache")));
    /// ```
    pub fn tracing_layer(&self) -> TracingLayer {
        TracingLayer::new(self.clone())
    }
}

/// A span's fields, kept in the registry's extensions until the span closes.
#[derive(Debug, Default)]
struct SpanFields(Map<String, Value>);

/// Copies field values into a map (`message` aside), strings cut at `max`.
struct Visitor<'a> {
    fields: &'a mut Map<String, Value>,
    message: Option<&'a mut String>,
    max: usize,
    max_fields: usize,
}

impl Visitor<'_> {
    fn put(&mut self, field: &Field, value: Value) {
        let name = field.name();
        if name == "message" {
            if let Some(message) = self.message.as_deref_mut() {
                *message = match value {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                return;
            }
        }
        // `log` records bridged by tracing-log carry these: the entry has its own location.
        if name.starts_with("log.") {
            return;
        }
        if self.fields.len() < self.max_fields || self.fields.contains_key(name) {
            self.fields.insert(name.to_owned(), value);
        }
    }

    fn string(&self, mut s: String) -> Value {
        util::truncate_marked(&mut s, self.max);
        Value::String(s)
    }
}

impl Visit for Visitor<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let s = self.string(format!("{value:?}"));
        self.put(field, s);
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        let s = self.string(value.to_owned());
        self.put(field, s);
    }
    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        let s = self.string(value.to_string());
        self.put(field, s);
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, Value::from(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, Value::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, Value::from(value));
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.put(field, Value::from(value));
    }
}

/// `k=v k2="s"`: fields as `fmt` shows them (strings quoted).
fn push_fields(out: &mut String, fields: &Map<String, Value>) {
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{k}={v}");
    }
}

/// The lines after the first of a multi-line message, then of each multi-line field (an
/// `error = ?err` whose `Debug` prints its causes and backtrace, as `anyhow`'s does), under the
/// field's name: one error is one entry, its text one line, the rest its `stack`, as the dev
/// server's errors are (at most [`MAX_STACK_LINES`] lines).
fn stack_of(message: &str, fields: &Map<String, Value>) -> String {
    let mut lines: Vec<String> = message.lines().skip(1).map(str::to_owned).collect();
    for (name, value) in fields {
        let Some(text) = value.as_str().filter(|t| t.contains('\n')) else {
            continue;
        };
        lines.push(format!("{name}:"));
        lines.extend(text.lines().map(|l| format!("  {l}")));
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if lines.len() > MAX_STACK_LINES {
        let more = lines.len() - MAX_STACK_LINES;
        lines.truncate(MAX_STACK_LINES);
        lines.push(format!("… {more} more lines"));
    }
    lines.join("\n")
}

/// The entry's text from its fields, as `fmt` writes an event:
/// `outer{k=v}:inner: target: message k=v`, on one line.
fn line_of(entry: &Map<String, Value>) -> String {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_owned();
    let mut text = String::new();
    for span in entry.get("spans").and_then(Value::as_array).into_iter().flatten() {
        text.push_str(&s(span.get("name")));
        if let Some(f) = span.get("fields").and_then(Value::as_object).filter(|f| !f.is_empty()) {
            text.push('{');
            push_fields(&mut text, f);
            text.push('}');
        }
        text.push(':');
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(&s(entry.get("target")));
    text.push_str(": ");
    let message = s(entry.get("message"));
    text.push_str(&message);
    if let Some(f) = entry.get("fields").and_then(Value::as_object).filter(|f| !f.is_empty()) {
        if !message.is_empty() {
            text.push(' ');
        }
        push_fields(&mut text, f);
    }
    one_line(&text).into_owned()
}

impl<S> Layer<S> for TracingLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn max_level_hint(&self) -> Option<LevelFilter> {
        // INFO, not WARN: the spans an error happens in are mostly `info_span!`s.
        Some(if self.agent.enabled() {
            LevelFilter::INFO
        } else {
            LevelFilter::OFF
        })
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if !self.agent.enabled() || attrs.fields().is_empty() {
            return;
        }
        let Some(span) = ctx.span(id) else { return };
        let mut fields = SpanFields::default();
        attrs.record(&mut Visitor {
            fields: &mut fields.0,
            message: None,
            max: self.agent.config().max_field,
            max_fields: MAX_SPAN_FIELDS,
        });
        span.extensions_mut().insert(fields);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if !self.agent.enabled() {
            return;
        }
        let Some(span) = ctx.span(id) else { return };
        let mut extensions = span.extensions_mut();
        let max = self.agent.config().max_field;
        match extensions.get_mut::<SpanFields>() {
            Some(fields) => values.record(&mut Visitor {
                fields: &mut fields.0,
                message: None,
                max,
                max_fields: MAX_SPAN_FIELDS,
            }),
            None => {
                let mut fields = SpanFields::default();
                values.record(&mut Visitor {
                    fields: &mut fields.0,
                    message: None,
                    max,
                    max_fields: MAX_SPAN_FIELDS,
                });
                extensions.insert(fields);
            }
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let meta = event.metadata();
        let level = match *meta.level() {
            TracingLevel::ERROR => Level::Error,
            TracingLevel::WARN => Level::Warn,
            _ => return,
        };
        if !self.agent.enabled() {
            return;
        }
        let max = self.agent.config().max_field;
        let mut message = String::new();
        let mut fields = Map::new();
        event.record(&mut Visitor {
            fields: &mut fields,
            message: Some(&mut message),
            max,
            max_fields: usize::MAX,
        });
        let mut spans = Vec::new();
        if let Some(scope) = ctx.event_scope(event) {
            for span in scope.from_root() {
                let extensions = span.extensions();
                let span_fields = extensions.get::<SpanFields>().map(|f| f.0.clone());
                let mut item = Map::new();
                item.insert("name".into(), Value::from(span.name()));
                item.insert("fields".into(), Value::Object(span_fields.unwrap_or_default()));
                spans.push(Value::Object(item));
            }
        }
        let location = match (meta.file(), meta.line()) {
            (Some(file), Some(line)) => format!("{file}:{line}"),
            (Some(file), None) => file.to_owned(),
            _ => String::new(),
        };
        let stack = stack_of(&message, &fields);
        let mut entry_fields = vec![
            ("target", Value::from(meta.target())),
            ("message", Value::from(message)),
        ];
        if !stack.is_empty() {
            entry_fields.push(("stack", Value::from(stack)));
        }
        if !fields.is_empty() {
            entry_fields.push(("fields", Value::Object(fields)));
        }
        if !spans.is_empty() {
            entry_fields.push(("spans", Value::Array(spans)));
        }
        if !location.is_empty() {
            entry_fields.push(("location", Value::from(location)));
        }
        let mut entry = self.agent.server_entry(level, source::TRACING, "", entry_fields);
        // The text is written from the redacted fields: a quoted `password="…"` in it would not be
        // found by the text's own redaction.
        let redaction = &self.agent.config().redaction;
        if redaction.on {
            redaction.entry(&mut entry);
        }
        let mut text = line_of(&entry.fields);
        util::truncate_marked(&mut text, self.agent.config().max_text);
        entry.approx_bytes += text.len();
        entry.text = text;
        self.agent.store(vec![entry]);
    }
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::layer::SubscriberExt;

    /// An error whose `Debug` prints its causes (as `anyhow`'s does) is one entry: one line of
    /// text, its causes in `stack`.
    #[test]
    fn a_multi_line_error_is_one_line_of_text_and_a_stack() {
        let agent = BrowserAgent::builder().enabled(true).build();
        let subscriber = tracing_subscriber::registry().with(agent.tracing_layer());
        struct Chain;
        impl std::fmt::Debug for Chain {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("loading the cart\n\nCaused by:\n    0: reading row 7\n    1: connection refused")
            }
        }
        tracing::subscriber::with_default(subscriber, || {
            tracing::error!(error = ?Chain, "request failed\nsecond line of the message");
        });
        let entries = agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap());
        assert_eq!(entries.len(), 1);
        let e = &entries[0];
        assert!(!e.text.contains('\n'), "{}", e.text);
        assert!(e.text.contains("request failed"), "{}", e.text);
        assert_eq!(
            e.field_str("stack"),
            Some("second line of the message\nerror:\n  loading the cart\n  \n  Caused by:\n      0: reading row 7\n      1: connection refused")
        );
    }

    use crate::protocol::Level;
    use crate::{BrowserAgent, LogQuery};

    fn server(agent: &BrowserAgent) -> Vec<std::sync::Arc<crate::LogEntry>> {
        agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap())
    }

    #[test]
    fn error_and_warn_with_fields_and_spans_others_not() {
        let agent = BrowserAgent::builder()
            .enabled(true)
            .max_field(40)
            .max_text(200)
            .build();
        let subscriber = tracing_subscriber::registry().with(agent.tracing_layer());
        tracing::subscriber::with_default(subscriber, || {
            let outer = tracing::info_span!("request", method = "POST", path = "/api/items?token=s3cr3t");
            let _o = outer.enter();
            let inner = tracing::info_span!("db", table = tracing::field::Empty);
            inner.record("table", "items");
            let _i = inner.enter();
            tracing::trace!("no");
            tracing::debug!("no");
            tracing::info!(answer = 42, "no");
            tracing::warn!(retries = 3_u64, "pool slow");
            let err = std::io::Error::other("connection refused by the database at 127.0.0.1:5432");
            tracing::error!(
                error = &err as &dyn std::error::Error,
                ok = false,
                ratio = 0.5,
                "insert failed"
            );
        });
        let entries = server(&agent);
        assert_eq!(entries.len(), 2, "{entries:#?}");
        let (warn, error) = (&entries[0], &entries[1]);
        assert_eq!((warn.level, error.level), (Level::Warn, Level::Error));
        assert_eq!(warn.field_str("source"), Some("tracing"));
        assert_eq!(warn.field_str("target"), Some(module_path!()));
        assert_eq!(
            warn.text,
            format!(
                "request{{method=\"POST\" path=\"/api/items?token=[redacted]\"}}:db{{table=\"items\"}}: {}: pool slow retries=3",
                module_path!()
            )
        );
        assert_eq!(error.field_str("message"), Some("insert failed"));
        assert_eq!(
            error.fields["fields"]["error"], "connection refused by the database at 1…",
            "cut at max_field"
        );
        assert_eq!(error.fields["fields"]["ok"], false);
        assert_eq!(error.fields["fields"]["ratio"], 0.5);
        let spans = error.fields["spans"].as_array().unwrap();
        assert_eq!(spans.len(), 2);
        assert_eq!(
            (spans[0]["name"].as_str(), spans[1]["name"].as_str()),
            (Some("request"), Some("db"))
        );
        assert_eq!(spans[0]["fields"]["method"], "POST");
        assert_eq!(spans[1]["fields"]["table"], "items");
        assert!(error.field_str("location").unwrap().contains("tracing.rs:"));
    }

    #[test]
    fn secrets_in_fields_are_redacted_and_a_disabled_agent_stores_nothing() {
        let agent = BrowserAgent::builder().enabled(true).build();
        let off = BrowserAgent::builder().enabled(false).build();
        let subscriber = tracing_subscriber::registry()
            .with(agent.tracing_layer())
            .with(off.tracing_layer());
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!("login", password = "hunter2-hunter2");
            let _s = span.enter();
            tracing::error!(url = "/cb?code=4/0AY0e&state=x", "callback failed");
        });
        let e = &server(&agent)[0];
        assert_eq!(e.fields["spans"][0]["fields"]["password"], "[redacted]");
        assert_eq!(e.fields["fields"]["url"], "/cb?code=[redacted]&state=x");
        assert!(!e.text.contains("hunter2") && !e.text.contains("0AY0e"), "{}", e.text);
        assert!(server(&off).is_empty());
    }
}
