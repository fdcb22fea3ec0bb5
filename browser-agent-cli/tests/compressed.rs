//! Pages the dev server compresses although the proxy asked for `identity`: decoded on the way
//! (gzip, x-gzip, deflate, br), the tag injected, the headers those of the decoded page, as it
//! streams. A body that does not decode ends the response with an error (the connection closes
//! before the chunked body's last chunk): never a hang, never a page that looks whole.

mod common;

use std::time::Duration;

use browser_agent_testkit::http::send;
use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A browser's request for a page, compressed if the server likes.
const DOCUMENT: [(&str, &str); 3] = [
    ("accept", "text/html,*/*"),
    ("sec-fetch-dest", "document"),
    ("accept-encoding", "gzip, deflate, br"),
];

fn with_tag(page: &str, tag: &[u8]) -> Vec<u8> {
    let at = page.find("<head>").unwrap() + "<head>".len();
    [&page.as_bytes()[..at], tag, &page.as_bytes()[at..]].concat()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test]
async fn every_coding_is_decoded_and_gets_the_tag() {
    let up = upstream().await;
    let agent = agent();
    let proxy = proxy_to(agent.clone(), up.addr).await;
    for (path, coding) in [
        ("/gzip-always", "gzip"),
        ("/x-gzip-always", "x-gzip"),
        ("/deflate-always", "deflate"),
        ("/br-always", "br"),
    ] {
        // What the dev server answers: compressed, whatever was asked.
        let direct = send(up.addr, "GET", path, &[("accept-encoding", "identity")], b"").await;
        assert_eq!(direct.header("content-encoding"), Some(coding));
        assert!(
            !contains(&direct.body, b"<title>up</title>"),
            "{path}: compressed upstream"
        );

        let page = send(proxy.addr, "GET", path, &DOCUMENT, b"").await;
        assert_eq!(page.status, 200, "{path}");
        assert!(contains(&page.body, b"data-browser-agent"), "{path}: {}", page.text());
        assert_eq!(
            page.body,
            with_tag(PAGE, agent.tag()),
            "{path}: the page intact, the tag after <head>"
        );
        assert_eq!(page.header("content-encoding"), None, "{path}: sent decoded");
        assert_eq!(
            page.header("content-length"),
            None,
            "{path}: the compressed length is gone"
        );
        assert_eq!(page.header("transfer-encoding"), Some("chunked"), "{path}");
        assert_eq!(page.header("etag"), None, "{path}: the page changed, its ETag goes");
        assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"), "{path}");

        // Not a document (a fetch of the same URL): passed as the dev server sent it.
        let fetched = send(
            proxy.addr,
            "GET",
            path,
            &[("sec-fetch-dest", "empty"), ("accept-encoding", "gzip, deflate, br")],
            b"",
        )
        .await;
        assert_eq!(fetched.header("content-encoding"), Some(coding), "{path}");
        assert_eq!(fetched.body, direct.body, "{path}: byte for byte");
    }

    // HEAD announces what GET sends: decoded, so no coding and no length.
    let head = send(proxy.addr, "HEAD", "/gzip-always", &DOCUMENT, b"").await;
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-encoding"), None);
    assert_eq!(head.header("content-length"), None);
    proxy.stop();
}

#[tokio::test]
async fn a_compressed_page_streams_through_decoded() {
    let up = upstream().await;
    let agent = agent();
    let proxy = proxy_to(agent.clone(), up.addr).await;
    let mut stream = TcpStream::connect(proxy.addr).await.unwrap();
    let request = format!(
        "GET /gzip-streamed HTTP/1.1\r\nHost: {}\r\nAccept: text/html\r\nSec-Fetch-Dest: document\r\n\r\n",
        proxy.addr
    );
    stream.write_all(request.as_bytes()).await.unwrap();

    // The first part arrives, decoded and tagged, while the dev server holds back the rest:
    // nothing waits for the whole body.
    let mut seen = Vec::new();
    read_until(&mut stream, &mut seen, b"<p>first</p>").await;
    assert!(
        contains(&seen, b"data-browser-agent"),
        "{}",
        String::from_utf8_lossy(&seen)
    );
    assert!(!contains(&seen, b"second"), "the rest is not sent yet");
    assert!(!contains(&seen.to_ascii_lowercase(), b"content-encoding"));

    up.next_event.notify_one();
    read_until(&mut stream, &mut seen, b"0\r\n\r\n").await;
    assert!(
        contains(&seen, b"<p>second</p></body></html>"),
        "{}",
        String::from_utf8_lossy(&seen)
    );
    proxy.stop();
}

#[tokio::test]
async fn a_body_that_does_not_decode_ends_with_an_error_and_the_proxy_goes_on() {
    let up = upstream().await;
    let agent = agent();
    let proxy = proxy_to(agent.clone(), up.addr).await;

    // Not gzip at all: nothing decodes, the connection closes without a complete answer.
    let broken = exchange(proxy.addr, "/gzip-broken").await;
    assert!(!complete(&broken), "{}", String::from_utf8_lossy(&broken));
    assert!(
        !contains(&broken, b"<title>up</title>"),
        "no undecoded page passes as decoded"
    );

    // Cut in the middle: the answer ends unfinished. What decoded before the cut may have gone
    // out (hyper closes the connection on the body's error, flushing what it had written, here
    // often nothing: the whole body was at hand at once).
    let cut = exchange(proxy.addr, "/gzip-cut").await;
    let text = String::from_utf8_lossy(&cut);
    assert!(!complete(&cut), "a cut page must not look whole: {text}");
    assert!(!contains(&cut, b"</html>"), "{text}");
    if !cut.is_empty() {
        assert!(cut.starts_with(b"HTTP/1.1 200"), "{text}");
        assert!(!contains(&cut.to_ascii_lowercase(), b"content-encoding"), "{text}");
    }

    // The proxy is fine: the next page comes, tagged.
    let page = send(proxy.addr, "GET", "/gzip-always", &DOCUMENT, b"").await;
    assert_eq!(page.body, with_tag(PAGE, agent.tag()));
    proxy.stop();
}

/// One request for a page on a connection of its own (`Connection: close`, so a whole answer
/// closes it too); everything read until the proxy closes it (bounded: a hang fails the test).
async fn exchange(addr: std::net::SocketAddr, path: &str) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/html\r\nSec-Fetch-Dest: document\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let read = async {
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(PATIENCE, read)
        .await
        .unwrap_or_else(|_| panic!("{path}: the proxy neither finished nor closed"));
    seen
}

/// Whether a chunked answer arrived whole (its last chunk).
fn complete(answer: &[u8]) -> bool {
    answer.ends_with(b"\r\n0\r\n\r\n")
}

/// Reads from `stream` until `needle` has arrived (bounded).
async fn read_until(stream: &mut TcpStream, seen: &mut Vec<u8>, needle: &[u8]) {
    let found = async {
        let mut buf = [0u8; 8192];
        while !contains(seen, needle) {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed before {:?}", String::from_utf8_lossy(needle));
            seen.extend_from_slice(&buf[..n]);
        }
    };
    tokio::time::timeout(Duration::from_secs(20), found)
        .await
        .unwrap_or_else(|_| panic!("{:?} never arrived", String::from_utf8_lossy(needle)));
}
