//! `server` entries: a dev server's output lines that look like errors, in the languages web
//! dev servers are written in. The patterns are data ([`SERVER_ERROR_PATTERNS`], ProofShot's
//! `error-patterns.ts`); [`BrowserAgent::server_log_line`] stores a matching line in the ring.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use regex_lite::Regex;
use serde_json::Value;

use super::ingest::{bound, one_line};
use super::LogEntry;
use crate::protocol::{entry_type, Level};
use crate::{util, BrowserAgent};

/// Which of the dev server's streams a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStream {
    /// Its standard output.
    Stdout,
    /// Its standard error.
    Stderr,
    /// A log file it writes ([`BrowserAgent::tail_server_log`]).
    File,
}

impl ServerStream {
    /// `stdout`, `stderr` or `file`, as the entry's `stream` field says.
    ///
    /// ```
    /// assert_eq!(browser_agent_core::adapter::ServerStream::File.as_str(), "file");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ServerStream::Stdout => "stdout",
            ServerStream::Stderr => "stderr",
            ServerStream::File => "file",
        }
    }
}

/// The error patterns, as (language, regular expression), in the order they are tried. A line
/// (trimmed, colour codes removed) is an error when any pattern matches it. They are
/// case-sensitive on purpose ("0 errors found" is no error), except the two marked `(?i)`.
pub(crate) const SERVER_ERROR_PATTERNS: &[(&str, &str)] = &[
    ("javascript", r"\bError:"),
    ("javascript", r"\bERR[_!]"),
    ("javascript", r"\bEACCES\b|\bENOENT\b|\bEADDRINUSE\b"),
    ("javascript", r"\bat\s+.+\(.+:\d+:\d+\)"),
    ("javascript", r"(?i)Unhandled.+rejection"),
    ("python", r"Traceback \(most recent call last\)"),
    ("python", r#"^\s*File ".+", line \d+"#),
    ("python", r"\w+Error:"),
    ("python", r"\w+Exception:"),
    ("ruby", r"\w+Error \(.+\)"),
    ("ruby", r"from .+:\d+:in `.+'"),
    ("ruby", r"FATAL --"),
    ("ruby", r"Errno::\w+"),
    ("ruby", r":\d+:in [`'].+\(\w+(::\w+)*\)$"),
    ("go", r"^panic:"),
    ("go", r"^goroutine \d+"),
    ("go", r"runtime error:"),
    ("go", r"http: panic serving"),
    ("java", r"Exception in thread"),
    ("java", r"\w+Exception:"),
    ("java", r"\bat\s+[\w.$]+\(.+:\d+\)"),
    ("java", r"Caused by:"),
    ("rust", r"thread '.+' panicked at"),
    ("rust", r"error\[E\d+\]"),
    ("php", r"(?i)PHP\s+(Fatal|Parse|Warning)\s+error:"),
    ("php", r"Stack trace:"),
    ("php", r"thrown in .+ on line \d+"),
    ("dotnet", r"Unhandled exception"),
    ("dotnet", r"\w+Exception:"),
    ("dotnet", r"at .+ in .+:line \d+"),
    ("elixir", r"\*\* \(\w+\)"),
    ("elixir", r"\(exit\) an exception was raised"),
    ("generic", r"\bFATAL\b"),
    ("generic", r"\bCRITICAL\b"),
    ("generic", r"\bSegmentation fault\b"),
    ("generic", r"\bcore dumped\b"),
    ("generic", r"(?i)\bout of memory\b"),
];

/// The lines that continue an error begun on an earlier line, as (language, regular expression),
/// tried on the line with colour codes removed (not trimmed: indentation is what most frames
/// have). While an error is being grouped ([`ServerLines`]), such a line joins its entry's `stack`
/// instead of being an entry of its own.
pub(crate) const CONTINUATION_PATTERNS: &[(&str, &str)] = &[
    // Indented: the frames of every language (Node/Deno `    at …`, Python `  File …`, Java
    // `\tat …`, Ruby `\tfrom …`, Go `\t/app/main.go:14`, Rust `   0: …`, .NET `   at …`).
    ("any", r"^\s+\S"),
    ("javascript", r"^\}$"),
    ("javascript", r"^Node\.js v\d"),
    ("python", r"^Traceback \(most recent call last\):"),
    ("python", r"^During handling of the above exception"),
    ("python", r"^The above exception was the direct cause"),
    ("rust", r"^stack backtrace:"),
    ("rust", r"^note: "),
    ("rust", r"^\d+\s+\|"),
    ("go", r"^goroutine \d+ \["),
    ("go", r"^\[signal "),
    ("go", r"^created by "),
    ("go", r"^[\w./*()\[\]{}-]+\(.*\)$"),
    ("go", r"^exit status \d+$"),
    ("java", r"^Caused by: "),
    ("java", r"^Suppressed: "),
    ("ruby", r"^from \S+:\d+"),
    ("ruby", r"^\S+:\d+:in [`']"),
];

/// How long an error is held for its next line: an entry is stored once its output has been
/// quiet this long (or a line that does not continue it arrives).
pub(crate) const SERVER_ERROR_QUIET: Duration = Duration::from_millis(80);
/// The most lines an entry's `stack` keeps; the rest are counted in its last line (`… 12 more lines`).
pub(crate) const MAX_STACK_LINES: usize = 60;
/// The most characters an entry's `stack` keeps (and at most `max_field`).
pub(crate) const MAX_STACK_CHARS: usize = 4000;
/// How far apart (ms) an error and a 5xx answer may be and still be paired.
const PAIR_SLACK_MS: u64 = 250;

fn continuations() -> &'static [Regex] {
    static COMPILED: OnceLock<Vec<Regex>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        CONTINUATION_PATTERNS
            .iter()
            .map(|(_, pattern)| Regex::new(pattern).expect("the continuation patterns compile"))
            .collect()
    })
}

