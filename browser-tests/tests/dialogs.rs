//! Native dialogs by policy, in real headless Chromium: `alert`, `confirm` and `prompt` answered
//! as the batch or the step says (accept, dismiss, a prompt text) and each reported in the answer
//! (`dialogs`, and a `dialog:` line in MCP's text); bad policies refused with a 400 before anything
//! runs; `beforeunload` (an unsaved-changes guard) leaves or stays by the policy for `navigate`,
//! `reload`, `forward` and a click on a link, its handler run once, and no prompt even on a page a
//! person has clicked (sticky activation); a dialog the page opens after its batch has ended does
//! not block it, and the next answer reports it once; a person's own click (CDP input, trusted)
//! gets the real dialog; a popular library's confirm flow (Rails UJS's `data-confirm` link)
//! follows the policy.
//!
//! Fixtures: `fixtures/dialogs/index.html` (the dialogs, a draft field whose guard asks to stay
//! and counts its runs in `sessionStorage`), `fixtures/dialogs/other.html`,
//! `fixtures/dialogs/rails.html` (`@rails/ujs` 7.1.600, pinned in `browser-tests/dialogs-npm`).

use std::time::Duration;

use browser_tests::Framework::Axum;
use browser_tests::{
    agent, any_port, chromium_test, eval, exec, mcp_tool, ok, open, run, run_raw, shared_browser, within, Browser,
    Server, SCENARIO_DEADLINE,
};
use serde_json::{json, Value};

