//! Where the sensor's main-thread time goes (issue 31): what each kind of work it does on every
//! page load costs a page's renderer main thread, each on its own, against a plain page in the
//! same run. Each variant runs its snippet after the page's first frame, as the sensor does. Two
//! figures per variant:
//! - `TaskDuration` (`Performance.getMetrics`) of the page's document 500 ms after the navigation: all the
//!   work, the answers' tasks included, but a whole page load's noise around it (medians);
//! - the snippet's own synchronous time, `performance.now()` around it in the page: only what runs
//!   in the call itself, with little noise (means: the page's clock is coarsened to 0.1 ms).
//!
//! The inline bootstrap's row puts the real tag (without its sensor) at the top of the page and
//! times it the same way; the others are the browser's own first-use costs, the floor under any
//! sensor that talks to its host. The rows named "an app's page" run on a page that loaded a
//! stylesheet and a script first: compare them with that page's row.
//!
//! ```sh
//! TMPDIR=$PWD/target/tmp cargo bench -p browser-tests --bench pageload_parts   # ROUNDS=40 for more
//! ```
//! The report is also written to `target/browser-tests/pageload_parts.txt`.

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use std::fmt::Write as _;
use std::time::Duration;

use browser_agent_tower::BrowserAgent;
use browser_tests::{median, scratch, Browser};
use serde_json::json;

/// Each variant's snippet: what the sensor does at start, one kind at a time.
const VARIANTS: [(&str, &str); 17] = [
    ("plain page", ""),
    // The floor: the least a script that talks to its host, or draws, can do after the first frame.
    ("one fetch (the floor of any host round trip)", "fetch('/x?0');"),
    ("the heartbeat's fetch (a header, no-store)", "fetch('/x?0', {headers: {'x-key': 'k'}, cache: 'no-store'});"),
    ("one more animation frame", "requestAnimationFrame(() => {});"),
    ("Web Lock + BroadcastChannel (the shared poll)", "new BroadcastChannel('x'); navigator.locks.request('x', () => new Promise(() => {}));"),
    ("sessionStorage read + write (the tab id)", "sessionStorage.getItem('a'); sessionStorage.setItem('a','1');"),
    ("three fetches (heartbeat, poll, logs)", "fetch('/x?1'); fetch('/x?2'); fetch('/x?3', {method:'POST', body:'[]'});"),
    ("a cached module's import (the sensor itself)", "import('/m.js');"),
    ("a cached classic script, by a <script> element", "document.head.appendChild(document.createElement('script')).src = '/c.js';"),
    ("a cached module, by a <script type=module>", "const s = document.createElement('script'); s.type = 'module'; s.src = '/m2.js'; document.head.appendChild(s);"),
    (INLINE_BOOTSTRAP, ""),
    // A worker's requests are off this thread (tried for the sensor's, docs/client.md).
    ("a worker that fetches (a cached script)", "new Worker('/w.js');"),
    ("the same + a message of 50 entries to it", "new Worker('/w.js').postMessage(Array.from({length: 50}, (_, i) => ({type: 'console', text: 'line ' + i, t: i})));"),
    // The page of an app: it loaded a stylesheet and a script of its own before (APP_HEAD), so the
    // document's loader is set up when the part runs.
    (APP_PLAIN, ""),
    ("an app's page + one fetch", "fetch('/x?0');"),
    ("an app's page + a cached module's import", "import('/m.js');"),
    ("listeners, an interval, hasFocus()", "addEventListener('pagehide', ()=>{}); addEventListener('focus', ()=>{}); document.addEventListener('click', ()=>{}, true); setInterval(()=>{}, 10000); document.hasFocus();"),
];

/// The baseline of the rows named "an app's page": a page that loads a stylesheet and a script.
const APP_PLAIN: &str = "an app's page (a stylesheet and a script)";
/// What such a page's head carries.
const APP_HEAD: &str = "<link rel=stylesheet href=/s.css><script src=/app.js></script>";

/// The variant whose work is the inline bootstrap itself.
const INLINE_BOOTSTRAP: &str = "the inline bootstrap (its sensor not loaded)";