/// Whether `line` (colour codes removed) continues an error begun earlier.
fn continues(line: &str) -> bool {
    continuations().iter().any(|re| re.is_match(line))
}

/// A Java/Kotlin exception's own line (`java.lang.IllegalStateException: boom`): right after a log
/// line that named it, it is the error's text.
fn exception_line(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^[\w$]+(\.[\w$]+)+(Exception|Error)\b").expect("compiles"))
        .is_match(line)
}

/// One error being grouped: its text line, the lines around it, when it began.
#[derive(Debug)]
struct Pending {
    text: String,
    pattern: &'static str,
    /// Every line but the text's, in order (bounded).
    stack: Vec<String>,
    /// How many of `stack`'s lines came before the text's.
    text_at: usize,
    stack_chars: usize,
    /// Lines past the bounds, counted.
    more: usize,
    /// The first line's time (epoch ms).
    t: u64,
    last: Instant,
    /// A Python traceback waiting for its exception line.
    traceback: bool,
    /// A Rust panic header (`panicked at file:line:`) waiting for its message line.
    panic_message: bool,
}

impl Pending {
    /// `text` becomes the error's line; the line it replaces goes into the stack where it was.
    fn retext(&mut self, text: String) {
        let before = std::mem::replace(&mut self.text, text);
        self.stack_chars += before.len() + 1;
        self.stack.insert(self.text_at.min(self.stack.len()), before);
        self.text_at = self.stack.len();
        self.last = Instant::now();
    }

    fn push(&mut self, line: String) {
        if self.stack.len() >= MAX_STACK_LINES || self.stack_chars + line.len() + 1 > MAX_STACK_CHARS {
            self.more += 1;
            return;
        }
        self.stack_chars += line.len() + 1;
        self.stack.push(line);
    }
}

/// A dev server's output on one stream, grouped into errors: a multi-line error (a Node stack, a
/// Python traceback, a Rust panic and its backtrace, a Go panic and its goroutines, a Java or
/// Kotlin stack with `Caused by:`, a Ruby backtrace) is **one** `server` entry. Its `text` is the
/// error's line (for a Python traceback, its exception line; for a Rust panic, the header and its
/// message), and its other lines are in the `stack` field (at most [`MAX_STACK_LINES`] lines and
/// [`MAX_STACK_CHARS`] characters, then `… N more lines`). An entry is stored when a line that does
/// not continue it arrives, when [`flush`](Self::flush) is called, or once the output has been
/// quiet for [`SERVER_ERROR_QUIET`] ([`due`](Self::due) says when; the feeder calls
/// [`flush`](Self::flush) then). Its `t` is its first line's.
///
/// An error stored after a 5xx answer that was in flight when it began names it (`answer`,
/// `answerSeq`); a 5xx answered after such an error was stored names that (`cause`, `causeSeq`):
/// the 5xx and the error that caused it are shown together, and counted as one error.
#[derive(Debug)]
pub struct ServerLines {
    stream: ServerStream,
    pending: Option<Pending>,
}

impl ServerLines {
    /// Nothing held yet, for lines of `stream`.
    pub fn new(stream: ServerStream) -> ServerLines {
        ServerLines { stream, pending: None }
    }

    /// Feeds one output line (a trailing newline is fine); true when it began or continued an
    /// error. May store the error held before it.
    pub fn line(&mut self, agent: &BrowserAgent, line: &str) -> bool {
        let plain = plain(line);
        if let Some(p) = &mut self.pending {
            if plain.trim().is_empty() {
                p.last = Instant::now();
                return true;
            }
            if p.panic_message {
                p.panic_message = false;
                p.last = Instant::now();
                if !continues(&plain) {
                    p.text.push(' ');
                    p.text.push_str(plain.trim());
                    return true;
                }
            }
            let indented = plain.starts_with([' ', '\t']);
            if p.traceback && !indented && !continues(&plain) {
                // The traceback's exception line is the error: the lines before it are its stack.
                p.retext(plain.trim().to_owned());
                p.traceback = false;
                return true;
            }
            if !indented && p.stack.is_empty() && exception_line(&plain) && !exception_line(&p.text) {
                p.retext(plain.trim().to_owned());
                return true;
            }
            if continues(&plain) {
                if plain.starts_with("Traceback (most recent call last)")
                    || plain.starts_with("During handling of the above")
                    || plain.starts_with("The above exception")
                {
                    p.traceback = true;
                }
                p.push(plain.trim_end().to_owned());
                p.last = Instant::now();
                return true;
            }
            self.flush(agent);
        }
        let Some((_, pattern)) = server_error_pattern(&plain) else {
            return false;
        };
        let text = plain.trim().to_owned();
        self.pending = Some(Pending {
            traceback: text.starts_with("Traceback (most recent call last)"),
            panic_message: text.contains("' panicked at ") && text.ends_with(':'),
            text,
            pattern,
            stack: Vec::new(),
            text_at: 0,
            stack_chars: 0,
            more: 0,
            t: util::now_ms(),
            last: Instant::now(),
        });
        true
    }

    /// When the error held must be stored ([`SERVER_ERROR_QUIET`] after its last line), if one is.
    pub fn due(&self) -> Option<Instant> {
        self.pending.as_ref().map(|p| p.last + SERVER_ERROR_QUIET)
    }

    /// Stores the error held, if any; true when one was stored.
    pub fn flush(&mut self, agent: &BrowserAgent) -> bool {
        let Some(p) = self.pending.take() else {
            return false;
        };
        agent.store_output_error(p, self.stream)
    }

    /// [`flush`](Self::flush) when [`due`](Self::due) has passed.
    pub fn flush_if_quiet(&mut self, agent: &BrowserAgent) -> bool {
        match self.due() {
            Some(due) if Instant::now() >= due => self.flush(agent),
            _ => false,
        }
    }
}

