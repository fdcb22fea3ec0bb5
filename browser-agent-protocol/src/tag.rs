//! The tag's configuration: what the injected `<script>` tells the page client.

use serde::{Deserialize, Serialize};

/// Attribute of the injected `<script>` that holds [`TagConfig`] as JSON.
pub const CONFIG_ATTR: &str = "data-browser-agent";

/// The configuration the injected tag exposes to the page client (and to tests and tools,
/// which can read it from the HTML: `<script data-browser-agent='{…}'>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagConfig {
    /// The per-process page key (survives host restarts when a key file is used).
    pub key: String,
    /// Route prefix, e.g. `/__mindstudio_dev__`.
    pub prefix: String,
    /// Client revision: the content hash of the embedded client assets.
    pub rev: String,
    /// URL of the client's JS glue (content-hashed); empty when no client is embedded.
    #[serde(default)]
    pub client: String,
    /// URL of the client's wasm module (content-hashed); empty when no client is embedded.
    #[serde(default)]
    pub wasm: String,
    /// Show the agent cursor even outside an iframe.
    #[serde(default)]
    pub cursor: bool,
    /// Notes mode is available (the shortcut, the parent frame's messages, the `notes` step);
    /// written only when off.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub notes: bool,
    /// The notes shortcut (`Control+Alt+Shift+Meta` order, then a `KeyboardEvent.code`:
    /// `Alt+Shift+KeyN`); written only when it is not [`notes::DEFAULT_KEY`](crate::notes::DEFAULT_KEY).
    #[serde(default, rename = "notesKey", skip_serializing_if = "Option::is_none")]
    pub notes_key: Option<String>,
    /// The only origin whose parent-frame messages notes mode takes (any parent's when `None`).
    #[serde(default, rename = "notesOrigin", skip_serializing_if = "Option::is_none")]
    pub notes_origin: Option<String>,
    /// The page's default snapshot budget in tokens; written only when it is not
    /// [`SNAPSHOT_BUDGET`](crate::SNAPSHOT_BUDGET).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u32>,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Feature `json`: the config as JSON inside the tag.
#[cfg(feature = "json")]
impl TagConfig {
    /// The config as the value of the tag's single-quoted [`CONFIG_ATTR`] attribute: JSON with
    /// what could end the attribute or start an entity escaped (what the host's tag writes).
    ///
    /// ```
    /// use browser_agent_protocol::TagConfig;
    /// let html = r#"<script data-browser-agent='{"key":"k","prefix":"/p","rev":"r"}'>"#;
    /// let cfg = TagConfig::from_html(html).unwrap();
    /// assert_eq!(cfg.to_attribute(), r#"{"key":"k","prefix":"/p","rev":"r","client":"","wasm":"","cursor":false}"#);
    /// ```
    pub fn to_attribute(&self) -> String {
        let json = serde_json::to_string(self).expect("TagConfig always serializes");
        json.replace('&', "&amp;").replace('\'', "&#39;").replace('<', "&lt;")
    }

    /// Reads the config back from an injected page, as a tool or a test would (the first tag's).
    ///
    /// ```
    /// use browser_agent_protocol::TagConfig;
    /// let html = r#"<head><script data-browser-agent='{"key":"k3y","prefix":"/p","rev":"it&#39;s"}'>…</script>"#;
    /// let cfg = TagConfig::from_html(html).unwrap();
    /// assert_eq!((cfg.key.as_str(), cfg.rev.as_str(), cfg.cursor), ("k3y", "it's", false));
    /// assert!(TagConfig::from_html("<head></head>").is_none());
    /// ```
    pub fn from_html(html: &str) -> Option<TagConfig> {
        let open = format!("{CONFIG_ATTR}='");
        let start = html.find(&open)? + open.len();
        let end = start + html[start..].find('\'')?;
        let json = html[start..end]
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&amp;", "&");
        serde_json::from_str(&json).ok()
    }
}
