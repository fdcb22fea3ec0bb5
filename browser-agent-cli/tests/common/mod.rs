//! What the CLI's tests share: upstreams on 127.0.0.1 (Python's http.server, and a small hyper
//! server answering gzip, SSE, redirects, echoes and a WebSocket-style upgrade), the proxy
//! in-process, and the binary as a child.
#![allow(dead_code)]

use std::convert::Infallible;
use std::io::Write;
use std::net::{SocketAddr, TcpListener as StdListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use browser_agent_cli::proxy::{self, Running};
use browser_agent_cli::target::Target;
use browser_agent_core::BrowserAgent;
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Notify};

pub const KEY: &str = "cli-test-key-0001";
pub const P: &str = "/__mindstudio_dev__";

/// Every wait in these tests ends: generous, since several builds share two cores.
pub const PATIENCE: Duration = Duration::from_secs(60);

pub fn agent() -> BrowserAgent {
    BrowserAgent::builder().enabled(true).page_key(KEY).build()
}

/// A page for the upstreams.
pub const PAGE: &str = "<!doctype html><html><head><title>up</title></head><body><p>hello</p></body></html>";

/// 300 KB of bytes that are not text, to check bodies arrive byte for byte.
pub fn binary() -> Vec<u8> {
    let mut x: u32 = 0x1234_5678;
    (0..300_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// A larger page: long enough that half of it compressed holds its head.
pub const BIG_PAGE: &str = concat!(
    "<!doctype html><html><head><title>big</title></head><body>",
    "<p>The quick brown fox jumps over the lazy dog, again and again, while a page grows long.</p>",
    "<p>Pack my box with five dozen liquor jugs; how vexingly quick daft zebras jump.</p>",
    "<p>Sphinx of black quartz, judge my vow. The five boxing wizards jump quickly.</p>",
    "<p>Jackdaws love my big sphinx of quartz. Crazy Fredrick bought many very exquisite opal jewels.</p>",
    "</body></html>"
);

/// `/gzip-streamed`'s page, in the two parts the upstream sends.
pub const STREAMED_HEAD: &str = "<!doctype html><html><head><title>streamed</title></head><body><p>first</p>";
pub const STREAMED_REST: &str = "<p>second</p></body></html>";

pub fn zlib(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Brotli, by the `brotli` crate's encoder (through async-compression, which the proxy decodes
/// with: the decoder is the separate `brotli-decompressor`).
pub async fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    async_compression::tokio::bufread::BrotliEncoder::new(data)
        .read_to_end(&mut out)
        .await
        .unwrap();
    out
}

/// An HTML answer with these bytes, said to be in `coding`, with an ETag the proxy must drop.
fn compressed(body: Vec<u8>, coding: &'static str) -> Response<UpBody> {
    Response::builder()
        .header("content-type", "text/html; charset=utf-8")
        .header("content-encoding", coding)
        .header("etag", "\"v1\"")
        .header("vary", "accept-encoding")
        .body(full(body))
        .unwrap()
}

/// The hyper upstream: its address, and the gate the SSE stream waits on between events.
pub struct Upstream {
    pub addr: SocketAddr,
    pub next_event: Arc<Notify>,
    /// Connections the upstream accepted.
    pub connections: Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type UpBody = BoxBody<Bytes, Infallible>;

fn full(data: impl Into<Bytes>) -> UpBody {
    Full::new(data.into()).boxed()
}

/// Starts the hyper upstream on a free port.
pub async fn upstream() -> Upstream {
    serve_upstream(None).await
}

/// A self-signed certificate for `localhost` and its key, made by the `openssl` command in `dir`
/// (as mkcert's or a framework's own would be): `(key.pem, cert.pem)`.
pub fn self_signed(dir: &Path) -> (PathBuf, PathBuf) {
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2"])
        .args(["-subj", "/CN=localhost"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("openssl runs");
    assert!(made.success(), "openssl made a certificate");
    (dir.join("key.pem"), dir.join("cert.pem"))
}

/// The hyper upstream speaking TLS only, with a [`self_signed`] certificate.
pub async fn upstream_tls() -> Upstream {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let (key, cert) = self_signed(&scratch("tls-upstream"));
    let certs = CertificateDer::pem_file_iter(cert)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(key).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    serve_upstream(Some(tokio_rustls::TlsAcceptor::from(Arc::new(config)))).await
}

async fn serve_upstream(tls: Option<tokio_rustls::TlsAcceptor>) -> Upstream {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let next_event = Arc::new(Notify::new());
    let gate = next_event.clone();
    let connections = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = connections.clone();
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let gate = gate.clone();
            let tls = tls.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| answer(req, addr, gate.clone()));
                let http = hyper::server::conn::http1::Builder::new();
                let _ = match tls {
                    Some(tls) => {
                        let Ok(stream) = tls.accept(stream).await else { return };
                        http.serve_connection(TokioIo::new(stream), service)
                            .with_upgrades()
                            .await
                    }
                    None => {
                        http.serve_connection(TokioIo::new(stream), service)
                            .with_upgrades()
                            .await
                    }
                };
            });
        }
    });
    Upstream {
        addr,
        next_event,
        connections,
        task,
    }
}

