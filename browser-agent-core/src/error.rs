//! The errors of the host, each variant with its text (and, where it answers a request, its status).

/// A configuration the builder refuses.
///
/// ```
/// use browser_agent_core::{BrowserAgent, ConfigError};
/// let err = BrowserAgent::builder().page_key("short").try_build().unwrap_err();
/// assert_eq!(err, ConfigError::PageKey);
/// assert!(err.to_string().starts_with("the page key must be at least 8 chars"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The prefix must look like `/name` (ASCII letters, digits, `_ - . /`, no trailing slash, not under `/browser/`).
    #[error("invalid route prefix {0:?}: it must start with '/', must not end with '/', may only hold ASCII letters, digits, '_', '-', '.', '/', and must not be /browser")]
    Prefix(String),
    /// A limit of zero would drop everything.
    #[error("{0} must be greater than zero")]
    Zero(&'static str),
    /// The page key is embedded in HTML attributes and URLs.
    #[error("the page key must be at least 8 chars of ASCII letters, digits, '-' or '_'")]
    PageKey,
    /// The notes shortcut cannot be read.
    #[error("invalid notes shortcut {0:?}: write modifiers and one key joined by '+', e.g. \"Alt+Shift+N\", \"Control+Period\" or \"F2\" (a letter or digit needs a modifier)")]
    Shortcut(String),
    /// The notes parent origin is not `scheme://host[:port]`.
    #[error("invalid notes parent origin {0:?}: write it as scheme://host[:port], e.g. \"https://ide.example\"")]
    Origin(String),
    /// An allowed host that is empty names nothing (an unset variable, most likely).
    #[error("an allowed host is empty: give a name or name:port, e.g. \"devbox.local\"")]
    EmptyHost,
    /// An empty bearer token would refuse every request to the agent's routes.
    #[error("the bearer token is empty: every agent request would be refused; give a token, or none to require none")]
    EmptyToken,
    /// A snapshot budget below [`SNAPSHOT_BUDGET_MIN`](crate::protocol::SNAPSHOT_BUDGET_MIN) tokens.
    #[error("snapshot budget {0} is too small: give at least {min} tokens (the default is {default})", min = crate::protocol::SNAPSHOT_BUDGET_MIN, default = crate::protocol::SNAPSHOT_BUDGET)]
    SnapshotBudget(u32),
}

