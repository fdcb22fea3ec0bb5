//! Query parameter names of the browser-facing routes (heartbeat, command poll, `gone` beacon).

/// The page key, where no header can be set (see [`crate::KEY_PARAM`]).
pub const KEY: &str = crate::KEY_PARAM;
/// The page's client id (one per page load).
pub const CLIENT: &str = "client";
/// The tab id (from `sessionStorage`, see [`crate::TAB_STORAGE_KEY`]).
pub const TAB: &str = "tab";
/// Long-poll hold in milliseconds (capped to [`crate::POLL_WAIT_MS`]).
pub const WAIT: &str = "wait";
/// The other pages a command poll covers: `clients=ID:TAB,ID:TAB` (`:TAB` optional; the first
/// [`crate::MAX_POLL_CLIENTS`] are covered, or the host's `max_clients` − 1 when it keeps more
/// pages); the host then answers the first batch for any of them
/// with its page in [`crate::field::CLIENT`], and counts each as polling.
pub const CLIENTS: &str = "clients";
/// `gone=1` on the `pagehide` beacon: the page left.
pub const GONE: &str = "gone";
/// Heartbeat: the page's URL.
pub const PAGE: &str = "page";
/// Heartbeat: the document title.
pub const TITLE: &str = "title";
/// Heartbeat: the life-cycle phase ([`crate::Phase`]).
pub const PHASE: &str = "phase";
/// Heartbeat: `1` when the document is visible.
pub const VISIBLE: &str = "visible";
/// Heartbeat: `1` when the document has focus.
pub const FOCUSED: &str = "focused";
/// Heartbeat: `1` when the page runs in an iframe.
pub const IFRAME: &str = "iframe";
/// Heartbeat: the client revision the page runs.
pub const REV: &str = "rev";
/// Heartbeat: how many times the page's own tools (WebMCP, `docs/page-tools.md`) changed since it
/// loaded; sent only once the page registered one, so pages without tools send nothing more.
pub const TOOLS: &str = "tools";
/// Heartbeat of a page in an iframe: the origin of the page that frames it (`null` when the
/// browser does not say).
pub const PARENT: &str = "parent";
/// Heartbeat of a page an agent's step opened (a popup, a new tab): its opener's client id
/// (`docs/popups.md`).
pub const OPENER: &str = "opener";
/// Heartbeat of a page whose client failed to start ([`crate::Phase::Failed`]): why (`Name: message`).
pub const ERROR: &str = "error";
/// Heartbeat of a page whose client failed to start: the error's stack.
pub const STACK: &str = "stack";
/// `GET /console`: only entries during this batch (`b7`, `7` or `last`).
pub const BATCH: &str = "batch";
/// `GET /console`: only entries from this batch's start on (`last`: since the agent's last batch).
pub const SINCE_BATCH: &str = "sinceBatch";
