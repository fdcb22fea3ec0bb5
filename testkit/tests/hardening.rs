//! Hardening over TCP, on both adapters (issue 16): a body that does not arrive in time is a 408
//! that stores nothing; the cross-site refusals answer the same through tower and actix.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use browser_agent_core::BrowserAgent;
use browser_agent_testkit::http::send;
use browser_agent_testkit::{actix_app, axum_app, RunningServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const KEY: &str = "hardening-key-0001";
const P: &str = "/__mindstudio_dev__";

fn agent() -> BrowserAgent {
    BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .body_timeout(Duration::from_millis(400))
        .build()
}

fn servers() -> Vec<(&'static str, RunningServer)> {
    let any: SocketAddr = "127.0.0.1:0".parse().unwrap();
    vec![
        ("axum", axum_app::spawn(agent(), None, any).expect("axum app")),
        ("actix", actix_app::spawn(agent(), None, any).expect("actix app")),
    ]
}

async fn stored(addr: SocketAddr) -> u64 {
    let r = send(addr, "GET", &format!("{P}/console?limit=0"), &[], b"").await;
    r.json()["lastSeq"].as_u64().unwrap()
}

/// Sends a head declaring `declared` bytes, then `body` a byte at a time every `gap`, and reads
/// the answer (up to 10 s): its status line and body.
async fn trickle(addr: SocketAddr, declared: usize, body: &[u8], gap: Duration) -> (String, Duration) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {P}/logs HTTP/1.1\r\nhost: {addr}\r\nx-browser-agent-key: {KEY}\r\ncontent-type: application/json\r\ncontent-length: {declared}\r\n\r\n"
    );
    let t0 = Instant::now();
    stream.write_all(head.as_bytes()).await.unwrap();
    let (mut rd, mut wr) = stream.into_split();
    let body = body.to_vec();
    let writer = tokio::spawn(async move {
        for b in body {
            if wr.write_all(&[b]).await.is_err() {
                break;
            }
            tokio::time::sleep(gap).await;
        }
        // Keep the connection open (a stalled upload), without sending more.
        tokio::time::sleep(Duration::from_secs(10)).await;
        drop(wr);
    });
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    answer.extend_from_slice(&buf[..n]);
                    if answer.windows(4).any(|w| w == b"\r\n\r\n")
                        && (answer.ends_with(b"}") || answer.starts_with(b"HTTP/1.1 204"))
                    {
                        break;
                    }
                }
            }
        }
    })
    .await;
    writer.abort();
    assert!(
        read.is_ok(),
        "no answer within 10 s: {:?}",
        String::from_utf8_lossy(&answer)
    );
    (String::from_utf8_lossy(&answer).into_owned(), t0.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_does_not_arrive_in_time_is_a_408_that_stores_nothing() {
    for (name, server) in servers() {
        let addr = server.addr;
        // A stalled body (2 of 40 bytes) and a trickle (1 byte every 100 ms, 4 s in all).
        for (body, gap) in [
            (&b"[{"[..], Duration::from_millis(10)),
            (&[b' '; 40][..], Duration::from_millis(100)),
        ] {
            let (answer, took) = trickle(addr, 40, body, gap).await;
            assert!(answer.starts_with("HTTP/1.1 408"), "{name}: {answer}");
            assert!(
                answer.contains("the request body did not arrive within 400 ms"),
                "{name}: {answer}"
            );
            assert!(took < Duration::from_secs(3), "{name}: answered after {took:?}");
        }
        // A body that arrives in time is fine, a bit at a time too.
        let entry = br#"[{"type":"console","level":"log","args":["in time"]}]"#;
        let (answer, _) = trickle(addr, entry.len(), entry, Duration::from_millis(1)).await;
        assert!(answer.starts_with("HTTP/1.1 204"), "{name}: {answer}");
        assert_eq!(
            stored(addr).await,
            1,
            "{name}: only the body that arrived in time is stored"
        );
    }
}

/// A request (method, path, headers, body) and the status and piece of error text it gets.
type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], &'a [u8], u16, &'a str);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_refusals_are_the_same_on_both_adapters() {
    for (name, server) in servers() {
        let addr = server.addr;
        let cases: [Case<'_>; 5] = [
            (
                "GET",
                "/snapshot",
                &[("sec-fetch-site", "cross-site")],
                b"",
                403,
                "refused: Sec-Fetch-Site \"cross-site\"",
            ),
            (
                "GET",
                "/snapshot",
                &[("user-agent", "Mozilla/5.0 Firefox/88.0")],
                b"",
                403,
                "use POST /snapshot",
            ),
            (
                "POST",
                "/snapshot",
                &[("content-type", "text/plain")],
                b"{}",
                415,
                "POST /snapshot needs Content-Type: application/json",
            ),
            (
                "POST",
                "/run",
                &[("content-type", "application/jsonx")],
                b"{\"steps\":[]}",
                415,
                "POST /run needs Content-Type: application/json (so a cross-site form cannot send it)",
            ),
            (
                "GET",
                "/console",
                &[("origin", &format!("https://{addr}"))],
                b"",
                403,
                "is not this server's own origin",
            ),
        ];
        for (method, path, headers, body, status, text) in cases {
            let r = send(addr, method, &format!("{P}{path}"), headers, body).await;
            assert_eq!(r.status, status, "{name} {method} {path}: {}", r.text());
            assert!(r.error().contains(text), "{name} {method} {path}: {}", r.error());
        }
        // curl's GET and a JSON POST without a page: the usual 503 of no page, not a refusal.
        for (method, headers, body) in [
            ("GET", &[("user-agent", "curl/8.5.0")][..], &b""[..]),
            (
                "POST",
                &[("content-type", "application/json")][..],
                &b"{\"diff\":false}"[..],
            ),
        ] {
            let r = send(addr, method, &format!("{P}/snapshot"), headers, body).await;
            assert_eq!(r.status, 503, "{name} {method}: {}", r.text());
        }
    }
}
