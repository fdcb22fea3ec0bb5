//! `cargo run --example axum_demo -- [--dir PATH] [--stdio | --mcp-stdio]` (port from `PORT`, default 3000): the
//! demo app on axum, with browser-agent added in one line.
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms)]

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use browser_agent_examples::{cli, demo, static_files};
use browser_agent_tower::BrowserAgentLayer;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer;

fn json(status: StatusCode, body: impl Into<String>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}

/// The files of `--dir` (if given), else a 404 page.
async fn files(State(dir): State<Option<PathBuf>>, uri: Uri) -> Response {
    match dir.and_then(|d| static_files::serve(&d, uri.path())) {
        Some((content_type, body)) => ([(header::CONTENT_TYPE, content_type)], body).into_response(),
        None => (StatusCode::NOT_FOUND, Html(demo::not_found(uri.path()))).into_response(),
    }
}

/// `GET /demo/boom`: an error the handler logs (with `tracing`, inside a span), then a 500.
async fn boom() -> Response {
    let span = tracing::error_span!("demo_boom", order = 42);
    let _inside = span.enter();
    tracing::error!(table = "orders", "database unavailable: connection refused");
    json(StatusCode::INTERNAL_SERVER_ERROR, r#"{"error":"database unavailable"}"#)
}

/// `GET /demo/panic`: a handler that panics ([`catch_panic`] turns it into a 500).
async fn panics() -> Response {
    let items: Vec<&str> = Vec::new();
    panic!("demo: /demo/panic indexed an empty list ({} items)", items.len())
}

/// Answers 500 when a handler panics (hyper would drop the connection): the panic hook has
/// recorded the panic by then, and the agent's layer, outside this one, records the 500.
async fn catch_panic(req: Request, next: Next) -> Response {
    match CatchUnwind(Box::pin(next.run(req))).await {
        Some(res) => res,
        None => json(StatusCode::INTERNAL_SERVER_ERROR, r#"{"error":"the handler panicked"}"#),
    }
}

/// A future that ends with `None` when polling it panics.
struct CatchUnwind<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Option<F::Output>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let fut = self.0.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| fut.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(out)) => Poll::Ready(Some(out)),
            Err(_) => Poll::Ready(None),
        }
    }
}

#[tokio::main]
async fn main() {
    let options = cli::from_env();
    let agent = cli::demo_agent(options.port);
    // The app's tracing: warnings and errors printed to stderr (stdout may carry --stdio), and
    // stored as `server` entries with their spans.
    let printed = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(LevelFilter::WARN);
    let subscriber = tracing_subscriber::registry().with(printed).with(agent.tracing_layer());
    tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
    // Panics as `server` entries, then printed as before.
    agent.install_panic_hook();
    let app = Router::new()
        .route("/", get(|| async { Html(demo::PAGE) }))
        .route(
            "/api/items",
            get(|| async { json(StatusCode::OK, demo::items()) }).post(|body: Bytes| async move {
                match demo::add_item(&body) {
                    Ok(items) => json(StatusCode::OK, items),
                    Err(error) => json(StatusCode::BAD_REQUEST, error),
                }
            }),
        )
        .route(
            "/api/fail",
            get(|| async { json(StatusCode::INTERNAL_SERVER_ERROR, demo::FAIL) }),
        )
        .route("/demo/boom", get(boom))
        .route("/demo/panic", get(panics))
        .fallback(files)
        .with_state(options.dir.clone())
        .layer(middleware::from_fn(catch_panic))
        // The one line: last, so it wraps every route and the fallback.
        .layer(BrowserAgentLayer::with_agent(agent.clone()));

    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], options.port));
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap_or_else(|e| {
        eprintln!("cannot listen on {addr}: {e} (set PORT to use another port)");
        std::process::exit(1);
    });
    let banner = cli::banner("axum", options.port, &agent, options.dir.as_deref());
    let server = axum::serve(listener, app);
    let res = if let Some((hint, bridge)) = cli::stdio_bridge(&agent, &options) {
        // stdout carries the protocol: everything else goes to stderr.
        eprintln!("{banner}{hint}");
        tokio::select! {
            res = server => res,
            res = bridge => res,
        }
    } else {
        print!("{banner}");
        server
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
    };
    if let Err(e) = res {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
