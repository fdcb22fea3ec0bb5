//! [`Config`]: every limit and switch of the host, with the defaults the design names.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::ConfigError;
use crate::protocol;

/// Default number of log entries kept in memory.
pub(crate) const DEFAULT_MAX_LOGS: usize = 500;
/// Default byte budget of the in-memory log ring.
pub(crate) const DEFAULT_MAX_LOG_BYTES: usize = 4 * 1024 * 1024;
/// Default cut for an entry's `text`, in chars.
pub(crate) const DEFAULT_MAX_TEXT: usize = 800;
/// Default cut for any other string field of an entry (stacks, bodies, args), in chars.
pub(crate) const DEFAULT_MAX_FIELD: usize = 4000;
/// Cut for page URLs and titles, in chars.
pub(crate) const PAGE_MAX: usize = 300;
/// Default request body limit of our routes.
pub(crate) const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;
/// Default time within which the body of a request to our routes must have arrived (then 408).
pub(crate) const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Default number of page records kept.
pub(crate) const DEFAULT_MAX_CLIENTS: usize = 256;
// One command poll covers every page a default host keeps (the poll's own page and the others).
const _: () = assert!(crate::protocol::MAX_POLL_CLIENTS + 1 == DEFAULT_MAX_CLIENTS);
/// Default size at which the NDJSON sink rotates.
pub(crate) const DEFAULT_NDJSON_MAX_BYTES: u64 = 2 * 1024 * 1024;
/// Default folder of proof sessions, under the working directory.
pub(crate) const DEFAULT_PROOF_DIR: &str = ".browser-agent/proof";

/// The host's configuration. Build it with [`BrowserAgent::builder`](crate::BrowserAgent::builder).
///
/// ```
/// use browser_agent_core::BrowserAgent;
/// let agent = BrowserAgent::builder().enabled(true).max_logs(1000).build();
/// let config = agent.config();
/// assert_eq!((config.max_logs(), config.body_limit()), (1000, 1024 * 1024));
/// ```
#[derive(Debug, Clone)]
pub struct Config {
    pub(crate) enabled: bool,
    pub(crate) max_logs: usize,
    pub(crate) max_log_bytes: usize,
    pub(crate) max_text: usize,
    pub(crate) max_field: usize,
    pub(crate) client_ttl: Duration,
    pub(crate) body_limit: usize,
    pub(crate) body_timeout: Duration,
    pub(crate) max_clients: usize,
    pub(crate) prefix: String,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) mcp_origins: Vec<String>,
    pub(crate) frame_parents: Vec<String>,
    pub(crate) page_key: Option<String>,
    pub(crate) key_file: Option<PathBuf>,
    pub(crate) bearer_token: Option<String>,
    pub(crate) ndjson: Option<(PathBuf, u64)>,
    pub(crate) state_file: Option<PathBuf>,
    pub(crate) cursor: bool,
    pub(crate) app_url: Option<String>,
    pub(crate) redaction: crate::logs::Redaction,
    pub(crate) max_screenshots: usize,
    pub(crate) max_screenshot_bytes: usize,
    pub(crate) screenshot_upload_limit: usize,
    pub(crate) screenshot_dir: Option<PathBuf>,
    pub(crate) proof_dir: Option<PathBuf>,
    pub(crate) project_root: Option<PathBuf>,
    pub(crate) notes: bool,
    pub(crate) notes_shortcut: String,
    pub(crate) notes_parent_origin: Option<String>,
    pub(crate) max_notes: usize,
    pub(crate) snapshot_budget: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            enabled: cfg!(debug_assertions),
            max_logs: DEFAULT_MAX_LOGS,
            max_log_bytes: DEFAULT_MAX_LOG_BYTES,
            max_text: DEFAULT_MAX_TEXT,
            max_field: DEFAULT_MAX_FIELD,
            client_ttl: Duration::from_millis(protocol::CLIENT_TTL_MS),
            body_limit: DEFAULT_BODY_LIMIT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_clients: DEFAULT_MAX_CLIENTS,
            prefix: protocol::DEFAULT_PREFIX.to_owned(),
            allowed_hosts: Vec::new(),
            mcp_origins: Vec::new(),
            frame_parents: Vec::new(),
            page_key: None,
            key_file: None,
            bearer_token: None,
            ndjson: None,
            state_file: None,
            cursor: false,
            app_url: None,
            redaction: crate::logs::Redaction::default(),
            max_screenshots: crate::screenshots::DEFAULT_MAX_SCREENSHOTS,
            max_screenshot_bytes: crate::screenshots::DEFAULT_MAX_SCREENSHOT_BYTES,
            screenshot_upload_limit: crate::screenshots::DEFAULT_SCREENSHOT_UPLOAD_LIMIT,
            screenshot_dir: None,
            proof_dir: None,
            project_root: None,
            notes: true,
            notes_shortcut: protocol::notes::DEFAULT_KEY.to_owned(),
            notes_parent_origin: None,
            max_notes: protocol::notes::DEFAULT_MAX_NOTES,
            snapshot_budget: protocol::SNAPSHOT_BUDGET,
        }
    }
}

