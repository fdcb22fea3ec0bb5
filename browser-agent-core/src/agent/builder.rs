//! [`BrowserAgentBuilder`]: every setting of a [`BrowserAgent`] with its default, validated once at build,
//! and the page key file.

use std::path::PathBuf;
use std::sync::{Arc, Once};
use std::time::Duration;

use super::{BrowserAgent, Inner};
use crate::assets::ClientAssets;
use crate::clients::ClientRegistry;
use crate::config::{parse_shortcut, Config, DEFAULT_NDJSON_MAX_BYTES};
use crate::error::ConfigError;
use crate::inject::tag;
use crate::logs::LogBuffer;
use crate::protocol::{self, TagConfig};
use crate::sinks::{self, NdjsonSink};
use crate::util;

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
pub struct BrowserAgentBuilder {
    config: Config,
    server_log: Option<PathBuf>,
    ndjson_rotate: Option<u64>,
}

impl Default for BrowserAgent {
    fn default() -> Self {
        BrowserAgent::new()
    }
}

impl BrowserAgent {
    /// An agent with every default (enabled in debug builds).
    pub fn new() -> Self {
        BrowserAgentBuilder::default().build()
    }

    /// A builder with every default.
    pub fn builder() -> BrowserAgentBuilder {
        BrowserAgentBuilder::default()
    }
}

