//! The checks a batch passes before it is queued: steps present, not too many, each naming a
//! known command.

use serde_json::Value;

use super::{RunError, MAX_STEPS, NO_STEPS};
use crate::protocol::{field, Ref};

/// Checks a batch's shape; the message names the problem. Each step's `ref` is rewritten as the
/// snapshot writes it (`[ref=E21]` → `e21`), so the page reads one form.
pub(crate) fn validate_steps(steps: &mut [Value]) -> Result<Vec<usize>, RunError> {
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
    for (i, step) in steps.iter_mut().enumerate() {
        // Any step's `ref` (a target, a snapshot's or a screenshot's scope) is read here, so one
        // that is not a ref is a 400 before anything runs, whatever the command.
        target_ref(step).map_err(|why| RunError::BadRequest(format!("step {i}: {why}")))?;
        let step = &*step;
        let command = step.get(field::COMMAND).and_then(Value::as_str);
        match command {
            Some(c) if crate::protocol::COMMANDS.contains(&c) => {
                if c == "snapshot" {
                    snapshot_view(step).map_err(|why| RunError::BadRequest(format!("step {i}: {why}")))?;
                    if step.get("diff").and_then(Value::as_bool) == Some(true) {
                        diff_steps.push(i);
                    }
                }
                if c == "notes" && !matches!(step.get("mode").and_then(Value::as_str), Some("enter" | "exit")) {
                    return Err(RunError::BadRequest(format!(
                        "step {i}: notes needs \"mode\": \"enter\" or \"exit\", e.g. {{\"command\":\"notes\",\"mode\":\"enter\"}}"
                    )));
                }
                if c == "screenshot" {
                    screenshot_options(step).map_err(|why| RunError::BadRequest(format!("step {i}: {why}")))?;
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

/// A step's field `name`: absent, `null`, or a value `ok` accepts; else `invalid {name} {v}: {what}`.
fn field_is(step: &Value, name: &str, ok: impl Fn(&Value) -> bool, what: &str) -> Result<(), String> {
    match step.get(name) {
        None | Some(Value::Null) => Ok(()),
        Some(v) if ok(v) => Ok(()),
        Some(v) => Err(format!("invalid {name} {v}: {what}")),
    }
}

/// A step's `ref`: absent, `null`, empty (not given, as the page reads it) or a ref, which is
/// then written as the snapshot writes it.
fn target_ref(step: &mut Value) -> Result<(), String> {
    let form = crate::protocol::REF_FORM;
    field_is(
        step,
        "ref",
        |v| v.as_str().is_some_and(|r| r.is_empty() || Ref::read(r).is_some()),
        &format!("expected a ref from a snapshot ({form})"),
    )?;
    if let Some(r) = step.get_mut("ref") {
        if let Some(read) = r.as_str().and_then(Ref::read) {
            *r = Value::String(read.to_string());
        }
    }
    Ok(())
}

/// A step's flag `name`: absent, `null`, `true` or `false`.
fn flag(step: &Value, name: &str) -> Result<(), String> {
    field_is(step, name, Value::is_boolean, "use true or false")
}

/// The `snapshot` step's view (`diff`, `ref`, `offset`, `limit`, `filter`, `viewport`, `budget`,
/// `full`): each of the right type, checked here for every surface (`/run`, `/snapshot`, MCP, the
/// Rust API), so a bad one is a 400 naming it, not a field the page reads as not given (which
/// would answer the whole page to an agent that asked for a part of it).
fn snapshot_view(step: &Value) -> Result<(), String> {
    let whole = |name: &str, min: f64, what: &str| {
        let ok = |v: &Value| {
            v.as_f64()
                .is_some_and(|n| n >= min && n.fract() == 0.0 && n <= f64::from(u32::MAX))
        };
        field_is(step, name, ok, what)
    };
    // An empty string is "not given", as the page reads it (agents send "" for a field they skip).
    let text = |name: &str, what: &str| field_is(step, name, Value::is_string, what);
    let flag = |name: &str| flag(step, name);
    flag("diff")?;
    text("filter", "expected the text to look for")?;
    whole("offset", 0.0, "expected a whole number of children to skip, 0 or more")?;
    whole("limit", 0.0, "expected a whole number of children to show, 0 or more")?;
    whole(
        "budget",
        1.0,
        &format!(
            "expected a whole number of tokens, 1 or more (default {})",
            crate::protocol::SNAPSHOT_BUDGET
        ),
    )?;
    flag("viewport")?;
    flag("full")?;
    if step.get("full") == Some(&Value::Bool(true)) && step.get("budget").is_some_and(|b| !b.is_null()) {
        return Err("full and budget contradict each other: full means no budget".into());
    }
    // A misspelt field would be a view the agent thinks it asked for ({"ofset":40} answering the
    // first page): refused, naming what a snapshot step takes.
    let known = |name: &str| name == field::COMMAND || name == "diff" || crate::protocol::SNAPSHOT_VIEW.contains(&name);
    match step
        .as_object()
        .and_then(|o| o.iter().find(|(k, v)| !known(k) && !v.is_null()))
    {
        Some((name, _)) => Err(format!(
            "a snapshot step takes diff, {}; not {name:?}",
            crate::protocol::SNAPSHOT_VIEW.join(", ")
        )),
        None => Ok(()),
    }
}

/// The `screenshot` step's options: each of the right type and range (checked here, so a bad one
/// is a 400 before anything runs, not a failure in the page).
fn screenshot_options(step: &Value) -> Result<(), String> {
    use crate::protocol::screenshot::{self as s, Format, MAX_SIDE, METHODS};
    let number = |name: &str, min: f64, max: f64, what: &str| {
        field_is(
            step,
            name,
            |v| v.as_f64().is_some_and(|n| (min..=max).contains(&n)),
            what,
        )
    };
    let flag = |name: &str| flag(step, name);
    match step.get(s::FORMAT) {
        None | Some(Value::Null) => {}
        Some(Value::String(f)) if Format::parse(f).is_some() => {}
        Some(v) => return Err(format!("invalid format {v}: use \"png\" (the default) or \"jpeg\"")),
    }
    if step.get(s::QUALITY).is_some_and(|q| !q.is_null())
        && !matches!(step.get(s::FORMAT).and_then(Value::as_str), Some("jpeg" | "jpg"))
    {
        return Err("quality applies to \"format\":\"jpeg\" only (PNG is lossless)".into());
    }
    number(
        s::QUALITY,
        0.0,
        1.0,
        "expected a number from 0 to 1 (JPEG quality; default 0.8)",
    )?;
    number(
        s::MAX_WIDTH,
        1.0,
        f64::from(MAX_SIDE),
        "expected pixels, 1 to 16384 (default 1568)",
    )?;
    number(
        s::SCALE,
        0.05,
        4.0,
        "expected output pixels per CSS pixel, 0.05 to 4 (default 1)",
    )?;
    number(
        s::PADDING,
        0.0,
        1000.0,
        "expected CSS pixels around the element, 0 to 1000",
    )?;
    number(
        s::BUDGET_MS,
        50.0,
        60_000.0,
        "expected milliseconds, 50 to 60000 (default 1500)",
    )?;
    flag(s::FULL_PAGE)?;
    flag(s::INLINE)?;
    match step.get(s::METHOD) {
        None | Some(Value::Null) => {}
        Some(Value::String(m)) if METHODS.contains(&m.as_str()) => {}
        Some(v) => return Err(format!("invalid method {v}: use {}", METHODS.join(", "))),
    }
    let targeted = crate::protocol::TARGET_FIELDS
        .iter()
        .any(|k| step.get(*k).is_some_and(|v| !v.is_null()));
    if targeted && step.get(s::FULL_PAGE).and_then(Value::as_bool) == Some(true) {
        return Err("fullPage and an element target exclude each other: drop fullPage to capture the element".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(step: Value) -> Result<(), String> {
        validate_steps(&mut [step]).map(|_| ()).map_err(|e| e.to_string())
    }

    #[test]
    fn screenshot_options_are_checked_before_anything_runs() {
        assert!(check(json!({"command": "screenshot"})).is_ok());
        assert!(check(json!({"command": "screenshot", "format": "jpeg", "quality": 0.5, "maxWidth": 800})).is_ok());
        assert_eq!(
            check(json!({"command": "screenshot", "format": "gif"})).unwrap_err(),
            "step 0: invalid format \"gif\": use \"png\" (the default) or \"jpeg\""
        );
        assert_eq!(
            check(json!({"command": "screenshot", "format": "jpeg", "quality": 2})).unwrap_err(),
            "step 0: invalid quality 2: expected a number from 0 to 1 (JPEG quality; default 0.8)"
        );
        assert!(check(json!({"command": "screenshot", "quality": 0.5}))
            .unwrap_err()
            .contains("only (PNG is lossless)"));
        assert!(check(json!({"command": "screenshot", "maxWidth": 0})).is_err());
        assert!(check(json!({"command": "screenshot", "scale": "2"})).is_err());
        assert!(check(json!({"command": "screenshot", "method": "gpu"})).is_err());
        assert!(check(json!({"command": "screenshot", "fullPage": true, "ref": "e3"})).is_err());
        assert!(check(json!({"command": "screenshot", "inline": "yes"})).is_err());
    }

    #[test]
    fn a_ref_reaches_the_page_as_the_snapshot_writes_it() {
        // As agents copy them from a line (`[ref=e21]`) or shout them (`E21`): the page gets `e21`.
        for (given, sent) in [
            ("[ref=e21]", "e21"),
            ("E21", "e21"),
            ("[ref=F1E040]", "f1e40"),
            ("@e007", "e7"),
            ("", ""),
        ] {
            let mut steps = [
                json!({"command": "click", "ref": given}),
                json!({"command": "snapshot", "ref": given}),
            ];
            validate_steps(&mut steps).unwrap();
            assert_eq!(steps[0]["ref"], sent, "{given:?}");
            assert_eq!(steps[1]["ref"], sent, "{given:?}");
        }
        for bad in ["[e21", "ref=[e21]", "[[e21]]", "e21]"] {
            assert!(check(json!({"command": "click", "ref": bad})).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_ref_that_is_not_one_is_refused_in_any_step() {
        for ok in ["e3", "@e3", "ref=e3", " f2e048 ", ""] {
            for command in ["click", "snapshot", "screenshot", "wait"] {
                assert!(
                    check(json!({"command": command, "ref": ok})).is_ok(),
                    "{command} {ok:?}"
                );
            }
        }
        assert_eq!(
            check(json!({"command": "click", "ref": "5"})).unwrap_err(),
            "step 0: invalid ref \"5\": expected a ref from a snapshot (refs look like e12, or f1e12 inside a frame)"
        );
        for bad in [
            json!("x1"),
            json!("f1"),
            json!("e1x"),
            json!("e-1"),
            json!("e99999999999"),
            json!(5),
            json!(["e1"]),
        ] {
            for command in ["click", "type", "snapshot", "screenshot"] {
                assert!(
                    check(json!({"command": command, "ref": bad})).is_err(),
                    "{command} {bad}"
                );
            }
        }
    }

    #[test]
    fn snapshot_views_are_checked_before_anything_runs() {
        assert!(check(json!({"command": "snapshot"})).is_ok());
        assert!(check(json!({"command": "snapshot", "ref": "", "filter": ""})).is_ok());
        assert!(check(
            json!({"command": "snapshot", "ref": "e3", "offset": 40, "limit": 5.0, "budget": 2000,
            "filter": "Save", "viewport": true, "full": false, "diff": null})
        )
        .is_ok());
        assert_eq!(
            check(json!({"command": "snapshot", "offset": -1})).unwrap_err(),
            "step 0: invalid offset -1: expected a whole number of children to skip, 0 or more"
        );
        assert_eq!(
            check(json!({"command": "snapshot", "budget": 0})).unwrap_err(),
            "step 0: invalid budget 0: expected a whole number of tokens, 1 or more (default 8000)"
        );
        assert_eq!(
            check(json!({"command": "snapshot", "ref": 3})).unwrap_err(),
            "step 0: invalid ref 3: expected a ref from a snapshot (refs look like e12, or f1e12 inside a frame)"
        );
        assert_eq!(
            check(json!({"command": "snapshot", "diff": "true"})).unwrap_err(),
            "step 0: invalid diff \"true\": use true or false"
        );
        assert_eq!(
            check(json!({"command": "snapshot", "ref": "e479", "ofset": 40})).unwrap_err(),
            "step 0: a snapshot step takes diff, ref, offset, limit, filter, viewport, budget, full; not \"ofset\""
        );
        assert!(check(json!({"command": "snapshot", "text": null})).is_ok());
        assert_eq!(
            check(json!({"command": "snapshot", "full": true, "budget": 800})).unwrap_err(),
            "step 0: full and budget contradict each other: full means no budget"
        );
        for bad in [
            json!({"command": "snapshot", "limit": "5"}),
            json!({"command": "snapshot", "limit": 2.5}),
            json!({"command": "snapshot", "offset": 1e12}),
            json!({"command": "snapshot", "filter": ["a"]}),
            json!({"command": "snapshot", "viewport": 1}),
            json!({"command": "snapshot", "full": "yes"}),
        ] {
            assert!(check(bad.clone()).is_err(), "{bad}");
        }
    }
}