/// Why a request to one of our routes is refused before its handler runs, each with its status.
/// The texts say what to do; adapters send them as `{"error": text}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum Refusal {
    /// 404: the path is under our prefix (or `/browser/`) but names no route.
    #[error("no browser-agent route {method} {path}")]
    NotFound {
        /// The request's method.
        method: String,
        /// The request's path.
        path: String,
    },
    /// 405: the route exists, not with this method (the answer carries `Allow`).
    #[error("method {method} is not allowed on {path}; allowed: {allow}")]
    MethodNotAllowed {
        /// The request's method.
        method: String,
        /// The request's path.
        path: String,
        /// The route's methods, comma-separated (the `Allow` header).
        allow: String,
    },
    /// 403: no `Host` header (nor an absolute URI).
    #[error("refused: the request has no Host header; browser-agent answers only requests addressed to loopback or a configured host")]
    NoHost,
    /// 403: the `Host` is neither loopback nor allowed (DNS rebinding).
    #[error("refused: Host {authority:?} is not loopback; add it with BrowserAgent::builder().allow_host(\"{host}\") (the CLI: --allow-host {host}) if this dev server is reached by that name (this check blocks DNS rebinding)")]
    HostNotAllowed {
        /// The `Host` as sent, lower-cased.
        authority: String,
        /// Its host part, without the port.
        host: String,
    },
    /// 403: an agent route was called from another origin.
    #[error("refused: Origin {origin:?} is not this server's own origin; agent routes answer only same-origin pages and non-browser clients (this check blocks cross-site requests)")]
    CrossOrigin {
        /// The `Origin` as sent, lower-cased.
        origin: String,
    },
    /// 403: the MCP endpoint was called with an `Origin` (a browser) that is not allowed.
    #[error("refused: the MCP endpoint does not accept requests with an Origin header (Origin {origin:?}); MCP clients are not browsers and send none. Allow one with BrowserAgent::builder().mcp_allow_origin(\"{origin}\") (the CLI: --mcp-allow-origin {origin}) (this check blocks DNS rebinding and cross-site requests)")]
    McpOrigin {
        /// The `Origin` as sent, lower-cased.
        origin: String,
    },
    /// 403: an agent route was called by a browser for another site (`Sec-Fetch-Site`).
    #[error("refused: Sec-Fetch-Site {site:?}: agent routes answer only same-origin pages and non-browser clients (this check blocks cross-site requests)")]
    CrossSite {
        /// The `Sec-Fetch-Site` as sent, lower-cased.
        site: String,
    },
    /// 403: `GET {prefix}/snapshot` from a browser that does not say who made the request.
    #[error("refused: GET /snapshot from a browser that sends no Sec-Fetch-Site could be a cross-site <img>; use POST /snapshot with Content-Type: application/json and a body {{\"client\"?, \"diff\"?, \"ref\"?, \"offset\"?, …}}")]
    SnapshotGet,
    /// 403: a browser write without the page key, or with a wrong one.
    #[error(
        "refused: missing or wrong page key; browser writes need the header {} (or ?{}=) that the injected tag carries",
        crate::protocol::KEY_HEADER,
        crate::protocol::KEY_PARAM
    )]
    NoKey,
    /// 401: an agent route without the configured bearer token, or with a wrong one.
    #[error("refused: this agent route needs the header Authorization: Bearer <token> configured with BrowserAgent::builder().bearer_token(…) (the CLI: --token)")]
    BadToken,
    /// 413: the body is (or says it is) larger than the limit.
    #[error("request body is larger than the limit of {limit} bytes")]
    TooLarge {
        /// [`Config::body_limit`](crate::Config::body_limit).
        limit: usize,
    },
    /// 408: the body did not arrive within the deadline.
    #[error("the request body did not arrive within {ms} ms (BrowserAgent::builder().body_timeout(…))")]
    BodyTimeout {
        /// [`Config::body_timeout`](crate::Config::body_timeout), in milliseconds.
        ms: u128,
    },
    /// 415: `POST /run` and `POST /snapshot` must be JSON, so a cross-site form cannot send them.
    #[error("POST {route} needs Content-Type: application/json (so a cross-site form cannot send it)")]
    NotJson {
        /// The route, without the prefix (`/run`).
        route: &'static str,
    },
    /// 415: the MCP endpoint takes JSON-RPC messages as JSON only.
    #[error("POST {path} needs Content-Type: application/json (one JSON-RPC message, or a batch where the revision allows it)")]
    McpNotJson {
        /// The endpoint's path.
        path: String,
    },
    /// 400: the adapter could not translate the request's head.
    #[error("the request could not be read")]
    UnreadableRequest,
    /// 400: the body could not be read (the connection failed mid-body).
    #[error("the request body could not be read")]
    UnreadableBody,
}

impl Refusal {
    /// The HTTP status of the refusal.
    pub(crate) fn status(&self) -> http::StatusCode {
        use http::StatusCode as S;
        match self {
            Refusal::NotFound { .. } => S::NOT_FOUND,
            Refusal::MethodNotAllowed { .. } => S::METHOD_NOT_ALLOWED,
            Refusal::NoHost
            | Refusal::HostNotAllowed { .. }
            | Refusal::CrossOrigin { .. }
            | Refusal::McpOrigin { .. }
            | Refusal::CrossSite { .. }
            | Refusal::SnapshotGet
            | Refusal::NoKey => S::FORBIDDEN,
            Refusal::BadToken => S::UNAUTHORIZED,
            Refusal::TooLarge { .. } => S::PAYLOAD_TOO_LARGE,
            Refusal::BodyTimeout { .. } => S::REQUEST_TIMEOUT,
            Refusal::NotJson { .. } | Refusal::McpNotJson { .. } => S::UNSUPPORTED_MEDIA_TYPE,
            Refusal::UnreadableRequest | Refusal::UnreadableBody => S::BAD_REQUEST,
        }
    }
}

/// A `GET {prefix}/console` query the host cannot read ([`LogQuery::parse`](crate::LogQuery::parse));
/// the text names the parameter and what it accepts. Always a 400.
///
/// ```
/// use browser_agent_core::{LogQuery, QueryError};
/// let err = LogQuery::parse(Some("limit=ten")).unwrap_err();
/// assert!(matches!(&err, QueryError::Count { name, .. } if name == "limit"));
/// assert_eq!(err.status(), 400);
/// assert_eq!(err.to_string(), "invalid limit \"ten\": expected a whole number");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// `level=` names no level.
    #[error("invalid level {0:?}: use debug, log, info, warn or error (comma-separated for several)")]
    Level(String),
    /// `type=` names no entry type.
    #[error("invalid type {0:?}: use {types}", types = crate::logs::type_list())]
    Type(String),
    /// `sinceMs` is not a non-negative number.
    #[error("invalid {name} {value:?}: expected a non-negative number")]
    Number {
        /// The parameter.
        name: String,
        /// What was sent.
        value: String,
    },
    /// A count or sequence number (`limit`, `afterSeq`) is not a whole number (`1.5`).
    #[error("invalid {name} {value:?}: expected a whole number")]
    Count {
        /// The parameter.
        name: String,
        /// What was sent.
        value: String,
    },
    /// A parameter the log query does not take (a typo would read the whole log).
    #[error("unknown parameter {0:?}: the log query takes level, type, sinceMs, afterSeq, batch, sinceBatch, limit and client")]
    Unknown(String),
    /// A parameter given twice (but `level`, whose values add up).
    #[error("parameter {0:?} is given twice: give it once")]
    Twice(String),
}