async fn answer(
    mut req: Request<Incoming>,
    own: SocketAddr,
    gate: Arc<Notify>,
) -> Result<Response<UpBody>, Infallible> {
    let html = |body: UpBody| {
        Response::builder()
            .header("content-type", "text/html; charset=utf-8")
            .body(body)
            .unwrap()
    };
    if req.uri().scheme().is_some() {
        // Node's servers take an absolute-form target for a path (Vite's HMR socket then never
        // answers): the proxy must send origin-form, on every connection.
        return Ok(Response::builder()
            .status(400)
            .body(full("absolute-form request target"))
            .unwrap());
    }
    let res = match req.uri().path() {
        "/" => html(full(PAGE)),
        // Compressed whatever was asked (some dev servers do): the proxy decodes it to inject.
        "/gzip-always" => compressed(gzip(PAGE.as_bytes()), "gzip"),
        "/x-gzip-always" => compressed(gzip(PAGE.as_bytes()), "x-gzip"),
        "/deflate-always" => compressed(zlib(PAGE.as_bytes()), "deflate"),
        "/br-always" => compressed(brotli(PAGE.as_bytes()).await, "br"),
        // Said to be gzip, and not: the bytes of the page as they are.
        "/gzip-broken" => compressed(PAGE.as_bytes().to_vec(), "gzip"),
        // Gzip cut in the middle (a sized body: it ends there, cleanly).
        "/gzip-cut" => {
            let whole = gzip(BIG_PAGE.as_bytes());
            compressed(whole[..whole.len() / 2].to_vec(), "gzip")
        }
        // Gzip sent in two parts: the head (flushed, so it decodes alone), then, once the test
        // lets it go (`next_event`), the rest.
        "/gzip-streamed" => {
            let (tx, rx) = mpsc::channel::<Bytes>(4);
            tokio::spawn(async move {
                let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                enc.write_all(STREAMED_HEAD.as_bytes()).unwrap();
                enc.flush().unwrap();
                let head = std::mem::take(enc.get_mut());
                if tx.send(Bytes::from(head)).await.is_err() {
                    return;
                }
                gate.notified().await;
                enc.write_all(STREAMED_REST.as_bytes()).unwrap();
                let _ = tx.send(Bytes::from(enc.finish().unwrap())).await;
            });
            let mut res = html(ChannelBody(rx).boxed());
            res.headers_mut().insert("content-encoding", "gzip".parse().unwrap());
            res
        }
        // Compressed when asked, as most dev servers do.
        "/gzip-if-asked" => {
            let asked = req
                .headers()
                .get("accept-encoding")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.contains("gzip"));
            if asked {
                let mut res = html(full(gzip(PAGE.as_bytes())));
                res.headers_mut().insert("content-encoding", "gzip".parse().unwrap());
                res
            } else {
                html(full(PAGE))
            }
        }
        "/script.js.gz" => Response::builder()
            .header("content-type", "text/javascript")
            .header("content-encoding", "gzip")
            .body(full(gzip(b"console.log('hi')")))
            .unwrap(),
        "/binary" => Response::builder()
            .header("content-type", "application/octet-stream")
            .body(full(binary()))
            .unwrap(),
        "/headers" => {
            let map: serde_json::Map<String, serde_json::Value> = req
                .headers()
                .iter()
                .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").into()))
                .collect();
            Response::builder()
                .header("content-type", "application/json")
                .body(full(serde_json::Value::Object(map).to_string()))
                .unwrap()
        }
        "/echo" => {
            let body = req
                .into_body()
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            Response::builder()
                .header("content-type", "application/octet-stream")
                .body(full(body))
                .unwrap()
        }
        "/redirect" => Response::builder()
            .status(StatusCode::FOUND)
            .header("location", format!("http://{own}/after?x=1"))
            .header("set-cookie", "sid=abc; Domain=127.0.0.1; Path=/; HttpOnly")
            .header("set-cookie", "theme=dark; Path=/")
            .body(full(""))
            .unwrap(),
        "/sse" => {
            let (tx, rx) = mpsc::channel::<Bytes>(4);
            tokio::spawn(async move {
                for n in 1..=3 {
                    if tx.send(Bytes::from(format!("data: event {n}\n\n"))).await.is_err() {
                        return;
                    }
                    // The next event only once the test has read this one: flushing is proven
                    // without any timing.
                    gate.notified().await;
                }
            });
            Response::builder()
                .header("content-type", "text/event-stream")
                .header("cache-control", "no-cache")
                .body(ChannelBody(rx).boxed())
                .unwrap()
        }
        "/ws" => {
            let upgrade = hyper::upgrade::on(&mut req);
            tokio::spawn(async move {
                let Ok(upgraded) = upgrade.await else { return };
                let mut io = TokioIo::new(upgraded);
                let mut buf = [0u8; 4096];
                loop {
                    match io.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => {
                            if io.write_all(&buf[..n]).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            });
            Response::builder()
                .status(StatusCode::SWITCHING_PROTOCOLS)
                .header("connection", "upgrade")
                .header("upgrade", "websocket")
                .header("sec-websocket-accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
                .body(full(""))
                .unwrap()
        }
        _ => Response::builder().status(404).body(full("not found")).unwrap(),
    };
    Ok(res)
}

/// A body fed through a channel: each message one frame, sent as it comes.
struct ChannelBody(mpsc::Receiver<Bytes>);

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|m| m.map(|b| Ok(Frame::data(b))))
    }
}

