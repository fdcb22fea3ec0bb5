//! The proxy's cost, measured in one run on loopback: requests per second and p50/p99 latency of
//! a small JSON route and a 200 KB HTML page (injected through the proxy), straight to the
//! upstream and through the proxy, one kept-alive connection each, requests one after another.
//!
//! Then the memory while 1 GiB streams through the proxy (the process's resident set before and at
//! most during, upstream, proxy and client all in it).
//!
//! `cargo bench -p browser-agent-cli --bench proxy` (bounded: 6 alternating rounds of at most 500
//! requests or 2 s each, per case and side).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use browser_agent_core::BrowserAgent;
use browser_agent_testkit::heap::rss_kib;
use browser_agent_testkit::http::KeepAlive;
use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

/// Rounds, alternating straight and through the proxy, so a busy machine's drift hits both alike.
const ROUNDS: usize = 6;
const REQUESTS: usize = 500;
const WARMUP: usize = 100;
const ROUND_LIMIT: Duration = Duration::from_secs(2);

fn page() -> Bytes {
    let mut html = String::from("<!doctype html><html><head><title>bench</title></head><body>\n");
    while html.len() < 200 * 1024 {
        html.push_str("<p class=\"row\">Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n");
    }
    html.push_str("</body></html>\n");
    Bytes::from(html)
}

async fn upstream(listener: tokio::net::TcpListener, page: Bytes) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let page = page.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req: Request<Incoming>| {
                let page = page.clone();
                async move {
                    let res = if req.uri().path() == "/gigabyte" {
                        return Ok::<_, Infallible>(
                            Response::builder()
                                .header("content-type", "application/octet-stream")
                                .body(Either::Right(Repeat {
                                    left: GIB / CHUNK as u64,
                                }))
                                .unwrap(),
                        );
                    } else if req.uri().path() == "/page" {
                        Response::builder()
                            .header("content-type", "text/html; charset=utf-8")
                            .body(Either::Left(Full::new(page)))
                    } else {
                        Response::builder()
                            .header("content-type", "application/json")
                            .body(Either::Left(Full::new(Bytes::from_static(
                                br#"{"items":[{"id":1,"name":"one"},{"id":2,"name":"two"}]}"#,
                            ))))
                    };
                    Ok::<_, Infallible>(res.unwrap())
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

const GIB: u64 = 1 << 30;
const CHUNK: usize = 64 * 1024;

/// A body of `left` chunks of 64 KiB, the same bytes each time (nothing is allocated per chunk).
struct Repeat {
    left: u64,
}

impl http_body::Body for Repeat {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        static DATA: [u8; CHUNK] = [b'x'; CHUNK];
        if self.left == 0 {
            return std::task::Poll::Ready(None);
        }
        self.left -= 1;
        std::task::Poll::Ready(Some(Ok(http_body::Frame::data(Bytes::from_static(&DATA)))))
    }
}

/// Streams 1 GiB through the proxy, reading and dropping it; (bytes read, RSS before, max RSS during).
fn stream_gigabyte(proxy: SocketAddr) -> (u64, u64, u64) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(proxy).expect("connect");
    s.write_all(b"GET /gigabyte HTTP/1.1\r\nhost: 127.0.0.1:3000\r\nconnection: close\r\n\r\n")
        .expect("request");
    let before = rss_kib();
    let mut max = before;
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0u64;
    let mut next_sample = 0u64;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let n = s.read(&mut buf).expect("read");
        if n == 0 || Instant::now() > deadline {
            break;
        }
        total += n as u64;
        if total >= next_sample {
            max = max.max(rss_kib());
            next_sample += 16 << 20;
        }
    }
    (total, before, max)
}

#[derive(Default)]
struct Samples {
    times: Vec<Duration>,
    total: Duration,
}

impl Samples {
    fn rps(&self) -> f64 {
        self.times.len() as f64 / self.total.as_secs_f64()
    }
    fn at(&mut self, q: f64) -> Duration {
        self.times.sort();
        self.times[((self.times.len() as f64 * q) as usize).min(self.times.len() - 1)]
    }
}

fn round(addr: SocketAddr, page: bool, into: &mut Samples) {
    let mut conn = KeepAlive::new(addr);
    let mut one = || {
        if page {
            assert!(conn.get_page("/page") >= 200 * 1024);
        } else {
            let r = conn.get("/api/items", &[("host", "127.0.0.1:3000")]);
            assert_eq!(r.status, 200);
        }
    };
    for _ in 0..WARMUP {
        one();
    }
    let start = Instant::now();
    let mut n = 0;
    while n < REQUESTS && start.elapsed() < ROUND_LIMIT {
        let t = Instant::now();
        one();
        into.times.push(t.elapsed());
        n += 1;
    }
    into.total += start.elapsed();
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (up, proxy, _running) = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let up = listener.local_addr().unwrap();
        tokio::spawn(upstream(listener, page()));
        let agent = BrowserAgent::builder().enabled(true).page_key("bench-key-0001").build();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let target = format!("http://{up}").parse().unwrap();
        let running = browser_agent_cli::proxy::serve(listener, agent, target).unwrap();
        (up, running.addr, running)
    });
    println!("{:<36} {:>10} {:>10} {:>10}", "case", "req/s", "p50", "p99");
    for (name, page) in [("JSON route", false), ("200 KB HTML page", true)] {
        let (mut straight, mut through) = (Samples::default(), Samples::default());
        for _ in 0..ROUNDS {
            round(up, page, &mut straight);
            round(proxy, page, &mut through);
        }
        let mut figures = Vec::new();
        for (how, s) in [("straight", &mut straight), ("through the proxy", &mut through)] {
            let (rps, p50, p99) = (s.rps(), s.at(0.50), s.at(0.99));
            println!(
                "{:<36} {:>10.0} {:>8.0}µs {:>8.0}µs",
                format!("{name}, {how}"),
                rps,
                p50.as_secs_f64() * 1e6,
                p99.as_secs_f64() * 1e6
            );
            figures.push((rps, p50, p99));
        }
        let ((r0, a0, b0), (r1, a1, b1)) = (figures[0], figures[1]);
        println!(
            "{:<36} {:>9.0}% {:>+8.0}µs {:>+8.0}µs",
            format!("{name}: proxy/straight"),
            100.0 * r1 / r0,
            (a1.as_secs_f64() - a0.as_secs_f64()) * 1e6,
            (b1.as_secs_f64() - b0.as_secs_f64()) * 1e6
        );
    }
    let start = Instant::now();
    let (total, before, max) = stream_gigabyte(proxy);
    let secs = start.elapsed().as_secs_f64();
    assert!(total >= GIB, "the whole GiB came through ({total} bytes)");
    println!(
        "1 GiB through the proxy: {:.1} s ({:.0} MB/s); resident set {:.1} MiB before, at most {:.1} MiB during",
        secs,
        total as f64 / secs / 1e6,
        before as f64 / 1024.0,
        max as f64 / 1024.0
    );
}
