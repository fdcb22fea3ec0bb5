//! The layer's cost, against the same axum app without it, in the same run: pass-through on a
//! non-HTML route (target: within noise, ≤ 3 %) and injection into a 200 KB HTML page.

use std::hint::black_box;

use axum::routing::get;
use axum::Router;
use browser_agent_core::BrowserAgent;
use browser_agent_examples::fixtures;
use browser_agent_tower::BrowserAgentLayer;
use criterion::{criterion_group, criterion_main, Criterion};
use http_body_util::BodyExt;
use tower::{Layer, ServiceExt};

fn app() -> Router {
    let big = fixtures::big_page();
    Router::new()
        .route(
            "/api/items",
            get(|| async { axum::Json(serde_json::json!(["a", "b", "c"])) }),
        )
        .route("/big", get(move || async move { axum::response::Html(big) }))
}

fn request(path: &str) -> http::Request<axum::body::Body> {
    http::Request::get(path)
        .header("host", "127.0.0.1:3000")
        .header("sec-fetch-dest", "document")
        .body(axum::body::Body::empty())
        .unwrap()
}

fn layer(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let plain = app();
    let agent = BrowserAgent::builder().enabled(true).page_key("bench-key-000").build();
    // The one-liner: `Router::layer` (axum re-boxes every route under a layer).
    let routed = app().layer(BrowserAgentLayer::with_agent(agent.clone()));
    // The whole Router wrapped once: no per-route re-boxing.
    let wrapped = BrowserAgentLayer::with_agent(agent).layer(app());
    let run = |router: &Router, path: &str| {
        let res = rt.block_on(router.clone().oneshot(request(path))).unwrap();
        black_box(rt.block_on(res.into_body().collect()).unwrap().to_bytes())
    };
    let run_wrapped = |path: &str| {
        let res = rt.block_on(wrapped.clone().oneshot(request(path))).unwrap();
        black_box(rt.block_on(res.into_body().collect()).unwrap().to_bytes())
    };
    let mut group = c.benchmark_group("pass_through_json");
    group.bench_function("without layer (baseline)", |b| b.iter(|| run(&plain, "/api/items")));
    group.bench_function("Router::layer(BrowserAgentLayer)", |b| {
        b.iter(|| run(&routed, "/api/items"))
    });
    group.bench_function("BrowserAgentLayer around the Router", |b| {
        b.iter(|| run_wrapped("/api/items"))
    });
    group.finish();
    let mut group = c.benchmark_group("html_200kb");
    group.throughput(criterion::Throughput::Bytes(200 * 1024));
    group.bench_function("without layer (baseline)", |b| b.iter(|| run(&plain, "/big")));
    group.bench_function("Router::layer (injected)", |b| b.iter(|| run(&routed, "/big")));
    group.bench_function("around the Router (injected)", |b| b.iter(|| run_wrapped("/big")));
    group.finish();
}

criterion_group!(benches, layer);
criterion_main!(benches);
