//! The per-page queues: a batch waits in its page's FIFO, the page takes one at a time, and a
//! batch that is abandoned (its caller gave up) is removed from everywhere.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::{oneshot, Notify};

use super::{BatchResult, RunError, MAX_ACTIONS, MAX_ACTION_BYTES, MAX_BASELINE_BYTES, MAX_PAGES, MAX_QUEUED};
use crate::protocol::{field, Delivery, StepResult};

/// A batch waiting for a page: what [`CommandQueue::take`] delivers.
#[derive(Debug)]
pub(super) struct Queued {
    pub(super) id: String,
    pub(super) steps: Vec<Value>,
    /// Set on the rest of a handed-over batch.
    pub(super) offset: Option<u64>,
    /// The page that handed the rest over (empty: queued by the agent).
    pub(super) from: String,
}

#[derive(Debug, Default)]
pub(super) struct PageQueue {
    pub(super) queued: VecDeque<Queued>,
    pub(super) running: Option<String>,
    pub(super) wake: Arc<Notify>,
    pub(super) last_snapshot: Option<String>,
    /// The action log, each record as compact JSON (a `Value` per record took ~1.8 KB of heap;
    /// its text takes ~300 B).
    pub(super) actions: VecDeque<Box<str>>,
    /// Bytes of `actions`' records.
    pub(super) action_bytes: usize,
    /// When it was last used ([`State::tick`]): the least recently used idle page is freed first.
    pub(super) used: u64,
}

/// An end of a waiting batch earlier than its own timeout (`ending.rs` decides when).
#[derive(Debug)]
pub(super) struct Early {
    pub(super) at: Instant,
    pub(super) why: EarlyEnd,
}

#[derive(Debug)]
pub(super) enum EarlyEnd {
    /// The page running it said it left: the message to fail with unless its results come.
    Left(String),
    /// Handed over at `since` (to `url`, when the page said where it went): no page of its tab took it yet.
    Handover { url: Option<String>, since: Instant },
}

#[derive(Debug)]
pub(super) struct Waiting {
    /// The page running it (changes when a navigation hands the batch to the next page load).
    pub(super) client: String,
    pub(super) diff_steps: Vec<usize>,
    /// Step results from pages the batch has already left.
    pub(super) done_steps: Vec<StepResult>,
    /// Log entries those pages sent with them.
    pub(super) done_logs: Vec<Value>,
    pub(super) tx: oneshot::Sender<Result<BatchResult, RunError>>,
    /// An end earlier than the batch's own timeout, and why.
    pub(super) early: Option<Early>,
    /// Told whenever `early` changes, so the caller waits for the right deadline.
    pub(super) changed: Arc<Notify>,
    /// When the caller gives up on the batch (its `timeoutMs`): sent to the page with the batch,
    /// so a page still running it then stops instead of acting after the agent got its timeout.
    pub(super) deadline: Instant,
    /// When it was queued, and when the last page it was handed to took it: a batch that crossed
    /// a navigation is timed from the first, its later steps' `at` shifted by the second.
    pub(super) queued: Instant,
    pub(super) resumed: Option<Instant>,
}

/// What the caller of [`CommandQueue::enqueue`] holds: the batch id, the receiver of its outcome,
/// and the signal that its deadline changed (see [`CommandQueue::deadline`]).
#[derive(Debug)]
pub(crate) struct Ticket {
    pub(super) id: String,
    pub(super) rx: oneshot::Receiver<Result<BatchResult, RunError>>,
    pub(super) changed: Arc<Notify>,
}

/// Per-page queues and the batches waiting for results.
#[derive(Debug, Default)]
pub(crate) struct CommandQueue {
    pub(super) state: Mutex<State>,
}

