//! The `network` step: what the page keeps of its requests and sockets, and how much of it the
//! step shows. The page keeps references only (its bootstrap reads no body); the hands read and
//! bound them when a step asks, and the host redacts the answer with the logs' rules.

/// The step's command: `{"command":"network","seq":12}` answers the request and response bodies
/// of network entry #12 (the host's `seq`), or the last messages of the WebSocket of a
/// `websocket` entry.
///
/// ```
/// use browser_agent_protocol::{network, COMMANDS};
/// assert!(COMMANDS.contains(&network::COMMAND));
/// ```
pub const COMMAND: &str = "network";

/// `seq`: the step's one field, the entry's number as the log shows it (`#12`).
pub const SEQ: &str = "seq";

/// The fields the host adds to a `network` step before the page gets it: the entry's own
/// sequence number in the page (`clientSeq` of the stored entry) and the page load that made it.
/// An agent cannot send them (they are not the step's fields).
pub const PAGE_SEQ: &str = "clientSeq";
/// See [`PAGE_SEQ`]: the page load (`clientId`) whose entry it is.
pub const PAGE_CLIENT: &str = "clientId";

/// How many requests and socket events a page keeps bodies and messages of (the newest; the
/// bootstrap's ring, a literal there).
pub const KEPT_RECORDS: usize = 50;
/// How many of a socket's messages it keeps (the newest, both ways; a literal in the bootstrap).
pub const KEPT_MESSAGES: usize = 20;
/// A response longer than this (its `Content-Length`) is not kept, nor one whose type streams
/// (`text/event-stream`, NDJSON, audio, video): keeping a copy would buffer it.
pub const KEPT_BODY_MAX: usize = 1_000_000;
/// Characters of each body the step shows (then `… (N more chars)`).
pub const BODY_SHOWN: usize = 4_000;
/// Characters of each socket message the step shows.
pub const MESSAGE_SHOWN: usize = 300;
/// Characters of a failed answer's body its entry carries (`body`), sent without asking.
pub const FAILED_BODY_SHOWN: usize = 1_000;
