//! The command channel: the agent's batches wait in a FIFO per page, a page runs one batch at a
//! time, a batch that times out is removed and never runs later, and results find their caller.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{oneshot, Notify};

use crate::protocol::{field, CommandError, Delivery, Handover, Results, StepResult};
use crate::snapshot;

/// Default time a batch may take, queueing included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The refusal of a batch without steps (from the agent's request, or from Rust).
const NO_STEPS: &str = "browser action requires a non-empty \"steps\" array";
/// Most steps in one batch.
pub const MAX_STEPS: usize = 100;
/// Most batches waiting for one page.
pub const MAX_QUEUED: usize = 16;
/// Executed steps kept per page in its action log.
pub const MAX_ACTIONS: usize = 200;
/// How long a batch whose page said it left while running it (the `gone` beacon) waits for that
/// page's results or handover, which the page sends in the same `pagehide` and may arrive just after.
pub const GONE_GRACE: Duration = Duration::from_secs(3);
/// How long a handed-over batch waits for the next page of its tab to take it (never beyond the
/// batch's own timeout): a navigation to a JSON route, another origin or a download starts no client.
pub const HANDOVER_WAIT: Duration = Duration::from_secs(10);

/// A batch of steps for a page.
///
/// ```
/// use browser_agent_core::commands::Batch;
/// let batch = Batch::new(vec![serde_json::json!({"command": "snapshot"})]).client("c1");
/// assert_eq!(batch.steps.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
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
    /// use browser_agent_core::commands::Batch;
    /// let batch = Batch::from_json(br#"{"steps":[{"command":"snapshot"}],"timeoutMs":5000}"#).unwrap();
    /// assert_eq!(batch.timeout.as_millis(), 5000);
    /// assert!(Batch::from_json(br#"{"steps":[]}"#).is_err());
    /// ```
    pub fn from_json(body: &[u8]) -> Result<Batch, RunError> {
        let bad = |m: String| RunError::BadRequest(m);
        let value: Value = serde_json::from_slice(body).map_err(|e| bad(format!("body is not valid JSON: {e}")))?;
        let obj = value
            .as_object()
            .ok_or_else(|| bad("body must be a JSON object {\"steps\":[…]}".into()))?;
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
        Ok(batch)
    }
}

/// What a page answered: the MindStudio `browser-completed` event plus the page it ran on.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// Why a batch did not run; the message says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The batch is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// No page is connected.
    #[error("No browser connected: open {0} in a browser")]
    NoBrowser(String),
    /// The named page is not connected.
    #[error("No page with client id {0:?} is connected. {1}")]
    UnknownPage(String, String),
    /// Too many batches are waiting for the page.
    #[error("The page already has {MAX_QUEUED} batches waiting; wait for them to finish")]
    QueueFull,
    /// The page did not answer in time; the batch was removed and will not run later.
    #[error("Browser command timed out after {0} ms: the page did not answer (it may have navigated away, be paused in a debugger, or be busy)")]
    Timeout(u64),
    /// The named page said it left (closed, or navigated away).
    #[error("The page with client id {0:?} was closed or navigated away. {1}")]
    PageClosed(String, String),
    /// The page left before the batch could finish; `steps` holds the results of the steps that ran.
    #[error("{message}")]
    PageLeft {
        /// What happened and what ran.
        message: String,
        /// The results of the steps that ran before the page left.
        steps: Vec<StepResult>,
    },
}