/// The answer's dialog lines.
fn dialog_texts(v: &Value) -> Vec<String> {
    v["dialogs"]
        .as_array()
        .map(|d| d.iter().filter_map(|d| d["text"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// Runs `body` (`{"steps", …}` without the client) on `client`; the answer, which must be a 200.
async fn batch(server: &Server, client: &str, mut body: Value) -> Value {
    body["client"] = json!(client);
    let (status, v) = run_raw(server, body.clone()).await;
    assert_eq!(status, 200, "{body}: {v}");
    v
}

/// The text of `#out`.
async fn out(server: &Server, id: &str) -> Value {
    eval(server, id, "return document.getElementById('out').textContent").await
}

chromium_test!(
    alert_confirm_and_prompt_are_answered_as_the_batch_or_the_step_says,
    Axum,
    |c, server| {
        let id = open(c, &server, "/dialogs/index.html").await;
        // The default: OK, as the person acting through the agent would (they clicked "Remove").
        let v = run(&server, &id, json!([{"command": "click", "text": "Remove"}])).await;
        assert_eq!(out(&server, &id).await, "removed");
        assert_eq!(
            dialog_texts(&v),
            ["step 1: confirm(\"Really remove?\") answered OK (true)"],
            "{v}"
        );
        let d = &v["dialogs"][0];
        assert_eq!(
            (d["kind"].as_str(), d["accepted"].as_bool(), d["step"].as_u64()),
            (Some("confirm"), Some(true), Some(0))
        );
        // The batch says dismiss.
        let v = batch(
            &server,
            &id,
            json!({"steps": [{"command": "click", "text": "Remove"}], "dialog": "dismiss"}),
        )
        .await;
        assert_eq!(out(&server, &id).await, "kept");
        assert_eq!(
            dialog_texts(&v),
            ["step 1: confirm(\"Really remove?\") answered Cancel (false)"]
        );
        assert_eq!(v["dialogs"][0]["accepted"], false);
        // A step's own policy beats the batch's: a prompt text, then a dismissed prompt.
        let steps = json!([
            {"command": "click", "text": "Name", "promptText": "Grace"},
            {"command": "click", "text": "Remove"},
        ]);
        let v = batch(&server, &id, json!({"steps": steps, "dialog": "dismiss"})).await;
        assert_eq!(
            dialog_texts(&v),
            [
                "step 1: prompt(\"Your name?\") answered \"Grace\"",
                "step 2: confirm(\"Really remove?\") answered Cancel (false)"
            ],
            "{v}"
        );
        assert_eq!(v["dialogs"][0]["value"], "Grace");
        assert_eq!(out(&server, &id).await, "kept");
        let v = run(
            &server,
            &id,
            json!([{"command": "click", "text": "Name", "dialog": "dismiss"}]),
        )
        .await;
        assert_eq!(out(&server, &id).await, "name:null");
        assert_eq!(
            dialog_texts(&v),
            ["step 1: prompt(\"Your name?\") answered Cancel (null)"]
        );
        // The prompt's own default when accepted without a text; an alert is closed.
        run(&server, &id, json!([{"command": "click", "text": "Name"}])).await;
        assert_eq!(out(&server, &id).await, "name:Ada");
        let v = run(&server, &id, json!([{"command": "click", "text": "Save"}])).await;
        assert_eq!(dialog_texts(&v), ["step 1: alert(\"Saved\") answered OK"]);
        assert_eq!(out(&server, &id).await, "saved");
        // Each is in the logs too, as a `dialog` entry.
        let logged = server.console("type=dialog");
        assert_eq!(logged["logs"].as_array().map(Vec::len), Some(7), "{logged}");
        // MCP: the same fields, one `dialog:` line per dialog (not repeated under `logs:`).
        let r = mcp_tool(
            &server,
            "browser_run",
            json!({"client": id, "dialog": "dismiss", "steps": [{"command": "click", "text": "Remove"}]}),
        );
        let text = r["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        assert!(
            text.contains("\ndialog: step 1: confirm(\"Really remove?\") answered Cancel (false)\n"),
            "{text}"
        );
        assert_eq!(text.matches("Really remove?").count(), 1, "{text}");
        // Bad policies: a 400 naming the field, before anything runs.
        for (body, says) in [
            (
                json!({"steps": [{"command": "click", "text": "Remove"}], "dialog": "later"}),
                "batch field \"dialog\" must be \"accept\" or \"dismiss\"",
            ),
            (
                json!({"steps": [{"command": "click", "text": "Remove"}], "promptText": 7}),
                "batch field \"promptText\" must be a string",
            ),
            (
                json!({"steps": [{"command": "click", "text": "Remove"}], "dialog": "dismiss", "promptText": "x"}),
                "\"promptText\" is what an accepted prompt answers",
            ),
            (
                json!({"steps": [{"command": "click", "text": "Remove", "dialog": "no"}]}),
                "step 1 (nothing ran): invalid dialog",
            ),
            (
                json!({"steps": [{"command": "click", "text": "Name", "dialog": "dismiss", "promptText": "x"}]}),
                "step 1 (nothing ran): \"promptText\"",
            ),
        ] {
            let mut body = body;
            body["client"] = json!(id);
            let (status, v) = run_raw(&server, body.clone()).await;
            assert_eq!(status, 400, "{body}: {v}");
            assert!(v["error"].as_str().is_some_and(|e| e.contains(says)), "{body}: {v}");
        }
        assert_eq!(out(&server, &id).await, "kept", "nothing ran");
    }
);

chromium_test!(
    a_dialog_the_page_opens_after_its_batch_does_not_block_it_and_the_next_answer_says_so,
    Axum,
    |c, server| {
        let id = open(c, &server, "/dialogs/index.html").await;
        // A batch has run: an agent is attached.
        run(&server, &id, json!([{"command": "snapshot"}])).await;
        // The page's own timer opens a confirm, no batch running and no person acting.
        exec(
            c,
            "setTimeout(() => { out.textContent = confirm('Delete later?') ? 'later-deleted' : 'later-kept'; }, 0)",
        )
        .await;
        // The page is not blocked: its script goes on (WebDriver would fail on an open dialog).
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while exec(c, "return out.textContent").await != "later-deleted" {
            assert!(
                std::time::Instant::now() < deadline,
                "the page's confirm was not answered"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let v = run(&server, &id, json!([{"command": "snapshot"}])).await;
        let texts = dialog_texts(&v);
        assert_eq!(texts.len(), 1, "{v}");
        assert!(
            texts[0].starts_with("while no batch ran, the page opened confirm(\"Delete later?\") ")
                && texts[0].ends_with(" s ago; answered OK (true)"),
            "{texts:?}"
        );
        assert!(v["dialogs"][0]["agoMs"].is_u64(), "{v}");
        assert_eq!(v["dialogs"][0]["clientId"], id.as_str());
        // Reported once.
        let v = run(&server, &id, json!([{"command": "snapshot"}])).await;
        assert!(v.get("dialogs").is_none(), "{v}");
        // The logs say it too (a warning: nobody asked for it).
        let logged = server.console("type=dialog");
        let e = &logged["logs"][0];
        assert_eq!(e["level"], "warn", "{logged}");
        assert_eq!(
            e["text"],
            "confirm(\"Delete later?\") answered OK (true) while no batch ran"
        );
    }
);

/// How often the draft's guard ran (`beforeunload`), as the tab's storage counts it.
async fn runs(server: &Server, id: &str) -> Value {
    eval(server, id, "return sessionStorage.runs").await
}

/// The centre of `selector` in the viewport.
async fn centre(c: &fantoccini::Client, selector: &str) -> (f64, f64) {
    let r = exec(
        c,
        &format!("const r = document.querySelector({selector:?}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]"),
    )
    .await;
    (r[0].as_f64().unwrap(), r[1].as_f64().unwrap())
}

/// A person's click: trusted mouse input at `(x, y)`.
async fn person_clicks(b: &Browser, (x, y): (f64, f64)) {
    for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
        let p = json!({"type": kind, "x": x, "y": y, "button": if kind == "mouseMoved" { "none" } else { "left" }, "buttons": u8::from(kind == "mousePressed"), "clickCount": 1});
        b.cdp("Input.dispatchMouseEvent", p).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beforeunload_leaves_or_stays_by_the_policy_and_a_persons_click_gets_the_real_dialog() {
    let browser = shared_browser().await;
    let server = Server::start_on(Axum, agent(), any_port());
    within("beforeunload", SCENARIO_DEADLINE, async {
        let c = &browser.client;
        let id = open(c, &server, "/dialogs/index.html").await;
        exec(c, "sessionStorage.runs = 0").await;
        ok(
            &server,
            &id,
            json!({"command": "fill", "selector": "#draft", "text": "unsaved"}),
        )
        .await;
        // dismiss: the agent's navigate stays on the page and says why.
        let v = run(
            &server,
            &id,
            json!([{"command": "navigate", "url": "other.html", "dialog": "dismiss"}]),
        )
        .await;
        assert!(
            v["steps"][0]["result"]
                .as_str()
                .is_some_and(|r| r.starts_with("stayed on the page")),
            "{v}"
        );
        assert_eq!(
            dialog_texts(&v),
            ["step 1: beforeunload (the page asked to stay) stayed on the page"]
        );
        assert_eq!(v["dialogs"][0]["accepted"], false);
        assert_eq!(eval(&server, &id, "return document.title").await, "Dialogs");
        assert_eq!(runs(&server, &id).await, "1", "the guard ran once, for the check");
        // A click on a link, and a reload: the same.
        let v = run(
            &server,
            &id,
            json!([{"command": "click", "text": "Leave", "dialog": "dismiss"}]),
        )
        .await;
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        assert_eq!(
            dialog_texts(&v),
            ["step 1: beforeunload (the page asked to stay) stayed on the page"]
        );
        let v = run(&server, &id, json!([{"command": "reload", "dialog": "dismiss"}])).await;
        assert!(
            v["steps"][0]["result"]
                .as_str()
                .is_some_and(|r| r.starts_with("stayed")),
            "{v}"
        );
        assert_eq!(
            eval(&server, &id, "return document.getElementById('draft').value").await,
            "unsaved"
        );
        assert_eq!(runs(&server, &id).await, "3");
        // A person clicked the page (trusted input: sticky activation), so Chromium would ask
        // them "Leave site?" now; accept (the default) leaves without a prompt, the guard run once.
        person_clicks(&browser, (5.0, 5.0)).await;
        assert_eq!(
            eval(&server, &id, "return navigator.userActivation.hasBeenActive").await,
            true
        );
        exec(c, "sessionStorage.runs = 0").await;
        let v = run(&server, &id, json!([{"command": "navigate", "url": "other.html"}])).await;
        assert!(v["error"].is_null(), "{v}");
        assert_eq!(
            dialog_texts(&v),
            ["step 1: beforeunload (the page asked to stay) left the page"],
            "{v}"
        );
        let other = v["clientId"].as_str().expect("the new page").to_owned();
        assert_eq!(eval(&server, &other, "return document.title").await, "Other");
        assert_eq!(
            runs(&server, &other).await,
            "1",
            "the guard ran once, not again as the page left"
        );
        // Back to a dirty page; forward with dismiss stays.
        let v = run(&server, &other, json!([{"command": "back"}])).await;
        let back = v["clientId"].as_str().expect("the page before").to_owned();
        ok(
            &server,
            &back,
            json!({"command": "fill", "selector": "#draft", "text": "again"}),
        )
        .await;
        let v = run(&server, &back, json!([{"command": "forward", "dialog": "dismiss"}])).await;
        assert!(
            v["steps"][0]["result"]
                .as_str()
                .is_some_and(|r| r.starts_with("stayed")),
            "{v}"
        );
        assert_eq!(eval(&server, &back, "return document.title").await, "Dialogs");

        // A person's own click gets the real dialog, an agent attached or not: its confirm opens
        // a moment after the click (a timer), in the seconds their input keeps the page active.
        let at = centre(c, "#person").await;
        person_clicks(&browser, at).await;
        let text = wait_for_alert(c).await;
        assert_eq!(text, "Person?");
        c.accept_alert().await.expect("a person answers");
        assert_eq!(exec(c, "return window.personAnswer").await, true);
        let logged = server.console("type=dialog");
        assert!(
            !logged.to_string().contains("Person?"),
            "a person's dialog is theirs, not logged as answered: {logged}"
        );
    })
    .await;
}

/// The text of the real dialog a person sees, once it is open.
async fn wait_for_alert(c: &fantoccini::Client) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match c.get_alert_text().await {
            Ok(text) => return text,
            Err(e) => assert!(std::time::Instant::now() < deadline, "no dialog opened: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The npm fixtures (Rails UJS), installed once per test binary.
fn rails_ujs() {
    static ONCE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| browser_tests::npm_fixtures_at("dialogs", "dialogs"));
}

chromium_test!(a_rails_ujs_data_confirm_link_follows_the_policy, Axum, |c, server| {
    // Rails UJS asks window.confirm on a data-confirm link's click and stops the click on Cancel.
    rails_ujs();
    let id = open(c, &server, "/dialogs/rails.html").await;
    assert_eq!(eval(&server, &id, "return typeof Rails").await, "object");
    let v = run(
        &server,
        &id,
        json!([{"command": "click", "text": "Delete", "dialog": "dismiss"}]),
    )
    .await;
    assert_eq!(
        dialog_texts(&v),
        ["step 1: confirm(\"Delete this post?\") answered Cancel (false)"]
    );
    assert_eq!(eval(&server, &id, "return location.hash").await, "");
    let v = run(&server, &id, json!([{"command": "click", "text": "Delete"}])).await;
    assert_eq!(
        dialog_texts(&v),
        ["step 1: confirm(\"Delete this post?\") answered OK (true)"]
    );
    assert_eq!(eval(&server, &id, "return location.hash").await, "#deleted");
});
