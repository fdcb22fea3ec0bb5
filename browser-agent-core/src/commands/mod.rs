//! The command channel: the agent's batches wait in a FIFO per page, a page runs one batch at a
//! time, a batch that times out is removed and never runs later, and results find their caller.
//! Here: the public types; [`queue`] holds the per-page queues, [`ending`] how a batch ends
//! early or times out, [`complete`] what a page's answer does, [`validate`] the batch checks,
//! [`stack`] a failed `evaluate`'s stack as the agent wrote the script.

mod complete;
mod ending;
pub(crate) mod history;
pub(crate) mod network;
mod queue;
mod stack;
#[cfg(test)]
mod tests;
pub(crate) mod upload;
mod validate;

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::dialogs::{DialogPolicy, DialogRecord};
use crate::protocol::{field, CommandError, StepResult};
use crate::snapshot;

pub(crate) use queue::CommandQueue;
pub(crate) use stack::tidy_evaluate_errors;
pub(crate) use validate::{validate_steps, waits_fit};

/// Default time a batch may take, queueing included.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The refusal of a batch without steps (from the agent's request, or from Rust).
const NO_STEPS: &str = "browser action requires a non-empty \"steps\" array";
/// Most steps in one batch.
pub(crate) const MAX_STEPS: usize = 100;
/// Most batches waiting for one page.
pub(crate) const MAX_QUEUED: usize = 16;
/// Executed steps kept per page in its action log.
pub(crate) const MAX_ACTIONS: usize = 200;
/// Pages whose command state (queue, action log, snapshot baseline) is kept: past it, the least
/// recently used idle page's is freed (as many as the default registry keeps page records).
pub(crate) const MAX_PAGES: usize = crate::config::DEFAULT_MAX_CLIENTS;
/// Bytes of snapshot baselines (the last snapshot of each page, for `diff`) kept in all: past it,
/// the least recently used pages' baselines are freed (their next `diff` is a full snapshot).
pub(crate) const MAX_BASELINE_BYTES: usize = 8 * 1024 * 1024;
/// Bytes of action logs kept in all: past it, the least recently used pages' logs are dropped.
pub(crate) const MAX_ACTION_BYTES: usize = 2 * 1024 * 1024;
/// How long the command state of a page that left (its `gone` beacon) or stopped talking (past the
/// TTL) is kept: its action log stays readable (`GET /actions?client=` of a page that just
/// navigated) for this long, then it is freed.
pub(crate) const LEFT_PAGE_GRACE: Duration = Duration::from_secs(30);
/// How long a batch whose page said it left while running it (the `gone` beacon) waits for that
/// page's results or handover, which the page sends in the same `pagehide` and may arrive just after.
pub(crate) const GONE_GRACE: Duration = Duration::from_secs(3);
/// How long a handed-over batch waits for the next page of its tab to take it
/// ([`HANDOVER_WAIT_MS`](crate::protocol::HANDOVER_WAIT_MS)).
pub(crate) const HANDOVER_WAIT: Duration = Duration::from_millis(crate::protocol::HANDOVER_WAIT_MS);

/// A batch of steps for a page.
///
/// ```
/// use browser_agent_core::Batch;
/// let batch = Batch::new(vec![serde_json::json!({"command": "snapshot"})]).client("c1");
/// assert_eq!(batch.steps.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Batch {
    /// The steps, run in order; the first failing step ends the batch.
    pub steps: Vec<Value>,
    /// The page to run on (default: the most recently active visible page).
    pub client: Option<String>,
    /// How long to wait for the answer, queueing included (default 30 s).
    pub timeout: Duration,
}