impl RunError {
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

/// A batch waiting for a page: what [`CommandQueue::take`] delivers.
#[derive(Debug)]
struct Queued {
    id: String,
    steps: Vec<Value>,
    /// Set on the rest of a handed-over batch.
    offset: Option<u64>,
}

#[derive(Debug, Default)]
struct PageQueue {
    queued: VecDeque<Queued>,
    running: Option<String>,
    wake: Arc<Notify>,
    last_snapshot: Option<String>,
    actions: VecDeque<Value>,
}

#[derive(Debug)]
struct Waiting {
    /// The page running it (changes when a navigation hands the batch to the next page load).
    client: String,
    diff_steps: Vec<usize>,
    /// Step results from pages the batch has already left.
    done_steps: Vec<StepResult>,
    /// Log entries those pages sent with them.
    done_logs: Vec<Value>,
    tx: oneshot::Sender<Result<BatchResult, RunError>>,
    /// An end earlier than the batch's own timeout, and why.
    early: Option<Early>,
    /// Told whenever `early` changes, so the caller waits for the right deadline.
    changed: Arc<Notify>,
    /// When the caller gives up on the batch (its `timeoutMs`): sent to the page with the batch,
    /// so a page still running it then stops instead of acting after the agent got its timeout.
    deadline: Instant,
}

#[derive(Debug)]
struct Early {
    at: Instant,
    why: EarlyEnd,
}

#[derive(Debug)]
enum EarlyEnd {
    /// The page running it said it left: the message to fail with unless its results come.
    Left(String),
    /// Handed over at `since` (to `url`, when the page said where it went): no page of its tab took it yet.
    Handover { url: Option<String>, since: Instant },
}

/// What the caller of [`CommandQueue::enqueue`] holds: the batch id, the receiver of its outcome,
/// and the signal that its deadline changed (see [`CommandQueue::deadline`]).
#[derive(Debug)]
pub(crate) struct Ticket {
    pub(crate) id: String,
    pub(crate) rx: oneshot::Receiver<Result<BatchResult, RunError>>,
    pub(crate) changed: Arc<Notify>,
}

/// Per-page queues and the batches waiting for results.
#[derive(Debug, Default)]
pub(crate) struct CommandQueue {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    pages: HashMap<String, PageQueue>,
    waiting: HashMap<String, Waiting>,
    /// Batches handed over by a navigating page, waiting for the next page load in the same tab.
    handovers: HashMap<String, Queued>,
}

/// Appends a batch's executed steps to the page's action log (bounded), with the host's clock.
fn log_actions(page: &mut PageQueue, batch: &str, steps: &[StepResult]) {
    let now = crate::util::now_ms();
    for step in steps {
        let mut record = serde_json::json!({ "batch": batch, "t": now });
        if let Some(index) = step.index {
            record[field::INDEX] = index.into();
        }
        if !step.command.is_empty() {
            record[field::COMMAND] = step.command.clone().into();
        }
        for key in ["at", "target", "viewport", "matched"] {
            if let Some(v) = step.other.get(key) {
                record[key] = v.clone();
            }
        }
        if let Some(elapsed) = &step.elapsed {
            record[field::ELAPSED] = elapsed.clone();
        }
        if let Some(error) = &step.error {
            record[field::ERROR] = error.clone().into();
        }
        if let Some(r) = step.result_str() {
            let mut r = r.to_owned();
            crate::util::truncate_marked(&mut r, 200);
            record[field::RESULT] = Value::String(r);
        }
        page.actions.push_back(record);
        if page.actions.len() > MAX_ACTIONS {
            page.actions.pop_front();
        }
    }
}

/// Checks a batch's shape; the message names the problem.
pub(crate) fn validate_steps(steps: &[Value]) -> Result<Vec<usize>, RunError> {
    if steps.is_empty() {
        return Err(RunError::BadRequest(NO_STEPS.into()));
    }
    if steps.len() > MAX_STEPS {
        return Err(RunError::BadRequest(format!(
            "a batch holds at most {MAX_STEPS} steps, got {}",
            steps.len()
        )));
    }
    let mut diff_steps = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let command = step.get(field::COMMAND).and_then(Value::as_str);
        match command {
            Some(c) if crate::protocol::COMMANDS.contains(&c) => {
                if c == "snapshot" && step.get("diff").and_then(Value::as_bool) == Some(true) {
                    diff_steps.push(i);
                }
            }
            // Refused before anything runs: a batch stops at its first failing step, so an unknown
            // command late in it would otherwise leave the earlier steps done and the rest not.
            Some(c) if !c.is_empty() => {
                return Err(RunError::BadRequest(format!(
                    "step {i}: unknown command {c:?}; commands: {}",
                    crate::protocol::COMMANDS.join(", ")
                )))
            }
            _ => {
                return Err(RunError::BadRequest(format!(
                    "step {i} needs a \"command\" string, e.g. {{\"command\":\"snapshot\"}}"
                )))
            }
        }
    }
    Ok(diff_steps)
}

