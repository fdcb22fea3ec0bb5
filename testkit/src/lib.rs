//! Test code shared by the suites (not published): what the conformance suite, the adapters'
//! loopback tests, the Chromium tests and the benchmarks need, written once.
//!
//! - [`http`]: the one HTTP/1.1 test client over raw sockets (async, blocking and keep-alive), with
//!   strict framing checks;
//! - [`axum_app`] and [`actix_app`]: the test app on each adapter (the demo's routes, the
//!   [`fixtures`], a folder of pages) and `spawn`, which serves it from its own thread
//!   ([`RunningServer`]);
//! - [`fixtures`]: `/fixtures/…` responses that exercise every injection rule (streamed, sized,
//!   Latin-1, compressed, 204/304/206, CSP nonce, …);
//! - [`Reply`]: a framework-free response both apps translate;
//! - [`conformance`]: the HTTP conformance suite, one `#[tokio::test]` per case for each adapter
//!   that instantiates it ([`conformance_suite!`]);
//! - [`tag_config`]: the config an injected page carries, read back from its HTML;
//! - [`flood`]: a log flood of concurrent senders, with the resident set sampled meanwhile;
//! - [`heap`]: the process's memory: a global allocator that counts the live heap (the one module
//!   with `unsafe`) and the resident set.
#![deny(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

pub mod actix_app;
pub mod axum_app;
pub mod conformance;
pub mod fixtures;
pub mod flood;
pub mod heap;
pub mod http;
mod reply;

pub use reply::Reply;

use browser_agent_core::protocol::TagConfig;
use browser_agent_examples::{demo, static_files};

/// The demo's routes as the test apps serve them: `GET /`, `GET /api/items`, `GET /api/fail`
/// (`POST /api/items` is [`add_item`]); `None` for other paths.
pub fn demo_route(path: &str) -> Option<Reply> {
    let json = "application/json";
    Some(match path {
        "/" => Reply::new(200, "text/html; charset=utf-8", demo::PAGE),
        "/api/items" => Reply::new(200, json, demo::items()),
        "/api/fail" => Reply::new(500, json, demo::FAIL),
        _ => return None,
    })
}

/// `POST /api/items`.
pub fn add_item(body: &[u8]) -> Reply {
    match demo::add_item(body) {
        Ok(items) => Reply::new(200, "application/json", items),
        Err(error) => Reply::new(400, "application/json", error),
    }
}

/// `/fixtures/{name}`, or the 404 page.
pub fn fixture_or_404(name: &str) -> Reply {
    fixtures::fixture(name).unwrap_or_else(|| not_found(&format!("/fixtures/{name}")))
}

/// A file of `dir` (when given) for `path`, or the 404 page.
pub fn file_or_404(dir: Option<&std::path::Path>, path: &str) -> Reply {
    match dir.and_then(|d| static_files::serve(d, path)) {
        Some((content_type, body)) => Reply::new(200, content_type, body),
        None => not_found(path),
    }
}

/// The demo's 404 page.
pub fn not_found(path: &str) -> Reply {
    Reply::new(404, "text/html; charset=utf-8", demo::not_found(path))
}

/// The tag config an injected page carries (`<script data-browser-agent='{…}'>`), read back from
/// its HTML as a tool would; panics when the page has no tag.
///
/// ```
/// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).page_key("tag-config-key-0001").build();
/// let tag = std::str::from_utf8(agent.tag()).unwrap();
/// assert_eq!(browser_agent_testkit::tag_config(tag).key, "tag-config-key-0001");
/// ```
pub fn tag_config(html: &str) -> TagConfig {
    const ATTR: &str = "data-browser-agent='";
    let start = html.find(ATTR).expect("tag present") + ATTR.len();
    let end = start + html[start..].find('\'').expect("the attribute ends");
    let attr = html[start..end]
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&amp;", "&");
    serde_json::from_str(&attr).expect("the tag config is JSON")
}

/// A test app running on its own thread: [`stop`](Self::stop) (or dropping it) ends it and every
/// connection at once, as a dev server's restart does. Both apps' `spawn` return it.
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
