//! The stack of a failed `evaluate`, as the agent wrote the script: the page reports frames of
//! the function the client compiled the script into (`<anonymous>:4:7`, three lines below the
//! script's own first line, and one more for the wrapper's call) and of the client's own script.
//! Only the script's frames and the page's own (`at save (http://…/app.js:10:5)`) are the agent's
//! business.

use serde_json::Value;

use super::BatchResult;
use crate::protocol::STEP_FIELDS;

/// Lines the client's wrapper puts before the script's first line: `new Function`'s own header
/// (`function anonymous(` and `) {`) and `return (async () => {`.
const WRAPPER_LINES: u64 = 3;

/// Rewrites the stacks of the batch's failed `evaluate` steps (see [`tidy`]); `steps` are the
/// agent's steps, `prefix` the host's route prefix (the client's scripts are served under its
/// assets path).
pub(crate) fn tidy_evaluate_errors(steps: &[Value], result: &mut BatchResult, prefix: &str) {
    // Made only for a batch with a failed `evaluate`.
    let mut assets = String::new();
    for step in &mut result.steps {
        if step.command != "evaluate" {
            continue;
        }
        let script = step
            .index
            .and_then(|i| steps.get(usize::try_from(i).ok()?))
            .and_then(script_of);
        if let (Some(error), Some(script)) = (step.error.as_mut(), script) {
            if assets.is_empty() {
                assets = format!("{prefix}{}", crate::protocol::ASSETS_DIR);
            }
            let tidied = tidy(error, script.lines().count().max(1) as u64, &assets);
            // The batch's error quotes its failed step's: the same text, rewritten there too.
            if result.error.as_deref() == Some(error.as_str()) {
                result.error = Some(tidied.clone());
            }
            *error = tidied;
        }
    }
}

/// The script of an `evaluate` step: the first of its fields (`script`, `expression`, `code`,
/// `js`) that holds one, as the page reads them.
fn script_of(step: &Value) -> Option<&str> {
    let spec = STEP_FIELDS.iter().find(|s| s.command == "evaluate")?;
    spec.needs
        .iter()
        .find_map(|name| step.get(*name).and_then(Value::as_str).filter(|s| !s.is_empty()))
}

/// `error` with each frame of the compiled script at the script's own line (`at f (script:1:21)`,
/// `at script:1:25` for its top level), the wrapper's call and the client's frames left out, and
/// every other line as it was.
fn tidy(error: &str, script_lines: u64, assets: &str) -> String {
    let mut out = String::with_capacity(error.len());
    for line in error.split('\n') {
        let frame = line.trim_start().strip_prefix("at ");
        let keep = match frame {
            Some(frame) if frame.contains("(eval at ") => compiled_frame(frame, script_lines),
            Some(frame) if frame.contains(assets) || frame.contains("wasm://") => None,
            _ => Some(line.to_owned()),
        };
        if let Some(kept) = keep {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&kept);
        }
    }
    out
}

/// A frame of the compiled script (`NAME (eval at … , <anonymous>:LINE:COL)`) at the script's
/// own line, or `None` for the wrapper's (past the script's last line) or one it cannot read.
fn compiled_frame(frame: &str, script_lines: u64) -> Option<String> {
    let (name, rest) = frame.split_once(" (eval at ")?;
    let place = rest.strip_suffix(')')?.rsplit_once("<anonymous>:")?.1;
    let (line, col) = place.split_once(':')?;
    let line = line.parse::<u64>().ok()?.checked_sub(WRAPPER_LINES)?;
    if line == 0 || line > script_lines {
        return None;
    }
    let at = format!("script:{line}:{col}");
    Some(if name == "eval" {
        format!("    at {at}")
    } else {
        format!("    at {name} ({at})")
    })
}

#[cfg(test)]
mod tests {
    use super::tidy;

    #[test]
    fn frames_at_the_scripts_own_lines() {
        let page = "evaluate failed: TypeError: x is null
    at f (eval at <anonymous> (http://h/__p/assets/client-1.js:2:26), <anonymous>:4:21)
    at eval (eval at <anonymous> (http://h/__p/assets/client-1.js:2:26), <anonymous>:4:25)
    at save (http://h/app.js:10:5)
    at eval (eval at <anonymous> (http://h/__p/assets/client-1.js:2:26), <anonymous>:5:3)
    at http://h/__p/assets/client-1.js:2:2196
    at wasm://wasm/0012:wasm-function[9]:0x1";
        assert_eq!(
            tidy(page, 1, "/__p/assets/"),
            "evaluate failed: TypeError: x is null\n    at f (script:1:21)\n    at script:1:25\n    at save (http://h/app.js:10:5)"
        );
    }

    #[test]
    fn lines_that_are_not_frames_stay() {
        let e = "evaluate failed: Error: two\nlines\n    at eval (eval at <anonymous> (http://h/p/assets/c.js:2:1), <anonymous>:5:7)";
        assert_eq!(
            tidy(e, 2, "/p/assets/"),
            "evaluate failed: Error: two\nlines\n    at script:2:7"
        );
        // A stack that names no compiled frame (a CSP page runs the script in a <script>) is kept.
        let e = "evaluate failed: Error: x\n    at http://h/page:12:3";
        assert_eq!(tidy(e, 1, "/p/assets/"), e);
        // An unreadable frame of the compiled function is left out rather than guessed at.
        let e = "evaluate failed: Error: x\n    at eval (eval at <anonymous> (c.js), <anonymous>)";
        assert_eq!(tidy(e, 1, "/p/assets/"), "evaluate failed: Error: x");
    }
}