impl CommandQueue {
    /// Queues `steps` for `client`; the ticket's receiver gets the outcome.
    pub(crate) fn enqueue(
        &self,
        client: &str,
        steps: &[Value],
        diff_steps: Vec<usize>,
        timeout: Duration,
    ) -> Result<Ticket, RunError> {
        let (tx, rx) = oneshot::channel();
        let changed = Arc::new(Notify::new());
        let mut state = self.state.lock();
        let id = loop {
            let id = crate::util::random_hex(4);
            if !state.waiting.contains_key(&id) {
                break id;
            }
        };
        let page = state.pages.entry(client.to_owned()).or_default();
        if page.queued.len() >= MAX_QUEUED {
            return Err(RunError::QueueFull);
        }
        page.queued.push_back(Queued {
            id: id.clone(),
            steps: steps.to_vec(),
            offset: None,
        });
        page.wake.notify_waiters();
        state.waiting.insert(
            id.clone(),
            Waiting {
                client: client.to_owned(),
                diff_steps,
                done_steps: Vec::new(),
                done_logs: Vec::new(),
                tx,
                early: None,
                deadline: Instant::now() + timeout,
                changed: changed.clone(),
            },
        );
        Ok(Ticket { id, rx, changed })
    }

    /// When batch `id` ends early unless something happens first (`None`: at its own timeout).
    pub(crate) fn deadline(&self, id: &str) -> Option<Instant> {
        self.state
            .lock()
            .waiting
            .get(id)
            .and_then(|w| w.early.as_ref())
            .map(|e| e.at)
    }

    /// The caller's wait for batch `id` ended at `deadline` (its own timeout is `overall`, of
    /// `timeout_ms`): removes the batch and says why it failed, or `None` when nothing is due
    /// (what it waited for changed meanwhile: wait again).
    pub(crate) fn expire(&self, id: &str, deadline: Instant, overall: Instant, timeout_ms: u64) -> Option<RunError> {
        let mut state = self.state.lock();
        let w = state.waiting.get(id)?;
        let early_due = w.early.as_ref().is_some_and(|e| e.at <= deadline);
        if !early_due && overall > deadline {
            return None;
        }
        let w = remove(&mut state, id)?;
        Some(match w.early {
            Some(Early {
                why: EarlyEnd::Left(message),
                ..
            }) => RunError::PageLeft {
                message,
                steps: w.done_steps,
            },
            Some(Early {
                at,
                why: EarlyEnd::Handover { url, since },
            }) => {
                let waited = at.min(overall).saturating_duration_since(since);
                RunError::PageLeft {
                    message: handover_failed(url.as_deref(), waited, &w.done_steps),
                    steps: w.done_steps,
                }
            }
            None => RunError::Timeout(timeout_ms),
        })
    }

    /// Page `client` said it left: its queued batches fail now with `queued_message`; the batch it
    /// runs (if any) fails with `running_message` unless its results or handover arrive within
    /// `grace` (the page sends them in the same `pagehide`). Its polls held open are woken.
    pub(crate) fn page_gone(&self, client: &str, queued_message: &str, running_message: &str, grace: Duration) {
        let mut state = self.state.lock();
        let state = &mut *state;
        let Some(page) = state.pages.get_mut(client) else {
            return;
        };
        for q in std::mem::take(&mut page.queued) {
            if let Some(w) = state.waiting.remove(&q.id) {
                let _ = w.tx.send(Err(RunError::PageLeft {
                    message: queued_message.to_owned(),
                    steps: w.done_steps,
                }));
            }
        }
        page.wake.notify_waiters();
        let running = page.running.as_deref().and_then(|id| state.waiting.get_mut(id));
        if let Some(w) = running.filter(|w| w.client == client && w.early.is_none()) {
            w.early = Some(Early {
                at: Instant::now() + grace,
                why: EarlyEnd::Left(running_message.to_owned()),
            });
            w.changed.notify_one();
        }
    }

    /// Page `client` came back (a heartbeat or a poll after it said it left: the back/forward
    /// cache restored it): the batch it runs waits for its results again.
    pub(crate) fn page_back(&self, client: &str) {
        let mut state = self.state.lock();
        let state = &mut *state;
        let running = state.pages.get(client).and_then(|p| p.running.as_deref());
        if let Some(w) = running.and_then(|id| state.waiting.get_mut(id)) {
            if matches!(
                w.early,
                Some(Early {
                    why: EarlyEnd::Left(_),
                    ..
                })
            ) {
                w.early = None;
                w.changed.notify_one();
            }
        }
    }

