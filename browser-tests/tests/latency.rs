//! The channel's latency in real headless Chromium on loopback: one-step round trips (agent
//! `POST {prefix}/run` → its answer) on a plain page driven (a) by our long-poll and (b) by the
//! seed's 100 ms polling without `wait` (the client's `window.__browserAgent.pollMs` switch), and
//! what each costs an idle page in requests per second.
//!
//! The figures are printed and written to `target/browser-tests/latency.txt`; they are not
//! asserted (the machine is shared and noisy). What is asserted: every batch completes with the
//! right result and a snapshot, and each mode really polls the way it says.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, client_id, exec, run_timed, Server};
use fantoccini::Client;
use serde_json::json;

/// Measured batches per mode (after a few warm-up ones), each after a pause of 0..100 ms.
const BATCHES: usize = 40;
const WARM_UP: usize = 3;
/// How long an idle page is watched per mode.
const IDLE: Duration = Duration::from_secs(10);
/// The seed's poll interval (ms).
const SEED_POLL_MS: u32 = 100;

/// One one-step batch (`evaluate` of `n + 1`) that must come back right: the round trip and the
/// page's own `duration` for it (ms).
async fn one_step(server: &Server, client: &str, n: u64) -> (Duration, f64) {
    let steps = json!([{ "command": "evaluate", "script": format!("{n} + 1") }]);
    let (v, took) = run_timed(server, Some(client), steps).await;
    let s = &v["steps"][0];
    assert!(s["error"].is_null(), "step failed: {v}");
    assert_eq!(s["result"], n + 1, "{v}");
    assert!(
        v["snapshot"].as_str().is_some_and(|t| !t.is_empty()),
        "no snapshot: {v}"
    );
    (took, v["duration"].as_f64().unwrap_or(f64::NAN))
}

struct Figures {
    p50: f64,
    p90: f64,
    max: f64,
    page_p50: f64,
}

/// Nearest-rank percentile of sorted `v`.
fn pct(v: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    v[rank.min(v.len()) - 1]
}

async fn round_trips(server: &Server, client: &str, first: u64) -> Figures {
    for i in 0..WARM_UP as u64 {
        one_step(server, client, first + i).await;
    }
    let mut rt = Vec::with_capacity(BATCHES);
    let mut page = Vec::with_capacity(BATCHES);
    for i in 0..BATCHES as u64 {
        // An agent's batch comes at any moment of a poll cycle, not right after the last answer
        // (when a polling page happens to poll again at once): gaps spread over 0..100 ms.
        tokio::time::sleep(Duration::from_millis(i * 37 % 100)).await;
        let (took, duration) = one_step(server, client, first + 100 + i).await;
        rt.push(took.as_secs_f64() * 1000.0);
        page.push(duration);
    }
    rt.sort_by(f64::total_cmp);
    page.sort_by(f64::total_cmp);
    Figures {
        p50: pct(&rt, 50.0),
        p90: pct(&rt, 90.0),
        max: rt[rt.len() - 1],
        page_p50: pct(&page, 50.0),
    }
}

/// Requests the client starts (every one goes through the page's original `fetch`, which the
/// bootstrap keeps as `__browserAgent.o.fetch`) while the page sits idle for [`IDLE`]:
/// (requests per second, of which `/commands` polls).
async fn idle_cost(c: &Client) -> (f64, f64, u64) {
    exec(
        c,
        r#"
        const g = window.__browserAgent;
        if (!g.counted) {
          const f = g.o.fetch;
          g.counted = [];
          g.o.fetch = function (u) { g.counted.push(String(u && u.url || u)); return f.apply(this, arguments); };
        }
        g.counted.length = 0;
        "#,
    )
    .await;
    tokio::time::sleep(IDLE).await;
    let urls = exec(c, "return window.__browserAgent.counted.slice()").await;
    let urls = urls.as_array().expect("counted urls");
    let polls = urls
        .iter()
        .filter(|u| u.as_str().unwrap_or("").contains("/commands"))
        .count() as u64;
    let secs = IDLE.as_secs_f64();
    (urls.len() as f64 / secs, polls as f64 / secs, polls)
}

chromium_test!(one_step_round_trips_and_idle_cost, Axum, |c, server| {
    round_trips_and_idle_cost(c, server).await
});

async fn round_trips_and_idle_cost(c: &Client, server: Server) {
    let started = Instant::now();
    c.goto(&server.url("/plain.html")).await.unwrap();
    let id = client_id(c, &server).await;

    // (a) The long-poll: the page holds `GET /commands?wait=25000`, the host answers it the moment
    // a batch is queued.
    let long = round_trips(&server, &id, 0).await;
    let (long_rps, long_polls_rps, long_polls) = idle_cost(c).await;
    assert!(
        long_polls <= 2,
        "the long-poll page polled {long_polls} times in {IDLE:?}"
    );

    // (b) The seed's way: `GET /commands` without `wait` every 100 ms. The switch takes effect
    // from the next poll: the first batch below answers the long-poll in flight.
    exec(c, &format!("window.__browserAgent.pollMs = {SEED_POLL_MS}")).await;
    let seed = round_trips(&server, &id, 1_000).await;
    let (seed_rps, seed_polls_rps, seed_polls) = idle_cost(c).await;
    assert!(
        seed_polls >= 20,
        "the 100 ms polling page polled only {seed_polls} times in {IDLE:?}: the switch did not take"
    );

    let report = format!(
        "one-step round trips (agent POST /run -> answer), {BATCHES} batches each, headless Chromium on loopback\n\
         long-poll (ours):      p50 {:6.1} ms  p90 {:6.1} ms  max {:6.1} ms  (page-side duration p50 {:.0} ms)\n\
         100 ms polling (seed): p50 {:6.1} ms  p90 {:6.1} ms  max {:6.1} ms  (page-side duration p50 {:.0} ms)\n\
         idle cost over {} s per page\n\
         long-poll (ours):      {:.2} requests/s ({:.2}/s of them /commands)\n\
         100 ms polling (seed): {:.2} requests/s ({:.2}/s of them /commands)\n",
        long.p50,
        long.p90,
        long.max,
        long.page_p50,
        seed.p50,
        seed.p90,
        seed.max,
        seed.page_p50,
        IDLE.as_secs(),
        long_rps,
        long_polls_rps,
        seed_rps,
        seed_polls_rps,
    );
    println!("{report}");
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/browser-tests/latency.txt");
    std::fs::write(&out, &report).expect("write latency.txt");

    server.stop();
    println!("latency test took {:.1} s", started.elapsed().as_secs_f64());
}
