//! `POST {prefix}/logs` with a 50-entry batch through the full core service, against a handler
//! that only parses the same JSON (the floor any implementation pays).

use std::hint::black_box;

use browser_agent_core::adapter::AdapterExt;
use browser_agent_core::BrowserAgent;
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

fn batch(start_seq: u64) -> Bytes {
    let entries: Vec<serde_json::Value> = (0..50)
        .map(|i| {
            let seq = start_seq + i;
            match i % 3 {
                0 => serde_json::json!({"type":"console","level":"log","args":[format!("rendered item {i}"), {"id": i, "ok": true}],"url":"http://127.0.0.1:3000/","clientId":"bench","seq":seq,"t":1_700_000_000_000u64 + i}),
                1 => serde_json::json!({"type":"network","method":"GET","url":"/api/items","status":500,"statusText":"Internal Server Error","duration":12,"ok":false,"body":"{\"error\":\"boom\"}","clientId":"bench","seq":seq,"t":1_700_000_000_000u64 + i}),
                _ => serde_json::json!({"type":"error","message":"TypeError: x is undefined","stack":"TypeError: x is undefined\n    at app.js:1:2","source":"http://127.0.0.1:3000/app.js","line":1,"column":2,"clientId":"bench","seq":seq,"t":1_700_000_000_000u64 + i}),
            }
        })
        .collect();
    Bytes::from(serde_json::to_vec(&entries).unwrap())
}

fn ingest(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let agent = BrowserAgent::builder().enabled(true).page_key("bench-key-000").build();
    let template = String::from_utf8(batch(1).to_vec()).unwrap();
    // A distinct client per body (made outside the timed part), so de-duplication never short-cuts the work.
    let mut round = 0u64;
    let mut next_body = move || {
        round += 1;
        Bytes::from(template.replace("\"clientId\":\"bench\"", &format!("\"clientId\":\"r{round}\"")))
    };
    let raw = BrowserAgent::builder()
        .enabled(true)
        .page_key("bench-key-000")
        .redact(false)
        .build();
    let mut group = c.benchmark_group("ingest_50");
    group.throughput(Throughput::Elements(50));
    group.bench_function("POST /logs (full service)", |b| {
        b.iter_batched(
            &mut next_body,
            |body| {
                let req = http::Request::post("/__mindstudio_dev__/logs")
                    .header("host", "127.0.0.1:3000")
                    .header("x-browser-agent-key", "bench-key-000")
                    .body(body)
                    .unwrap();
                drop(black_box(rt.block_on(agent.handle(req)).unwrap()))
            },
            BatchSize::SmallInput,
        )
    });
    // The same without redaction (on by default): what redacting costs.
    group.bench_function("POST /logs (full service, redact(false))", |b| {
        b.iter_batched(
            &mut next_body,
            |body| {
                let req = http::Request::post("/__mindstudio_dev__/logs")
                    .header("host", "127.0.0.1:3000")
                    .header("x-browser-agent-key", "bench-key-000")
                    .body(body)
                    .unwrap();
                drop(black_box(rt.block_on(raw.handle(req)).unwrap()))
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("parse only (baseline)", |b| {
        b.iter_batched(
            &mut next_body,
            // Parse and discard, inside the timed part: the full service frees what it evicts too.
            |body| drop(black_box(serde_json::from_slice::<serde_json::Value>(&body).unwrap())),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
