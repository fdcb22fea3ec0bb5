//! Server errors in the log timeline, over real loopback servers of both adapters: the app's 5xx
//! answers (and only those) as `server` entries with method, path, status and duration; the
//! app's `tracing` errors with their span fields; a panicking handler recorded by the panic hook.

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use browser_agent_core::BrowserAgent;
use browser_agent_testkit::http::send;
use serde_json::Value;
use tracing::Instrument;

const P: &str = "/__mindstudio_dev__";
/// What `/boom` takes before it answers: the entry's duration is at least this.
const BOOM_MS: u64 = 30;

fn any_port() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

/// The `server` entries stored after `after` (a `lastSeq`).
async fn server_entries(addr: SocketAddr, after: u64) -> Vec<Value> {
    let r = send(
        addr,
        "GET",
        &format!("{P}/console?type=server&afterSeq={after}&limit=100"),
        &[],
        b"",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["logs"].as_array().unwrap().clone()
}

async fn last_seq(addr: SocketAddr) -> u64 {
    let r = send(addr, "GET", &format!("{P}/console?limit=0"), &[], b"").await;
    r.json()["lastSeq"].as_u64().unwrap()
}

async fn status(addr: SocketAddr, method: &str, path: &str) -> u16 {
    let headers = [("content-type", "application/json")];
    let body: &[u8] = if method == "POST" {
        br#"{"steps":[{"command":"snapshot"}]}"#
    } else {
        b""
    };
    send(addr, method, path, &headers, body).await.status
}

/// The standard test apps (testkit's, as the conformance suite serves them): `/api/fail` answers
/// 500; `/api/items` 200 and an unknown path 404 are not recorded, nor our own routes' errors.
async fn only_the_apps_5xx_are_recorded(addr: SocketAddr) {
    let before = last_seq(addr).await;
    assert_eq!(status(addr, "GET", "/api/items").await, 200);
    assert_eq!(status(addr, "GET", "/no/such/page").await, 404);
    assert_eq!(status(addr, "HEAD", "/api/items").await, 200);
    // Our routes: a 503 (no page to run the batch), a 404, a 400.
    assert_eq!(status(addr, "POST", &format!("{P}/run")).await, 503);
    assert_eq!(status(addr, "GET", &format!("{P}/nope")).await, 404);
    assert_eq!(status(addr, "GET", &format!("{P}/console?level=loud")).await, 400);
    assert_eq!(server_entries(addr, before).await, Vec::<Value>::new());

    assert_eq!(status(addr, "GET", "/api/fail?token=s3cr3t-t0ken&page=2").await, 500);
    let entries = server_entries(addr, before).await;
    assert_eq!(entries.len(), 1, "{entries:#?}");
    let e = &entries[0];
    assert_eq!(
        (e["type"].as_str(), e["level"].as_str()),
        (Some("server"), Some("error"))
    );
    assert_eq!(e["source"], "response");
    assert_eq!(e["method"], "GET");
    assert_eq!(e["url"], "/api/fail?token=[redacted]&page=2", "the query is redacted");
    assert_eq!(e["status"], 500);
    assert!(e["duration"].is_u64());
    let text = e["text"].as_str().unwrap();
    assert!(
        text.starts_with("GET /api/fail?token=[redacted]&page=2 → 500 Internal Server Error (")
            && text.ends_with(" ms)"),
        "{text}"
    );
}

#[tokio::test]
async fn axum_records_the_apps_5xx_only() {
    let agent = BrowserAgent::builder().enabled(true).build();
    let server = browser_agent_testkit::axum_app::spawn(agent, None, any_port()).unwrap();
    only_the_apps_5xx_are_recorded(server.addr).await;
}

#[tokio::test]
async fn actix_records_the_apps_5xx_only() {
    let agent = BrowserAgent::builder().enabled(true).build();
    let server = browser_agent_testkit::actix_app::spawn(agent, None, any_port()).unwrap();
    only_the_apps_5xx_are_recorded(server.addr).await;
}

/// The agent the process-wide tracing subscriber and panic hook record into (both are global).
fn traced() -> &'static BrowserAgent {
    static AGENT: OnceLock<BrowserAgent> = OnceLock::new();
    AGENT.get_or_init(|| {
        use tracing_subscriber::layer::SubscriberExt;
        let agent = BrowserAgent::builder().enabled(true).build();
        let subscriber = tracing_subscriber::registry().with(agent.tracing_layer());
        tracing::subscriber::set_global_default(subscriber).expect("the test's subscriber");
        agent.install_panic_hook();
        agent
    })
}

/// What `/boom` does in both apps: an error logged in a span, then (after [`BOOM_MS`]) a 500.
async fn boom_work() {
    async {
        tracing::info!("not recorded: below WARN");
        tokio::time::sleep(Duration::from_millis(BOOM_MS)).await;
        tracing::error!(table = "orders", "database unavailable");
    }
    .instrument(tracing::info_span!("checkout", order = 42_u64, user = "ada"))
    .await
}

/// A future that ends with `None` when polling it panics (what the demos wrap handlers in).
struct CatchUnwind<F>(std::pin::Pin<Box<F>>);

