//! Waits that cannot mislead, and batches that keep going when asked, in real headless Chromium:
//! a text wait is answered by text that appears (not by text that was there before the step it
//! follows), exact or by pattern, scoped to a ref, the first of several alternatives; an acting
//! step waits for the requests it started (`waitNetwork`); an `optional` step that fails is
//! reported and the steps after it still run.
//!
//! Fixture: `fixtures/waits/order.html` (a "Place order" button, outcomes shown after a timer, a
//! cart list, a click that fetches `/api/slow`, which the test app answers after 800 ms).

use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, open, ref_of, run};
use serde_json::{json, Value};

/// Step `i`'s result text, which must be there (the step succeeded).
fn result(v: &Value, i: usize) -> String {
    let s = &v["steps"][i];
    assert!(s["error"].is_null(), "step {i} failed: {v}");
    s["result"]
        .as_str()
        .unwrap_or_else(|| panic!("step {i} has a text result: {v}"))
        .to_owned()
}

/// Step `i`'s error, which must be there.
fn error(v: &Value, i: usize) -> String {
    v["steps"][i]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("step {i} should fail: {v}"))
        .to_owned()
}

/// The milliseconds in `… after N ms…`.
fn after_ms(text: &str) -> u64 {
    let rest = text
        .split(" after ")
        .nth(1)
        .unwrap_or_else(|| panic!("no \" after \" in {text:?}"));
    rest.split(" ms")
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|_| panic!("no ms in {text:?}"))
}

chromium_test!(
    text_already_there_is_not_proof_text_that_appears_is,
    Axum,
    |c, server| {
        let id = open(c, &server, "/waits/order.html").await;
        // "Order" is on the page (the button says "Place order"). With no action ahead of it, the
        // wait answers at once that it was already there (not that it appeared).
        let v = run(
            &server,
            &id,
            json!([{"command": "wait", "text": "Order", "timeout": 400}]),
        )
        .await;
        assert_eq!(result(&v, 0), "\"Order\" was already there: \"Place order\"");
        // After an action that changes nothing, text that was there before proves nothing: the
        // wait times out and says so. (Optional: the snapshot after it still runs.)
        let v = run(
            &server,
            &id,
            json!([
                {"command": "hover", "text": "Place order"},
                {"command": "wait", "text": "Order", "timeout": 400, "optional": true},
                {"command": "snapshot"}
            ]),
        )
        .await;
        let e = error(&v, 1);
        assert!(
            e.starts_with(
                "Timed out after 400 ms waiting for \"Order\" to appear; it was already there before (\"Place order\")"
            ) && e.contains("\"already\": true"),
            "{e}"
        );
        assert!(result(&v, 2).contains("button \"Place order\""), "{v}");
        // Asked plainly, it answers at once that it was there.
        let v = run(
            &server,
            &id,
            json!([{"command": "wait", "text": "Order", "already": true}]),
        )
        .await;
        assert_eq!(result(&v, 0), "\"Order\" was already there: \"Place order\"");
        // After a click, the text that appears answers, and the answer shows its line.
        let v = run(
            &server,
            &id,
            json!([{"command": "click", "text": "Place order"}, {"command": "wait", "text": "Order", "timeout": 4000}]),
        )
        .await;
        let waited = result(&v, 1);
        assert!(
            waited.starts_with("\"Order\" appeared after ") && waited.ends_with(" ms: \"Order #42 placed\""),
            "{waited}"
        );
        // A second occurrence of the same line is new too (one more than there was).
        let v = run(
        &server,
        &id,
        json!([{"command": "click", "text": "Place order"}, {"command": "wait", "text": "Order #42 placed", "exact": true}]),
    )
    .await;
        assert!(result(&v, 1).starts_with("\"Order #42 placed\" appeared after "), "{v}");
    }
);

chromium_test!(a_pattern_and_alternatives_say_which_came_first, Axum, |c, server| {
    let id = open(c, &server, "/waits/order.html").await;
    let v = run(
        &server,
        &id,
        json!([
            {"command": "click", "text": "Confirm later"},
            {"command": "wait", "pattern": "Order #\\d+ placed", "timeout": 4000},
        ]),
    )
    .await;
    let waited = result(&v, 1);
    assert!(
        waited.starts_with("pattern /Order #\\d+ placed/ appeared after ")
            && waited.ends_with(": \"Order #42 placed\""),
        "{waited}"
    );
    assert!(after_ms(&waited) >= 200, "{waited}");
    // The success text or the error text: the error came first.
    let v = run(
        &server,
        &id,
        json!([
            {"command": "click", "text": "Fail later"},
            {"command": "wait", "text": ["Order #42 placed", "Payment failed"], "pattern": "/declined/i", "timeout": 4000},
        ]),
    )
    .await;
    let waited = result(&v, 1);
    assert!(
        waited.starts_with("\"Payment failed\" appeared after ")
            && waited.ends_with(": \"Payment failed: card declined\" (the first of 3 alternatives, #2)"),
        "{waited}"
    );
    // A pattern the browser cannot read is an error naming it.
    let v = run(
        &server,
        &id,
        json!([{"command": "wait", "pattern": "(", "timeout": 300}]),
    )
    .await;
    assert!(error(&v, 0).starts_with("invalid pattern \"(\": "), "{v}");
});

