//! Proof sessions (ProofShot's job, from inside the dev server): between `start` and `stop`, every
//! batch is recorded with no extra call from the agent (each step, its target, a screenshot after
//! each acting step, the logs meanwhile); `stop` writes a folder a reviewer opens in a PR:
//! `session-log.json`, `step-NN.png`, `console.log`, `server.log`, `viewer.html`, `SUMMARY.md`.
//!
//! - [`record`]: how a batch is instrumented (screenshot steps added) and its answer split again;
//! - [`artifacts`]: the files, written under a temporary name and renamed when all are there;
//! - [`compare`]: two sessions' screenshots side by side, per-step difference images;
//! - [`session`]: a session's course on the agent: start, status, stop, summary, stopped sessions' folders.

mod artifacts;
mod compare;
pub(crate) mod record;
mod session;

pub use compare::{Comparison, StepDiff};

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use serde::Serialize;
use serde_json::Value;

use crate::logs::LogEntry;

/// At most this many steps are recorded per session (later ones are counted, not kept).
pub(crate) const MAX_RECORDED_STEPS: usize = 500;
/// At most this many log entries are kept per session.
pub(crate) const MAX_SESSION_LOGS: usize = 5_000;

/// Which steps get a screenshot after them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ShotMode {
    /// After each acting step (click, type, select, press, navigate, scroll, …): the default.
    Actions,
    /// After every step.
    All,
    /// None.
    None,
}

impl ShotMode {
    fn parse(s: &str) -> Option<ShotMode> {
        match s {
            "actions" => Some(ShotMode::Actions),
            "all" => Some(ShotMode::All),
            "none" => Some(ShotMode::None),
            _ => None,
        }
    }
}

/// Why a proof call was refused; the text says what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProofError {
    /// A session is open and `force` was not given.
    #[error("a proof session is already running: {id} ({description:?}, since {started}); stop it with POST /proof/stop, or start with \"force\": true to replace it")]
    Running {
        /// The open session's id.
        id: String,
        /// Its description.
        description: String,
        /// When it started (RFC 3339).
        started: String,
    },
    /// `stop` without a session.
    #[error("no proof session is running; start one with POST /proof/start {{\"description\": \"…\"}}")]
    NotRunning,
    /// A field of the request is missing or wrong.
    #[error("{0}")]
    BadRequest(String),
    /// The folder cannot be written.
    #[error("cannot write the proof folder {dir}: {why}")]
    Unwritable {
        /// The folder.
        dir: String,
        /// The operating system's reason.
        why: String,
    },
    /// No session with that id (or folder) is known.
    #[error(
        "no proof session {0:?}: only sessions this host stopped, or folders holding a session-log.json, can be read"
    )]
    Unknown(String),
}

impl ProofError {
    /// The HTTP status of the answer.
    pub fn status(&self) -> http::StatusCode {
        use http::StatusCode as S;
        match self {
            ProofError::Running { .. } | ProofError::NotRunning => S::CONFLICT,
            ProofError::BadRequest(_) => S::BAD_REQUEST,
            ProofError::Unwritable { .. } => S::INTERNAL_SERVER_ERROR,
            ProofError::Unknown(_) => S::NOT_FOUND,
        }
    }
}

/// What [`Proof::start`](crate::Proof::start) takes (the JSON body of `POST {prefix}/proof/start`).
///
/// ```
/// use browser_agent_core::{ProofOptions, ShotMode};
/// let options = ProofOptions::new("the login flow works")
///     .dir("proofs/login")
///     .screenshots(ShotMode::All)
///     .force(true);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
#[must_use]
pub struct ProofOptions {
    /// What the agent is about to prove ("verify the login flow").
    pub(crate) description: String,
    /// The session folder, relative to the proof folder's parent (the project); default
    /// `.browser-agent/proof/<YYYY-MM-DD_HH-MM-SS>[_<slug>]`.
    pub(crate) dir: Option<String>,
    /// Which steps get a screenshot after them (default: acting steps).
    pub(crate) screenshots: Option<ShotMode>,
    /// Replace a running session (it is stopped and written first).
    pub(crate) force: bool,
}

impl ProofOptions {
    /// A session proving `description` ("the login flow works"), in a folder named after it and
    /// the time, with a screenshot after each acting step.
    ///
    /// ```
    /// let options = browser_agent_core::ProofOptions::new("the login flow works");
    /// # let _ = options;
    /// ```
    pub fn new(description: impl Into<String>) -> Self {
        ProofOptions {
            description: description.into(),
            ..Default::default()
        }
    }

