//! `cargo run --example actix_demo -- [--dir PATH] [--stdio | --mcp-stdio]` (port from `PORT`, default 3000): the
//! demo app on actix-web, with browser-agent added in one line.
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms)]

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::http::StatusCode;
use actix_web::{guard, web, App, HttpRequest, HttpResponse, HttpServer, Route};
use browser_agent_actix::BrowserAgentMiddleware;
use browser_agent_examples::{cli, demo, static_files};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer;

/// `GET`, and `HEAD` with the same handler (as axum's `get` does).
fn get() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

fn json(status: StatusCode, body: impl Into<String>) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(body.into())
}

async fn add_item(body: web::Bytes) -> HttpResponse {
    match demo::add_item(&body) {
        Ok(items) => json(StatusCode::OK, items),
        Err(error) => json(StatusCode::BAD_REQUEST, error),
    }
}

/// The files of `--dir` (if given), else a 404 page.
async fn files(dir: web::Data<Option<PathBuf>>, req: HttpRequest) -> HttpResponse {
    match dir.as_deref().and_then(|d| static_files::serve(d, req.path())) {
        Some((content_type, body)) => HttpResponse::Ok().content_type(content_type).body(body),
        None => HttpResponse::NotFound()
            .content_type("text/html; charset=utf-8")
            .body(demo::not_found(req.path())),
    }
}

/// `GET /demo/boom`: an error the handler logs (with `tracing`, inside a span), then a 500.
async fn boom() -> HttpResponse {
    let span = tracing::error_span!("demo_boom", order = 42);
    let _inside = span.enter();
    tracing::error!(table = "orders", "database unavailable: connection refused");
    json(StatusCode::INTERNAL_SERVER_ERROR, r#"{"error":"database unavailable"}"#)
}

/// `GET /demo/panic`: a handler that panics, run through [`caught`], which answers 500.
async fn panics() -> HttpResponse {
    let items: Vec<&str> = Vec::new();
    panic!("demo: /demo/panic indexed an empty list ({} items)", items.len())
}

/// Runs a handler's future and answers 500 if it panics: actix drops the connection of a
/// panicking handler, and a middleware cannot answer in its place (it would need the request,
/// which routing must hold alone). The panic hook has recorded the panic by then, and the agent's
/// middleware records the 500.
async fn caught(handler: impl Future<Output = HttpResponse>) -> HttpResponse {
    match CatchUnwind(Box::pin(handler)).await {
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

fn main() {
    let options = cli::from_env();
    // Created once, here, outside `HttpServer::new`: every worker shares this state.
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
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], options.port));
    let banner = cli::banner("actix", options.port, &agent, options.dir.as_deref());
    let dir = web::Data::new(options.dir.clone());
    let result = actix_web::rt::System::new().block_on(async move {
        let workers = agent.clone();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(dir.clone())
                .route(
                    "/",
                    get().to(|| async {
                        HttpResponse::Ok()
                            .content_type("text/html; charset=utf-8")
                            .body(demo::PAGE)
                    }),
                )
                .route("/api/items", get().to(|| async { json(StatusCode::OK, demo::items()) }))
                .route("/api/items", web::post().to(add_item))
                .route(
                    "/api/fail",
                    get().to(|| async { json(StatusCode::INTERNAL_SERVER_ERROR, demo::FAIL) }),
                )
                .route("/demo/boom", get().to(boom))
                .route("/demo/panic", get().to(|| caught(panics())))
                .default_service(web::to(files))
                // The one line (wrap `Compress::default()` after it, never before).
                .wrap(BrowserAgentMiddleware::new(workers.clone()))
        })
        .bind(addr)
        .map_err(|e| format!("cannot listen on {addr}: {e} (set PORT to use another port)"))?;
        if let Some((hint, bridge)) = cli::stdio_bridge(&agent, &options) {
            // stdout carries the protocol: everything else goes to stderr.
            eprintln!("{banner}{hint}");
            let server = server.disable_signals().run();
            let handle = server.handle();
            let res = tokio::select! {
                res = server => res,
                // stdin closed (or failed): stop serving, as the axum demo does.
                res = bridge => {
                    handle.stop(false).await;
                    res
                }
            };
            res.map_err(|e| format!("error: {e}"))
        } else {
            print!("{banner}");
            // actix stops gracefully on Ctrl-C by itself.
            server.run().await.map_err(|e| format!("error: {e}"))
        }
    });
    if let Err(msg) = result {
        eprintln!("{msg}");
        std::process::exit(1);
    }
}
