//! `browser-agent init`: teaches the project's coding agents once. MCP entries in `.mcp.json`
//! (Claude Code), `.cursor/mcp.json` and `.vscode/mcp.json`, merged into what is there; a
//! section of `AGENTS.md` between markers, the rest of the file never touched. Running it again
//! changes nothing.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// The marker that opens our section of `AGENTS.md`.
pub const START: &str = "<!-- browser-agent:start -->";
/// The marker that closes it.
pub const END: &str = "<!-- browser-agent:end -->";
/// The server's name in every MCP file.
pub const SERVER_NAME: &str = "browser-agent";

/// What `init` does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The file, relative to the project.
    pub path: PathBuf,
    /// What it holds afterwards.
    pub content: String,
    /// `None`: the file is new; otherwise what it held.
    pub before: Option<String>,
}

impl Change {
    /// `create`, `update` or `unchanged`.
    pub fn verb(&self) -> &'static str {
        match &self.before {
            None => "create",
            Some(before) if *before == self.content => "unchanged",
            Some(_) => "update",
        }
    }
}

/// Why a file cannot be merged.
#[derive(Debug)]
pub struct InitError(pub String);

impl std::fmt::Display for InitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The changes for project `dir`, the proxy on `port` with `prefix` (nothing written).
pub fn plan(dir: &Path, port: u16, prefix: &str) -> Result<Vec<Change>, InitError> {
    let base = format!("http://127.0.0.1:{port}");
    let mcp = format!("{base}{prefix}/mcp");
    let mut changes = Vec::new();
    for (path, key, entry) in [
        (".mcp.json", "mcpServers", json!({"type": "http", "url": mcp})),
        (".cursor/mcp.json", "mcpServers", json!({"url": mcp})),
        (".vscode/mcp.json", "servers", json!({"type": "http", "url": mcp})),
    ] {
        let before = read(dir, path)?;
        let content = merge_mcp(path, before.as_deref(), key, entry)?;
        changes.push(Change {
            path: path.into(),
            content,
            before,
        });
    }
    let before = read(dir, "AGENTS.md")?;
    let content = merge_agents(before.as_deref(), &section(&base, prefix))?;
    changes.push(Change {
        path: "AGENTS.md".into(),
        content,
        before,
    });
    Ok(changes)
}

