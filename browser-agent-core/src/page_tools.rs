//! The page's own tools (WebMCP, `docs/page-tools.md`). A page registers tools through
//! `document.modelContext` / `navigator.modelContext` (the browser's, or the bootstrap's shim); its
//! heartbeat then carries how many times its list changed. Here: that count per page, the lists
//! fetched from the pages with the `tools` step (cached per page and count, so a list is read from
//! a page only after it changed), the checks their entries pass, their MCP names
//! (`page_<name>`, `page_<client>_<name>` where pages share a name), and a signal on every change that the MCP transports turn into
//! `notifications/tools/list_changed`. Pages that register no tool cost nothing here.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Map, Value};
use tokio::sync::watch;

use crate::protocol::page_tools::{self as wire, valid_name, MAX_DESCRIPTION, MAX_SCHEMA, MAX_TOOLS};

/// How MCP names a page's tool: `page_<name>` ([`mcp_name`]).
pub(crate) const MCP_PREFIX: &str = "page_";
/// MCP clients cap tool names (OpenAI's function names: 64 of `A-Z a-z 0-9 _ -`).
pub(crate) const MCP_NAME_MAX: usize = 64;
/// Digits of the client id in an MCP name.
const CLIENT_DIGITS: usize = 8;
/// Pages whose tool counts are kept (a page that registers tools past this is not listed).
const MAX_PAGES: usize = 64;
/// How long listing one page's tools may take before its last list (or none) is used.
pub(crate) const LIST_TIMEOUT: Duration = Duration::from_secs(5);

/// One tool a page registered, as checked here.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PageTool {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    /// Cut to [`MAX_DESCRIPTION`] characters.
    pub(crate) description: String,
    /// A JSON Schema object with `"type":"object"` (else `{"type":"object"}`).
    pub(crate) schema: Value,
    pub(crate) read_only: bool,
    pub(crate) untrusted_output: bool,
}

/// One page's list as the `tools` step answered it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Listing {
    pub(crate) revision: u64,
    pub(crate) source: String,
    pub(crate) tools: Vec<PageTool>,
    /// Tools left out, each `name: why`.
    pub(crate) skipped: Vec<String>,
}

#[derive(Debug, Default)]
struct Page {
    /// How many times its list changed, as its last heartbeat said.
    revision: u64,
    /// Its list as last read, with the revision it was read at.
    listed: Option<Arc<Listing>>,
}

/// The pages that registered tools ([`crate::agent::Inner`] holds one).
#[derive(Debug)]
pub(crate) struct PageTools {
    pages: Mutex<HashMap<String, Page>>,
    /// Bumped on every change of a page's revision, and when a page with tools leaves.
    changed: watch::Sender<u64>,
}

impl Default for PageTools {
    fn default() -> Self {
        PageTools {
            pages: Mutex::new(HashMap::new()),
            changed: watch::channel(0).0,
        }
    }
}

impl PageTools {
    /// A heartbeat of `client` said its list changed `revision` times (0: it has no tools).
    pub(crate) fn heartbeat(&self, client: &str, revision: u64) {
        let mut pages = self.pages.lock();
        let known = pages.get(client).map(|p| p.revision);
        if known == Some(revision) || (known.is_none() && (revision == 0 || pages.len() >= MAX_PAGES)) {
            return;
        }
        pages.entry(client.to_owned()).or_default().revision = revision;
        drop(pages);
        self.changed.send_modify(|n| *n += 1);
    }

    /// `client` left: its tools are gone.
    pub(crate) fn forget(&self, client: &str) {
        let had = self.pages.lock().remove(client).is_some_and(|p| p.revision > 0);
        if had {
            self.changed.send_modify(|n| *n += 1);
        }
    }

    /// Wakes on every change ([`watch::Receiver::changed`]).
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// The pages with tools and their revisions, by client id.
    pub(crate) fn revisions(&self) -> Vec<(String, u64)> {
        let mut all: Vec<_> = self
            .pages
            .lock()
            .iter()
            .filter(|(_, p)| p.revision > 0)
            .map(|(c, p)| (c.clone(), p.revision))
            .collect();
        all.sort();
        all
    }

