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

/// A request head as hyper's HTTP/1 parser hands it to the app: the path and every header value
/// are slices of one shared read buffer (cloning them is a reference count, not a copy), and the
/// header names are hyper's own (standard names are constants; others are allocated). A request
/// built from `&str`s instead copies each value into its own buffer, and its path's first clone
/// allocates: costs a served request never pays, which would blur the layer's share.
pub fn hyper_request(path: &str, headers: &[(&str, &str)]) -> http::Request<axum::body::Body> {
    let mut buf = bytes::BytesMut::new();
    buf.extend_from_slice(path.as_bytes());
    for (_, value) in headers {
        buf.extend_from_slice(value.as_bytes());
    }
    let mut head = buf.freeze();
    let uri = http::Uri::from_maybe_shared(head.split_to(path.len())).expect("path");
    let mut req = http::Request::get(uri)
        .body(axum::body::Body::empty())
        .expect("request");
    for (name, value) in headers {
        let value = head.split_to(value.len());
        req.headers_mut().append(
            http::HeaderName::from_bytes(name.as_bytes()).expect("header name"),
            http::HeaderValue::from_maybe_shared(value).expect("header value"),
        );
    }
    req
}

/// A request as a page's `fetch()` sends it (`sec-fetch-dest: empty`): the common case on a dev
/// server, which the layer turns away after one pass over the headers.
pub fn fetch_request(path: &str) -> http::Request<axum::body::Body> {
    hyper_request(
        path,
        &[
            ("host", "127.0.0.1:3000"),
            ("sec-fetch-dest", "empty"),
            ("accept", "application/json"),
        ],
    )
}

/// A page navigation to `path` as a browser sends it (loopback Host, `Sec-Fetch-Dest: document`):
/// the layer checks its Host and looks at the response type.
pub fn page_request(path: &str) -> http::Request<axum::body::Body> {
    hyper_request(path, &[("host", "127.0.0.1:3000"), ("sec-fetch-dest", "document")])
}