chromium_test!(
    a_text_wait_scoped_to_a_ref_reads_that_element_only,
    Axum,
    |c, server| {
        let id = open(c, &server, "/waits/order.html").await;
        let cart = ref_of(&server, &id, "list \"Cart\"").await;
        // "3 items" is elsewhere on the page, not in the cart: the scoped wait does not see it.
        let v = run(
            &server,
            &id,
            json!([{"command": "wait", "ref": cart, "text": "3 items", "timeout": 400}]),
        )
        .await;
        let e = error(&v, 0);
        assert_eq!(
            e,
            format!("Timed out after 400 ms waiting for \"3 items\" in [ref={cart}] to appear"),
            "{v}"
        );
        let v = run(
            &server,
            &id,
            json!([
                {"command": "click", "text": "Add to cart"},
                {"command": "wait", "ref": cart, "text": "3 items", "exact": true, "timeout": 4000},
            ]),
        )
        .await;
        assert!(result(&v, 1).starts_with("\"3 items\" appeared after "), "{v}");
    }
);

chromium_test!(a_click_waits_for_the_requests_it_started, Axum, |c, server| {
    let id = open(c, &server, "/waits/order.html").await;
    // Without waitNetwork the click answers while the request runs.
    let v = run(
        &server,
        &id,
        json!([
            {"command": "click", "text": "Load slowly"},
            {"command": "evaluate", "script": "return window.loaded"},
        ]),
    )
    .await;
    assert_eq!(v["steps"][1]["result"], false, "{v}");
    // ... but the answer's snapshot waits for the requests the batch started: it shows what the
    // click led to, and the request's own entry is among the batch's logs.
    assert!(
        v["snapshot"].as_str().unwrap_or_default().contains("Slow data loaded"),
        "{v}"
    );
    let logs = v["logs"].to_string();
    assert!(logs.contains("/api/slow"), "{logs}");
    // A snapshot step after the click waits alike.
    let v = run(
        &server,
        &id,
        json!([
            {"command": "click", "text": "Load slowly"},
            {"command": "snapshot", "filter": "Slow data loaded"},
        ]),
    )
    .await;
    assert!(result(&v, 1).contains("Slow data loaded"), "{v}");
    let v = run(
        &server,
        &id,
        json!([
            {"command": "click", "text": "Load slowly", "waitNetwork": true},
            {"command": "evaluate", "script": "return window.loaded"},
        ]),
    )
    .await;
    let clicked = result(&v, 0);
    assert!(
        clicked.contains("; the requests it started finished after "),
        "{clicked}"
    );
    assert!(after_ms(&clicked) >= 400, "the slow answer takes 800 ms: {clicked}");
    assert_eq!(v["steps"][1]["result"], true, "{v}");
    // A step that starts none says so.
    let v = run(
        &server,
        &id,
        json!([{"command": "click", "text": "Add to cart", "waitNetwork": true}]),
    )
    .await;
    assert!(result(&v, 0).ends_with("; it started no requests"), "{v}");
});

chromium_test!(an_optional_failing_step_lets_the_batch_go_on, Axum, |c, server| {
    let id = open(c, &server, "/waits/order.html").await;
    let v = run(
        &server,
        &id,
        json!([
            {"command": "wait", "text": "Never shown", "timeout": 300, "optional": true},
            {"command": "click", "text": "Place order"},
            {"command": "snapshot"},
        ]),
    )
    .await;
    let steps = v["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 3, "{v}");
    assert!(
        error(&v, 0).starts_with("Timed out after 300 ms waiting for \"Never shown\" to appear"),
        "{v}"
    );
    assert_eq!(steps[0]["optional"], true, "{v}");
    assert!(
        v["error"].is_null(),
        "an optional step's failure is not the batch's: {v}"
    );
    assert!(result(&v, 2).contains("button \"Place order\""), "{v}");
    // Not optional: the batch stops at it.
    let v = run(
        &server,
        &id,
        json!([{"command": "wait", "text": "Never shown", "timeout": 300}, {"command": "snapshot"}]),
    )
    .await;
    assert_eq!(v["steps"].as_array().map(Vec::len), Some(1), "{v}");
    assert!(v["error"].is_string(), "{v}");
});

chromium_test!(
    a_text_that_the_requests_of_the_step_replace_does_not_answer_a_wait,
    Axum,
    |c, server| {
        let page = open(c, &server, "/waits/saving.html").await;
        // "Placing order…" comes at once and matches "order"; the order's own text comes when
        // its request is answered (800 ms).
        let v = run(
            &server,
            &page,
            json!([{"command": "click", "text": "Place order"}, {"command": "wait", "text": "order"}]),
        )
        .await;
        let waited = result(&v, 1);
        assert!(waited.contains("Order #4242 placed"), "{waited}");
        assert!(!waited.contains("Placing"), "{waited}");
    }
);

chromium_test!(check_reads_the_box_after_the_save_it_started, Axum, |c, server| {
    let page = open(c, &server, "/waits/saving.html").await;
    // The page cancels the click and draws the box checked when its save is answered.
    let v = run(&server, &page, json!([{"command": "check", "label": "Buy milk"}])).await;
    assert_eq!(result(&v, 0), "checked", "{v}");
    let v = run(&server, &page, json!([{"command": "uncheck", "label": "Buy milk"}])).await;
    assert_eq!(result(&v, 0), "unchecked", "{v}");
});