#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) pages: HashMap<String, PageQueue>,
    pub(super) waiting: HashMap<String, Waiting>,
    /// Batches handed over by a navigating page, waiting for the next page load in the same tab.
    pub(super) handovers: HashMap<String, Queued>,
    /// A counter that orders the pages' uses.
    pub(super) tick: u64,
    /// The held poll of each page that holds one, by its serial: a newer poll of the same page
    /// (the leader tab polling again for a new set of tabs) ends the older one with a 204, so
    /// the older one is never aborted by the page while the host may be handing it a batch.
    /// An entry lives as long as its poll ([`CommandQueue::release`]).
    pub(super) holds: HashMap<String, u64>,
}

/// The command state of `client`, made when it has none (freeing the least recently used idle
/// pages' past [`MAX_PAGES`]), marked as just used.
pub(super) fn page_mut<'a>(state: &'a mut State, client: &str) -> &'a mut PageQueue {
    if !state.pages.contains_key(client) && state.pages.len() >= MAX_PAGES {
        prune(state, MAX_PAGES - 1);
    }
    state.tick += 1;
    let tick = state.tick;
    let page = state.pages.entry(client.to_owned()).or_default();
    page.used = tick;
    page
}

/// The idle pages (nothing queued or running, no poll held, no batch waiting for them), least
/// recently used first: only these may be freed.
fn idle_pages(state: &State) -> Vec<(u64, String)> {
    let busy: std::collections::HashSet<&str> = state.waiting.values().map(|w| w.client.as_str()).collect();
    let mut idle: Vec<(u64, String)> = state
        .pages
        .iter()
        // A page whose poll is held (it holds the wake-up) is in use, even with nothing queued.
        .filter(|(id, p)| {
            p.queued.is_empty() && p.running.is_none() && Arc::strong_count(&p.wake) == 1 && !busy.contains(id.as_str())
        })
        .map(|(id, p)| (p.used, id.clone()))
        .collect();
    idle.sort_unstable();
    idle
}

/// Frees idle pages, least recently used first, until at most `keep` pages are left (busy pages
/// are never freed).
fn prune(state: &mut State, keep: usize) {
    let excess = state.pages.len().saturating_sub(keep);
    for (_, id) in idle_pages(state).into_iter().take(excess) {
        state.pages.remove(&id);
    }
}

/// Keeps the snapshot baselines within [`MAX_BASELINE_BYTES`] in all, freeing the least recently
/// used pages' first (`keep`, the page that just stored one, keeps its own).
pub(super) fn bound_baselines(state: &mut State, keep: &str) {
    let mut total: usize = state
        .pages
        .values()
        .filter_map(|p| p.last_snapshot.as_ref())
        .map(String::len)
        .sum();
    if total <= MAX_BASELINE_BYTES {
        return;
    }
    let mut by_age: Vec<(u64, String)> = state
        .pages
        .iter()
        .filter(|(id, p)| p.last_snapshot.is_some() && id.as_str() != keep)
        .map(|(id, p)| (p.used, id.clone()))
        .collect();
    by_age.sort_unstable();
    for (_, id) in by_age {
        if total <= MAX_BASELINE_BYTES {
            break;
        }
        if let Some(freed) = state.pages.get_mut(&id).and_then(|p| p.last_snapshot.take()) {
            total -= freed.len();
        }
    }
}

/// Keeps the action logs within [`MAX_ACTION_BYTES`] in all, dropping the least recently used
/// pages' logs first (`keep`, the page that just logged, keeps its own).
pub(super) fn bound_actions(state: &mut State, keep: &str) {
    let mut total: usize = state.pages.values().map(|p| p.action_bytes).sum();
    if total <= MAX_ACTION_BYTES {
        return;
    }
    let mut by_age: Vec<(u64, String)> = state
        .pages
        .iter()
        .filter(|(id, p)| p.action_bytes > 0 && id.as_str() != keep)
        .map(|(id, p)| (p.used, id.clone()))
        .collect();
    by_age.sort_unstable();
    for (_, id) in by_age {
        if total <= MAX_ACTION_BYTES {
            break;
        }
        if let Some(page) = state.pages.get_mut(&id) {
            total -= std::mem::take(&mut page.action_bytes);
            page.actions = VecDeque::new();
        }
    }
}

