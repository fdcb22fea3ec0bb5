//! Hardening in real Chromium (issue 16), against both adapters:
//! - a page on a second loopback origin (`127.0.0.2`, another site) tries to drive the agent's
//!   page with `<img>`, `<script>`, a form, `sendBeacon` and a no-cors `fetch`: nothing runs in
//!   the page (its action log stays as it was, the diff baseline is untouched) and nothing is
//!   stored;
//! - a page that adds `<base href="http://127.0.0.2:PORT/">` late: none of the client's requests
//!   (logs, heartbeats, polls, results, the leaving beacon) reach that origin, and the client keeps
//!   talking to its own host;
//! - a page framed by that other site is listed with its parent's origin and is not the default
//!   target, unless the host allows that parent.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use browser_tests::Framework::{Actix, Axum};
use browser_tests::{chromium_test, client_id, exec, exec_async, http_get, ok, open, run, Server, PAGE_KEY, PREFIX};
use fantoccini::Client;
use serde_json::{json, Value};

/// A listener on another loopback address: it records the head of every request that reaches it
/// and answers each with `html`.
struct Elsewhere {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Elsewhere {
    fn start(ip: &str, html: String) -> Elsewhere {
        let listener = TcpListener::bind((ip, 0)).expect("bind another loopback address");
        let addr = listener.local_addr().expect("address");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let log = log.clone();
                let html = html.clone();
                std::thread::spawn(move || {
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut chunk) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&buf).into_owned();
                    if head.is_empty() {
                        return;
                    }
                    log.lock().unwrap().push(head);
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{html}",
                        html.len()
                    );
                    let _ = stream.write_all(answer.as_bytes());
                });
            }
        });
        Elsewhere { addr, seen }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

chromium_test!(axum_cross_site_probes_run_and_store_nothing, Axum, |c, server| {
    cross_site_probes_run_and_store_nothing(c, &server).await
});
chromium_test!(actix_cross_site_probes_run_and_store_nothing, Actix, |c, server| {
    cross_site_probes_run_and_store_nothing(c, &server).await
});
chromium_test!(axum_a_late_base_href_gets_nothing_of_ours, Axum, |c, server| {
    a_late_base_href_gets_nothing_of_ours(c, &server).await
});
chromium_test!(actix_a_late_base_href_gets_nothing_of_ours, Actix, |c, server| {
    a_late_base_href_gets_nothing_of_ours(c, &server).await
});

fn actions_of(server: &Server, client: &str) -> usize {
    let (status, body) = http_get(server.addr, &format!("{PREFIX}/actions?client={client}"));
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("actions JSON");
    v["actions"].as_array().expect("actions").len()
}

