//! The kill -9 cycle (issue 16 item 8), both adapters: a real host process (`src/bin/kill_host.rs`:
//! the test app with the agent and an NDJSON sink on a fixed file) serves a page that logs a
//! numbered message every 50 ms; the host is killed with SIGKILL three times, each time while the
//! page keeps logging, and started again on the same port. After each restart the page registers
//! again (listed alive, its title back from a heartbeat), the last batch the old process stored is
//! posted again as the page would retry it had the kill come between the write and the answer,
//! and at the end every message the page logged is in the NDJSON file exactly once: 0 lost, 0
//! duplicated.
//!
//! Every wait is for a condition (generous limits, for a busy 2-core machine), none is a sleep
//! that must be long enough.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use browser_agent_testkit::http::request;
use browser_tests::{exec, http_get, scratch, shared_browser, started_client, wait_for, within, PAGE_KEY, PREFIX};
use serde_json::{json, Value};

/// How long any one condition may take to come true.
const PATIENCE: Duration = Duration::from_secs(60);
/// The page's messages: `kill-cycle N`.
const MESSAGE: &str = "kill-cycle ";

/// One host process, killed with SIGKILL when dropped.
struct Host {
    child: Child,
    addr: SocketAddr,
}

impl Host {
    /// Starts `kill_host` and waits until it accepts connections on `addr`.
    async fn start(framework: &str, addr: SocketAddr, ndjson: &Path) -> Host {
        let child = Command::new(env!("CARGO_BIN_EXE_kill_host"))
            .args([framework, &addr.port().to_string(), &ndjson.display().to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start kill_host");
        let mut host = Host { child, addr };
        wait_for(&format!("the {framework} host to listen on {addr}"), PATIENCE, || {
            if let Ok(Some(status)) = host.child.try_wait() {
                panic!("kill_host exited early: {status}");
            }
            TcpStream::connect(addr).ok().map(|_| ())
        })
        .await;
        host
    }

    /// `kill -9`, and waits for the process to be gone.
    fn kill(&mut self) {
        // `Child::kill` is SIGKILL on Unix.
        self.child.kill().expect("kill -9 the host");
        self.child.wait().expect("reap the host");
    }

    /// `GET {prefix}/page`.
    fn pages(&self) -> Value {
        let (status, body) = http_get(self.addr, &format!("{PREFIX}/page"));
        assert_eq!(status, 200, "GET page: {body}");
        serde_json::from_str(&body).expect("page JSON")
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The entries of `client` the NDJSON file holds, in order (a line cut by a write in progress is
/// skipped).
fn entries_in(ndjson: &Path, client: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(ndjson).unwrap_or_default();
    text.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["clientId"] == client)
        .collect()
}

/// How many times the NDJSON file holds each message number of `client`, and the entries of
/// other types it holds for it (`dropped`, …).
fn in_file(ndjson: &Path, client: &str) -> (BTreeMap<u64, usize>, Vec<Value>) {
    let mut counts = BTreeMap::new();
    let mut other = Vec::new();
    for entry in entries_in(ndjson, client) {
        let line = entry.to_string();
        match entry["text"].as_str().and_then(|t| t.strip_prefix(MESSAGE)) {
            Some(n) if entry["type"] == "console" => {
                let n: u64 = n.parse().unwrap_or_else(|_| panic!("a message number: {line}"));
                *counts.entry(n).or_default() += 1;
            }
            _ => other.push(entry),
        }
    }
    (counts, other)
}

/// Waits until the host lists `client` alive with the page's title (a heartbeat reached it).
async fn registered(host: &Host, client: &str, what: &str) {
    wait_for(what, PATIENCE, || {
        let pages = host.pages();
        let listed = pages["pages"].as_array().is_some_and(|ps| {
            ps.iter()
                .any(|p| p["clientId"] == client && p["alive"] == true && p["title"] == "kill cycle")
        });
        listed.then_some(())
    })
    .await;
}

async fn kill_cycle(framework: &'static str) {
    let browser = shared_browser().await;
    let c = &browser.client;
    let dir = scratch().join(format!("kill-cycle-{framework}"));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let ndjson: PathBuf = dir.join("browser.ndjson");
    let _ = std::fs::remove_file(&ndjson);
    let addr = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let mut host = Host::start(framework, addr, &ndjson).await;
    c.goto(&format!("http://{addr}/kill_cycle.html"))
        .await
        .expect("open the page");
    let page = started_client(
        c,
        "var g = window.__browserAgent; return g && g.h ? g.clientId : null;",
        "the logging page",
    )
    .await;
    registered(&host, &page, "the page to register").await;
    let mut stored = 0;
    for round in 1..=3 {
        // The page's messages reach the file...
        stored = wait_for(
            &format!("round {round}: new messages of the page in the NDJSON file"),
            PATIENCE,
            || {
                let n = in_file(&ndjson, &page).0.len();
                (n >= stored + 10).then_some(n)
            },
        )
        .await;
        // ...the host dies in the middle of that (a batch may be in flight)...
        host.kill();
        // Had the kill come between a write and its answer, the page would post that batch again,
        // with the same seqs, to the next process: the last entries the killed one wrote play it.
        let retried: Vec<Value> = entries_in(&ndjson, &page)
            .iter()
            .rev()
            .filter(|e| e["type"] == "console")
            .take(5)
            .map(|e| json!({"type": "console", "level": "log", "args": [e["text"]], "clientId": page, "seq": e["clientSeq"]}))
            .collect();
        // ...while the page logs on, with nobody listening.
        let logged = exec(c, "return window.logged").await.as_u64().expect("logged");
        let deadline = Instant::now() + PATIENCE;
        while exec(c, "return window.logged").await.as_u64().unwrap_or(0) < logged + 20 {
            assert!(Instant::now() < deadline, "round {round}: the page stopped logging");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        host = Host::start(framework, addr, &ndjson).await;
        registered(&host, &page, &format!("round {round}: the page to register again")).await;
        // The retry reaches the new process: it must not write those entries twice.
        assert_eq!(retried.len(), 5, "entries to retry");
        let body = Value::Array(retried).to_string();
        let headers = [("content-type", "application/json"), ("x-browser-agent-key", PAGE_KEY)];
        let answer = request(addr, "POST", &format!("{PREFIX}/logs"), &headers, body.as_bytes());
        assert_eq!(answer.status, 204, "the retried batch: {}", answer.text());
    }
    let total = exec(c, "return window.stopLogging()").await.as_u64().expect("count");
    let (counts, other) = wait_for("every message in the NDJSON file", PATIENCE, || {
        let (counts, other) = in_file(&ndjson, &page);
        (counts.len() as u64 >= total).then_some((counts, other))
    })
    .await;
    let lost: Vec<u64> = (0..total).filter(|n| !counts.contains_key(n)).collect();
    let duplicated: Vec<(u64, usize)> = counts.iter().filter(|(_, k)| **k > 1).map(|(n, k)| (*n, *k)).collect();
    let unknown: Vec<u64> = counts.keys().filter(|n| **n >= total).copied().collect();
    assert!(
        lost.is_empty() && duplicated.is_empty() && unknown.is_empty(),
        "{framework}: {total} messages logged across 3 kills: lost {lost:?}, duplicated (n, times) {duplicated:?}, never logged {unknown:?}"
    );
    let dropped: Vec<&Value> = other.iter().filter(|e| e["type"] == "dropped").collect();
    assert!(dropped.is_empty(), "the page dropped entries: {dropped:?}");
    eprintln!(
        "{framework}: {total} messages logged across 3 kill -9 cycles, each once in {}",
        ndjson.display()
    );
    c.goto("about:blank").await.expect("leave the page");
    drop(host);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn axum_a_host_killed_three_times_loses_and_duplicates_nothing() {
    within("axum kill cycle", Duration::from_secs(400), kill_cycle("axum")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actix_a_host_killed_three_times_loses_and_duplicates_nothing() {
    within("actix kill cycle", Duration::from_secs(400), kill_cycle("actix")).await;
}
