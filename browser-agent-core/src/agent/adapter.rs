//! [`AdapterExt`]: what a framework or transport adapter calls on a [`BrowserAgent`], kept out of
//! its inherent methods (which are the app author's).

use std::time::Instant;

use bytes::Bytes;
use http::Request;
use serde_json::Value;

use super::BrowserAgent;
use crate::logs::{self, ServerStream};
use crate::routes::RouteFuture;
use crate::util;

mod sealed {
    /// Only [`BrowserAgent`](crate::BrowserAgent) implements [`AdapterExt`](super::AdapterExt).
    #[allow(unreachable_pub)]
    pub trait Sealed {}
    impl Sealed for crate::BrowserAgent {}
}

/// The plumbing an adapter (`browser-agent-tower`, `browser-agent-actix`, the CLI's proxy, a
/// test) calls on a [`BrowserAgent`]: which requests are ours and their answers, and what it sees
/// of the app (its answers, its dev server's output). An app author needs none of it. Sealed:
/// only `BrowserAgent` implements it.
///
/// ```
/// use browser_agent_core::adapter::AdapterExt;
/// use browser_agent_core::BrowserAgent;
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let agent = BrowserAgent::builder().enabled(true).build();
/// let req = http::Request::get("/__mindstudio_dev__/page")
///     .header("host", "127.0.0.1:3000")
///     .body(bytes::Bytes::new())
///     .unwrap();
/// assert!(agent.is_ours(req.uri().path()));
/// assert_eq!(agent.handle(req).await.unwrap().status(), 200);
/// # });
/// ```
pub trait AdapterExt: sealed::Sealed {
    /// Whether `path` is one of ours (prefix routes or `/browser/…`, and the OAuth metadata paths
    /// of the MCP endpoint, `/.well-known/…{prefix}/mcp`, answered 404 so MCP clients do not start
    /// an OAuth flow); false when disabled. Adapters send these to [`handle`](Self::handle) and
    /// everything else to the app.
    ///
    /// ```
    /// use browser_agent_core::adapter::AdapterExt;
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.is_ours("/__mindstudio_dev__/console"));
    /// assert!(agent.is_ours("/browser/probe"));
    /// assert!(agent.is_ours("/.well-known/oauth-protected-resource/__mindstudio_dev__/mcp"));
    /// assert!(!agent.is_ours("/.well-known/oauth-authorization-server"), "the app's own");
    /// assert!(!agent.is_ours("/__mindstudio_dev__x"));
    /// assert!(!agent.is_ours("/api/items"));
    /// ```
    fn is_ours(&self, path: &str) -> bool;

    /// Answers one of our requests (see [`is_ours`](Self::is_ours)), its body read whole. Never
    /// panics; every error is JSON. An adapter that streams the body uses
    /// [`BodyReader`](crate::adapter::BodyReader), which refuses on the head and stops at the limit.
    ///
    /// ```
    /// use browser_agent_core::adapter::AdapterExt;
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// let req = http::Request::get("/__mindstudio_dev__/nope")
    ///     .header("host", "127.0.0.1:3000")
    ///     .body(bytes::Bytes::new())
    ///     .unwrap();
    /// assert_eq!(agent.handle(req).await.unwrap().status(), 404);
    /// # });
    /// ```
    fn handle(&self, req: Request<Bytes>) -> RouteFuture;

    /// Records one answer of the app, as an adapter sees its head go out: a 5xx becomes a `server`
    /// entry at level `error`, `GET /api/items → 500 Internal Server Error (12 ms)`, with the
    /// fields `method`, `url` (the path and query the app got, redacted like every URL), `status`
    /// and `duration` (ms since `started`, the request's arrival). Anything else costs one
    /// comparison and is not stored; returns whether it was stored (never when the agent is
    /// disabled). The tower and actix adapters and the CLI's proxy call it for every answer of the
    /// app, never for our routes.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use browser_agent_core::{adapter::AdapterExt, BrowserAgent, LogQuery};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let started = Instant::now() - Duration::from_millis(12);
    /// assert!(!agent.record_response("GET", "/api/items", 200, started));
    /// assert!(!agent.record_response("GET", "/nope", 404, started));
    /// assert!(agent.record_response("POST", "/api/items?token=abc", 502, started));
    /// let entry = &agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap())[0];
    /// assert!(entry.text.starts_with("POST /api/items?token=[redacted] → 502 Bad Gateway ("), "{}", entry.text);
    /// assert_eq!((entry.field_str("method"), entry.fields["status"].as_u64()), (Some("POST"), Some(502)));
    /// assert!(entry.fields["duration"].as_u64().unwrap() >= 12);
    /// ```
    fn record_response(&self, method: &str, path: &str, status: u16, started: Instant) -> bool;

    /// Feeds one line of the dev server's output: a line that matches an error pattern is stored
    /// as a `server` entry at level `error`, with its `stream` and the matching `pattern`; returns
    /// whether it was stored. Read them with `GET {prefix}/console?type=server`.
    ///
    /// ```
    /// use browser_agent_core::adapter::{AdapterExt, ServerStream};
    /// use browser_agent_core::{BrowserAgent, LogQuery};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// assert!(!agent.server_log_line("  ➜  Local:   http://localhost:5173/", ServerStream::Stdout));
    /// assert!(agent.server_log_line("Error: listen EADDRINUSE: address already in use :::5173", ServerStream::Stderr));
    /// let q = LogQuery::parse(Some("type=server")).unwrap();
    /// let entry = &agent.logs().query(&q)[0];
    /// assert_eq!(entry.text, "Error: listen EADDRINUSE: address already in use :::5173");
    /// assert_eq!(entry.field_str("stream"), Some("stderr"));
    /// assert_eq!(entry.field_str("source"), Some("output"));
    /// ```
    fn server_log_line(&self, line: &str, stream: ServerStream) -> bool;

    /// Stores dsh-style `{t?, level?, text?}` items under `page` (the shape of `POST /browser/probe`),
    /// for tools and tests that feed entries without a page; returns how many were stored.
    ///
    /// ```
    /// use browser_agent_core::{adapter::AdapterExt, BrowserAgent, LogQuery};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// assert_eq!(agent.ingest_plain(&serde_json::json!({"level": "error", "text": "boom"}), ""), 1);
    /// assert_eq!(agent.logs().query(&LogQuery::all())[0].text, "boom");
    /// ```
    fn ingest_plain(&self, item: &Value, page: &str) -> usize;

    /// The client revision this host serves (the tag's `rev`).
    ///
    /// ```
    /// use browser_agent_core::adapter::AdapterExt;
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(!agent.client_rev().is_empty());
    /// ```
    fn client_rev(&self) -> &str;
}

impl AdapterExt for BrowserAgent {
    fn is_ours(&self, path: &str) -> bool {
        let inner = &self.inner;
        inner.config.enabled
            && (path.starts_with(&inner.probe_scope)
                || path.starts_with(&inner.prefix_slash)
                || path == inner.config.prefix
                || (path.starts_with(crate::protocol::mcp::WELL_KNOWN) && path.ends_with(&inner.mcp_path)))
    }

    fn handle(&self, req: Request<Bytes>) -> RouteFuture {
        self.answer(req)
    }

    #[inline]
    fn record_response(&self, method: &str, path: &str, status: u16, started: Instant) -> bool {
        self.app_response(method, path, status, started)
    }

    fn server_log_line(&self, line: &str, stream: ServerStream) -> bool {
        self.server_line(line, stream)
    }

    fn ingest_plain(&self, item: &Value, page: &str) -> usize {
        let now = util::now_ms();
        let entry = logs::normalize_plain(item, self.limits(), page, now);
        self.store(entry.into_iter().collect())
    }

    fn client_rev(&self) -> &str {
        &self.inner.tag_config.rev
    }
}