impl Config {
    /// Whether the agent is active (debug builds by default; release only when enabled).
    pub fn enabled(&self) -> bool {
        self.enabled
    }
    /// Route prefix, e.g. `/__mindstudio_dev__`.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
    /// Request body limit of our routes, in bytes.
    pub fn body_limit(&self) -> usize {
        self.body_limit
    }
    /// Largest screenshot upload accepted, in bytes (`POST {prefix}/screenshots`; every other
    /// route has [`body_limit`](Self::body_limit)).
    pub fn screenshot_upload_limit(&self) -> usize {
        self.screenshot_upload_limit
    }
    /// Time within which a request body to our routes must have arrived (then 408).
    pub fn body_timeout(&self) -> Duration {
        self.body_timeout
    }
    /// Number of log entries kept.
    pub fn max_logs(&self) -> usize {
        self.max_logs
    }
    /// Byte budget of the log ring (default 4 MiB).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert_eq!(agent.config().max_log_bytes(), 4 * 1024 * 1024);
    /// ```
    pub fn max_log_bytes(&self) -> usize {
        self.max_log_bytes
    }
    /// Cut for any other string field of an entry (stacks, bodies, args), in chars (default 4000).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert_eq!(agent.config().max_field(), 4000);
    /// ```
    pub fn max_field(&self) -> usize {
        self.max_field
    }
    /// Cut for an entry's text, in chars.
    pub fn max_text(&self) -> usize {
        self.max_text
    }
    /// Whether secrets in log entries are replaced with `[redacted]` before they are stored (on
    /// by default; see [`BrowserAgentBuilder::redact`](crate::BrowserAgentBuilder::redact)).
    pub fn redacts(&self) -> bool {
        self.redaction.on
    }
    /// Liveness TTL of a page.
    pub fn client_ttl(&self) -> Duration {
        self.client_ttl
    }
    /// Whether notes mode is available in pages (see [`BrowserAgentBuilder::notes`](crate::BrowserAgentBuilder::notes)).
    pub fn notes(&self) -> bool {
        self.notes
    }
    /// How many notes the host keeps.
    pub fn max_notes(&self) -> usize {
        self.max_notes
    }
    /// The pages' default snapshot budget, in tokens (see
    /// [`BrowserAgentBuilder::snapshot_budget`](crate::BrowserAgentBuilder::snapshot_budget)).
    pub fn snapshot_budget(&self) -> u32 {
        self.snapshot_budget
    }
    /// The folder proof sessions are written under: the one given to
    /// [`BrowserAgentBuilder::proof_dir`](crate::BrowserAgentBuilder::proof_dir), else
    /// `.browser-agent/proof` in the working directory.
    ///
    /// ```
    /// use browser_agent_core::BrowserAgent;
    /// let agent = BrowserAgent::builder().build();
    /// assert_eq!(agent.config().proof_dir(), std::path::Path::new(".browser-agent/proof"));
    /// let agent = BrowserAgent::builder().proof_dir("target/proof").build();
    /// assert_eq!(agent.config().proof_dir(), std::path::Path::new("target/proof"));
    /// ```
    pub fn proof_dir(&self) -> &Path {
        self.proof_dir.as_deref().unwrap_or(Path::new(DEFAULT_PROOF_DIR))
    }

