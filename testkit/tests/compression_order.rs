//! The README's rule for axum/tower, over a real socket: `BrowserAgentLayer` goes *inside* any
//! `CompressionLayer` (added before it). Then the page gets the tag and is compressed with it;
//! the other way round the layer sees a compressed body and passes it untouched (no tag, and a
//! body that still decodes to the page). actix's `Compress` has the same test in
//! `browser-agent-actix/tests/loopback.rs`.

use std::io::Read;

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use browser_agent_core::BrowserAgent;
use browser_agent_testkit::axum_app::serve;
use browser_agent_testkit::http::request;
use browser_agent_tower::BrowserAgentLayer;
use tower_http::compression::CompressionLayer;

/// Big enough for tower-http to compress (it skips bodies under 32 bytes).
const PAGE: &str = "<!doctype html><html><head><title>t</title></head><body>hello, compressed world</body></html>";

fn agent() -> BrowserAgent {
    BrowserAgent::builder()
        .enabled(true)
        .page_key("compression-key-0001")
        .build()
}

fn app() -> Router {
    Router::new().route("/", get(|| async { Html(PAGE) }))
}

fn expected(agent: &BrowserAgent) -> Vec<u8> {
    let tag = std::str::from_utf8(agent.tag()).unwrap();
    PAGE.replacen("<head>", &format!("<head>{tag}"), 1).into_bytes()
}

/// `GET /` as a page navigation accepting gzip; the gunzipped body.
fn get_gzipped(server: &browser_agent_testkit::RunningServer) -> Vec<u8> {
    let r = request(
        server.addr,
        "GET",
        "/",
        &[("sec-fetch-dest", "document"), ("accept-encoding", "gzip")],
        b"",
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding"), Some("gzip"), "{:?}", r.headers);
    let mut html = Vec::new();
    flate2::read::GzDecoder::new(&r.body[..])
        .read_to_end(&mut html)
        .expect("a gzip body");
    html
}

#[test]
fn compression_outside_compresses_the_injected_page() {
    let agent = agent();
    let app = app()
        .layer(BrowserAgentLayer::with_agent(agent.clone()))
        .layer(CompressionLayer::new());
    let server = serve(app, "127.0.0.1:0".parse().unwrap()).unwrap();
    assert_eq!(get_gzipped(&server), expected(&agent));
}

#[test]
fn compression_inside_means_no_tag_and_an_untouched_body() {
    let agent = agent();
    let app = app()
        .layer(CompressionLayer::new())
        .layer(BrowserAgentLayer::with_agent(agent.clone()));
    let server = serve(app, "127.0.0.1:0".parse().unwrap()).unwrap();
    assert_eq!(
        get_gzipped(&server),
        PAGE.as_bytes(),
        "a compressed body is passed through as it is"
    );
}
