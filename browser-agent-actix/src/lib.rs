//! # browser-agent-actix
//!
//! [`BrowserAgentMiddleware`] gives an actix-web dev server browser-agent in one line: our routes
//! (`/browser/probe`, `/__mindstudio_dev__/…`) are answered by [`browser_agent_core`], everything
//! else goes to your app, and every HTML document your app serves gets the client tag, streamed in
//! right after `<head>` without buffering the page.
//!
//! ```no_run
//! use actix_web::{middleware::Compress, web, App, HttpResponse, HttpServer};
//! use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
//!
//! # fn main() -> std::io::Result<()> {
//! # actix_web::rt::System::new().block_on(async {
//! // Once, outside the factory: every worker shares this state.
//! let agent = BrowserAgent::builder().enabled(true).build();
//! HttpServer::new(move || {
//!     App::new()
//!         .wrap(BrowserAgentMiddleware::new(agent.clone()))
//!         .wrap(Compress::default()) // compression after (outside) our middleware
//!         .route("/", web::get().to(|| async {
//!             HttpResponse::Ok().content_type("text/html").body("<!doctype html><head></head><h1>hi</h1>")
//!         }))
//! })
//! .bind(("127.0.0.1", 3000))?
//! .run()
//! .await
//! # })
//! # }
//! ```
//!
//! Two rules:
//! - Build the [`BrowserAgent`] **outside** `HttpServer::new(|| …)`. That closure runs once per
//!   worker thread; an agent built inside it would give each worker its own log ring, page
//!   registry and page key, so logs sent to one worker would be invisible to another, and a page
//!   served by one worker would be refused by the next. [`BrowserAgentMiddleware::new`] takes the
//!   agent for that reason: create it once, and pass `agent.clone()` (a cheap handle) into the
//!   factory.
//! - `.wrap(Compress::default())` goes **after** `.wrap(BrowserAgentMiddleware::new(…))`. actix
//!   runs the last `wrap` first, so compression then sits outside our middleware, which sees the
//!   app's plain HTML. Compressed bodies are passed through untouched, so the other order would
//!   serve pages without the tag.
//!
//! ```
//! use actix_web::{middleware::Compress, test, web, App, HttpResponse};
//! use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
//!
//! # actix_web::rt::System::new().block_on(async {
//! let agent = BrowserAgent::builder().enabled(true).build();
//! let app = test::init_service(
//!     App::new()
//!         .wrap(BrowserAgentMiddleware::new(agent.clone()))
//!         .wrap(Compress::default())
//!         .route("/", web::get().to(|| async {
//!             HttpResponse::Ok().content_type("text/html").body("<!doctype html><head></head><h1>hi</h1>")
//!         })),
//! )
//! .await;
//! let req = test::TestRequest::get().uri("/").insert_header(("host", "127.0.0.1")).to_request();
//! let html = test::call_and_read_body(&app, req).await;
//! assert!(std::str::from_utf8(&html).unwrap().contains(r#"<head><script data-browser-agent="#));
//! # });
//! ```
//!
//! The adapter only translates: an actix request (method, URI, headers, and the body read up to
//! the agent's limit) becomes core's `http::Request<Bytes>`, and core's answer becomes an actix
//! response. Every route, limit and error message is core's. Keep the agent to read logs and pages
//! from Rust: [`BrowserAgentMiddleware::agent`]. This crate re-exports the app author's API of
//! `browser-agent-core` ([`BrowserAgent`], [`Batch`], [`LogQuery`], …), so it is the only
//! dependency an app needs.
//!
//! The README's install snippet, as written there:
//!
//! ```no_run
//! use actix_web::{middleware::Compress, web, App, HttpServer};
//! use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
//! # fn main() -> std::io::Result<()> {
//! # actix_web::rt::System::new().block_on(async {
//! let agent = BrowserAgent::builder().build();
//! HttpServer::new(move || {
//!     App::new()
//!         .wrap(BrowserAgentMiddleware::new(agent.clone()))
//!         .wrap(Compress::default()) // after ours, so it runs outside it
//!         .service(web::resource("/").to(|| async { "hi" }))
//! })
//! # .bind(("127.0.0.1", 3000))?.run().await
//! # })
//! # }
//! ```
//!
//! …and its "From Rust" calls:
//!
//! ```
//! use browser_agent_actix::{Batch, BrowserAgent, LogQuery};
//! # async fn from_rust(agent: BrowserAgent) -> Result<(), Box<dyn std::error::Error>> {
//! # let steps = Batch::from_json(br#"{"steps":[{"command":"snapshot"}]}"#)?.steps;
//! agent.logs().query(&LogQuery::parse(Some("level=error"))?);
//! agent.clients().all();
//! agent.run(Batch::new(steps)).await?;
//! agent.snapshot(None, false).await?.tree();
//! agent.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub, missing_debug_implementations)]

mod body;
mod convert;
mod future;
mod middleware;
mod ours;

pub use body::{AppBody, ResponseBody};
/// The app's `tracing` ERROR and WARN events as `server` entries: `agent.tracing_layer()` (feature `tracing`).
#[cfg(feature = "tracing")]
pub use browser_agent_core::TracingLayer;
/// The app author's API of [`browser_agent_core`], so this crate is the only dependency an app needs.
pub use browser_agent_core::{
    Batch, BatchResult, BrowserAgent, Builder, ClientRecord, ClientRegistry, Config, ConfigError, LogBuffer, LogEntry,
    LogQuery, OpenPages, PageSummary, QueryError, RunError, ServerStream, StepResult,
};
pub use future::ResponseFuture;
pub use middleware::{BrowserAgentMiddleware, BrowserAgentService};
