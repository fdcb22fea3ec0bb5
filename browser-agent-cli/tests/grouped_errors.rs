//! One error is one entry, through the real binary: a dev server under `--run` that prints a
//! Python traceback and answers 500 gives one `server` error with its frames in `stack`, and the
//! 5xx the proxy recorded is paired with it (issue 33, item 2).

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use browser_agent_testkit::http::request;
use common::*;
use serde_json::Value;

/// A dev server whose `/boom` raises, prints the traceback (as frameworks log it), then answers 500.
const APP: &str = r#"
import sys, traceback
from http.server import BaseHTTPRequestHandler, HTTPServer

def load_cart(user):
    return user["cart"]

class App(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/boom":
            self.send_response(200); self.end_headers(); self.wfile.write(b"ok"); return
        try:
            load_cart({})
        except Exception:
            print("Internal Server Error: /boom", file=sys.stderr)
            traceback.print_exc()
            sys.stderr.flush()
            self.send_response(500); self.end_headers(); self.wfile.write(b"boom")

HTTPServer(("127.0.0.1", int(sys.argv[1])), App).serve_forever()
"#;

/// The binary, killed on drop.
struct Cli(Child);

impl Drop for Cli {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn server_entries(addr: SocketAddr) -> Vec<Value> {
    let r = request(addr, "GET", &format!("{P}/console?type=server"), &[], b"");
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["logs"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_traceback_and_its_500_are_one_error_with_its_frames() {
    let dir = scratch("grouped");
    std::fs::write(dir.join("app.py"), APP).unwrap();
    let port = free_port();
    let command = format!("exec python3 -u {}/app.py {port}", dir.display());
    let target = format!("http://127.0.0.1:{port}");
    let mut child = bin()
        .args(["--target", &target, "--port", "0", "--run", &command])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().unwrap();
    let _cli = Cli(child);
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let deadline = Instant::now() + PATIENCE;
    let addr: SocketAddr = loop {
        let line = lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("the URL to open");
        if let Some(addr) = line
            .trim()
            .strip_prefix("open")
            .and_then(|rest| rest.trim().strip_prefix("http://"))
            .and_then(|rest| rest.trim_end_matches('/').parse().ok())
        {
            break addr;
        }
    };
    // The dev server may still be starting: ask until it answers.
    loop {
        let r = request(addr, "GET", "/boom", &[], b"");
        if r.status == 500 {
            break;
        }
        assert!(Instant::now() < deadline, "never a 500: {} {}", r.status, r.text());
        std::thread::sleep(Duration::from_millis(100));
    }
    // Both stored: the 5xx at once, the error once its output went quiet.
    let entries = loop {
        let entries = server_entries(addr);
        let errors = entries.iter().filter(|e| e["source"] == "output").count();
        if errors >= 1 || Instant::now() > deadline {
            break entries;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let errors: Vec<&Value> = entries.iter().filter(|e| e["source"] == "output").collect();
    let answers: Vec<&Value> = entries
        .iter()
        .filter(|e| e["source"] == "response" && e["status"] == 500)
        .collect();
    assert_eq!(errors.len(), 1, "one error, not one per line: {entries:#?}");
    assert_eq!(answers.len(), 1, "{entries:#?}");
    let (error, answer) = (errors[0], answers[0]);
    assert_eq!(error["text"], "KeyError: 'cart'", "{error}");
    let stack = error["stack"].as_str().expect("its frames");
    for line in [
        "Internal Server Error: /boom",
        "Traceback (most recent call last):",
        "in do_GET",
        "in load_cart",
    ] {
        assert!(stack.contains(line), "no {line:?} in\n{stack}");
    }
    // Whichever was stored second names the other.
    let paired = error["answerSeq"] == answer["seq"] || answer["causeSeq"] == error["seq"];
    assert!(paired, "the 5xx and its error name each other:\n{error}\n{answer}");
    std::fs::remove_dir_all(&dir).ok();
}