/// The proxy, in-process, on a free port in front of `target`.
pub async fn proxy_to(agent: BrowserAgent, target: SocketAddr) -> Running {
    proxy_to_url(agent, &format!("http://{target}")).await
}

/// The proxy, in-process, on a free port in front of the dev server at `url`.
pub async fn proxy_to_url(agent: BrowserAgent, url: &str) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let target: Target = url.parse().unwrap();
    proxy::serve(listener, agent, target).unwrap()
}

/// A port nothing listens on (bound, then let go).
pub fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Python's `http.server` serving `dir` on a free port, killed on drop.
pub struct Python {
    pub addr: SocketAddr,
    child: Child,
}

impl Drop for Python {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn python(dir: &Path) -> Python {
    let port = free_port();
    let child = Command::new("python3")
        .args(["-m", "http.server", &port.to_string(), "--bind", "127.0.0.1"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs");
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    wait_listening(addr);
    Python { addr, child }
}

/// Blocks until `addr` accepts connections (bounded).
pub fn wait_listening(addr: SocketAddr) {
    let deadline = Instant::now() + PATIENCE;
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "{addr} never accepted connections");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A fresh scratch folder under target/tmp.
pub fn scratch(name: &str) -> PathBuf {
    // Shell-safe (the --run tests put paths in commands): letters, digits and dashes only.
    let thread: String = format!("{:?}", std::thread::current().id())
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(format!("{name}-{}-{thread}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The binary.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_browser-agent"))
}
