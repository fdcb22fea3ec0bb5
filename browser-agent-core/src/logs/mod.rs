//! Browser logs: the stored [`LogEntry`], the bounded [`LogBuffer`] ring and its [`LogQuery`];
//! the dev server's side of the timeline (`server` entries: error lines, 5xx answers, panics, a
//! tailed log file, `tracing` events).

mod buffer;
mod entry;
mod ingest;
mod panic;
mod query;
pub(crate) mod redact;
mod server;
mod store;
mod tail;
#[cfg(feature = "tracing")]
mod tracing;

#[cfg(feature = "tracing")]
pub use self::tracing::TracingLayer;
pub use buffer::LogBuffer;
pub(crate) use entry::type_list;
pub use entry::LogEntry;
pub(crate) use ingest::{normalize_plain, normalize_typed, Limits, RawEntry};
pub use query::LogQuery;
pub(crate) use redact::Redaction;
pub use server::ServerStream;
