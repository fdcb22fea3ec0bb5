//! Native dialogs (`alert`, `confirm`, `prompt`, and `beforeunload`'s "Leave site?"), host side:
//! the policy a batch or a step sets ([`DialogPolicy`], folded into the steps, which the page
//! reads), its checks, the one-line text of a `dialog` log entry, and the dialogs a batch's answer
//! reports ([`DialogRecord`]): those its steps met, then those any page answered on its own while
//! no batch ran (an agent attached, no person acting), since the last answer that reported them.
//!
//! The page side: the bootstrap's wrappers (`browser-agent-client/bootstrap/bootstrap.js`) and
//! the hands' policy (`browser-agent-client/src/commands/dialogs.rs`).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::protocol::dialogs::{self as names, ACCEPT, DIALOG, DISMISS, PROMPT_TEXT};
use crate::protocol::entry_type;

/// How the native dialogs a batch meets are answered: OK ([`Accept`](Self::Accept), the default:
/// the agent's click on "Delete" meant to delete, as the person acting through it would), Cancel
/// ([`Dismiss`](Self::Dismiss)), or OK with a text for a `prompt` ([`PromptText`](Self::PromptText)).
/// `beforeunload` (a page that asks to stay when the agent navigates away) leaves on OK, stays on
/// Cancel. The JSON fields are `"dialog": "accept" | "dismiss"` and `"promptText"`, on the batch
/// or on a step.
///
/// ```
/// use browser_agent_core::{Batch, DialogPolicy};
/// let steps = vec![serde_json::json!({"command": "click", "text": "Delete"})];
/// let batch = Batch::new(steps).dialogs(DialogPolicy::Dismiss);
/// assert_eq!(batch.steps[0]["dialog"], "dismiss");
/// assert_eq!(DialogPolicy::default(), DialogPolicy::Accept);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DialogPolicy {
    /// OK: `alert` closed, `confirm` true, `prompt` its own default text, `beforeunload` leaves.
    #[default]
    Accept,
    /// Cancel: `confirm` false, `prompt` null, `beforeunload` stays on the page.
    Dismiss,
    /// OK, and a `prompt` answers this text.
    PromptText(String),
}

impl DialogPolicy {
    /// Sets the policy on each of `steps` that sets neither field of its own.
    pub(crate) fn apply(&self, steps: &mut [Value]) {
        for step in steps.iter_mut().filter_map(Value::as_object_mut) {
            if step.get(DIALOG).is_some_and(|v| !v.is_null()) || step.get(PROMPT_TEXT).is_some_and(|v| !v.is_null()) {
                continue;
            }
            match self {
                DialogPolicy::Accept => step.insert(DIALOG.into(), ACCEPT.into()),
                DialogPolicy::Dismiss => step.insert(DIALOG.into(), DISMISS.into()),
                DialogPolicy::PromptText(text) => step.insert(PROMPT_TEXT.into(), text.as_str().into()),
            };
        }
    }

    /// The batch-level fields of a request (`POST /run`'s body, MCP's `browser_run`, a stdio
    /// line), checked as a step's are; `None` when it sets neither.
    /// The error is the text of the 400.
    pub(crate) fn from_request(obj: &Map<String, Value>) -> Result<Option<DialogPolicy>, String> {
        let bad = |why: String| format!("batch field {why}");
        let dialog = match obj.get(DIALOG) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.eq_ignore_ascii_case(ACCEPT) => Some(false),
            Some(Value::String(s)) if s.eq_ignore_ascii_case(DISMISS) => Some(true),
            Some(v) => {
                return Err(bad(format!(
                    "\"{DIALOG}\" must be \"{ACCEPT}\" or \"{DISMISS}\", not {v}"
                )))
            }
        };
        let text = match obj.get(PROMPT_TEXT) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => return Err(bad(format!("\"{PROMPT_TEXT}\" must be a string, not {v}"))),
        };
        Ok(match (dialog, text) {
            (Some(true), Some(_)) => return Err(bad(both())),
            (Some(true), None) => Some(DialogPolicy::Dismiss),
            (_, Some(text)) => Some(DialogPolicy::PromptText(text)),
            (Some(false), None) => Some(DialogPolicy::Accept),
            (None, None) => None,
        })
    }
}

/// Why `dismiss` and `promptText` are refused together.
fn both() -> String {
    format!(
        "\"{PROMPT_TEXT}\" is what an accepted prompt answers; with \"{DIALOG}\": \"{DISMISS}\" the prompt answers null: send one, e.g. {{\"{DIALOG}\":\"{DISMISS}\"}} or {{\"{PROMPT_TEXT}\":\"Ada\"}}"
    )
}

