//! The actix middleware's cost, against the same actix app without it, in the same run:
//! pass-through on a non-HTML route (target: within noise, ≤ 3 %) and injection into a 200 KB HTML
//! page. In process (`test::init_service`, timed inside one `block_on` per sample: the middleware's
//! own cost against actix's ~1 µs), and over a keep-alive loopback connection to a real server (the
//! cost a dev server sees).

use std::hint::black_box;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use actix_web::body::{to_bytes, MessageBody};
use actix_web::dev::{Service, ServiceResponse};
use actix_web::{test, web, App, HttpResponse, HttpServer};
use browser_agent_actix::BrowserAgentMiddleware;
use browser_agent_benches::Client;
use browser_agent_core::BrowserAgent;
use browser_agent_testkit::fixtures;
use criterion::{criterion_group, criterion_main, Criterion};

fn routes(cfg: &mut web::ServiceConfig) {
    let big = web::Bytes::from(fixtures::big_page());
    cfg.route(
        "/api/items",
        web::get().to(|| async { HttpResponse::Ok().json(["a", "b", "c"]) }),
    )
    .route(
        "/big",
        web::get().to(move || {
            let big = big.clone();
            async move { HttpResponse::Ok().content_type("text/html; charset=utf-8").body(big) }
        }),
    );
}

fn request(path: &str) -> test::TestRequest {
    test::TestRequest::get()
        .uri(path)
        .insert_header(("host", "127.0.0.1:3000"))
        .insert_header(("sec-fetch-dest", "document"))
}

/// `iters` requests to `path` through `app`, bodies read to the end.
async fn run<S, B, R>(app: &S, make: impl Fn() -> R, iters: u64) -> Duration
where
    S: Service<R, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let start = Instant::now();
    for _ in 0..iters {
        let res = app.call(make()).await.unwrap();
        black_box(to_bytes(res.into_body()).await.ok().unwrap());
    }
    start.elapsed()
}

fn actix(c: &mut Criterion) {
    let system = actix_web::rt::System::new();
    let plain = system.block_on(test::init_service(App::new().configure(routes)));
    let agent = BrowserAgent::builder().enabled(true).page_key("bench-key-000").build();
    let with_agent = system.block_on(test::init_service(
        App::new().configure(routes).wrap(BrowserAgentMiddleware::new(agent)),
    ));
    // Sanity: the middleware does inject into the big page and leaves the JSON alone.
    let big = system
        .block_on(async { to_bytes(with_agent.call(request("/big").to_request()).await.unwrap().into_body()).await });
    assert!(big.ok().unwrap().len() > fixtures::big_page().len());

    let mut group = c.benchmark_group("actix_pass_through_json");
    group.bench_function("without middleware (baseline)", |b| {
        b.iter_custom(|n| system.block_on(run(&plain, || request("/api/items").to_request(), n)))
    });
    group.bench_function("with BrowserAgentMiddleware", |b| {
        b.iter_custom(|n| system.block_on(run(&with_agent, || request("/api/items").to_request(), n)))
    });
    group.finish();
    let mut group = c.benchmark_group("actix_html_200kb");
    group.throughput(criterion::Throughput::Bytes(200 * 1024));
    group.bench_function("without middleware (baseline)", |b| {
        b.iter_custom(|n| system.block_on(run(&plain, || request("/big").to_request(), n)))
    });
    group.bench_function("with BrowserAgentMiddleware (injected)", |b| {
        b.iter_custom(|n| system.block_on(run(&with_agent, || request("/big").to_request(), n)))
    });
    group.finish();
}

/// A one-worker server on 127.0.0.1 (with or without the middleware) on its own thread, for the
/// life of the process.
fn serve(agent: Option<BrowserAgent>) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            HttpServer::new(move || {
                // The baseline gets a disabled agent: `is_ours` and injection are off, every request
                // goes straight to the app, so both servers have the same App type.
                let on = agent.is_some();
                let agent = agent
                    .clone()
                    .unwrap_or_else(|| BrowserAgent::builder().enabled(false).build());
                App::new().configure(routes).wrap(actix_web::middleware::Condition::new(
                    on,
                    BrowserAgentMiddleware::new(agent),
                ))
            })
            .workers(1)
            .keep_alive(Duration::from_secs(600))
            .disable_signals()
            .listen(listener)
            .unwrap()
            .run()
            .await
            .unwrap()
        })
    });
    addr
}

fn actix_loopback(c: &mut Criterion) {
    let agent = BrowserAgent::builder().enabled(true).page_key("bench-key-000").build();
    let mut plain = Client::new(serve(None));
    let mut with_agent = Client::new(serve(Some(agent)));
    assert!(with_agent.get("/big") > plain.get("/big"), "the middleware injects");
    let mut group = c.benchmark_group("actix_loopback_pass_through_json");
    group.bench_function("without middleware (baseline)", |b| {
        b.iter(|| black_box(plain.get("/api/items")))
    });
    group.bench_function("with BrowserAgentMiddleware", |b| {
        b.iter(|| black_box(with_agent.get("/api/items")))
    });
    group.finish();
    let mut group = c.benchmark_group("actix_loopback_html_200kb");
    group.throughput(criterion::Throughput::Bytes(200 * 1024));
    group.bench_function("without middleware (baseline)", |b| {
        b.iter(|| black_box(plain.get("/big")))
    });
    group.bench_function("with BrowserAgentMiddleware (injected)", |b| {
        b.iter(|| black_box(with_agent.get("/big")))
    });
    group.finish();
}

criterion_group!(benches, actix, actix_loopback);
criterion_main!(benches);
