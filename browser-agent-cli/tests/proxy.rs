//! The proxy against real upstreams on 127.0.0.1: Python's http.server and a small hyper server
//! (gzip when asked and when not, SSE, redirects with cookies, echo, a WebSocket-style upgrade), and none at all.

mod common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use browser_agent_testkit::http::send;
use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const DOCUMENT: [(&str, &str); 2] = [("accept", "text/html,*/*"), ("sec-fetch-dest", "document")];

fn with_tag(page: &str, tag: &[u8]) -> Vec<u8> {
    let at = page.find("<head>").unwrap() + "<head>".len();
    [&page.as_bytes()[..at], tag, &page.as_bytes()[at..]].concat()
}

/// Reads from `stream` until `needle` has arrived (bounded); returns everything read.
async fn read_until(stream: &mut TcpStream, seen: &mut Vec<u8>, needle: &[u8]) {
    let found = async {
        let mut buf = [0u8; 8192];
        while !seen.windows(needle.len()).any(|w| w == needle) {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed before {:?}", String::from_utf8_lossy(needle));
            seen.extend_from_slice(&buf[..n]);
        }
    };
    tokio::time::timeout(PATIENCE, found)
        .await
        .unwrap_or_else(|_| panic!("{:?} never arrived", String::from_utf8_lossy(needle)));
}

#[tokio::test]
async fn python_http_server_pages_get_the_tag_files_arrive_byte_for_byte_and_our_routes_answer() {
    let dir = scratch("python");
    std::fs::write(dir.join("index.html"), PAGE).unwrap();
    std::fs::write(dir.join("data.bin"), binary()).unwrap();
    let py = python(&dir);
    let agent = agent();
    let proxy = proxy_to(agent.clone(), py.addr).await;

    let page = send(proxy.addr, "GET", "/", &DOCUMENT, b"").await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.body,
        with_tag(PAGE, agent.tag()),
        "the tag right after <head>, once"
    );
    assert_eq!(
        page.header("content-length"),
        Some((PAGE.len() + agent.tag().len()).to_string().as_str())
    );

    let file = send(proxy.addr, "GET", "/data.bin", &[], b"").await;
    assert_eq!(file.status, 200);
    assert!(file.body == binary(), "binary bodies pass byte for byte");

    let missing = send(proxy.addr, "GET", "/nope.js", &[("sec-fetch-dest", "script")], b"").await;
    assert_eq!(missing.status, 404, "the upstream's statuses pass");

    let ours = send(proxy.addr, "GET", &format!("{P}/page"), &[], b"").await;
    assert_eq!(ours.status, 200, "{}", ours.text());
    assert_eq!(ours.json()["pages"], serde_json::json!([]));
    proxy.stop();
}

#[tokio::test]
async fn compression_identity_for_documents_untouched_for_everything_else() {
    let up = upstream().await;
    let agent = agent();
    let proxy = proxy_to(agent.clone(), up.addr).await;
    let gz = [("accept-encoding", "gzip, br")];

    // A document: we ask for identity, so the tag can go in.
    let doc = send(
        proxy.addr,
        "GET",
        "/gzip-if-asked",
        &[DOCUMENT[0], DOCUMENT[1], gz[0]],
        b"",
    )
    .await;
    assert_eq!(doc.header("content-encoding"), None);
    assert_eq!(doc.body, with_tag(PAGE, agent.tag()));

    // An upstream that compresses anyway: decoded on the way, so the tag goes in (every coding,
    // streaming and broken bodies: tests/compressed.rs).
    let forced = send(
        proxy.addr,
        "GET",
        "/gzip-always",
        &[DOCUMENT[0], DOCUMENT[1], gz[0]],
        b"",
    )
    .await;
    assert_eq!(forced.header("content-encoding"), None);
    assert_eq!(forced.body, with_tag(PAGE, agent.tag()));

    // Not a document: the browser's accept-encoding reaches the upstream, the body comes back as is.
    let script = send(
        proxy.addr,
        "GET",
        "/script.js.gz",
        &[("sec-fetch-dest", "script"), gz[0]],
        b"",
    )
    .await;
    assert_eq!(script.body, gzip(b"console.log('hi')"));
    let seen = send(
        proxy.addr,
        "GET",
        "/headers",
        &[("sec-fetch-dest", "empty"), gz[0]],
        b"",
    )
    .await
    .json();
    assert_eq!(seen["accept-encoding"], "gzip, br");
    assert_eq!(seen["host"], up.addr.to_string(), "Host is the target's");
    assert_eq!(seen["x-forwarded-host"], proxy.addr.to_string());
    assert_eq!(seen["x-forwarded-for"], "127.0.0.1");
    assert_eq!(seen["x-forwarded-proto"], "http");
    let doc_seen = send(proxy.addr, "GET", "/headers", &[DOCUMENT[0], DOCUMENT[1], gz[0]], b"")
        .await
        .json();
    assert_eq!(doc_seen["accept-encoding"], "identity");
}