impl Batch {
    /// A batch for the default page with the default timeout.
    pub fn new(steps: Vec<Value>) -> Self {
        Batch {
            steps,
            client: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Runs on this page.
    pub fn client(mut self, client: impl Into<String>) -> Self {
        self.client = Some(client.into());
        self
    }

    /// With this timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Parses the agent's request `{"steps":[…],"client"?,"timeoutMs"?}` (the body of
    /// `POST {prefix}/run`, and a stdio `{"action":"browser",…}` line); the error says what is wrong.
    ///
    /// ```
    /// use browser_agent_core::Batch;
    /// let batch = Batch::from_json(br#"{"steps":[{"command":"snapshot"}],"timeoutMs":5000}"#).unwrap();
    /// assert_eq!(batch.timeout.as_millis(), 5000);
    /// assert!(Batch::from_json(br#"{"steps":[]}"#).is_err());
    /// let e = Batch::from_json(br#"{"steps":[{"command":"snapshot"}],"clientId":"c1"}"#).unwrap_err();
    /// assert!(e.to_string().contains(r#"not "clientId"; the page is "client""#), "{e}");
    /// ```
    pub fn from_json(body: &[u8]) -> Result<Batch, RunError> {
        let value: Value =
            serde_json::from_slice(body).map_err(|e| RunError::BadRequest(format!("body is not valid JSON: {e}")))?;
        Batch::from_value(&value)
    }

    /// [`from_json`](Self::from_json) of a request already parsed (an MCP call's arguments, a
    /// stdio line without its `action`).
    ///
    /// ```
    /// use browser_agent_core::Batch;
    /// let batch = Batch::from_value(&serde_json::json!({"steps": [{"command": "snapshot"}]})).unwrap();
    /// assert_eq!(batch.steps.len(), 1);
    /// ```
    pub fn from_value(value: &Value) -> Result<Batch, RunError> {
        let bad = |m: String| RunError::BadRequest(m);
        let obj = value
            .as_object()
            .ok_or_else(|| bad("body must be a JSON object {\"steps\":[…]}".into()))?;
        // A field it does not take is refused, not ignored: `clientId` (the name every answer
        // uses) would otherwise run the batch on another page.
        let known = [
            field::STEPS,
            crate::protocol::param::CLIENT,
            field::TIMEOUT_MS,
            crate::protocol::dialogs::DIALOG,
            crate::protocol::dialogs::PROMPT_TEXT,
        ];
        if let Some(other) = obj.keys().find(|k| !known.contains(&k.as_str())) {
            let hint = match other.as_str() {
                "clientId" | "client_id" | "page" => "; the page is \"client\" (a client id from GET /page)",
                "timeout" | "timeout_ms" => "; the batch's time limit is \"timeoutMs\"",
                "dialogs" | "onDialog" | "prompt" => {
                    "; native dialogs are answered by \"dialog\" (accept or dismiss) and \"promptText\""
                }
                _ => "",
            };
            return Err(bad(format!(
                "a batch takes \"steps\", \"client\", \"timeoutMs\", \"dialog\" and \"promptText\"; not {other:?}{hint}"
            )));
        }
        // The dialog policy is checked before the steps: its 400 names the batch's field.
        let policy = crate::dialogs::DialogPolicy::from_request(obj).map_err(RunError::BadRequest)?;
        // Refused here too (with `validate_steps`'s text), before the other fields are checked.
        let steps = match obj.get(field::STEPS) {
            Some(Value::Array(steps)) if !steps.is_empty() => steps.clone(),
            _ => return Err(bad(NO_STEPS.into())),
        };
        let mut batch = Batch::new(steps);
        match obj.get(crate::protocol::param::CLIENT) {
            None | Some(Value::Null) => {}
            Some(Value::String(c)) => batch.client = Some(c.clone()),
            Some(_) => {
                return Err(bad(
                    "field \"client\" must be a string (a client id from GET /page)".into()
                ))
            }
        }
        match obj.get(field::TIMEOUT_MS) {
            None | Some(Value::Null) => {}
            Some(v) => match v.as_u64() {
                Some(ms) if (100..=300_000).contains(&ms) => batch.timeout = Duration::from_millis(ms),
                _ => {
                    return Err(bad(
                        "field \"timeoutMs\" must be a number of milliseconds between 100 and 300000".into(),
                    ))
                }
            },
        }
        Ok(match policy {
            Some(policy) => batch.dialogs(policy),
            None => batch,
        })
    }
}

impl Batch {
    /// Answers the native dialogs of the steps it holds by `policy` (each step that sets no
    /// `dialog` or `promptText` of its own gets it). See [`DialogPolicy`] for an example.
    pub fn dialogs(mut self, policy: DialogPolicy) -> Self {
        policy.apply(&mut self.steps);
        self
    }
}

/// What a page answered: the MindStudio `browser-completed` event plus the page it ran on.
/// Serialized, it is the answer of `POST {prefix}/run` and of a stdio request.
///
/// ```
/// use browser_agent_core::{BatchResult, BrowserAgent};
/// # async fn show(agent: BrowserAgent) -> Result<(), browser_agent_core::RunError> {
/// let result: BatchResult = agent.snapshot(browser_agent_core::SnapshotOptions::new()).await?;
/// println!("{} ran on {}: {}", result.steps.len(), result.client_id, result.snapshot);
/// for node in result.tree() {
///     println!("{} {:?}", node.role, node.name);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct BatchResult {
    /// Always `browser-completed`.
    pub event: &'static str,
    /// The page that ran it.
    #[serde(rename = "clientId")]
    pub client_id: String,
    /// One result per executed step: `{index, command, result | error, …}`.
    pub steps: Vec<StepResult>,
    /// The snapshot after the batch: full the first time, then what changed (see [`snapshot::diff`]).
    pub snapshot: String,
    /// What the page logged while the batch ran: the stored entries, as `GET /console` shows them
    /// (host `seq`, `clientSeq`, `t`, `clientId`, `type`, `level`, `page`, `text`, the type's fields).
    pub logs: Vec<Value>,
    /// How long the page took, in milliseconds.
    pub duration: u64,
    /// Set when a step failed (its message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The native dialogs answered: those the batch's steps met (by its `dialog` policy), then
    /// those pages answered on their own while no batch ran and no answer has reported yet.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dialogs: Vec<DialogRecord>,
    /// The full snapshot text after the batch (not serialized: `snapshot` carries what the agent reads).
    #[serde(skip)]
    pub full_snapshot: String,
}

impl BatchResult {
    /// The final snapshot as a typed tree.
    pub fn tree(&self) -> Vec<snapshot::SnapshotNode> {
        snapshot::parse(&self.full_snapshot)
    }
}

/// The pages open when a batch named another (at most 10), shown in a [`RunError`] as
/// `Open pages: "id" (url), …` or `No page is connected.`.
///
/// ```
/// use browser_agent_core::{OpenPages, PageSummary};
/// let open = OpenPages::default();
/// assert_eq!(open.to_string(), "No page is connected.");
/// let listed: Vec<&PageSummary> = open.0.iter().collect();
/// assert!(listed.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenPages(pub Vec<PageSummary>);

/// One open page: its client id and URL (see [`OpenPages`] for an example).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageSummary {
    /// The page's client id.
    pub client_id: String,
    /// The page's URL.
    pub page: String,
}