impl QueryError {
    /// The HTTP status: always 400.
    pub fn status(&self) -> http::StatusCode {
        http::StatusCode::BAD_REQUEST
    }
}

/// Why a log entry (of `POST {prefix}/logs`, or the `logs` of `POST {prefix}/results`) is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EntryError {
    #[error("is not an object")]
    NotObject,
    #[error("has an invalid \"type\" (expected a short string)")]
    Type,
    #[error(
        "has an invalid \"clientId\" (expected a string of at most {} chars)",
        crate::protocol::MAX_ID_LEN
    )]
    ClientId,
    #[error("has an invalid \"seq\" (expected a non-negative integer)")]
    Seq,
}

/// A log batch with a bad entry: nothing of it is stored. Always a 400.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("entry {index} {why}")]
pub(crate) struct IngestError {
    /// The bad entry's position in the batch.
    pub(crate) index: usize,
    /// What is wrong with it.
    pub(crate) why: EntryError,
}

/// A `gone` beacon's query the host cannot read. Always a 400.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GoneError {
    #[error("invalid gone {0:?}: use 1 (the page left) or 0")]
    Flag(String),
    #[error(
        "gone=1 needs the parameter \"client\" (the page's client id, at most {} chars)",
        crate::protocol::MAX_ID_LEN
    )]
    NoClient,
}

/// A request the routes cannot read: a body or parameter of the wrong shape. Always a 400; the
/// text names the field and what it should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BadInput {
    #[error("body is not valid JSON: {0}")]
    Json(String),
    #[error("body must be a JSON object {{\"logs\":[…],\"page\":\"…\",\"phase\":\"…\"}}")]
    ProbeBody,
    #[error("field \"logs\" must be an array of {{t, level, text}}")]
    ProbeLogs,
    #[error("field \"{0}\" must be a string")]
    NotString(&'static str),
    #[error("body must be a JSON array of log entries ({{\"type\":\"console\",…}})")]
    LogsBody,
    #[error("invalid wait {0:?}: expected milliseconds")]
    Wait(String),
    #[error(
        "parameter \"client\" (the page's client id, at most {} chars) is required",
        crate::protocol::MAX_ID_LEN
    )]
    NoClient,
    #[error("parameter \"clients\" has an empty client id: use clients=ID:TAB,ID:TAB (\":TAB\" optional)")]
    PollClientEmpty,
    #[error("parameter \"clients\": {0:?} is longer than {max} chars (a client id or tab id)", max = crate::protocol::MAX_ID_LEN)]
    PollClientLong(String),
    #[error("field \"id\" (the batch id) must be a string")]
    NoBatchId,
    #[error("field \"logs\" must be an array of log entries ({{\"type\":\"console\",…}})")]
    ResultLogs,
    #[error("field \"logs\": {0}")]
    ResultEntry(IngestError),
    #[error("body must be a JSON object {{\"client\"?: \"…\", \"diff\"?: true}} and the snapshot step's view ({})", crate::protocol::SNAPSHOT_VIEW.join(", "))]
    SnapshotBody,
    #[error("parameter {0:?} is given twice: give it once")]
    Twice(String),
    #[error("/snapshot takes no \"command\": it always takes a snapshot (POST /run runs the others)")]
    SnapshotCommand,
}

impl BadInput {
    /// A body that is not JSON, with the parser's reason.
    pub(crate) fn json(e: serde_json::Error) -> BadInput {
        BadInput::Json(e.to_string())
    }
}

