//! What we print: notices, and errors in red only when a terminal reads them.

use std::io::{IsTerminal, Write};

/// Where our own lines go: stderr always (stdout is the dev server's echo, or the stdio protocol).
#[derive(Debug, Clone, Copy)]
pub struct Term {
    color: bool,
}

impl Term {
    /// Colours when stderr is a terminal and `NO_COLOR` is unset.
    pub fn detect() -> Term {
        Term {
            color: std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    /// A notice: `browser-agent: …`.
    pub fn info(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        if self.color {
            let _ = writeln!(err, "\x1b[1mbrowser-agent:\x1b[0m {text}");
        } else {
            let _ = writeln!(err, "browser-agent: {text}");
        }
    }

    /// A plain indented line under a notice.
    pub fn detail(&self, text: &str) {
        let _ = writeln!(std::io::stderr().lock(), "  {text}");
    }

    /// An error: `browser-agent: error: …`, red on a terminal.
    pub fn error(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        if self.color {
            let _ = writeln!(err, "\x1b[1;31mbrowser-agent: error:\x1b[0m {text}");
        } else {
            let _ = writeln!(err, "browser-agent: error: {text}");
        }
    }
}