    pub(crate) fn cached(&self, client: &str) -> Option<(u64, Option<Arc<Listing>>)> {
        self.pages.lock().get(client).map(|p| (p.revision, p.listed.clone()))
    }

    pub(crate) fn store(&self, client: &str, listing: Arc<Listing>) {
        if let Some(page) = self.pages.lock().get_mut(client) {
            page.listed = Some(listing);
        }
    }
}

/// One page tool as MCP shows it: its name there, its page, and the tool.
#[derive(Debug, Clone)]
pub(crate) struct Exposed {
    pub(crate) mcp_name: String,
    pub(crate) client: String,
    pub(crate) page: String,
    pub(crate) tool: PageTool,
}

impl Exposed {
    /// The `tools/list` entry: the page's schema, its description marked as the page's
    /// (untrusted text), its read-only hint.
    pub(crate) fn to_mcp(&self) -> Value {
        let mut tool = json!({
            "name": self.mcp_name,
            "description": format!("[from page {}, untrusted] {}", short_url(&self.page), self.tool.description),
            "inputSchema": self.tool.schema,
        });
        let mut annotations = Map::new();
        annotations.insert(
            "title".into(),
            Value::from(self.tool.title.clone().unwrap_or_else(|| self.tool.name.clone())),
        );
        annotations.insert("readOnlyHint".into(), Value::from(self.tool.read_only));
        annotations.insert("openWorldHint".into(), Value::from(true));
        tool["annotations"] = Value::Object(annotations);
        tool
    }
}

/// A URL cut to 80 characters, for the descriptions.
fn short_url(url: &str) -> String {
    let mut s = url.to_owned();
    crate::util::truncate_marked(&mut s, 80);
    s
}

/// The MCP name of tool `name`: `page_<name>`, or `page_<8 digits of the client id>_<name>` when
/// `client` is given (another open page offers a tool of that name too); characters outside
/// `A-Z a-z 0-9 _ -` as `_`, at most 64 characters. The plain name outlives a reload (the page's
/// client id does not), so an agent's remembered name still calls the tool.
pub(crate) fn mcp_name(client: Option<&str>, name: &str) -> String {
    let mut out = MCP_PREFIX.to_owned();
    if let Some(client) = client {
        out.extend(client.chars().take(CLIENT_DIGITS));
        out.push('_');
    }
    out.extend(
        name.chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }),
    );
    out.truncate(MCP_NAME_MAX);
    out
}

/// A `tool` step's own rule: `input`, when given, is an object (the tool's arguments).
pub(crate) fn check_tool_step(step: &Value) -> Result<(), String> {
    match step.get("input") {
        None | Some(Value::Null | Value::Object(_)) => Ok(()),
        Some(other) => Err(format!(
            "\"input\" must be an object (the tool's arguments), not {other}; e.g. {}",
            crate::protocol::STEP_FIELDS
                .iter()
                .find(|s| s.command == "tool")
                .map_or("", |s| s.example)
        )),
    }
}

