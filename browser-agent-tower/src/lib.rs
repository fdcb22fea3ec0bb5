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
//! Keep a handle to read logs and pages from Rust: [`BrowserAgentLayer::agent`].
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

mod body;
mod future;
mod layer;
mod ours;
mod service;

pub use body::ResponseBody;
pub use browser_agent_core::BrowserAgent;
pub use future::ResponseFuture;
pub use layer::BrowserAgentLayer;
pub use service::BrowserAgentService;
