//! Shared pieces of the benchmarks in `benches/benches/`; run them with
//! `cargo bench -p browser-agent-benches --benches`.
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

/// A keep-alive HTTP/1.1 client that reads each sized response to its last byte (the test kit's).
pub struct Client(browser_agent_testkit::http::KeepAlive);

impl Client {
    /// Connects to `addr`.
    pub fn new(addr: std::net::SocketAddr) -> Client {
        Client(browser_agent_testkit::http::KeepAlive::new(addr))
    }

    /// `GET path` as a page navigation on the kept-alive connection; returns the body length.
    pub fn get(&mut self, path: &str) -> usize {
        self.0.get_page(path)
    }
}

/// Reads a body to its end frame by frame, as a server writes it to a socket, without joining the
/// frames into one buffer (joining would charge the injected page a copy no server makes).
pub async fn drain<B>(body: B) -> usize
where
    B: http_body::Body + Unpin,
    B::Error: std::fmt::Debug,
{
    use bytes::Buf;
    use http_body_util::BodyExt;
    let mut body = body;
    let mut n = 0;
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.expect("body frame").into_data() {
            n += data.remaining();
        }
    }
    n
}

/// The app both the criterion and the instruction benches measure: a JSON route and a 200 KB page.
pub fn axum_app() -> axum::Router {
    use axum::routing::get;
    // Bytes, so cloning the handler per request (axum does, more often under a layer) costs no copy.
    let big = bytes::Bytes::from(browser_agent_testkit::fixtures::big_page());
    axum::Router::new()
        .route(
            "/api/items",
            get(|| async { axum::Json(serde_json::json!(["a", "b", "c"])) }),
        )
        .route(
            "/big",
            get(move || {
                let big = big.clone();
                async move { axum::response::Html(big) }
            }),
        )
}

/// A page navigation to `path` as a browser sends it (loopback Host, `Sec-Fetch-Dest: document`).
/// A request as a page's `fetch()` sends it (`sec-fetch-dest: empty`): the common case on a dev
/// server, which the layer turns away after one pass over the headers.
pub fn fetch_request(path: &str) -> http::Request<axum::body::Body> {
    http::Request::get(path)
        .header("host", "127.0.0.1:3000")
        .header("sec-fetch-dest", "empty")
        .header("accept", "application/json")
        .body(axum::body::Body::empty())
        .unwrap()
}

/// A document request as a browser sends it for a page load (`sec-fetch-dest: document`): the
/// layer checks its Host and looks at the response type.
pub fn page_request(path: &str) -> http::Request<axum::body::Body> {
    http::Request::get(path)
        .header("host", "127.0.0.1:3000")
        .header("sec-fetch-dest", "document")
        .body(axum::body::Body::empty())
        .unwrap()
}
