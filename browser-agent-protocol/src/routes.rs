//! The routes: their prefix and paths, the fixed heartbeat path, where the client's assets are served.

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
/// `POST {prefix}/mcp`: the MCP endpoint (streamable HTTP, stateless, JSON answers; see [`mcp`](crate::mcp)).
pub const MCP_PATH: &str = "/mcp";
/// `POST {prefix}/screenshots`: the page uploads a screenshot's encoded bytes (page key required);
/// `GET {prefix}/screenshots/{id}.{png|jpg}` serves one to the agent (see [`screenshot`](crate::screenshot)).
pub const SCREENSHOTS_PATH: &str = "/screenshots";
/// `GET {prefix}/proof`: the open proof session; `POST {prefix}/proof/start`, `/proof/stop`,
/// `/proof/compare`; `GET {prefix}/proof/{id}/summary`.
pub const PROOF_PATH: &str = "/proof";
/// `POST {prefix}/notes`: the page sends a confirmed note (page key required);
/// `GET {prefix}/notes?client=&since=` lists them for the agent, `DELETE {prefix}/notes/{id}` (or
/// `DELETE {prefix}/notes`, all) clears them (see [`notes`](crate::notes)).
pub const NOTES_PATH: &str = "/notes";

/// Content-hashed client assets are served as `{prefix}/assets/{name}`.
pub const ASSETS_DIR: &str = "/assets/";

/// The sensor every page runs (`browser-agent-client/sensor/sensor.js`), served as
/// `{prefix}/assets/sensor-{rev}.js` and imported by the inline bootstrap after the first frame.
pub const SENSOR_ASSET: &str = "sensor";
