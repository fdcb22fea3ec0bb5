//! `/fixtures/{name}`: responses that exercise each injection rule. The conformance suite requests
//! them through both adapters and expects byte-identical results.

use bytes::Bytes;

use crate::Reply;

/// A page used by several fixtures.
pub const HTML: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>fixture</title>\n</head>\n<body><p>fixture body</p></body>\n</html>\n";

/// Every fixture name.
pub const NAMES: [&str; 15] = [
    "sized",
    "chunked",
    "latin1",
    "nohead",
    "gzip",
    "json",
    "nonce",
    "nonce-wasm",
    "empty",
    "notmodified",
    "partial",
    "error",
    "etag",
    "big",
    "xhtml",
];

/// A 200 KB HTML page (for injection benchmarks).
pub fn big_page() -> String {
    let mut s = String::from("<!doctype html><html><head><title>big</title></head><body>\n");
    let row = "<div class=\"row\"><span>item</span> <a href=\"/x\">link</a> <button>Act</button></div>\n";
    while s.len() < 200 * 1024 {
        s.push_str(row);
    }
    s.push_str("</body></html>\n");
    s
}

/// The fixture called `name`.
///
/// ```
/// let r = browser_agent_testkit::fixtures::fixture("chunked").unwrap();
/// assert!(r.streamed && r.chunks.len() > 10);
/// ```
pub fn fixture(name: &str) -> Option<Reply> {
    let html = "text/html; charset=utf-8";
    Some(match name {
        "sized" => Reply::new(200, html, HTML),
        "chunked" => Reply {
            status: 200,
            headers: vec![("content-type", html.into())],
            chunks: HTML.as_bytes().chunks(7).map(Bytes::copy_from_slice).collect(),
            streamed: true,
        },
        "latin1" => Reply::new(
            200,
            "text/html; charset=iso-8859-1",
            &b"<html><head><title>caf\xe9</title></head><body>\xe9t\xe9</body></html>"[..],
        ),
        "nohead" => Reply::new(200, html, "<!doctype html><title>no head</title><p>body text</p>"),
        "gzip" => Reply::new(200, html, &b"\x1f\x8b\x08\x00not really gzip"[..]).header("content-encoding", "gzip"),
        "json" => Reply::new(200, "application/json", r#"{"html":"<head></head>"}"#),
        "nonce" => Reply::new(200, html, HTML).header(
            "content-security-policy",
            "script-src 'nonce-fixture123' 'strict-dynamic'; object-src 'none'",
        ),
        // A page that runs (its CSP allows wasm) but forbids `eval`: the agent's `evaluate` goes
        // through a `<script>` with the page's nonce.
        "nonce-wasm" => Reply::new(200, html, HTML).header(
            "content-security-policy",
            "script-src 'nonce-fixture123' 'strict-dynamic' 'wasm-unsafe-eval'; object-src 'none'",
        ),
        "empty" => Reply {
            status: 204,
            headers: vec![],
            chunks: vec![],
            streamed: false,
        },
        "notmodified" => Reply {
            status: 304,
            headers: vec![("content-type", html.into()), ("etag", "\"v1\"".into())],
            chunks: vec![],
            streamed: false,
        },
        "partial" => {
            Reply::new(206, html, &HTML.as_bytes()[..20]).header("content-range", format!("bytes 0-19/{}", HTML.len()))
        }
        "error" => Reply::new(
            500,
            html,
            "<!doctype html><html><head><title>500</title></head><body>boom</body></html>",
        ),
        "etag" => Reply::new(200, html, HTML)
            .header("etag", "\"abc\"")
            .header("accept-ranges", "bytes"),
        "big" => Reply::new(200, html, big_page()),
        "xhtml" => Reply::new(200, "application/xhtml+xml", HTML),
        _ => return None,
    })
}
