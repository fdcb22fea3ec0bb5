//! [`LogEntry`]: one stored browser log entry and what it counts in the ring's byte budget.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::protocol::{entry_type, Level};

/// One stored browser log entry.
///
/// Serialized flat: `{seq, t, clientId, type, level, text, page, …the entry's own fields}`, so
/// both clients' fields (MindStudio's and dsh-agent-browser's: `args`, `stack`, `status`, …) stay
/// where a reader expects them.
///
/// ```
/// use browser_agent_core::adapter::AdapterExt;
/// use browser_agent_core::{BrowserAgent, LogQuery};
/// let agent = BrowserAgent::builder().enabled(true).build();
/// agent.ingest_plain(&serde_json::json!({"level": "error", "text": "boom"}), "http://127.0.0.1:3000/");
/// let entry = &agent.logs().query(&LogQuery::default())[0];
/// assert_eq!((entry.seq, entry.text.as_str()), (1, "boom"));
/// ```
#[derive(Debug, Clone, Serialize, PartialEq)]
#[non_exhaustive]
pub struct LogEntry {
    /// Monotonic sequence number assigned by the host (never reused in a process).
    pub seq: u64,
    /// When it happened, epoch milliseconds (the page's clock; the host's when missing).
    pub t: u64,
    /// The page load that sent it (empty for dsh-style entries without one).
    #[serde(rename = "clientId", skip_serializing_if = "String::is_empty")]
    pub client_id: String,
    /// The page's own sequence number for the entry (the host de-duplicates retries by it).
    #[serde(rename = "clientSeq", skip_serializing_if = "Option::is_none")]
    pub client_seq: Option<u64>,
    /// `console`, `error`, `network`, `interaction`, `navigation`, `dropped`, or what a client sent.
    #[serde(rename = "type")]
    pub kind: String,
    /// Given or inferred level.
    pub level: Level,
    /// One readable line (console args joined; `GET /api → 500 Internal Server Error (12 ms)`).
    pub text: String,
    /// The page URL the entry came from (≤ 300 chars).
    pub page: String,
    /// Every other field the client sent, bounded.
    #[serde(flatten)]
    pub fields: Map<String, Value>,
    #[serde(skip)]
    pub(crate) approx_bytes: usize,
}

impl LogEntry {
    /// An entry with no extra fields (its `seq` is assigned when a [`LogBuffer`](crate::LogBuffer) stores it).
    ///
    /// ```
    /// use browser_agent_core::{LogEntry, protocol::Level};
    /// let e = LogEntry::new("console", Level::Warn, "careful", 1_700_000_000_000);
    /// assert_eq!((e.kind.as_str(), e.text.as_str(), e.seq), ("console", "careful", 0));
    /// ```
    pub fn new(kind: &str, level: Level, text: impl Into<String>, t: u64) -> LogEntry {
        let text = text.into();
        LogEntry {
            seq: 0,
            t,
            client_id: String::new(),
            client_seq: None,
            kind: kind.to_owned(),
            level,
            approx_bytes: LogEntry::size(&text, "", "", kind, 0),
            text,
            page: String::new(),
            fields: Map::new(),
        }
    }

    /// What an entry counts in the ring's byte budget: a fixed overhead, its strings, and
    /// `field_bytes` for its other fields (their names and bounded values).
    pub(crate) fn size(text: &str, page: &str, client_id: &str, kind: &str, field_bytes: usize) -> usize {
        96 + text.len() + page.len() + client_id.len() + kind.len() + field_bytes
    }

    /// The entry as `GET /console` shows it, for the logs of a batch's answer.
    pub(crate) fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("entries serialize")
    }

    /// Whether this is a 5xx answer paired with the error that caused it (its `causeSeq`, or an
    /// error in `all` naming it by `answerSeq`): counts count errors, and the pair is one, the
    /// error's.
    pub(crate) fn counted_with_its_cause(&self, all: &[&LogEntry]) -> bool {
        self.kind == entry_type::SERVER
            && self.field_str("source") == Some("response")
            && (self.fields.contains_key(CAUSE_SEQ)
                || all
                    .iter()
                    .any(|o| o.fields.get(ANSWER_SEQ).and_then(Value::as_u64) == Some(self.seq)))
    }

    /// The field `name` as a string, if the client sent one.
    pub fn field_str(&self, name: &str) -> Option<&str> {
        self.fields.get(name).and_then(Value::as_str)
    }
}

/// On a `server` error entry: the `seq` of the 5xx answer it caused, stored before it (its text
/// is in `answer`).
pub(crate) const ANSWER_SEQ: &str = "answerSeq";
/// On a 5xx answer's `server` entry: the `seq` of the error that caused it, stored before it (its
/// text is in `cause`).
pub(crate) const CAUSE_SEQ: &str = "causeSeq";

/// The entry types the page client sends ([`entry_type`]); `type=` (`GET /console`) accepts them and
/// [`entry_type::SERVER`] (the host's own, [`HOST_TYPES`]). The error message lists these.
pub(crate) const TYPES: [&str; 8] = [
    entry_type::CONSOLE,
    entry_type::ERROR,
    entry_type::NETWORK,
    entry_type::WEBSOCKET,
    entry_type::DIALOG,
    entry_type::INTERACTION,
    entry_type::NAVIGATION,
    entry_type::DROPPED,
];

/// The entry types the host itself stores: a dev server's error lines.
pub(crate) const HOST_TYPES: [&str; 1] = [entry_type::SERVER];

/// The entry types `type=` accepts, as a list for a message: `console, error, … or dropped`.
pub(crate) fn type_list() -> String {
    let all: Vec<&str> = TYPES.iter().chain(HOST_TYPES.iter()).copied().collect();
    format!("{} or {}", all[..all.len() - 1].join(", "), all[all.len() - 1])
}
