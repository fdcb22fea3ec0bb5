//! The proxy records the dev server's 5xx answers as `server` entries (and nothing else: not its
//! 2xx/4xx, not our routes, not its own 502 page when the dev server is down).

mod common;

use std::time::Duration;

use browser_agent_testkit::http::send;
use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A dev server on 127.0.0.1 that answers `/fail…` with 503 after 20 ms and anything else 200
/// (or 404 for `/missing`), one request per connection.
async fn dev_server() -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let mut n = 0;
                while !buf[..n].windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf[n..]).await {
                        Ok(0) | Err(_) => return,
                        Ok(m) => n += m,
                    }
                }
                let head = String::from_utf8_lossy(&buf[..n]);
                let path = head.split(' ').nth(1).unwrap_or("/").to_owned();
                let status = if path.starts_with("/fail") {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    "503 Service Unavailable"
                } else if path == "/missing" {
                    "404 Not Found"
                } else {
                    "200 OK"
                };
                let res = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
                );
                let _ = s.write_all(res.as_bytes()).await;
            });
        }
    });
    (addr, task)
}

#[tokio::test]
async fn upstream_5xx_answers_are_server_entries() {
    let (upstream, task) = dev_server().await;
    let agent = agent();
    let proxy = proxy_to(agent.clone(), upstream).await;
    let accept = [("accept", "application/json")];
    assert_eq!(send(proxy.addr, "GET", "/ok", &accept, b"").await.status, 200);
    assert_eq!(send(proxy.addr, "GET", "/missing", &accept, b"").await.status, 404);
    assert_eq!(
        send(proxy.addr, "GET", &format!("{P}/nope"), &accept, b"").await.status,
        404
    );
    let q = browser_agent_core::LogQuery::parse(Some("type=server")).unwrap();
    assert!(agent.logs().query(&q).is_empty());

    let r = send(proxy.addr, "POST", "/fail/save?password=hunter22", &accept, b"{}").await;
    assert_eq!(r.status, 503);
    let entries = agent.logs().query(&q);
    assert_eq!(entries.len(), 1, "{entries:#?}");
    let e = &entries[0];
    assert_eq!(e.field_str("source"), Some("response"));
    assert_eq!(e.field_str("method"), Some("POST"));
    assert_eq!(e.field_str("url"), Some("/fail/save?password=[redacted]"));
    assert_eq!(e.fields["status"], 503);
    assert!(e.fields["duration"].as_u64().unwrap() >= 20, "{e:?}");
    assert!(e
        .text
        .starts_with("POST /fail/save?password=[redacted] → 503 Service Unavailable ("));

    // The dev server gone: the outage is a server entry too (502 Bad Gateway: what did not
    // answer is the dev server), once, not for every retry of the 502 page.
    task.abort();
    drop(proxy);
    let down = proxy_to(agent.clone(), std::net::SocketAddr::from(([127, 0, 0, 1], free_port()))).await;
    for _ in 0..2 {
        assert_eq!(send(down.addr, "GET", "/ok", &accept, b"").await.status, 502);
    }
    let entries = agent.logs().query(&q);
    assert_eq!(entries.len(), 2, "{entries:#?}");
    assert!(
        entries[1].text.starts_with("GET /ok → 502 Bad Gateway ("),
        "{entries:#?}"
    );
}
