//! A page loaded again between the agent's batches (a dev server's reload after a save, the
//! page's own `location.reload()`). Each load is a page of its own whose refs are numbered afresh,
//! so a ref from the earlier load would name another element of this one (`e4` was "Settings",
//! now it is "Remove Sintra"): a batch that names refs on such a page is refused before anything
//! runs, and the answer to any other says the page is a new load.

use serde_json::Value;

use crate::commands::history::ago_text;
use crate::{BrowserAgent, RunError};

/// The page of the agent's last batch was loaded again since: which, and how long ago.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reloaded {
    /// The earlier load's client id.
    pub(crate) previous: String,
    /// How long ago the new load began, ms.
    pub(crate) ago_ms: u64,
}

impl Reloaded {
    /// The line a batch's answer carries under its header.
    pub(crate) fn note(&self) -> String {
        format!(
            "(a new page load: the page was loaded again {} ago, after your last batch (on {}): refs are this load's)",
            ago_text(self.ago_ms),
            self.previous
        )
    }

    /// Why a batch that names `reference` is refused.
    pub(crate) fn refusal(&self, step: usize, reference: &str) -> String {
        format!(
            "step {step} (nothing ran): the page was loaded again {} ago, after your last batch (it ran on {}, \
             now gone), and refs are numbered per page load: {reference:?} would name another element now. \
             Take a snapshot, or target by text, role and name, label or selector",
            ago_text(self.ago_ms),
            self.previous
        )
    }
}

/// A page's URL without its fragment.
fn without_fragment(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// The first step that names a ref (its `ref`, or a drag's `to`): its number (1-based) and the ref.
fn names_ref(steps: &[Value]) -> Option<(usize, String)> {
    steps.iter().enumerate().find_map(|(i, step)| {
        let to = step.get("to");
        let reference = step
            .get("ref")
            .and_then(Value::as_str)
            .or_else(|| to.and_then(|t| t.get("ref")).and_then(Value::as_str))
            .or_else(|| {
                to.and_then(Value::as_str)
                    .filter(|t| crate::protocol::Ref::parse(t).is_some())
            })?;
        Some((i + 1, reference.to_owned()))
    })
}

impl BrowserAgent {
    /// Whether `client` is a new load of the page the agent's last batch ran on: it has run no
    /// batch, that page is gone, and both are the same URL (or the same tab).
    pub(crate) fn reloaded_since_last_batch(&self, client: &str, now: u64) -> Option<Reloaded> {
        let timeline = self.inner.logs.batches().timeline();
        if timeline.ran_on(client) {
            return None;
        }
        let previous = timeline.last_client()?;
        if previous == client {
            return None;
        }
        let clients = &self.inner.clients;
        let (before, current) = (clients.get(previous)?, clients.get(client)?);
        let same_page = without_fragment(&before.page) == without_fragment(&current.page)
            || (!before.tab.is_empty() && before.tab == current.tab);
        (before.gone && same_page).then(|| Reloaded {
            previous: previous.to_owned(),
            ago_ms: now.saturating_sub(current.first_seen_at),
        })
    }

    /// Refuses `steps` on `client` when they name a ref and the page is a new load of the one the
    /// agent's last batch ran on (its refs name other elements here).
    pub(crate) fn refuse_refs_of_an_earlier_load(
        &self,
        client: &str,
        steps: &[Value],
        now: u64,
    ) -> Result<(), RunError> {
        let Some((step, reference)) = names_ref(steps) else {
            return Ok(());
        };
        match self.reloaded_since_last_batch(client, now) {
            Some(reloaded) => Err(RunError::BadRequest(reloaded.refusal(step, &reference))),
            None => Ok(()),
        }
    }

    /// The page a batch would run on: the one it names, else the default target.
    pub(crate) fn batch_target(&self, client: Option<&str>, now: u64) -> Option<String> {
        match client {
            Some(c) => Some(c.to_owned()),
            None => self.inner.clients.default_target(now).map(|r| r.client_id),
        }
    }
}
