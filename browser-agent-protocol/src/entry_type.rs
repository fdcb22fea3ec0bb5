//! Log entry types the page client sends in `POST {prefix}/logs` (the `type` field).

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
/// A dev server's output line that matched an error pattern (host-side, never from a page):
/// `stream` (`stdout`/`stderr`), `pattern` (the one that matched).
pub const SERVER: &str = "server";
