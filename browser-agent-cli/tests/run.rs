//! The binary: `--run` (output to `server` entries, the whole group stopped on Ctrl-C and
//! SIGTERM), and bad input with its message and exit code.

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use browser_agent_cli::exit;
use browser_agent_testkit::http::request;
use common::*;
use rustix::process::{kill_process, test_kill_process_group, Pid, Signal};

/// The binary running, its stderr lines collected as they come.
struct Cli {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Drop for Cli {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Cli {
    fn start(args: &[&str]) -> Cli {
        let mut child = bin()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let (tx, lines) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
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

    /// browser-agent with `--run` of `shell` (`{port}` standing for the dev server's free port,
    /// which is the `--target`), listening on any free port, with `extra` flags.
    fn run_dev_server(shell: &str, extra: &[&str]) -> Cli {
        let port = free_port().to_string();
        let command = shell.replace("{port}", &port);
        let target = format!("http://127.0.0.1:{port}");
        let mut args = vec!["--target", &target, "--port", "0", "--run", &command];
        args.extend_from_slice(extra);
        Cli::start(&args)
    }

    /// The first stderr line that `f` accepts (bounded).
    fn line<T>(&mut self, what: &str, mut f: impl FnMut(&str) -> Option<T>) -> T {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = f(&line);
                    self.seen.push(line);
                    if let Some(found) = found {
                        return found;
                    }
                }
                Err(_) => panic!("never saw {what}; stderr so far:\n{}", self.seen.join("\n")),
            }
        }
    }

    /// The proxy's address, from the `open http://…/` line.
    fn addr(&mut self) -> SocketAddr {
        self.line("the URL to open", |l| {
            l.trim()
                .strip_prefix("open")
                .and_then(|rest| rest.trim().strip_prefix("http://"))
                .and_then(|rest| rest.trim_end_matches('/').parse().ok())
        })
    }

    /// The dev server's process group, from the `started the dev server` line.
    fn pgid(&mut self) -> i32 {
        self.line("the dev server's process group", |l| {
            l.contains("started the dev server")
                .then(|| l.rsplit("process group ").next()?.trim_end_matches(')').parse().ok())
                .flatten()
        })
    }

    /// Waits for the exit (bounded); returns its code and all of stderr.
    fn exit(mut self) -> (i32, String) {
        let deadline = Instant::now() + PATIENCE;
        let code = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status.code().expect("exited, not killed");
            }
            assert!(Instant::now() < deadline, "still running:\n{}", self.seen.join("\n"));
            std::thread::sleep(Duration::from_millis(50));
        };
        // The reader thread ends with the pipe.
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        (code, self.seen.join("\n"))
    }

    /// Waits for an exit by signal (bounded).
    fn exit_signalled(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "still running");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn signal(&self, signal: Signal) {
        let pid = Pid::from_raw(self.child.id() as i32).expect("a child's pid");
        kill_process(pid, signal).expect("our child takes signals");
    }
}

/// A dev server the shell `exec`s: Python's http.server on `{port}`.
const PYTHON_DEV_SERVER: &str = "exec python3 -m http.server {port} --bind 127.0.0.1";

fn group_alive(pgid: i32) -> bool {
    // Signal 0 only checks whether the group exists (never group 1: every process we may signal).
    assert!(pgid > 1, "a process group of our own: {pgid}");
    test_kill_process_group(Pid::from_raw(pgid).unwrap()).is_ok()
}

