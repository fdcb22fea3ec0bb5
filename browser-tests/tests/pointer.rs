//! The pointer's odds and ends (issue 34, item 6) in real headless Chromium: a right or middle
//! click, a click at a point in a target, a button held across steps (`down`, `up`), and `scroll`
//! of an element to a position.
//!
//! Each press is made once as a person makes it (chromedriver's pointer actions, which Chromium
//! receives as trusted input and acts on) and once through the agent's steps, on the same page
//! from the same state; the press events the page saw (type, target, button, buttons, detail,
//! the point in the target, the event's class), and the moves made while a button was held, must
//! be the same.
//!
//! Fixture: `fixtures/pointer/index.html` (whole-pixel boxes: a pad, a zone with the page's own
//! context menu, two boxes side by side, a canvas that paints where it is pressed and while the
//! button is held, a button that says it is held, a scrolling list, a wide box; `reset()` puts it
//! back, `log` is what the page saw).

use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, eval, exec, fails, mcp_tool, ok, open, run, run_raw, Server};
use fantoccini::actions::{
    InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT, MOUSE_BUTTON_MIDDLE, MOUSE_BUTTON_RIGHT,
};
use fantoccini::Client;
use serde_json::{json, Value};

/// One part of a person's press: the pointer to a point `(x, y)` px from the top-left corner of
/// the element `selector` names, or a button down or up.
#[derive(Clone, Copy)]
enum Move {
    To(&'static str, f64, f64),
    Down(u64),
    Up(u64),
}

/// A press made both ways: what a person does, and the agent's steps that do the same.
struct Case {
    what: &'static str,
    person: &'static [Move],
    steps: fn() -> Value,
}

const CASES: &[Case] = &[
    Case {
        what: "a right click, the page leaving the menu to the browser",
        person: &[
            Move::To("#pad", 150.0, 100.0),
            Move::Down(MOUSE_BUTTON_RIGHT),
            Move::Up(MOUSE_BUTTON_RIGHT),
        ],
        steps: || json!([{"command": "click", "selector": "#pad", "button": "right"}]),
    },
    Case {
        what: "a right click where the page draws its own menu",
        person: &[
            Move::To("#zone", 100.0, 50.0),
            Move::Down(MOUSE_BUTTON_RIGHT),
            Move::Up(MOUSE_BUTTON_RIGHT),
        ],
        steps: || json!([{"command": "click", "selector": "#zone", "button": "right"}]),
    },
    Case {
        what: "a middle click",
        person: &[
            Move::To("#pad", 150.0, 100.0),
            Move::Down(MOUSE_BUTTON_MIDDLE),
            Move::Up(MOUSE_BUTTON_MIDDLE),
        ],
        steps: || json!([{"command": "click", "selector": "#pad", "button": "middle"}]),
    },
    Case {
        what: "a click at a point in the target",
        person: &[
            Move::To("#pad", 30.0, 40.0),
            Move::Down(MOUSE_BUTTON_LEFT),
            Move::Up(MOUSE_BUTTON_LEFT),
        ],
        steps: || json!([{"command": "click", "selector": "#pad", "x": 30, "y": 40}]),
    },
    Case {
        what: "a click at a point on a canvas",
        person: &[
            Move::To("#paint", 200.0, 17.0),
            Move::Down(MOUSE_BUTTON_LEFT),
            Move::Up(MOUSE_BUTTON_LEFT),
        ],
        steps: || json!([{"command": "click", "selector": "#paint", "x": 200, "y": 17}]),
    },
    Case {
        what: "pressed on one box, released on the other",
        person: &[
            Move::To("#a", 45.0, 30.0),
            Move::Down(MOUSE_BUTTON_LEFT),
            Move::To("#b", 45.0, 30.0),
            Move::Up(MOUSE_BUTTON_LEFT),
        ],
        steps: || json!([{"command": "down", "selector": "#a"}, {"command": "up", "selector": "#b"}]),
    },
    Case {
        what: "a stroke on a canvas with the button held",
        person: &[
            Move::To("#paint", 10.0, 10.0),
            Move::Down(MOUSE_BUTTON_LEFT),
            Move::To("#paint", 50.0, 10.0),
            Move::To("#paint", 90.0, 30.0),
            Move::Up(MOUSE_BUTTON_LEFT),
        ],
        steps: || {
            json!([
                {"command": "down", "selector": "#paint", "x": 10, "y": 10},
                {"command": "hover", "selector": "#paint", "x": 50, "y": 10},
                {"command": "up", "selector": "#paint", "x": 90, "y": 30},
            ])
        },
    },
    Case {
        what: "held and released where it was pressed",
        person: &[
            Move::To("#hold", 60.0, 20.0),
            Move::Down(MOUSE_BUTTON_LEFT),
            Move::Up(MOUSE_BUTTON_LEFT),
        ],
        steps: || json!([{"command": "down", "selector": "#hold"}, {"command": "up"}]),
    },
    Case {
        what: "the right button held and released",
        person: &[
            Move::To("#hold", 60.0, 20.0),
            Move::Down(MOUSE_BUTTON_RIGHT),
            Move::Up(MOUSE_BUTTON_RIGHT),
        ],
        steps: || json!([{"command": "down", "selector": "#hold", "button": "right"}, {"command": "up"}]),
    },
];

/// Makes `moves` as a person does (chromedriver's pointer actions, at whole viewport pixels).
async fn person(c: &Client, moves: &[Move]) {
    let mut a = MouseActions::new("mouse".into());
    for m in moves {
        a = a.then(match *m {
            Move::To(sel, dx, dy) => {
                let b = exec(c, &format!("return box({})", json!(sel))).await;
                let at = |i: usize| b[i].as_f64().expect("a box");
                PointerAction::MoveTo {
                    duration: None,
                    x: (at(0) + dx).round(),
                    y: (at(1) + dy).round(),
                }
            }
            Move::Down(button) => PointerAction::Down { button },
            Move::Up(button) => PointerAction::Up { button },
        });
    }
    c.perform_actions(a).await.expect("pointer actions");
    c.release_actions().await.expect("release the pointer");
}

/// What the page saw of a case's press, made by a person or by the agent's steps; and the
/// agent's answer.
async fn pressed(c: &Client, server: &Server, id: &str, k: &Case, trusted: bool) -> (Value, Value) {
    assert_eq!(eval(server, id, "return reset()").await, true);
    let answer = if trusted {
        person(c, k.person).await;
        Value::Null
    } else {
        run(server, id, (k.steps)()).await
    };
    (eval(server, id, "return log").await, answer)
}

chromium_test!(presses_do_what_a_person_s_presses_do, Axum, |c, server| {
    let id = open(c, &server, "/pointer/index.html").await;
    let mut wrong = Vec::new();
    for k in CASES {
        let (by_person, _) = pressed(c, &server, &id, k, true).await;
        let (by_agent, answer) = pressed(c, &server, &id, k, false).await;
        assert!(
            by_person.as_array().is_some_and(|l| !l.is_empty()),
            "{}: the page saw the person's press: {by_person}",
            k.what
        );
        if by_person != by_agent {
            wrong.push(format!(
                "{}:\n  person: {by_person}\n  agent:  {by_agent}\n  answer: {answer}",
                k.what
            ));
        }
    }
    assert!(wrong.is_empty(), "{} differences:\n{}", wrong.len(), wrong.join("\n"));
});

chromium_test!(right_click_answers_whether_the_page_drew_a_menu, Axum, |c, server| {
    let id = open(c, &server, "/pointer/index.html").await;
    // The page's own menu: in the answer's diff.
    let v = run(
        &server,
        &id,
        json!([{"command": "click", "selector": "#zone", "button": "right"}]),
    )
    .await;
    let said = v["steps"][0]["result"].as_str().unwrap_or_default();
    assert!(said.starts_with("right-clicked; the page handled contextmenu"), "{v}");
    let diff = v["snapshot"].as_str().unwrap_or_default();
    assert!(
        diff.contains("menuitem \"Rename\"") && diff.contains("menuitem \"Delete\""),
        "{diff}"
    );
    // No menu of the page's: the answer says the browser's own would open, and no click fired.
    eval(&server, &id, "return reset()").await;
    let said = ok(
        &server,
        &id,
        json!({"command": "click", "selector": "#pad", "button": "right"}),
    )
    .await;
    assert!(
        said["result"]
            .as_str()
            .unwrap_or_default()
            .contains("left contextmenu to the browser"),
        "{said}"
    );
    let clicks = eval(&server, &id, "return log.filter((e) => e.startsWith('click:')).length").await;
    assert_eq!(clicks, 0, "a right click fires no click");

    // Over MCP, the same step.
    eval(&server, &id, "return reset()").await;
    let answer = mcp_tool(
        &server,
        "browser_run",
        json!({"client": id, "steps": [{"command": "click", "selector": "#zone", "button": "right"}]}),
    );
    let text = answer["content"][0]["text"].as_str().unwrap_or_default();
    assert_ne!(answer["isError"], true, "{answer}");
    assert!(
        text.contains("handled contextmenu") && text.contains("menuitem \"Rename\""),
        "{text}"
    );
});

chromium_test!(
    a_point_outside_the_target_is_refused_naming_its_box,
    Axum,
    |c, server| {
        let id = open(c, &server, "/pointer/index.html").await;
        let e = fails(
            &server,
            &id,
            json!({"command": "click", "selector": "#pad", "x": 300, "y": 10}),
        )
        .await;
        assert!(
        e.ends_with(" is 300 × 200 px: x 300 is outside its box (x from 0 to 300, y from 0 to 200, from its top-left corner)"),
        "{e}"
    );
        let e = fails(
            &server,
            &id,
            // The canvas's box: its 300 × 150 px drawing and its 1 px border.
            json!({"command": "hover", "selector": "#paint", "y": 152}),
        )
        .await;
        assert!(e.contains(" is 302 × 152 px: y 152 is outside its box"), "{e}");
        assert_eq!(eval(&server, &id, "return log.length").await, 0, "nothing was pressed");
        // A canvas pressed where the agent said: painted there, not at its centre.
        ok(
            &server,
            &id,
            json!({"command": "click", "selector": "#paint", "x": 20, "y": 30}),
        )
        .await;
        assert_eq!(
            eval(&server, &id, "return [painted(20, 30), painted(150, 75)]").await,
            json!([true, false])
        );
    }
);

chromium_test!(a_held_button_outlives_its_step_not_its_batch, Axum, |c, server| {
    let id = open(c, &server, "/pointer/index.html").await;
    // Held across steps: the page sees it held at the next step.
    let v = run(
        &server,
        &id,
        json!([
            {"command": "down", "selector": "#hold"},
            {"command": "evaluate", "script": "return document.getElementById('status').textContent"},
            {"command": "up"},
        ]),
    )
    .await;
    assert_eq!(v["steps"][0]["result"], "pressed the left button and holds it", "{v}");
    assert_eq!(v["steps"][1]["result"], "holding", "{v}");
    let said = v["steps"][2]["result"].as_str().unwrap_or_default();
    assert!(
        said.starts_with("released the left button on button \"Hold me\""),
        "{v}"
    );

    // Left held at the batch's end: released there (no click), and the answer says so.
    eval(&server, &id, "return reset()").await;
    let v = run(&server, &id, json!([{"command": "down", "selector": "#hold"}])).await;
    let said = v["steps"][0]["result"].as_str().unwrap_or_default();
    assert!(
        said.ends_with("; the left button a down step held was released at the batch's end (no up step; no click)"),
        "{v}"
    );
    let log = eval(
        &server,
        &id,
        "return log.filter(e => !e.startsWith('focusin')).map(e => e.split(':')[0]).join(' ')",
    )
    .await;
    assert_eq!(log, "pointerdown mousedown pointerup mouseup", "{log}");
    assert_eq!(
        eval(&server, &id, "return document.getElementById('status').textContent").await,
        "released"
    );
    // Nothing leaks into the next batch.
    let e = fails(&server, &id, json!({"command": "up"})).await;
    assert_eq!(e, "no button is held: up releases what a down step pressed");
    // A second down while one is held, and a click while held, are refused.
    let v = run(
        &server,
        &id,
        json!([{"command": "down", "selector": "#a"}, {"command": "click", "selector": "#b"}]),
    )
    .await;
    assert_eq!(
        v["steps"][1]["error"], "the left button is held (a down step): send up before clicking",
        "{v}"
    );
    let v = run(
        &server,
        &id,
        json!([{"command": "down", "selector": "#a"}, {"command": "down", "selector": "#b"}]),
    )
    .await;
    assert_eq!(
        v["steps"][1]["error"], "the left button is held already (a down step): send up first",
        "{v}"
    );
});

chromium_test!(scroll_moves_an_element_or_the_page_to_a_position, Axum, |c, server| {
    let id = open(c, &server, "/pointer/index.html").await;
    let top = |sel: &str| format!("return document.querySelector({}).scrollTop", json!(sel));
    let said = ok(
        &server,
        &id,
        json!({"command": "scroll", "selector": "#list", "to": "bottom"}),
    )
    .await;
    let max = eval(
        &server,
        &id,
        "const l = document.getElementById('list'); return l.scrollHeight - l.clientHeight",
    )
    .await;
    assert_eq!(eval(&server, &id, &top("#list")).await, max);
    assert_eq!(
        said["result"],
        format!("scrolled the container to the bottom (now at x=0 of 0, y={max} of {max})"),
        "{said}"
    );
    // An item of the list names the list that scrolls it.
    let said = ok(&server, &id, json!({"command": "scroll", "text": "Item 3", "y": 120})).await;
    assert_eq!(eval(&server, &id, &top("#list")).await, 120, "{said}");
    ok(
        &server,
        &id,
        json!({"command": "scroll", "selector": "#list", "to": "top"}),
    )
    .await;
    assert_eq!(eval(&server, &id, &top("#list")).await, 0);
    // Sideways.
    ok(&server, &id, json!({"command": "scroll", "selector": "#wide", "x": 40})).await;
    assert_eq!(
        eval(&server, &id, "return document.getElementById('wide').scrollLeft").await,
        40
    );
    // The page, by position, and beyond its end: as far as it goes, and the answer says so.
    let said = ok(&server, &id, json!({"command": "scroll", "y": 300})).await;
    assert_eq!(eval(&server, &id, "return scrollY").await, 300, "{said}");
    let said = ok(&server, &id, json!({"command": "scroll", "y": 100000})).await;
    let said = said["result"].as_str().unwrap_or_default().to_owned();
    assert!(
        said.starts_with("scrolled the page to y=100000 (now at x=0 of 0, y=")
            && said.ends_with("; it goes no further"),
        "{said}"
    );
    ok(&server, &id, json!({"command": "scroll", "to": "top"})).await;
    assert_eq!(eval(&server, &id, "return scrollY").await, 0);
});

chromium_test!(bad_pointer_steps_are_refused_before_anything_runs, Axum, |c, server| {
    let id = open(c, &server, "/pointer/index.html").await;
    for (step, field) in [
        (
            json!({"command": "click", "selector": "#pad", "button": "back"}),
            "invalid button",
        ),
        (json!({"command": "click", "selector": "#pad", "x": -1}), "invalid x -1"),
        (json!({"command": "up", "y": 3}), "up needs one with them"),
        (json!({"command": "scroll", "to": "middle"}), "invalid to \"middle\""),
        (
            json!({"command": "scroll", "direction": "down", "y": 3}),
            "send one kind",
        ),
    ] {
        let (status, v) = run_raw(
            &server,
            json!({"client": id, "steps": [{"command": "click", "selector": "#hold"}, step]}),
        )
        .await;
        assert_eq!(status, 400, "{v}");
        let text = v["error"].as_str().unwrap_or_default();
        assert!(
            text.starts_with("step 2 (nothing ran): ") && text.contains(field),
            "{text}"
        );
    }
    assert_eq!(
        eval(&server, &id, "return log.length").await,
        0,
        "the first step did not run"
    );
});
