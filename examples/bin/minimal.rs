//! `cargo run --example minimal` (port from `PORT`, default 3000): the README's axum snippet, a
//! whole app with browser-agent added in one line. The full demo is `axum_demo`.
use axum::{response::Html, routing::get, Router};
use browser_agent_tower::BrowserAgentLayer;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let app = Router::new()
        .route("/", get(|| async { Html("<!doctype html><head></head><h1>hi</h1>") }))
        // …your routes and fallback…
        .layer(BrowserAgentLayer::new()); // last, and inside any CompressionLayer
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".into());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    axum::serve(listener, app).await
}
