//! `agent.proof()`: proof sessions through the Rust API.

use crate::proof::{Comparison, ProofError, ProofOptions, ProofReport, ProofStatus};
use crate::BrowserAgent;

/// Proof sessions: between [`start`](Self::start) and [`stop`](Self::stop) every batch is recorded
/// (each step, a screenshot after each acting step, the logs meanwhile); `stop` writes a folder a
/// reviewer opens (`viewer.html`, `SUMMARY.md`, the images, the logs). From [`BrowserAgent::proof`].
///
/// ```
/// use browser_agent_core::{BrowserAgent, ProofOptions};
/// let dir = std::env::temp_dir().join(format!("ba-proof-doc-{}", std::process::id()));
/// let agent = BrowserAgent::builder().enabled(true).proof_dir(&dir).build();
/// let started = agent.proof().start(ProofOptions::new("login works")).unwrap();
/// assert!(started.dir.contains("_login-works"));
/// assert!(agent.proof().start(ProofOptions::new("again")).is_err()); // one at a time
/// let report = agent.proof().stop().unwrap();
/// assert!(std::path::Path::new(&report.summary).is_file());
/// # std::fs::remove_dir_all(dir).unwrap();
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Proof<'a> {
    agent: &'a BrowserAgent,
}

impl BrowserAgent {
    /// Proof sessions: [`start`](Proof::start), [`stop`](Proof::stop), [`status`](Proof::status),
    /// [`summary`](Proof::summary), [`compare`](Proof::compare).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.proof().status().is_none());
    /// ```
    pub fn proof(&self) -> Proof<'_> {
        Proof { agent: self }
    }
}

impl Proof<'_> {
    /// Starts a session: every batch from now on is recorded until [`stop`](Self::stop). Refused
    /// while one is open, unless [`ProofOptions::force`]; refused when the folder cannot be written.
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, ProofError, ProofOptions};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let err = agent.proof().start(ProofOptions::new("login").dir("../outside")).unwrap_err();
    /// assert!(matches!(err, ProofError::BadRequest(_)));
    /// ```
    pub fn start(&self, options: ProofOptions) -> Result<ProofStatus, ProofError> {
        self.agent.proof_start(options)
    }

    /// The open session, if any.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.proof().status().is_none());
    /// ```
    pub fn status(&self) -> Option<ProofStatus> {
        self.agent.proof_status()
    }

    /// Stops the open session and writes its folder.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.proof().stop().is_err()); // nothing to stop
    /// ```
    pub fn stop(&self) -> Result<ProofReport, ProofError> {
        self.agent.proof_stop()
    }

    /// The `SUMMARY.md` of a stopped session (its id, or its folder), for pasting into a PR.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.proof().summary("p9").is_err());
    /// ```
    pub fn summary(&self, id: &str) -> Result<String, ProofError> {
        self.agent.proof_summary(id)
    }

    /// Compares two stopped sessions (ids or folders): `b`'s folder gets `diff-NN.png` per step
    /// both have a PNG screenshot for, and its viewer shows them (key `d`).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.proof().compare("p1", "p2").is_err()); // no such sessions
    /// ```
    pub fn compare(&self, a: &str, b: &str) -> Result<Comparison, ProofError> {
        self.agent.proof_compare(a, b)
    }
}