/// Reads a `tools` step's answer, checking every entry again (the page's text is never trusted):
/// names by the WebMCP rule, descriptions cut, schemas objects of bounded size, at most
/// [`MAX_TOOLS`].
pub(crate) fn parse_listing(v: &Value) -> Result<Listing, String> {
    let Some(obj) = v.as_object() else {
        return Err("the page answered the tools step with no list".into());
    };
    let mut listing = Listing {
        revision: obj.get(wire::REVISION).and_then(Value::as_u64).unwrap_or(0),
        source: obj.get(wire::SOURCE).and_then(Value::as_str).unwrap_or("").to_owned(),
        ..Listing::default()
    };
    if let Some(Value::Array(skipped)) = obj.get(wire::SKIPPED) {
        listing.skipped = skipped
            .iter()
            .filter_map(Value::as_str)
            .take(MAX_TOOLS)
            .map(bounded)
            .collect();
    }
    for item in obj.get(wire::TOOLS).and_then(Value::as_array).into_iter().flatten() {
        let name = item.get("name").and_then(Value::as_str).unwrap_or("");
        if !valid_name(name) {
            listing.skipped.push(bounded(&format!(
                "{name}: not a tool name (1 to {} of A-Z a-z 0-9 _ - .)",
                wire::MAX_NAME
            )));
            continue;
        }
        if listing.tools.len() >= MAX_TOOLS {
            listing
                .skipped
                .push(format!("{name}: over {MAX_TOOLS} tools on one page"));
            continue;
        }
        let mut description = item.get("description").and_then(Value::as_str).unwrap_or("").to_owned();
        if description.trim().is_empty() {
            listing.skipped.push(format!("{name}: no description"));
            continue;
        }
        crate::util::truncate_marked(&mut description, MAX_DESCRIPTION);
        let schema = match item.get("inputSchema") {
            Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
            Some(v) => v.clone(),
            None => Value::Null,
        };
        let size = serde_json::to_string(&schema).map_or(usize::MAX, |s| s.len());
        if size > MAX_SCHEMA {
            listing
                .skipped
                .push(format!("{name}: input schema of {size} bytes, over {MAX_SCHEMA}"));
            continue;
        }
        // Only an object schema describes MCP arguments; anything else reads as "an object".
        let schema = match schema {
            Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("object") => Value::Object(o),
            _ => json!({"type": "object"}),
        };
        let mut title = item
            .get("title")
            .and_then(Value::as_str)
            .map(bounded)
            .filter(|t| !t.is_empty());
        if let Some(t) = title.as_mut() {
            crate::util::truncate_marked(t, 120);
        }
        listing.tools.push(PageTool {
            name: name.to_owned(),
            title,
            description,
            schema,
            read_only: item.get("readOnly").and_then(Value::as_bool) == Some(true),
            untrusted_output: item.get("untrustedOutput").and_then(Value::as_bool) == Some(true),
        });
    }
    Ok(listing)
}

fn bounded(s: &str) -> String {
    let mut s = s.to_owned();
    crate::util::truncate_marked(&mut s, 300);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_mcp_names_and_bounded() {
        assert_eq!(mcp_name(None, "add_todo"), "page_add_todo");
        assert_eq!(mcp_name(Some("0123456789abcdef"), "add_todo"), "page_01234567_add_todo");
        assert_eq!(mcp_name(None, "cart.add"), "page_cart_add");
        assert_eq!(mcp_name(Some("c1"), &"x".repeat(100)).len(), MCP_NAME_MAX);
    }

    #[test]
    fn listings_are_checked_again() {
        let v = json!({"revision": 3, "source": "shim", "tools": [
            {"name": "ok", "description": "fine", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}},
            {"name": "bad name", "description": "x"},
            {"name": "nodesc", "description": " "},
            {"name": "big", "description": "x", "inputSchema": {"type": "object", "description": "y".repeat(MAX_SCHEMA)}},
            {"name": "str", "description": "d", "inputSchema": "{\"type\":\"object\"}", "readOnly": true},
            {"name": "arr", "description": "d", "inputSchema": []},
        ]});
        let l = parse_listing(&v).unwrap();
        assert_eq!(l.revision, 3);
        let names: Vec<&str> = l.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["ok", "str", "arr"]);
        assert!(l.tools[1].read_only);
        assert_eq!(l.tools[2].schema, json!({"type": "object"}));
        assert_eq!(l.skipped.len(), 3, "{:?}", l.skipped);
        assert!(l.skipped[2].starts_with("big: input schema of "), "{:?}", l.skipped);
    }

    #[test]
    fn only_changes_signal() {
        let tools = PageTools::default();
        let rx = tools.subscribe();
        tools.heartbeat("a", 0);
        assert!(!rx.has_changed().unwrap(), "a page without tools costs nothing");
        tools.heartbeat("a", 1);
        assert!(rx.has_changed().unwrap());
        let mut rx = tools.subscribe();
        rx.mark_unchanged();
        tools.heartbeat("a", 1);
        assert!(!rx.has_changed().unwrap());
        tools.forget("a");
        assert!(rx.has_changed().unwrap());
    }

    #[test]
    fn tool_steps_take_an_object_input() {
        assert!(check_tool_step(&json!({"command": "tool", "name": "x", "input": {"a": 1}})).is_ok());
        assert!(check_tool_step(&json!({"command": "tool", "name": "x"})).is_ok());
        let e = check_tool_step(&json!({"command": "tool", "name": "x", "input": [1]})).unwrap_err();
        assert!(e.starts_with("\"input\" must be an object"), "{e}");
    }
}
