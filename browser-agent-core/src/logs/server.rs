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
        let entry = self.server_entry(
            Level::Error,
            source::RESPONSE,
            &text,
            [
                ("method", Value::from(method)),
                ("url", Value::from(path)),
                ("status", Value::from(status)),
                ("duration", Value::from(ms)),
            ],
        );
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
