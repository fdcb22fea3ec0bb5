//! Demo dev servers with browser-agent injected, shared by `cargo run --example axum_demo` and
//! `cargo run --example actix_demo`, the conformance suite and the browser tests.
//!
//! Both demos serve the same things, defined here once, framework-free:
//! - [`demo`]: the demo page (a form, buttons, a list, a fetch that fails on purpose, console output)
//!   and its small JSON API;
//! - [`fixtures`]: `/fixtures/…` responses that exercise every injection rule (streamed, sized,
//!   Latin-1, compressed, 204/304/206, CSP nonce, …);
//! - [`static_files`]: `--dir PATH` serves a folder, so any page can be tried with the agent.

pub mod actix_demo;
pub mod axum_demo;
pub mod cli;
pub mod demo;
pub mod fixtures;
pub mod static_files;

/// A framework-free response: the demos translate it into axum's or actix's.
#[derive(Debug, Clone)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// Headers, in order.
    pub headers: Vec<(&'static str, String)>,
    /// Body chunks; `streamed` says whether they go out as a stream (no length) or as one sized body.
    pub chunks: Vec<bytes::Bytes>,
    /// Send the chunks as a stream of unknown length.
    pub streamed: bool,
}

impl Reply {
    /// A sized reply.
    pub fn new(status: u16, content_type: &str, body: impl Into<bytes::Bytes>) -> Reply {
        Reply {
            status,
            headers: vec![("content-type", content_type.to_owned())],
            chunks: vec![body.into()],
            streamed: false,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }
}
