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

/// A demo server running on its own thread: [`stop`](Self::stop) (or dropping it) ends it and
/// every connection at once, as a dev server's restart does. Both demos' `spawn` return it.
pub struct RunningServer {
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    stop: Option<Box<dyn FnOnce() + Send>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl RunningServer {
    /// A server on `addr` served by `thread`, which `stop` tells to end.
    pub(crate) fn new(
        addr: std::net::SocketAddr,
        stop: impl FnOnce() + Send + 'static,
        thread: std::thread::JoinHandle<()>,
    ) -> Self {
        RunningServer {
            addr,
            stop: Some(Box::new(stop)),
            thread: Some(thread),
        }
    }

    /// Stops the server and waits for its thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}