fn wait_group_gone(pgid: i32) {
    let deadline = Instant::now() + PATIENCE;
    while group_alive(pgid) {
        assert!(Instant::now() < deadline, "process group {pgid} outlived browser-agent");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A dev server: Python's http.server in the background, a Node-style error and stack frame on
/// stderr once it listens, then waiting on the server (as `npm run dev` does).
fn dev_server_command(port: u16) -> String {
    format!(
        "python3 -m http.server {port} --bind 127.0.0.1 >/dev/null 2>&1 & \
         echo 'dev server starting'; \
         echo 'TypeError: Cannot read properties of undefined (reading \"map\")' >&2; \
         echo '    at render (/app/src/server.js:12:7)' >&2; \
         wait"
    )
}

#[test]
fn run_feeds_error_lines_to_server_entries_and_ctrl_c_stops_the_whole_group() {
    let port = free_port();
    let target = format!("http://127.0.0.1:{port}");
    let command = dev_server_command(port);
    let mut cli = Cli::start(&["--target", &target, "--port", "0", "--run", &command]);
    let pgid = cli.pgid();
    let addr = cli.addr();
    assert!(group_alive(pgid));

    // The dev server's lines came through our terminal, and the error with its frame is one entry.
    let entries = {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let r = request(addr, "GET", &format!("{P}/console?type=server"), &[], b"");
            assert_eq!(r.status, 200, "{}", r.text());
            let logs = r.json()["logs"].as_array().cloned().unwrap_or_default();
            if !logs.is_empty() || Instant::now() > deadline {
                break logs;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let texts: Vec<&str> = entries.iter().filter_map(|e| e["text"].as_str()).collect();
    assert_eq!(
        texts,
        ["TypeError: Cannot read properties of undefined (reading \"map\")"]
    );
    assert_eq!(entries[0]["stack"], "    at render (/app/src/server.js:12:7)");
    assert_eq!(entries[0]["type"], "server");
    assert_eq!(entries[0]["level"], "error");
    assert_eq!(entries[0]["stream"], "stderr");
    let other = request(addr, "GET", &format!("{P}/console?type=console"), &[], b"");
    assert_eq!(
        other.json()["logs"],
        serde_json::json!([]),
        "only `server` entries so far"
    );

    // The app answers through the proxy.
    assert_eq!(request(addr, "GET", "/", &[], b"").status, 200);

    cli.signal(Signal::INT);
    let (code, stderr) = cli.exit();
    assert_eq!(code, exit::INTERRUPTED, "{stderr}");
    assert!(stderr.contains("TypeError: Cannot read properties"), "echoed: {stderr}");
    assert!(
        stderr.contains(&format!("stopped the dev server (process group {pgid}")),
        "{stderr}"
    );
    wait_group_gone(pgid);
}

#[test]
fn sigterm_stops_the_dev_server_too() {
    let mut cli = Cli::run_dev_server(PYTHON_DEV_SERVER, &[]);
    let pgid = cli.pgid();
    let _ = cli.addr();
    cli.signal(Signal::TERM);
    let (code, stderr) = cli.exit();
    assert_eq!(code, exit::TERMINATED, "{stderr}");
    wait_group_gone(pgid);
}

#[test]
fn proof_dir_holds_the_sessions_with_the_dev_server_s_errors() {
    // A proof session started through the proxy is written under --proof-dir, and its summary
    // has the dev server's 5xx that passed the proxy meanwhile.
    let proofs = scratch("proofs");
    let dir = proofs.to_str().unwrap();
    let mut cli = Cli::run_dev_server(PYTHON_DEV_SERVER, &["--proof-dir", dir]);
    let addr = cli.addr();
    cli.line("where proofs go", |l| {
        l.trim().strip_prefix("proofs")?.trim().starts_with(dir).then_some(())
    });
    let json = [("content-type", "application/json")];
    let started = request(
        addr,
        "POST",
        &format!("{P}/proof/start"),
        &json,
        br#"{"description":"the upload fails"}"#,
    );
    assert_eq!(started.status, 200, "{}", started.text());
    let session = started.json()["dir"].as_str().unwrap().to_owned();
    assert!(session.starts_with(dir), "{session} is under {dir}");
    // Python's http.server has no DELETE: 501, a server error in the session's timeline.
    assert_eq!(request(addr, "DELETE", "/", &[], b"").status, 501);
    let stopped = request(addr, "POST", &format!("{P}/proof/stop"), &json, b"{}");
    assert_eq!(stopped.status, 200, "{}", stopped.text());
    let report = stopped.json();
    let summary = std::fs::read_to_string(report["summary"].as_str().unwrap()).expect("SUMMARY.md");
    assert!(summary.contains("DELETE / → 501"), "{summary}");
    assert!(Path::new(&session).join("viewer.html").is_file());
}

#[test]
fn with_a_token_the_banner_lines_carry_its_header_and_any_case_of_bearer_works() {
    let mut cli = Cli::run_dev_server(
        PYTHON_DEV_SERVER,
        &["--token", "s3cret-t0ken", "--mcp-allow-origin", "http://localhost:6274"],
    );
    let addr = cli.addr();
    cli.line("the logs line with the header", |l| {
        (l.contains("logs      curl -s -H 'Authorization: Bearer <token>' 'http://")).then_some(())
    });
    cli.line("the MCP line with the header", |l| {
        l.trim_end()
            .ends_with("/mcp --header 'Authorization: Bearer <token>'")
            .then_some(())
    });
    assert!(
        !cli.seen.iter().any(|l| l.contains("s3cret-t0ken")),
        "the token itself is not printed"
    );
    let page = format!("{P}/page");
    assert_eq!(request(addr, "GET", &page, &[], b"").status, 401);
    // --mcp-allow-origin lets MCP Inspector's origin in; another stays out.
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mcp = format!("{P}/mcp");
    let auth = ("authorization", "Bearer s3cret-t0ken");
    let json = ("content-type", "application/json");
    let accept = ("accept", "application/json, text/event-stream");
    let from = |origin| request(addr, "POST", &mcp, &[auth, json, accept, ("origin", origin)], ping).status;
    assert_eq!(from("http://localhost:6274"), 200);
    assert_eq!(from("http://evil.test"), 403);
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let auth = format!("{scheme} s3cret-t0ken");
        assert_eq!(
            request(addr, "GET", &page, &[("authorization", &auth)], b"").status,
            200,
            "{scheme}"
        );
    }
}

#[test]
fn a_run_that_exits_at_once_says_so_with_its_status() {
    let target = format!("http://127.0.0.1:{}", free_port());
    let cli = Cli::start(&[
        "--target",
        &target,
        "--port",
        "0",
        "--run",
        "echo 'Error: Cannot find module vite'; exit 7",
    ]);
    let (code, stderr) = cli.exit();
    assert_eq!(code, exit::FAILURE, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "browser-agent: error: the dev server (--run \"echo 'Error: Cannot find module vite'; exit 7\") exited with status 7 before {target} accepted connections"
        )),
        "{stderr}"
    );
}

#[test]
fn an_unreachable_target_fails_after_the_startup_timeout() {
    let target = format!("http://127.0.0.1:{}", free_port());
    let cli = Cli::start(&["--target", &target, "--port", "0", "--startup-timeout", "0.5"]);
    let (code, stderr) = cli.exit();
    assert_eq!(code, exit::UNREACHABLE, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "browser-agent: error: nothing accepts connections at {target} ("
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("start the dev server first, or let browser-agent start it with --run"),
        "{stderr}"
    );
}

#[test]
fn a_port_in_use_is_refused_before_anything_starts() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port();
    let marker = scratch("port-in-use").join("started");
    let command = format!("touch {}", marker.display());
    let cli = Cli::start(&[
        "--target",
        "http://127.0.0.1:5173",
        "--port",
        &port.to_string(),
        "--run",
        &command,
    ]);
    let (code, stderr) = cli.exit();
    assert_eq!(code, exit::LISTEN, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "browser-agent: error: cannot listen on 127.0.0.1:{port}: port {port} is in use"
        )),
        "{stderr}"
    );
    assert!(!marker.exists(), "the dev server is not started when we cannot listen");
}

