//! The page's own tools (WebMCP, `docs/page-tools.md`): the bounds both sides count with, and the
//! field names of the `tools` step's answer.

/// At most this many tools of one page are listed; the page's others are named as left out.
pub const MAX_TOOLS: usize = 32;
/// A tool's description is cut to this many characters.
pub const MAX_DESCRIPTION: usize = 1_000;
/// A tool whose input schema is longer than this as JSON (bytes) is left out, saying so.
pub const MAX_SCHEMA: usize = 8_192;
/// A tool's result longer than this as JSON (bytes) is refused, saying how long it was.
pub const MAX_RESULT: usize = 100_000;
/// A tool name: 1 to this many characters of `A-Z a-z 0-9 _ - .` (the WebMCP draft's rule).
pub const MAX_NAME: usize = 128;

/// The `tools` step's answer: the list's revision (how many times it changed since the page loaded).
pub const REVISION: &str = "revision";
/// The `tools` step's answer: where the tools came from (`shim`, `browser`, `testing`).
pub const SOURCE: &str = "source";
/// The `tools` step's answer: the tools, `{name, title?, description, inputSchema?, readOnly?, untrustedOutput?}`.
pub const TOOLS: &str = "tools";
/// The `tools` step's answer: the tools left out, each `"name: why"`.
pub const SKIPPED: &str = "skipped";

/// Whether `name` is a tool name the WebMCP draft allows (1 to [`MAX_NAME`] characters of
/// `A-Z a-z 0-9 _ - .`).
///
/// ```
/// use browser_agent_protocol::page_tools::valid_name;
/// assert!(valid_name("add_todo") && valid_name("cart.add-item"));
/// assert!(!valid_name("") && !valid_name("add todo") && !valid_name("ünïcode"));
/// ```
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}
