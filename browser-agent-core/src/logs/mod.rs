//! Browser logs: the stored [`LogEntry`], the bounded [`LogBuffer`] ring and its [`LogQuery`].

mod buffer;
mod entry;
mod ingest;
mod query;
pub(crate) mod redact;
mod server;
mod store;

pub use buffer::LogBuffer;
pub use entry::LogEntry;
pub(crate) use ingest::{normalize_plain, normalize_typed, Limits, RawEntry};
pub(crate) use query::type_list;
pub use query::{LogQuery, DEFAULT_LIMIT};
pub(crate) use redact::Redaction;
pub use server::{server_error_pattern, ServerStream, SERVER_ERROR_PATTERNS};
