//! The headers of our requests and answers, and the page key's query parameter.

/// Header carrying the page key on browser-facing writes.
pub const KEY_HEADER: &str = "x-browser-agent-key";
/// Query parameter carrying the page key where no header can be set (`sendBeacon`, GET heartbeat).
pub const KEY_PARAM: &str = "key";
/// Response header of the heartbeat naming the client revision the host serves now;
/// a page running another revision reloads itself (once per revision).
pub const REV_HEADER: &str = "x-browser-agent-rev";
/// Header of the heartbeat's answer while an agent is attached (it called within
/// [`AGENT_ATTACHED_MS`](crate::AGENT_ATTACHED_MS)): the page then fetches and compiles its hands while idle, so the agent's
/// first command never waits for them.
pub const AGENT_HEADER: &str = "x-browser-agent-attached";
/// Header of a heartbeat's or a poll's answer while a navigating batch waits for the next page of
/// its tab: only then does a page read its tab id (sessionStorage, a synchronous trip out of the
/// page on every load otherwise) and send it.
pub const HANDOVER_HEADER: &str = "x-browser-agent-handover";