fn compiled() -> &'static [(&'static str, Regex)] {
    static COMPILED: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        SERVER_ERROR_PATTERNS
            .iter()
            .map(|(language, pattern)| {
                (
                    *language,
                    Regex::new(pattern).expect("the server error patterns compile"),
                )
            })
            .collect()
    })
}

/// The line without terminal colour and cursor codes (`ESC [ … letter`), and without a trailing `\r`.
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // Parameters and intermediates, then one final byte in @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    while out.ends_with(['\r', '\n']) {
        out.pop();
    }
    out
}

/// The first error pattern that matches `line` (trimmed, colour codes removed), as (language,
/// pattern), if any. The language is the pattern set's, not a guess at the line's: Node's
/// `TypeError: …` is caught by the `\w+Error:` that the Python set lists first.
pub(crate) fn server_error_pattern(line: &str) -> Option<(&'static str, &'static str)> {
    let line = plain(line);
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    compiled()
        .iter()
        .zip(SERVER_ERROR_PATTERNS)
        .find(|((_, re), _)| re.is_match(line))
        .map(|(_, found)| *found)
}

/// What a `server` entry's `source` field says it came from.
pub(crate) mod source {
    /// A line of the dev server's output ([`BrowserAgent::server_log_line`](crate::BrowserAgent::server_log_line), `--run`, a tailed file).
    pub(crate) const OUTPUT: &str = "output";
    /// A 5xx answer of the app ([`BrowserAgent::record_response`](crate::BrowserAgent::record_response)).
    pub(crate) const RESPONSE: &str = "response";
    /// An ERROR or WARN event of the app's `tracing` (the `tracing` feature).
    #[cfg(feature = "tracing")]
    pub(crate) const TRACING: &str = "tracing";
    /// A panic ([`BrowserAgent::install_panic_hook`](crate::BrowserAgent::install_panic_hook)).
    pub(crate) const PANIC: &str = "panic";
}

use super::entry::{ANSWER_SEQ, CAUSE_SEQ};

/// Whether a status is one [`BrowserAgent::record_response`] records: 500 to 599.
#[inline]
pub(crate) fn is_server_error(status: u16) -> bool {
    (500..600).contains(&status)
}

impl BrowserAgent {
    /// [`AdapterExt::server_log_line`](crate::adapter::AdapterExt::server_log_line).
    pub(crate) fn server_line(&self, line: &str, stream: ServerStream) -> bool {
        let Some((_, pattern)) = server_error_pattern(line) else {
            return false;
        };
        let entry = self.server_entry(
            Level::Error,
            source::OUTPUT,
            &plain(line),
            [
                ("stream", Value::from(stream.as_str())),
                ("pattern", Value::from(pattern)),
            ],
        );
        self.store(vec![entry]) == 1
    }

    /// A line grouper for the dev server's output on `stream`: feed it every line
    /// (`.line(&agent, line)`) and call `.flush(&agent)` once its `.due()` has
    /// passed, and a multi-line error is one `server` entry with its `stack` (what `--run` and
    /// [`tail_server_log`](Self::tail_server_log) do).
    ///
    /// ```
    /// use browser_agent_core::{adapter::ServerStream, BrowserAgent, LogQuery};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let mut lines = agent.server_output(ServerStream::Stderr);
    /// for line in ["TypeError: Cannot read properties of undefined (reading 'id')",
    ///              "    at load (/app/server.js:14:11)",
    ///              "    at Layer.handle (/app/node_modules/express/lib/router/layer.js:95:5)"] {
    ///     lines.line(&agent, line);
    /// }
    /// lines.flush(&agent); // or: once `lines.due()` has passed
    /// let entries = agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap());
    /// assert_eq!(entries.len(), 1);
    /// assert_eq!(entries[0].text, "TypeError: Cannot read properties of undefined (reading 'id')");
    /// assert!(entries[0].field_str("stack").unwrap().contains("/app/server.js:14:11"));
    /// ```
    pub fn server_output(&self, stream: ServerStream) -> ServerLines {
        ServerLines::new(stream)
    }

    /// Stores an error [`ServerLines`] grouped: its line as `text`, its other lines as `stack`,
    /// its first line's time; named after a 5xx answered while it was held (see [`ServerLines`]).
    fn store_output_error(&self, p: Pending, stream: ServerStream) -> bool {
        let Pending {
            text,
            pattern,
            mut stack,
            more,
            t,
            ..
        } = p;
        if more > 0 {
            stack.push(format!("… {more} more lines"));
        }
        let mut fields = vec![
            ("stream", Value::from(stream.as_str())),
            ("pattern", Value::from(pattern)),
        ];
        if !stack.is_empty() {
            fields.push(("stack", Value::from(stack.join("\n"))));
        }
        // A 5xx whose request was in flight when this error began, answered before it was stored,
        // and not yet paired: the latest such. (Looked up and stored under the pairing lock.)
        let _pairing = self.inner.server_pairing.lock();
        let recent = self.recent_server_entries();
        let named = |seq: u64| {
            recent
                .iter()
                .any(|o| o.fields.get(ANSWER_SEQ).and_then(Value::as_u64) == Some(seq))
        };
        let answer = recent.iter().rev().find(|e| {
            e.field_str("source") == Some(source::RESPONSE)
                && !e.fields.contains_key(CAUSE_SEQ)
                && !named(e.seq)
                && e.t + PAIR_SLACK_MS >= t
                && e.t
                    .saturating_sub(e.fields.get("duration").and_then(Value::as_u64).unwrap_or(0))
                    <= t + PAIR_SLACK_MS
        });
        if let Some(answer) = answer {
            fields.push(("answer", Value::from(answer.text.clone())));
            fields.push((ANSWER_SEQ, Value::from(answer.seq)));
        }
        let mut entry = self.server_entry(Level::Error, source::OUTPUT, &text, fields);
        entry.t = t;
        self.store(vec![entry]) == 1
    }