/// Writes the changes that change something; returns them all.
pub fn apply(dir: &Path, changes: &[Change]) -> Result<(), InitError> {
    for change in changes.iter().filter(|c| c.verb() != "unchanged") {
        let path = dir.join(&change.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| InitError(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(&path, &change.content)
            .map_err(|e| InitError(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

fn read(dir: &Path, path: &str) -> Result<Option<String>, InitError> {
    match std::fs::read_to_string(dir.join(path)) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(InitError(format!("cannot read {path}: {e}"))),
    }
}

/// `before` with `entry` under `key.browser-agent`; every other key as it was. An entry already
/// equal leaves the text as it was, byte for byte.
fn merge_mcp(path: &str, before: Option<&str>, key: &str, entry: Value) -> Result<String, InitError> {
    let mut root = match before {
        None => Map::new(),
        Some(text) if text.trim().is_empty() => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(InitError(format!(
                    "{path} is not a JSON object; fix or remove it, then run init again"
                )))
            }
            Err(e) => {
                return Err(InitError(format!(
                    "{path} is not valid JSON ({e}); fix it, then run init again"
                )))
            }
        },
    };
    let servers = root.entry(key).or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Err(InitError(format!(
            "{path}: \"{key}\" is not an object; fix it, then run init again"
        )));
    };
    if servers.get(SERVER_NAME) == Some(&entry) {
        if let Some(text) = before {
            return Ok(text.to_owned());
        }
    }
    servers.insert(SERVER_NAME.to_owned(), entry);
    let mut text = serde_json::to_string_pretty(&Value::Object(root)).expect("JSON values serialize");
    text.push('\n');
    Ok(text)
}

/// `before` with our section replaced (or appended, or as the whole file); the rest untouched.
fn merge_agents(before: Option<&str>, section: &str) -> Result<String, InitError> {
    let block = format!("{START}\n{section}{END}\n");
    let Some(text) = before else {
        return Ok(block);
    };
    match (text.find(START), text.find(END)) {
        (Some(start), Some(end)) if start < end => {
            let after = &text[end + END.len()..];
            let after = after.strip_prefix('\n').unwrap_or(after);
            Ok(format!("{}{block}{after}", &text[..start]))
        }
        (None, None) => {
            let sep = if text.is_empty() || text.ends_with("\n\n") {
                ""
            } else if text.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            Ok(format!("{text}{sep}{block}"))
        }
        _ => Err(InitError(format!(
            "AGENTS.md has one browser-agent marker without the other ({START} … {END}); fix it, then run init again"
        ))),
    }
}

/// What an agent reads: how to see the page, act in it, and prove a change.
fn section(base: &str, prefix: &str) -> String {
    format!(
        r#"## Browser (browser-agent)

The dev server runs behind `browser-agent` ({base}/): open pages carry its client, so you can read
what the browser sees and act in it. Prefer the `browser-agent` MCP server when your tool has it;
the same through curl:

- Logs (console, errors, failed requests, clicks; `server` = the dev server's error lines):
  `curl -s '{base}{prefix}/console?level=warn,error&limit=20'` (`type=server`, `sinceMs=`, `afterSeq=`)
- Open pages: `curl -s {base}{prefix}/page`
- Snapshot (one element a line, `[ref=eN]` to act on):
  `curl -s -H 'content-type: application/json' -d '{{"steps":[{{"command":"snapshot"}}]}}' {base}{prefix}/run`
- Act: the same `/run` with steps such as `{{"command":"click","ref":"e3"}}`,
  `{{"command":"fill","label":"Email","text":"a@b.c"}}`, `{{"command":"press","key":"Enter"}}`,
  `{{"command":"navigate","url":"/settings"}}`; add `{{"command":"snapshot","diff":true}}` to see what changed.
- Prove a change: reload (`{{"command":"reload"}}`), act as a user would, then show the snapshot
  and that `/console?level=error` has nothing new.
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_md_keeps_everything_outside_the_markers() {
        let s = "## Browser\nnew\n";
        assert_eq!(merge_agents(None, s).unwrap(), format!("{START}\n{s}{END}\n"));
        let first = merge_agents(Some("# Project\n\nRules."), s).unwrap();
        assert_eq!(first, format!("# Project\n\nRules.\n\n{START}\n{s}{END}\n"));
        let edited = format!("# Project\n{START}\nold\n{END}\nAfter.\n");
        assert_eq!(
            merge_agents(Some(&edited), s).unwrap(),
            format!("# Project\n{START}\n{s}{END}\nAfter.\n")
        );
        assert_eq!(merge_agents(Some(&first), s).unwrap(), first);
        assert!(merge_agents(Some(&format!("x {START} y")), s)
            .unwrap_err()
            .0
            .contains("one browser-agent marker"));
    }

    #[test]
    fn mcp_files_keep_other_servers_and_settle() {
        let entry = json!({"type": "http", "url": "u"});
        let before = r#"{"mcpServers": {"other": {"command": "x"}}, "z": 1}"#;
        let merged = merge_mcp(".mcp.json", Some(before), "mcpServers", entry.clone()).unwrap();
        let v: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(v["mcpServers"]["browser-agent"], entry);
        assert_eq!(v["z"], 1);
        assert_eq!(
            merge_mcp(".mcp.json", Some(&merged), "mcpServers", entry.clone()).unwrap(),
            merged
        );
        assert!(merge_mcp(".mcp.json", Some("[1]"), "mcpServers", entry.clone())
            .unwrap_err()
            .0
            .contains("not a JSON object"));
        assert!(merge_mcp(".mcp.json", Some("{"), "mcpServers", entry)
            .unwrap_err()
            .0
            .contains("not valid JSON"));
    }
}
