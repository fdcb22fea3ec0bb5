//! The command channel: the agent's batches wait in a FIFO per page, a page runs one batch at a
//! time, a batch that times out is removed and never runs later, and results find their caller.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{oneshot, Notify};

use crate::snapshot;

/// Default time a batch may take, queueing included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest a page's poll is held open.
pub const MAX_POLL_WAIT: Duration = Duration::from_secs(25);
/// Most steps in one batch.
pub const MAX_STEPS: usize = 100;
/// Most batches waiting for one page.
pub const MAX_QUEUED: usize = 16;
/// Executed steps kept per page in its action log.
pub const MAX_ACTIONS: usize = 200;

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
    pub steps: Vec<Value>,
    /// The snapshot after the batch: full the first time, then what changed (see [`snapshot::diff`]).
    pub snapshot: String,
    /// What the page logged while the batch ran.
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
}

#[derive(Debug)]
struct Queued {
    id: String,
    body: Arc<String>,
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
    done_steps: Vec<Value>,
    tx: oneshot::Sender<BatchResult>,
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
fn log_actions(page: &mut PageQueue, batch: &str, steps: &[Value]) {
    let now = crate::util::now_ms();
    for step in steps {
        let mut record = serde_json::json!({ "batch": batch, "t": now });
        for key in [
            "index", "command", "at", "target", "viewport", "matched", "elapsed", "error",
        ] {
            if let Some(v) = step.get(key) {
                record[key] = v.clone();
            }
        }
        if let Some(Value::String(r)) = step.get("result") {
            let mut r = r.clone();
            crate::util::truncate_marked(&mut r, 200);
            record["result"] = Value::String(r);
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
        return Err(RunError::BadRequest(
            "browser action requires a non-empty \"steps\" array".into(),
        ));
    }
    if steps.len() > MAX_STEPS {
        return Err(RunError::BadRequest(format!(
            "a batch holds at most {MAX_STEPS} steps, got {}",
            steps.len()
        )));
    }
    let mut diff_steps = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let command = step.get("command").and_then(Value::as_str);
        match command {
            Some(c) if !c.is_empty() => {
                if c == "snapshot" && step.get("diff").and_then(Value::as_bool) == Some(true) {
                    diff_steps.push(i);
                }
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
    /// Queues `steps` for `client`; the receiver gets the result.
    pub(crate) fn enqueue(
        &self,
        client: &str,
        steps: &[Value],
        diff_steps: Vec<usize>,
    ) -> Result<(String, oneshot::Receiver<BatchResult>), RunError> {
        let (tx, rx) = oneshot::channel();
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
        let body = serde_json::json!({ "id": id, "steps": steps }).to_string();
        page.queued.push_back(Queued {
            id: id.clone(),
            body: Arc::new(body),
        });
        page.wake.notify_waiters();
        state.waiting.insert(
            id.clone(),
            Waiting {
                client: client.to_owned(),
                diff_steps,
                done_steps: Vec::new(),
                tx,
            },
        );
        Ok((id, rx))
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

    /// Hands `client` its next batch (`{"id","steps"}` JSON), unless one is running: first the rest
    /// of a batch its tab handed over while navigating, then its own queue.
    pub(crate) fn take(&self, client: &str, tab: Option<&str>) -> Option<Arc<String>> {
        let mut state = self.state.lock();
        let state = &mut *state;
        if state.pages.get(client).is_some_and(|p| p.running.is_some()) {
            return None;
        }
        if let Some(handed) = tab.and_then(|t| state.handovers.remove(t)) {
            if let Some(w) = state.waiting.get_mut(&handed.id) {
                w.client = client.to_owned();
            }
            state.pages.entry(client.to_owned()).or_default().running = Some(handed.id);
            return Some(handed.body);
        }
        let page = state.pages.get_mut(client)?;
        let next = page.queued.pop_front()?;
        page.running = Some(next.id);
        Some(next.body)
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
        let mut state = self.state.lock();
        if let Some(w) = state.waiting.remove(id) {
            state.handovers.retain(|_, q| q.id != id);
            if let Some(page) = state.pages.get_mut(&w.client) {
                page.queued.retain(|q| q.id != id);
                if page.running.as_deref() == Some(id) {
                    page.running = None;
                }
                page.wake.notify_waiters();
            }
        }
    }

    /// Delivers a page's answer; false when nobody waits for `id` (unknown, or timed out).
    pub(crate) fn complete(&self, id: &str, result: &Value) -> bool {
        let mut state = self.state.lock();
        let Some(mut w) = state.waiting.remove(id) else {
            return false;
        };
        let page = state.pages.entry(w.client.clone()).or_default();
        if page.running.as_deref() == Some(id) {
            page.running = None;
        }
        page.wake.notify_waiters();
        let mut steps: Vec<Value> = result
            .get("steps")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        log_actions(page, id, &steps);
        if let Some(handover) = result.get("handover") {
            // The page is navigating: keep what ran, and give the rest to the next page load in its tab.
            let tab = handover.get("tab").and_then(Value::as_str).unwrap_or("").to_owned();
            let remaining = handover.get("remaining").cloned().unwrap_or(Value::Array(Vec::new()));
            let offset = handover
                .get("offset")
                .and_then(Value::as_u64)
                .unwrap_or(steps.len() as u64);
            if !tab.is_empty() && remaining.is_array() {
                let body = serde_json::json!({ "id": id, "steps": remaining, "offset": offset }).to_string();
                state.handovers.insert(
                    tab,
                    Queued {
                        id: id.to_owned(),
                        body: Arc::new(body),
                    },
                );
                w.done_steps.append(&mut steps);
                w.client = String::new();
                state.waiting.insert(id.to_owned(), w);
                return true;
            }
        }
        let page = state.pages.entry(w.client.clone()).or_default();
        if !w.done_steps.is_empty() {
            w.done_steps.append(&mut steps);
            steps = std::mem::take(&mut w.done_steps);
        }
        let mut previous = page.last_snapshot.clone();
        for (i, step) in steps.iter_mut().enumerate() {
            let is_snapshot = step.get("command").and_then(Value::as_str) == Some("snapshot");
            if let (true, Some(Value::String(full))) = (is_snapshot, step.get("result").cloned()) {
                if w.diff_steps.contains(&i) {
                    if let Some(prev) = &previous {
                        step["result"] = Value::String(snapshot::diff(prev, &full));
                    }
                }
                previous = Some(full);
            }
        }
        let full = result.get("snapshot").and_then(Value::as_str).unwrap_or("").to_owned();
        let shown = match (&previous, full.is_empty()) {
            (Some(prev), false) => snapshot::diff(prev, &full),
            _ => full.clone(),
        };
        if !full.is_empty() {
            page.last_snapshot = Some(full.clone());
        } else if previous.is_some() {
            page.last_snapshot = previous;
        }
        let error = steps
            .iter()
            .find_map(|s| s.get("error").and_then(Value::as_str).map(str::to_owned))
            .or_else(|| result.get("error").and_then(Value::as_str).map(str::to_owned));
        let out = BatchResult {
            event: "browser-completed",
            client_id: w.client,
            steps,
            snapshot: shown,
            logs: result
                .get("logs")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            duration: result
                .get("duration")
                .and_then(Value::as_f64)
                .map_or(0, |d| d.max(0.0) as u64),
            error,
            full_snapshot: full,
        };
        // The caller may have given up in the same instant: nothing else to do then.
        let _ = w.tx.send(out);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fifo_one_at_a_time_and_abandon() {
        let q = CommandQueue::default();
        let steps = [json!({"command": "snapshot"})];
        let (a, _ra) = q.enqueue("p", &steps, vec![]).unwrap();
        let (b, _rb) = q.enqueue("p", &steps, vec![]).unwrap();
        let first = q.take("p", None).unwrap();
        assert!(first.contains(&a));
        assert!(q.take("p", None).is_none(), "one batch at a time");
        q.abandon(&b);
        assert!(q.complete(&a, &json!({"steps": [], "snapshot": "x"})));
        assert!(q.take("p", None).is_none(), "the abandoned batch never runs");
        assert!(!q.complete(&b, &json!({})), "unknown ids are refused");
        assert!(q.take("other", None).is_none());
    }

    #[test]
    fn results_diff_after_the_first_snapshot() {
        let q = CommandQueue::default();
        let steps = [json!({"command": "snapshot", "diff": true})];
        let diff_steps = validate_steps(&steps).unwrap();
        let (a, mut ra) = q.enqueue("p", &steps, diff_steps.clone()).unwrap();
        q.take("p", None);
        q.complete(&a, &json!({"steps": [{"index":0,"command":"snapshot","result":"button \"A\" [ref=e1]"}], "snapshot": "button \"A\" [ref=e1]", "duration": 5}));
        let r = ra.try_recv().unwrap();
        assert_eq!(
            r.steps[0]["result"], "button \"A\" [ref=e1]",
            "the first snapshot is full"
        );
        assert_eq!(
            r.snapshot, "(no changes)",
            "the final one only says what changed since the step's"
        );
        let (b, mut rb) = q.enqueue("p", &steps, diff_steps).unwrap();
        q.take("p", None);
        q.complete(&b, &json!({"steps": [{"index":0,"command":"snapshot","result":"button \"B\" [ref=e1]"}], "snapshot": "button \"B\" [ref=e1]"}));
        let r = rb.try_recv().unwrap();
        assert_eq!(r.steps[0]["result"], "~ button \"B\" [ref=e1]");
        assert_eq!(r.snapshot, "(no changes)");
        assert_eq!(r.full_snapshot, "button \"B\" [ref=e1]");
    }

    #[test]
    fn a_batch_without_snapshot_step_carries_the_full_snapshot_first() {
        let q = CommandQueue::default();
        let steps = [json!({"command": "click", "text": "A"})];
        let (a, mut ra) = q.enqueue("p", &steps, vec![]).unwrap();
        q.take("p", None);
        q.complete(
            &a,
            &json!({"steps": [{"index":0,"command":"click","error":"No button"}], "snapshot": "button \"B\" [ref=e2]"}),
        );
        let r = ra.try_recv().unwrap();
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
        let (id, mut rx) = q.enqueue("old", &steps, vec![]).unwrap();
        assert!(q.take("old", Some("tab1")).is_some());
        let partial = json!({"id": id, "steps": [{"index": 0, "command": "navigate", "result": "navigating to /two", "at": 3}],
            "handover": {"tab": "tab1", "remaining": [{"command": "snapshot"}], "offset": 1}});
        assert!(q.complete(&id, &partial));
        assert!(rx.try_recv().is_err(), "the agent waits for the rest");
        assert!(q.take("other-tab-page", Some("tab2")).is_none());
        let rest: Value = serde_json::from_str(&q.take("new", Some("tab1")).unwrap()).unwrap();
        assert_eq!(
            (rest["id"].as_str(), rest["offset"].as_u64()),
            (Some(id.as_str()), Some(1))
        );
        assert_eq!(rest["steps"], json!([{"command": "snapshot"}]));
        q.complete(
            &id,
            &json!({"id": id, "steps": [{"index": 1, "command": "snapshot", "result": "main"}], "snapshot": "main"}),
        );
        let done = rx.try_recv().unwrap();
        assert_eq!(done.client_id, "new");
        assert_eq!(done.steps.len(), 2);
        assert_eq!(done.steps[0]["result"], "navigating to /two");
        assert_eq!(q.actions("old").len(), 1);
        assert_eq!(q.actions("new")[0]["command"], "snapshot");
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
            q.enqueue("p", &[json!({"command":"snapshot"})], vec![]).unwrap();
        }
        assert_eq!(
            q.enqueue("p", &[json!({"command":"snapshot"})], vec![]).unwrap_err(),
            RunError::QueueFull
        );
    }
}