    /// Records a request the dev server did not answer, which a proxy in front of it answered
    /// with its own `502` (`why`: what the connection said, `Connection refused (os error 111)`).
    /// `ready` says whether the dev server had answered before. If not, it is still starting: the
    /// `server` entry says "the dev server was not ready yet" at level `info`, which counts as no
    /// error (in answers, proof counts and SUMMARY.md). If it had, it stopped answering: an
    /// error. Returns whether it was stored.
    ///
    /// ```
    /// use std::time::Instant;
    /// use browser_agent_core::{protocol::Level, BrowserAgent, LogQuery};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.record_unanswered("GET", "/", "Connection refused", false, Instant::now()));
    /// let entry = &agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap())[0];
    /// assert!(entry.text.starts_with("GET / → 502 Bad Gateway ("), "{}", entry.text);
    /// assert!(entry.text.ends_with("): the dev server was not ready yet (Connection refused)"));
    /// assert_eq!(entry.level, Level::Info);
    /// ```
    pub fn record_unanswered(&self, method: &str, path: &str, why: &str, ready: bool, started: Instant) -> bool {
        if !self.enabled() {
            return false;
        }
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let method = method.to_ascii_uppercase();
        let (level, what) = if ready {
            (Level::Error, "the dev server stopped answering")
        } else {
            (Level::Info, "the dev server was not ready yet")
        };
        let text = format!("{method} {path} → 502 Bad Gateway ({ms} ms): {what} ({why})");
        let fields = [
            ("method", Value::from(method)),
            ("url", Value::from(path)),
            ("status", Value::from(502)),
            ("duration", Value::from(ms)),
            ("ready", Value::from(ready)),
        ];
        let entry = self.server_entry(level, source::RESPONSE, &text, fields);
        self.store(vec![entry]) == 1
    }

    /// The last server entries in the ring (at most the last 200 entries looked at), oldest first.
    fn recent_server_entries(&self) -> Vec<std::sync::Arc<LogEntry>> {
        let logs = &self.inner.logs;
        let mut recent = logs.since_seq(logs.last_seq().saturating_sub(200));
        recent.retain(|e| e.kind == entry_type::SERVER);
        recent
    }

    /// [`AdapterExt::record_response`](crate::adapter::AdapterExt::record_response).
    #[inline]
    pub(crate) fn app_response(&self, method: &str, path: &str, status: u16, started: Instant) -> bool {
        if !is_server_error(status) {
            return false;
        }
        self.record_server_error(method, path, status, started.elapsed())
    }

    #[cold]
    fn record_server_error(&self, method: &str, path: &str, status: u16, duration: Duration) -> bool {
        if !self.enabled() {
            return false;
        }
        let ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        let reason = http::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("");
        let method = method.to_ascii_uppercase();
        let mut text = format!("{method} {path} → {status}");
        if !reason.is_empty() {
            text.push(' ');
            text.push_str(reason);
        }
        text.push_str(&format!(" ({ms} ms)"));
        let mut fields = vec![
            ("method", Value::from(method)),
            ("url", Value::from(path)),
            ("status", Value::from(status)),
            ("duration", Value::from(ms)),
        ];
        // The error this request caused, when it was stored before the answer: the latest error
        // of the dev server (or the app's tracing, or a panic) since the request began, not paired.
        let started = util::now_ms().saturating_sub(ms);
        let _pairing = self.inner.server_pairing.lock();
        let recent = self.recent_server_entries();
        let named = |seq: u64| {
            recent
                .iter()
                .any(|o| o.fields.get(CAUSE_SEQ).and_then(Value::as_u64) == Some(seq))
        };
        let cause = recent.iter().rev().find(|e| {
            e.field_str("source") != Some(source::RESPONSE)
                && e.level == Level::Error
                && !e.fields.contains_key(ANSWER_SEQ)
                && !named(e.seq)
                && e.t + PAIR_SLACK_MS >= started
        });
        if let Some(cause) = cause {
            fields.push(("cause", Value::from(cause.text.clone())));
            fields.push((CAUSE_SEQ, Value::from(cause.seq)));
        }
        let entry = self.server_entry(Level::Error, source::RESPONSE, &text, fields);
        self.store(vec![entry]) == 1
    }

