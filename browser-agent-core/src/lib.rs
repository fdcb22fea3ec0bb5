#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

pub mod protocol;
pub mod snapshot;

#[cfg(feature = "host")]
mod agent;
#[cfg(feature = "host")]
mod assets;
#[cfg(feature = "host")]
mod clients;
#[cfg(feature = "host")]
mod commands;
#[cfg(feature = "host")]
mod config;
#[cfg(feature = "host")]
mod error;
#[cfg(feature = "host")]
mod inject;
#[cfg(feature = "host")]
mod logs;
#[cfg(feature = "host")]
mod mcp;
#[cfg(feature = "host")]
mod notes;
/// Whether an agent is attached (pages then prefetch their hands).
#[cfg(feature = "host")]
mod presence;
#[cfg(feature = "host")]
mod proof;
#[cfg(feature = "host")]
mod routes;
#[cfg(feature = "host")]
mod screenshots;
#[cfg(feature = "host")]
mod security;
#[cfg(feature = "host")]
mod sinks;
#[cfg(feature = "host")]
mod stdio;
#[cfg(feature = "host")]
mod util;

#[cfg(feature = "host")]
pub use agent::{BrowserAgent, BrowserAgentBuilder, Notes, Proof, ScreenshotOptions, Screenshots, SnapshotOptions};
#[cfg(feature = "host")]
pub use clients::{ClientRecord, ClientRegistry};
#[cfg(feature = "host")]
pub use commands::{Batch, BatchResult, OpenPages, PageSummary, RunError};
#[cfg(feature = "host")]
pub use config::Config;
#[cfg(feature = "host")]
pub use error::{ConfigError, QueryError};
#[cfg(all(feature = "host", feature = "tracing"))]
pub use logs::TracingLayer;
#[cfg(feature = "host")]
pub use logs::{LogBuffer, LogEntry, LogQuery};
#[cfg(feature = "host")]
pub use proof::{Comparison, Counts, ProofError, ProofOptions, ProofReport, ProofStatus, ShotMode, StepDiff};
#[cfg(feature = "host")]
pub use protocol::StepResult;
#[cfg(feature = "host")]
pub use screenshots::Screenshot;

#[cfg(feature = "host")]
pub mod adapter {
    //! For adapter authors: what a framework adapter (like `browser-agent-tower` and
    //! `browser-agent-actix`) uses to answer our routes and to put the client tag into the app's
    //! pages. An app author needs none of it.
    //!
    //! - Our routes: [`AdapterExt::is_ours`] picks them, [`BodyReader`] reads their bodies up to
    //!   the limit (refusing early on the head) and answers through [`AdapterExt::handle`], whose
    //!   future is a [`RouteFuture`].
    //! - What the adapter sees of the app: [`AdapterExt::record_response`] for its answers,
    //!   [`AdapterExt::server_log_line`] for a dev server's output lines.
    //! - The app's pages: [`InjectExt::wants_injection`] decides on the request (any framework's,
    //!   through [`RequestHead`]), [`InjectExt::plan_injection`] on the response, and
    //!   [`InjectingStream`] places the tag while the body streams.
    //! - The embedded client: [`ClientAssets`].

    pub use crate::agent::AdapterExt;
    pub use crate::assets::{Asset, ClientAssets};
    pub use crate::inject::{gate, tag, InjectExt, InjectingStream, Injection, Injector, Output, RequestHead};
    pub use crate::logs::ServerStream;
    pub use crate::routes::{BodyReader, RouteFuture};
}