/// A JSON-RPC error of the MCP endpoint: its code, its message (which names the problem and what
/// to send instead) and the HTTP status of the answer that carries it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RpcError {
    /// -32700: the body is not JSON.
    #[error("parse error: the body is not valid JSON ({0})")]
    Parse(String),
    /// -32600: JSON, but not a JSON-RPC 2.0 message.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// -32600: a batch (JSON array) under a revision that removed batching.
    #[error("invalid request: JSON-RPC batches are allowed only with MCP-Protocol-Version {allowed} (this request speaks {version}); send one message per POST")]
    Batch {
        /// The revision the request speaks.
        version: String,
        /// The revision that allows batches.
        allowed: &'static str,
    },
    /// -32601: no such method.
    #[error("method not found: {method:?}; this server answers {known}")]
    MethodNotFound {
        /// What was asked for.
        method: String,
        /// The methods it answers, as a list for the message.
        known: &'static str,
    },
    /// -32602: the parameters do not fit the method (an unknown tool, a missing name).
    #[error("invalid params: {0}")]
    InvalidParams(String),
    /// -32022: a revision this server does not serve.
    #[error(
        "unsupported protocol version {requested:?}: this server speaks {}",
        supported_list()
    )]
    UnsupportedVersion {
        /// The revision the request named.
        requested: String,
    },
    /// -32020: the MCP headers do not match the body (2026-07-28).
    #[error("header mismatch: {0}")]
    HeaderMismatch(String),
}

/// Every revision the MCP endpoint serves, newest first.
pub(crate) fn supported_versions() -> Vec<&'static str> {
    use crate::protocol::mcp;
    mcp::MODERN_VERSIONS
        .iter()
        .chain(mcp::LEGACY_VERSIONS.iter().rev())
        .copied()
        .collect()
}

fn supported_list() -> String {
    supported_versions().join(", ")
}

impl RpcError {
    /// The JSON-RPC error code.
    pub(crate) fn code(&self) -> i64 {
        match self {
            RpcError::Parse(_) => -32700,
            RpcError::InvalidRequest(_) | RpcError::Batch { .. } => -32600,
            RpcError::MethodNotFound { .. } => -32601,
            RpcError::InvalidParams(_) => -32602,
            RpcError::UnsupportedVersion { .. } => -32022,
            RpcError::HeaderMismatch(_) => -32020,
        }
    }

    /// The HTTP status of an answer that carries only this error. `modern`: the request speaks
    /// 2026-07-28, where an unknown method is a 404 (legacy revisions answer it with 200).
    pub(crate) fn status(&self, modern: bool) -> http::StatusCode {
        use http::StatusCode as S;
        match self {
            RpcError::Parse(_)
            | RpcError::InvalidRequest(_)
            | RpcError::Batch { .. }
            | RpcError::UnsupportedVersion { .. }
            | RpcError::HeaderMismatch(_) => S::BAD_REQUEST,
            RpcError::MethodNotFound { .. } if modern => S::NOT_FOUND,
            RpcError::MethodNotFound { .. } | RpcError::InvalidParams(_) => S::OK,
        }
    }

    /// The error's `data`, when it has any: the supported revisions for -32022.
    pub(crate) fn data(&self) -> Option<serde_json::Value> {
        match self {
            RpcError::UnsupportedVersion { requested } => {
                Some(serde_json::json!({"supported": supported_versions(), "requested": requested}))
            }
            _ => None,
        }
    }
}

/// A screenshot upload or read the host cannot take; the text names the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ScreenshotError {
    /// 415: the upload is not `image/png` or `image/jpeg`.
    #[error("POST {path} needs Content-Type: image/png or image/jpeg (the encoded screenshot), got {got:?}")]
    NotImage { path: String, got: String },
    /// 400: the bytes are not what the content type says.
    #[error("the body is not a {0} image (its first bytes do not say so)")]
    NotDecodable(&'static str),
    /// 400: a query parameter of the upload is missing or out of range.
    #[error("invalid {name} {value:?}: {expected}")]
    Param {
        name: &'static str,
        value: String,
        expected: &'static str,
    },
    /// 413: the upload is larger than the store may hold.
    #[error("{0}")]
    Store(String),
    /// 404: no screenshot with that id is kept.
    #[error("no screenshot {id:?}: the store holds {held} (the oldest are evicted past BrowserAgent::builder().max_screenshots(…))")]
    NotFound { id: String, held: String },
}

impl ScreenshotError {
    pub(crate) fn status(&self) -> http::StatusCode {
        use http::StatusCode as S;
        match self {
            ScreenshotError::NotImage { .. } => S::UNSUPPORTED_MEDIA_TYPE,
            ScreenshotError::NotDecodable(_) | ScreenshotError::Param { .. } => S::BAD_REQUEST,
            ScreenshotError::Store(_) => S::PAYLOAD_TOO_LARGE,
            ScreenshotError::NotFound { .. } => S::NOT_FOUND,
        }
    }
}
