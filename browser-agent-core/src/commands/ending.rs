//! How a batch ends other than by its page's answer: its own timeout, its page leaving (the
//! `gone` beacon, with a grace for results sent in the same `pagehide`), or a handover no page of
//! the tab took; and the caller's wait for whichever comes first ([`Ticket::wait`]).

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use serde_json::Value;

// `Early` is the queue's record of an early end (a field of its waiting batches); this file decides
// when one comes (`complete.rs` sets the handover's, from the queue too).
use super::queue::{remove, CommandQueue, Early, EarlyEnd, Ticket};
use super::{BatchResult, RunError};
use crate::protocol::StepResult;

impl CommandQueue {
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
        // Still in its page's queue: the page never asked for it.
        let untaken = state
            .pages
            .get(&w.client)
            .is_some_and(|p| p.running.is_none() && p.queued.iter().any(|q| q.id == id));
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
            None if untaken => RunError::NotTaken(Duration::from_millis(timeout_ms)),
            None => RunError::Timeout(Duration::from_millis(timeout_ms)),
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
    /// cache restored it): the batch it runs waits for its results again, and its next snapshot
    /// is whole (the agent has seen other pages since its baseline, which a diff would hide:
    /// "(no changes)" on a page the agent last saw as another).
    pub(crate) fn page_back(&self, client: &str) {
        let mut state = self.state.lock();
        let state = &mut *state;
        if let Some(page) = state.pages.get_mut(client) {
            page.last_snapshot = None;
        }
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
}

/// The message of a handed-over batch no page took within `waited`, with the steps that ran.
fn handover_failed(url: Option<&str>, waited: Duration, steps: &[StepResult]) -> String {
    // Without a URL the page left with no step sending it anywhere: a tab closed looks the same.
    let (whither, why) = match url {
        Some(url) => (
            format!("navigated to {url}"),
            "not an HTML page served through this dev server?",
        ),
        None => (
            "navigated away or was closed".to_owned(),
            "its tab closed, or it left for a page not served through this dev server?",
        ),
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
        "The page {whither} and no browser-agent client started there within {secs} ({why}); the steps before it ran: {ran}"
    )
}

impl Ticket {
    /// Waits for the batch's outcome: its page's answer, its own `timeout`, or an earlier end the
    /// queue sets (its page left, a handover nobody took). If the caller stops waiting (its
    /// timeout, or its HTTP request went away), the batch is removed and never runs later.
    pub(crate) async fn wait(self, queue: &CommandQueue, timeout: Duration) -> Result<BatchResult, RunError> {
        struct Abandon<'a>(&'a CommandQueue, &'a str);
        impl Drop for Abandon<'_> {
            fn drop(&mut self) {
                self.0.abandon(self.1);
            }
        }
        let Ticket { id, mut rx, changed } = self;
        let _guard = Abandon(queue, &id);
        let overall = Instant::now() + timeout;
        let timeout_ms = timeout.as_millis() as u64;
        loop {
            // The batch's own timeout, or an earlier end the queue set (its page left).
            let deadline = queue.deadline(&id).map_or(overall, |d| d.min(overall));
            let mut changed = std::pin::pin!(changed.notified());
            let outcome = poll_fn(|cx| {
                if let Poll::Ready(outcome) = Pin::new(&mut rx).poll(cx) {
                    return Poll::Ready(Some(outcome));
                }
                changed.as_mut().poll(cx).map(|()| None)
            });
            match tokio::time::timeout_at(deadline.into(), outcome).await {
                Ok(Some(Ok(outcome))) => return outcome,
                Ok(Some(Err(_))) => return Err(RunError::Timeout(Duration::from_millis(timeout_ms))),
                Ok(None) => {}
                Err(_) => {
                    if let Some(err) = queue.expire(&id, deadline, overall, timeout_ms) {
                        return Err(err);
                    }
                }
            }
        }
    }
}