    /// The one shape of every `server` entry: `text` as one line cut at `max_text`, the `source`
    /// field, then `fields`, each value bounded by `max_field` (strings cut, nesting and lengths
    /// bounded as the page's fields are), the byte cost counted. Stored by the caller.
    pub(crate) fn server_entry<I>(&self, level: Level, source: &str, text: &str, fields: I) -> LogEntry
    where
        I: IntoIterator<Item = (&'static str, Value)>,
    {
        let config = &self.inner.config;
        let mut text = one_line(text).into_owned();
        util::truncate_marked(&mut text, config.max_text);
        let mut entry = LogEntry::new(entry_type::SERVER, level, text, util::now_ms());
        let mut field_bytes = "source".len() + source.len() + 2;
        entry.fields.insert("source".into(), Value::from(source));
        for (name, mut value) in fields {
            field_bytes += name.len() + bound(&mut value, 0, config.max_field);
            entry.fields.insert(name.into(), value);
        }
        entry.approx_bytes = LogEntry::size(&entry.text, "", "", entry_type::SERVER, field_bytes);
        entry
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::AdapterExt;

    #[test]
    fn every_example_line_of_every_language_matches_and_chatter_does_not() {
        let errors = [
            ("TypeError: x is not a function", "javascript"),
            ("npm ERR! code E404", "javascript"),
            ("Error: listen EADDRINUSE :::3000", "javascript"),
            ("at fn (file.js:10:5)", "javascript"),
            (
                "UnhandledPromiseRejectionWarning: Unhandled promise rejection",
                "javascript",
            ),
            ("Traceback (most recent call last):", "python"),
            (r#"  File "app.py", line 3, in <module>"#, "python"),
            ("KeyError: 'x'", "python"),
            ("ActionController::RoutingError (No route matches [GET] \"/x\")", "ruby"),
            ("from app.rb:10:in `block'", "ruby"),
            ("F, [2026-12-01T10:00:00] FATAL -- : boom", "ruby"),
            ("Errno::ECONNREFUSED", "ruby"),
            ("panic: runtime error: index out of range", "go"),
            ("goroutine 1 [running]:", "go"),
            ("Exception in thread \"main\" java.lang.NullPointerException", "java"),
            ("at com.example.Main(Main.java:10)", "java"),
            ("Caused by: java.io.IOException", "java"),
            ("thread 'main' panicked at src/main.rs:2:5", "rust"),
            ("error[E0308]: mismatched types", "rust"),
            ("php fatal error: Uncaught Exception", "php"),
            ("thrown in /x.php on line 12", "php"),
            ("Unhandled exception.", "dotnet"),
            ("System.InvalidOperationException: nope", "python"),
            ("at Foo.Bar() in /src/Foo.cs:line 42", "dotnet"),
            ("** (RuntimeError) boom", "elixir"),
            ("(exit) an exception was raised:", "elixir"),
            ("FATAL: database down", "generic"),
            ("CRITICAL disk full", "generic"),
            ("Segmentation fault", "generic"),
            ("FATAL ERROR: JavaScript heap Out Of Memory", "generic"),
        ];
        for (line, language) in errors {
            assert!(server_error_pattern(line).is_some(), "{line} ({language})");
        }
        for chatter in [
            "",
            "   ",
            "Found 0 errors. Watching for file changes.",
            "  VITE v8.3.8  ready in 312 ms",
            "GET /api/items 200 in 3ms",
            "[vite] hmr update /src/main.js",
            "error handling is configured",
        ] {
            assert_eq!(server_error_pattern(chatter), None, "{chatter:?}");
        }
    }

    /// Whether a pattern of `language`'s own set matches `line` (trimmed, colours removed).
    fn language_matches(line: &str, language: &str) -> bool {
        let line = plain(line);
        compiled()
            .iter()
            .any(|(l, re)| *l == language && re.is_match(line.trim()))
    }

    /// Real output of each language's dev servers, line by line, `!` marking the lines that must
    /// match (`-` those that must not): a Node crash, a Django traceback, a Rails 500, a Go panic,
    /// a Spring stack with `Caused by`, a Rust panic and a compile error, PHP fatals, a .NET
    /// unhandled exception, a Phoenix crash, and the generic killers. Each language's own
    /// patterns must catch at least two of its lines.
    #[test]
    fn real_output_of_each_language() {
        let logs: &[(&str, &str)] = &[
            (
                "javascript",
                r#"- /app/server.js:14
-     throw new Error('boom');
-     ^
! Error: boom
!     at Object.<anonymous> (/app/server.js:14:11)
!     at Module._compile (node:internal/modules/cjs/loader:1554:14)
- Node.js v22.14.0
! TypeError: Cannot read properties of undefined (reading 'map')
!     at renderList (webpack-internal:///./src/List.jsx:12:23)
! npm ERR! code ELIFECYCLE
! Error: listen EADDRINUSE: address already in use :::3000
! Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'express' imported from /app/index.js
! [Error: ENOENT: no such file or directory, open '/app/.env'] { errno: -2, code: 'ENOENT' }
! (node:4242) UnhandledPromiseRejectionWarning: Unhandled promise rejection. This error originated either by throwing inside of an async function without a catch block
!  ⨯ ReferenceError: window is not defined
- > next dev
-  ✓ Ready in 1834ms
-  ✓ Compiled /page in 312ms (1234 modules)
- webpack 5.97.1 compiled successfully in 1234 ms
-   VITE v6.0.7  ready in 312 ms
- 10:00:00 AM [vite] hmr update /src/App.jsx"#,
            ),
            (
                "python",
                r#"! Internal Server Error: /polls/
! Traceback (most recent call last):
!   File "/usr/lib/python3.12/site-packages/django/core/handlers/exception.py", line 55, in inner
-     response = get_response(request)
!   File "/app/polls/views.py", line 8, in index
-     return HttpResponse(1 / 0)
! ZeroDivisionError: division by zero
- [01/Dec/2026 10:00:00] "GET /polls/ HTTP/1.1" 500 59
! ModuleNotFoundError: No module named 'flask'
! sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "localhost" failed
- INFO:     127.0.0.1:53412 - "GET / HTTP/1.1" 200 OK
- Watching for file changes with StatReloader
- System check identified no issues (0 silenced)."#,
            ),
            (
                "ruby",
                r#"- Started GET "/boom" for 127.0.0.1 at 2026-12-01 10:00:00 +0000
- Processing by PagesController#boom as HTML
! RuntimeError (boom):
! NoMethodError (undefined method `name' for nil):
! 	from /app/app.rb:10:in `block in <main>'
! 	from /usr/lib/ruby/3.3.0/webrick/httpserver.rb:140:in `service'
! Errno::ECONNREFUSED (Connection refused - connect(2) for "127.0.0.1" port 5432)
! F, [2026-12-01T10:00:00.123456 #4242] FATAL -- : boom
- Completed 200 OK in 12ms (Views: 10.1ms | ActiveRecord: 0.4ms | Allocations: 4321)
- * Listening on http://127.0.0.1:3000"#,
            ),
            (
                "go",
                r#"! panic: runtime error: invalid memory address or nil pointer dereference
- [signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5d1b2a]
! goroutine 23 [running]:
- main.handler({0x7f2c1c0, 0xc0001a0000}, 0xc0001b2000)
- 	/app/main.go:14 +0x2a
! panic: assignment to entry in nil map
! goroutine 1 [running]:
- 2026/12/01 10:00:00 listening on :8080
- ok  	example.com/app	0.012s"#,
            ),
            (
                "java",
                r#"! java.lang.IllegalStateException: boom
! 	at com.example.demo.DemoController.boom(DemoController.java:14) ~[classes/:na]
! 	at org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:885) ~[spring-webmvc-6.2.1.jar:6.2.1]
! Caused by: java.sql.SQLException: Connection refused
- 	... 48 common frames omitted
! Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because "s" is null
! 	at com.example.ApplicationKt.main(Application.kt:12)
- 2026-12-01T10:00:00.123Z  INFO 4242 --- [main] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat started on port 8080 (http) with context path '/'
- BUILD SUCCESSFUL in 3s"#,
            ),
            (
                "rust",
                r#"! thread 'tokio-runtime-worker' panicked at src/main.rs:42:9:
- called `Option::unwrap()` on a `None` value
- note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
! thread 'main' panicked at src/bin/server.rs:7:5:
! error[E0425]: cannot find value `x` in this scope
-  --> src/main.rs:3:13
! error[E0308]: mismatched types
- warning: unused variable: `y`
-    Compiling demo v0.1.0 (/app)
-     Finished `dev` profile [unoptimized + debuginfo] target(s) in 2.31s
-      Running `target/debug/demo`"#,
            ),
            (
                "php",
                r#"! PHP Fatal error:  Uncaught Exception: boom in /var/www/index.php:3
! Stack trace:
- #0 {main}
!   thrown in /var/www/index.php on line 3
! [Mon Dec  1 10:00:00 2026] PHP Parse error:  syntax error, unexpected token "}" in /var/www/a.php on line 9
! PHP Fatal error:  Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes) in /var/www/vendor/x.php on line 12
- PHP Warning:  Undefined variable $x in /var/www/index.php on line 5
- [Mon Dec  1 10:00:00 2026] PHP 8.4.1 Development Server (http://localhost:8000) started
- [Mon Dec  1 10:00:01 2026] 127.0.0.1:53412 [200]: GET /"#,
            ),
            (
                "dotnet",
                r#"! Unhandled exception. System.InvalidOperationException: Sequence contains no elements
-    at System.Linq.ThrowHelper.ThrowNoElementsException()
!    at Program.<Main>$(String[] args) in /src/Program.cs:line 5
- fail: Microsoft.AspNetCore.Diagnostics.DeveloperExceptionPageMiddleware[1]
!       System.NullReferenceException: Object reference not set to an instance of an object.
!          at WebApp.Controllers.HomeController.Index() in /src/Controllers/HomeController.cs:line 21
- info: Microsoft.Hosting.Lifetime[14]
-       Now listening on: http://localhost:5000"#,
            ),
            (
                "elixir",
                r#"- [error] #PID<0.456.0> running MyAppWeb.Endpoint (connection #PID<0.455.0>, stream id 1) terminated
- Request: GET /boom
! ** (exit) an exception was raised:
!     ** (RuntimeError) boom
-         (my_app 0.1.0) lib/my_app_web/controllers/page_controller.ex:9: MyAppWeb.PageController.boom/2
! ** (ArithmeticError) bad argument in arithmetic expression
! ** (Mix) Could not compile dependency :telemetry
- [info] Running MyAppWeb.Endpoint with Bandit 1.6.1 at 127.0.0.1:4000 (http)
- [info] GET /
- [info] Sent 200 in 2ms"#,
            ),
            (
                "generic",
                r#"! 2026-12-01 10:00:00.123 UTC [42] FATAL:  password authentication failed for user "postgres"
! Segmentation fault (core dumped)
! FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory
! [2026-12-01 10:00:00 +0000] [1] [CRITICAL] WORKER TIMEOUT (pid:8)
! Out of memory: Killed process 4242 (node) total-vm:4318216kB, anon-rss:2097152kB
- Found 0 errors. Watching for file changes.
- No errors found.
- ✖ 0 problems (0 errors, 0 warnings)
- Tests: 0 failed, 12 passed, 12 total
- error handling is configured
- [nodemon] clean exit - waiting for changes before restart
- Fatality rate: 0 (this is a word, not a log level)"#,
            ),
        ];
        for (language, log) in logs {
            let mut own = 0;
            for raw in log.lines() {
                let (mark, line) = raw.split_at(2);
                let expected = match mark {
                    "! " => true,
                    "- " => false,
                    _ => panic!("{language}: a line must start with `! ` or `- `: {raw:?}"),
                };
                let found = server_error_pattern(line);
                assert_eq!(found.is_some(), expected, "{language}: {line:?} matched {found:?}");
                own += usize::from(expected && language_matches(line, language));
            }
            assert!(
                own >= 2,
                "{language}: only {own} of its lines are caught by its own patterns"
            );
        }
    }

    /// Feeds `log` line by line to a [`ServerLines`], then flushes: the stored entries as (text, stack).
    fn grouped(log: &str) -> Vec<(String, String)> {
        let agent = BrowserAgent::builder().enabled(true).build();
        let mut lines = agent.server_output(ServerStream::Stderr);
        for line in log.lines() {
            lines.line(&agent, &format!("{line}\n"));
        }
        lines.flush(&agent);
        agent
            .logs()
            .query(&crate::LogQuery::parse(Some("type=server&limit=100")).unwrap())
            .iter()
            .map(|e| (e.text.clone(), e.field_str("stack").unwrap_or("").to_owned()))
            .collect()
    }

    /// Real output of each language's errors: each is one entry, its text the error's line, its
    /// frames (down to the app's file:line) in `stack`, and the chatter around it no entry.
    #[test]
    fn one_error_is_one_entry_in_every_language() {
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "node (express, console.error(err))",
                "GET /api/items 500 3.112 ms - 148\nTypeError: Cannot read properties of undefined (reading 'map')\n    at listItems (/app/src/routes/items.js:14:23)\n    at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)\n    at next (/app/node_modules/express/lib/router/route.js:149:13)\n    at Route.dispatch (/app/node_modules/express/lib/router/route.js:119:3)\n    at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)\n    at /app/node_modules/express/lib/router/index.js:284:15\n    at Function.process_params (/app/node_modules/express/lib/router/index.js:346:12)\n    at next (/app/node_modules/express/lib/router/index.js:280:10)\nGET /api/other 200 1.2 ms - 12",
                "TypeError: Cannot read properties of undefined (reading 'map')",
                "/app/src/routes/items.js:14:23",
            ),
            (
                "node (uncaught, with its source line and properties)",
                "/app/server.js:14\n    throw new Error('boom');\n    ^\n\nError: boom\n    at Object.<anonymous> (/app/server.js:14:11)\n    at Module._compile (node:internal/modules/cjs/loader:1554:14)\n    at node:internal/main/run_main_module:36:49 {\n  code: 'E_BOOM'\n}\n\nNode.js v22.14.0",
                "Error: boom",
                "/app/server.js:14:11",
            ),
            (
                "deno",
                "Listening on http://localhost:8000/\nerror: Uncaught (in promise) TypeError: Cannot read properties of undefined (reading 'id')\n  return user.id;\n              ^\n    at getId (file:///app/main.ts:3:15)\n    at file:///app/main.ts:9:3",
                "error: Uncaught (in promise) TypeError: Cannot read properties of undefined (reading 'id')",
                "file:///app/main.ts:3:15",
            ),
            (
                "python (django)",
                "Internal Server Error: /polls/\nTraceback (most recent call last):\n  File \"/usr/lib/python3.12/site-packages/django/core/handlers/exception.py\", line 55, in inner\n    response = get_response(request)\n               ^^^^^^^^^^^^^^^^^^^^^\n  File \"/app/polls/views.py\", line 8, in index\n    return HttpResponse(1 / 0)\n                        ~~^~~\nZeroDivisionError: division by zero\n[01/Dec/2026 10:00:00] \"GET /polls/ HTTP/1.1\" 500 59",
                "ZeroDivisionError: division by zero",
                "File \"/app/polls/views.py\", line 8, in index",
            ),
            (
                "python (chained, uvicorn)",
                "ERROR:    Exception in ASGI application\nTraceback (most recent call last):\n  File \"/app/main.py\", line 9, in read_item\n    return items[item_id]\nKeyError: 'x'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"/app/main.py\", line 11, in read_item\n    raise ValueError(\"no such item\")\nValueError: no such item\nINFO:     127.0.0.1:53412 - \"GET /items/x HTTP/1.1\" 500 Internal Server Error",
                "ValueError: no such item",
                "KeyError: 'x'",
            ),
            (
                "rust (panic with a backtrace)",
                "thread 'tokio-runtime-worker' panicked at src/handlers.rs:42:9:\ncalled `Option::unwrap()` on a `None` value\nstack backtrace:\n   0: rust_begin_unwind\n             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:665:5\n   1: core::panicking::panic\n   2: demo::handlers::show\n             at ./src/handlers.rs:42:9\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n2026-12-01T10:00:00Z  INFO demo: listening on 127.0.0.1:3000",
                "thread 'tokio-runtime-worker' panicked at src/handlers.rs:42:9: called `Option::unwrap()` on a `None` value",
                "at ./src/handlers.rs:42:9",
            ),
            (
                "go (net/http recovered panic)",
                "2026/12/01 10:00:00 http: panic serving 127.0.0.1:53412: runtime error: invalid memory address or nil pointer dereference\ngoroutine 23 [running]:\nnet/http.(*conn).serve.func1()\n\t/usr/local/go/src/net/http/server.go:1947 +0xbe\npanic({0x6c6d40?, 0x8a1b70?})\n\t/usr/local/go/src/runtime/panic.go:785 +0x132\nmain.handler({0x7f2c1c0, 0xc0001a0000}, 0xc0001b2000)\n\t/app/main.go:14 +0x2a\ncreated by net/http.(*Server).Serve in goroutine 1\n\t/usr/local/go/src/net/http/server.go:3285 +0x4b4\n2026/12/01 10:00:01 GET / 200",
                "2026/12/01 10:00:00 http: panic serving 127.0.0.1:53412: runtime error: invalid memory address or nil pointer dereference",
                "/app/main.go:14 +0x2a",
            ),
            (
                "go (crash)",
                "panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:8 +0x2c\nexit status 2",
                "panic: assignment to entry in nil map",
                "/app/main.go:8",
            ),
            (
                "java (spring, with its cause)",
                "2026-12-01T10:00:00.123Z ERROR 4242 --- [nio-8080-exec-1] o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() for servlet [dispatcherServlet] threw exception [Request processing failed: java.lang.IllegalStateException: boom] with root cause\njava.lang.IllegalStateException: boom\n\tat com.example.demo.DemoController.boom(DemoController.java:14) ~[classes/:na]\n\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103) ~[na:na]\nCaused by: java.sql.SQLException: Connection refused\n\tat com.example.demo.Db.open(Db.java:20) ~[classes/:na]\n\t... 48 common frames omitted\n2026-12-01T10:00:01.000Z  INFO 4242 --- [main] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat started",
                "java.lang.IllegalStateException: boom",
                "Caused by: java.sql.SQLException: Connection refused",
            ),
            (
                "kotlin",
                "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"s\" is null\n\tat com.example.ApplicationKt.main(Application.kt:12)\n\tat com.example.ApplicationKt.main(Application.kt)",
                "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"s\" is null",
                "Application.kt:12",
            ),
            (
                "ruby (script)",
                "/app/app.rb:3:in 'Integer#/': divided by 0 (ZeroDivisionError)\n\tfrom /app/app.rb:3:in 'block in <main>'\n\tfrom /usr/lib/ruby/3.4.0/webrick/httpserver.rb:140:in 'service'",
                "/app/app.rb:3:in 'Integer#/': divided by 0 (ZeroDivisionError)",
                "from /app/app.rb:3:in 'block in <main>'",
            ),
            (
                "ruby (rails)",
                "Started GET \"/boom\" for 127.0.0.1 at 2026-12-01 10:00:00 +0000\nNoMethodError (undefined method `name' for nil):\n\napp/controllers/pages_controller.rb:5:in `boom'\napp/middleware/timing.rb:9:in `call'\nCompleted 500 Internal Server Error in 12ms",
                "NoMethodError (undefined method `name' for nil):",
                "app/controllers/pages_controller.rb:5:in `boom'",
            ),
        ];
        for (what, log, text, frame) in cases {
            let entries = grouped(log);
            assert_eq!(entries.len(), 1, "{what}: one entry, got {entries:#?}");
            let (got, stack) = &entries[0];
            assert_eq!(got, text, "{what}");
            assert!(stack.contains(frame), "{what}: no {frame:?} in its stack:\n{stack}");
            assert!(!got.contains('\n'), "{what}: the text is one line");
        }
    }

    #[test]
    fn two_errors_in_a_row_are_two_entries_and_frames_are_bounded() {
        let entries = grouped("Error: one\n    at a (/app/a.js:1:1)\nError: two\n    at b (/app/b.js:2:2)");
        assert_eq!(
            entries,
            [
                ("Error: one".to_owned(), "    at a (/app/a.js:1:1)".to_owned()),
                ("Error: two".to_owned(), "    at b (/app/b.js:2:2)".to_owned()),
            ]
        );
        let long: String = std::iter::once("RangeError: Maximum call stack size exceeded".to_owned())
            .chain((0..500).map(|i| format!("    at recurse (/app/deep.js:{i}:5)")))
            .collect::<Vec<_>>()
            .join("\n");
        let entries = grouped(&long);
        assert_eq!(entries.len(), 1);
        let stack = &entries[0].1;
        assert!(
            stack.lines().count() <= MAX_STACK_LINES + 1,
            "{}",
            stack.lines().count()
        );
        assert!(stack.len() <= MAX_STACK_CHARS + 40);
        assert!(
            stack.ends_with(&format!("… {} more lines", 500 - MAX_STACK_LINES)),
            "{stack}"
        );
    }

    #[test]
    fn an_error_is_held_only_until_its_output_is_quiet() {
        let agent = BrowserAgent::builder().enabled(true).build();
        let mut lines = agent.server_output(ServerStream::Stdout);
        assert_eq!(lines.due(), None);
        assert!(lines.line(&agent, "Error: boom\n"));
        assert!(lines.line(&agent, "    at x (/app/x.js:1:1)\n"));
        let due = lines.due().expect("held");
        assert!(due <= Instant::now() + SERVER_ERROR_QUIET);
        assert!(!lines.flush_if_quiet(&agent), "not quiet yet");
        while Instant::now() < due {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(lines.flush_if_quiet(&agent));
        assert_eq!(agent.logs().len(), 1);
        assert!(!lines.line(&agent, "    at orphan-looking indentation of a later log line\n"));
        assert!(!lines.line(&agent, "ready in 12 ms\n"));
    }

    /// The proxy's own `500` line lands in the ring while the error is being printed: the error
    /// names it, and the pair counts as one error; the other way round, the 5xx names the error.
    #[test]
    fn a_5xx_and_the_error_that_caused_it_name_each_other() {
        let agent = BrowserAgent::builder().enabled(true).build();
        let mut lines = agent.server_output(ServerStream::Stderr);
        let started = Instant::now();
        lines.line(&agent, "TypeError: x is not a function\n");
        assert!(agent.record_response("GET", "/api/items", 500, started));
        lines.line(&agent, "    at handler (/app/server.js:9:3)\n");
        lines.flush(&agent);
        let q = crate::LogQuery::parse(Some("type=server")).unwrap();
        let entries = agent.logs().query(&q);
        assert_eq!(entries.len(), 2);
        let (answer, error) = (&entries[0], &entries[1]);
        assert_eq!(answer.field_str("source"), Some(source::RESPONSE));
        assert_eq!(error.field_str("answer"), Some(answer.text.as_str()));
        assert_eq!(error.fields[ANSWER_SEQ], answer.seq);
        assert!(error.t <= answer.t, "the error began first");
        let all: Vec<&LogEntry> = entries.iter().map(|e| &**e).collect();
        assert!(answer.counted_with_its_cause(&all) && !error.counted_with_its_cause(&all));

        // Stored first (a slow handler), then the 5xx: the answer names its cause.
        let started = Instant::now();
        lines.line(&agent, "KeyError: 'user'\n");
        lines.flush(&agent);
        assert!(agent.record_response("POST", "/api/login", 502, started));
        let entries = agent.logs().query(&q);
        let last = entries.last().unwrap();
        assert_eq!(last.field_str("cause"), Some("KeyError: 'user'"));
        assert!(last.counted_with_its_cause(&[]));
        // A 5xx with no error in its time stands alone.
        assert!(agent.record_response("GET", "/other", 503, Instant::now()));
        assert!(!agent.logs().query(&q).last().unwrap().counted_with_its_cause(&all));
    }

    #[test]
    fn stored_lines_are_plain_cut_and_counted() {
        let agent = BrowserAgent::builder().enabled(true).max_text(20).build();
        assert!(agent.server_log_line(
            "\u{1b}[31mTypeError: a very long message indeed\u{1b}[39m\r\n",
            ServerStream::Stdout
        ));
        let entries = agent
            .logs()
            .query(&crate::LogQuery::parse(Some("type=server")).unwrap());
        assert_eq!(entries.len(), 1);
        let e = &entries[0];
        assert_eq!(e.text, "TypeError: a very l…");
        assert_eq!((e.kind.as_str(), e.level), ("server", Level::Error));
        assert_eq!(e.field_str("pattern"), Some(r"\w+Error:"));
        assert!(e.approx_bytes > e.text.len());
        assert!(!agent.server_log_line("ready", ServerStream::Stdout));
        assert_eq!(agent.logs().len(), 1);
    }
}
