//! The timings and bounds both sides count with: heartbeat, flush, liveness, start, poll, snapshot budget, ids.

/// How long after an agent's last call the host still counts it as attached, in milliseconds.
pub const AGENT_ATTACHED_MS: u64 = 300_000;

/// Heartbeat interval of the page client, in milliseconds.
pub const HEARTBEAT_INTERVAL_MS: u64 = 10_000;
/// Log batch interval of the page client, in milliseconds.
pub const FLUSH_INTERVAL_MS: u64 = 2_000;
/// A client is alive when seen within this many milliseconds (closed interval). One constant, used everywhere.
pub const CLIENT_TTL_MS: u64 = 60_000;
/// How long a page's client may take to start: the bootstrap reports the page as
/// [`Phase::Failed`](crate::Phase::Failed) when the wasm client has not hooked in this long after it began loading it,
/// and the host treats a page still at [`Phase::Hooked`](crate::Phase::Hooked) this long after it was first seen as failed too.
pub const CLIENT_START_TIMEOUT_MS: u64 = 30_000;

/// What a snapshot shows when neither the step nor the host says otherwise: at most about this
/// many (o200k) tokens; past it long runs of siblings are cut (`… N more role (snapshot {…})`).
/// A host sets its own with `BrowserAgentBuilder::snapshot_budget`, a step with `budget`.
pub const SNAPSHOT_BUDGET: u32 = 8_000;
/// The `snapshot` step's view fields besides `diff` (the README's table): `ref` (one node's
/// subtree), `offset`/`limit` (over its children, or the page's), `filter` (the branches whose text
/// matches), `viewport` (what is on screen), `budget` (tokens), `full` (no budget).
pub const SNAPSHOT_VIEW: &[&str] = &["ref", "offset", "limit", "filter", "viewport", "budget", "full"];
/// Smallest snapshot budget a host may set (a smaller one would cut every page to its head).
pub const SNAPSHOT_BUDGET_MIN: u32 = 500;

/// How long a batch whose page navigated waits for the next page of its tab to take the rest (never
/// beyond the batch's own timeout), in milliseconds: a navigation to a JSON route, another origin or
/// a download starts no client. The page that handed it over is not polled for again meanwhile.
pub const HANDOVER_WAIT_MS: u64 = 10_000;

/// Longest hold of a command long-poll (`GET {prefix}/commands?wait=`), in milliseconds: the host
/// caps `wait` to it and the page client asks for exactly this.
pub const POLL_WAIT_MS: u64 = 25_000;
/// Longest client id or tab id accepted on the wire (ids are random hex; longer ones are refused
/// or, in a heartbeat, cut).
pub const MAX_ID_LEN: usize = 64;
/// Pages one command poll covers besides its own ([`param::CLIENTS`](crate::param::CLIENTS)) on a host with the default
/// page bound (`max_clients`, 256): every page such a host keeps a record of. A host built with a
/// larger `max_clients` covers that many minus one; names past the bound are ignored, not refused
/// (the pages named first are covered).
///
/// A browser's tabs of one origin share one poll, held by one of them, which names every page it
/// hears of (see the README, "What the page calls"). Why one poll for all and not one per so many
/// pages, or lone polls for the rest: each held poll keeps one of the browser's six HTTP/1.1
/// connections per host, and six held polls stall every page load of the dev server. A page the
/// host keeps no record of cannot be targeted anyway, so the host's own page bound is the one
/// bound a poll needs.
pub const MAX_POLL_CLIENTS: usize = 255;
