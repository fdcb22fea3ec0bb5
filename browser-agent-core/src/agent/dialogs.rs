//! The dialogs a batch's answer reports (`BatchResult::dialogs`): the host's side of
//! [`crate::dialogs`], which holds the policy, the checks and the record.

use std::sync::atomic::Ordering;

use serde_json::Value;

use crate::commands::BatchResult;
use crate::dialogs::{is_dialog, record};
use crate::logs::LogQuery;
use crate::protocol::dialogs as names;
use crate::protocol::entry_type;
use crate::BrowserAgent;

impl BrowserAgent {
    /// Fills `result.dialogs` (the batches of `/run`, MCP, stdio and the Rust API; a look with
    /// `GET /snapshot` leaves them to the next): the dialogs its logs hold (its steps', and those its page answered
    /// while no batch ran, which the page sends with the batch), then those any other page
    /// answered while no batch ran and no answer has reported yet (stored since the last one).
    pub(crate) fn add_dialogs(&self, result: &mut BatchResult) {
        let now = crate::util::now_ms();
        let last = self.inner.logs.last_seq();
        let since = self.inner.dialogs_reported.swap(last, Ordering::Relaxed);
        let seq = |e: &Value| e.get("seq").and_then(Value::as_u64);
        let mut said: Vec<u64> = Vec::new();
        for e in result.logs.iter().filter(|e| is_dialog(e)) {
            result.dialogs.push(record(e, now));
            said.extend(seq(e));
        }
        let query = LogQuery {
            kind: Some(entry_type::DIALOG.to_owned()),
            after_seq: Some(since),
            ..LogQuery::default()
        };
        for entry in self.inner.logs.query(&query) {
            let outside = entry
                .fields
                .get(names::OUTSIDE)
                .is_some_and(|v| v.as_bool() == Some(true) || v.as_u64() == Some(1));
            if outside && entry.seq <= last && !said.contains(&entry.seq) {
                result.dialogs.push(record(&entry.to_json(), now));
            }
        }
    }
}
