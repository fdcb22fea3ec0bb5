//! The MCP endpoint with clients nobody here wrote: the official TypeScript SDK
//! (`scripts/mcp/ts-client.mjs`) and the official Python SDK (`scripts/mcp/py_client.py`, once
//! with its default `auto` mode, which speaks 2026-07-28, and once forced to the legacy
//! `initialize` handshake), each connecting over streamable HTTP to the axum and the actix demo
//! with the demo page open in real headless Chromium: tools listed, logs read, a snapshot with the
//! demo's button, a type (or fill) + click batch that adds an item to the page, the logs it caused, the
//! action log. `scripts/mcp/setup` installs the pinned SDKs under `target/` when they are missing.
//! The o200k token counts of the live tools/list and of the click answers are printed, not
//! asserted (`scripts/mcp/count-tokens.mjs`, npm gpt-tokenizer).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Once;
use std::time::{Duration, Instant};

use browser_tests::{agent, client_id, scratch, Browser, Framework, Server};
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("repo root")
}

/// Installs the SDKs once per test process (npm ci / venv + pip, only when missing).
fn setup() {
    static SETUP: Once = Once::new();
    SETUP.call_once(|| {
        let status = Command::new("bash")
            .arg(root().join("scripts/mcp/setup"))
            .status()
            .expect("run scripts/mcp/setup");
        assert!(
            status.success(),
            "scripts/mcp/setup failed: it installs the pinned MCP SDKs under target/"
        );
        // Click answers of earlier runs would be counted with this run's.
        let dir = root().join("target/mcp");
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with("interop-click-") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    });
}

/// Runs a client to completion (at most 120 s) and parses the JSON it prints.
fn run_client(mut cmd: Command, what: &str) -> Value {
    let mut child = cmd
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {what}: {e}"));
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("client output");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{what} printed no JSON ({e}):\n{stdout}\nstderr:\n{stderr}"));
    assert!(
        out.status.success() && v.get("error").is_none(),
        "{what} failed: {v}\nstderr:\n{stderr}"
    );
    v
}

/// What every client must have seen; `entry` typed or filled `item` into the page's list.
fn check(v: &Value, what: &str, entry: &str, item: &str) {
    assert_eq!(
        v["tools"],
        json!([
            "browser_logs",
            "browser_pages",
            "browser_snapshot",
            "browser_run",
            "browser_actions"
        ]),
        "{what}"
    );
    assert_eq!(v["serverInfo"]["name"], "browser-agent", "{what}: {v}");
    let tool = |name: &str| {
        let t = &v[name];
        assert_eq!(t["isError"], false, "{what} {name}: {t}");
        t["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{what} {name}: {t}"))
            .to_owned()
    };
    let logs = tool("logs");
    assert!(
        (logs.contains(" entries (lastSeq ") || logs.contains(" entry (lastSeq ")) && logs.contains("(client "),
        "{what} logs:\n{logs}"
    );
    let snapshot = tool("snapshot");
    assert!(
        snapshot.contains("button \"Add\" [ref="),
        "{what} snapshot:\n{snapshot}"
    );
    assert!(
        snapshot.contains("textbox \"New item\""),
        "{what} snapshot:\n{snapshot}"
    );
    let click = tool("click");
    let done = if entry == "type" { "typed" } else { "filled" };
    assert!(
        click.contains(&format!("1. {entry} textbox \"New item\"")),
        "{what} click:\n{click}"
    );
    assert!(
        click.contains(&format!(": {done} \"{item}\"\n")),
        "{what} click:\n{click}"
    );
    assert!(
        click.contains("2. click button \"Add\" [ref="),
        "{what} click:\n{click}"
    );
    assert!(click.contains(&format!("+ \"{item}\"")), "{what} click:\n{click}");
    let after = tool("logsAfter");
    assert!(
        after.contains("POST /api/items → 200"),
        "{what} logs after the click:\n{after}"
    );
    let actions = tool("actions");
    assert!(actions.contains("click button \"Add\""), "{what} actions:\n{actions}");
    println!(
        "{what}: protocol {}, click answer {} chars:\n{click}",
        v["protocolVersion"],
        click.len()
    );
    if what == "ts client on Axum" {
        println!("first answers, as an agent reads them:\n{logs}\n{snapshot}\n{after}\n{actions}");
    }
    // For scripts/mcp/count-tokens.mjs, which counts every target/mcp/*click*.txt.
    let dir = root().join("target/mcp");
    std::fs::create_dir_all(&dir).expect("target/mcp");
    let file = format!("interop-click-{}.txt", what.replace(' ', "-"));
    std::fs::write(dir.join(file), &click).expect("dump the click answer");
}

