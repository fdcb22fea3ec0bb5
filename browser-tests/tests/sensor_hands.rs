//! The client in two parts (issue 31): every page runs the sensor (capture, delivery, heartbeat,
//! the shared poll); the hands (the wasm: snapshot, targeting, actions…) load only when a command
//! arrives, or while the page is idle once the host says an agent is attached.
//!
//! Here, in real Chromium: a page no agent touches never fetches the hands; the first command loads them and answers; later batches reuse them; and a reload
//! while an agent is attached compiles them before any command, from the browser's cache.
//!
//! The host is watched through the Rust API (`agent.clients()`), which does not count as an
//! agent calling: `GET {prefix}/page` would.

use std::time::Duration;

use browser_tests::{
    any_port, exec, run, scratch, shared_browser, started_client, wait_for, within, Browser, Server, SCENARIO_DEADLINE,
};
use serde_json::json;

/// The page's resource timing entries for the hands (glue and wasm): `[name, transferSize,
/// decodedBodySize]` each.
const HANDS_FETCHED: &str = "return performance.getEntriesByType('resource')
    .filter(e => /\\/assets\\/client-[0-9a-f]+(_bg\\.wasm|\\.js)$/.test(e.name))
    .map(e => [e.name, e.transferSize, e.decodedBodySize]);";

/// Whether the hands started in the page.
const HANDS_STARTED: &str = "return !!window.__browserAgent.hs;";

/// The tab id this tab keeps in sessionStorage (`null`: never written).
const TAB_ID: &str = "return sessionStorage.getItem('__browserAgentTab');";

/// The sensor's client id once it runs.
const SENSOR_STARTED: &str = "var g = window.__browserAgent; return g && g.h ? g.clientId : null;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hands_load_only_when_an_agent_acts() {
    let browser = shared_browser().await;
    let server = Server::start(browser_tests::agent(), any_port());
    within("hands_load_only_when_an_agent_acts", SCENARIO_DEADLINE, async {
        let c = &browser.client;
        c.goto(&server.url("/capture.html")).await.expect("goto");
        let id = started_client(c, SENSOR_STARTED, "the page").await;
        // The host has the page's heartbeat (phase ready) and its entries: the sensor works alone.
        wait_for("the page's heartbeat", Duration::from_secs(15), || {
            server
                .agent
                .clients()
                .get(&id)
                .filter(|r| r.phase.as_str() == "ready")
                .map(|_| ())
        })
        .await;
        // A heartbeat answered while no agent is attached: nothing of the hands was fetched.
        exec(c, "window.dispatchEvent(new Event('focus')); return 1;").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(exec(c, HANDS_FETCHED).await, json!([]), "no agent, no hands");
        assert_eq!(exec(c, HANDS_STARTED).await, json!(false));
        // Nor a tab id: the sensor reads sessionStorage only when a handover waits.
        assert_eq!(exec(c, TAB_ID).await, json!(null), "no agent, no tab id");

        // The first command loads them and answers.
        let first = run(&server, &id, json!([{"command": "snapshot"}])).await;
        assert!(first["steps"][0]["error"].is_null(), "{first}");
        assert!(first["snapshot"].as_str().is_some_and(|s| !s.is_empty()), "{first}");
        assert_eq!(exec(c, HANDS_STARTED).await, json!(true));
        let fetched = exec(c, HANDS_FETCHED).await;
        assert_eq!(fetched.as_array().map(Vec::len), Some(2), "glue and wasm: {fetched}");
        // Later batches reuse them: nothing is fetched again.
        let again = run(&server, &id, json!([{"command": "snapshot"}])).await;
        assert!(again["steps"][0]["error"].is_null(), "{again}");
        assert_eq!(exec(c, HANDS_FETCHED).await, fetched);

        // The agent is attached now: a new page load compiles the hands while idle, before any
        // command, and takes them from the browser's cache.
        c.refresh().await.expect("reload");
        let reloaded = started_client(c, SENSOR_STARTED, "the reloaded page").await;
        assert_ne!(reloaded, id, "a new page load");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while exec(c, HANDS_STARTED).await != json!(true) {
            assert!(
                std::time::Instant::now() < deadline,
                "the hands were not prefetched while an agent is attached"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let cached = exec(c, HANDS_FETCHED).await;
        let cached = cached.as_array().expect("entries");
        assert_eq!(cached.len(), 2, "{cached:?}");
        for entry in cached {
            assert_eq!(entry[1], json!(0), "from the browser's cache: {entry}");
            assert!(entry[2].as_u64().is_some_and(|n| n > 0), "{entry}");
        }
        assert!(
            server.agent.clients().get(&reloaded).is_some(),
            "the reloaded page heartbeats"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_hands_over_to_the_next_page_of_a_tab_another_tab_polls_for() {
    // Two tabs share one poll (the first tab leads). A batch for the second tab navigates it: the
    // host says a handover waits, the leader asks the pages it covers for their tab ids, and the
    // second tab's next page, which never read its tab id before, takes the rest of the batch.
    let browser = Browser::launch(&scratch()).await;
    let server = Server::start(browser_tests::agent(), any_port());
    within(
        "a_batch_hands_over_to_the_next_page_of_a_tab_another_tab_polls_for",
        SCENARIO_DEADLINE,
        async {
            let c = &browser.client;
            c.goto(&server.url("/actions/form.html")).await.expect("goto");
            let leader = started_client(c, SENSOR_STARTED, "the first tab").await;
            let tab = c.new_window(true).await.expect("new tab");
            c.switch_to_window(tab.handle.clone()).await.expect("switch");
            c.goto(&server.url("/actions/form.html")).await.expect("goto");
            let follower = started_client(c, SENSOR_STARTED, "the second tab").await;
            // The second tab is covered by the first tab's poll, not polling itself.
            wait_for(
                "the leader's poll covers the second tab",
                Duration::from_secs(30),
                || {
                    let polled = |id: &str| server.agent.clients().get(id).map_or(0, |r| r.last_poll_at);
                    (polled(&follower) > 0 && polled(&leader) > 0).then_some(())
                },
            )
            .await;
            assert_eq!(
                exec(c, TAB_ID).await,
                json!(null),
                "no tab id read before an agent acted"
            );
            let v = run(
                &server,
                &follower,
                json!([
                    {"command": "click", "text": "Next page"},
                    {"command": "evaluate", "script": "location.pathname"},
                ]),
            )
            .await;
            let steps = v["steps"].as_array().expect("steps");
            assert_eq!(steps.len(), 2, "{v}");
            assert_eq!(steps[1]["result"], "/actions/page2.html", "{v}");
            assert!(
                exec(c, TAB_ID).await.is_string(),
                "the tab id was read for the handover"
            );
        },
    )
    .await;
    browser.close().await;
}
