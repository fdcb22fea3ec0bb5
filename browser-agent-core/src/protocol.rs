//! The wire contract between the injected page client and the host.
//!
//! This module is all that remains of core with `default-features = false`, so the wasm
//! client and the host share one definition of every path, header, parameter and shape.
//!
//! ```
//! use browser_agent_core::protocol;
//! assert_eq!(protocol::DEFAULT_PREFIX, "/__mindstudio_dev__");
//! assert_eq!(protocol::LOGS_PATH, "/logs");
//! ```

use serde::{Deserialize, Serialize};

/// Default prefix of our routes (the MindStudio browser agent's).
pub const DEFAULT_PREFIX: &str = "/__mindstudio_dev__";
/// dsh-agent-browser's heartbeat route; fixed for compatibility.
pub const PROBE_PATH: &str = "/browser/probe";
/// Everything under this path belongs to us (unknown paths get 404).
pub const PROBE_SCOPE: &str = "/browser/";

/// `POST {prefix}/logs`: a bare JSON array of log entries.
pub const LOGS_PATH: &str = "/logs";
/// `GET {prefix}/console`: the agent reads logs.
pub const CONSOLE_PATH: &str = "/console";
/// `GET {prefix}/page`: the agent reads the open pages.
pub const PAGE_PATH: &str = "/page";
/// `GET {prefix}/commands`: the page polls for a batch.
pub const COMMANDS_PATH: &str = "/commands";
/// `POST {prefix}/results`: the page answers a batch.
pub const RESULTS_PATH: &str = "/results";
/// `POST {prefix}/run`: the agent runs a batch.
pub const RUN_PATH: &str = "/run";
/// `GET {prefix}/snapshot`: the agent asks for a snapshot.
pub const SNAPSHOT_PATH: &str = "/snapshot";
/// `GET {prefix}/actions`: the agent reads a page's action log.
pub const ACTIONS_PATH: &str = "/actions";
/// `sessionStorage` key of the per-tab id the client sends as `tab=` (heartbeats and polls), so a
/// batch survives a page load in the same tab.
pub const TAB_STORAGE_KEY: &str = "__browserAgentTab";

/// The commands a batch step may name (`{"command": …}`): the host refuses a batch naming any
/// other before it reaches a page, and the page's client runs these.
pub const COMMANDS: &[&str] = &[
    "snapshot", "click", "dblclick", "type", "fill", "select", "check", "uncheck", "press", "hover", "scroll", "wait",
    "evaluate", "navigate", "back", "forward", "reload",
];
/// Content-hashed client assets are served as `{prefix}/assets/{name}`.
pub const ASSETS_DIR: &str = "/assets/";

/// Header carrying the page key on browser-facing writes.
pub const KEY_HEADER: &str = "x-browser-agent-key";
/// Query parameter carrying the page key where no header can be set (`sendBeacon`, GET heartbeat).
pub const KEY_PARAM: &str = "key";
/// Response header of the heartbeat naming the client revision the host serves now;
/// a page running another revision reloads itself (once per revision).
pub const REV_HEADER: &str = "x-browser-agent-rev";
/// Attribute of the injected `<script>` that holds [`TagConfig`] as JSON.
pub const CONFIG_ATTR: &str = "data-browser-agent";

/// Heartbeat interval of the page client, in milliseconds.
pub const HEARTBEAT_INTERVAL_MS: u64 = 10_000;
/// Log batch interval of the page client, in milliseconds.
pub const FLUSH_INTERVAL_MS: u64 = 2_000;
/// A client is alive when seen within this many milliseconds (closed interval). One constant, used everywhere.
pub const CLIENT_TTL_MS: u64 = 60_000;

/// Longest hold of a command long-poll (`GET {prefix}/commands?wait=`), in milliseconds: the host
/// caps `wait` to it and the page client asks for exactly this.
pub const POLL_WAIT_MS: u64 = 25_000;
/// Longest client id or tab id accepted on the wire (ids are random hex; longer ones are refused
/// or, in a heartbeat, cut).
pub const MAX_ID_LEN: usize = 64;

/// Query parameter names of the browser-facing routes (heartbeat, command poll, `gone` beacon).
pub mod param {
    /// The page key, where no header can be set (see [`super::KEY_PARAM`]).
    pub const KEY: &str = super::KEY_PARAM;
    /// The page's client id (one per page load).
    pub const CLIENT: &str = "client";
    /// The tab id (from `sessionStorage`, see [`super::TAB_STORAGE_KEY`]).
    pub const TAB: &str = "tab";
    /// Long-poll hold in milliseconds (capped to [`super::POLL_WAIT_MS`]).
    pub const WAIT: &str = "wait";
    /// `gone=1` on the `pagehide` beacon: the page left.
    pub const GONE: &str = "gone";
    /// Heartbeat: the page's URL.
    pub const PAGE: &str = "page";
    /// Heartbeat: the document title.
    pub const TITLE: &str = "title";
    /// Heartbeat: the life-cycle phase ([`super::Phase`]).
    pub const PHASE: &str = "phase";
    /// Heartbeat: `1` when the document is visible.
    pub const VISIBLE: &str = "visible";
    /// Heartbeat: `1` when the document has focus.
    pub const FOCUSED: &str = "focused";
    /// Heartbeat: `1` when the page runs in an iframe.
    pub const IFRAME: &str = "iframe";
    /// Heartbeat: the client revision the page runs.
    pub const REV: &str = "rev";
}

