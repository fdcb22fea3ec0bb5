//! The batch a page's command poll delivers (feature `json`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A batch as `GET {prefix}/commands` delivers it to the page:
/// `{"timeoutMs","id","steps"[,"offset"]}`.
///
/// ```
/// use browser_agent_protocol::Delivery;
/// let d: Delivery = serde_json::from_str(r#"{"timeoutMs":900,"id":"ab12","steps":[{"command":"snapshot"}]}"#).unwrap();
/// assert_eq!((d.timeout_ms, d.id.as_str(), d.steps.len(), d.offset), (900, "ab12", 1, None));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// What is left of the batch's time, in milliseconds ([`crate::field::TIMEOUT_MS`]).
    #[serde(rename = "timeoutMs")]
    pub timeout_ms: u64,
    /// The batch id ([`crate::field::ID`]).
    pub id: String,
    /// The steps to run ([`crate::field::STEPS`]).
    pub steps: Vec<Value>,
    /// Index of the first step within the agent's batch, after a handover ([`crate::field::OFFSET`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// The page to run it, when the poll covered several ([`crate::field::CLIENT`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}
