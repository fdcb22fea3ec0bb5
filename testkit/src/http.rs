//! The one HTTP/1.1 test client, over raw loopback sockets, so a test sees exactly what the server
//! framed: the status, every header, `Content-Length` against the bytes that arrived, chunked
//! framing (de-chunked for the test), and a HEAD answer without a body.
//!
//! - async, one request per connection ([`send`], [`send_partial`], [`send_chunked`]): the
//!   conformance suite and the adapters' loopback tests;
//! - blocking ([`request`], [`get`], [`post_json`]): the Chromium harness (also for chromedriver,
//!   which keeps the connection open after the answer);
//! - keep-alive ([`KeepAlive`]): the benchmarks, which must not pay a connect per request.
//!
//! All of them frame and check a response with the same code ([`response_len`], [`parse`]).

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A response as it came off the wire (the body de-chunked).
#[derive(Debug, Clone)]
pub struct Resp {
    /// Status code.
    pub status: u16,
    /// Headers in order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body (de-chunked when it was chunked).
    pub body: Vec<u8>,
    /// The body was sent with `Transfer-Encoding: chunked`.
    pub chunked: bool,
}

impl Resp {
    /// The first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON; panics with the text when it is not.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// The `{"error": …}` message of an error answer (and it is JSON).
    pub fn error(&self) -> String {
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "error bodies are JSON: {self:?}"
        );
        self.json()["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error field: {}", self.text()))
            .to_owned()
    }

    /// How often `needle` occurs in the body.
    pub fn count(&self, needle: &[u8]) -> usize {
        self.body.windows(needle.len()).filter(|w| *w == needle).count()
    }
}

/// The request head for `method path` with `headers`, a `host` unless given, a `content-length`
/// for a body (unless given, or the upload is chunked), and `connection: close` unless `keep_alive`.
fn head(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8], keep_alive: bool) -> String {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("host: {addr}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let chunked_upload = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if !chunked_upload
        && !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        && (!body.is_empty() || method == "POST")
    {
        head.push_str(&format!("content-length: {}\r\n", body.len()));
    }
    if !keep_alive {
        head.push_str("connection: close\r\n");
    }
    head.push_str("\r\n");
    head
}

/// One request on a fresh connection (`Connection: close`), read to EOF.
pub async fn send(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = head(addr, method, path, headers, body, false);
    stream.write_all(head.as_bytes()).await.expect("write head");
    // The server may answer (413) and close before taking the whole body: ignore write errors.
    let _ = stream.write_all(body).await;
    read_to_end(&mut stream, method == "HEAD").await
}

/// Sends a head declaring a huge body, then only `sent` bytes, and reads the answer: a server that
/// waited for the whole body would never answer.
pub async fn send_partial(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    declared: usize,
    sent: usize,
) -> Resp {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut head =
        format!("POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-length: {declared}\r\nconnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("write head");
    let _ = stream.write_all(&vec![b'['; sent]).await;
    tokio::time::timeout(Duration::from_secs(10), read_to_end(&mut stream, false))
        .await
        .expect("the server answered without waiting for the declared body")
}

/// Streams a chunked body of `total` bytes in 64 KiB chunks while reading the answer.
pub async fn send_chunked(addr: SocketAddr, path: &str, headers: &[(&str, &str)], total: usize) -> Resp {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut rd, mut wr) = stream.into_split();
    let mut head =
        format!("POST {path} HTTP/1.1\r\nhost: {addr}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let writer = tokio::spawn(async move {
        wr.write_all(head.as_bytes()).await?;
        let chunk = vec![b' '; 64 * 1024];
        let mut left = total;
        while left > 0 {
            let n = left.min(chunk.len());
            wr.write_all(format!("{n:x}\r\n").as_bytes()).await?;
            wr.write_all(&chunk[..n]).await?;
            wr.write_all(b"\r\n").await?;
            left -= n;
        }
        wr.write_all(b"0\r\n\r\n").await?;
        Ok::<_, std::io::Error>(())
    });
    let resp = tokio::time::timeout(Duration::from_secs(20), read_to_end(&mut rd, false))
        .await
        .expect("answer");
    writer.abort();
    resp
}

async fn read_to_end<R: AsyncReadExt + Unpin>(stream: &mut R, head_only: bool) -> Resp {
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .expect("response within 20 s");
    parse(&raw, head_only)
}