/// Field names of the JSON shapes the page and the host exchange (delivered batch, step result,
/// results post, handover, log entry). The host reads and writes them through the typed shapes;
/// the wasm client, which carries no serde_json, through these names.
pub mod field {
    /// Batch id (delivered batch, results post).
    pub const ID: &str = "id";
    /// The steps of a batch, or the step results of a results post.
    pub const STEPS: &str = "steps";
    /// Index of the batch's first step within the agent's whole batch (after a handover).
    pub const OFFSET: &str = "offset";
    /// Milliseconds the batch has left when it is delivered.
    pub const TIMEOUT_MS: &str = "timeoutMs";
    /// A step's command name.
    pub const COMMAND: &str = "command";
    /// A step result's index within the agent's batch.
    pub const INDEX: &str = "index";
    /// A step result's value.
    pub const RESULT: &str = "result";
    /// A step result's (or an event's) error text.
    pub const ERROR: &str = "error";
    /// A step result's run time in milliseconds.
    pub const ELAPSED: &str = "elapsed";
    /// Results post: the snapshot text taken after the batch.
    pub const SNAPSHOT: &str = "snapshot";
    /// Results post: the log entries captured while the batch ran.
    pub const LOGS: &str = "logs";
    /// Results post: the batch's run time in milliseconds.
    pub const DURATION: &str = "duration";
    /// Results post: the rest of the batch, handed to the next page of the tab.
    pub const HANDOVER: &str = "handover";
    /// Handover: the tab id that takes the rest.
    pub const TAB: &str = "tab";
    /// Handover: the steps not yet run.
    pub const REMAINING: &str = "remaining";
    /// Handover: where the navigation went.
    pub const URL: &str = "url";
    /// Log entry: its type ([`super::entry_type`]).
    pub const TYPE: &str = "type";
    /// Log entry: its level ([`super::Level`]).
    pub const LEVEL: &str = "level";
    /// Log entry: the page's client id.
    pub const CLIENT_ID: &str = "clientId";
    /// Log entry: the page's own sequence number.
    pub const SEQ: &str = "seq";
    /// Log entry: epoch milliseconds.
    pub const T: &str = "t";
    /// Log entry: the page's URL.
    pub const PAGE: &str = "page";
    /// `dropped` entry: how many entries the page's queue dropped.
    pub const COUNT: &str = "count";
}

/// The configuration the injected tag exposes to the page client (and to tests and tools,
/// which can read it from the HTML: `<script data-browser-agent='{…}'>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagConfig {
    /// The per-process page key (survives host restarts when a key file is used).
    pub key: String,
    /// Route prefix, e.g. `/__mindstudio_dev__`.
    pub prefix: String,
    /// Client revision: the content hash of the embedded client assets.
    pub rev: String,
    /// URL of the client's JS glue (content-hashed); empty when no client is embedded.
    #[serde(default)]
    pub client: String,
    /// URL of the client's wasm module (content-hashed); empty when no client is embedded.
    #[serde(default)]
    pub wasm: String,
    /// Show the agent cursor even outside an iframe.
    #[serde(default)]
    pub cursor: bool,
}

/// Page life-cycle phase reported by the heartbeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// The tag ran; nothing is hooked yet.
    #[default]
    Loading,
    /// Capture patches are installed.
    Hooked,
    /// The client is fully running (also accepts dsh's `mounted`).
    #[serde(alias = "mounted")]
    Ready,
}

impl Phase {
    /// Parses a phase name; unknown names give `None`.
    pub fn parse(s: &str) -> Option<Phase> {
        match s {
            "loading" => Some(Phase::Loading),
            "hooked" => Some(Phase::Hooked),
            "ready" | "mounted" => Some(Phase::Ready),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Loading => "loading",
            Phase::Hooked => "hooked",
            Phase::Ready => "ready",
        }
    }
}

/// Log level. Both seeds' names are accepted (`log` is MindStudio's console level).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// `console.debug`.
    Debug,
    /// `console.log`.
    Log,
    /// `console.info` and everything without a level.
    #[default]
    Info,
    /// `console.warn`, HTTP 4xx.
    Warn,
    /// `console.error`, uncaught errors, rejections, failed requests, HTTP 5xx.
    Error,
}

impl Level {
    /// Parses a level name (ASCII case-insensitive); unknown names give `None`.
    pub fn parse(s: &str) -> Option<Level> {
        let s = s.trim();
        [
            ("debug", Level::Debug),
            ("log", Level::Log),
            ("info", Level::Info),
            ("warn", Level::Warn),
            ("warning", Level::Warn),
            ("error", Level::Error),
        ]
        .into_iter()
        .find(|(name, _)| s.eq_ignore_ascii_case(name))
        .map(|(_, level)| level)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Log => "log",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// Log entry types the page client sends in `POST {prefix}/logs` (the `type` field).
pub mod entry_type {
    /// `console.*` call: `level`, `args: [string]`.
    pub const CONSOLE: &str = "console";
    /// Uncaught error or unhandled rejection: `message`, `stack`, `source`, `line`, `column`.
    pub const ERROR: &str = "error";
    /// fetch or XHR: `method`, `url`, `status`, `statusText`, `duration`, `ok`, `body`, `error`, `via`.
    pub const NETWORK: &str = "network";
    /// A click: `event`, `target`, `text`.
    pub const INTERACTION: &str = "interaction";
    /// Navigation inside the page (pushState, replaceState, popstate, hashchange): `url`, `via`.
    pub const NAVIGATION: &str = "navigation";
    /// The page's local queue dropped entries: `count`.
    pub const DROPPED: &str = "dropped";
}
