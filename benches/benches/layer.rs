//! The layer's cost, against the same axum app without it, in the same run: pass-through on a
//! non-HTML route (target: within noise, ≤ 3 %) and injection into a 200 KB HTML page.

use std::hint::black_box;

use axum::Router;
use browser_agent_benches::drain;
use browser_agent_benches::Client;
use browser_agent_benches::{axum_app, page_request};
use browser_agent_core::BrowserAgent;
use browser_agent_tower::BrowserAgentLayer;
use criterion::{criterion_group, criterion_main, Criterion};
use tower::{Layer, ServiceExt};

fn layer(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let plain = axum_app();
    let agent = BrowserAgent::builder().enabled(true).page_key("bench-key-000").build();
    // The one-liner: `Router::layer` (axum re-boxes every route under a layer).
    let routed = axum_app().layer(BrowserAgentLayer::with_agent(agent.clone()));
    // The whole Router wrapped once: no per-route re-boxing.
    let wrapped = BrowserAgentLayer::with_agent(agent).layer(axum_app());
    let run = |router: &Router, path: &str| {
        let res = rt.block_on(router.clone().oneshot(page_request(path))).unwrap();
        black_box(rt.block_on(drain(res.into_body())))
    };
    let run_wrapped = |path: &str| {
        let res = rt.block_on(wrapped.clone().oneshot(page_request(path))).unwrap();
        black_box(rt.block_on(drain(res.into_body())))
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

/// The same app with and without the layer, each on a one-worker loopback server of its own thread.
fn serve(router: Router) -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, router).await.unwrap();
        });
    });
    addr
}

/// What a dev server sees: keep-alive requests over a real loopback socket.
fn layer_loopback(c: &mut Criterion) {
    let agent = BrowserAgent::builder().enabled(true).page_key("bench-key-000").build();
    let mut plain = Client::new(serve(axum_app()));
    let mut with_agent = Client::new(serve(axum_app().layer(BrowserAgentLayer::with_agent(agent))));
    assert!(with_agent.get("/big") > plain.get("/big"), "the layer injects");
    let mut group = c.benchmark_group("loopback_pass_through_json");
    group.bench_function("without layer (baseline)", |b| {
        b.iter(|| black_box(plain.get("/api/items")))
    });
    group.bench_function("Router::layer(BrowserAgentLayer)", |b| {
        b.iter(|| black_box(with_agent.get("/api/items")))
    });
    group.finish();
    let mut group = c.benchmark_group("loopback_html_200kb");
    group.throughput(criterion::Throughput::Bytes(200 * 1024));
    group.bench_function("without layer (baseline)", |b| b.iter(|| black_box(plain.get("/big"))));
    group.bench_function("Router::layer (injected)", |b| {
        b.iter(|| black_box(with_agent.get("/big")))
    });
    group.finish();
}

criterion_group!(benches, layer, layer_loopback);
criterion_main!(benches);
