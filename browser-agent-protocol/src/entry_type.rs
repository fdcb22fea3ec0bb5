//! Log entry types the page client sends in `POST {prefix}/logs` (the `type` field).

/// `console.*` call: `level`, `args: [string]`.
pub const CONSOLE: &str = "console";
/// Uncaught error or unhandled rejection: `message`, `stack`, `source`, `line`, `column`.
pub const ERROR: &str = "error";
/// fetch or XHR: `method`, `url`, `status`, `statusText`, `duration`, `ok`, `body` (a failed
/// answer's, its first 1,000 chars), `error`, `via`, and when known `reqType`/`reqSize` (the
/// request body's content type and bytes) and `resType`/`resSize` (the answer's `Content-Type`,
/// and its `Content-Length` or the bytes of the failed body read).
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
/// A WebSocket opened, closed or failed: `event` (`open`, `close`, `error`), `url`, `text`,
/// `level`; a close also `code`, `reason`, `sent` and `received` (message counts). Its last
/// messages come on demand (the `network` step).
pub const WEBSOCKET: &str = "websocket";
/// A native dialog the page opened and the client answered (`alert`, `confirm`, `prompt`,
/// `beforeunload`): the fields of [`crate::dialogs`] (`kind`, `message`, `answer`, `step`,
/// `outside`).
pub const DIALOG: &str = "dialog";
