//! A tiny HTTP/1.1 client over a raw loopback socket, so the conformance suite sees exactly what
//! the server framed: status, every header, `Content-Length` against the bytes that arrived.

#![allow(dead_code)] // each test binary uses part of it

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response as it came off the wire.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body was sent with `Transfer-Encoding: chunked`.
    pub chunked: bool,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

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
}

/// One request on a fresh connection (`Connection: close`), read to EOF.
pub async fn send(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
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
    head.push_str("connection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.expect("write head");
    // The server may answer (413) and close before taking the whole body: ignore write errors.
    let _ = stream.write_all(body).await;
    read_response(&mut stream, method == "HEAD").await
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
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let mut head =
        format!("POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-length: {declared}\r\nconnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("write head");
    let _ = stream.write_all(&vec![b'['; sent]).await;
    tokio::time::timeout(Duration::from_secs(10), read_response(&mut stream, false))
        .await
        .expect("the server answered without waiting for the declared body")
}

/// Streams a chunked body of `total` bytes in 64 KiB chunks while reading the answer.
pub async fn send_chunked(addr: SocketAddr, path: &str, headers: &[(&str, &str)], total: usize) -> Resp {
    let stream = TcpStream::connect(addr).await.expect("connect");
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
    let resp = tokio::time::timeout(Duration::from_secs(20), read_response(&mut rd, false))
        .await
        .expect("answer");
    writer.abort();
    resp
}

async fn read_response<R: AsyncReadExt + Unpin>(stream: &mut R, head_only: bool) -> Resp {
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .expect("response within 20 s");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    if chunked && !head_only {
        body = dechunk(&body);
    }
    let resp = Resp {
        status,
        headers,
        body,
        chunked,
    };
    if let (Some(len), false) = (resp.header("content-length"), head_only) {
        assert_eq!(
            len.parse::<usize>().unwrap(),
            resp.body.len(),
            "Content-Length must equal the bytes received"
        );
    }
    if head_only {
        assert!(resp.body.is_empty(), "a HEAD answer has no body");
    }
    resp
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").expect("chunk size line");
        let size_hex = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_hex.split(';').next().unwrap().trim(), 16).expect("hex chunk size");
        data = &data[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}
