//! Where a click's round trip goes (issue 17 item 4), in real headless Chromium on loopback: the
//! agent's `POST {prefix}/run` of `[{"command":"click","ref":…}]` on a settled page until its
//! answer (with the final snapshot diffed), split into parts by page-side clocks:
//!
//! - **to the page**: from the POST until the page's command poll has its response (Resource
//!   Timing `responseEnd` of the poll that carried the batch);
//! - **resolve, scroll and settle**: until the button's `pointerdown` handler runs;
//! - **event sequence**: `pointerdown` … `click` (the page's own handler included);
//! - **after the click**: until the results POST starts: the pause that lets the page's handlers
//!   run, the network-idle wait and the final snapshot's walk (`walkMs`, reported apart);
//! - **back to the agent**: the results POST, the host's diff, the answer.
//!
//! The page is loaded while an agent is attached (served with the profiling policy, so each batch
//! samples the page's scripts: `docs/vitals.md`). Baselines in the same run: the same click on the
//! page as loaded before the agent attached (not profiled), a one-step `evaluate` batch (the
//! channel and the final snapshot alone), and chromedriver's own click of the same button
//! (WebDriver `Element Click`, CDP input events). Medians of `CLICKS` (default 60) each.
//!
//! ```sh
//! TMPDIR=$PWD/target/tmp cargo bench -p browser-tests --bench click   # CLICKS=200 for more
//! ```
//! The report is also written to `target/browser-tests/click.txt`.

use std::fmt::Write as _;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use browser_tests::{agent, any_port, client_id, exec, median, run_timed, scratch, Browser, Server};
use fantoccini::Locator;
use serde_json::{json, Value};

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
        * 1000.0
}

/// Page-side times of the last batch, in epoch ms: the poll response that carried it, the click's
/// `pointerdown` and `click`, the results POST's start; and the last walk's duration.
const PAGE_TIMES: &str = r#"
const t0 = performance.timeOrigin;
const res = performance.getEntriesByType('resource');
const poll = res.filter(e => e.name.includes('/commands?')).pop();
const post = res.filter(e => e.name.includes('/results')).pop();
return {
  poll: poll ? t0 + poll.responseEnd : null,
  down: window.marks.down != null ? t0 + window.marks.down : null,
  click: window.marks.click != null ? t0 + window.marks.click : null,
  post: post ? t0 + post.startTime : null,
  walk: window.__browserAgent.walkMs,
};
"#;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let clicks: usize = std::env::var("CLICKS").ok().and_then(|v| v.parse().ok()).unwrap_or(60);
    let server = Server::start(agent(), any_port());
    let browser = Browser::launch(&scratch()).await;
    let c = &browser.client;
    // First the page as loaded before any agent called: no profiling policy, so its batches do
    // not sample the page's scripts (the baseline of what sampling costs a click).
    c.goto(&server.url("/click-bench.html")).await.expect("open");
    let id = client_id(c, &server).await;
    let r = button_ref(&server, &id).await;
    let mut unprofiled = vec![];
    for i in 0..clicks + 5 {
        tokio::time::sleep(std::time::Duration::from_millis(60)).await;
        let t = Instant::now();
        let (v, _) = run_timed(&server, Some(&id), json!([{"command": "click", "ref": r}])).await;
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        if i >= 5 {
            unprofiled.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    // Then loaded again while the agent is attached, as while an agent works: served with the
    // profiling policy, so every click batch samples the page's scripts.
    c.goto(&server.url("/click-bench.html")).await.expect("open");
    let id = client_id(c, &server).await;
    let r = &button_ref(&server, &id).await;

    let (mut total, mut to_page, mut resolve, mut events, mut after, mut walk, mut back, mut eval, mut native) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for i in 0..clicks + 5 {
        // Settled: nothing in flight, the poll waiting (as when an agent thinks between steps).
        tokio::time::sleep(std::time::Duration::from_millis(60)).await;
        exec(c, "window.marks = {}; performance.clearResourceTimings(); return 0").await;
        let a = epoch_ms();
        let t = Instant::now();
        let (v, _) = run_timed(&server, Some(&id), json!([{"command": "click", "ref": r}])).await;
        let took = t.elapsed().as_secs_f64() * 1000.0;
        let f = epoch_ms();
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        // The results POST's entry appears once the page has its response, which may come a
        // moment after the host answered the agent.
        let mut p: Value = exec(c, PAGE_TIMES).await;
        for _ in 0..100 {
            if p["post"].is_number() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            p = exec(c, PAGE_TIMES).await;
        }
        let n = |k: &str| p[k].as_f64();
        let (Some(poll), Some(down), Some(click), Some(post)) = (n("poll"), n("down"), n("click"), n("post")) else {
            panic!("page times missing: {p}");
        };
        if i < 5 {
            continue;
        }
        total.push(took);
        to_page.push(poll - a);
        resolve.push(down - poll);
        events.push(click - down);
        after.push(post - click);
        walk.push(n("walk").unwrap_or(f64::NAN));
        back.push(f - post);

        tokio::time::sleep(std::time::Duration::from_millis(60)).await;
        let t = Instant::now();
        let (v, _) = run_timed(&server, Some(&id), json!([{"command": "evaluate", "script": "1 + 1"}])).await;
        eval.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(v["steps"][0]["result"], 2, "{v}");

        let el = c.find(Locator::Id("add")).await.expect("button");
        let t = Instant::now();
        el.click().await.expect("native click");
        native.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let count = exec(c, "return document.getElementById('count').textContent").await;
    assert_eq!(count, json!((2 * clicks + 5).to_string()), "every click counted once");

    let mut report = String::new();
    let _ = writeln!(
        report,
        "click round trip on a settled page, {clicks} clicks, medians (ms):"
    );
    let rows: [(&str, &mut Vec<f64>); 7] = [
        ("total: agent POST → answer", &mut total),
        ("  to the page (host queue, poll answer)", &mut to_page),
        ("  resolve, scroll and settle", &mut resolve),
        ("  event sequence (pointerdown … click)", &mut events),
        ("  after the click (pause, network idle, final snapshot)", &mut after),
        ("    of which the walk (walkMs)", &mut walk),
        ("  back to the agent (results POST, diff, answer)", &mut back),
    ];
    for (name, v) in rows {
        let _ = writeln!(report, "{name:<58} {:>7.2}", median(v));
    }
    let _ = writeln!(
        report,
        "baseline: one-step evaluate batch (channel + final snapshot) {:>7.2}",
        median(&mut eval)
    );
    let _ = writeln!(
        report,
        "baseline: chromedriver Element Click of the same button         {:>7.2}",
        median(&mut native)
    );
    let _ = writeln!(
        report,
        "baseline: the click on the page loaded before the agent attached (not profiled) {:>7.2}",
        median(&mut unprofiled)
    );
    print!("{report}");
    let _ = std::fs::write(scratch().join("../click.txt"), report);
    browser.close().await;
    server.stop();
}

/// The ref of the page's "Add one" button.
async fn button_ref(server: &Server, id: &str) -> String {
    let (v, _) = run_timed(server, Some(id), json!([{"command": "snapshot"}])).await;
    let text = v["steps"][0]["result"].as_str().expect("snapshot").to_owned();
    let line = text
        .lines()
        .find(|l| l.contains("button \"Add one\""))
        .expect("the button");
    line[line.rfind("[ref=").expect("a ref") + 5..line.len() - 1].to_owned()
}