impl BrowserAgentBuilder {
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
    /// Time within which the body of a request to our routes must have arrived (default 10 s);
    /// after it the answer is a 408, so a stalled upload holds no memory or connection for long.
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.config.body_timeout = timeout;
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
    /// Also answer requests addressed to this host (`name` or `name:port`), besides loopback. An
    /// empty one is refused by [`try_build`](Self::try_build).
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, ConfigError};
    /// let agent = BrowserAgent::builder().allow_host("devbox.local").build();
    /// # let _ = agent;
    /// let empty = BrowserAgent::builder().allow_host("").try_build();
    /// assert_eq!(empty.unwrap_err(), ConfigError::EmptyHost);
    /// ```
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.config.allowed_hosts.push(host.into());
        self
    }
    /// Also answer MCP requests that carry this `Origin` (`scheme://host[:port]`, `:*` for any
    /// port). By default the MCP endpoint refuses every request with an `Origin`: MCP clients are
    /// not browsers, so one that sends it is a web page (or a browser-based inspector, e.g.
    /// `http://localhost:6274` for MCP Inspector's direct mode).
    ///
    /// ```
    /// use browser_agent_core::adapter::AdapterExt;
    /// use browser_agent_core::BrowserAgent;
    /// let agent = BrowserAgent::builder().enabled(true).mcp_allow_origin("http://localhost:6274").build();
    /// assert!(agent.is_ours("/__mindstudio_dev__/mcp"));
    /// ```
    pub fn mcp_allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.config.mcp_origins.push(origin.into());
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
    /// Require `Authorization: Bearer <token>` on agent routes (the scheme in any case). An empty
    /// token is refused by [`try_build`](Self::try_build): it would refuse every request.
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, ConfigError};
    /// let agent = BrowserAgent::builder().bearer_token("s3cret-t0ken").build();
    /// # let _ = agent;
    /// let empty = BrowserAgent::builder().bearer_token("").try_build();
    /// assert_eq!(empty.unwrap_err(), ConfigError::EmptyToken);
    /// ```
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.config.bearer_token = Some(token.into());
        self
    }
    /// Also append every stored entry to this NDJSON file (e.g. `.logs/browser.ndjson`), rotated at
    /// 2 MiB unless [`ndjson_rotate_at`](Self::ndjson_rotate_at) says otherwise.
    ///
    /// ```
    /// let file = std::env::temp_dir().join(format!("ba-doc-{}.ndjson", std::process::id()));
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).ndjson_file(&file).build();
    /// # drop(agent); let _ = std::fs::remove_file(file);
    /// ```
    pub fn ndjson_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.ndjson = Some((path.into(), DEFAULT_NDJSON_MAX_BYTES));
        self
    }
    /// The size at which the [`ndjson_file`](Self::ndjson_file) rotates (default 2 MiB), in either
    /// order with it; without an NDJSON file it does nothing.
    ///
    /// ```
    /// let file = std::env::temp_dir().join(format!("ba-doc-rot-{}.ndjson", std::process::id()));
    /// let agent = browser_agent_core::BrowserAgent::builder()
    ///     .enabled(true)
    ///     .ndjson_file(&file)
    ///     .ndjson_rotate_at(64 * 1024)
    ///     .build();
    /// # drop(agent); let _ = std::fs::remove_file(file);
    /// ```
    pub fn ndjson_rotate_at(mut self, bytes: u64) -> Self {
        self.ndjson_rotate = Some(bytes);
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
    /// Whether secrets are replaced with `[redacted]` in log entries before they are stored in the
    /// ring or written to the NDJSON file (default: on). Redacted: the values of query and form
    /// parameters and of JSON keys whose names look secret (`token`, `access_token`, `api_key`,
    /// `password`, `secret`, `session`, `sig`, `key` and `code` as parameters, …), `Bearer …` and
    /// `Basic …` credentials, and JWT-shaped strings.
    ///
    /// ```
    /// use browser_agent_core::adapter::AdapterExt;
    /// use browser_agent_core::{BrowserAgent, LogQuery};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// agent.ingest_plain(&serde_json::json!({"text": "GET /cb?code=4/0AY0e&state=x"}), "http://127.0.0.1/");
    /// assert_eq!(agent.logs().query(&LogQuery::default())[0].text, "GET /cb?code=[redacted]&state=x");
    /// let raw = BrowserAgent::builder().enabled(true).redact(false).build();
    /// raw.ingest_plain(&serde_json::json!({"text": "GET /cb?code=4/0AY0e&state=x"}), "http://127.0.0.1/");
    /// assert_eq!(raw.logs().query(&LogQuery::default())[0].text, "GET /cb?code=4/0AY0e&state=x");
    /// ```
    pub fn redact(mut self, on: bool) -> Self {
        self.config.redaction.on = on;
        self
    }

    /// More names whose values are redacted, as query or form parameters and as JSON keys
    /// (compared without case and without `_`, `-`, `.`): `.redact_names(["tenant_id"])`.
    pub fn redact_names<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let extra = &mut self.config.redaction.extra;
        extra.extend(names.into_iter().map(|n| crate::logs::redact::normalize(n.as_ref())));
        extra.retain(|n| !n.is_empty());
        self
    }
    /// Lets a page framed by `origin` (`https://notes.example`: an IDE or notes app that embeds
    /// the dev server) be the default target; a page in a frame of any other origin is listed
    /// with its parent's origin (`parentOrigin`) but is a target only when the agent names it.
    pub fn allow_frame_parent(mut self, origin: impl Into<String>) -> Self {
        self.config.frame_parents.push(origin.into());
        self
    }
    /// How many screenshots the host keeps (default 64; the oldest is evicted first).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().max_screenshots(8).build();
    /// # let _ = agent;
    /// ```
    pub fn max_screenshots(mut self, n: usize) -> Self {
        self.config.max_screenshots = n;
        self
    }
    /// How many bytes of screenshots the host keeps (default 64 MiB; the oldest is evicted first).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().max_screenshot_bytes(8 << 20).build();
    /// # let _ = agent;
    /// ```
    pub fn max_screenshot_bytes(mut self, bytes: usize) -> Self {
        self.config.max_screenshot_bytes = bytes;
        self
    }
    /// The largest screenshot a page may upload (default 16 MiB); a bigger one is refused with 413.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().screenshot_upload_limit(4 << 20).build();
    /// assert_eq!(agent.config().screenshot_upload_limit(), 4 << 20);
    /// ```
    pub fn screenshot_upload_limit(mut self, bytes: usize) -> Self {
        self.config.screenshot_upload_limit = bytes;
        self
    }
    /// Also write every screenshot into this folder (`{id}-{epoch ms}.{png|jpg}`, each file
    /// written under a temporary name and renamed when whole).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().screenshot_dir("target/shots").build();
    /// # let _ = agent;
    /// ```
    pub fn screenshot_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.screenshot_dir = Some(dir.into());
        self
    }
    /// The folder proof sessions are written under (default `.browser-agent/proof` in the working
    /// directory); a session's own `dir` is taken relative to this folder's parent.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().proof_dir("target/proof").build();
    /// # let _ = agent;
    /// ```
    pub fn proof_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.proof_dir = Some(dir.into());
        self
    }
    /// The folder the `upload` step reads files under (default: the working directory): a path
    /// in a step is taken relative to it, and one that leads outside it (`..`, an absolute path
    /// elsewhere, a symlink) is refused with a 403.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().project_root(".").build();
    /// # let _ = agent;
    /// ```
    pub fn project_root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.project_root = Some(dir.into());
        self
    }
    /// The default snapshot budget of this host's pages, in tokens (default
    /// [`SNAPSHOT_BUDGET`](crate::protocol::SNAPSHOT_BUDGET), 8,000): a snapshot without its own
    /// `budget` (and the final snapshot of every batch) cuts long runs of siblings past it, with a
    /// line that says how to get them. A step's `budget` or `full` still wins. Less than
    /// [`SNAPSHOT_BUDGET_MIN`](crate::protocol::SNAPSHOT_BUDGET_MIN) fails the build
    /// ([`ConfigError::SnapshotBudget`]).
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, ConfigError};
    /// let agent = BrowserAgent::builder().snapshot_budget(2_000).build();
    /// assert_eq!(agent.config().snapshot_budget(), 2_000);
    /// assert!(matches!(BrowserAgent::builder().snapshot_budget(10).try_build(), Err(ConfigError::SnapshotBudget(10))));
    /// ```
    pub fn snapshot_budget(mut self, tokens: u32) -> Self {
        self.config.snapshot_budget = tokens;
        self
    }
    /// Notes mode in pages (default: on): the developer points at the page (a click pins a note,
    /// a drag marks an area) and writes what they mean; the agent reads the notes with the
    /// elements they point at ([`BrowserAgent::notes`]). Off: no shortcut, no parent-frame
    /// messages, the `notes` step fails.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().notes(false).build();
    /// assert!(!agent.config().notes());
    /// ```
    pub fn notes(mut self, on: bool) -> Self {
        self.config.notes = on;
        self
    }
    /// The keyboard shortcut that enters and leaves notes mode in a plain tab (default
    /// `Alt+Shift+N`); modifiers `Control`, `Alt`, `Shift`, `Meta`, then a key (a letter or digit needs a modifier). One it
    /// cannot read fails the build ([`ConfigError::Shortcut`]).
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, ConfigError};
    /// assert!(BrowserAgent::builder().notes_shortcut("Control+Period").try_build().is_ok());
    /// assert!(matches!(BrowserAgent::builder().notes_shortcut("N").try_build(), Err(ConfigError::Shortcut(_))));
    /// ```
    pub fn notes_shortcut(mut self, shortcut: impl Into<String>) -> Self {
        self.config.notes_shortcut = shortcut.into();
        self
    }
    /// Take notes-mode messages (`notes-enter`, …) only from a parent frame of this origin
    /// (`https://ide.example`); default: from whatever page frames the app (never from another
    /// window than the parent).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().notes_parent_origin("https://ide.example").build();
    /// # let _ = agent;
    /// assert!(browser_agent_core::BrowserAgent::builder().notes_parent_origin("ide.example").try_build().is_err());
    /// ```
    pub fn notes_parent_origin(mut self, origin: impl Into<String>) -> Self {
        self.config.notes_parent_origin = Some(origin.into());
        self
    }
    /// How many notes the host keeps (default 200; the oldest go first).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().max_notes(20).build();
    /// assert_eq!(agent.config().max_notes(), 20);
    /// ```
    pub fn max_notes(mut self, n: usize) -> Self {
        self.config.max_notes = n;
        self
    }
    /// Follow the dev server's log file: each new line that matches an error pattern becomes a
    /// `server` entry (see [`BrowserAgent::tail_server_log`], which this calls once the agent is
    /// built: from the file's end, truncation and rotation followed, ended with the agent).
    ///
    /// ```
    /// use browser_agent_core::BrowserAgent;
    /// let agent = BrowserAgent::builder()
    ///     .enabled(true)
    ///     .server_log_file(std::env::temp_dir().join("dev-server.log"))
    ///     .build();
    /// # drop(agent);
    /// ```
    pub fn server_log_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.server_log = Some(path.into());
        self
    }
    /// Show the agent cursor even when the page is not in an iframe.
    pub fn cursor(mut self, on: bool) -> Self {
        self.config.cursor = on;
        self
    }

    /// Builds the agent, or says which setting is invalid.
    pub fn try_build(self) -> Result<BrowserAgent, ConfigError> {
        let server_log = self.server_log;
        let mut config = self.config;
        if let (Some((_, max)), Some(bytes)) = (&mut config.ndjson, self.ndjson_rotate) {
            *max = bytes;
        }
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
            notes: config.notes,
            notes_key: parse_shortcut(&config.notes_shortcut).filter(|k| k != protocol::notes::DEFAULT_KEY),
            notes_origin: config.notes_parent_origin.clone(),
            budget: (config.snapshot_budget != protocol::SNAPSHOT_BUDGET).then_some(config.snapshot_budget),
        };
        let restored = config.state_file.as_deref().and_then(sinks::load_client_state);
        let agent = BrowserAgent {
            inner: Arc::new(Inner {
                logs: LogBuffer::new(config.max_logs, config.max_log_bytes),
                clients: ClientRegistry::new(config.max_clients, config.client_ttl.as_millis() as u64)
                    .with_frame_parents(&config.frame_parents)
                    .with_redaction(&config.redaction)
                    .with_delivered(
                        config
                            .ndjson
                            .as_ref()
                            .map(|(path, max)| sinks::delivered_in(path, *max))
                            .unwrap_or_default(),
                    ),
                commands: Default::default(),
                last_sweep: Default::default(),
                agent_seen: Default::default(),
                dialogs_reported: Default::default(),
                server_pairing: Default::default(),
                proofs: Default::default(),
                notes: crate::notes::NotesStore::new(config.max_notes),
                page_tools: Default::default(),
                screenshots: crate::screenshots::ScreenshotStore::new(
                    config.max_screenshots,
                    config.max_screenshot_bytes,
                    config.screenshot_dir.clone(),
                ),
                plain_tag: tag::build_tag(&tag_config, None),
                ndjson: config.ndjson.as_ref().map(|(p, max)| NdjsonSink::new(p.clone(), *max)),
                prefix_slash: format!("{}/", config.prefix),
                mcp_path: format!("{}{}", config.prefix, protocol::MCP_PATH),
                probe_scope: protocol::PROBE_SCOPE.to_owned(),
                key,
                assets,
                tag_config,
                restored,
                config,
            }),
        };
        if let Some(path) = server_log {
            // The thread ends with the agent; its handle is not needed.
            drop(agent.tail_server_log(path));
        }
        Ok(agent)
    }

    /// Builds the agent; panics with the reason on an invalid setting (see [`try_build`](Self::try_build)).
    pub fn build(self) -> BrowserAgent {
        match self.try_build() {
            Ok(agent) => agent,
            Err(err) => panic!("browser-agent: {err}"),
        }
    }
}

/// Reads the key file, or creates it with a fresh random key; a random key if neither works
/// (see [`sinks::load_or_create_key`]: a per-user folder, mode 0700; the file created
/// exclusively, mode 0600; a file of someone else's or readable by others refused).
fn load_or_create_key(config: &Config) -> String {
    let uid = sinks::current_uid();
    let (path, default) = match config.key_file.clone() {
        Some(path) => (path, false),
        None => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let id = util::fnv1a64(&[cwd.as_os_str().as_encoded_bytes(), config.prefix.as_bytes()]);
            let dir = sinks::default_key_dir(std::env::var_os("XDG_RUNTIME_DIR"), &std::env::temp_dir(), uid);
            (dir.join(format!("{id:016x}.key")), true)
        }
    };
    sinks::load_or_create_key(&path, util::random_hex(16), uid, default)
}
