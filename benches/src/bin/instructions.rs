//! One scenario of the benchmarks, `N` times, for an instruction counter:
//! `valgrind --tool=callgrind target/release/instructions SCENARIO N` (see `scripts/bench-instructions`).
//! Criterion times are at the mercy of a shared 2-core machine; instruction counts are not, so the
//! README's overhead ratios come from here, next to criterion's times.

use std::hint::black_box;

use axum::Router;
use browser_agent_benches::drain;
use browser_agent_benches::{axum_app, fetch_request, page_request};
use browser_agent_core::adapter::AdapterExt;
use browser_agent_core::BrowserAgent;
use browser_agent_tower::BrowserAgentLayer;
use bytes::Bytes;
use tower::{Layer, ServiceExt};

fn batch(client: u64) -> Bytes {
    let entries: Vec<serde_json::Value> = (0..50u64)
        .map(|i| match i % 3 {
            0 => serde_json::json!({"type":"console","level":"log","args":[format!("rendered item {i}"), {"id": i, "ok": true}],"url":"http://127.0.0.1:3000/","clientId":format!("c{client}"),"seq":i + 1,"t":1_700_000_000_000u64 + i}),
            1 => serde_json::json!({"type":"network","method":"GET","url":"/api/items","status":500,"statusText":"Internal Server Error","duration":12,"ok":false,"body":"{\"error\":\"boom\"}","clientId":format!("c{client}"),"seq":i + 1,"t":1_700_000_000_000u64 + i}),
            _ => serde_json::json!({"type":"error","message":"TypeError: x is undefined","stack":"TypeError: x is undefined\n    at app.js:1:2","source":"http://127.0.0.1:3000/app.js","line":1,"column":2,"clientId":format!("c{client}"),"seq":i + 1,"t":1_700_000_000_000u64 + i}),
        })
        .collect();
    Bytes::from(serde_json::to_vec(&entries).unwrap())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let scenario = args.next().unwrap_or_default();
    let n: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let agent = BrowserAgent::builder().enabled(true).page_key("bench-key-000").build();
    // The same host without redaction (on by default), for the cost of redacting.
    let raw = BrowserAgent::builder()
        .enabled(true)
        .page_key("bench-key-000")
        .redact(false)
        .build();
    let plain = axum_app();
    let layered = axum_app().layer(BrowserAgentLayer::with_agent(agent.clone()));
    let wrapped = BrowserAgentLayer::with_agent(agent.clone()).layer(axum_app());
    let get_wrapped = |path: &str| {
        let res = rt.block_on(wrapped.clone().oneshot(page_request(path))).unwrap();
        black_box(rt.block_on(drain(res.into_body())));
    };
    let get = |router: &Router, path: &str| {
        let res = rt.block_on(router.clone().oneshot(page_request(path))).unwrap();
        black_box(rt.block_on(drain(res.into_body())));
    };
    // Bodies are made before the measured loop; `make` counts only that, so the script subtracts it.
    let bodies: Vec<Bytes> = if matches!(scenario.as_str(), "ingest" | "ingest-raw" | "parse" | "make") {
        (0..n).map(batch).collect()
    } else {
        Vec::new()
    };
    match scenario.as_str() {
        "plain-json" => (0..n).for_each(|_| get(&plain, "/api/items")),
        "layer-json" => (0..n).for_each(|_| get(&layered, "/api/items")),
        "plain-html" => (0..n).for_each(|_| get(&plain, "/big")),
        "layer-html" => (0..n).for_each(|_| get(&layered, "/big")),
        "wrapped-json" => (0..n).for_each(|_| get_wrapped("/api/items")),
        "wrapped-html" => (0..n).for_each(|_| get_wrapped("/big")),
        "plain-fetch" => (0..n).for_each(|_| {
            let res = rt.block_on(plain.clone().oneshot(fetch_request("/api/items"))).unwrap();
            black_box(rt.block_on(drain(res.into_body())));
        }),
        "wrapped-fetch" => (0..n).for_each(|_| {
            let res = rt
                .block_on(wrapped.clone().oneshot(fetch_request("/api/items")))
                .unwrap();
            black_box(rt.block_on(drain(res.into_body())));
        }),
        "make" => drop(black_box(bodies)),
        "parse" => {
            for body in bodies {
                drop(black_box(serde_json::from_slice::<serde_json::Value>(&body).unwrap()));
            }
        }
        "ingest" | "ingest-raw" => {
            let agent = if scenario == "ingest" { &agent } else { &raw };
            for body in bodies {
                let req = http::Request::post("/__mindstudio_dev__/logs")
                    .header("host", "127.0.0.1:3000")
                    .header("x-browser-agent-key", "bench-key-000")
                    .body(body)
                    .unwrap();
                drop(black_box(rt.block_on(agent.handle(req)).unwrap()));
            }
        }
        other => {
            eprintln!("unknown scenario {other:?}: plain-json layer-json wrapped-json plain-fetch wrapped-fetch plain-html layer-html wrapped-html parse ingest ingest-raw");
            std::process::exit(2);
        }
    }
}
