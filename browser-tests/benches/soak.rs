//! Soak (issue 16 item 4): hundreds of page loads in real headless Chromium, each running a batch
//! of commands against the test app, while the host's resident memory is sampled. Per-page state
//! (queues, results, snapshot baselines, action logs) must be freed when a page leaves, so RSS
//! stays flat after warm-up: the report gives RSS (and the live heap, counted by this binary's
//! allocator) after the warm-up, at the end, and the growth per page load, beside what the host
//! still holds (pages listed, log entries).
//!
//! The warm-up ends at the first load after which the host's bounded stores are full: the log
//! ring has evicted an entry (500 entries: ~125 loads of 4), and the first pages that left are past
//! the 30 s for which their state is kept (see `LEFT_PAGE_GRACE`), so as many pages leave that
//! state as enter it.
//!
//! ```sh
//! TMPDIR=$PWD/target/tmp cargo bench -p browser-tests --bench soak   # LOADS=500 for more
//! ```
//! The report is also written to `target/browser-tests/soak.txt`.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use browser_agent_testkit::heap::{rss_kib, CountingAlloc};
use browser_tests::{agent, any_port, client_id, run, scratch, Browser, Server};
use serde_json::json;

#[global_allocator]
static HEAP: CountingAlloc = CountingAlloc::new();

/// Bytes live on the heap of this process (the host and the WebDriver client), in KiB.
fn heap_kib() -> u64 {
    (HEAP.live() / 1024) as u64
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let loads: usize = std::env::var("LOADS").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    // At least one load in six; see the module's comment.
    let mut warm_up = 0;
    let grace_passed = Duration::from_secs(35);
    let server = Server::start(agent(), any_port());
    let browser = Browser::launch(&scratch()).await;
    let c = &browser.client;
    let steps = json!([
        {"command": "snapshot"},
        {"command": "type", "label": "Name", "text": "Ada Lovelace"},
        {"command": "click", "text": "Save"},
        {"command": "wait", "text": "saved Ada"},
        {"command": "evaluate", "script": "document.querySelectorAll('*').length"},
        {"command": "snapshot", "diff": true},
        {"command": "scroll", "direction": "down", "amount": 200},
        {"command": "hover", "text": "Save"},
        {"command": "snapshot", "filter": "Save"},
        {"command": "press", "key": "Tab"}
    ]);
    let mut samples = Vec::new();
    let t0 = Instant::now();
    for i in 1..=loads {
        c.goto(&server.url("/actions/proof.html")).await.unwrap();
        let page = client_id(c, &server).await;
        let v = run(&server, &page, steps.clone()).await;
        assert!(v["error"].is_null(), "load {i}: {v}");
        let warm = warm_up == 0
            && i >= (loads / 6).max(1)
            && server.agent.logs().evicted() > 0
            && t0.elapsed() >= grace_passed;
        if warm {
            warm_up = i;
        }
        if warm || i % (loads / 6).max(1) == 0 || i == loads {
            samples.push((i, rss_kib(), heap_kib()));
        }
    }
    assert!(
        warm_up > 0 && warm_up < loads,
        "the host's stores never filled in {loads} loads: LOADS must be larger"
    );
    let took = t0.elapsed();
    let at_warm = samples.iter().find(|s| s.0 == warm_up).copied().unwrap_or_default();
    let at_end = samples.last().copied().unwrap_or_default();
    let (warm, end) = (at_warm.1, at_end.1);
    let per_load = (end as f64 - warm as f64) / (loads - warm_up) as f64;
    let heap_per_load = (at_end.2 as f64 - at_warm.2 as f64) / (loads - warm_up) as f64;
    let pages = server.pages()["pages"].as_array().map_or(0, Vec::len);
    let console = server.console("limit=100000");
    let (logs, stored) = (
        console["count"].as_u64().unwrap_or(0),
        console["lastSeq"].as_u64().unwrap_or(0),
    );
    let mut report = String::new();
    let _ = writeln!(
        report,
        "soak: {loads} page loads × {} steps in {:.0} s",
        steps.as_array().unwrap().len(),
        took.as_secs_f64()
    );
    for (i, kib, heap) in &samples {
        let _ = writeln!(
            report,
            "  after {i:>4} loads: RSS {:.1} MiB, live heap {:.2} MiB",
            *kib as f64 / 1024.0,
            *heap as f64 / 1024.0
        );
    }
    let _ = writeln!(
        report,
        "RSS after warm-up ({warm_up} loads) {:.1} MiB, at the end {:.1} MiB: ×{:.3}, {per_load:+.1} KiB per page load",
        warm as f64 / 1024.0,
        end as f64 / 1024.0,
        end as f64 / warm.max(1) as f64
    );
    let _ = writeln!(
        report,
        "live heap after warm-up {:.2} MiB, at the end {:.2} MiB: {heap_per_load:+.2} KiB per page load",
        at_warm.2 as f64 / 1024.0,
        at_end.2 as f64 / 1024.0
    );
    let _ = writeln!(report, "the host holds {pages} pages (of {loads} loaded; those that left are listed for 30 s) and {logs} of the {stored} log entries stored (its ring's bound)");
    print!("{report}");
    let out = scratch().join("../soak.txt");
    let _ = std::fs::write(out, report);
    browser.close().await;
    server.stop();
}