    /// The folder the `upload` step reads paths under (docs/upload.md): the one given to
    /// [`BrowserAgentBuilder::project_root`](crate::BrowserAgentBuilder::project_root), else the
    /// working directory (`.`). A path that leads outside it, by `..` or a symlink, is refused.
    ///
    /// ```
    /// use browser_agent_core::BrowserAgent;
    /// let agent = BrowserAgent::builder().build();
    /// assert_eq!(agent.config().project_root(), std::path::Path::new("."));
    /// let agent = BrowserAgent::builder().project_root("web/app").build();
    /// assert_eq!(agent.config().project_root(), std::path::Path::new("web/app"));
    /// ```
    pub fn project_root(&self) -> &Path {
        self.project_root.as_deref().unwrap_or(Path::new("."))
    }

    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        let p = &self.prefix;
        let valid_chars = p
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'-' | b'.'));
        if !p.starts_with('/') || p.len() < 2 || p.ends_with('/') || !valid_chars || p.contains("//") {
            return Err(ConfigError::Prefix(p.clone()));
        }
        if p == "/browser" || p.starts_with(protocol::PROBE_SCOPE) {
            return Err(ConfigError::Prefix(p.clone()));
        }
        for (name, value) in [
            ("max_logs", self.max_logs),
            ("max_log_bytes", self.max_log_bytes),
            ("max_text", self.max_text),
            ("max_field", self.max_field),
            ("body_limit", self.body_limit),
            ("max_clients", self.max_clients),
            ("max_screenshots", self.max_screenshots),
            ("max_screenshot_bytes", self.max_screenshot_bytes),
            ("screenshot_upload_limit", self.screenshot_upload_limit),
            ("max_notes", self.max_notes),
        ] {
            if value == 0 {
                return Err(ConfigError::Zero(name));
            }
        }
        if self.allowed_hosts.iter().any(|h| h.trim().is_empty()) {
            return Err(ConfigError::EmptyHost);
        }
        if self.bearer_token.as_deref().is_some_and(|t| t.trim().is_empty()) {
            return Err(ConfigError::EmptyToken);
        }
        if self.snapshot_budget < protocol::SNAPSHOT_BUDGET_MIN {
            return Err(ConfigError::SnapshotBudget(self.snapshot_budget));
        }
        if self.body_timeout.is_zero() {
            return Err(ConfigError::Zero("body_timeout"));
        }
        if parse_shortcut(&self.notes_shortcut).is_none() {
            return Err(ConfigError::Shortcut(self.notes_shortcut.clone()));
        }
        if let Some(origin) = &self.notes_parent_origin {
            let host = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            let valid = host.is_some_and(|h| !h.is_empty() && !h.contains(['/', '?', '#', ' ']));
            if !valid {
                return Err(ConfigError::Origin(origin.clone()));
            }
        }
        if let Some(key) = &self.page_key {
            if key.len() < 8 || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
                return Err(ConfigError::PageKey);
            }
        }
        Ok(())
    }
}

/// Reads a shortcut such as `Alt+Shift+N`, `ctrl+alt+m`, `Meta+Period`, `F2` into the form the
/// page compares key presses with (modifiers `Control+Alt+Shift+Meta` in that order, then the
/// key's `KeyboardEvent.code`: `Alt+Shift+KeyN`). A letter or digit needs a modifier (it would
/// take the key from every text field otherwise); `None` when it cannot be read.
pub(crate) fn parse_shortcut(s: &str) -> Option<String> {
    const MODS: [(&str, &[&str]); 4] = [
        ("Control", &["control", "ctrl"]),
        ("Alt", &["alt", "option", "opt"]),
        ("Shift", &["shift"]),
        ("Meta", &["meta", "cmd", "command", "super", "win"]),
    ];
    let mut mods = [false; 4];
    let mut code = None;
    for part in s.split('+').map(str::trim) {
        let lower = part.to_ascii_lowercase();
        if let Some(i) = MODS.iter().position(|(_, names)| names.contains(&lower.as_str())) {
            mods[i] = true;
            continue;
        }
        if code.is_some() || part.is_empty() {
            return None;
        }
        let bytes = part.as_bytes();
        code = Some(if bytes.len() == 1 && bytes[0].is_ascii_alphabetic() {
            format!("Key{}", part.to_ascii_uppercase())
        } else if bytes.len() == 1 && bytes[0].is_ascii_digit() {
            format!("Digit{part}")
        } else if lower.starts_with('f') && lower[1..].parse::<u8>().is_ok_and(|n| (1..=24).contains(&n)) {
            part.to_ascii_uppercase()
        } else if lower.starts_with("key") && part.len() == 4 && bytes[3].is_ascii_alphabetic() {
            format!("Key{}", part[3..].to_ascii_uppercase())
        } else {
            const NAMED: [&str; 12] = [
                "Period",
                "Comma",
                "Slash",
                "Backslash",
                "Semicolon",
                "Quote",
                "Backquote",
                "Minus",
                "Equal",
                "BracketLeft",
                "BracketRight",
                "Space",
            ];
            NAMED.iter().find(|n| n.eq_ignore_ascii_case(part))?.to_string()
        });
    }
    let code = code?;
    let function_key = code.starts_with('F');
    if !function_key && !mods.iter().any(|m| *m) {
        return None;
    }
    let mut out: Vec<&str> = MODS
        .iter()
        .zip(mods)
        .filter(|(_, on)| *on)
        .map(|((name, _), _)| *name)
        .collect();
    out.push(&code);
    Some(out.join("+"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortcuts() {
        assert_eq!(
            parse_shortcut("Control+Meta+Slash").as_deref(),
            Some("Control+Meta+Slash")
        );
        assert_eq!(parse_shortcut("alt+n+m"), None);
        assert_eq!(parse_shortcut(""), None);
        assert_eq!(parse_shortcut("Alt+Unknown"), None);
        assert_eq!(parse_shortcut("Alt+KeyQ").as_deref(), Some("Alt+KeyQ"));
    }
}
