//! Layer behaviour that the adapter-independent conformance suite (examples/tests/conformance.rs)
//! does not cover: release-mode pass-through, axum ordering with a fallback, and trailers.

use std::convert::Infallible;

use axum::routing::get;
use axum::Router;
use browser_agent_tower::{BrowserAgent, BrowserAgentLayer, BrowserAgentService};
use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use tower::{service_fn, ServiceExt};

const PAGE: &str = "<!doctype html><html><head><title>t</title></head><body>x</body></html>";

fn html_app() -> Router {
    Router::new()
        .route("/", get(|| async { axum::response::Html(PAGE) }))
        .fallback(|| async { (http::StatusCode::IM_A_TEAPOT, "app fallback") })
}

async fn body_of(res: Response<axum::body::Body>) -> String {
    String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
}

fn get_req(path: &str) -> Request<axum::body::Body> {
    Request::get(path)
        .header("host", "127.0.0.1:3000")
        .body(axum::body::Body::empty())
        .unwrap()
}

#[tokio::test]
async fn disabled_agent_passes_everything_through_untouched() {
    let agent = BrowserAgent::builder().enabled(false).build();
    let app = html_app().layer(BrowserAgentLayer::with_agent(agent));
    let res = app.clone().oneshot(get_req("/")).await.unwrap();
    assert_eq!(body_of(res).await, PAGE);
    let res = app.oneshot(get_req("/__mindstudio_dev__/console")).await.unwrap();
    assert_eq!(
        res.status(),
        http::StatusCode::IM_A_TEAPOT,
        "our routes belong to the app when disabled"
    );
}

#[tokio::test]
async fn layer_after_fallback_serves_our_routes_and_injects() {
    let agent = BrowserAgent::builder().enabled(true).build();
    let app = html_app().layer(BrowserAgentLayer::with_agent(agent.clone()));
    let res = app
        .clone()
        .oneshot(get_req("/__mindstudio_dev__/console"))
        .await
        .unwrap();
    assert_eq!(res.status(), http::StatusCode::OK);
    let res = app.oneshot(get_req("/")).await.unwrap();
    let html = body_of(res).await;
    assert_eq!(html.matches("data-browser-agent=").count(), 1);
    assert!(html.contains(&format!("\"key\":\"{}\"", agent.page_key())));
}

#[tokio::test]
async fn trailers_come_after_the_tag() {
    let inner = service_fn(|_req: Request<Full<Bytes>>| async {
        let mut trailers = http::HeaderMap::new();
        trailers.insert("x-done", "1".parse().unwrap());
        let body = Frames(
            vec![
                http_body::Frame::data(Bytes::from_static(b"<html><he")),
                http_body::Frame::data(Bytes::from_static(b"ad></head>")),
                http_body::Frame::trailers(trailers),
            ]
            .into(),
        );
        Ok::<_, Infallible>(
            Response::builder()
                .header("content-type", "text/html")
                .body(body)
                .unwrap(),
        )
    });
    let svc = BrowserAgentService::new(inner, BrowserAgent::builder().enabled(true).build());
    let req = Request::get("/")
        .header("host", "localhost")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let res = svc.oneshot(req).await.unwrap();
    let collected = res.into_body().collect().await.unwrap();
    let trailers = collected.trailers().cloned().expect("trailers kept");
    assert_eq!(trailers["x-done"], "1");
    let bytes = collected.to_bytes();
    let text = std::str::from_utf8(&bytes).unwrap();
    assert!(text.starts_with("<html><head><script data-browser-agent="), "{text}");
    assert!(text.ends_with("</script></head>"));
}

/// A body made of ready frames, trailers included.
struct Frames(std::collections::VecDeque<http_body::Frame<Bytes>>);

impl http_body::Body for Frames {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        std::task::Poll::Ready(self.0.pop_front().map(Ok))
    }
}
