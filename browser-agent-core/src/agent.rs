//! [`BrowserAgent`]: the cheap-to-clone handle over the host's shared state, and its [`Builder`].

use std::future::{poll_fn, Future};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Once};
use std::task::Poll;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use serde_json::Value;

use crate::assets::ClientAssets;
use crate::clients::ClientRegistry;
use crate::commands::{self, Batch, BatchResult, RunError};
use crate::config::{Config, DEFAULT_NDJSON_MAX_BYTES};
use crate::error::ConfigError;
use crate::inject::{gate, tag};
use crate::logs::{self, LogBuffer};
use crate::protocol::{self, TagConfig};
use crate::sinks::{self, ClientState, NdjsonSink};
use crate::util;

/// The host's shared state: log ring, page registry, configuration, page key. Clone it freely
/// (one `Arc`); every clone sees the same state, so create it once and hand clones to the layer,
/// to your handlers and to your agent-facing code.
///
/// ```
/// use browser_agent_core::{BrowserAgent, LogQuery};
/// let agent = BrowserAgent::builder().max_logs(100).enabled(true).build();
/// let handle = agent.clone();
/// agent.ingest_dsh(&serde_json::json!({"text": "hello"}), "");
/// assert_eq!(handle.logs().query(&LogQuery::default()).len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct BrowserAgent {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) config: Config,
    pub(crate) logs: LogBuffer,
    pub(crate) clients: ClientRegistry,
    pub(crate) commands: crate::commands::CommandQueue,
    pub(crate) key: String,
    pub(crate) assets: &'static ClientAssets,
    pub(crate) tag_config: TagConfig,
    pub(crate) plain_tag: Bytes,
    pub(crate) ndjson: Option<NdjsonSink>,
    pub(crate) restored: Option<ClientState>,
    pub(crate) probe_scope: String,
    pub(crate) prefix_slash: String,
}

/// Builds a [`BrowserAgent`]; every setting has the design's default.
///
/// ```
/// use browser_agent_core::BrowserAgent;
/// let agent = BrowserAgent::builder()
///     .prefix("/__agent")
///     .allow_host("devbox.local")
///     .page_key("0123456789abcdef")
///     .ndjson_file(std::env::temp_dir().join("browser.ndjson"))
///     .enabled(true)
///     .build();
/// assert_eq!(agent.config().prefix(), "/__agent");
/// assert!(BrowserAgent::builder().prefix("no-slash").try_build().is_err());
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct Builder {
    config: Config,
}