    /// The wake-up a poller of `client` waits on.
    pub(crate) fn wake(&self, client: &str) -> Arc<Notify> {
        self.state
            .lock()
            .pages
            .entry(client.to_owned())
            .or_default()
            .wake
            .clone()
    }

    /// Hands `client` its next batch (its `timeout_ms` is what is left of the batch's time),
    /// unless one is running: first the rest of a batch its tab handed over while navigating, then
    /// its own queue.
    pub(crate) fn take(&self, client: &str, tab: Option<&str>) -> Option<Delivery> {
        let mut state = self.state.lock();
        let Queued { id, steps, offset } = Self::take_body(&mut state, client, tab)?;
        let left = state
            .waiting
            .get(&id)
            .map_or(0, |w| w.deadline.saturating_duration_since(Instant::now()).as_millis());
        Some(Delivery {
            timeout_ms: u64::try_from(left).unwrap_or(u64::MAX),
            id,
            steps,
            offset,
        })
    }

    fn take_body(state: &mut State, client: &str, tab: Option<&str>) -> Option<Queued> {
        if state.pages.get(client).is_some_and(|p| p.running.is_some()) {
            return None;
        }
        if let Some(handed) = tab.and_then(|t| state.handovers.remove(t)) {
            if let Some(w) = state.waiting.get_mut(&handed.id) {
                w.client = client.to_owned();
                // The next page connected: from now on the batch's own timeout applies.
                w.early = None;
                w.changed.notify_one();
            }
            state.pages.entry(client.to_owned()).or_default().running = Some(handed.id.clone());
            return Some(handed);
        }
        let page = state.pages.get_mut(client)?;
        let next = page.queued.pop_front()?;
        page.running = Some(next.id.clone());
        Some(next)
    }

    /// The page running batch `id` now (`None`: unknown id, or handed over and not taken yet).
    pub(crate) fn client_of(&self, id: &str) -> Option<String> {
        self.state
            .lock()
            .waiting
            .get(id)
            .map(|w| w.client.clone())
            .filter(|c| !c.is_empty())
    }

    /// How many batches wait for `client` (not counting the one it runs).
    #[cfg(test)]
    pub(crate) fn queued_len(&self, client: &str) -> usize {
        self.state.lock().pages.get(client).map_or(0, |p| p.queued.len())
    }

