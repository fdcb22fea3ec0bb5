//! The middleware on a real actix server on 127.0.0.1, read back with the test kit's raw HTTP/1.1
//! client, so what is checked is what goes over the wire: `Content-Length` against the bytes
//! received, chunked framing, the order with actix's own `Compress`, and the agent shared by the
//! workers. What every adapter must do alike (HEAD, pass-through, refusals before the body) is in
//! the conformance suite (`testkit/tests/conformance.rs`).

use std::io::Read;
use std::net::SocketAddr;

use browser_agent_testkit::http::request;

use actix_web::dev::ServerHandle;
use actix_web::middleware::Compress;
use actix_web::{web, App, HttpResponse, HttpServer};
use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
use bytes::Bytes;

const PAGE: &str = "<!doctype html><html><head><title>t</title></head><body>hello</body></html>";

fn agent() -> BrowserAgent {
    BrowserAgent::builder()
        .enabled(true)
        .page_key("loopback-key-0001")
        .body_limit(1024)
        .build()
}

async fn sized() -> HttpResponse {
    HttpResponse::Ok().content_type("text/html; charset=utf-8").body(PAGE)
}

async fn streamed() -> HttpResponse {
    let chunks = PAGE
        .as_bytes()
        .chunks(5)
        .map(|c| Ok::<_, std::io::Error>(Bytes::copy_from_slice(c)));
    HttpResponse::Ok()
        .content_type("text/html")
        .streaming(futures_stream(chunks.collect()))
}

async fn json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(r#"{"html":"<head></head>"}"#)
}

/// A stream over ready items (no extra dependency).
fn futures_stream(
    items: std::collections::VecDeque<Result<Bytes, std::io::Error>>,
) -> impl futures_core::Stream<Item = Result<Bytes, std::io::Error>> {
    struct Ready(std::collections::VecDeque<Result<Bytes, std::io::Error>>);
    impl futures_core::Stream for Ready {
        type Item = Result<Bytes, std::io::Error>;
        fn poll_next(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Self::Item>> {
            std::task::Poll::Ready(self.0.pop_front())
        }
    }
    Ready(items)
}

struct Server {
    addr: SocketAddr,
    handle: ServerHandle,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Serves the test routes; `compress`: `None` none, `Some(true)` outside ours (right), `Some(false)` inside.
fn serve(agent: BrowserAgent, compress: Option<bool>) -> Server {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                let routes = |cfg: &mut web::ServiceConfig| {
                    cfg.route("/sized", web::get().to(sized))
                        .route("/sized", web::head().to(sized))
                        .route("/streamed", web::get().to(streamed))
                        .route("/json", web::get().to(json));
                };
                let mw = BrowserAgentMiddleware::new(agent.clone());
                // `Condition` keeps one App type for the three orders.
                use actix_web::middleware::Condition;
                App::new()
                    .configure(routes)
                    .wrap(Condition::new(compress == Some(false), Compress::default()))
                    .wrap(mw)
                    .wrap(Condition::new(compress == Some(true), Compress::default()))
            })
            .workers(1)
            .disable_signals()
            .listen(listener)
            .unwrap()
            .run();
            tx.send(server.handle()).unwrap();
            server.await.unwrap();
        })
    });
    Server {
        addr,
        handle: rx.recv().unwrap(),
        thread: Some(thread),
    }
}

fn expected(agent: &BrowserAgent) -> Vec<u8> {
    PAGE.replacen(
        "<head>",
        &format!("<head>{}", std::str::from_utf8(agent.tag()).unwrap()),
        1,
    )
    .into_bytes()
}

#[test]
fn sized_page_stays_sized_with_the_tag_counted() {
    let agent = agent();
    let server = serve(agent.clone(), None);
    let r = request(server.addr, "GET", "/sized", &[], b"");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-length"),
        Some(expected(&agent).len().to_string().as_str())
    );
    assert_eq!(r.body, expected(&agent));
    assert_eq!(r.count(agent.tag()), 1);
}

#[test]
fn streamed_page_stays_streamed_and_gets_the_tag_once() {
    let agent = agent();
    let server = serve(agent.clone(), None);
    let r = request(server.addr, "GET", "/streamed", &[], b"");
    assert_eq!(r.header("transfer-encoding"), Some("chunked"));
    assert_eq!(r.body, expected(&agent));
}

#[test]
fn compression_outside_compresses_the_injected_page() {
    let agent = agent();
    let server = serve(agent.clone(), Some(true));
    let r = request(server.addr, "GET", "/sized", &[("accept-encoding", "gzip")], b"");
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    let mut html = Vec::new();
    flate2::read::GzDecoder::new(&r.body[..])
        .read_to_end(&mut html)
        .unwrap();
    assert_eq!(html, expected(&agent));
}

#[test]
fn compression_inside_means_no_tag_and_an_untouched_body() {
    let agent = agent();
    let server = serve(agent.clone(), Some(false));
    let r = request(server.addr, "GET", "/sized", &[("accept-encoding", "gzip")], b"");
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    let mut html = Vec::new();
    flate2::read::GzDecoder::new(&r.body[..])
        .read_to_end(&mut html)
        .unwrap();
    assert_eq!(html, PAGE.as_bytes(), "a compressed body is passed through as it is");
}

#[test]
fn our_routes_answer_through_core() {
    let agent = agent();
    let server = serve(agent.clone(), None);
    let r = request(server.addr, "GET", "/browser/probe", &[], b"");
    assert_eq!((r.status, r.body.as_slice()), (200, &br#"{"ok":true}"#[..]));
    let body = br#"[{"type":"console","level":"info","text":"from the loopback test"}]"#;
    let headers = [
        ("x-browser-agent-key", "loopback-key-0001"),
        ("content-type", "application/json"),
    ];
    let r = request(server.addr, "POST", "/__mindstudio_dev__/logs", &headers, body);
    assert_eq!(r.status, 204, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        agent.logs().len(),
        1,
        "the server's workers share the agent made outside the factory"
    );
    let r = request(server.addr, "DELETE", "/__mindstudio_dev__/console", &[], b"");
    assert_eq!((r.status, r.header("allow")), (405, Some("GET, HEAD")));
}