#[tokio::test]
async fn redirects_to_the_upstream_come_back_to_us_with_their_cookies() {
    let up = upstream().await;
    let proxy = proxy_to(agent(), up.addr).await;
    let r = send(proxy.addr, "GET", "/redirect", &[], b"").await;
    assert_eq!(r.status, 302);
    assert_eq!(
        r.header("location"),
        Some(format!("http://{}/after?x=1", proxy.addr).as_str())
    );
    let cookies: Vec<&str> = r
        .headers
        .iter()
        .filter(|(k, _)| k == "set-cookie")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(cookies, ["sid=abc; Path=/; HttpOnly", "theme=dark; Path=/"]);
}

#[tokio::test]
async fn request_bodies_stream_to_the_upstream_byte_for_byte_over_kept_alive_connections() {
    let up = upstream().await;
    let proxy = proxy_to(agent(), up.addr).await;
    let body = binary();
    let echoed = send(
        proxy.addr,
        "POST",
        "/echo",
        &[("content-type", "application/octet-stream")],
        &body,
    )
    .await;
    assert_eq!(echoed.status, 200);
    assert!(echoed.body == body, "the request body arrives byte for byte");
    for _ in 0..5 {
        assert_eq!(send(proxy.addr, "GET", "/headers", &[], b"").await.status, 200);
    }
    assert_eq!(
        up.connections.load(Ordering::SeqCst),
        1,
        "six requests on one kept-alive upstream connection"
    );
}

