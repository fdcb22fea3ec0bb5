//! What `evaluate` answers for a script that returns nothing, in real headless Chromium: no
//! `result` over HTTP, "no value" in MCP's text, where both used to say `"[undefined]"`, which
//! read like data the page held. A value that holds `undefined` still marks it inside.

use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, mcp_tool, ok, open};
use serde_json::json;

chromium_test!(a_script_that_returns_nothing_has_no_value, Axum, |client, server| {
    let page = open(client, &server, "/actions/shot.html").await;
    for script in ["void 0", "let n = 1; n++", "return", "await Promise.resolve()"] {
        let step = ok(&server, &page, json!({"command": "evaluate", "script": script})).await;
        assert!(step.get("result").is_none(), "{script}: {step}");
    }
    // A value is kept as it is, `undefined` inside it marked as before; null stays null.
    let step = ok(
        &server,
        &page,
        json!({"command": "evaluate", "script": "({u: undefined, n: null})"}),
    )
    .await;
    assert_eq!(step["result"], json!({"u": "[undefined]", "n": null}));
    let step = ok(&server, &page, json!({"command": "evaluate", "script": "null"})).await;
    assert_eq!(step["result"], json!(null), "{step}");
    let answer = mcp_tool(
        &server,
        "browser_run",
        json!({"client": page, "steps": [
            {"command": "evaluate", "script": "void 0"},
            {"command": "evaluate", "script": "'[undefined]'.length"}
        ]}),
    );
    let text = answer["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("1. evaluate: no value (the script returned undefined)\n"),
        "{text}"
    );
    assert!(text.contains("2. evaluate: 11\n"), "{text}");
});