impl Builder {
    /// Turns the agent on or off. Default: on in debug builds, off in release builds (then every
    /// request passes through untouched).
    pub fn enabled(mut self, on: bool) -> Self {
        self.config.enabled = on;
        self
    }
    /// Entries kept in memory (default 500).
    pub fn max_logs(mut self, n: usize) -> Self {
        self.config.max_logs = n;
        self
    }
    /// Byte budget of the log ring (default 4 MiB).
    pub fn max_log_bytes(mut self, n: usize) -> Self {
        self.config.max_log_bytes = n;
        self
    }
    /// Cut for an entry's text, in chars (default 800).
    pub fn max_text(mut self, n: usize) -> Self {
        self.config.max_text = n;
        self
    }
    /// Cut for other string fields of an entry, in chars (default 4000).
    pub fn max_field(mut self, n: usize) -> Self {
        self.config.max_field = n;
        self
    }
    /// Liveness TTL of a page (default 60 s, [`protocol::CLIENT_TTL_MS`]).
    pub fn client_ttl(mut self, ttl: Duration) -> Self {
        self.config.client_ttl = ttl;
        self
    }
    /// Request body limit of our routes (default 1 MiB).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.config.body_limit = bytes;
        self
    }
    /// Page records kept (default 256).
    pub fn max_clients(mut self, n: usize) -> Self {
        self.config.max_clients = n;
        self
    }
    /// Route prefix (default `/__mindstudio_dev__`).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.config.prefix = prefix.into();
        self
    }
    /// Also answer requests addressed to this host (`name` or `name:port`), besides loopback.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.config.allowed_hosts.push(host.into());
        self
    }
    /// A fixed page key (at least 8 chars of `[A-Za-z0-9_-]`). Default: read from, or created in,
    /// a key file, so pages keep working across dev-server restarts.
    pub fn page_key(mut self, key: impl Into<String>) -> Self {
        self.config.page_key = Some(key.into());
        self
    }
    /// Where the page key is kept (default: `$TMPDIR/browser-agent/<hash of cwd and prefix>.key`).
    pub fn key_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.key_file = Some(path.into());
        self
    }
    /// Require `Authorization: Bearer <token>` on agent routes.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.config.bearer_token = Some(token.into());
        self
    }
    /// Also append every stored entry to this NDJSON file (e.g. `.logs/browser.ndjson`), rotated at 2 MiB.
    pub fn ndjson_file(self, path: impl Into<PathBuf>) -> Self {
        self.ndjson_file_rotated(path, DEFAULT_NDJSON_MAX_BYTES)
    }
    /// Like [`ndjson_file`](Self::ndjson_file) with a rotation size.
    pub fn ndjson_file_rotated(mut self, path: impl Into<PathBuf>, max_bytes: u64) -> Self {
        self.config.ndjson = Some((path.into(), max_bytes));
        self
    }
    /// Persist the heartbeat state `{lastSeenAt, page}` to this file (atomic writes).
    pub fn state_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.state_file = Some(path.into());
        self
    }
    /// The app's URL, named when a batch finds no page (`No browser connected: open URL in a browser`).
    pub fn app_url(mut self, url: impl Into<String>) -> Self {
        self.config.app_url = Some(url.into());
        self
    }
    /// Show the agent cursor even when the page is not in an iframe.
    pub fn cursor(mut self, on: bool) -> Self {
        self.config.cursor = on;
        self
    }

    /// Builds the agent, or says which setting is invalid.
    pub fn try_build(self) -> Result<BrowserAgent, ConfigError> {
        let config = self.config;
        config.validate()?;
        if !config.enabled {
            static NOTICE: Once = Once::new();
            NOTICE.call_once(|| {
                eprintln!("browser-agent: disabled (release build); every request passes through untouched. Enable it with BrowserAgent::builder().enabled(true).");
            });
        }
        let key = config.page_key.clone().unwrap_or_else(|| load_or_create_key(&config));
        let assets = ClientAssets::embedded();
        let asset_url = |a: &Option<crate::assets::Asset>| {
            a.as_ref()
                .map(|a| format!("{}{}{}", config.prefix, protocol::ASSETS_DIR, a.name))
                .unwrap_or_default()
        };
        let tag_config = TagConfig {
            key: key.clone(),
            prefix: config.prefix.clone(),
            rev: assets.rev.clone(),
            client: asset_url(&assets.js),
            wasm: asset_url(&assets.wasm),
            cursor: config.cursor,
        };
        let restored = config.state_file.as_deref().and_then(sinks::load_client_state);
        Ok(BrowserAgent {
            inner: Arc::new(Inner {
                logs: LogBuffer::new(config.max_logs, config.max_log_bytes),
                clients: ClientRegistry::new(config.max_clients, config.client_ttl.as_millis() as u64),
                commands: Default::default(),
                plain_tag: tag::build_tag(&tag_config, None),
                ndjson: config.ndjson.as_ref().map(|(p, max)| NdjsonSink::new(p.clone(), *max)),
                prefix_slash: format!("{}/", config.prefix),
                probe_scope: protocol::PROBE_SCOPE.to_owned(),
                key,
                assets,
                tag_config,
                restored,
                config,
            }),
        })
    }

    /// Builds the agent; panics with the reason on an invalid setting (see [`try_build`](Self::try_build)).
    pub fn build(self) -> BrowserAgent {
        match self.try_build() {
            Ok(agent) => agent,
            Err(err) => panic!("browser-agent: {err}"),
        }
    }
}

