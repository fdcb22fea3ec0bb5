//! # browser-agent-tower
//!
//! [`BrowserAgentLayer`] gives a tower or axum dev server browser-agent in one line: our routes
//! (`/browser/probe`, `/__mindstudio_dev__/…`) are answered by [`browser_agent_core`], everything
//! else goes to your app, and every HTML document your app serves gets the client tag, streamed
//! in right after `<head>` without buffering the page.
//!
//! ```
//! use axum::{routing::get, Router};
//! use browser_agent_tower::BrowserAgentLayer;
//!
//! let app: Router = Router::new()
//!     .route("/", get(|| async { axum::response::Html("<!doctype html><head></head><h1>hi</h1>") }))
//!     .layer(BrowserAgentLayer::new()); // last, so it wraps every route and the fallback
//! ```
//!
//! Order matters twice:
//! - axum applies `.layer()` only to the routes added before it: call it last (or wrap the whole
//!   `Router` with [`BrowserAgentLayer::layer`](tower_layer::Layer::layer)).
//! - Put it *inside* compression (`.layer(BrowserAgentLayer::new()).layer(CompressionLayer::new())`):
//!   compressed bodies are passed through untouched, so a compression layer inside ours would turn
//!   injection off.
//!
//! Keep a handle to read logs and pages from Rust: [`BrowserAgentLayer::agent`]. This crate
//! re-exports the app author's API of `browser-agent-core` ([`BrowserAgent`], [`Batch`],
//! [`LogQuery`], …), so it is the only dependency an app needs.
//!
//! The README's install snippets, as written there:
//!
//! ```
//! # use axum::{routing::get, Router};
//! # async fn index() -> &'static str { "hi" }
//! use browser_agent_tower::BrowserAgentLayer;
//!
//! let app = Router::new()
//!     .route("/", get(index))
//!     // …your routes and fallback…
//!     .layer(BrowserAgentLayer::new()); // last, and inside any CompressionLayer
//! # let app: Router = app;
//! # use browser_agent_tower::BrowserAgent;
//!
//! let agent = BrowserAgent::builder().build();          // browser_agent_tower::BrowserAgent
//! let app = app.layer(BrowserAgentLayer::with_agent(agent.clone()));
//! # let _: Router = app;
//! ```
//!
//! …and its "From Rust" calls:
//!
//! ```
//! use browser_agent_tower::{Batch, BrowserAgent, LogQuery};
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
//!
//! …and its "Server errors" setup (`tracing_layer` needs this crate's `tracing` feature):
//!
//! ```
//! # #[cfg(feature = "tracing")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use browser_agent_tower::BrowserAgent;
//! use tracing_subscriber::layer::SubscriberExt;
//!
//! let agent = BrowserAgent::builder()
//!     .server_log_file("log/development.log") // a log file the server writes, followed
//!     .build();
//! agent.install_panic_hook(); // panics recorded, then the previous hook runs
//! let subscriber = tracing_subscriber::registry().with(agent.tracing_layer()); // feature "tracing"
//! tracing::subscriber::set_global_default(subscriber)?;
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "tracing"))]
//! # fn main() {}
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

mod body;
mod future;
mod layer;
mod ours;
mod service;

pub use body::ResponseBody;
/// The app's `tracing` ERROR and WARN events as `server` entries: `agent.tracing_layer()` (feature `tracing`).
#[cfg(feature = "tracing")]
pub use browser_agent_core::TracingLayer;
/// The app author's API of [`browser_agent_core`], so this crate is the only dependency an app needs.
pub use browser_agent_core::{
    Batch, BatchResult, BrowserAgent, Builder, ClientRecord, ClientRegistry, Config, ConfigError, LogBuffer, LogEntry,
    LogQuery, OpenPages, PageSummary, QueryError, RunError, ServerStream, StepResult,
};
pub use future::ResponseFuture;
pub use layer::BrowserAgentLayer;
pub use ours::answer;
pub use service::BrowserAgentService;