impl<F: std::future::Future> std::future::Future for CatchUnwind<F> {
    type Output = Option<F::Output>;
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        let fut = self.0.as_mut();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fut.poll(cx))) {
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Ok(std::task::Poll::Ready(out)) => std::task::Poll::Ready(Some(out)),
            Err(_) => std::task::Poll::Ready(None),
        }
    }
}

async fn panicking() -> &'static str {
    let empty: Vec<&str> = Vec::new();
    empty[3]
}

fn axum_app(agent: BrowserAgent) -> axum::Router {
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    use axum::routing::get;
    axum::Router::new()
        .route(
            "/boom",
            get(|| async {
                boom_work().await;
                (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response()
            }),
        )
        .route(
            "/panic",
            get(|| async {
                match CatchUnwind(Box::pin(panicking())).await {
                    Some(text) => text.into_response(),
                    None => (StatusCode::INTERNAL_SERVER_ERROR, "panicked").into_response(),
                }
            }),
        )
        .layer(browser_agent_tower::BrowserAgentLayer::with_agent(agent))
}

/// The same routes on actix, served from a thread of its own; stops when dropped.
struct ActixServer {
    addr: SocketAddr,
    handle: actix_web::dev::ServerHandle,
}

impl Drop for ActixServer {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

fn actix_app(agent: BrowserAgent) -> ActixServer {
    use actix_web::{web, App, HttpResponse, HttpServer};
    let listener = std::net::TcpListener::bind(any_port()).unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                App::new()
                    .route(
                        "/boom",
                        web::get().to(|| async {
                            boom_work().await;
                            HttpResponse::InternalServerError().body("boom")
                        }),
                    )
                    .route(
                        "/panic",
                        web::get().to(|| async {
                            match CatchUnwind(Box::pin(panicking())).await {
                                Some(text) => HttpResponse::Ok().body(text),
                                None => HttpResponse::InternalServerError().body("panicked"),
                            }
                        }),
                    )
                    .wrap(browser_agent_actix::BrowserAgentMiddleware::new(agent.clone()))
            })
            .workers(1)
            .disable_signals()
            .shutdown_timeout(0)
            .listen(listener)
            .unwrap()
            .run();
            tx.send(server.handle()).unwrap();
            let _ = server.await;
        });
    });
    ActixServer {
        addr,
        handle: rx.recv().unwrap(),
    }
}

/// `/boom`: the tracing error with its span's fields, then the 500 with its duration; `/panic`:
/// the panic (message, location, thread), then its 500.
async fn tracing_errors_and_panics_are_in_the_timeline(addr: SocketAddr, adapter: &str) {
    let before = last_seq(addr).await;
    assert_eq!(status(addr, "GET", "/boom").await, 500, "{adapter}");
    let entries = server_entries(addr, before).await;
    assert_eq!(entries.len(), 2, "{adapter}: {entries:#?}");
    let (logged, answered) = (&entries[0], &entries[1]);
    assert_eq!(
        (logged["source"].as_str(), logged["level"].as_str()),
        (Some("tracing"), Some("error"))
    );
    assert_eq!(logged["message"], "database unavailable");
    assert_eq!(logged["fields"]["table"], "orders");
    assert_eq!(logged["spans"][0]["name"], "checkout");
    assert_eq!(logged["spans"][0]["fields"]["order"], 42);
    assert_eq!(logged["spans"][0]["fields"]["user"], "ada");
    assert!(logged["text"]
        .as_str()
        .unwrap()
        .contains(r#"checkout{order=42 user="ada"}: "#));
    assert_eq!(answered["source"], "response");
    assert_eq!(
        (answered["url"].as_str(), answered["status"].as_u64()),
        (Some("/boom"), Some(500))
    );
    let ms = answered["duration"].as_u64().unwrap();
    assert!(
        (BOOM_MS..5_000).contains(&ms),
        "{adapter}: measured from the request's arrival: {ms} ms"
    );

    let before = last_seq(addr).await;
    assert_eq!(status(addr, "GET", "/panic").await, 500, "{adapter}");
    let entries = server_entries(addr, before).await;
    assert_eq!(entries.len(), 2, "{adapter}: {entries:#?}");
    let (panicked, answered) = (&entries[0], &entries[1]);
    assert_eq!(panicked["source"], "panic");
    let message = panicked["message"].as_str().unwrap();
    assert!(
        message.starts_with("index out of bounds: the len is 0 but the index is 3"),
        "{message}"
    );
    assert!(
        panicked["location"].as_str().unwrap().contains("server_errors.rs:"),
        "{panicked}"
    );
    assert!(panicked["text"].as_str().unwrap().starts_with("thread '"));
    assert!(panicked["thread"].is_string());
    assert_eq!(
        (answered["url"].as_str(), answered["status"].as_u64()),
        (Some("/panic"), Some(500))
    );
}

/// One test for both adapters: the subscriber and the panic hook are the process's, so their
/// agent is too, and the two runs must not interleave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracing_errors_and_panics_over_tcp_in_both_adapters() {
    let agent = traced().clone();
    let axum = browser_agent_testkit::axum_app::serve(axum_app(agent.clone()), any_port()).unwrap();
    tracing_errors_and_panics_are_in_the_timeline(axum.addr, "axum").await;
    drop(axum);
    let actix = actix_app(agent);
    tracing_errors_and_panics_are_in_the_timeline(actix.addr, "actix").await;
}
