//! `browser-agent init`: the files it writes, `--dry-run`, and a second run changing nothing.

mod common;

use std::path::Path;

use common::*;

fn init(dir: &Path, extra: &[&str]) -> (i32, String) {
    let out = bin()
        .arg("init")
        .arg("--dir")
        .arg(dir)
        .args(extra)
        .output()
        .expect("the binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap(), text)
}

fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn init_writes_mcp_entries_and_an_agents_section_and_a_second_run_changes_nothing() {
    let dir = scratch("init");
    std::fs::write(dir.join("AGENTS.md"), "# Rules\n\nUse tabs.\n").unwrap();
    std::fs::create_dir_all(dir.join(".vscode")).unwrap();
    std::fs::write(
        dir.join(".vscode/mcp.json"),
        r#"{"servers": {"db": {"type": "stdio", "command": "db-mcp"}}}"#,
    )
    .unwrap();

    // A dry run says what it would do and writes nothing.
    let (code, out) = init(&dir, &["--port", "6173", "--dry-run"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("create .mcp.json (dry run)"), "{out}");
    assert!(out.contains("update AGENTS.md (dry run)"), "{out}");
    assert!(
        out.contains("| <!-- browser-agent:start -->"),
        "shows the content: {out}"
    );
    assert!(!dir.join(".mcp.json").exists());
    assert_eq!(read(&dir, "AGENTS.md"), "# Rules\n\nUse tabs.\n");

    let (code, out) = init(&dir, &["--port", "6173"]);
    assert_eq!(code, 0, "{out}");
    let url = "http://127.0.0.1:6173/__mindstudio_dev__/mcp";
    let json = |path: &str| serde_json::from_str::<serde_json::Value>(&read(&dir, path)).unwrap();
    assert_eq!(
        json(".mcp.json")["mcpServers"]["browser-agent"],
        serde_json::json!({"type": "http", "url": url})
    );
    assert_eq!(json(".cursor/mcp.json")["mcpServers"]["browser-agent"]["url"], url);
    let vscode = json(".vscode/mcp.json");
    assert_eq!(vscode["servers"]["browser-agent"]["url"], url);
    assert_eq!(vscode["servers"]["db"]["command"], "db-mcp", "other servers stay");
    let agents = read(&dir, "AGENTS.md");
    assert!(
        agents.starts_with("# Rules\n\nUse tabs.\n\n<!-- browser-agent:start -->\n"),
        "{agents}"
    );
    assert!(agents.ends_with("<!-- browser-agent:end -->\n"));
    assert!(agents.contains("curl -s 'http://127.0.0.1:6173/__mindstudio_dev__/console?level=warn,error&limit=20'"));

    // Twice: nothing changes, byte for byte.
    let before: Vec<String> = [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", "AGENTS.md"]
        .iter()
        .map(|p| read(&dir, p))
        .collect();
    let (code, out) = init(&dir, &["--port", "6173"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches("unchanged").count(), 4, "{out}");
    let after: Vec<String> = [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", "AGENTS.md"]
        .iter()
        .map(|p| read(&dir, p))
        .collect();
    assert_eq!(before, after);

    // Text the user wrote after our section stays where it is when the section is refreshed.
    std::fs::write(dir.join("AGENTS.md"), format!("{agents}\n## Mine\nkeep me\n")).unwrap();
    let (code, _) = init(&dir, &["--port", "7000"]);
    assert_eq!(code, 0);
    let agents = read(&dir, "AGENTS.md");
    assert!(agents.contains("127.0.0.1:7000") && !agents.contains("127.0.0.1:6173"));
    assert!(
        agents.starts_with("# Rules\n\nUse tabs.\n\n") && agents.ends_with("\n## Mine\nkeep me\n"),
        "{agents}"
    );
}

#[test]
fn init_refuses_a_broken_file_and_leaves_it_alone() {
    let dir = scratch("init-broken");
    std::fs::write(dir.join(".mcp.json"), "{ not json").unwrap();
    let (code, out) = init(&dir, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("browser-agent: error: .mcp.json is not valid JSON"),
        "{out}"
    );
    assert_eq!(read(&dir, ".mcp.json"), "{ not json");
    assert!(
        !dir.join("AGENTS.md").exists(),
        "nothing is written when one file cannot be merged"
    );
}
