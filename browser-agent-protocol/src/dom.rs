//! What the client puts into the page: its attributes, the tab's storage key, how a secret value is shown.

/// What a row among alike ones is: the nearest list item, table row, option, tree item or article.
/// Its text tells a row's `checkbox "✔"` from the next row's (the hands' targeting and refs, the
/// sensor's click entries).
///
/// ```
/// assert!(browser_agent_protocol::ROWS.starts_with("li,tr,"));
/// ```
pub const ROWS: &str = "li,tr,[role=row],[role=listitem],[role=option],[role=treeitem],[role=article],article";

/// `sessionStorage` key of the per-tab id the client sends as `tab=` (heartbeats and polls), so a
/// batch survives a page load in the same tab.
pub const TAB_STORAGE_KEY: &str = "__browserAgentTab";

/// `localStorage` key of the note an agent's step leaves when it may open a page without an opener
/// (a `target=_blank` link, a `noopener` popup): `{opener client id} {epoch ms}`; the new page's
/// sensor claims it (appending its own client id) to learn its opener (`docs/popups.md`).
pub const OPENER_STORAGE_KEY: &str = "__browserAgentOpener";

/// The clause a step's result gets when its page closes itself during the step (an OAuth popup
/// after "Allow"): the host then answers with what changed in the page that opened it, the page
/// the agent goes on with.
///
/// ```
/// assert!(browser_agent_protocol::CLOSES_ITSELF.contains("window.close"));
/// ```
pub const CLOSES_ITSELF: &str = "; the page closes itself (window.close) once this batch's answer is sent";

/// How a step's result says it left the page, before the URL (`clicked; navigating to URL`); the
/// host reads the URL after it to say where a redirect ended.
///
/// ```
/// assert!(format!("clicked; {}/login", browser_agent_protocol::NAVIGATING_TO).ends_with("to /login"));
/// ```
pub const NAVIGATING_TO: &str = "navigating to ";

/// How a step's result names a page it opened, before its client id (`clicked; opened page ID: URL
/// (popup of ID)`); the host reads the id after it.
///
/// ```
/// assert_eq!(browser_agent_protocol::OPENED_PAGE, "; opened page ");
/// ```
pub const OPENED_PAGE: &str = "; opened page ";

/// Attribute on every element the client adds to a page (the agent cursor and its ripple): never
/// a target, never in a snapshot or a screenshot.
pub const UI_ATTR: &str = "data-browser-agent-ui";
/// The CSS selector of [`UI_ATTR`].
///
/// ```
/// use browser_agent_protocol::{UI_ATTR, UI_SELECTOR};
/// assert_eq!(UI_SELECTOR, format!("[{UI_ATTR}]"));
/// ```
pub const UI_SELECTOR: &str = "[data-browser-agent-ui]";

/// What a password field's value is shown as: its snapshot line's `[value="•••"]`, and the text a
/// `type` or `fill` step into it answers (`typed "•••"`), so the action log and proofs never hold it.
pub const SECRET_VALUE: &str = "•••";

/// Starts a handover's `tab` that names the page to take the rest, not a tab: `@` and its client
/// id. A step that opened a new tab hands the rest of its batch to the page there, where a person
/// would be looking.
///
/// ```
/// use browser_agent_protocol::HANDOVER_TO_PAGE;
/// assert_eq!(format!("{HANDOVER_TO_PAGE}45b20932236e7476"), "@45b20932236e7476");
/// ```
pub const HANDOVER_TO_PAGE: &str = "@";
