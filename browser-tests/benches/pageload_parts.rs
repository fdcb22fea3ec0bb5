//! Where the sensor's main-thread time goes (issue 31): what each kind of work it does on every
//! page load costs a page's renderer main thread, each on its own, against a plain page in the
//! same run. Each variant runs its snippet after the page's first frame, as the sensor does; the
//! figure is `Performance.getMetrics` `TaskDuration` from before the navigation to 500 ms after.
//!
//! ```sh
//! TMPDIR=$PWD/target/tmp cargo bench -p browser-tests --bench pageload_parts   # ROUNDS=20
//! ```
//! The report is also written to `target/browser-tests/pageload_parts.txt`.

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use std::fmt::Write as _;
use std::time::Duration;

use browser_tests::{median, scratch, Browser};
use serde_json::json;

/// Each variant's snippet: what the sensor does at start, one kind at a time.
const VARIANTS: [(&str, &str); 8] = [
    ("plain page", ""),
    // The floor: the least a script that talks to its host, or draws, can do after the first frame.
    ("one fetch (the floor of any host round trip)", "fetch('/x?0');"),
    ("one more animation frame", "requestAnimationFrame(() => {});"),
    ("Web Lock + BroadcastChannel (the shared poll)", "new BroadcastChannel('x'); navigator.locks.request('x', () => new Promise(() => {}));"),
    ("sessionStorage read + write (the tab id)", "sessionStorage.getItem('a'); sessionStorage.setItem('a','1');"),
    ("three fetches (heartbeat, poll, logs)", "fetch('/x?1'); fetch('/x?2'); fetch('/x?3', {method:'POST', body:'[]'});"),
    ("a cached module's import (the sensor itself)", "import('/m.js');"),
    ("listeners, an interval, hasFocus()", "addEventListener('pagehide', ()=>{}); addEventListener('focus', ()=>{}); document.addEventListener('click', ()=>{}, true); setInterval(()=>{}, 10000); document.hasFocus();"),
];

#[tokio::main]
async fn main() {
    let app = Router::new()
        .route("/", get(|uri: axum::http::Uri| async move {
            let v: usize = uri.query().and_then(|q| q.strip_prefix("v=")).and_then(|v| v.parse().ok()).unwrap_or(0);
            Html(format!("<!doctype html><html><head><title>x</title><script>requestAnimationFrame(() => setTimeout(() => {{ {} }}));</script></head><body><h1>hi</h1></body></html>", VARIANTS[v].1))
        }))
        .route("/x", get(|| async { "ok" }).post(|| async { "ok" }))
        .route("/m.js", get(|| async { ([("content-type", "text/javascript"), ("cache-control", "max-age=3600")], "export const a = 1;") }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let browser = Browser::launch(&scratch()).await;
    browser.cdp("Performance.enable", json!({})).await;
    let c = &browser.client;
    let mut samples: Vec<Vec<f64>> = vec![vec![]; VARIANTS.len()];
    let benching = std::env::args().any(|a| a == "--bench");
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if benching { 12 } else { 1 });
    // Round 0 warms the caches and is not counted.
    for round in 0..=rounds {
        for (v, out) in samples.iter_mut().enumerate() {
            c.goto("about:blank").await.unwrap();
            let m0 = browser.cdp("Performance.getMetrics", json!({})).await;
            c.goto(&format!("http://{addr}/?v={v}")).await.unwrap();
            tokio::time::sleep(Duration::from_millis(500)).await;
            let m1 = browser.cdp("Performance.getMetrics", json!({})).await;
            let get = |m: &serde_json::Value| {
                m["metrics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["name"] == "TaskDuration")
                    .map(|x| x["value"].as_f64().unwrap())
                    .unwrap()
            };
            if round > 0 {
                out.push((get(&m1) - get(&m0)) * 1000.0);
            }
        }
    }
    browser.close().await;
    let base = median(&mut samples[0].clone());
    let mut report = format!("main-thread time of a page load (medians of {rounds}, ms; Δ against the plain page)\n");
    for (v, s) in samples.iter_mut().enumerate() {
        let m = median(s);
        let _ = writeln!(report, "{:<48} {m:>6.1} {:>+7.1}", VARIANTS[v].0, m - base);
    }
    print!("{report}");
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/browser-tests/pageload_parts.txt");
    let _ = std::fs::write(out, &report);
}