#[test]
fn bad_arguments_exit_2_with_clap_s_message() {
    let out = bin().args(["--target", "ftp://127.0.0.1:5173"]).output().unwrap();
    assert_eq!(out.status.code(), Some(exit::USAGE));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("only http:// and https:// URLs are supported"),
        "{stderr}"
    );
    let out = bin().output().unwrap();
    assert_eq!(out.status.code(), Some(exit::USAGE));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--target <URL>"));
    // An empty token (an unset variable) would lock every agent route.
    let out = bin().args(["--target", "5173", "--token", ""]).output().unwrap();
    assert_eq!(out.status.code(), Some(exit::USAGE));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the bearer token is empty"), "{stderr}");
    // Our own address as the target (any loopback name) would forward to ourselves without end.
    let out = bin()
        .args(["--target", "localhost:7777", "--port", "7777"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(exit::USAGE));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--target http://localhost:7777 is browser-agent's own address (--port 7777)"),
        "{stderr}"
    );
    let out = bin().args(["--target", "http://127.0.0.1:65000"]).output().unwrap();
    assert_eq!(out.status.code(), Some(exit::USAGE));
    assert!(String::from_utf8_lossy(&out.stderr).contains("65000 + 1000 is no port"));
}

/// Starts browser-agent with `flag` (`--stdio` or `--mcp-stdio`), writes `request` as one line,
/// reads one answer line from stdout, closes stdin, and returns the answer and the exit code.
fn stdio_round_trip(name: &str, flag: &str, request: &str) -> (serde_json::Value, Option<i32>) {
    use std::io::Write;
    let py_dir = scratch(name);
    let py = python(&py_dir);
    let mut child = bin()
        .args(["--target", &format!("http://{}", py.addr), "--port", "0", flag])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{request}\n").as_bytes()).unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = stdout.read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(PATIENCE).expect("an answer line on stdout");
    let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
    drop(stdin);
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running after stdin closed");
        std::thread::sleep(Duration::from_millis(50));
    };
    (answer, status.code())
}

