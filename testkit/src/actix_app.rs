//! The test app on actix-web: the demo's routes, the fixtures and a folder of pages, with
//! [`BrowserAgentMiddleware`] added in one line.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, MessageBody};
use actix_web::dev::{ServerHandle, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::{guard, web, App, HttpRequest, HttpResponse, HttpServer, Route};
use browser_agent_actix::BrowserAgentMiddleware;
use browser_agent_core::BrowserAgent;
use bytes::Bytes;

use crate::{add_item, demo_route, file_or_404, fixture_or_404, Reply};

/// The test app with the agent: `/`, `/api/items`, `/api/fail`, `/fixtures/{name}`, and the files of
/// `dir` (if any) for every other path. Build the agent once, outside `HttpServer::new`, and call
/// this inside the factory with `agent.clone()`.
///
/// ```
/// use actix_web::test;
/// # actix_web::rt::System::new().block_on(async {
/// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
/// let app = test::init_service(browser_agent_testkit::actix_app::app(agent, None)).await;
/// let req = test::TestRequest::get().uri("/api/items").to_request();
/// assert_eq!(test::call_service(&app, req).await.status(), 200);
/// # });
/// ```
pub fn app(
    agent: BrowserAgent,
    dir: Option<PathBuf>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .configure(|cfg| routes(cfg, dir))
        // The one line (wrap `Compress::default()` after it, never before).
        .wrap(BrowserAgentMiddleware::new(agent))
}

/// The demo's routes without the agent (what the app would be without browser-agent).
///
/// ```
/// use actix_web::{test, App};
/// # actix_web::rt::System::new().block_on(async {
/// let app = test::init_service(App::new().configure(|c| browser_agent_testkit::actix_app::routes(c, None))).await;
/// let req = test::TestRequest::get().uri("/").to_request();
/// let html = test::call_and_read_body(&app, req).await;
/// assert_eq!(html, browser_agent_examples::demo::PAGE);
/// # });
/// ```
pub fn routes(cfg: &mut web::ServiceConfig, dir: Option<PathBuf>) {
    cfg.service(web::resource("/").route(get_or_head().to(demo)))
        .service(
            web::resource("/api/items")
                .route(get_or_head().to(demo))
                .route(web::post().to(|body: Bytes| async move { reply(add_item(&body)) })),
        )
        .service(web::resource("/api/fail").route(get_or_head().to(demo)))
        .service(
            web::resource("/fixtures/{name}")
                .route(get_or_head().to(fixture))
                .route(web::post().to(fixture)),
        )
        .default_service(web::to(move |req: HttpRequest| {
            let res = reply(file_or_404(dir.as_deref(), req.path()));
            async move { res }
        }));
}

/// `GET`, and `HEAD` with the same handler (as axum's `get` does).
fn get_or_head() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

async fn demo(req: HttpRequest) -> HttpResponse {
    reply(demo_route(req.path()).expect("a demo route"))
}

async fn fixture(name: web::Path<String>) -> HttpResponse {
    reply(fixture_or_404(&name))
}

/// Turns a framework-free [`Reply`] into an actix response (streamed replies as a body of unknown
/// length, sized ones sized).
///
/// ```
/// use actix_web::body::{BodySize, MessageBody};
/// use browser_agent_testkit::{actix_app::reply, fixtures::fixture};
/// assert_eq!(reply(fixture("chunked").unwrap()).body().size(), BodySize::Stream);
/// assert_eq!(reply(fixture("sized").unwrap()).body().size(), BodySize::Sized(fixtures_len()));
/// # fn fixtures_len() -> u64 { browser_agent_testkit::fixtures::HTML.len() as u64 }
/// ```
pub fn reply(r: Reply) -> HttpResponse {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut builder = HttpResponse::build(status);
    for (name, value) in r.headers {
        builder.append_header((name, value));
    }
    if r.streamed {
        builder.body(Chunks(r.chunks.into_iter().collect()))
    } else {
        builder.body(Bytes::from(r.chunks.concat()))
    }
}

/// A body sent as separate chunks with no declared length.
struct Chunks(VecDeque<Bytes>);

impl MessageBody for Chunks {
    type Error = std::convert::Infallible;

    fn size(&self) -> BodySize {
        BodySize::Stream
    }

    fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Poll::Ready(self.0.pop_front().map(Ok))
    }
}

pub use crate::RunningServer;

/// Serves [`app`]`(agent, dir)` on `addr` (port 0 picks one) from a background thread with one
/// worker. The agent is created by the caller, once, and every worker gets a clone of it.
///
/// ```
/// use std::io::{Read, Write};
/// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
/// let server = browser_agent_testkit::actix_app::spawn(agent, None, "127.0.0.1:0".parse().unwrap()).unwrap();
/// let mut s = std::net::TcpStream::connect(server.addr).unwrap();
/// s.write_all(b"GET /browser/probe HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n").unwrap();
/// let mut out = String::new();
/// s.read_to_string(&mut out).unwrap();
/// assert!(out.starts_with("HTTP/1.1 200") && out.ends_with(r#"{"ok":true}"#));
/// server.stop();
/// ```
pub fn spawn(agent: BrowserAgent, dir: Option<PathBuf>, addr: SocketAddr) -> std::io::Result<RunningServer> {
    let listener = std::net::TcpListener::bind(addr)?;
    let addr = listener.local_addr()?;
    let (tx, rx) = std::sync::mpsc::channel::<std::io::Result<ServerHandle>>();
    let thread = std::thread::Builder::new()
        .name(format!("actix-demo-{}", addr.port()))
        .spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = HttpServer::new(move || app(agent.clone(), dir.clone()))
                    .workers(1)
                    .disable_signals()
                    .shutdown_timeout(0)
                    .listen(listener);
                let server = match server {
                    Ok(s) => s.run(),
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                let _ = tx.send(Ok(server.handle()));
                let _ = server.await;
            });
        })?;
    let handle = rx
        .recv()
        .map_err(|_| std::io::Error::other("the actix demo thread ended before serving"))??;
    // Not graceful: open connections (long-polls too) are dropped at once. The command is sent
    // now; the server's thread finishes it.
    Ok(RunningServer::new(addr, move || drop(handle.stop(false)), thread))
}
