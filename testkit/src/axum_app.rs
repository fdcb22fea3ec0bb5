//! The test app on axum: the demo's routes, the fixtures and a folder of pages, with
//! [`BrowserAgentLayer`] added in one line.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use browser_agent_core::BrowserAgent;
use browser_agent_tower::BrowserAgentLayer;
use bytes::Bytes;
use http_body::Frame;

use crate::{add_item, demo_route, file_or_404, fixture_or_404, Reply};

/// The test app with the agent: `/`, `/api/items`, `/api/fail`, `/api/slow`, `/fixtures/{name}`, and the files of
/// `dir` (if any) for every other path.
///
/// ```
/// use tower::ServiceExt;
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
/// let app = browser_agent_testkit::axum_app::router(agent, None);
/// let req = http::Request::get("/api/items").body(axum::body::Body::empty()).unwrap();
/// assert_eq!(app.oneshot(req).await.unwrap().status(), 200);
/// # });
/// ```
pub fn router(agent: BrowserAgent, dir: Option<PathBuf>) -> Router {
    Router::new()
        .route("/", get(demo))
        .route(
            "/api/items",
            get(demo).post(|body: Bytes| async move { reply(add_item(&body)) }),
        )
        .route("/api/fail", get(demo))
        .route("/api/slow", get(slow))
        .route("/fixtures/{name}", get(fixture).head(fixture).post(fixture))
        .fallback(fallback)
        .with_state(dir)
        // The one line: last, so it wraps every route and the fallback.
        .layer(BrowserAgentLayer::with_agent(agent))
}

async fn demo(uri: Uri) -> Response {
    reply(demo_route(uri.path()).expect("a demo route"))
}

/// `/api/slow`: answers after [`SLOW_MS`], for the waits on a step's requests.
async fn slow() -> Response {
    tokio::time::sleep(std::time::Duration::from_millis(SLOW_MS)).await;
    reply(Reply::new(200, "application/json", "{\"slow\":true}"))
}

/// How long `/api/slow` takes to answer (ms).
pub const SLOW_MS: u64 = 800;

async fn fixture(Path(name): Path<String>) -> Response {
    reply(fixture_or_404(&name))
}

async fn fallback(State(dir): State<Option<PathBuf>>, uri: Uri) -> Response {
    reply(file_or_404(dir.as_deref(), uri.path()))
}

/// Turns a framework-free [`Reply`] into an axum response (streamed replies as a body of unknown length).
pub fn reply(r: Reply) -> Response {
    let body = if r.streamed {
        Body::new(Chunks(r.chunks.into_iter().collect()))
    } else {
        Body::from(r.chunks.concat())
    };
    let mut res = body.into_response();
    *res.status_mut() = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (name, value) in r.headers {
        if let Ok(v) = value.parse() {
            res.headers_mut().append(name, v);
        }
    }
    res
}

/// A body sent as separate frames with no declared length.
struct Chunks(VecDeque<Bytes>);

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = std::convert::Infallible;
    fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Poll::Ready(self.0.pop_front().map(|c| Ok(Frame::data(c))))
    }
}

pub use crate::RunningServer;

/// Serves `router(agent, dir)` on `addr` (port 0 picks one) from a background thread.
pub fn spawn(agent: BrowserAgent, dir: Option<PathBuf>, addr: SocketAddr) -> std::io::Result<RunningServer> {
    serve(router(agent, dir), addr)
}

/// Serves any `app` on `addr` (port 0 picks one) from a background thread with a runtime of its own.
pub fn serve(app: Router, addr: SocketAddr) -> std::io::Result<RunningServer> {
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name(format!("axum-app-{}", addr.port()))
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("tokio runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let server = axum::serve(listener, app);
                tokio::select! {
                    _ = server => {}
                    _ = rx => {}
                }
            });
            rt.shutdown_timeout(std::time::Duration::from_secs(1));
        })?;
    Ok(RunningServer::new(
        addr,
        move || {
            let _ = tx.send(());
        },
        thread,
    ))
}