/// A blocking request on a fresh connection (`Connection: close`), read up to the end its framing
/// declares (or to EOF when it declares none), waiting up to 60 s (a batch may take that long).
pub fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let head = head(addr, method, path, headers, body, false);
    s.write_all(head.as_bytes()).expect("write head");
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let end = read_one(&mut s, &mut raw, method == "HEAD", true);
    parse(&raw[..end], method == "HEAD")
}

/// A blocking `GET path`: (status, body text).
pub fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let r = request(addr, "GET", path, &[], b"");
    (r.status, r.text())
}

/// A blocking `POST path` of a JSON body: (status, body text).
pub fn post_json(addr: SocketAddr, path: &str, body: &str) -> (u16, String) {
    let r = request(
        addr,
        "POST",
        path,
        &[("content-type", "application/json")],
        body.as_bytes(),
    );
    (r.status, r.text())
}

/// Reads from `s` into `raw` until one whole response is there; its length. At EOF: all that
/// came when `eof_ends` (a response without declared length ends there), else a panic.
fn read_one(s: &mut impl Read, raw: &mut Vec<u8>, head_only: bool, eof_ends: bool) -> usize {
    let mut buf = [0u8; 64 * 1024];
    loop {
        if let Some(end) = response_len(raw, head_only) {
            return end;
        }
        let n = s.read(&mut buf).expect("read response");
        if n == 0 {
            assert!(eof_ends, "the server closed the connection");
            return raw.len();
        }
        raw.extend_from_slice(&buf[..n]);
    }
}

/// A keep-alive connection for many requests in a row (the benchmarks): each response is read to
/// the last byte its framing declares.
pub struct KeepAlive {
    stream: std::net::TcpStream,
    buf: Vec<u8>,
}

impl KeepAlive {
    /// Connects to `addr` (`TCP_NODELAY` on).
    pub fn new(addr: SocketAddr) -> KeepAlive {
        let stream = std::net::TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        KeepAlive {
            stream,
            buf: Vec::with_capacity(256 * 1024),
        }
    }

    /// `GET path` with `headers` on the kept-alive connection; the response.
    pub fn get(&mut self, path: &str, headers: &[(&str, &str)]) -> Resp {
        let addr = self.stream.peer_addr().expect("peer address");
        let head = head(addr, "GET", path, headers, b"", true);
        self.stream.write_all(head.as_bytes()).expect("write request");
        self.buf.clear();
        let end = read_one(&mut self.stream, &mut self.buf, false, false);
        assert_eq!(end, self.buf.len(), "nothing after the response");
        parse(&self.buf, false)
    }

    /// `POST path` with `headers` and `body` on the kept-alive connection; the response.
    ///
    /// ```no_run
    /// # let addr: std::net::SocketAddr = "127.0.0.1:3000".parse().unwrap();
    /// let mut conn = browser_agent_testkit::http::KeepAlive::new(addr);
    /// let r = conn.post("/__mindstudio_dev__/logs", &[("x-browser-agent-key", "KEY")], b"[]");
    /// assert_eq!(r.status, 204);
    /// ```
    pub fn post(&mut self, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
        let addr = self.stream.peer_addr().expect("peer address");
        let head = head(addr, "POST", path, headers, body, true);
        self.stream.write_all(head.as_bytes()).expect("write request");
        self.stream.write_all(body).expect("write body");
        self.buf.clear();
        let end = read_one(&mut self.stream, &mut self.buf, false, false);
        assert_eq!(end, self.buf.len(), "nothing after the response");
        parse(&self.buf, false)
    }

    /// `GET path` as a browser navigation (loopback `Host`, `Sec-Fetch-Dest: document`); the
    /// length of the (sized) body.
    /// The body is not copied out: a benchmark measures the server, not this client.
    pub fn get_page(&mut self, path: &str) -> usize {
        let addr = self.stream.peer_addr().expect("peer address");
        let headers = [("host", "127.0.0.1:3000"), ("sec-fetch-dest", "document")];
        let head = head(addr, "GET", path, &headers, b"", true);
        self.stream.write_all(head.as_bytes()).expect("write request");
        self.buf.clear();
        let end = read_one(&mut self.stream, &mut self.buf, false, false);
        let body_at = head_end(&self.buf).expect("a response head");
        let sized = String::from_utf8_lossy(&self.buf[..body_at])
            .to_ascii_lowercase()
            .contains("\r\ncontent-length:");
        assert!(sized, "a sized response");
        end - body_at
    }
}

