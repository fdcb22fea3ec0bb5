//! A batch whose page closed itself ([`CLOSES_ITSELF`]: an OAuth popup after "Allow"): its own
//! snapshot would show a page that is gone, so the answer shows what changed in the page that
//! opened it, the one the agent goes on with, and that page's entries of the batch's time (the
//! request the popup's message made it send).

use serde_json::json;

use crate::commands::{Batch, BatchResult};
use crate::logs::LogQuery;
use crate::protocol::{field, CLOSES_ITSELF};
use crate::BrowserAgent;

impl BrowserAgent {
    /// When `result`'s page closed itself and has an opener: `result.snapshot` becomes the
    /// opener's change since the agent last saw it, and its entries since `since_ms` join the
    /// logs. Anything that fails here leaves the answer as it was.
    pub(crate) async fn opener_after_close(&self, result: &mut BatchResult, since_ms: u64) {
        let closed = result
            .steps
            .iter()
            .any(|s| s.result_str().is_some_and(|t| t.contains(CLOSES_ITSELF)));
        if !closed {
            return;
        }
        let Some(opener) = self
            .inner
            .clients
            .get(&result.client_id)
            .map(|r| r.opener)
            .filter(|o| !o.is_empty())
        else {
            return;
        };
        // The snapshot step waits for the opener's requests to go quiet (the popup's message
        // started them before it closed).
        let look = Batch::new(vec![json!({"command": "snapshot", "diff": true})]).client(opener.clone());
        let Ok(look) = self.run_with_hint(look, None).await else {
            return;
        };
        let Some(diff) = look.steps.first().and_then(|s| s.result_str()) else {
            return;
        };
        result.snapshot = format!("(this page closed itself; its opener {opener}:)\n{diff}");
        let query = LogQuery {
            client: Some(opener),
            since_ms: Some(since_ms),
            ..LogQuery::default()
        };
        for entry in self.inner.logs.query(&query) {
            let entry = entry.to_json();
            let seq = entry.get(field::SEQ);
            if !result.logs.iter().any(|l| l.get(field::SEQ) == seq) {
                result.logs.push(entry);
            }
        }
    }
}
