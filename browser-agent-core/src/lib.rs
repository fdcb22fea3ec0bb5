#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

/// The wire contract between the page client and the host: every path, header, parameter, field
/// name and shape (the crate `browser-agent-protocol`, re-exported).
pub use browser_agent_protocol as protocol;
/// The snapshot grammar: render, parse, diff (`browser_agent_protocol::snapshot`, re-exported).
pub use browser_agent_protocol::snapshot;

mod agent;
mod assets;
mod clients;
mod commands;
mod config;
mod dialogs;
mod error;
mod inject;
mod logs;
mod mcp;
mod notes;
mod page_tools;
/// Whether an agent is attached (pages then prefetch their hands).
mod presence;
mod proof;
mod routes;
mod screenshots;
mod security;
mod sinks;
mod stdio;
mod util;

pub use agent::{BrowserAgent, BrowserAgentBuilder, Notes, Proof, ScreenshotOptions, Screenshots, SnapshotOptions};
pub use clients::{ClientRecord, ClientRegistry};
pub use commands::{Batch, BatchResult, OpenPages, PageSummary, RunError};
pub use config::Config;
pub use dialogs::{DialogPolicy, DialogRecord};
pub use error::{ConfigError, QueryError};
#[cfg(feature = "tracing")]
pub use logs::TracingLayer;
pub use logs::{LogBuffer, LogEntry, LogQuery};
pub use proof::{Comparison, Counts, ProofError, ProofOptions, ProofReport, ProofStatus, ShotMode, StepDiff};
pub use protocol::StepResult;
pub use screenshots::Screenshot;

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