#[test]
fn stdio_speaks_the_ndjson_protocol_and_its_end_stops_us() {
    let (event, code) = stdio_round_trip(
        "stdio",
        "--stdio",
        r#"{"action":"browser","steps":[{"command":"snapshot"}]}"#,
    );
    assert_eq!(event["event"], "command-error");
    assert!(
        event["message"].as_str().unwrap().starts_with("No browser connected"),
        "{event}"
    );
    assert_eq!(code, Some(exit::OK));
}

#[test]
fn mcp_stdio_speaks_json_rpc_and_its_end_stops_us() {
    let (answer, code) = stdio_round_trip(
        "mcp-stdio",
        "--mcp-stdio",
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
    );
    assert_eq!(answer["id"], 7, "{answer}");
    let tools = answer["result"]["tools"].as_array().expect("tools");
    assert!(tools.iter().any(|t| t["name"] == "browser_run"), "{answer}");
    assert_eq!(code, Some(exit::OK));
}

#[test]
fn stdio_and_mcp_stdio_cannot_share_stdout() {
    let out = bin()
        .args(["--target", "http://127.0.0.1:1", "--stdio", "--mcp-stdio"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(exit::USAGE));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

#[test]
fn a_dev_server_that_fails_later_ends_browser_agent_with_its_status() {
    let port = free_port();
    let marker = scratch("fails-later").join("crash-now");
    // Serves until the test creates the marker, then stops its server and fails.
    let command = format!(
        "python3 -m http.server {port} --bind 127.0.0.1 >/dev/null 2>&1 & \
         while [ ! -f {marker} ]; do sleep 0.05; done; kill $!; exit 3",
        marker = marker.display()
    );
    let target = format!("http://127.0.0.1:{port}");
    let mut cli = Cli::start(&["--target", &target, "--port", "0", "--run", &command]);
    let pgid = cli.pgid();
    let _ = cli.addr();
    std::fs::write(&marker, b"").unwrap();
    let (code, stderr) = cli.exit();
    assert_eq!(code, exit::FAILURE, "{stderr}");
    assert!(
        stderr.contains("browser-agent: error: the dev server exited with status 3"),
        "{stderr}"
    );
    wait_group_gone(pgid);
}

/// Starts browser-agent with `--run` of `shell` ([`Cli::run_dev_server`]),
/// kills it with SIGKILL once it serves, and waits for the dev server's whole group to be gone.
fn a_kill_9_stops_the_group_of(shell: &str) {
    let mut cli = Cli::run_dev_server(shell, &[]);
    let pgid = cli.pgid();
    let _ = cli.addr();
    cli.signal(Signal::KILL);
    let _ = cli.exit_signalled();
    wait_group_gone(pgid);
}

#[test]
fn a_killed_browser_agent_stops_what_the_shell_forked_too() {
    // QA8: `npm run dev` forks node, and the shell that got the death signal died alone; the
    // dev server kept its port. (`; true` makes the shell fork rather than exec.)
    a_kill_9_stops_the_group_of("python3 -m http.server {port} --bind 127.0.0.1; true");
}

#[test]
fn a_killed_browser_agent_still_stops_a_dev_server_the_shell_execs() {
    a_kill_9_stops_the_group_of(PYTHON_DEV_SERVER);
}