/// Reads the key file, or creates it with a fresh random key; a random key if neither works.
fn load_or_create_key(config: &Config) -> String {
    let path = config.key_file.clone().unwrap_or_else(|| {
        let cwd = std::env::current_dir().unwrap_or_default();
        let id = util::fnv1a64(&[cwd.as_os_str().as_encoded_bytes(), config.prefix.as_bytes()]);
        std::env::temp_dir()
            .join("browser-agent")
            .join(format!("{id:016x}.key"))
    });
    if let Ok(existing) = std::fs::read_to_string(&path) {
        let existing = existing.trim();
        if existing.len() >= 16 && existing.bytes().all(|b| b.is_ascii_hexdigit()) {
            return existing.to_owned();
        }
    }
    let key = util::random_hex(16);
    if sinks::write_atomic(&path, key.as_bytes()).is_ok() {
        restrict_permissions(&path);
    }
    key
}

#[cfg(unix)]
fn restrict_permissions(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
}
#[cfg(not(unix))]
fn restrict_permissions(_: &std::path::Path) {}

/// What to do with a response the app produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injection {
    /// Leave it alone.
    None,
    /// Its headers were adjusted (HEAD: `Content-Length` grew); the body stays as it is.
    HeadersOnly,
    /// Stream the body through an [`Injector`](crate::inject::Injector) with this tag.
    Body(Bytes),
}

impl Default for BrowserAgent {
    fn default() -> Self {
        BrowserAgent::new()
    }
}

impl BrowserAgent {
    /// An agent with every default (enabled in debug builds).
    pub fn new() -> Self {
        Builder::default().build()
    }

    /// A builder with every default.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Whether the agent is active.
    pub fn enabled(&self) -> bool {
        self.inner.config.enabled
    }

    /// The log ring.
    pub fn logs(&self) -> &LogBuffer {
        &self.inner.logs
    }

    /// The page registry.
    pub fn clients(&self) -> &ClientRegistry {
        &self.inner.clients
    }

    /// The page key the injected tag carries.
    pub fn page_key(&self) -> &str {
        &self.inner.key
    }

    /// The client revision this host serves.
    pub fn client_rev(&self) -> &str {
        &self.inner.tag_config.rev
    }

    /// Whether `path` is one of ours (prefix routes or `/browser/…`); false when disabled.
    /// Adapters send these to [`BrowserAgent::handle`] and everything else to the app.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.is_ours("/__mindstudio_dev__/console"));
    /// assert!(agent.is_ours("/browser/probe"));
    /// assert!(!agent.is_ours("/__mindstudio_dev__x"));
    /// assert!(!agent.is_ours("/api/items"));
    /// ```
    pub fn is_ours(&self, path: &str) -> bool {
        let inner = &self.inner;
        inner.config.enabled
            && (path.starts_with(&inner.probe_scope)
                || path.starts_with(&inner.prefix_slash)
                || path == inner.config.prefix)
    }

    /// Whether a request for a page may get the client tag (method, fetch headers, and a Host we answer;
    /// a page served to another Host must not carry the key).
    pub fn wants_injection(&self, method: &Method, parts_headers: &HeaderMap, uri: &http::Uri) -> bool {
        if !self.enabled() || !gate::request_wants_injection(method, parts_headers) {
            return false;
        }
        crate::security::check_host(parts_headers, uri, &self.inner.config.allowed_hosts).is_ok()
    }

