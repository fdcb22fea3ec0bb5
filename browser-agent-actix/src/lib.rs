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
/// The app author's API of [`browser_agent_core`] (its root), so this crate is the only
/// dependency an app needs. What an adapter author needs is in `browser_agent_core::adapter`.
pub use browser_agent_core::{
    Batch, BatchResult, BrowserAgent, BrowserAgentBuilder, ClientRecord, ClientRegistry, Comparison, Config,
    ConfigError, Counts, LogBuffer, LogEntry, LogQuery, Notes, OpenPages, PageSummary, Proof, ProofError, ProofOptions,
    ProofReport, ProofStatus, QueryError, RunError, Screenshot, ScreenshotOptions, Screenshots, ShotMode,
    SnapshotOptions, StepDiff, StepResult,
};
pub use future::ResponseFuture;
pub use middleware::{BrowserAgentMiddleware, BrowserAgentService};
