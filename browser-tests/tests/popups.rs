//! Popups and new tabs an agent's step opens, in real headless Chromium (`docs/popups.md`).
//!
//! With popups allowed (chromedriver's Chromium: it starts it with `--disable-popup-blocking`, as
//! Playwright and Puppeteer do): a `window.open` from an agent's click opens a new page that runs
//! the client, is listed with its opener (`GET /page`, MCP `browser_pages`, the Rust API) and is
//! named in the step's answer; the next batch acts in it (a fake OAuth popup that posts back to
//! its opener and closes itself: the batch still gets its answer, which shows what changed in the
//! opener, then the popup closes). A
//! `target=_blank` link, a form to a new tab and a `noopener` popup (no window comes back) are
//! named too. With the popup blocker of a person's Chrome (that switch left out), the answer says
//! the popup was blocked, with its URL, why, and what to do.
//!
//! Fixtures: `fixtures/popups/` (`index.html` opens, `authorize.html` is the OAuth popup,
//! `tab.html` the new tab).

use std::time::Duration;

use browser_agent_core::{Batch, BrowserAgent};
use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, client_id, mcp_tool, ok, open, run, wait_for, Browser, Server};
use fantoccini::Client;
use serde_json::{json, Value};

/// The page id an answer names: `opened page ID: URL (popup of OPENER)`.
fn opened(result: &Value, url: &str, opener: &str) -> String {
    let text = result.as_str().unwrap_or_else(|| panic!("a text result: {result}"));
    let tail = format!(": {url} (popup of {opener})");
    let at = text
        .find("; opened page ")
        .unwrap_or_else(|| panic!("the answer names the page it opened: {text}"));
    let rest = &text[at + "; opened page ".len()..];
    let id = rest.split(':').next().expect("an id").to_owned();
    assert!(rest.starts_with(&format!("{id}{tail}")), "{text}");
    id
}

/// Waits until the host lists `page` with `opener` as its opener, and says so over MCP.
async fn listed_with_opener(server: &Server, page: &str, opener: &str) {
    server.wait_listed(page).await;
    let pages = server.pages();
    let record = pages["pages"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["clientId"] == page))
        .unwrap_or_else(|| panic!("{page} listed: {pages}"));
    assert_eq!(record["opener"], opener, "{record}");
    let agent: &BrowserAgent = &server.agent;
    assert_eq!(agent.clients().get(page).expect("the Rust API lists it").opener, opener);
    let text = mcp_tool(server, "browser_pages", json!({}));
    let text = text["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    let line = text
        .lines()
        .find(|l| l.starts_with(page))
        .unwrap_or_else(|| panic!("browser_pages lists {page}: {text}"));
    assert!(
        line.ends_with(&format!("(popup of {opener})")) || line.contains(&format!("(popup of {opener}) ")),
        "{line}"
    );
}

/// Closes every window but the one the session drives.
async fn close_others(client: &Client) {
    let main = client.window().await.expect("current window");
    for w in client.windows().await.expect("windows") {
        if w != main {
            client.switch_to_window(w).await.expect("switch");
            let _ = client.close_window().await;
        }
    }
    client.switch_to_window(main).await.expect("switch back");
}