impl std::fmt::Display for OpenPages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("No page is connected.");
        }
        f.write_str("Open pages: ")?;
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{:?} ({})", p.client_id, p.page)?;
        }
        Ok(())
    }
}

/// How a refused step is named: numbered from 1, as the answers number steps, and saying the
/// batch did not run (a 400 is answered before any step runs).
pub(crate) fn step_name(i: usize) -> String {
    format!("step {} (nothing ran)", i + 1)
}

/// A refused step's 400: [`step_name`], then why.
pub(crate) fn refused_step(i: usize, why: impl std::fmt::Display) -> RunError {
    RunError::BadRequest(format!("{}: {why}", step_name(i)))
}

/// Why a batch did not run; the message says what to do, and [`status`](Self::status) is the
/// HTTP status of the `command-error` answer.
///
/// ```
/// use browser_agent_core::{Batch, BrowserAgent, RunError};
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let agent = BrowserAgent::builder().enabled(true).build();
/// let steps = Batch::from_json(br#"{"steps":[{"command":"snapshot"}]}"#).unwrap().steps;
/// let err = agent.run(Batch::new(steps).client("c1")).await.unwrap_err();
/// assert!(matches!(&err, RunError::UnknownPage { client, open } if client == "c1" && open.0.is_empty()));
/// assert_eq!(err.to_string(), "No page with client id \"c1\" is connected. No page is connected.");
/// assert_eq!(err.status(), 503);
/// # });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The batch is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// No page is connected.
    #[error("No browser connected: open {0} in a browser")]
    NoBrowser(String),
    /// A page is open but its client failed to start (it could not load, threw while starting, or
    /// never became ready): no page can run the batch.
    #[error("A page is open at {page} but its browser-agent client failed to start: {message}")]
    ClientFailed {
        /// The page's URL.
        page: String,
        /// Why (the error the page's bootstrap reported, or how long it stayed at `hooked`).
        message: String,
    },
    /// The named page is not connected.
    #[error("No page with client id {client:?} is connected. {open}")]
    UnknownPage {
        /// The client id the batch named.
        client: String,
        /// The pages that are open instead.
        open: OpenPages,
    },
    /// Too many batches are waiting for the page.
    #[error("The page already has {MAX_QUEUED} batches waiting; wait for them to finish")]
    QueueFull,
    /// The page did not answer in time; the batch was removed and will not run later.
    #[error("Browser command timed out after {} ms: the page did not answer (it may have navigated away, be paused in a debugger, be busy, or show an alert, confirm or prompt dialog it opened on its own, which a person must answer)", .0.as_millis())]
    Timeout(Duration),
    /// The page never took the batch: nothing else ran there, yet its client did not ask for
    /// commands in time (its heartbeats may still list it as open).
    #[error("Browser command timed out after {} ms: the page never took it. It ran nothing else meanwhile and its client did not ask for commands: its main thread may be blocked, the tab frozen, or its command poll refused (a host restarted with another page key, as from another folder). Reload the page", .0.as_millis())]
    NotTaken(Duration),
    /// The named page said it left (closed, or navigated away).
    #[error("The page with client id {client:?} was closed or navigated away. {open}")]
    PageClosed {
        /// The client id the batch named.
        client: String,
        /// The pages that are open instead.
        open: OpenPages,
    },
    /// The page left before the batch could finish; `steps` holds the results of the steps that ran.
    #[error("{message}")]
    PageLeft {
        /// What happened and what ran.
        message: String,
        /// The results of the steps that ran before the page left.
        steps: Vec<StepResult>,
    },
    /// A one-step call of the Rust API (such as [`Screenshots::take`](crate::Screenshots::take))
    /// whose step failed: the page's message (what is there instead, for a target that did not resolve).
    #[error("{0}")]
    StepFailed(String),
    /// An `upload` step names a path outside the project root, or a symlink that leads out of it
    /// (403; the message names the file and the root).
    #[error("{0}")]
    Forbidden(String),
    /// An `upload` step's files are past the bounds (`protocol::upload`: per file, per step or
    /// batch, held by the host; 413; the message names the file and the bound).
    #[error("{0}")]
    TooLarge(String),
}