    /// The action log of `client`: every executed step, oldest first.
    pub(crate) fn actions(&self, client: &str) -> Vec<Value> {
        self.state
            .lock()
            .pages
            .get(client)
            .map(|p| p.actions.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Removes a batch that timed out: from the queue if it never ran, and frees its page.
    pub(crate) fn abandon(&self, id: &str) {
        remove(&mut self.state.lock(), id);
    }

    /// Delivers a page's answer, with its log entries as stored; false when nobody waits for `id`
    /// (unknown, or timed out).
    pub(crate) fn complete(&self, id: &str, result: Results, mut logs: Vec<Value>) -> bool {
        let mut state = self.state.lock();
        let Some(mut w) = state.waiting.remove(id) else {
            return false;
        };
        let page = state.pages.entry(w.client.clone()).or_default();
        if page.running.as_deref() == Some(id) {
            page.running = None;
        }
        page.wake.notify_waiters();
        let Results {
            mut steps,
            snapshot: full,
            duration,
            error,
            handover,
            ..
        } = result;
        log_actions(page, id, &steps);
        if let Some(Handover {
            tab,
            remaining: Some(remaining),
            offset,
            url,
        }) = handover.filter(Handover::is_valid)
        {
            // The page is navigating: keep what ran, and give the rest to the next page load in its tab.
            let url = url.map(|mut u| {
                crate::util::truncate_marked(&mut u, crate::config::PAGE_MAX);
                u
            });
            let offset = offset.unwrap_or(steps.len() as u64);
            state.handovers.insert(
                tab,
                Queued {
                    id: id.to_owned(),
                    steps: remaining,
                    offset: Some(offset),
                },
            );
            w.done_steps.append(&mut steps);
            w.done_logs.append(&mut logs);
            w.client = String::new();
            // The next page of the tab must connect soon, or the agent hears why it did not.
            let since = Instant::now();
            w.early = Some(Early {
                at: since + HANDOVER_WAIT,
                why: EarlyEnd::Handover { url, since },
            });
            w.changed.notify_one();
            state.waiting.insert(id.to_owned(), w);
            return true;
        }
        let page = state.pages.entry(w.client.clone()).or_default();
        if !w.done_steps.is_empty() {
            w.done_steps.append(&mut steps);
            steps = std::mem::take(&mut w.done_steps);
        }
        if !w.done_logs.is_empty() {
            w.done_logs.append(&mut logs);
            logs = std::mem::take(&mut w.done_logs);
        }
        let mut previous = page.last_snapshot.clone();
        for (i, step) in steps.iter_mut().enumerate() {
            if step.command != "snapshot" {
                continue;
            }
            if let Some(full) = step.result_str().map(str::to_owned) {
                if w.diff_steps.contains(&i) {
                    if let Some(prev) = &previous {
                        step.result = Some(Value::String(snapshot::diff(prev, &full)));
                    }
                }
                previous = Some(full);
            }
        }
        let shown = match (&previous, full.is_empty()) {
            (Some(prev), false) => snapshot::diff(prev, &full),
            _ => full.clone(),
        };
        if !full.is_empty() {
            page.last_snapshot = Some(full.clone());
        } else if previous.is_some() {
            page.last_snapshot = previous;
        }
        let error = steps.iter().find_map(|s| s.error.clone()).or(error);
        let out = BatchResult {
            event: "browser-completed",
            client_id: w.client,
            steps,
            snapshot: shown,
            logs,
            duration,
            error,
            full_snapshot: full,
        };
        // The caller may have given up in the same instant: nothing else to do then.
        let _ = w.tx.send(Ok(out));
        true
    }
}

/// The message of a handed-over batch no page took within `waited`, with the steps that ran.
fn handover_failed(url: Option<&str>, waited: Duration, steps: &[StepResult]) -> String {
    let whither = match url {
        Some(url) => format!("navigated to {url}"),
        None => "navigated away".to_owned(),
    };
    let tenths = (waited.as_millis() + 50) / 100;
    let secs = if tenths.is_multiple_of(10) {
        format!("{} s", tenths / 10)
    } else {
        format!("{}.{} s", tenths / 10, tenths % 10)
    };
    let ran: Vec<String> = steps
        .iter()
        .map(|step| {
            let command = if step.command.is_empty() { "?" } else { &step.command };
            let outcome = match (&step.result, &step.error) {
                (_, Some(error)) => format!("error: {error}"),
                (Some(Value::String(text)), None) => text.clone(),
                (Some(other), None) => other.to_string(),
                (None, None) => "done".to_owned(),
            };
            let mut line = match step.index {
                Some(i) => format!("#{i} {command}: {outcome}"),
                None => format!("{command}: {outcome}"),
            };
            crate::util::truncate_marked(&mut line, 120);
            line
        })
        .collect();
    let ran = if ran.is_empty() {
        "none".to_owned()
    } else {
        ran.join("; ")
    };
    format!(
        "The page {whither} and no browser-agent client started there within {secs} (not an HTML page served through this dev server?); the steps before it ran: {ran}"
    )
}

/// Removes batch `id` from everywhere (waiting, a page's queue, a handover) and frees its page.
fn remove(state: &mut State, id: &str) -> Option<Waiting> {
    let w = state.waiting.remove(id)?;
    state.handovers.retain(|_, q| q.id != id);
    if let Some(page) = state.pages.get_mut(&w.client) {
        page.queued.retain(|q| q.id != id);
        if page.running.as_deref() == Some(id) {
            page.running = None;
        }
        page.wake.notify_waiters();
    }
    Some(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::future::Future;
    use std::task::{Context, Waker};

    fn complete(q: &CommandQueue, id: &str, result: Value, logs: Vec<Value>) -> bool {
        q.complete(id, Results::from_value(result), logs)
    }

    #[test]
    fn a_delivered_batch_says_how_much_of_its_time_is_left() {
        let q = CommandQueue::default();
        let steps = [json!({"command": "snapshot"})];
        q.enqueue("p", &steps, vec![], Duration::from_millis(4000)).unwrap();
        let body = serde_json::to_value(q.take("p", None).unwrap()).unwrap();
        let left = body[field::TIMEOUT_MS].as_u64().unwrap();
        assert!(left > 0 && left <= 4000, "{body}");
        assert_eq!(body[field::STEPS], json!(steps), "{body}");
        assert!(body[field::ID].is_string(), "{body}");
    }

    #[test]
    fn unknown_commands_are_refused_before_anything_runs() {
        let steps = [json!({"command": "snapshot"}), json!({"command": "console.log"})];
        let Err(RunError::BadRequest(m)) = validate_steps(&steps) else {
            panic!("an unknown command must be a bad request");
        };
        assert!(
            m.starts_with("step 1: unknown command \"console.log\"; commands: snapshot, click, "),
            "{m}"
        );
    }

    #[test]
    fn fifo_one_at_a_time_and_abandon() {
        let q = CommandQueue::default();
        let steps = [json!({"command": "snapshot"})];
        let Ticket { id: a, rx: _ra, .. } = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
        let Ticket { id: b, rx: _rb, .. } = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
        let first = q.take("p", None).unwrap();
        assert_eq!(first.id, a);
        assert!(q.take("p", None).is_none(), "one batch at a time");
        q.abandon(&b);
        assert!(complete(&q, &a, json!({"steps": [], "snapshot": "x"}), vec![]));
        assert!(q.take("p", None).is_none(), "the abandoned batch never runs");
        assert!(!complete(&q, &b, json!({}), vec![]), "unknown ids are refused");
        assert!(q.take("other", None).is_none());
    }

    #[test]
    fn results_diff_after_the_first_snapshot() {
        let q = CommandQueue::default();
        let steps = [json!({"command": "snapshot", "diff": true})];
        let diff_steps = validate_steps(&steps).unwrap();
        let Ticket { id: a, rx: mut ra, .. } = q
            .enqueue("p", &steps, diff_steps.clone(), Duration::from_secs(30))
            .unwrap();
        q.take("p", None);
        complete(
            &q,
            &a,
            json!({"steps": [{"index":0,"command":"snapshot","result":"button \"A\" [ref=e1]"}], "snapshot": "button \"A\" [ref=e1]", "duration": 5}),
            vec![],
        );
        let r = ra.try_recv().unwrap().unwrap();
        assert_eq!(
            r.steps[0].result_str(),
            Some("button \"A\" [ref=e1]"),
            "the first snapshot is full"
        );
        assert_eq!(
            r.snapshot, "(no changes)",
            "the final one only says what changed since the step's"
        );
        let Ticket { id: b, rx: mut rb, .. } = q.enqueue("p", &steps, diff_steps, Duration::from_secs(30)).unwrap();
        q.take("p", None);
        complete(
            &q,
            &b,
            json!({"steps": [{"index":0,"command":"snapshot","result":"button \"B\" [ref=e1]"}], "snapshot": "button \"B\" [ref=e1]"}),
            vec![],
        );
        let r = rb.try_recv().unwrap().unwrap();
        assert_eq!(r.steps[0].result_str(), Some("~ button \"B\" [ref=e1]"));
        assert_eq!(r.snapshot, "(no changes)");
        assert_eq!(r.full_snapshot, "button \"B\" [ref=e1]");
    }

    #[test]
    fn a_batch_without_snapshot_step_carries_the_full_snapshot_first() {
        let q = CommandQueue::default();
        let steps = [json!({"command": "click", "text": "A"})];
        let Ticket { id: a, rx: mut ra, .. } = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
        q.take("p", None);
        complete(
            &q,
            &a,
            json!({"steps": [{"index":0,"command":"click","error":"No button"}], "snapshot": "button \"B\" [ref=e2]"}),
            vec![],
        );
        let r = ra.try_recv().unwrap().unwrap();
        assert_eq!(
            (r.snapshot.as_str(), r.error.as_deref()),
            ("button \"B\" [ref=e2]", Some("No button"))
        );
        assert_eq!(r.tree()[0].ref_id.as_deref(), Some("e2"));
    }

    #[test]
    fn a_navigating_page_hands_the_rest_to_the_next_page_in_its_tab() {
        let q = CommandQueue::default();
        let steps = [
            json!({"command": "navigate", "url": "/two"}),
            json!({"command": "snapshot"}),
        ];
        let Ticket { id, mut rx, .. } = q.enqueue("old", &steps, vec![], Duration::from_secs(30)).unwrap();
        assert!(q.take("old", Some("tab1")).is_some());
        let partial = json!({"id": id, "steps": [{"index": 0, "command": "navigate", "result": "navigating to /two", "at": 3}],
            "handover": {"tab": "tab1", "remaining": [{"command": "snapshot"}], "offset": 1}});
        assert!(complete(&q, &id, partial, vec![]));
        assert!(rx.try_recv().is_err(), "the agent waits for the rest");
        assert!(q.take("other-tab-page", Some("tab2")).is_none());
        let rest = q.take("new", Some("tab1")).unwrap();
        assert_eq!((rest.id.as_str(), rest.offset), (id.as_str(), Some(1)));
        assert_eq!(rest.steps, [json!({"command": "snapshot"})]);
        complete(
            &q,
            &id,
            json!({"id": id, "steps": [{"index": 1, "command": "snapshot", "result": "main"}], "snapshot": "main"}),
            vec![],
        );
        let done = rx.try_recv().unwrap().unwrap();
        assert_eq!(done.client_id, "new");
        assert_eq!(done.steps.len(), 2);
        assert_eq!(done.steps[0].result_str(), Some("navigating to /two"));
        assert_eq!(q.actions("old").len(), 1);
        assert_eq!(q.actions("new")[0]["command"], "snapshot");
    }

    #[test]
    fn a_page_that_leaves_fails_its_queued_batches_at_once_but_keeps_a_handed_over_one() {
        let q = CommandQueue::default();
        let steps = [
            json!({"command": "navigate", "url": "/two"}),
            json!({"command": "snapshot"}),
        ];
        let running = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
        let mut queued = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
        assert!(q.take("p", Some("tab1")).is_some());
        // The page hands the rest of its running batch over, then its `gone` beacon arrives.
        let handover = json!({"steps": [{"index": 0, "command": "navigate", "result": "navigating to /two"}],
            "handover": {"tab": "tab1", "remaining": [{"command": "snapshot"}], "offset": 1}});
        assert!(complete(&q, &running.id, handover, vec![]));
        let handed = q.deadline(&running.id);
        q.page_gone("p", "left before it ran", "left while running", GONE_GRACE);
        match queued.rx.try_recv().unwrap() {
            Err(RunError::PageLeft { message, steps }) => {
                assert_eq!((message.as_str(), steps.len()), ("left before it ran", 0))
            }
            other => panic!("the queued batch fails at once: {other:?}"),
        }
        assert!(q.take("p", None).is_none(), "it never runs later");
        assert_eq!(
            q.deadline(&running.id),
            handed,
            "the handed-over batch is the tab's, not the gone page's"
        );
        assert!(
            q.take("next", Some("tab1")).is_some(),
            "the next page of the tab still gets it"
        );
        let mut rx = running.rx;
        assert!(complete(
            &q,
            &running.id,
            json!({"steps": [{"index": 1, "command": "snapshot", "result": "main"}], "snapshot": "main"}),
            vec![]
        ));
        assert_eq!(rx.try_recv().unwrap().unwrap().steps.len(), 2);
    }

    #[test]
    fn a_batch_its_page_was_running_when_it_left_waits_briefly_for_its_results() {
        let q = CommandQueue::default();
        let steps = [json!({"command": "click", "text": "Docs"})];
        // The results (with the handover) arrive just after the `gone` beacon: they still count.
        let a = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
        q.take("p", Some("t"));
        q.page_gone("p", "queued", "left while running", GONE_GRACE);
        let grace_end = q.deadline(&a.id).expect("an early end is set");
        let told = std::pin::pin!(a.changed.notified()).poll(&mut Context::from_waker(Waker::noop()));
        assert!(told.is_ready(), "the caller is told");
        let handover = json!({"steps": [], "handover": {"tab": "t", "remaining": [], "offset": 1}});
        assert!(complete(&q, &a.id, handover, vec![]));
        assert_ne!(q.deadline(&a.id), Some(grace_end), "no longer the gone page's grace");
        // No results at all: at the end of the grace it fails with the message, and is removed.
        let b = q.enqueue("r", &steps, vec![], Duration::from_secs(30)).unwrap();
        q.take("r", None);
        q.page_gone("r", "queued", "left while running", GONE_GRACE);
        let end = q.deadline(&b.id).unwrap();
        let overall = end + Duration::from_secs(60);
        assert!(q
            .expire(&b.id, end - Duration::from_millis(1), overall, 60_000)
            .is_none());
        assert_eq!(
            q.expire(&b.id, end, overall, 60_000),
            Some(RunError::PageLeft {
                message: "left while running".into(),
                steps: vec![]
            })
        );
        assert!(!complete(&q, &b.id, json!({"steps": []}), vec![]), "removed");
        // Restored from the back/forward cache: it waits for its results again.
        let c = q.enqueue("s", &steps, vec![], Duration::from_secs(30)).unwrap();
        q.take("s", None);
        q.page_gone("s", "queued", "left while running", GONE_GRACE);
        q.page_back("s");
        assert!(q.deadline(&c.id).is_none());
        let far = Instant::now() + Duration::from_secs(3600);
        assert_eq!(q.expire(&c.id, far, far, 5), Some(RunError::Timeout(5)));
    }

    #[test]
    fn a_handed_over_batch_fails_soon_when_no_page_takes_it() {
        let q = CommandQueue::default();
        let steps = [
            json!({"command": "click", "text": "Export"}),
            json!({"command": "navigate", "url": "/api/items"}),
            json!({"command": "snapshot"}),
        ];
        let handover = |url: Option<&str>| {
            let mut h = json!({"tab": "t", "remaining": [{"command": "snapshot"}], "offset": 2});
            if let Some(url) = url {
                h["url"] = json!(url);
            }
            json!({"steps": [
                {"index": 0, "command": "click", "result": "clicked button \"Export\""},
                {"index": 1, "command": "navigate", "result": "navigating to /api/items"}],
                "handover": h})
        };
        let a = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
        q.take("p", Some("t"));
        assert!(q.deadline(&a.id).is_none(), "running: only the batch's own timeout");
        assert!(complete(
            &q,
            &a.id,
            handover(Some("http://127.0.0.1:3000/api/items")),
            vec![]
        ));
        let wait_end = q.deadline(&a.id).expect("the new page must connect soon");
        let overall = wait_end + Duration::from_secs(20);
        let err = q.expire(&a.id, wait_end, overall, 30_000).unwrap();
        assert_eq!(
            err.to_string(),
            "The page navigated to http://127.0.0.1:3000/api/items and no browser-agent client started there \
             within 10 s (not an HTML page served through this dev server?); the steps before it ran: \
             #0 click: clicked button \"Export\"; #1 navigate: navigating to /api/items"
        );
        assert_eq!(err.steps().len(), 2, "the answer keeps the steps that ran");
        assert!(q.take("p2", Some("t")).is_none(), "removed: no later page runs it");

        // No URL in the handover; the batch's own timeout comes first (2.5 s after the handover).
        let b = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
        q.take("p", Some("t"));
        complete(&q, &b.id, handover(None), vec![]);
        let since = q.deadline(&b.id).unwrap() - HANDOVER_WAIT;
        let overall = since + Duration::from_millis(2_500);
        let err = q.expire(&b.id, overall, overall, 4_000).unwrap();
        assert!(
            err.to_string()
                .starts_with("The page navigated away and no browser-agent client started there within 2.5 s"),
            "{err}"
        );

        // The next page connects in time: the batch's own timeout applies again.
        let c = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
        q.take("p", Some("t"));
        complete(&q, &c.id, handover(None), vec![]);
        let wait_end = q.deadline(&c.id).unwrap();
        assert!(q.take("next", Some("t")).is_some());
        assert!(q.deadline(&c.id).is_none());
        assert!(q
            .expire(&c.id, wait_end, wait_end + Duration::from_secs(1), 30_000)
            .is_none());
    }

    #[test]
    fn validation_names_the_problem() {
        assert!(validate_steps(&[])
            .unwrap_err()
            .to_string()
            .contains("non-empty \"steps\""));
        assert!(validate_steps(&[json!({"x": 1})])
            .unwrap_err()
            .to_string()
            .contains("step 0 needs a \"command\""));
        let too_many = vec![json!({"command":"snapshot"}); MAX_STEPS + 1];
        assert!(validate_steps(&too_many).is_err());
        let q = CommandQueue::default();
        for _ in 0..MAX_QUEUED {
            q.enqueue("p", &[json!({"command":"snapshot"})], vec![], Duration::from_secs(30))
                .unwrap();
        }
        assert_eq!(
            q.enqueue("p", &[json!({"command":"snapshot"})], vec![], Duration::from_secs(30))
                .unwrap_err(),
            RunError::QueueFull
        );
    }
}
