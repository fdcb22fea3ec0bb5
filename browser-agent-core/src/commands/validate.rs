//! The checks a batch passes before it is queued: steps present, not too many, each naming a
//! known command with the fields that command takes ([`STEP_FIELDS`]), each of the right kind, and
//! those it needs. A batch stops at its first failing step, so a step the page would refuse (or
//! misread) late in a batch would otherwise leave the earlier steps done and the rest not.

use serde_json::Value;

use super::{RunError, MAX_STEPS, NO_STEPS};
use crate::protocol::{
    field, FieldKind, Ref, StepFields, TargetUse, COMMON_STEP_FIELDS, STEP_FIELDS, TARGET_FIELDS, TARGET_STEP_FIELDS,
    WAIT_NETWORK,
};

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
        let at = |why: String| super::refused_step(i, why);
        // Any step's `ref` (a target, a snapshot's or a screenshot's scope) is read here, so one
        // that is not a ref is a 400 before anything runs, whatever the command.
        target_ref(step).map_err(at)?;
        // A drag's destination (`to` or `dx`/`dy`): one of them, of its form; a ref in `to` is
        // written as the page reads it.
        if step.get(field::COMMAND).and_then(Value::as_str) == Some("drag") {
            drag::destination(step).map_err(at)?;
        }
        let step = &*step;
        let command = step.get(field::COMMAND).and_then(Value::as_str);
        // An unknown command is refused before anything runs: a batch stops at its first failing
        // step, so one late in it would otherwise leave the earlier steps done and the rest not.
        let Some(spec) = command.and_then(|c| STEP_FIELDS.iter().find(|s| s.command == c)) else {
            return Err(RunError::BadRequest(match command {
                Some(c) if !c.is_empty() => format!(
                    "{}: unknown command {c:?}; commands: {}",
                    super::step_name(i),
                    crate::protocol::COMMANDS.join(", ")
                ),
                _ => format!(
                    "{} needs a \"command\" string, e.g. {{\"command\":\"snapshot\"}}",
                    super::step_name(i)
                ),
            }));
        };
        check_step(spec, step).map_err(at)?;
        if spec.command == "snapshot" && step.get("diff").and_then(Value::as_bool) == Some(true) {
            diff_steps.push(i);
        }
    }
    Ok(diff_steps)
}

