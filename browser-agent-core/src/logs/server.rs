//! `server` entries: a dev server's output lines that look like errors, in the languages web
//! dev servers are written in. The patterns are data ([`SERVER_ERROR_PATTERNS`], ProofShot's
//! `error-patterns.ts`); [`BrowserAgent::server_log_line`] stores a matching line in the ring.

use std::sync::OnceLock;

use regex_lite::Regex;
use serde_json::Value;

use super::LogEntry;
use crate::protocol::{entry_type, Level};
use crate::{util, BrowserAgent};

/// Which of the dev server's streams a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerStream {
    /// Its standard output.
    Stdout,
    /// Its standard error.
    Stderr,
}

impl ServerStream {
    /// `stdout` or `stderr`, as the entry's `stream` field says.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerStream::Stdout => "stdout",
            ServerStream::Stderr => "stderr",
        }
    }
}

/// The error patterns, as (language, regular expression), in the order they are tried. A line
/// (trimmed, colour codes removed) is an error when any pattern matches it. They are
/// case-sensitive on purpose ("0 errors found" is no error), except the two marked `(?i)`.
pub const SERVER_ERROR_PATTERNS: &[(&str, &str)] = &[
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
    ("go", r"^panic:"),
    ("go", r"^goroutine \d+"),
    ("go", r"runtime error:"),
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
///
/// ```
/// use browser_agent_core::server_error_pattern;
/// assert_eq!(server_error_pattern("Error: Cannot find module 'x'"), Some(("javascript", r"\bError:")));
/// assert!(server_error_pattern("    at handler (/app/server.js:10:5)").is_some());
/// assert_eq!(server_error_pattern("thread 'main' panicked at src/main.rs:2:5").unwrap().0, "rust");
/// assert_eq!(server_error_pattern("\u{1b}[31mpanic: boom\u{1b}[0m").unwrap().0, "go");
/// assert_eq!(server_error_pattern("Found 0 errors. Watching for file changes."), None);
/// assert_eq!(server_error_pattern("  VITE v8.3.8  ready in 312 ms"), None);
/// ```
pub fn server_error_pattern(line: &str) -> Option<(&'static str, &'static str)> {
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

impl BrowserAgent {
    /// Feeds one line of the dev server's output: a line that matches an error pattern
    /// ([`SERVER_ERROR_PATTERNS`]) is stored as a `server` entry at level `error`, with its
    /// `stream` and the matching `pattern`; returns whether it was stored. Read them with
    /// `GET {prefix}/console?type=server`.
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, LogQuery, ServerStream};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// assert!(!agent.server_log_line("  ➜  Local:   http://localhost:5173/", ServerStream::Stdout));
    /// assert!(agent.server_log_line("Error: listen EADDRINUSE: address already in use :::5173", ServerStream::Stderr));
    /// let q = LogQuery::parse(Some("type=server")).unwrap();
    /// let entry = &agent.logs().query(&q)[0];
    /// assert_eq!(entry.text, "Error: listen EADDRINUSE: address already in use :::5173");
    /// assert_eq!(entry.field_str("stream"), Some("stderr"));
    /// ```
    pub fn server_log_line(&self, line: &str, stream: ServerStream) -> bool {
        let Some((_, pattern)) = server_error_pattern(line) else {
            return false;
        };
        let mut text = plain(line);
        util::truncate_marked(&mut text, self.inner.config.max_text);
        let mut entry = LogEntry::new(entry_type::SERVER, Level::Error, text, util::now_ms());
        entry.fields.insert("stream".into(), Value::from(stream.as_str()));
        entry.fields.insert("pattern".into(), Value::from(pattern));
        let field_bytes = "stream".len() + stream.as_str().len() + "pattern".len() + pattern.len();
        entry.approx_bytes = LogEntry::size(&entry.text, "", "", entry_type::SERVER, field_bytes);
        self.store(vec![entry]) == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
