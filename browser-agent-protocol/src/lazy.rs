//! The modules the client loads on first use, each served as `{prefix}/assets/{name}-{rev}.js`
//! (`rev`: the first 12 digits of the client revision): features most pages never use cost them
//! nothing.

/// The screenshot capture (`browser-agent-client/screenshot/screenshot.js`), on the first `screenshot` step.
pub const SCREENSHOT: &str = "screenshot";
/// The visible agent cursor (`browser-agent-client/src/cursor/cursor.js`), on the first action where it shows.
pub const CURSOR: &str = "cursor";
/// Notes mode (`browser-agent-client/src/notes/notes.js`), when it is first entered.
pub const NOTES: &str = "notes";
/// The `evaluate` step (`browser-agent-client/src/commands/actions/evaluate.js`): compiling and
/// running the agent's script and copying its result, on the first `evaluate` step.
pub const EVALUATE: &str = "evaluate";
/// The `scroll` step by a direction (`browser-agent-client/src/commands/actions/scroll.js`), on
/// the first such `scroll` step.
pub const SCROLL: &str = "scroll";
/// What Tab and Escape do beyond their key events (`browser-agent-client/src/commands/actions/keys.js`:
/// Tab's order, closing the top dialog or popover), on the first such `press`.
pub const KEYS: &str = "keys";
/// Source locations (`browser-agent-client/src/source/source.js`): reading which component renders
/// an element from the framework's development build, on the first step with `"source": true`.
pub const SOURCE: &str = "source";
/// The `audit` step's axe-core and its adapter (`browser-agent-client/audit/`), on the first `audit`.
pub const AUDIT: &str = "audit";