#[tokio::test]
async fn server_sent_events_arrive_as_they_are_sent() {
    let up = upstream().await;
    let proxy = proxy_to(agent(), up.addr).await;
    let mut stream = TcpStream::connect(proxy.addr).await.unwrap();
    let head = format!(
        "GET /sse HTTP/1.1\r\nhost: {}\r\naccept: text/event-stream\r\n\r\n",
        proxy.addr
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    // The upstream sends event 2 only after we have read event 1: nothing may sit in a buffer.
    read_until(&mut stream, &mut seen, b"data: event 1\n\n").await;
    assert!(String::from_utf8_lossy(&seen).contains("text/event-stream"));
    up.next_event.notify_one();
    read_until(&mut stream, &mut seen, b"data: event 2\n\n").await;
    up.next_event.notify_one();
    read_until(&mut stream, &mut seen, b"data: event 3\n\n").await;
}

#[tokio::test]
async fn websocket_upgrades_pass_through_and_bytes_flow_both_ways() {
    let up = upstream().await;
    let proxy = proxy_to(agent(), up.addr).await;
    upgrade_and_echo(proxy.addr, &[b"ping one", &[0x81, 0x05, b'h', b'e', b'l', b'l', b'o']]).await;
}

/// Asks `proxy` for the upstream's `/ws` upgrade, checks the 101, and sends each message,
/// reading back its echo.
async fn upgrade_and_echo(proxy: std::net::SocketAddr, messages: &[&[u8]]) {
    let mut stream = TcpStream::connect(proxy).await.unwrap();
    let head = format!(
        "GET /ws HTTP/1.1\r\nhost: {}\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        proxy
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    read_until(&mut stream, &mut seen, b"\r\n\r\n").await;
    let text = String::from_utf8_lossy(&seen).to_lowercase();
    assert!(text.starts_with("http/1.1 101"), "{text}");
    assert!(
        text.contains("upgrade: websocket") && text.contains("sec-websocket-accept"),
        "{text}"
    );
    for message in messages {
        stream.write_all(message).await.unwrap();
        let mut echoed = vec![0u8; message.len()];
        tokio::time::timeout(PATIENCE, stream.read_exact(&mut echoed))
            .await
            .expect("the echo comes back")
            .unwrap();
        assert_eq!(&echoed, message);
    }
}

#[tokio::test]
async fn an_https_dev_server_gets_the_same_proxy_pages_tagged_and_upgrades_piped() {
    // A dev server that speaks only TLS, with a self-signed certificate (Vite's `server.https`):
    // the browser speaks plain http to us, we speak TLS to it.
    let up = upstream_tls().await;
    let agent = agent();
    let proxy = proxy_to_url(agent.clone(), &format!("https://localhost:{}", up.addr.port())).await;
    let page = send(proxy.addr, "GET", "/", &DOCUMENT, b"").await;
    assert_eq!(page.status, 200, "{}", page.text());
    assert_eq!(page.body, with_tag(PAGE, agent.tag()));
    let posted = send(proxy.addr, "POST", "/echo", &[], &binary()).await;
    assert!(posted.body == binary(), "request and answer bodies pass byte for byte");

    upgrade_and_echo(proxy.addr, &[b"ping over tls"]).await;
    // Plain http to a TLS-only server is no answer: the 502 says what did not answer.
    let plain = proxy_to_url(agent, &format!("http://localhost:{}", up.addr.port())).await;
    let refused = send(plain.addr, "GET", "/", &[], b"").await;
    assert_eq!(refused.status, 502);
}

#[tokio::test]
async fn an_upstream_that_is_down_gets_a_self_retrying_502_and_our_routes_still_answer() {
    let port = free_port();
    let down = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let proxy = proxy_to(agent(), down).await;
    let page = send(proxy.addr, "GET", "/", &DOCUMENT, b"").await;
    assert_eq!(page.status, 502);
    let html = page.text();
    assert!(html.contains("The dev server is not answering"), "{html}");
    assert!(
        html.contains(&format!("http://127.0.0.1:{port}")),
        "names what is not answering"
    );
    assert!(html.contains("http-equiv=\"refresh\""), "retries by itself");
    assert_eq!(page.header("retry-after"), Some("2"));
    let fetch = send(proxy.addr, "GET", "/api/items", &[("accept", "application/json")], b"").await;
    assert_eq!(fetch.status, 502);
    assert!(
        fetch
            .text()
            .starts_with("502 Bad Gateway: the dev server at http://127.0.0.1:"),
        "{}",
        fetch.text()
    );
    // The outage is a server error, once (not each retry of the 502 page).
    let server = send(proxy.addr, "GET", &format!("{P}/console?type=server"), &[], b"").await;
    assert_eq!(server.status, 200);
    let texts: Vec<String> = server.json()["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].starts_with("GET / → 502 Bad Gateway ("), "{texts:?}");

    // The dev server comes back on its port: the next try gets the app.
    let listener = tokio::net::TcpListener::bind(down).await.unwrap();
    tokio::spawn(async move {
        if let Ok((mut s, _)) = listener.accept().await {
            let mut buf = [0u8; 2048];
            let _ = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf)).await;
            let _ = s
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\nback")
                .await;
        }
    });
    let back = send(proxy.addr, "GET", "/", &[], b"").await;
    assert_eq!((back.status, back.text().as_str()), (200, "back"));
}
