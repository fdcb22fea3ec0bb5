//! What the sensor/hands split costs an agent's first command on a page (issue 31), in real
//! headless Chromium on loopback: the agent's `POST {prefix}/run` of one `snapshot` step, timed
//! until its answer, on a freshly loaded page
//!
//! - **not prefetched**: the hands (glue + wasm) are loaded, compiled and started by the command
//!   itself (the page's idle callback is disabled, so the host's "agent attached" cannot fetch
//!   them first; the files come from the browser's cache, as on a developer's reload);
//! - **prefetched**: the agent is attached, so the page compiled its hands while idle; the
//!   command is sent once they run;
//! - **baseline**: the next command on the same page (hands and page warm), which is what every
//!   command cost when the whole client started with the page.
//!
//! Goals: not prefetched ≤ 25 ms over the baseline, prefetched ≤ 3 ms over it. Medians of
//! `ROUNDS` (default 15 under `cargo bench`, 1 under `cargo test --benches`).
//!
//! ```sh
//! TMPDIR=$PWD/target/tmp cargo bench -p browser-tests --bench first_command
//! ```
//! The report is also written to `target/browser-tests/first_command.txt`.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use browser_agent_tower::{BrowserAgent, BrowserAgentLayer};
use browser_tests::{exec, median, run_timed, scratch, started_client, Browser};
use serde_json::json;

/// A small app's first screen; `?cold` takes away the idle callback the prefetch waits for.
fn page() -> String {
    let mut items = String::new();
    for i in 0..100 {
        let _ = write!(
            items,
            "<li><a href=\"#item-{i}\">Item {i}</a> <button>Edit</button></li>"
        );
    }
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>First command</title>\
         <script>if (location.search == '?cold') window.requestIdleCallback = function () {{}};</script></head>\
         <body><h1>Orders</h1><form><label>Search <input name=q></label><button>Go</button></form>\
         <ul>{items}</ul></body></html>"
    )
}

const SENSOR_STARTED: &str = "var g = window.__browserAgent; return g && g.h ? g.clientId : null;";

/// Loads `url` and waits until the sensor runs and the host has its heartbeat (read through the
/// Rust API, which does not count as an agent calling).
async fn load(browser: &Browser, agent: &BrowserAgent, url: &str) -> String {
    browser.client.goto(url).await.expect("goto");
    let id = started_client(&browser.client, SENSOR_STARTED, "the page").await;
    let deadline = Instant::now() + Duration::from_secs(15);
    while agent.clients().get(&id).is_none() {
        assert!(Instant::now() < deadline, "the host never heard of {id}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    id
}

async fn snapshot_ms(server: &browser_tests::Server, id: &str) -> f64 {
    let (v, took) = run_timed(server, Some(id), json!([{"command": "snapshot"}])).await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    took.as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if benching { 15 } else { 1 });
    // `enabled(true)`: benches build in release, where the agent is off by default.
    let agent = BrowserAgent::builder().enabled(true).build();
    let html = page();
    let app = Router::new()
        .route("/", get(move || async move { Html(html) }))
        .layer(BrowserAgentLayer::with_agent(agent.clone()));
    let running = browser_agent_testkit::axum_app::serve(app, "127.0.0.1:0".parse().expect("addr")).expect("serve");
    let server = browser_tests::Server::from_running(agent.clone(), running);
    let browser = Browser::launch(&scratch()).await;
    let (cold_url, warm_url) = (server.url("/?cold"), server.url("/"));

    // Warm-up: the hands' files in the browser's cache, as after a developer's first load.
    let id = load(&browser, &agent, &cold_url).await;
    snapshot_ms(&server, &id).await;

    let (mut cold, mut prefetched, mut baseline) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let id = load(&browser, &agent, &cold_url).await;
        assert_eq!(
            exec(&browser.client, "return !!window.__browserAgent.hs;").await,
            json!(false)
        );
        cold.push(snapshot_ms(&server, &id).await);
        baseline.push(snapshot_ms(&server, &id).await);

        let id = load(&browser, &agent, &warm_url).await;
        let deadline = Instant::now() + Duration::from_secs(20);
        while exec(&browser.client, "return !!window.__browserAgent.hs;").await != json!(true) {
            assert!(Instant::now() < deadline, "the hands were not prefetched");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        prefetched.push(snapshot_ms(&server, &id).await);
        baseline.push(snapshot_ms(&server, &id).await);
    }
    browser.close().await;

    let base = median(&mut baseline);
    let mut report = format!(
        "first command (one snapshot step, POST /run to answer), headless Chromium, {rounds} page loads each (medians, ms)\n"
    );
    for (name, v, goal) in [
        ("not prefetched", &mut cold, 25.0),
        ("prefetched", &mut prefetched, 3.0),
    ] {
        let m = median(v);
        let _ = writeln!(
            report,
            "{name:<16}{m:>8.1}   baseline {base:.1}   Δ {:+.1} (goal ≤ {goal})",
            m - base
        );
    }
    print!("{report}");
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/browser-tests/first_command.txt");
    let _ = std::fs::write(out, &report);
}
