#![doc = include_str!("../README.md")]
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
/// The app author's API of [`browser_agent_core`] (its root), so this crate is the only
/// dependency an app needs. What an adapter author needs is in `browser_agent_core::adapter`.
pub use browser_agent_core::{
    Batch, BatchResult, BrowserAgent, BrowserAgentBuilder, ClientRecord, ClientRegistry, Comparison, Config,
    ConfigError, Counts, LogBuffer, LogEntry, LogQuery, Notes, OpenPages, PageSummary, Proof, ProofError, ProofOptions,
    ProofReport, ProofStatus, QueryError, RunError, Screenshot, ScreenshotOptions, Screenshots, ShotMode,
    SnapshotOptions, StepDiff, StepResult,
};
pub use future::ResponseFuture;
pub use layer::BrowserAgentLayer;
pub use service::BrowserAgentService;

pub mod adapter {
    //! For tools that route requests themselves (the `browser-agent` CLI's proxy) and reuse this
    //! crate's body handling: an app author needs none of it.
    pub use crate::ours::answer;
}
