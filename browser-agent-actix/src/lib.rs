#![doc = include_str!("../README.md")]
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
