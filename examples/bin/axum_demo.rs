//! `cargo run --example axum_demo -- [--dir PATH] [--stdio | --mcp-stdio]` (port from `PORT`, default 3000): the
//! demo app on axum, with browser-agent added in one line.
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms)]

use std::path::PathBuf;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use browser_agent_examples::{cli, demo, static_files};
use browser_agent_tower::BrowserAgentLayer;

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

#[tokio::main]
async fn main() {
    let options = cli::from_env();
    let agent = cli::demo_agent(options.port);
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
        .fallback(files)
        .with_state(options.dir.clone())
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
