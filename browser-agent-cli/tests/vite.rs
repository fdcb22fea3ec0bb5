//! Interop with a dev server nobody here wrote: Vite (npm `vite@8.3.8`, pinned by the committed
//! `tests/vite-app/package-lock.json`, installed by this test into `target/cli-vite/`) started by
//! `browser-agent --run`, a tiny app opened through the proxy in real Chromium. The page loads
//! with the client, its console and a failing fetch are captured, a `/run` click works, and an
//! edit of a source file reaches the page through Vite's HMR WebSocket (through our proxy)
//! without a reload; then all of it again with Vite serving https (a self-signed certificate).

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use browser_agent_testkit::http::request;
use browser_tests::{started_client, within, Browser};
use common::*;
use serde_json::{json, Value};

/// The app's files, committed.
fn app_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vite-app")
}

/// `target/cli-vite/`: the app copied fresh, Vite installed with `npm ci` when the lock changed.
fn install_app() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../cli-vite");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let source = app_source();
    for file in [
        "package.json",
        "index.html",
        "vite.config.js",
        "src/main.js",
        "src/message.js",
    ] {
        std::fs::copy(source.join(file), dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    let lock = std::fs::read(source.join("package-lock.json")).unwrap();
    let mut installed = std::fs::read(dir.join("package-lock.json")).ok();
    // npm skips an optional dependency it failed to fetch and still succeeds (npm/cli#4828):
    // without rolldown's native binding Vite cannot start, so the install is tried again.
    let has_binding = |dir: &Path| {
        std::fs::read_dir(dir.join("node_modules/@rolldown"))
            .map(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with("binding-"))
            })
            .unwrap_or(false)
    };
    let mut attempt = 0;
    while installed.as_deref() != Some(&lock[..]) || !dir.join("node_modules/.bin/vite").exists() || !has_binding(&dir)
    {
        attempt += 1;
        assert!(
            attempt <= 3,
            "npm ci left rolldown without its native binding 3 times in {}",
            dir.display()
        );
        let _ = std::fs::remove_dir_all(dir.join("node_modules"));
        std::fs::write(dir.join("package-lock.json"), &lock).unwrap();
        let mut npm = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--silent"])
            .current_dir(&dir)
            .stdin(Stdio::null())
            .spawn()
            .expect("npm runs (Debian's nodejs and npm)");
        let deadline = Instant::now() + Duration::from_secs(300);
        let status = loop {
            if let Some(status) = npm.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = npm.kill();
                panic!("npm ci did not finish within 300 s");
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        assert!(status.success(), "npm ci failed in {}", dir.display());
        installed = Some(lock.clone());
    }
    dir.canonicalize().unwrap()
}

/// `browser-agent --run vite`, its stderr watched; Ctrl-C on drop.
struct Cli {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Drop for Cli {
    fn drop(&mut self) {
        // Ctrl-C, so it stops Vite's process group.
        if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::INT);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Cli {
    fn addr(&mut self) -> SocketAddr {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("browser-agent never printed its URL:\n{}", self.seen.join("\n")));
            let addr = line
                .trim()
                .strip_prefix("open")
                .and_then(|rest| rest.trim().strip_prefix("http://"))
                .and_then(|rest| rest.trim_end_matches('/').parse().ok());
            self.seen.push(line);
            if let Some(addr) = addr {
                return addr;
            }
        }
    }
}

/// `browser-agent --run vite`, Vite serving https with the certificate `tls` names (key, cert).
fn start_cli(app: &Path, tls: Option<&(PathBuf, PathBuf)>) -> Cli {
    let vite_port = free_port();
    let run = format!("node_modules/.bin/vite --port {vite_port} --strictPort --host 127.0.0.1");
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut command = bin();
    if let Some((key, cert)) = tls {
        command.env("TLS_KEY", key).env("TLS_CERT", cert);
    }
    let mut child = command
        .args([
            "--target",
            &format!("{scheme}://127.0.0.1:{vite_port}"),
            "--port",
            "0",
            "--run",
            &run,
        ])
        .current_dir(app)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let (tx, lines) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("[browser-agent] {line}");
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    Cli {
        child,
        lines,
        seen: Vec::new(),
    }
}

