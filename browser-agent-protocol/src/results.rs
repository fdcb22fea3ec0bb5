//! What a page posts when a batch ends: the step results, the handover of a navigating page,
//! the results post itself (feature `json`). Read leniently: a field of the wrong type counts as
//! missing, and nothing the page sent is lost.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One step's outcome in a results post: `{index, command, result?, error?, elapsed?, …}`.
/// The page's other fields (`at`, `target`, `viewport`, `matched`) are kept in `other`, and so
/// is a known field of an unexpected type: nothing the page sent is lost.
///
/// ```
/// use browser_agent_protocol::StepResult;
/// let s: StepResult = serde_json::from_str(r#"{"index":0,"command":"click","error":"No button","at":3}"#).unwrap();
/// assert_eq!((s.command.as_str(), s.error.as_deref()), ("click", Some("No button")));
/// assert_eq!(s.other["at"], 3);
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StepResult {
    /// The step's index within the agent's batch ([`crate::field::INDEX`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    /// The step's command ([`crate::field::COMMAND`]; empty when the page sent none).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// Its value (a snapshot's text, an evaluation's result, …) ([`crate::field::RESULT`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Why it failed ([`crate::field::ERROR`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its run time in milliseconds ([`crate::field::ELAPSED`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed: Option<Value>,
    /// Every other field the page sent (`at`, `target`, `viewport`, `matched`, …).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl StepResult {
    /// The result as text, when it is a string.
    pub fn result_str(&self) -> Option<&str> {
        self.result.as_ref().and_then(Value::as_str)
    }

    /// Takes a step result apart; a value that is not an object gives an empty one.
    pub fn from_value(v: Value) -> StepResult {
        let Value::Object(mut other) = v else {
            return StepResult::default();
        };
        let mut take = |name: &str, keep: fn(&Value) -> bool| match other.get(name) {
            Some(v) if keep(v) => other.remove(name),
            _ => None,
        };
        let index = take(crate::field::INDEX, Value::is_u64).and_then(|v| v.as_u64());
        let command = match take(crate::field::COMMAND, Value::is_string) {
            Some(Value::String(c)) => c,
            _ => String::new(),
        };
        let error = match take(crate::field::ERROR, Value::is_string) {
            Some(Value::String(e)) => Some(e),
            _ => None,
        };
        let elapsed = take(crate::field::ELAPSED, Value::is_number);
        let result = take(crate::field::RESULT, |_| true);
        StepResult {
            index,
            command,
            result,
            error,
            elapsed,
            other,
        }
    }
}

impl<'de> Deserialize<'de> for StepResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(StepResult::from_value)
    }
}

/// The rest of a batch a navigating page hands to the next page of its tab:
/// `{tab, remaining, offset, url?}`.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Handover {
    /// The tab whose next page takes the rest ([`crate::field::TAB`]); empty: no handover. Or
    /// [`HANDOVER_TO_PAGE`](crate::HANDOVER_TO_PAGE) and a client id: the page that takes it (a tab a step opened).
    pub tab: String,
    /// The steps not yet run ([`crate::field::REMAINING`]; missing is none; `None` when it is
    /// not an array, which makes the whole handover void).
    pub remaining: Option<Vec<Value>>,
    /// Index of the first remaining step within the agent's batch ([`crate::field::OFFSET`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Where the navigation went ([`crate::field::URL`]; `None` when missing or empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl Handover {
    /// Takes a handover apart, leniently: a field of the wrong type counts as missing.
    pub fn from_value(v: &Value) -> Handover {
        let field = |name: &str| v.get(name);
        Handover {
            tab: field(crate::field::TAB)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            remaining: match field(crate::field::REMAINING) {
                None => Some(Vec::new()),
                Some(Value::Array(steps)) => Some(steps.clone()),
                Some(_) => None,
            },
            offset: field(crate::field::OFFSET).and_then(Value::as_u64),
            url: field(crate::field::URL)
                .and_then(Value::as_str)
                .filter(|u| !u.is_empty())
                .map(str::to_owned),
        }
    }

    /// Whether it hands anything over: a tab, and the remaining steps as an array.
    pub fn is_valid(&self) -> bool {
        !self.tab.is_empty() && self.remaining.is_some()
    }
}

impl<'de> Deserialize<'de> for Handover {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(|v| Handover::from_value(&v))
    }
}

/// What a page posts to `POST {prefix}/results`: `{id, steps, snapshot, logs, duration, handover?}`.
/// Read leniently, as the host always has: a field of the wrong type counts as missing (the
/// route refuses a missing `id` and `logs` that are not an array).
///
/// ```
/// use browser_agent_protocol::Results;
/// let r: Results = serde_json::from_str(r#"{"id":"ab12","steps":[],"snapshot":"main","duration":4,
///     "handover":{"tab":"t1","remaining":[{"command":"snapshot"}],"offset":1}}"#).unwrap();
/// assert_eq!((r.id.as_deref(), r.duration), (Some("ab12"), 4));
/// assert_eq!(r.handover.unwrap().tab, "t1");
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Results {
    /// The batch id ([`crate::field::ID`]).
    pub id: Option<String>,
    /// One result per executed step ([`crate::field::STEPS`]).
    pub steps: Vec<StepResult>,
    /// The snapshot after the batch ([`crate::field::SNAPSHOT`]).
    pub snapshot: String,
    /// The log entries captured while it ran, as sent ([`crate::field::LOGS`]).
    pub logs: Option<Value>,
    /// Its run time in milliseconds ([`crate::field::DURATION`]).
    pub duration: u64,
    /// A batch-level error ([`crate::field::ERROR`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Present when the page navigates: the rest of the batch ([`crate::field::HANDOVER`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handover: Option<Handover>,
    /// The snapshot shows an open modal dialog alone ([`crate::field::MODAL`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub modal: bool,
}

impl Results {
    /// Takes a results post apart (see the type's documentation for how leniently).
    pub fn from_value(mut v: Value) -> Results {
        let mut take = |name: &str| v.get_mut(name).map(Value::take);
        let string = |v: Option<Value>| match v {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let id = string(take(crate::field::ID));
        let steps = match take(crate::field::STEPS) {
            Some(Value::Array(steps)) => steps.into_iter().map(StepResult::from_value).collect(),
            _ => Vec::new(),
        };
        let snapshot = string(take(crate::field::SNAPSHOT)).unwrap_or_default();
        let logs = take(crate::field::LOGS);
        let duration = take(crate::field::DURATION)
            .and_then(|d| d.as_f64())
            .map_or(0, |d| d.max(0.0) as u64);
        let error = string(take(crate::field::ERROR));
        let handover = take(crate::field::HANDOVER).map(|h| Handover::from_value(&h));
        let modal = take(crate::field::MODAL).and_then(|m| m.as_bool()) == Some(true);
        Results {
            id,
            steps,
            snapshot,
            logs,
            duration,
            error,
            handover,
            modal,
        }
    }
}

impl<'de> Deserialize<'de> for Results {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(Results::from_value)
    }
}