/// A `wait` that would outlast its batch (`timeout` or `ms` at least the batch's `timeoutMs`) is
/// refused: the agent would get the batch's timeout, without the steps that ran, while the page
/// still waits.
pub(crate) fn waits_fit(steps: &[Value], timeout: std::time::Duration) -> Result<(), RunError> {
    let batch_ms = timeout.as_millis() as f64;
    for (i, step) in steps.iter().enumerate() {
        if step.get(field::COMMAND).and_then(Value::as_str) != Some("wait") {
            continue;
        }
        for name in ["timeout", "ms"] {
            if let Some(ms) = step.get(name).and_then(Value::as_f64).filter(|ms| *ms >= batch_ms) {
                return Err(super::refused_step(
                    i,
                    format!(
                        "wait {name} {ms} ms is as long as the batch's timeoutMs {batch_ms} or longer: \
                     the batch would time out first; raise \"timeoutMs\" or wait less"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// One step of a known command against its entry of [`STEP_FIELDS`]: no field it does not take,
/// the command's own rules (snapshot view, screenshot options, notes mode), each field of its kind,
/// what it needs given, and the fields that exclude each other.
fn check_step(spec: &StepFields, step: &Value) -> Result<(), String> {
    let command = spec.command;
    // Its own fields, then the target's (a field of its own replaces the target's of that name).
    let targets: &[(&str, FieldKind)] = if spec.target == TargetUse::No {
        &[]
    } else {
        TARGET_STEP_FIELDS
    };
    let fields = || {
        spec.fields
            .iter()
            .chain(targets.iter().filter(|(t, _)| !spec.fields.iter().any(|(f, _)| f == t)))
            .chain(COMMON_STEP_FIELDS)
    };
    // A field it does not take would be one the page ignores ({"button":"right"} a left click,
    // {"timeoutMs":100} the default wait): refused, naming what the command takes.
    let known = |name: &str| name == field::COMMAND || fields().any(|(f, _)| *f == name);
    if let Some((name, _)) = step
        .as_object()
        .and_then(|o| o.iter().find(|(k, v)| !known(k) && !v.is_null()))
    {
        // What it acts on first, the flag every acting step takes last; not `optional`, which
        // every step takes (the manual says so once).
        // (Nor the dialog policy's fields, which every step takes too.)
        let mut takes: Vec<&str> = fields()
            .map(|(f, _)| *f)
            .filter(|f| !COMMON_STEP_FIELDS.iter().any(|(c, _)| c == f))
            .collect();
        takes.sort_by_key(|f| *f == WAIT_NETWORK);
        return Err(if takes.is_empty() {
            format!("a {command} step takes no fields besides \"command\"; not {name:?}")
        } else {
            format!("a {command} step takes {}; not {name:?}", takes.join(", "))
        });
    }
    match command {
        "snapshot" => snapshot_view(step)?,
        "screenshot" => screenshot_options(step)?,
        "wait" => wait_texts(step)?,
        crate::protocol::upload::COMMAND => super::upload::check_files(step)?,
        "click" | "dblclick" | "hover" | "down" | "up" | "scroll" => pointer_point(command, step)?,
        "notes" if !matches!(step.get("mode").and_then(Value::as_str), Some("enter" | "exit")) => {
            return Err(
                "notes needs \"mode\": \"enter\" or \"exit\", e.g. {\"command\":\"notes\",\"mode\":\"enter\"}".into(),
            )
        }
        "tool" => crate::page_tools::check_tool_step(step)?,
        _ => {}
    }
    for (name, kind) in fields() {
        field_of_kind(step, name, *kind)?;
    }
    let given = |name: &str| {
        fields()
            .find(|(f, _)| *f == name)
            .is_some_and(|(_, kind)| is_given(step.get(name), *kind))
    };
    // The target as the page looks for one: any target field given (`text` only where it is not
    // the command's own field).
    let targeted = TARGET_FIELDS
        .iter()
        .filter(|t| !(matches!(spec.target, TargetUse::RequiredNotText | TargetUse::OptionalNotText) && **t == "text"))
        .any(|t| is_given(step.get(*t), FieldKind::Text));
    // (`select`'s `text` counts here; [`excluded`] says when it does not name the option.)
    let needed = spec.needs.is_empty() || spec.needs.iter().any(|n| given(n));
    let example = spec.example;
    match spec.target {
        TargetUse::Required | TargetUse::RequiredNotText if !targeted => {
            let not_text = if spec.target == TargetUse::RequiredNotText {
                format!(" (in a {command} step, \"text\" is not a target)")
            } else {
                String::new()
            };
            return Err(format!(
                "{command} needs a target: ref, {}{not_text}, e.g. {example}",
                target_names(spec.target)
            ));
        }
        TargetUse::OrNeeds if !targeted && !needed => {
            return Err(format!(
                "{command} needs {} or a target (ref, {}), e.g. {example}",
                needs_text(spec),
                target_names(spec.target)
            ));
        }
        TargetUse::OrNeeds => {}
        _ if !needed => return Err(format!("{command} needs {}, e.g. {example}", needs_text(spec))),
        _ => {}
    }
    crate::dialogs::check_step(step)?;
    excluded(command, step, targeted, &given)
}

/// In a `select` step, `text` names the option only beside `ref` or `name` (the target); else the
/// page reads it as neither.
fn select_text_names_option(step: &Value) -> bool {
    ["ref", "name"].iter().any(|f| is_given(step.get(*f), FieldKind::Text))
}

/// The target fields as the texts that ask for one list them (after `ref`).
fn target_names(target: TargetUse) -> &'static str {
    if target == TargetUse::RequiredNotText {
        "label, placeholder, role (with name), name or selector"
    } else {
        "text, role (with name), label, placeholder or selector"
    }
}

/// `"text" (or "value")`, `"direction" (up, down, left or right)`: what a command needs.
fn needs_text(spec: &StepFields) -> String {
    let Some(first) = spec.needs.first() else {
        return String::new();
    };
    let mut out = format!("{first:?}");
    // The words it takes right after it: `"direction" (up, down, left or right) (or "to", …)`.
    if let Some((_, FieldKind::AnyCase(words))) = spec.fields.iter().find(|(f, _)| f == first) {
        out.push_str(&format!(" ({})", or_list(words)));
    }
    if spec.needs.len() > 1 {
        let rest: Vec<String> = spec.needs[1..].iter().map(|n| format!("{n:?}")).collect();
        out.push_str(&format!(" (or {})", rest.join(", ")));
    }
    out
}

/// `up, down, left or right`.
fn or_list(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Whether the page reads a field (of the right kind) as given: not absent, not `null`, not `""`
/// (but for [`FieldKind::String`], where `""` is text to enter), not `false`.
fn is_given(v: Option<&Value>, kind: FieldKind) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => kind == FieldKind::String || !s.is_empty(),
        Some(Value::Number(_)) => kind != FieldKind::String,
        Some(Value::Bool(b)) => *b,
        Some(_) => true,
    }
}

/// The field `name` is absent, `null`, or what `kind` says it holds; else `invalid {name} {v}: …`.
fn field_of_kind(step: &Value, name: &str, kind: FieldKind) -> Result<(), String> {
    let number = |v: &Value, whole: bool| {
        v.as_f64()
            .is_some_and(|n| n >= 0.0 && (!whole || (n.fract() == 0.0 && n <= f64::from(u32::MAX))))
    };
    match kind {
        // Read by their own rules (`target_ref`, `snapshot_view`, `screenshot_options`, notes' mode).
        FieldKind::Ref | FieldKind::Own => Ok(()),
        FieldKind::Text => field_is(step, name, |v| v.is_string() || v.is_number(), "expected a string"),
        FieldKind::Chord => match step.get(name) {
            Some(Value::String(chord)) if !chord.is_empty() => crate::protocol::keys::parse_chord(chord)
                .map(|_| ())
                .map_err(|e| format!("invalid {name} {chord:?}: {e}")),
            _ => field_of_kind(step, name, FieldKind::Text),
        },
        FieldKind::String => field_is(step, name, Value::is_string, "expected a string"),
        FieldKind::Flag => flag(step, name),
        FieldKind::Millis => field_is(
            step,
            name,
            |v| number(v, false),
            "expected a number of milliseconds, 0 or more",
        ),
        FieldKind::Pixels => field_is(
            step,
            name,
            |v| number(v, false),
            "expected a number of pixels, 0 or more (\"direction\" says which way)",
        ),
        FieldKind::Index => field_is(
            step,
            name,
            |v| number(v, true),
            "expected a whole number, 0 or more (0 = the first match)",
        ),
        FieldKind::AnyCase(words) => field_is(
            step,
            name,
            |v| {
                v.as_str()
                    .is_some_and(|s| s.is_empty() || words.iter().any(|w| w.eq_ignore_ascii_case(s)))
            },
            &format!("use {}", or_list(words)),
        ),
        FieldKind::Url => {
            field_is(
                step,
                name,
                Value::is_string,
                "expected a URL string, e.g. \"/settings\" or \"https://example.com/\"",
            )?;
            match step.get(name).and_then(Value::as_str).and_then(url_scheme) {
                Some(scheme) if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") => Err(format!(
                    "invalid {name} {}: navigate follows http and https URLs only (or a path of this site, like \"/settings\"); for a host and port write \"http://localhost:3000/\"",
                    step[name]
                )),
                _ => Ok(()),
            }
        }
    }
}

/// The scheme of an absolute URL (`ftp` of `ftp://x`, `localhost` of `localhost:3000`, as the
/// browser reads them); `None` for a relative one (`/a`, `a/b:c`, `//host/a`).
fn url_scheme(url: &str) -> Option<&str> {
    let url = url.trim();
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .then_some(scheme)
}

/// Fields that, together, the page would read as less than the agent asked for.
fn excluded(command: &str, step: &Value, targeted: bool, given: &dyn Fn(&str) -> bool) -> Result<(), String> {
    match command {
        "select" if given("text") && !given("option") && !given("value") && !select_text_names_option(step) => Err(
            "in a select step \"text\" names the option only beside ref or name; send \"option\", e.g. {\"command\":\"select\",\"label\":\"Color\",\"option\":\"Red\"}".into(),
        ),
        "scroll" if (given("direction") || given("amount")) && (given("to") || given("x") || given("y")) => Err(
            "direction and amount scroll by an amount, to, x and y to a position: send one kind, e.g. {\"command\":\"scroll\",\"ref\":\"e7\",\"to\":\"bottom\"}".into(),
        ),
        "scroll" if given("to") && (given("x") || given("y")) => Err(
            "to and x/y both say where to scroll: send one, e.g. {\"command\":\"scroll\",\"y\":600}".into(),
        ),
        "up" if !targeted && (given("x") || given("y")) => Err(
            "x and y are a point in the target: up needs one with them, e.g. {\"command\":\"up\",\"ref\":\"e9\",\"x\":4,\"y\":4}".into(),
        ),
        "scroll" if given("amount") && !given("direction") => Err(
            "amount needs \"direction\" (up, down, left or right); without one a target is scrolled into view, e.g. {\"command\":\"scroll\",\"direction\":\"down\",\"amount\":600}".into(),
        ),
        "wait" if given("ms") && (targeted || given("pattern")) => Err(
            "ms waits a fixed time and a target is waited for: for the longest wait on a target send \"timeout\", e.g. {\"command\":\"wait\",\"text\":\"Saved\",\"timeout\":5000}".into(),
        ),
        "wait" if given("ms") && given("timeout") => {
            Err("ms and timeout both say how long to wait: send one, e.g. {\"command\":\"wait\",\"ms\":500}".into())
        }
        "wait" if given("gone") && !targeted && !given("pattern") => Err(
            "gone needs a target or \"text\" to wait for, e.g. {\"command\":\"wait\",\"text\":\"Loading\",\"gone\":true}".into(),
        ),
        "wait" => wait_excluded(step, given),
        _ => Ok(()),
    }
}

/// What a `wait` for text may not mix: `pattern` or a list of texts scoped by anything but
/// `ref` (the other target fields name an element, not where to read text), `exact` or `already`
/// without a text, `exact` with a pattern, `already` with `gone`.
fn wait_excluded(step: &Value, given: &dyn Fn(&str) -> bool) -> Result<(), String> {
    let texts = given("text") || given("pattern");
    let list = matches!(step.get("text"), Some(Value::Array(_)));
    let element = ["role", "label", "placeholder", "selector", "name", "nth"]
        .into_iter()
        .find(|f| is_given(step.get(*f), FieldKind::Text));
    if let Some(f) = element.filter(|_| given("pattern") || list) {
        return Err(format!(
            "a wait for a pattern or a list of texts reads the page's text, or the text of one element named by \
             \"ref\"; not {f:?}, e.g. {{\"command\":\"wait\",\"ref\":\"e12\",\"pattern\":\"Order #\\\\d+\"}}"
        ));
    }
    for flag in ["exact", "already"] {
        if given(flag) && !texts {
            return Err(format!(
                "{flag} says how to read \"text\" or \"pattern\", and neither is given, e.g. \
                 {{\"command\":\"wait\",\"text\":\"Saved\",\"{flag}\":true}}"
            ));
        }
    }
    if given("exact") && given("pattern") {
        return Err("exact is for \"text\"; a pattern says itself how much it matches (^…$ for a whole line)".into());
    }
    if given("already") && given("gone") {
        return Err(
            "already accepts text that is there when the wait begins; gone waits for it to go: send one".into(),
        );
    }
    Ok(())
}

/// A `wait`'s `text` (a string or number, or a list of 1 to [`WAIT_ALTERNATIVES`] non-empty
/// strings: alternatives) and `pattern` (a non-empty string, or a list of them).
fn wait_texts(step: &Value) -> Result<(), String> {
    let example = r#"e.g. {"command":"wait","text":["Order placed","Payment failed"],"timeout":5000}"#;
    for name in ["text", "pattern"] {
        let one = |v: &Value| match v {
            Value::String(s) => !s.is_empty(),
            Value::Number(_) => name == "text",
            _ => false,
        };
        match step.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.is_empty() => {}
            Some(v) if one(v) => {}
            Some(Value::Array(list)) if list.is_empty() || list.len() > WAIT_ALTERNATIVES => {
                return Err(format!(
                    "invalid {name}: a list of 1 to {WAIT_ALTERNATIVES} alternatives, got {}; {example}",
                    list.len()
                ))
            }
            Some(Value::Array(list)) => {
                if let Some(bad) = list.iter().find(|v| !matches!(v, Value::String(s) if !s.is_empty())) {
                    return Err(format!(
                        "invalid {name} {bad} in the list: expected a non-empty string; {example}"
                    ));
                }
            }
            Some(v) => {
                return Err(format!(
                    "invalid {name} {v}: expected a string or a list of strings; {example}"
                ))
            }
        }
    }
    Ok(())
}

/// How many alternatives a `wait`'s `text` list (and its `pattern` list) holds at most.
const WAIT_ALTERNATIVES: usize = 8;

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
    let Some(r) = step.get_mut("ref") else {
        return Ok(());
    };
    let read = match r {
        Value::Null => return Ok(()),
        Value::String(s) if s.is_empty() => return Ok(()),
        Value::String(s) => Ref::read(s),
        _ => None,
    };
    match read {
        Some(read) => {
            *r = Value::String(read.to_string());
            Ok(())
        }
        None => Err(format!(
            "invalid ref {r}: expected a ref from a snapshot ({})",
            crate::protocol::REF_FORM
        )),
    }
}

/// A pointer step's `x` and `y` (px from the target's top-left; the page refuses a point outside
/// its box, which only it knows), or `scroll`'s position to scroll to: numbers, 0 or more.
fn pointer_point(command: &str, step: &Value) -> Result<(), String> {
    let what = if command == "scroll" {
        "expected the position to scroll to, in px from the start, 0 or more".to_owned()
    } else {
        format!("expected px from the target's top-left corner, 0 or more, e.g. {{\"command\":\"{command}\",\"ref\":\"e7\",\"x\":12,\"y\":30}}")
    };
    for name in ["x", "y"] {
        field_is(step, name, |v| v.as_f64().is_some_and(|n| n >= 0.0), &what)?;
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
/// would answer the whole page to an agent that asked for a part of it). A misspelt field
/// (`{"ofset":40}`, a view the agent thinks it asked for) is refused with every other command's:
/// see [`check_step`].
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
    Ok(())
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
mod tests;

mod drag;
