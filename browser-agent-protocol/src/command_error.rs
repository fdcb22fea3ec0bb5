//! The `command-error` event: how a failed request answers, over HTTP and stdio alike.

use serde::{Deserialize, Serialize};

use crate::StepResult;

/// The `event` of a failed request's answer.
pub const COMMAND_ERROR: &str = "command-error";

/// The `command-error` event, one shape for HTTP and stdio:
/// `{"event":"command-error","message","error"[,"steps"]}` (`error` repeats `message`, so the
/// body also reads as a plain `{"error"}`; `steps` holds the results of the steps that ran).
///
/// ```
/// use browser_agent_protocol::CommandError;
/// let e = serde_json::to_value(CommandError::new("boom", Vec::new())).unwrap();
/// assert_eq!(e, serde_json::json!({"event": "command-error", "message": "boom", "error": "boom"}));
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandError {
    /// Always [`COMMAND_ERROR`].
    pub event: String,
    /// What went wrong and what to do.
    pub message: String,
    /// The same text as `message`.
    pub error: String,
    /// The results of the steps that ran before the batch failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepResult>,
}

impl CommandError {
    /// The event for `message`, with the results of the steps that ran.
    pub fn new(message: impl Into<String>, steps: Vec<StepResult>) -> Self {
        let message = message.into();
        CommandError {
            event: COMMAND_ERROR.to_owned(),
            error: message.clone(),
            message,
            steps,
        }
    }
}
