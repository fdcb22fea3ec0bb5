//! The MCP endpoint's contract ([`MCP_PATH`](crate::MCP_PATH)): the protocol revisions it serves, its headers and
//! the `_meta` keys of the 2026-07-28 revision.
//!
//! ```
//! use browser_agent_protocol::mcp;
//! assert!(mcp::LEGACY_VERSIONS.contains(&mcp::DEFAULT_VERSION));
//! assert_eq!(mcp::LATEST_LEGACY, "2025-11-25");
//! assert_eq!(mcp::MODERN_VERSIONS, ["2026-07-28"]);
//! ```

/// Revisions negotiated with `initialize` (oldest first).
pub const LEGACY_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
/// The newest of [`LEGACY_VERSIONS`]: what `initialize` answers when the client asks for a
/// revision the server does not serve.
pub const LATEST_LEGACY: &str = "2025-11-25";
/// Revisions served statelessly, with the version in every request's `_meta`.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];
/// What a request without [`VERSION_HEADER`] speaks (the spec's rule for clients older than 2025-06-18).
pub const DEFAULT_VERSION: &str = "2025-03-26";
/// The only revision that allows JSON-RPC batches (arrays of messages).
pub const BATCH_VERSION: &str = "2025-03-26";
/// `MCP-Protocol-Version`: the revision a request speaks.
pub const VERSION_HEADER: &str = "mcp-protocol-version";
/// `Mcp-Method` (2026-07-28): mirrors the body's `method`.
pub const METHOD_HEADER: &str = "mcp-method";
/// `Mcp-Name` (2026-07-28): mirrors `params.name` of `tools/call`.
pub const NAME_HEADER: &str = "mcp-name";
/// `_meta` key of a modern request's revision.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the server's name and version in a `server/discover` answer.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Where OAuth clients look for metadata (RFC 8414, RFC 9728); answered 404 for our endpoint.
pub const WELL_KNOWN: &str = "/.well-known/";