impl RunError {
    /// The HTTP status of the answer to `POST {prefix}/run`: 400 for a malformed batch (403 and 413
    /// for an `upload` step's path outside the project root and files past the bounds), 503 when
    /// no page (or not the named one) can run it, 429 for a full queue, 504 for a timeout.
    pub fn status(&self) -> http::StatusCode {
        use http::StatusCode as S;
        match self {
            RunError::BadRequest(_) => S::BAD_REQUEST,
            RunError::NoBrowser(_)
            | RunError::ClientFailed { .. }
            | RunError::UnknownPage { .. }
            | RunError::PageClosed { .. }
            | RunError::PageLeft { .. } => S::SERVICE_UNAVAILABLE,
            RunError::QueueFull => S::TOO_MANY_REQUESTS,
            RunError::Timeout(_) | RunError::NotTaken(_) => S::GATEWAY_TIMEOUT,
            RunError::StepFailed(_) => S::UNPROCESSABLE_ENTITY,
            RunError::Forbidden(_) => S::FORBIDDEN,
            RunError::TooLarge(_) => S::PAYLOAD_TOO_LARGE,
        }
    }

    /// The results of the steps that ran before the batch failed (only when its page left).
    pub fn steps(&self) -> &[StepResult] {
        match self {
            RunError::PageLeft { steps, .. } => steps,
            _ => &[],
        }
    }

    /// The `command-error` event that answers it, on HTTP and on stdio.
    pub fn event(&self) -> CommandError {
        CommandError::new(self.to_string(), self.steps().to_vec())
    }
}