/// A step's policy fields together: `dismiss` with a `promptText` is refused (the other checks
/// are the step table's, `COMMON_STEP_FIELDS`).
pub(crate) fn check_step(step: &Value) -> Result<(), String> {
    let dismiss = step
        .get(DIALOG)
        .and_then(Value::as_str)
        .is_some_and(|s| s.eq_ignore_ascii_case(DISMISS));
    if dismiss && step.get(PROMPT_TEXT).is_some_and(Value::is_string) {
        return Err(both());
    }
    Ok(())
}

/// One native dialog a page answered, as a batch's answer reports it (`"dialogs"` in the JSON,
/// a `dialog:` line in MCP's text).
///
/// ```
/// use browser_agent_core::BatchResult;
/// fn said(result: &BatchResult) {
///     for d in &result.dialogs {
///         // "step 2: confirm(\"Delete?\") answered OK (true)"
///         println!("{} ({}, accepted: {})", d.text, d.kind, d.accepted);
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DialogRecord {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    /// What it said (a `beforeunload`'s is the `returnValue` the page set, often empty).
    pub message: String,
    /// OK (`beforeunload`: the page was left), or Cancel (it stayed).
    pub accepted: bool,
    /// The text an accepted `prompt` answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The step (its index in the batch, from 0) that was running when it opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    /// Set when it opened while no batch ran: how long before this answer, in ms.
    #[serde(rename = "agoMs", skip_serializing_if = "Option::is_none")]
    pub ago_ms: Option<u64>,
    /// The page that opened it.
    #[serde(rename = "clientId")]
    pub client_id: String,
    /// The line that says it all: `step 2: confirm("Delete?") answered OK (true)`, or `while no
    /// batch ran, the page opened confirm("Delete?") 3.2 s ago; answered OK (true)`.
    pub text: String,
}

/// Characters of a dialog's text shown in its line (the entry keeps more).
const MESSAGE_SHOWN: usize = 200;

/// `confirm("Delete?")`, the text cut at [`MESSAGE_SHOWN`] characters.
fn opened(kind: &str, message: &str) -> String {
    if kind == "beforeunload" {
        return "beforeunload (the page asked to stay)".into();
    }
    let mut shown: String = message.chars().take(MESSAGE_SHOWN).collect();
    if shown.len() < message.len() {
        shown.push('…');
    }
    format!("{kind}({})", Value::from(shown))
}

/// `answered OK (true)`, `answered Cancel (null)`, `answered "Ada"`, `left the page`.
fn answered(kind: &str, answer: Option<&Value>) -> String {
    match (kind, answer) {
        ("beforeunload", Some(Value::Bool(false))) => "stayed on the page".into(),
        ("beforeunload", _) => "left the page".into(),
        (_, Some(Value::Bool(true))) => "answered OK (true)".into(),
        (_, Some(Value::Bool(false))) => "answered Cancel (false)".into(),
        ("prompt", Some(Value::Null)) => "answered Cancel (null)".into(),
        (_, Some(Value::String(text))) => format!("answered {}", Value::from(text.as_str())),
        _ => "answered OK".into(),
    }
}

/// The text of a `dialog` log entry: `confirm("Delete?") answered OK (true)`, and ` while no batch
/// ran` for one the page opened on its own.
pub(crate) fn entry_text(obj: &Map<String, Value>) -> String {
    let kind = obj.get(names::KIND).and_then(Value::as_str).unwrap_or("dialog");
    let message = obj.get(names::MESSAGE).and_then(Value::as_str).unwrap_or("");
    let mut text = format!("{} {}", opened(kind, message), answered(kind, obj.get(names::ANSWER)));
    if obj
        .get(names::OUTSIDE)
        .is_some_and(|v| v.as_bool() == Some(true) || v.as_u64() == Some(1))
    {
        text.push_str(" while no batch ran");
    }
    text
}