/// Appends a batch's executed steps to the page's action log (bounded), with the host's clock.
pub(super) fn log_actions(page: &mut PageQueue, batch: &str, steps: &[StepResult]) {
    let now = crate::util::now_ms();
    for step in steps {
        let mut record = serde_json::json!({ "batch": batch, "t": now });
        if let Some(index) = step.index {
            record[field::INDEX] = index.into();
        }
        if !step.command.is_empty() {
            record[field::COMMAND] = step.command.clone().into();
        }
        for key in [field::AT, field::TARGET, field::VIEWPORT, field::MATCHED] {
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
        // A result that is no string (an `evaluate`'s object, a screenshot's id and size) is kept
        // as its JSON text, cut as a string is.
        let result = match &step.result {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        };
        if let Some(mut r) = result {
            crate::util::truncate_marked(&mut r, 200);
            record[field::RESULT] = Value::String(r);
        }
        let record: Box<str> = record.to_string().into();
        page.action_bytes += record.len();
        page.actions.push_back(record);
        if page.actions.len() > MAX_ACTIONS {
            if let Some(old) = page.actions.pop_front() {
                page.action_bytes -= old.len();
            }
        }
    }
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
        let page = page_mut(&mut state, client);
        if page.queued.len() >= MAX_QUEUED {
            return Err(RunError::QueueFull);
        }
        page.queued.push_back(Queued {
            id: id.clone(),
            steps: steps.to_vec(),
            offset: None,
            from: String::new(),
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
                queued: Instant::now(),
                resumed: None,
            },
        );
        Ok(Ticket { id, rx, changed })
    }

    /// The wake-up a poller of `client` waits on.
    pub(crate) fn wake(&self, client: &str) -> Arc<Notify> {
        page_mut(&mut self.state.lock(), client).wake.clone()
    }

    /// Hands `client` its next batch (its `timeout_ms` is what is left of the batch's time),
    /// unless one is running: first the rest of a batch its tab handed over while navigating, then
    /// its own queue.
    pub(crate) fn take(&self, client: &str, tab: Option<&str>) -> Option<Delivery> {
        let mut state = self.state.lock();
        let Queued { id, steps, offset, .. } = Self::take_body(&mut state, client, tab)?;
        let left = state
            .waiting
            .get(&id)
            .map_or(0, |w| w.deadline.saturating_duration_since(Instant::now()).as_millis());
        Some(Delivery {
            timeout_ms: u64::try_from(left).unwrap_or(u64::MAX),
            id,
            steps,
            offset,
            client: None,
        })
    }

    /// Whether the rest of a navigating batch waits for the next page of its tab: pages then send
    /// their tab id (see [`HANDOVER_HEADER`](crate::protocol::HANDOVER_HEADER)).
    pub(crate) fn handover_waiting(&self) -> bool {
        !self.state.lock().handovers.is_empty()
    }

    /// Wakes every held poll when a batch waits for the page of `tab`: a page covered by another's
    /// poll just named its tab in a heartbeat, and the poll that covers it should look again.
    pub(crate) fn wake_for_tab(&self, tab: &str) {
        let state = self.state.lock();
        if state.handovers.contains_key(tab) {
            wake_all_polls(&state);
        }
    }

    /// Registers a held poll of `client` and returns its serial; the poll it replaces (if any)
    /// is woken and ends, since [`CommandQueue::holds`] is false for it from now on.
    pub(crate) fn hold(&self, client: &str) -> u64 {
        let mut state = self.state.lock();
        state.tick += 1;
        let serial = state.tick;
        if state.holds.insert(client.to_owned(), serial).is_some() {
            if let Some(page) = state.pages.get(client) {
                page.wake.notify_waiters();
            }
        }
        serial
    }

    /// Whether the poll `serial` of `client` is still its newest.
    pub(crate) fn holds(&self, client: &str, serial: u64) -> bool {
        self.state.lock().holds.get(client) == Some(&serial)
    }

    /// The poll `serial` of `client` ended (answered, or dropped with its connection).
    pub(crate) fn release(&self, client: &str, serial: u64) {
        let mut state = self.state.lock();
        if state.holds.get(client) == Some(&serial) {
            state.holds.remove(client);
        }
    }

    pub(super) fn take_body(state: &mut State, client: &str, tab: Option<&str>) -> Option<Queued> {
        // A poll is a use: the page's state is among the last freed.
        state.tick += 1;
        let tick = state.tick;
        if let Some(page) = state.pages.get_mut(client) {
            page.used = tick;
        }
        if state.pages.get(client).is_some_and(|p| p.running.is_some()) {
            return None;
        }
        // A rest handed to this page by name (a tab a step opened), else to its tab. (Every poll
        // passes here: nothing is built while no handover waits.)
        let handed = if state.handovers.is_empty() {
            None
        } else {
            let to_page = format!("{}{client}", crate::protocol::HANDOVER_TO_PAGE);
            (state.handovers.remove(&to_page)).or_else(|| tab.and_then(|t| state.handovers.remove(t)))
        };
        if let Some(handed) = handed {
            if let Some(w) = state.waiting.get_mut(&handed.id) {
                w.client = client.to_owned();
                w.resumed = Some(Instant::now());
                // The next page connected: from now on the batch's own timeout applies.
                w.early = None;
                w.changed.notify_one();
            }
            let page = page_mut(state, client);
            page.running = Some(handed.id.clone());
            // Another page taking it (one restored from the back/forward cache): the agent's last
            // view is the page that handed over, not what this one showed before, so its next
            // snapshot is whole. The same document taking its own rest back (a single-page app's
            // `back`, a `#hash`) keeps the baseline its handover just stored.
            if handed.from != client {
                page.last_snapshot = None;
            }
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

    /// How many pages have command state, the bytes of their snapshot baselines, and of their
    /// action logs.
    #[cfg(test)]
    pub(crate) fn footprint(&self) -> (usize, usize, usize) {
        let state = self.state.lock();
        let bytes = state
            .pages
            .values()
            .filter_map(|p| p.last_snapshot.as_ref())
            .map(String::len)
            .sum();
        let actions = state.pages.values().map(|p| p.action_bytes).sum();
        (state.pages.len(), bytes, actions)
    }

    /// The action log of `client`: every executed step, oldest first.
    pub(crate) fn actions(&self, client: &str) -> Vec<Value> {
        self.state
            .lock()
            .pages
            .get(client)
            .map(|p| p.actions.iter().filter_map(|r| serde_json::from_str(r).ok()).collect())
            .unwrap_or_default()
    }

    /// Frees the command state (action log, snapshot baseline, empty queue) of every idle page
    /// `wanted` says no to: pages gone, expired or evicted from the registry. Returns how many.
    pub(crate) fn retain_pages(&self, wanted: impl Fn(&str) -> bool) -> usize {
        let mut state = self.state.lock();
        let mut freed = 0;
        for (_, id) in idle_pages(&state) {
            if !wanted(&id) {
                state.pages.remove(&id);
                freed += 1;
            }
        }
        freed
    }

    /// Removes a batch that timed out: from the queue if it never ran, and frees its page.
    pub(crate) fn abandon(&self, id: &str) {
        remove(&mut self.state.lock(), id);
    }
}

/// Removes batch `id` from everywhere (waiting, a page's queue, a handover) and frees its page.
pub(super) fn remove(state: &mut State, id: &str) -> Option<Waiting> {
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

/// Wakes every held poll: each looks again for a batch (one woken for nothing waits on).
pub(super) fn wake_all_polls(state: &State) {
    for page in state.pages.values() {
        page.wake.notify_waiters();
    }
}