fn head_end(raw: &[u8]) -> Option<usize> {
    raw.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

fn status_and_headers(head: &str) -> (u16, Vec<(String, String)>) {
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {head:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, headers)
}

/// The length of the first response in `raw` when all of it is there (by its `Content-Length`,
/// its chunked framing, or no body for HEAD, 1xx, 204 and 304); `None` while more must come, or
/// when only EOF can end it.
pub fn response_len(raw: &[u8], head_only: bool) -> Option<usize> {
    let end = head_end(raw)?;
    let (status, headers) = status_and_headers(&String::from_utf8_lossy(&raw[..end - 4]));
    if head_only || status < 200 || status == 204 || status == 304 {
        return Some(end);
    }
    let has = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    if has("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        return chunked_len(&raw[end..]).map(|n| end + n);
    }
    let len: usize = has("content-length")?.parse().expect("a numeric Content-Length");
    (raw.len() >= end + len).then_some(end + len)
}

/// The length of a whole chunked body at the start of `data` (up to and with the last chunk and
/// the empty trailer line), or `None` while it is incomplete.
fn chunked_len(data: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let eol = data[at..].windows(2).position(|w| w == b"\r\n")?;
        let size = chunk_size(&data[at..at + eol]);
        at += eol + 2;
        if size == 0 {
            // Trailers (none expected) end with an empty line.
            let end = data[at..].windows(2).position(|w| w == b"\r\n")?;
            let rest = &data[at..];
            if end == 0 {
                return Some(at + 2);
            }
            return head_end(rest).map(|e| at + e);
        }
        if data.len() < at + size + 2 {
            return None;
        }
        at += size + 2;
    }
}

fn chunk_size(line: &[u8]) -> usize {
    let text = String::from_utf8_lossy(line);
    usize::from_str_radix(text.split(';').next().unwrap_or("").trim(), 16)
        .unwrap_or_else(|_| panic!("a hex chunk size, not {text:?}"))
}

/// Parses one whole response (all of `raw`) and checks its framing: a chunked body is not also
/// sized and decodes to its end; `Content-Length` equals the bytes received; a HEAD answer has no
/// body.
pub fn parse(raw: &[u8], head_only: bool) -> Resp {
    let split = head_end(raw).unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let (status, headers) = status_and_headers(&String::from_utf8_lossy(&raw[..split - 4]));
    let mut body = raw[split..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    if chunked && !head_only {
        assert!(
            !headers.iter().any(|(k, _)| k == "content-length"),
            "chunked and sized at once"
        );
        body = dechunk(&body);
    }
    let resp = Resp {
        status,
        headers,
        body,
        chunked,
    };
    if head_only {
        assert!(resp.body.is_empty(), "a HEAD answer has no body");
    } else if let (Some(len), false) = (resp.header("content-length"), chunked) {
        assert_eq!(
            len.parse::<usize>().expect("a numeric Content-Length"),
            resp.body.len(),
            "Content-Length must equal the bytes received"
        );
    }
    resp
}

/// The data of a chunked body.
pub fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").expect("chunk size line");
        let size = chunk_size(&data[..line_end]);
        data = &data[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_finds_the_end_of_sized_chunked_and_bodiless_answers() {
        let sized = b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc";
        assert_eq!(response_len(&sized[..sized.len() - 1], false), None);
        assert_eq!(response_len(sized, false), Some(sized.len()));
        let chunked = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        assert_eq!(response_len(&chunked[..chunked.len() - 2], false), None);
        assert_eq!(response_len(chunked, false), Some(chunked.len()));
        assert_eq!(parse(chunked, false).body, b"abcde");
        let empty = b"HTTP/1.1 204 No Content\r\n\r\n";
        assert_eq!(response_len(empty, false), Some(empty.len()));
        assert_eq!(response_len(b"HTTP/1.1 200 OK\r\n\r\nto the end", false), None);
    }

    #[test]
    #[should_panic(expected = "Content-Length must equal the bytes received")]
    fn a_body_longer_than_declared_fails() {
        parse(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nabc", false);
    }
}