/// A stored `dialog` entry (as the answer's logs carry it) as the answer reports it; `now` for
/// how long ago one answered outside a batch was.
pub(crate) fn record(e: &Value, now: u64) -> DialogRecord {
    let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let kind = s(names::KIND);
    let message = s(names::MESSAGE);
    let answer = e.get(names::ANSWER);
    let accepted = !matches!(answer, Some(Value::Bool(false) | Value::Null));
    let outside = e
        .get(names::OUTSIDE)
        .is_some_and(|v| v.as_bool() == Some(true) || v.as_u64() == Some(1));
    let step = e.get(names::STEP).and_then(Value::as_u64).filter(|_| !outside);
    let ago_ms = outside.then(|| now.saturating_sub(e.get("t").and_then(Value::as_u64).unwrap_or(now)));
    let what = format!("{} {}", opened(&kind, &message), answered(&kind, answer));
    let text = match (ago_ms, step) {
        (Some(ago), _) => format!(
            "while no batch ran, the page opened {} {:.1} s ago; {}",
            opened(&kind, &message),
            ago as f64 / 1000.0,
            answered(&kind, answer)
        ),
        (None, Some(i)) => format!("step {}: {what}", i + 1),
        (None, None) => what,
    };
    DialogRecord {
        value: match answer {
            Some(Value::String(v)) if kind == "prompt" => Some(v.clone()),
            _ => None,
        },
        kind,
        message,
        accepted,
        step,
        ago_ms,
        client_id: s("clientId"),
        text,
    }
}

pub(crate) fn is_dialog(e: &Value) -> bool {
    e.get("type").and_then(Value::as_str) == Some(entry_type::DIALOG)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_batch_policy_goes_to_the_steps_that_set_none() {
        let mut steps = vec![
            json!({"command": "click", "text": "Delete"}),
            json!({"command": "click", "text": "Rename", "promptText": "Ada"}),
        ];
        DialogPolicy::Dismiss.apply(&mut steps);
        assert_eq!(steps[0]["dialog"], "dismiss");
        assert!(steps[1].get("dialog").is_none(), "its own policy stays: {}", steps[1]);
        let req = json!({"dialog": "DISMISS"});
        assert_eq!(
            DialogPolicy::from_request(req.as_object().unwrap()).unwrap(),
            Some(DialogPolicy::Dismiss)
        );
        let req = json!({"promptText": "Ada"});
        assert_eq!(
            DialogPolicy::from_request(req.as_object().unwrap()).unwrap(),
            Some(DialogPolicy::PromptText("Ada".into()))
        );
        for bad in [
            json!({"dialog": "ok"}),
            json!({"promptText": 3}),
            json!({"dialog": "dismiss", "promptText": "x"}),
        ] {
            let err = DialogPolicy::from_request(bad.as_object().unwrap()).unwrap_err();
            // (The 400's text: the request parser answers it as `RunError::BadRequest`.)
            assert!(err.starts_with("batch field \""), "{err}");
        }
        assert!(check_step(&json!({"command": "click", "dialog": "dismiss", "promptText": "x"})).is_err());
        assert!(check_step(&json!({"command": "click", "dialog": "accept", "promptText": "x"})).is_ok());
    }

    #[test]
    fn each_dialog_reads_as_one_line() {
        let line = |v: Value| entry_text(v.as_object().unwrap());
        assert_eq!(
            line(json!({"kind": "confirm", "message": "Really remove?", "answer": true})),
            "confirm(\"Really remove?\") answered OK (true)"
        );
        assert_eq!(
            line(json!({"kind": "prompt", "message": "Your name?", "answer": null})),
            "prompt(\"Your name?\") answered Cancel (null)"
        );
        assert_eq!(
            line(json!({"kind": "prompt", "message": "Your name?", "answer": "Ada"})),
            "prompt(\"Your name?\") answered \"Ada\""
        );
        assert_eq!(
            line(json!({"kind": "alert", "message": "Saved", "outside": 1})),
            "alert(\"Saved\") answered OK while no batch ran"
        );
        assert_eq!(
            line(json!({"kind": "beforeunload", "message": "", "answer": false})),
            "beforeunload (the page asked to stay) stayed on the page"
        );
        let r = record(
            &json!({"type": "dialog", "kind": "confirm", "message": "Delete?", "answer": true, "outside": 1, "t": 1_000, "clientId": "c1"}),
            4_200,
        );
        assert_eq!(
            r.text,
            "while no batch ran, the page opened confirm(\"Delete?\") 3.2 s ago; answered OK (true)"
        );
        assert_eq!((r.ago_ms, r.step, r.accepted), (Some(3_200), None, true));
        let r = record(
            &json!({"kind": "confirm", "message": "Delete?", "answer": false, "step": 1}),
            0,
        );
        assert_eq!(r.text, "step 2: confirm(\"Delete?\") answered Cancel (false)");
        assert!(!r.accepted);
    }
}