chromium_test!(
    popups_an_agent_opens_are_listed_with_their_opener_and_named,
    Axum,
    |client, server| {
        let id = {
            open(client, &server, "/popups/index.html").await;
            client_id(client, &server).await
        };

        // window.open from the agent's click: the popup runs the client and is named in the answer.
        let authorize = server.url("/popups/authorize.html");
        let r = ok(&server, &id, json!({"command": "click", "text": "Sign in with popup"})).await;
        let popup = opened(&r["result"], &authorize, &id);
        listed_with_opener(&server, &popup, &id).await;
        // The next batch acts in it: it posts back to its opener and closes itself, after answering.
        let v = run(&server, &popup, json!([{"command": "click", "text": "Allow"}])).await;
        let said = v["steps"][0]["result"].as_str().unwrap_or_default();
        assert_eq!(
            said, "clicked; the page closes itself (window.close) once this batch's answer is sent",
            "{v}"
        );
        // What the agent goes on with: its opener's change (the popup's own page is gone).
        let shown = v["snapshot"].as_str().unwrap_or_default();
        assert!(
            shown.starts_with(&format!("(this page closed itself; its opener {id}:)\n"))
                && shown.contains("signed in as ada"),
            "{v}"
        );
        wait_for("the popup to close", Duration::from_secs(15), || {
            server.agent.clients().is_gone(&popup).then_some(())
        })
        .await;

        // A target=_blank link: no window comes back; the new tab claims the opener's note.
        let tab = server.url("/popups/tab.html");
        let r = ok(
            &server,
            &id,
            json!({"command": "click", "text": "Open help in a new tab"}),
        )
        .await;
        let new_tab = opened(&r["result"], &tab, &id);
        listed_with_opener(&server, &new_tab, &id).await;
        // It opened as a person's click opens it: without an opener.
        let v = run(&server, &new_tab, json!([{"command": "wait", "text": "no opener"}])).await;
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        // The batch goes on in the tab it opened, where a person would look next (its steps
        // used to run on the opener: a wait for the new page's text timed out there).
        let v = run(
            &server,
            &id,
            json!([
                {"command": "click", "text": "Open help in a new tab"},
                {"command": "evaluate", "script": "location.pathname"},
            ]),
        )
        .await;
        let followed = opened(&v["steps"][0]["result"], &tab, &id);
        assert_eq!(v["steps"][1]["result"], "/popups/tab.html", "{v}");
        assert_eq!(v["clientId"], json!(followed), "answered from the new tab: {v}");
        // The opener is still there for the next batch.
        assert_eq!(
            run(
                &server,
                &id,
                json!([{"command": "evaluate", "script": "location.pathname"}])
            )
            .await["steps"][0]["result"],
            "/popups/index.html"
        );

        // A form to a new tab, through the Rust API.
        let agent: &BrowserAgent = &server.agent;
        let batch = Batch::new(vec![json!({"command": "click", "text": "Open report"})]).client(id.clone());
        let result = agent.run(batch).await.expect("the Rust API runs the click");
        let text = result.steps[0].result_str().unwrap_or_default().to_owned();
        let report = opened(&json!(text), &tab, &id);
        listed_with_opener(&server, &report, &id).await;

        // A noopener popup, through MCP.
        let answer = mcp_tool(
            &server,
            "browser_run",
            json!({"client": id, "steps": [{"command": "click", "text": "Open noopener"}]}),
        );
        let text = answer["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        let url = server.url("/popups/tab.html?from=noopener");
        let line = text
            .lines()
            .find(|l| l.contains("opened page"))
            .unwrap_or_else(|| panic!("{text}"));
        let from = line.find("; opened page").expect("named");
        let noopener = opened(&json!(&line[from..]), &url, &id);
        listed_with_opener(&server, &noopener, &id).await;

        // Enter on the link opens it too (the key's click is the agent's).
        let r = ok(
            &server,
            &id,
            json!({"command": "press", "key": "Enter", "text": "Open help in a new tab"}),
        )
        .await;
        let by_key = opened(&r["result"], &tab, &id);
        listed_with_opener(&server, &by_key, &id).await;

        // A link whose click the page handles opens nothing, and nothing is said of it.
        let r = ok(&server, &id, json!({"command": "click", "text": "Handled link"})).await;
        assert_eq!(r["result"], "clicked");

        close_others(client).await;
    }
);

/// The popup blocker of a person's Chrome: chromedriver's `--disable-popup-blocking` left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn popups_the_browser_blocks_are_reported_with_their_url_and_what_to_do() {
    let scratch = browser_tests::scratch().join("popups-blocked");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let browser = Browser::launch_excluding(&scratch, &[], &["disable-popup-blocking"]).await;
    let server = Server::start(browser_tests::agent(), browser_tests::any_port());
    let client = &browser.client;
    browser_tests::within("blocked popups", browser_tests::SCENARIO_DEADLINE, async {
        open(client, &server, "/popups/index.html").await;
        let id = client_id(client, &server).await;
        let origin = server.url("");
        let why = format!(
            "an agent's step is synthetic input, without the user activation Chromium's popup blocker asks for. \
             Allow pop-ups for {origin} in the browser's site settings"
        );

        let authorize = server.url("/popups/authorize.html");
        let r = ok(&server, &id, json!({"command": "click", "text": "Sign in with popup"})).await;
        let text = r["result"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(&format!(
                "clicked; the browser blocked the popup window.open({authorize}): {why}"
            )),
            "{text}"
        );
        assert!(
            text.ends_with(&format!("or navigate to {authorize} in this tab")),
            "{text}"
        );
        run(&server, &id, json!([{"command": "wait", "text": "popup blocked"}])).await;

        let tab = server.url("/popups/tab.html");
        let r = ok(
            &server,
            &id,
            json!({"command": "click", "text": "Open help in a new tab"}),
        )
        .await;
        let text = r["result"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(&format!(
                "clicked; the link opens a new window at {tab}, and no page of it started within "
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!("the browser's popup blocker most likely refused it, as {why}")),
            "{text}"
        );
        assert!(text.ends_with(&format!("or navigate to {tab} in this tab")), "{text}");

        // A form to a new tab, likewise.
        let r = ok(&server, &id, json!({"command": "click", "text": "Open report"})).await;
        let text = r["result"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(&format!(
                "clicked; the form opens a new window at {tab}, and no page of it started within "
            )),
            "{text}"
        );

        // Nothing else opened: the one page is listed.
        let pages = server.pages();
        assert_eq!(pages["pages"].as_array().map(Vec::len), Some(1), "{pages}");
    })
    .await;
    browser.close().await;
}