/// Polls `GET {prefix}/console?{query}` until `pick` finds something (bounded).
async fn console_until(addr: SocketAddr, query: &str, what: &str, pick: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let path = format!("{P}/console?{query}");
        let r = tokio::task::spawn_blocking(move || request(addr, "GET", &path, &[], b""))
            .await
            .unwrap();
        let logs = r.json()["logs"].as_array().cloned().unwrap_or_default();
        if pick(&logs) {
            return logs;
        }
        assert!(Instant::now() < deadline, "never logged: {what}; last: {logs:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn exec(client: &fantoccini::Client, script: &str) -> Value {
    client.execute(script, vec![]).await.expect("execute")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vite_app_gets_the_whole_agent_and_hmr_still_works() {
    let app = install_app();
    let scratch = scratch("vite");
    let browser = Browser::launch(&scratch).await;
    scenario(&app, &browser, None).await;
    // The same over https (Vite's `server.https`): the browser speaks http to us, we speak TLS
    // to Vite, its HMR WebSocket included. (One after the other: both edit the app's source.)
    install_app();
    let tls = self_signed(&scratch);
    scenario(&app, &browser, Some(&tls)).await;
    browser.close().await;
}

/// The app through `browser-agent --run vite` (over https with `tls`): see the module.
async fn scenario(app: &Path, browser: &Browser, tls: Option<&(PathBuf, PathBuf)>) {
    let mut cli = start_cli(app, tls);
    let addr = cli.addr();
    let cli = &mut cli;
    within("the Vite scenario", Duration::from_secs(240), async {
        let client = &browser.client;
        client.goto(&format!("http://{addr}/")).await.expect("open the app");
        let id = started_client(
            client,
            "var g = window.__browserAgent; return g && g.h ? g.clientId : null;",
            "the Vite page",
        )
        .await;
        let loaded_at = exec(client, "return window.__appLoadedAt").await;
        assert!(loaded_at.is_number(), "the app's module ran: {loaded_at}");
        assert_eq!(exec(client, "return document.querySelector('#msg').textContent").await, "first version");

        // Its console is captured.
        console_until(addr, "type=console", "the app's console.log", |logs| {
            logs.iter().any(|e| e["text"] == "vite app started")
        })
        .await;

        // A click through /run, and the failing fetch it makes is captured.
        let body = json!({"steps": [{"command": "click", "selector": "#load"}, {"command": "wait", "text": "items: HTTP 500"}]});
        let path = format!("{P}/run");
        let r = tokio::task::spawn_blocking(move || {
            request(addr, "POST", &path, &[("content-type", "application/json")], body.to_string().as_bytes())
        })
        .await
        .unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["clientId"], id.as_str());
        let network = console_until(addr, "type=network", "the failing fetch", |logs| {
            logs.iter().any(|e| e["status"] == 500)
        })
        .await;
        let failed = network.iter().find(|e| e["status"] == 500).unwrap();
        assert!(failed["url"].as_str().unwrap_or("").contains("/api/items"), "{failed}");

        // An edit reaches the page through Vite's HMR WebSocket, through us, without a reload.
        let message = app.join("src/message.js");
        let source = std::fs::read_to_string(&message).unwrap();
        std::fs::write(&message, source.replace("first version", "second version")).unwrap();
        let deadline = Instant::now() + PATIENCE;
        loop {
            let text = exec(client, "return document.querySelector('#msg').textContent").await;
            if text == "second version" {
                break;
            }
            assert!(Instant::now() < deadline, "the edit never reached the page (HMR): {text}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(exec(client, "return window.__appLoadedAt").await, loaded_at, "no reload");
        let same = exec(client, "var g = window.__browserAgent; return g && g.clientId;").await;
        assert_eq!(same, id.as_str(), "the agent's client survived the update");

        // The terminal said when the page connected.
        let deadline = Instant::now() + PATIENCE;
        let wanted = format!("browser-agent: page connected: http://{addr}/ (client {id})");
        while !cli.seen.contains(&wanted) {
            let left = deadline.saturating_duration_since(Instant::now());
            match cli.lines.recv_timeout(left) {
                Ok(line) => cli.seen.push(line),
                Err(_) => panic!("no status line {wanted:?}:\n{}", cli.seen.join("\n")),
            }
        }
    })
    .await;
}