/// `entry` (`type` or `fill`) `item` into the new-item box, click Add, wait for the item.
fn steps(entry: &str, item: &str) -> String {
    json!([
        {"command": entry, "label": "New item", "text": item},
        {"command": "click", "role": "button", "name": "Add"},
        {"command": "wait", "text": item}
    ])
    .to_string()
}

async fn against(framework: Framework, browser: &Browser) {
    let server = Server::start_on(framework, agent(), "127.0.0.1:0".parse().unwrap());
    browser.client.goto(&server.url("/")).await.expect("open the demo");
    client_id(&browser.client, &server).await;
    let url = server.url(&format!("{}/mcp", browser_agent_core::protocol::DEFAULT_PREFIX));
    let root = root();
    let clients: Vec<(String, &str, &str, Command)> = vec![
        ("ts".to_owned(), "2025-11-25", "type", {
            let mut c = Command::new("node");
            c.arg(root.join("scripts/mcp/ts-client.mjs"))
                .arg(&url)
                .arg(steps("type", &format!("from ts {framework:?}")));
            c
        }),
        ("py".to_owned(), "2026-07-28", "fill", {
            let mut c = Command::new(root.join("target/mcp-venv/bin/python"));
            c.arg(root.join("scripts/mcp/py_client.py"))
                .arg(&url)
                .arg(steps("fill", &format!("from py {framework:?}")));
            c
        }),
        ("py-legacy".to_owned(), "2025-11-25", "type", {
            let mut c = Command::new(root.join("target/mcp-venv/bin/python"));
            c.arg(root.join("scripts/mcp/py_client.py"))
                .arg(&url)
                .arg(steps("type", &format!("from py-legacy {framework:?}")))
                .args(["--mode", "legacy"]);
            c
        }),
    ];
    for (name, version, entry, cmd) in clients {
        let what = format!("{name} client on {framework:?}");
        let v = tokio::task::spawn_blocking({
            let what = what.clone();
            move || run_client(cmd, &what)
        })
        .await
        .expect("client thread");
        assert_eq!(v["protocolVersion"], version, "{what}: {v}");
        check(&v, &what, entry, &format!("from {name} {framework:?}"));
        if name == "ts" {
            assert_eq!(
                v["badTool"]["code"], -32602,
                "{what}: an unknown tool is a protocol error: {v}"
            );
        }
    }
    // One click that changes one line of the page (the status), and the errors it causes.
    let what = format!("ts client, one click, on {framework:?}");
    let mut cmd = Command::new("node");
    let one = json!([{"command": "click", "role": "button", "name": "Load broken API"}]).to_string();
    cmd.arg(root.join("scripts/mcp/ts-client.mjs")).arg(&url).arg(one);
    let v = tokio::task::spawn_blocking({
        let what = what.clone();
        move || run_client(cmd, &what)
    })
    .await
    .expect("client thread");
    let click = v["click"]["text"].as_str().unwrap_or_default().to_owned();
    assert_eq!(v["click"]["isError"], false, "{what}: {v}");
    assert!(
        click.contains("1. click button \"Load broken API\" [ref="),
        "{what}:\n{click}"
    );
    assert!(click.contains("+ \"Broken API answered 500\""), "{what}:\n{click}");
    assert!(click.contains("error network GET /api/fail → 500"), "{what}:\n{click}");
    println!("{what}: click answer {} chars:\n{click}", click.len());
    let file = format!("interop-click-one-line-{framework:?}.txt");
    std::fs::write(root.join("target/mcp").join(file), &click).expect("dump the click answer");
    if framework == Framework::Actix {
        // The last server: every click answer of this run is dumped. The token figures, counted with a real o200k tokenizer on this server's own tools/list
        // and the click answers above; reported, not asserted (the budgets are benchmark targets).
        let mut cmd = Command::new("node");
        cmd.arg(root.join("scripts/mcp/count-tokens.mjs")).args(["--url", &url]);
        let report = tokio::task::spawn_blocking(move || run_client(cmd, "count-tokens.mjs"))
            .await
            .expect("counter thread");
        println!(
            "o200k tokens: tools/list {} (budget 1,000; Playwright MCP 4,415, chrome-devtools-mcp 6,551), per tool {}, click answers {}",
            report["toolsList"]["tokens"], report["perTool"], report["interopClicks"]
        );
        assert_eq!(report["toolsList"]["tools"], 5, "{report}");
    }
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_sdk_clients_drive_the_demo_over_mcp() {
    setup();
    let scratch = scratch();
    let browser = Browser::launch(&scratch).await;
    for framework in [Framework::Axum, Framework::Actix] {
        against(framework, &browser).await;
    }
    browser.close().await;
    let _ = std::fs::remove_dir_all(&scratch);
}