/// The inline tag as pages get it, with no sensor to load (`client` empty), between two clock reads.
fn bootstrap_timed() -> String {
    let agent = BrowserAgent::builder().enabled(true).build();
    let tag = String::from_utf8(agent.tag().to_vec()).expect("tag is UTF-8");
    let (start, end) = (
        tag.find("\"client\":\"").expect("client url"),
        tag.find("\"wasm\"").expect("wasm url"),
    );
    format!(
        "<script>window.__t0 = performance.now();</script>{}\"client\":\"\",{}\
         <script>window.__sync = performance.now() - window.__t0;</script>",
        &tag[..start],
        &tag[end..]
    )
}

#[tokio::main]
async fn main() {
    let bootstrap = bootstrap_timed();
    let app = Router::new()
        .route("/", get(move |uri: axum::http::Uri| async move {
            let v: usize = uri.query().and_then(|q| q.strip_prefix("v=")).and_then(|v| v.parse().ok()).unwrap_or(0);
            let (name, snippet) = VARIANTS[v];
            let head = if name == INLINE_BOOTSTRAP {
                bootstrap.as_str()
            } else if name.starts_with("an app's page") {
                APP_HEAD
            } else {
                ""
            };
            // The snippet's synchronous time, read after the TaskDuration window.
            Html(format!("<!doctype html><html><head>{head}<title>x</title><script>requestAnimationFrame(() => setTimeout(() => {{ const t = performance.now(); {snippet} if (!window.__sync) window.__sync = performance.now() - t; }}));</script></head><body><h1>hi</h1></body></html>"))
        }))
        .route("/x", get(|| async { "ok" }).post(|| async { "ok" }))
        .route("/m.js", get(|| async { ([("content-type", "text/javascript"), ("cache-control", "max-age=3600")], "export const a = 1;") }))
        .route("/m2.js", get(|| async { ([("content-type", "text/javascript"), ("cache-control", "max-age=3600")], "export const a = 1;") }))
        .route("/w.js", get(|| async { ([("content-type", "text/javascript"), ("cache-control", "max-age=3600")], "fetch('/x?w'); onmessage = () => {};") }))
        .route("/s.css", get(|| async { ([("content-type", "text/css"), ("cache-control", "max-age=3600")], "h1 { color: navy }") }))
        .route("/app.js", get(|| async { ([("content-type", "text/javascript"), ("cache-control", "max-age=3600")], "window.app = 1;") }))
        .route("/c.js", get(|| async { ([("content-type", "text/javascript"), ("cache-control", "max-age=3600")], "window.a = 1;") }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let browser = Browser::launch(&scratch()).await;
    browser.cdp("Performance.enable", json!({})).await;
    let c = &browser.client;
    let mut samples: Vec<Vec<f64>> = vec![vec![]; VARIANTS.len()];
    let mut sync: Vec<Vec<f64>> = vec![vec![]; VARIANTS.len()];
    let benching = std::env::args().any(|a| a == "--bench");
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if benching { 20 } else { 1 });
    // Round 0 warms the caches and is not counted.
    for round in 0..=rounds {
        for v in 0..VARIANTS.len() {
            let out = &mut samples[v];
            // TaskDuration starts again with each document: the reading after the load is the
            // page's own (the blank page's, which the bench once subtracted, is another count).
            c.goto("about:blank").await.unwrap();
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
                out.push(get(&m1) * 1000.0);
                let t = c.execute("return window.__sync || 0;", vec![]).await.unwrap();
                sync[v].push(t.as_f64().unwrap_or(0.0));
            }
        }
    }
    browser.close().await;
    let base = median(&mut samples[0].clone());
    let mut report = format!(
        "main-thread time of a page load, {rounds} loads each (ms): TaskDuration median, Δ against the plain page; the part's own synchronous time, mean\n"
    );
    for (v, s) in samples.iter_mut().enumerate() {
        let m = median(s);
        let own = sync[v].iter().sum::<f64>() / sync[v].len().max(1) as f64;
        let _ = writeln!(report, "{:<48} {m:>6.1} {:>+7.1} {own:>7.2}", VARIANTS[v].0, m - base);
    }
    print!("{report}");
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/browser-tests/pageload_parts.txt");
    let _ = std::fs::write(out, &report);
}
