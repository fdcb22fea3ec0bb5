//! The log level of an entry.

use serde::{Deserialize, Serialize};

/// Log level. The names of both clients (MindStudio's, dsh-agent-browser's) are accepted (`log` is MindStudio's console level).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// `console.debug`.
    Debug,
    /// `console.log`.
    Log,
    /// `console.info` and everything without a level.
    #[default]
    Info,
    /// `console.warn`, HTTP 4xx.
    Warn,
    /// `console.error`, uncaught errors, rejections, failed requests, HTTP 5xx.
    Error,
}

impl Level {
    /// Parses a level name (ASCII case-insensitive); unknown names give `None`.
    pub fn parse(s: &str) -> Option<Level> {
        let s = s.trim();
        [
            ("debug", Level::Debug),
            ("log", Level::Log),
            ("info", Level::Info),
            ("warn", Level::Warn),
            ("warning", Level::Warn),
            ("error", Level::Error),
        ]
        .into_iter()
        .find(|(name, _)| s.eq_ignore_ascii_case(name))
        .map(|(_, level)| level)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Log => "log",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}