async fn cross_site_probes_run_and_store_nothing(c: &Client, server: &Server) {
    let victim = open(c, server, "/plain.html").await;
    // The agent's baseline for diffs.
    ok(server, &victim, json!({"command": "snapshot"})).await;
    let actions = actions_of(server, &victim);
    let logs = server.console("limit=500")["count"].as_u64().unwrap();

    let base = format!("http://{}{PREFIX}", server.addr);
    let attack = format!(
        r#"<!doctype html><html><head><title>elsewhere</title></head><body>
<iframe name="sink"></iframe>
<script>
const base = {base:?};
const done = [];
const settle = (what) => (ev) => done.push(what + ':' + (ev && ev.type));
for (let i = 0; i < 5; i++) {{
  const img = new Image();
  img.onload = img.onerror = settle('img');
  img.src = base + '/snapshot?diff=0&n=' + i;
}}
const s = document.createElement('script');
s.onload = s.onerror = settle('script');
s.src = base + '/console';
document.head.appendChild(s);
const f = document.createElement('form');
f.method = 'POST'; f.action = base + '/run'; f.enctype = 'text/plain'; f.target = 'sink';
const i = document.createElement('input');
i.name = '{{"steps":[{{"command":"snapshot"}}],"x":"'; i.value = '"}}';
f.appendChild(i); document.body.appendChild(f); f.submit();
const g = document.createElement('form');
g.method = 'POST'; g.action = base + '/snapshot'; g.target = 'sink';
document.body.appendChild(g); g.submit();
done.push('beacon:' + navigator.sendBeacon(base + '/run', new Blob(['{{"steps":[{{"command":"snapshot"}}]}}'], {{type: 'text/plain'}})));
navigator.sendBeacon(base + '/snapshot', '{{}}');
navigator.sendBeacon(base + '/logs', '[{{"type":"console","level":"log","args":["planted"]}}]');
fetch(base + '/run', {{method: 'POST', mode: 'no-cors', body: '{{"steps":[{{"command":"snapshot"}}]}}', headers: {{'content-type': 'text/plain'}}}})
  .then(() => done.push('fetch:opaque'), (e) => done.push('fetch:' + e.name));
window.done = done;
</script></body></html>"#
    );
    // Another site (127.0.0.2), then another port of this host (same-site, another origin).
    for ip in ["127.0.0.2", "127.0.0.1"] {
        probe_from(c, ip, attack.clone()).await;
    }
    assert_eq!(actions_of(server, &victim), actions, "a step ran in the page");
    let after = server.console("limit=500");
    let texts: Vec<&str> = after["logs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert!(!texts.iter().any(|t| t.contains("planted")), "{texts:?}");
    assert_eq!(after["count"].as_u64().unwrap(), logs, "nothing stored: {texts:?}");

    // The diff baseline is the agent's: a real change still shows.
    exec(
        c,
        "document.body.insertAdjacentHTML('beforeend', '<button>Added</button>')",
    )
    .await;
    let v = run(server, &victim, json!([{"command": "snapshot", "diff": true}])).await;
    let diff = v["steps"][0]["result"].as_str().unwrap_or_default();
    assert!(diff.contains("+ button \"Added\""), "{v}");
}

/// Opens the probing page, served from a listener at `ip`, in a second tab (the victim stays
/// open in its own) and waits until its probes settled.
async fn probe_from(c: &Client, ip: &str, attack: String) {
    let elsewhere = Elsewhere::start(ip, attack);
    let main = c.window().await.expect("window");
    let tab = c.new_window(true).await.expect("new tab");
    c.switch_to_window(tab.handle.clone()).await.expect("switch");
    c.goto(&format!("http://{}/", elsewhere.addr))
        .await
        .expect("open the other origin");
    let mut settled = Value::Null;
    for _ in 0..50 {
        settled = exec(c, "return window.done ? window.done.slice() : []").await;
        if settled.as_array().is_some_and(|d| d.len() >= 8) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Time for the page's poll to have got anything that was queued.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    c.close_window().await.expect("close the tab");
    c.switch_to_window(main).await.expect("back");
    assert!(
        settled.as_array().is_some_and(|d| d.len() >= 8),
        "the probes from {ip} all ran: {settled}"
    );
    assert!(!elsewhere.seen().is_empty(), "the probing page was served");
}

async fn a_late_base_href_gets_nothing_of_ours(c: &Client, server: &Server) {
    let elsewhere = Elsewhere::start("127.0.0.2", "<!doctype html><title>elsewhere</title>".to_owned());
    let id = open(c, server, "/plain.html").await;
    exec(
        c,
        &format!(
            "const b = document.createElement('base'); b.href = 'http://{}/'; document.head.appendChild(b); \
             return document.baseURI",
            elsewhere.addr
        ),
    )
    .await;
    // Logs (a flush), a navigation inside the page (a heartbeat at once), a batch (poll and
    // results), an evaluate that waits for the next heartbeat.
    let outcome = exec_async(
        c,
        r#"const done = arguments[arguments.length - 1];
        console.log('after base');
        // The page's own relative request does go there: the listener is reachable.
        fetch('control').catch(() => 0);
        history.pushState({}, '', location.origin + '/plain.html?moved=1');
        setTimeout(() => done(document.baseURI), 2500);"#,
    )
    .await;
    assert!(
        outcome
            .as_str()
            .unwrap_or_default()
            .contains(&elsewhere.addr.to_string()),
        "{outcome}"
    );
    ok(server, &id, json!({"command": "snapshot"})).await;
    let logs = server.logs_of(&id);
    assert!(
        logs.iter()
            .any(|e| e["text"].as_str().unwrap_or_default().contains("after base")),
        "the logs still reach the page's own host: {logs:?}"
    );
    let pages = server.pages();
    let page = pages["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["clientId"] == id)
        .cloned()
        .unwrap_or_default();
    assert!(
        page["page"].as_str().unwrap_or_default().contains("moved=1"),
        "the heartbeat reached the page's own host: {page}"
    );
    // Leaving sends the last beacon (the key in its query: sendBeacon takes no header).
    c.goto(&server.url("/plain.html?next=1")).await.unwrap();
    client_id(c, server).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut seen = elsewhere.seen();
    assert!(
        seen.iter().any(|h| h.starts_with("GET /control ")),
        "the page's own request reached the other origin: {seen:#?}"
    );
    seen.retain(|h| !h.starts_with("GET /control "));
    assert!(
        seen.is_empty(),
        "requests reached the other origin (the key is {PAGE_KEY}): {seen:#?}"
    );
}

chromium_test!(
    axum_a_page_framed_by_another_origin_is_not_the_default_target,
    Axum,
    |c, server| framed_by_another_origin(c, &server, Axum).await
);
chromium_test!(
    actix_a_page_framed_by_another_origin_is_not_the_default_target,
    Actix,
    |c, server| framed_by_another_origin(c, &server, Actix).await
);

/// The framed page's record, once its heartbeat named its parent.
async fn framed_record(server: &Server) -> browser_agent_core::ClientRecord {
    browser_tests::wait_for("the framed page's heartbeat", Duration::from_secs(15), || {
        server
            .agent
            .clients()
            .all()
            .into_iter()
            .find(|r| !r.parent_origin.is_empty())
    })
    .await
}

async fn framed_by_another_origin(c: &Client, server: &Server, framework: browser_tests::Framework) {
    // A foreign page that frames the URL after its `#`.
    let elsewhere = Elsewhere::start(
        "127.0.0.2",
        "<!doctype html><body><script>const f = document.createElement('iframe'); \
         f.src = location.hash.slice(1); document.body.appendChild(f);</script></body>"
            .to_owned(),
    );
    let parent = format!("http://{}", elsewhere.addr);
    c.goto(&format!("{parent}/#{}", server.url("/plain.html")))
        .await
        .unwrap();
    let record = framed_record(server).await;
    assert!(record.in_iframe);
    assert_eq!(record.parent_origin, parent, "listed with its parent's origin");
    let pages = server.pages();
    assert_eq!(pages["defaultTarget"], Value::Null, "never the default target: {pages}");
    // Named, it runs.
    ok(server, &record.client_id, json!({"command": "snapshot"})).await;

    // A host that allows that parent (an IDE or notes app that frames the dev server).
    let allowed = Server::start_on(
        framework,
        browser_agent_core::BrowserAgent::builder()
            .enabled(true)
            .page_key(PAGE_KEY)
            .allow_frame_parent(parent.clone())
            .build(),
        browser_tests::any_port(),
    );
    // Another path: a new document (a new hash alone would keep the old frame).
    c.goto(&format!("{parent}/allowed#{}", allowed.url("/plain.html")))
        .await
        .unwrap();
    let record = framed_record(&allowed).await;
    assert_eq!(record.parent_origin, parent);
    let pages = allowed.pages();
    assert_eq!(pages["defaultTarget"], record.client_id.as_str(), "{pages}");
    allowed.stop();
}

// A host that does not know the page's key (one started from another folder, on the same port)
// refuses its poll; when a host with its key is back, the page takes commands again without a
// reload. (Its poll stopped at the 403 for good before: listed alive by its heartbeats, deaf to
// every batch.)
chromium_test!(
    a_page_a_foreign_host_refused_takes_commands_when_its_own_is_back,
    Axum,
    |c, server| {
        let page = open(c, &server, "/plain.html").await;
        assert_eq!(
            ok(&server, &page, json!({"command": "evaluate", "script": "1 + 1"})).await["result"],
            2
        );
        let addr = server.addr;
        server.stop();
        // The foreign host: every request refused as a host with another page key refuses it (403),
        // each request line kept.
        let foreign = Foreign::start(addr);
        let polled = format!("GET {PREFIX}/commands?");
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while !foreign.seen().iter().any(|l| l.starts_with(&polled)) {
            assert!(
                std::time::Instant::now() < deadline,
                "the page never polled the foreign host: {:?}",
                foreign.seen()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        foreign.stop();
        let server = Server::start_on(Axum, browser_tests::agent(), addr);
        // Its next heartbeat (at most 10 s away) lists it again and starts the poll again: the batch
        // runs.
        server.wait_listed(&page).await;
        let (status, v) = browser_tests::run_raw(
            &server,
            json!({"client": page, "timeoutMs": 25_000, "steps": [{"command": "evaluate", "script": "2 + 2"}]}),
        )
        .await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["steps"][0]["result"], 4, "{v}");
    }
);

/// A host on `addr` that answers every request `403` and keeps each request line.
struct Foreign {
    seen: Arc<Mutex<Vec<String>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Foreign {
    fn start(addr: SocketAddr) -> Foreign {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let listener = loop {
            match TcpListener::bind(addr) {
                Ok(l) => break l,
                Err(e) if std::time::Instant::now() > deadline => panic!("bind {addr}: {e}"),
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        listener.set_nonblocking(true).expect("nonblocking");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (log, stopped) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                let Ok((mut stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                };
                let _ = stream.set_nonblocking(false);
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).into_owned();
                log.lock()
                    .unwrap()
                    .push(head.lines().next().unwrap_or_default().to_owned());
                let body = r#"{"error":"this page's key is not this host's"}"#;
                let answer = format!(
                    "HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Foreign {
            seen,
            stop,
            thread: Some(thread),
        }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// Stops listening (the port is free again when this returns).
    fn stop(mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().expect("the foreign host's thread");
        }
    }
}