    /// [`wants_injection`](Self::wants_injection) for adapters whose request types are not
    /// `http` 1.x's: the method name, the headers as (lower-case name, value) pairs, and the
    /// authority the request was sent to (its `Host` header, else its URI's). Nothing is copied.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// let headers = [("sec-fetch-dest", &b"document"[..])];
    /// assert!(agent.wants_injection_from("GET", headers, Some(b"127.0.0.1:3000")));
    /// assert!(!agent.wants_injection_from("GET", headers, Some(b"evil.example")));
    /// assert!(!agent.wants_injection_from("POST", headers, Some(b"localhost")));
    /// ```
    pub fn wants_injection_from<'a>(
        &self,
        method: &str,
        headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
        authority: Option<&[u8]>,
    ) -> bool {
        self.enabled()
            && gate::request_wants_injection_from(method == "GET" || method == "HEAD", headers)
            && authority.is_some_and(|a| crate::security::host_allowed(a, &self.inner.config.allowed_hosts))
    }

    /// Decides injection for a response to a request that [`wants_injection`](Self::wants_injection),
    /// adjusting its headers (`Content-Length` grows by the tag; `ETag` and `Accept-Ranges` go).
    /// `body_len` is the body's exact length when the adapter knows it (a sized body without a
    /// `Content-Length` header): it lets a `HEAD` answer announce the same length as `GET`.
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, Injection};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let mut headers = http::HeaderMap::new();
    /// headers.insert("content-type", "text/html".parse().unwrap());
    /// let plan = agent.plan_injection(http::StatusCode::OK, &mut headers, true, Some(100));
    /// assert_eq!(plan, Injection::HeadersOnly);
    /// assert_eq!(headers["content-length"], (100 + agent.tag().len()).to_string());
    /// ```
    pub fn plan_injection(
        &self,
        status: StatusCode,
        headers: &mut HeaderMap,
        is_head: bool,
        body_len: Option<u64>,
    ) -> Injection {
        let Some(length) = gate::response_accepts_injection(status, headers) else {
            return Injection::None;
        };
        let length = length.or(body_len);
        let tag = match gate::csp_nonce(headers) {
            Some(nonce) => tag::build_tag(&self.inner.tag_config, Some(&nonce)),
            None => self.inner.plain_tag.clone(),
        };
        if let Some(length) = length {
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length + tag.len() as u64));
        }
        headers.remove(header::ETAG);
        headers.remove(header::ACCEPT_RANGES);
        if is_head {
            Injection::HeadersOnly
        } else {
            Injection::Body(tag)
        }
    }

    /// The tag injected into pages without a CSP nonce.
    pub fn tag(&self) -> &Bytes {
        &self.inner.plain_tag
    }

    /// Stores dsh-style `{t?, level?, text?}` items under `page` (from Rust code, tests, or tools).
    pub fn ingest_dsh(&self, item: &Value, page: &str) -> usize {
        let now = util::now_ms();
        let entry = logs::normalize_dsh(item, self.limits(), page, now);
        self.store(entry.into_iter().collect())
    }

    pub(crate) fn limits(&self) -> logs::Limits {
        let c = &self.inner.config;
        logs::Limits {
            max_text: c.max_text,
            max_field: c.max_field,
            max_page: crate::config::PAGE_MAX,
        }
    }

    /// Stores entries (already normalized and de-duplicated) in the ring and the sinks.
    pub(crate) fn store(&self, entries: Vec<crate::LogEntry>) -> usize {
        let n = entries.len();
        if n == 0 {
            return 0;
        }
        match &self.inner.ndjson {
            None => {
                self.inner.logs.push_many(entries);
            }
            Some(sink) => {
                let first = self.inner.logs.push_many(entries.clone());
                let stored: Vec<_> = entries
                    .into_iter()
                    .zip(first..)
                    .map(|(mut e, seq)| {
                        e.seq = seq;
                        e
                    })
                    .collect();
                sink.write(&stored);
            }
        }
        n
    }

    /// [`store`](Self::store) that gives back the stored entries (with their `seq`).
    pub(crate) fn store_shared(&self, entries: Vec<crate::LogEntry>) -> Vec<Arc<crate::LogEntry>> {
        if entries.is_empty() {
            return Vec::new();
        }
        let stored = self.inner.logs.push_many_shared(entries);
        if let Some(sink) = &self.inner.ndjson {
            let copies: Vec<crate::LogEntry> = stored.iter().map(|e| (**e).clone()).collect();
            sink.write(&copies);
        }
        stored
    }

    /// Runs a batch of steps in a page and waits for its result: the default page (the most
    /// recently active visible one that polls for commands) or `batch.client`. Batches for one page
    /// run one at a time, in order; a batch that times out is removed and never runs later.
    ///
    /// ```
    /// use browser_agent_core::{commands::{Batch, RunError}, BrowserAgent};
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let err = agent.run(Batch::new(vec![serde_json::json!({"command": "snapshot"})])).await.unwrap_err();
    /// assert!(matches!(err, RunError::NoBrowser(_)));
    /// assert!(err.to_string().starts_with("No browser connected: open"));
    /// # });
    /// ```
    pub async fn run(&self, batch: Batch) -> Result<BatchResult, RunError> {
        self.run_with_hint(batch, None).await
    }

    /// Takes a snapshot of a page (`diff`: only what changed since that page's previous snapshot).
    pub async fn snapshot(&self, client: Option<&str>, diff: bool) -> Result<BatchResult, RunError> {
        let mut batch = Batch::new(vec![serde_json::json!({"command": "snapshot", "diff": diff})]);
        batch.client = client.map(str::to_owned);
        self.run(batch).await
    }

    pub(crate) async fn run_with_hint(&self, batch: Batch, origin: Option<String>) -> Result<BatchResult, RunError> {
        let diff_steps = commands::validate_steps(&batch.steps)?;
        let now = util::now_ms();
        let clients = &self.inner.clients;
        let client = match &batch.client {
            Some(id) => match clients.get(id) {
                Some(r) if r.gone => return Err(RunError::PageClosed(id.clone(), self.open_pages_hint(now))),
                Some(r) if clients.is_alive(&r, now) => r.client_id,
                _ => return Err(RunError::UnknownPage(id.clone(), self.open_pages_hint(now))),
            },
            None => match clients.default_target(now) {
                Some(r) => r.client_id,
                None => {
                    let origin = origin
                        .or_else(|| self.inner.config.app_url.clone())
                        .or_else(|| clients.most_recent().and_then(|r| page_origin(&r.page)));
                    return Err(RunError::NoBrowser(origin.unwrap_or_else(|| "your app".into())));
                }
            },
        };
        let queue = &self.inner.commands;
        let commands::Ticket { id, mut rx, changed } =
            queue.enqueue(&client, &batch.steps, diff_steps, batch.timeout)?;
        // If the caller stops waiting (timeout, or its HTTP request went away), the batch goes too.
        struct Abandon<'a>(&'a crate::commands::CommandQueue, &'a str);
        impl Drop for Abandon<'_> {
            fn drop(&mut self) {
                self.0.abandon(self.1);
            }
        }
        let _guard = Abandon(queue, &id);
        // The page may have said it left between the look-up above and the enqueue.
        if clients.is_gone(&client) {
            self.fail_batches_of_gone_page(&client);
        }
        let overall = Instant::now() + batch.timeout;
        let timeout_ms = batch.timeout.as_millis() as u64;
        loop {
            // The batch's own timeout, or an earlier end the queue set (its page left).
            let deadline = queue.deadline(&id).map_or(overall, |d| d.min(overall));
            let mut changed = std::pin::pin!(changed.notified());
            let outcome = poll_fn(|cx| {
                if let Poll::Ready(outcome) = Pin::new(&mut rx).poll(cx) {
                    return Poll::Ready(Some(outcome));
                }
                changed.as_mut().poll(cx).map(|()| None)
            });
            match tokio::time::timeout_at(deadline.into(), outcome).await {
                Ok(Some(Ok(outcome))) => return outcome,
                Ok(Some(Err(_))) => return Err(RunError::Timeout(timeout_ms)),
                Ok(None) => {}
                Err(_) => {
                    if let Some(err) = queue.expire(&id, deadline, overall, timeout_ms) {
                        return Err(err);
                    }
                }
            }
        }
    }

    /// Page `client` said it left (`POST {prefix}/logs?gone=1`): it is no longer alive nor a default
    /// target, and the batches queued for it fail now.
    pub(crate) fn page_gone(&self, client: &str) {
        self.inner.clients.mark_gone(client, util::now_ms());
        self.fail_batches_of_gone_page(client);
    }

    fn fail_batches_of_gone_page(&self, client: &str) {
        let now = util::now_ms();
        let page = self.inner.clients.page_of(client).unwrap_or_default();
        let named = if page.is_empty() {
            format!("{client:?}")
        } else {
            format!("{client:?} ({page})")
        };
        let queued = format!(
            "The page with client id {named} was closed or navigated away before this batch ran. {}",
            self.open_pages_hint(now)
        );
        let running = format!(
            "The page with client id {named} was closed or navigated away while it ran this batch, and sent no results within {} s. {}",
            commands::GONE_GRACE.as_secs(),
            self.open_pages_hint(now)
        );
        self.inner
            .commands
            .page_gone(client, &queued, &running, commands::GONE_GRACE);
    }

    /// A heartbeat or a poll from `client`, which said it left before: it is back (the
    /// back/forward cache restored it), so the batch it was running waits for its results again.
    pub(crate) fn page_back(&self, client: &str) {
        self.inner.commands.page_back(client);
    }

    fn open_pages_hint(&self, now: u64) -> String {
        let clients = &self.inner.clients;
        let open: Vec<String> = clients
            .all()
            .into_iter()
            .filter(|r| clients.is_alive(r, now))
            .take(10)
            .map(|r| format!("{:?} ({})", r.client_id, r.page))
            .collect();
        if open.is_empty() {
            "No page is connected.".into()
        } else {
            format!("Open pages: {}", open.join(", "))
        }
    }
}