    /// The session folder, relative to the proof folder's parent (the project), without `..`;
    /// default `.browser-agent/proof/<YYYY-MM-DD_HH-MM-SS>[_<slug>]`.
    ///
    /// ```
    /// let options = browser_agent_core::ProofOptions::new("login").dir("proofs/login");
    /// # let _ = options;
    /// ```
    pub fn dir(mut self, dir: impl Into<String>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// Which steps get a screenshot after them (default: [`ShotMode::Actions`]).
    ///
    /// ```
    /// use browser_agent_core::{ProofOptions, ShotMode};
    /// let options = ProofOptions::new("login").screenshots(ShotMode::None);
    /// # let _ = options;
    /// ```
    pub fn screenshots(mut self, mode: ShotMode) -> Self {
        self.screenshots = Some(mode);
        self
    }

    /// Replace a running session (it is stopped and written first) instead of refusing.
    ///
    /// ```
    /// let options = browser_agent_core::ProofOptions::new("login").force(true);
    /// # let _ = options;
    /// ```
    pub fn force(mut self, on: bool) -> Self {
        self.force = on;
        self
    }

    /// Reads `{"description", "dir"?, "screenshots"?, "force"?}`.
    pub(crate) fn from_json(v: &Value) -> Result<ProofOptions, ProofError> {
        let bad = |m: &str| ProofError::BadRequest(m.to_owned());
        let obj = v.as_object().ok_or_else(|| {
            bad("body must be a JSON object {\"description\": \"…\", \"dir\"?, \"screenshots\"?, \"force\"?}")
        })?;
        // A field it does not take is refused, not ignored (`"screenshot": "all"` would record
        // with the default).
        let takes = ["description", "dir", "screenshots", "force"];
        if let Some(other) = obj.keys().find(|k| !takes.contains(&k.as_str())) {
            return Err(ProofError::BadRequest(format!(
                "a proof start takes \"description\", \"dir\", \"screenshots\" and \"force\"; not {other:?}"
            )));
        }
        let text = |name: &str| match obj.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(ProofError::BadRequest(format!("field \"{name}\" must be a string"))),
        };
        let description = text("description")?.unwrap_or_default();
        if description.trim().is_empty() {
            return Err(bad(
                "field \"description\" is required: what you are about to verify (\"the login flow works\")",
            ));
        }
        if description.chars().count() > 2_000 {
            return Err(bad("field \"description\" is longer than 2000 characters"));
        }
        let screenshots = match text("screenshots")? {
            None => None,
            Some(s) => Some(ShotMode::parse(&s).ok_or_else(|| {
                ProofError::BadRequest(format!(
                    "invalid screenshots {s:?}: use \"actions\" (the default), \"all\" or \"none\""
                ))
            })?),
        };
        let force = match obj.get("force") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(bad("field \"force\" must be true or false")),
        };
        Ok(ProofOptions {
            description,
            dir: text("dir")?,
            screenshots,
            force,
        })
    }
}

/// The open session, as `GET {prefix}/proof` shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[non_exhaustive]
pub struct ProofStatus {
    /// Its id.
    pub id: String,
    /// Its description.
    pub description: String,
    /// Where `stop` writes it.
    pub dir: String,
    /// When it started (RFC 3339).
    pub started: String,
    /// Steps recorded so far.
    pub steps: usize,
    /// Screenshots recorded so far.
    pub screenshots: usize,
    /// Which steps get a screenshot.
    #[serde(rename = "screenshotMode")]
    pub mode: ShotMode,
}

/// What `stop` wrote.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[non_exhaustive]
pub struct ProofReport {
    /// The session's id.
    pub id: String,
    /// The folder.
    pub dir: String,
    /// `dir/viewer.html`.
    pub viewer: String,
    /// `dir/SUMMARY.md`.
    pub summary: String,
    /// How many of each: steps, screenshots, console errors, server errors, faults.
    pub counts: Counts,
}

/// The counts of a report.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counts {
    /// Recorded steps.
    pub steps: usize,
    /// Recorded screenshots.
    pub screenshots: usize,
    /// Browser errors (uncaught errors, rejections, `console.error`, failed requests).
    #[serde(rename = "consoleErrors")]
    pub console_errors: usize,
    /// Server errors (`server` entries: 5xx answers, panics, the dev server's errors), each error
    /// once: a stack trace is one entry, and a 5xx paired with the error that caused it counts
    /// with that error.
    #[serde(rename = "serverErrors")]
    pub server_errors: usize,
    /// What went wrong in the session itself (a screenshot that failed, a page that left).
    pub faults: usize,
}

/// One recorded step.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    /// The step's index in the agent's batch.
    pub(crate) index: usize,
    pub(crate) command: String,
    pub(crate) step: Value,
    pub(crate) t: u64,
    pub(crate) result: Option<Value>,
    pub(crate) error: Option<String>,
    pub(crate) matched: Option<String>,
    pub(crate) target: Option<Value>,
    pub(crate) viewport: Option<Value>,
    pub(crate) shot: Option<(crate::protocol::screenshot::Format, Bytes)>,
    pub(crate) shot_error: Option<String>,
}

