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
        "step 1 (nothing ran): invalid format \"gif\": use \"png\" (the default) or \"jpeg\""
    );
    assert_eq!(
        check(json!({"command": "screenshot", "format": "jpeg", "quality": 2})).unwrap_err(),
        "step 1 (nothing ran): invalid quality 2: expected a number from 0 to 1 (JPEG quality; default 0.8)"
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
fn a_key_that_is_none_is_refused_before_anything_runs() {
    assert!(check(json!({"command": "press", "key": "Control+Shift+ArrowUp"})).is_ok());
    assert!(check(json!({"command": "press", "keys": "esc", "label": "Search"})).is_ok());
    assert_eq!(
        check(json!({"command": "press", "key": "Hyper+a"})).unwrap_err(),
        "step 1 (nothing ran): invalid key \"Hyper+a\": unknown modifier \"Hyper\" in \"Hyper+a\" (use Control, Shift, Alt or Meta)"
    );
    assert!(check(json!({"command": "press", "keys": "Control+Foo"}))
        .unwrap_err()
        .starts_with(
            "step 1 (nothing ran): invalid keys \"Control+Foo\": unknown key \"Foo\" (use a character, or Enter"
        ));
}

#[test]
fn a_wait_longer_than_its_batch_is_refused() {
    let two_s = std::time::Duration::from_secs(2);
    let steps = [
        json!({"command": "click", "text": "Go"}),
        json!({"command": "wait", "text": "never", "timeout": 10000}),
    ];
    assert_eq!(
        waits_fit(&steps, two_s).unwrap_err().to_string(),
        "step 2 (nothing ran): wait timeout 10000 ms is as long as the batch's timeoutMs 2000 or longer: the batch would time \
         out first; raise \"timeoutMs\" or wait less"
    );
    assert!(waits_fit(&[json!({"command": "wait", "ms": 2000})], two_s).is_err());
    assert!(waits_fit(&[json!({"command": "wait", "ms": 1999})], two_s).is_ok());
    assert!(waits_fit(&[json!({"command": "evaluate", "script": "1", "timeout": 9999})], two_s).is_ok());
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
        // (`text` is the click's target when the ref is "", not given.)
        let mut steps = [
            json!({"command": "click", "ref": given, "text": "Save"}),
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
            let mut step = json!({"command": command, "ref": ok});
            if matches!(command, "click" | "wait") {
                // A target besides the ref, which "" does not give.
                step["text"] = json!("Save");
            }
            assert!(check(step).is_ok(), "{command} {ok:?}");
        }
    }
    assert_eq!(
        check(json!({"command": "click", "ref": "5"})).unwrap_err(),
        "step 1 (nothing ran): invalid ref \"5\": expected a ref from a snapshot (refs look like e12, or f1e12 inside a frame)"
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
        "step 1 (nothing ran): invalid offset -1: expected a whole number of children to skip, 0 or more"
    );
    assert_eq!(
        check(json!({"command": "snapshot", "budget": 0})).unwrap_err(),
        "step 1 (nothing ran): invalid budget 0: expected a whole number of tokens, 1 or more (default 8000)"
    );
    assert_eq!(
        check(json!({"command": "snapshot", "ref": 3})).unwrap_err(),
        "step 1 (nothing ran): invalid ref 3: expected a ref from a snapshot (refs look like e12, or f1e12 inside a frame)"
    );
    assert_eq!(
        check(json!({"command": "snapshot", "diff": "true"})).unwrap_err(),
        "step 1 (nothing ran): invalid diff \"true\": use true or false"
    );
    assert_eq!(
        check(json!({"command": "snapshot", "ref": "e479", "ofset": 40})).unwrap_err(),
        "step 1 (nothing ran): a snapshot step takes diff, ref, selector, offset, limit, filter, viewport, budget, full; not \"ofset\""
    );
    assert!(check(json!({"command": "snapshot", "text": null})).is_ok());
    assert_eq!(
        check(json!({"command": "snapshot", "full": true, "budget": 800})).unwrap_err(),
        "step 1 (nothing ran): full and budget contradict each other: full means no budget"
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

/// The whole batch's answer: a 400's text, or `ok`.
fn batch(steps: Value) -> String {
    let Value::Array(mut steps) = steps else {
        panic!("an array")
    };
    match validate_steps(&mut steps) {
        Ok(_) => "ok".to_owned(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_command_has_its_fields_in_the_table() {
    let commands: Vec<&str> = STEP_FIELDS.iter().map(|s| s.command).collect();
    assert_eq!(commands, crate::protocol::COMMANDS);
    let snapshot = &STEP_FIELDS[0];
    let names: Vec<&str> = snapshot.fields.iter().map(|(f, _)| *f).collect();
    assert_eq!(names[0], "diff");
    // The view's fields, and `selector` (a subtree as `ref` gives one) after `ref`.
    let mut view = crate::protocol::SNAPSHOT_VIEW.to_vec();
    view.insert(1, "selector");
    assert_eq!(names[1..], view[..]);
    for spec in STEP_FIELDS {
        // Each example is a step the host accepts, and what it needs is among its fields.
        let example: Value = serde_json::from_str(spec.example).unwrap();
        assert_eq!(example["command"], spec.command);
        assert!(check(example).is_ok(), "{}", spec.example);
        for need in spec.needs {
            assert!(spec.fields.iter().any(|(f, _)| f == need), "{} {need}", spec.command);
        }
    }
}

#[test]
fn each_command_takes_its_fields_and_refuses_others() {
    // For every command: a typical step, a field it does not take, a step without what it
    // needs, a field of the wrong type.
    let cases: &[(Value, Value, Value, Value)] = &[
        (
            json!({"command": "snapshot", "ref": "e3", "limit": 5}),
            json!({"command": "snapshot", "sel": "main"}),
            json!(null),
            json!({"command": "snapshot", "filter": 5}),
        ),
        (
            json!({"command": "click", "role": "button", "name": "Save", "nth": 1}),
            json!({"command": "click", "label": "Box", "modifiers": ["Shift"]}),
            json!({"command": "click"}),
            json!({"command": "click", "text": true}),
        ),
        (
            json!({"command": "dblclick", "text": "Item 1"}),
            json!({"command": "dblclick", "text": "Item 1", "clickCount": 2}),
            json!({"command": "dblclick", "text": ""}),
            json!({"command": "dblclick", "selector": ["li"]}),
        ),
        (
            json!({"command": "type", "label": "Name", "text": "Ada", "clear": true}),
            json!({"command": "type", "label": "Name", "text": "Ada", "delay": 50}),
            json!({"command": "type", "label": "Name"}),
            json!({"command": "type", "label": "Age", "text": 42}),
        ),
        (
            json!({"command": "fill", "placeholder": "you@example", "text": ""}),
            json!({"command": "fill", "label": "Email", "text": "a@b.c", "force": true}),
            json!({"command": "fill", "label": "Email"}),
            json!({"command": "fill", "label": "Email", "value": ["a"]}),
        ),
        (
            json!({"command": "select", "label": "Color", "option": "Red"}),
            json!({"command": "select", "label": "Color", "options": ["Red"]}),
            json!({"command": "select", "label": "Color"}),
            json!({"command": "select", "label": "Color", "option": {"label": "Red"}}),
        ),
        (
            json!({"command": "check", "label": "I agree"}),
            json!({"command": "check", "label": "I agree", "checked": true}),
            json!({"command": "check"}),
            json!({"command": "check", "label": "I agree", "nth": "1"}),
        ),
        (
            json!({"command": "uncheck", "ref": "e9"}),
            json!({"command": "uncheck", "ref": "e9", "force": true}),
            json!({"command": "uncheck", "ref": ""}),
            json!({"command": "uncheck", "placeholder": false}),
        ),
        (
            json!({"command": "press", "key": "Control+a", "label": "Query"}),
            json!({"command": "press", "key": "a", "modifiers": ["Shift"]}),
            json!({"command": "press", "label": "Query"}),
            json!({"command": "press", "key": ["Enter"]}),
        ),
        (
            json!({"command": "hover", "text": "Products"}),
            json!({"command": "hover", "text": "Products", "position": {"x": 1, "y": 2}}),
            json!({"command": "hover"}),
            json!({"command": "hover", "text": "Products", "nth": -1}),
        ),
        (
            json!({"command": "drag", "text": "Card", "to": {"text": "Done"}}),
            json!({"command": "drag", "text": "Card", "to": "e7", "steps": 5}),
            json!({"command": "drag", "text": "Card"}),
            json!({"command": "drag", "text": "Card", "dx": "40"}),
        ),
        (
            json!({"command": "down", "ref": "e7", "button": "Left", "x": 0, "y": 4.5}),
            json!({"command": "down", "ref": "e7", "hold": 500}),
            json!({"command": "down"}),
            json!({"command": "down", "ref": "e7", "x": -1}),
        ),
        (
            json!({"command": "up"}),
            json!({"command": "up", "clicks": 1}),
            json!(null),
            json!({"command": "up", "button": "back"}),
        ),
        (
            json!({"command": "scroll", "direction": "Down", "amount": 600}),
            json!({"command": "scroll", "direction": "down", "pixels": 600}),
            json!({"command": "scroll", "amount": 600}),
            json!({"command": "scroll", "direction": "down", "amount": "lots"}),
        ),
        (
            json!({"command": "wait", "role": "button", "name": "Done", "timeout": 300, "gone": false}),
            json!({"command": "wait", "text": "x", "timeoutMs": 100}),
            json!({"command": "wait", "gone": true}),
            json!({"command": "wait", "text": "x", "timeout": "5"}),
        ),
        (
            json!({"command": "evaluate", "script": "document.title"}),
            json!({"command": "evaluate", "script": "1", "args": [1]}),
            json!({"command": "evaluate", "script": ""}),
            json!({"command": "evaluate", "script": {"code": "1"}}),
        ),
        (
            json!({"command": "network", "seq": 12}),
            json!({"command": "network", "seq": 12, "clientSeq": 3}),
            json!({"command": "network"}),
            json!({"command": "network", "seq": "twelve"}),
        ),
        (
            json!({"command": "navigate", "url": "https://example.com/a?b#c"}),
            json!({"command": "navigate", "url": "/a", "waitUntil": "load"}),
            json!({"command": "navigate"}),
            json!({"command": "navigate", "url": 5}),
        ),
        (
            json!({"command": "back"}),
            json!({"command": "back", "steps": 2}),
            json!(null),
            json!({"command": "back", "url": "/"}),
        ),
        (
            json!({"command": "forward"}),
            json!({"command": "forward", "text": "x"}),
            json!(null),
            json!({"command": "forward", "nth": 1}),
        ),
        (
            json!({"command": "reload"}),
            json!({"command": "reload", "hard": true}),
            json!(null),
            json!({"command": "reload", "diff": true}),
        ),
        (
            json!({"command": "screenshot", "role": "dialog", "padding": 8, "budgetMs": 2000}),
            json!({"command": "screenshot", "clip": {"x": 0}}),
            json!(null),
            json!({"command": "screenshot", "padding": "8"}),
        ),
        (
            json!({"command": "vitals"}),
            json!({"command": "vitals", "limit": 3}),
            json!(null),
            json!({"command": "vitals", "diff": true}),
        ),
        (
            json!({"command": "audit", "ref": "e12", "limit": 3}),
            json!({"command": "audit", "rules": ["image-alt"]}),
            json!(null),
            json!({"command": "audit", "limit": "3"}),
        ),
        (
            json!({"command": "upload", "label": "Avatar", "files": ["a.png", {"name": "b.txt", "data": "aGk="}]}),
            json!({"command": "upload", "label": "Avatar", "files": ["a.png"], "paths": ["b.png"]}),
            json!({"command": "upload", "label": "Avatar"}),
            json!({"command": "upload", "label": "Avatar", "files": ["a.png"], "drop": "yes"}),
        ),
        (
            json!({"command": "notes", "mode": "exit"}),
            json!({"command": "notes", "mode": "enter", "text": "x"}),
            json!({"command": "notes"}),
            json!({"command": "notes", "mode": true}),
        ),
        (
            json!({"command": "tools"}),
            json!({"command": "tools", "limit": 3}),
            json!(null),
            json!({"command": "tools", "name": "x"}),
        ),
        (
            json!({"command": "tool", "name": "add_todo", "input": {"text": "milk"}}),
            json!({"command": "tool", "name": "add_todo", "args": {}}),
            json!({"command": "tool", "input": {}}),
            json!({"command": "tool", "name": "add_todo", "input": "milk"}),
        ),
    ];
    assert_eq!(cases.len(), crate::protocol::COMMANDS.len());
    for (ok, unknown, missing, wrong) in cases {
        assert!(check(ok.clone()).is_ok(), "{ok}: {:?}", check(ok.clone()));
        let e = check(unknown.clone()).expect_err(&unknown.to_string());
        assert!(e.contains(" step takes ") && e.contains("; not \""), "{unknown}: {e}");
        if !missing.is_null() {
            let e = check(missing.clone()).unwrap_err();
            assert!(e.contains(" needs "), "{missing}: {e}");
        }
        let e = check(wrong.clone()).unwrap_err();
        assert!(e.starts_with("step 1 (nothing ran): "), "{wrong}: {e}");
    }
}

#[test]
fn qa_steps_are_refused_before_anything_runs() {
    // A malformed step late in a batch: a 400, not a click and then a failure.
    assert_eq!(
        batch(json!([{"command": "click", "text": "Inc"}, {"command": "type", "label": "Query"}])),
        "step 2 (nothing ran): type needs \"text\" (or \"value\"), e.g. {\"command\":\"type\",\"label\":\"Email\",\"text\":\"ada@example.com\"}"
    );
    assert_eq!(
        batch(json!([{"command": "click", "text": "Inc"}, {"command": "navigate", "url": "ftp://x"}])),
        "step 2 (nothing ran): invalid url \"ftp://x\": navigate follows http and https URLs only (or a path of this site, like \"/settings\"); for a host and port write \"http://localhost:3000/\""
    );
    assert_eq!(
        check(json!({"command": "scroll", "direction": "sideways"})).unwrap_err(),
        "step 1 (nothing ran): invalid direction \"sideways\": use up, down, left or right"
    );
    assert_eq!(
        check(json!({"command": "wait", "text": "x", "timeout": "5"})).unwrap_err(),
        "step 1 (nothing ran): invalid timeout \"5\": expected a number of milliseconds, 0 or more"
    );
    assert_eq!(
        check(json!({"command": "wait", "text": "x", "timeout": -1})).unwrap_err(),
        "step 1 (nothing ran): invalid timeout -1: expected a number of milliseconds, 0 or more"
    );
    assert_eq!(
        check(json!({"command": "press"})).unwrap_err(),
        "step 1 (nothing ran): press needs \"key\" (or \"keys\"), e.g. {\"command\":\"press\",\"key\":\"Enter\"}"
    );
    assert_eq!(
        check(json!({"command": "select", "label": "Color"})).unwrap_err(),
        "step 1 (nothing ran): select needs \"option\" (or \"value\", \"text\"), e.g. {\"command\":\"select\",\"label\":\"Color\",\"option\":\"Red\"}"
    );
    assert_eq!(
        check(json!({"command": "evaluate", "script": ""})).unwrap_err(),
        "step 1 (nothing ran): evaluate needs \"script\" (or \"expression\", \"code\", \"js\"), e.g. {\"command\":\"evaluate\",\"script\":\"document.title\"}"
    );
    assert_eq!(
        check(json!({"command": "scroll", "direction": "down", "amount": "lots"})).unwrap_err(),
        "step 1 (nothing ran): invalid amount \"lots\": expected a number of pixels, 0 or more (\"direction\" says which way)"
    );
    // The pointer's button, point and hold, and scroll's position (issue 34, item 6).
    for (step, want) in [
        (
            json!({"command": "click", "ref": "e7", "button": "back"}),
            "invalid button \"back\": use left, right or middle",
        ),
        (
            json!({"command": "click", "ref": "e7", "x": -3}),
            "invalid x -3: expected px from the target's top-left corner, 0 or more, e.g. {\"command\":\"click\",\"ref\":\"e7\",\"x\":12,\"y\":30}",
        ),
        (
            json!({"command": "hover", "ref": "e7", "y": "top"}),
            "invalid y \"top\": expected px from the target's top-left corner, 0 or more, e.g. {\"command\":\"hover\",\"ref\":\"e7\",\"x\":12,\"y\":30}",
        ),
        (
            json!({"command": "up", "x": 3}),
            "x and y are a point in the target: up needs one with them, e.g. {\"command\":\"up\",\"ref\":\"e9\",\"x\":4,\"y\":4}",
        ),
        (
            json!({"command": "scroll", "ref": "e7", "to": "middle"}),
            "invalid to \"middle\": use top, bottom, left or right",
        ),
        (
            json!({"command": "scroll", "direction": "down", "to": "bottom"}),
            "direction and amount scroll by an amount, to, x and y to a position: send one kind, e.g. {\"command\":\"scroll\",\"ref\":\"e7\",\"to\":\"bottom\"}",
        ),
        (
            json!({"command": "scroll", "to": "top", "y": 5}),
            "to and x/y both say where to scroll: send one, e.g. {\"command\":\"scroll\",\"y\":600}",
        ),
        (
            json!({"command": "scroll", "y": -5}),
            "invalid y -5: expected the position to scroll to, in px from the start, 0 or more",
        ),
    ] {
        assert_eq!(check(step).unwrap_err(), format!("step 1 (nothing ran): {want}"));
    }
    for ok in [
        json!({"command": "click", "ref": "e7", "button": "right"}),
        json!({"command": "click", "ref": "e7", "x": 0, "y": 12.5}),
        json!({"command": "dblclick", "ref": "e7", "x": 3}),
        json!({"command": "up", "ref": "e9", "x": 1, "y": 1}),
        json!({"command": "scroll", "to": "bottom"}),
        json!({"command": "scroll", "ref": "e7", "x": 0, "y": 400}),
    ] {
        assert!(check(ok.clone()).is_ok(), "{ok}: {:?}", check(ok.clone()));
    }
    // Fields a command does not take: named, with what it takes.
    assert_eq!(
        check(json!({"command": "click", "label": "Box", "position": "right"})).unwrap_err(),
        "step 1 (nothing ran): a click step takes button, x, y, ref, role, label, placeholder, selector, name, text, nth, waitNetwork; not \"position\""
    );
    for (field, value) in [("modifiers", json!(["Shift"])), ("clickCount", json!(2))] {
        let mut step = json!({"command": "click", "label": "Box"});
        step[field] = value;
        assert!(
            check(step).unwrap_err().ends_with(&format!("; not \"{field}\"")),
            "{field}"
        );
    }
    assert_eq!(
        check(json!({"command": "wait", "text": "x", "timeoutMs": 100})).unwrap_err(),
        "step 1 (nothing ran): a wait step takes timeout, gone, ms, text, pattern, exact, already, ref, role, label, placeholder, selector, \
         name, nth; not \"timeoutMs\""
    );
    assert_eq!(
        check(json!({"command": "type", "label": "Query", "text": "x", "delay": 5})).unwrap_err(),
        "step 1 (nothing ran): a type step takes text, value, clear, ref, role, label, placeholder, selector, name, nth, waitNetwork; \
         not \"delay\""
    );
    assert_eq!(
        check(json!({"command": "reload", "hard": true})).unwrap_err(),
        "step 1 (nothing ran): a reload step takes no fields besides \"command\"; not \"hard\""
    );
    // nth: a whole number, 0 or more.
    for bad in [json!(-1), json!(1.5), json!("1")] {
        assert_eq!(
            check(json!({"command": "click", "text": "Details", "nth": bad})).unwrap_err(),
            format!(
                "step 1 (nothing ran): invalid nth {bad}: expected a whole number, 0 or more (0 = the first match)"
            )
        );
    }
    assert!(check(json!({"command": "click", "text": "Details", "nth": 1.0})).is_ok());
}

#[test]
fn targets_are_asked_for_where_the_page_needs_one() {
    assert_eq!(
        check(json!({"command": "click", "ref": ""})).unwrap_err(),
        "step 1 (nothing ran): click needs a target: ref, text, role (with name), label, placeholder or selector, e.g. {\"command\":\"click\",\"ref\":\"e7\"}"
    );
    // In type and fill, `text` is what is typed, not a target.
    assert_eq!(
        check(json!({"command": "fill", "text": "Ada"})).unwrap_err(),
        "step 1 (nothing ran): fill needs a target: ref, label, placeholder, role (with name), name or selector (in a fill step, \"text\" is not a target), e.g. {\"command\":\"fill\",\"label\":\"Email\",\"text\":\"ada@example.com\"}"
    );
    // `name` alone is a target (the text to look for); a number is read as its digits.
    assert!(check(json!({"command": "type", "name": "Email", "text": "a"})).is_ok());
    assert!(check(json!({"command": "click", "text": 42})).is_ok());
    // press and screenshot may go without one; wait and scroll need one or their own field.
    assert!(check(json!({"command": "press", "key": "Escape"})).is_ok());
    assert!(check(json!({"command": "screenshot"})).is_ok());
    assert!(check(json!({"command": "scroll", "text": "Next page"})).is_ok());
    assert!(check(json!({"command": "wait", "ms": 0})).is_ok());
    assert!(check(json!({"command": "wait", "timeout": 200})).is_ok());
    assert_eq!(
        check(json!({"command": "scroll"})).unwrap_err(),
        "step 1 (nothing ran): scroll needs \"direction\" (up, down, left or right) (or \"to\", \"x\", \"y\") or a target (ref, text, role (with name), label, placeholder or selector), e.g. {\"command\":\"scroll\",\"direction\":\"down\",\"amount\":600}"
    );
    assert!(check(json!({"command": "wait"})).unwrap_err().starts_with(
        "step 1 (nothing ran): wait needs \"ms\" (or \"timeout\", \"pattern\") or a target (ref, text, role (with name), label, placeholder or selector)"
    ));
    // A target on a command that takes none is a field it does not take.
    assert!(check(json!({"command": "evaluate", "script": "1", "ref": "e3"}))
        .unwrap_err()
        .ends_with("; not \"ref\""));
    // Empty and null fields are not given, as the page reads them.
    assert!(check(json!({"command": "click", "text": "Save", "label": "", "role": null, "nth": null})).is_ok());
    assert!(check(json!({"command": "navigate", "url": "/x", "text": null})).is_ok());
}

#[test]
fn fields_the_page_would_read_as_less_are_refused() {
    // select's `text` names the option only beside ref or name.
    assert!(check(json!({"command": "select", "ref": "e4", "text": "Red"})).is_ok());
    assert!(check(json!({"command": "select", "name": "Color", "text": "Red"})).is_ok());
    assert!(check(json!({"command": "select", "label": "Color", "text": "Red"}))
        .unwrap_err()
        .contains("names the option only beside ref or name; send \"option\""));
    assert!(check(json!({"command": "select", "label": "Color", "value": 2})).is_ok());
    // scroll's amount needs a direction; a direction takes any case; amounts are not signed.
    assert!(check(json!({"command": "scroll", "text": "Next", "amount": 300}))
        .unwrap_err()
        .starts_with("step 1 (nothing ran): amount needs \"direction\""));
    assert!(check(json!({"command": "scroll", "direction": "LEFT", "text": "Gallery"})).is_ok());
    assert!(check(json!({"command": "scroll", "direction": "down", "amount": -300})).is_err());
    assert!(check(json!({"command": "scroll", "direction": 1})).is_err());
    // wait: ms is a fixed time (not with a target, not with timeout); gone needs a target.
    assert!(check(json!({"command": "wait", "text": "Saved", "ms": 500}))
        .unwrap_err()
        .contains("send \"timeout\""));
    assert!(check(json!({"command": "wait", "ms": 500, "timeout": 100}))
        .unwrap_err()
        .contains("send one"));
    assert!(check(json!({"command": "wait", "ms": 500, "gone": true}))
        .unwrap_err()
        .starts_with("step 1 (nothing ran): gone needs a target"));
    assert!(check(json!({"command": "wait", "ms": -1})).is_err());
    assert!(check(json!({"command": "wait", "text": "x", "gone": "yes"})).is_err());
    // type: `text` is a string ("" empties a field); `clear` a flag.
    assert!(check(json!({"command": "type", "label": "Q", "text": "x", "clear": 1})).is_err());
    assert!(check(json!({"command": "type", "label": "Q", "value": "x"})).is_ok());
}

#[test]
fn navigate_follows_http_and_https_and_paths() {
    for ok in [
        "https://example.com/",
        "HTTP://localhost:3000/a",
        "/settings",
        "settings?tab=2",
        "//cdn.example.com/x",
        "a/b:c",
        "#top",
        " https://example.com ",
    ] {
        assert!(check(json!({"command": "navigate", "url": ok})).is_ok(), "{ok}");
    }
    for bad in [
        "ftp://x",
        "javascript:alert(1)",
        "localhost:3000",
        "file:///etc/passwd",
        "mailto:a@b.c",
    ] {
        let e = check(json!({"command": "navigate", "url": bad})).unwrap_err();
        assert!(e.contains("navigate follows http and https URLs only"), "{bad}: {e}");
    }
    assert_eq!(
        check(json!({"command": "navigate", "url": ""})).unwrap_err(),
        "step 1 (nothing ran): navigate needs \"url\", e.g. {\"command\":\"navigate\",\"url\":\"/settings\"}"
    );
}

#[test]
fn the_notes_text_stays() {
    for step in [
        json!({"command": "notes"}),
        json!({"command": "notes", "mode": "Enter"}),
    ] {
        assert_eq!(
            check(step).unwrap_err(),
            "step 1 (nothing ran): notes needs \"mode\": \"enter\" or \"exit\", e.g. {\"command\":\"notes\",\"mode\":\"enter\"}"
        );
    }
}

#[test]
fn any_step_may_be_optional_and_acting_steps_may_wait_for_the_network() {
    assert!(check(json!({"command": "wait", "text": "Saved", "optional": true})).is_ok());
    assert!(check(json!({"command": "snapshot", "optional": false})).is_ok());
    assert!(check(json!({"command": "back", "optional": true})).is_ok());
    assert_eq!(
        check(json!({"command": "snapshot", "optional": "yes"})).unwrap_err(),
        "step 1 (nothing ran): invalid optional \"yes\": use true or false"
    );
    for step in [
        json!({"command": "click", "text": "Place order", "waitNetwork": true}),
        json!({"command": "fill", "label": "Email", "text": "a@b.c", "waitNetwork": true}),
        json!({"command": "select", "label": "Color", "option": "Red", "waitNetwork": false}),
        json!({"command": "press", "key": "Enter", "waitNetwork": true}),
        json!({"command": "evaluate", "script": "fetch('/x')", "waitNetwork": true}),
    ] {
        assert!(check(step.clone()).is_ok(), "{step}");
    }
    assert_eq!(
        check(json!({"command": "click", "text": "Go", "waitNetwork": 1})).unwrap_err(),
        "step 1 (nothing ran): invalid waitNetwork 1: use true or false"
    );
    // Steps that do not act do not take it: it would be ignored.
    let e = check(json!({"command": "snapshot", "waitNetwork": true})).unwrap_err();
    assert!(
        e.starts_with("step 1 (nothing ran): a snapshot step takes diff, ref,") && e.ends_with("not \"waitNetwork\""),
        "{e}"
    );
    assert!(check(json!({"command": "wait", "text": "x", "waitNetwork": true})).is_err());
}

#[test]
fn a_wait_for_text_takes_alternatives_patterns_and_a_ref_scope() {
    for ok in [
        json!({"command": "wait", "text": "Saved"}),
        json!({"command": "wait", "text": ["Order placed", "Payment failed"], "timeout": 3000}),
        json!({"command": "wait", "pattern": "Order #\\d+ placed"}),
        json!({"command": "wait", "pattern": ["^Saved$", "/failed/i"], "text": "Error"}),
        json!({"command": "wait", "ref": "e12", "text": "3 items", "exact": true}),
        json!({"command": "wait", "ref": "e12", "pattern": "\\d+ items"}),
        json!({"command": "wait", "text": "Order", "already": true}),
        json!({"command": "wait", "pattern": "Loading", "gone": true}),
        json!({"command": "wait", "role": "button", "text": "Save"}),
    ] {
        assert!(check(ok.clone()).is_ok(), "{ok}: {:?}", check(ok.clone()));
    }
    let err = |step: Value| check(step).unwrap_err();
    assert_eq!(
        err(json!({"command": "wait", "text": []})),
        "step 1 (nothing ran): invalid text: a list of 1 to 8 alternatives, got 0; e.g. \
         {\"command\":\"wait\",\"text\":[\"Order placed\",\"Payment failed\"],\"timeout\":5000}"
    );
    assert!(err(json!({"command": "wait", "text": ["ok", 3]}))
        .starts_with("step 1 (nothing ran): invalid text 3 in the list"));
    assert!(err(json!({"command": "wait", "pattern": 3}))
        .starts_with("step 1 (nothing ran): invalid pattern 3: expected a string"));
    assert!(err(json!({"command": "wait", "pattern": "x", "role": "status"}))
        .starts_with("step 1 (nothing ran): a wait for a pattern or a list of texts reads the page's text"));
    assert!(err(json!({"command": "wait", "text": ["a", "b"], "selector": "#x"})).contains("not \"selector\""));
    assert!(err(json!({"command": "wait", "exact": true, "timeout": 100}))
        .starts_with("step 1 (nothing ran): exact says how to read \"text\" or \"pattern\""));
    assert!(err(json!({"command": "wait", "pattern": "x", "exact": true}))
        .starts_with("step 1 (nothing ran): exact is for \"text\""));
    assert!(err(json!({"command": "wait", "text": "x", "already": true, "gone": true})).contains("send one"));
    assert!(err(json!({"command": "wait", "pattern": "x", "ms": 100}))
        .starts_with("step 1 (nothing ran): ms waits a fixed time"));
    assert!(err(json!({"command": "wait", "text": "x", "exact": "yes"}))
        .starts_with("step 1 (nothing ran): invalid exact \"yes\""));
}