/// `http://host:port/` of a page URL.
fn page_origin(page: &str) -> Option<String> {
    let (scheme, rest) = page.split_once("://")?;
    let host = rest.split(['/', '?', '#', ' ']).next()?;
    (!host.is_empty()).then(|| format!("{scheme}://{host}/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::Heartbeat;
    use serde_json::json;

    fn agent_with_page(client: &str) -> BrowserAgent {
        let agent = BrowserAgent::builder().enabled(true).page_key("agent-test-key").build();
        let now = util::now_ms();
        let hb = Heartbeat {
            client: client.into(),
            page: format!("http://127.0.0.1/{client}"),
            visible: Some(true),
            ..Default::default()
        };
        agent.clients().heartbeat(&hb, now);
        agent.clients().touch_poll(client, now);
        agent
    }

    #[tokio::test]
    async fn batches_for_a_page_that_left_fail_without_waiting_for_their_timeout() {
        let agent = agent_with_page("p");
        let batch = || Batch::new(vec![json!({"command": "snapshot"})]).timeout(Duration::from_secs(300));
        let queue_of_p = |n: usize| {
            let agent = agent.clone();
            async move {
                while agent.inner.commands.queued_len("p") != n {
                    tokio::task::yield_now().await;
                }
            }
        };
        let running = tokio::spawn({
            let agent = agent.clone();
            async move { agent.run(batch()).await }
        });
        queue_of_p(1).await;
        assert!(
            agent.inner.commands.take("p", None).is_some(),
            "the page runs the first batch"
        );
        let queued = tokio::spawn({
            let agent = agent.clone();
            async move { agent.run(batch()).await }
        });
        queue_of_p(1).await;
        agent.page_gone("p");
        let err = queued.await.unwrap().unwrap_err();
        assert!(
            matches!(&err, RunError::PageLeft { message, .. } if message.contains("\"p\" (http://127.0.0.1/p) was closed or navigated away before this batch ran")),
            "{err}"
        );
        // The running one gets the grace in which the page's results may still arrive, then fails
        // with what happened instead of the 300 s timeout.
        let err = running.await.unwrap().unwrap_err();
        assert!(err.to_string().contains("while it ran this batch"), "{err}");
        // Named explicitly, the page fails at once and is not listed as open.
        let err = agent.run(batch().client("p")).await.unwrap_err();
        assert_eq!(err, RunError::PageClosed("p".into(), "No page is connected.".into()));
        assert!(matches!(agent.run(batch()).await, Err(RunError::NoBrowser(_))));
    }
}
