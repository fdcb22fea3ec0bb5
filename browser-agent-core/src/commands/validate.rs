//! The checks a batch passes before it is queued: steps present, not too many, each naming a
//! known command.

use serde_json::Value;

use super::{RunError, MAX_STEPS, NO_STEPS};
use crate::protocol::field;

/// Checks a batch's shape; the message names the problem.
pub(crate) fn validate_steps(steps: &[Value]) -> Result<Vec<usize>, RunError> {
    if steps.is_empty() {
        return Err(RunError::BadRequest(NO_STEPS.into()));
    }
    if steps.len() > MAX_STEPS {
        return Err(RunError::BadRequest(format!(
            "a batch holds at most {MAX_STEPS} steps, got {}",
            steps.len()
        )));
    }
    let mut diff_steps = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let command = step.get(field::COMMAND).and_then(Value::as_str);
        match command {
            Some(c) if crate::protocol::COMMANDS.contains(&c) => {
                if c == "snapshot" && step.get("diff").and_then(Value::as_bool) == Some(true) {
                    diff_steps.push(i);
                }
            }
            // Refused before anything runs: a batch stops at its first failing step, so an unknown
            // command late in it would otherwise leave the earlier steps done and the rest not.
            Some(c) if !c.is_empty() => {
                return Err(RunError::BadRequest(format!(
                    "step {i}: unknown command {c:?}; commands: {}",
                    crate::protocol::COMMANDS.join(", ")
                )))
            }
            _ => {
                return Err(RunError::BadRequest(format!(
                    "step {i} needs a \"command\" string, e.g. {{\"command\":\"snapshot\"}}"
                )))
            }
        }
    }
    Ok(diff_steps)
}