/// The open session.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) id: String,
    pub(crate) description: String,
    pub(crate) dir: PathBuf,
    pub(crate) mode: ShotMode,
    pub(crate) started: u64,
    pub(crate) steps: Vec<Recorded>,
    pub(crate) dropped_steps: usize,
    pub(crate) faults: Vec<String>,
    pub(crate) logs: Vec<Arc<LogEntry>>,
    pub(crate) last_seq: u64,
}

/// Sessions: the open one, and the folders of the stopped ones (for `summary` and `compare`).
#[derive(Debug, Default)]
pub(crate) struct Proofs {
    pub(crate) open: parking_lot::Mutex<Option<Session>>,
    pub(crate) done: parking_lot::Mutex<Vec<(String, PathBuf)>>,
    pub(crate) next: std::sync::atomic::AtomicU64,
}

/// `YYYY-MM-DD_HH-MM-SS` (UTC) of epoch ms.
fn stamp(ms: u64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02}_{:02}-{:02}-{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// RFC 3339 of epoch ms.
pub(crate) fn rfc3339(ms: u64) -> String {
    // Always three digits of milliseconds, as JavaScript's `toISOString()` (ProofShot's) writes
    // them: times line up in a column, and `.1Z` is not read as 1 ms.
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .map(|t| {
            format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                t.year(),
                u8::from(t.month()),
                t.day(),
                t.hour(),
                t.minute(),
                t.second(),
                t.millisecond()
            )
        })
        .unwrap_or_default()
}

/// ProofShot's slug: lower case, runs of other characters as `-`, at most 40 characters.
fn slug(description: &str) -> String {
    let mut out = String::new();
    for c in description.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_matches('-').chars().take(40).collect();
    out.trim_end_matches('-').to_owned()
}

/// A folder the request names: relative, no `..`, no root (so it stays inside the project).
fn relative_dir(dir: &str) -> Result<PathBuf, ProofError> {
    let path = Path::new(dir);
    let inside = !dir.is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        return Err(ProofError::BadRequest(format!(
            "invalid dir {dir:?}: give a relative folder without \"..\" (sessions stay inside the project; BrowserAgent::builder().proof_dir(…) moves them)"
        )));
    }
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BrowserAgent;

    #[test]
    fn slugs_and_stamps_as_proofshot_makes_them() {
        assert_eq!(slug("Verify the LOGIN flow!"), "verify-the-login-flow");
        assert_eq!(slug("   "), "");
        assert_eq!(slug(&"a b ".repeat(30)).len(), 39);
        assert_eq!(stamp(0), "1970-01-01_00-00-00");
    }

    #[test]
    fn an_unwritable_folder_is_refused_at_start_and_nothing_opens() {
        // A folder under a regular file cannot be created, whoever runs the test.
        let file = std::env::temp_dir().join(format!("ba-proof-file-{}", crate::util::random_hex(4)));
        std::fs::write(&file, b"").unwrap();
        let agent = BrowserAgent::builder()
            .enabled(true)
            .proof_dir(file.join("proof"))
            .build();
        let options = ProofOptions {
            description: "x".into(),
            ..Default::default()
        };
        let err = agent.proof_start(options).unwrap_err();
        assert!(matches!(err, ProofError::Unwritable { .. }), "{err}");
        assert!(err.to_string().starts_with("cannot write the proof folder"), "{err}");
        assert!(agent.proof_status().is_none());
        std::fs::remove_file(file).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_does_not_lead_a_session_out() {
        let base = std::env::temp_dir().join(format!("ba-proof-link-{}", crate::util::random_hex(6)));
        let outside = base.join("outside");
        let project = base.join("project");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(project.join(".browser-agent")).unwrap();
        std::os::unix::fs::symlink(&outside, project.join(".browser-agent/linkout")).unwrap();
        let agent = BrowserAgent::builder()
            .enabled(true)
            .proof_dir(project.join(".browser-agent/proof"))
            .build();
        let options = |dir: &str| ProofOptions {
            description: "x".into(),
            dir: Some(dir.into()),
            ..Default::default()
        };
        let err = agent.proof_start(options("linkout/a/p")).unwrap_err();
        assert!(
            err.to_string().contains("outside the project through a symbolic link"),
            "{err}"
        );
        assert!(
            std::fs::read_dir(&outside).unwrap().next().is_none(),
            "nothing written there"
        );
        assert!(agent.proof_start(options("inside/p")).is_ok());
        let first = agent.proof_stop().unwrap();
        // A folder already there: the start answers the one stop writes (QA8).
        let again = agent.proof_start(options("inside/p")).unwrap();
        assert!(again.dir.ends_with("inside/p-2"), "{}", again.dir);
        let second = agent.proof_stop().unwrap();
        assert_eq!((first.dir.ends_with("inside/p"), second.dir), (true, again.dir));
        std::fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn dirs_stay_inside_the_project() {
        assert!(relative_dir("proof/today").is_ok());
        for bad in ["/tmp/x", "../x", "a/../../b", ""] {
            assert!(relative_dir(bad).is_err(), "{bad}");
        }
    }
}
