//! What injection does to a response: whether a request may get the tag (method, fetch
//! headers, a Host we answer), and the header edits and tag for the app's response.

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Method, StatusCode};

use super::{gate, tag};
use crate::BrowserAgent;

/// What to do with a response the app produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injection {
    /// Leave it alone.
    None,
    /// Its headers were adjusted (HEAD: `Content-Length` grew); the body stays as it is.
    HeadersOnly,
    /// Stream the body through an [`Injector`](crate::inject::Injector) with this tag.
    Body(Bytes),
}

impl BrowserAgent {
    /// Whether a request for a page may get the client tag (method, fetch headers, and a Host we answer;
    /// a page served to another Host must not carry the key).
    pub fn wants_injection(&self, method: &Method, parts_headers: &HeaderMap, uri: &http::Uri) -> bool {
        if !self.enabled() || !gate::request_wants_injection(method, parts_headers) {
            return false;
        }
        crate::security::check_host(parts_headers, uri, &self.inner.config.allowed_hosts).is_ok()
    }

    /// [`wants_injection`](Self::wants_injection) for adapters whose request types are not
    /// `http` 1.x's: the method name, the headers as (lower-case name, value) pairs, and the
    /// authority the request was sent to (its `Host` header, else its URI's). Nothing is copied.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// let headers = [("sec-fetch-dest", &b"document"[..])];
    /// assert!(agent.wants_injection_from("GET", headers, Some(b"127.0.0.1:3000")));
    /// assert!(!agent.wants_injection_from("GET", headers, Some(b"evil.example")));
    /// assert!(!agent.wants_injection_from("POST", headers, Some(b"localhost")));
    /// ```
    pub fn wants_injection_from<'a>(
        &self,
        method: &str,
        headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
        authority: Option<&[u8]>,
    ) -> bool {
        self.enabled()
            && gate::request_wants_injection_from(method == "GET" || method == "HEAD", headers)
            && authority.is_some_and(|a| crate::security::host_allowed(a, &self.inner.config.allowed_hosts))
    }

    /// Decides injection for a response to a request that [`wants_injection`](Self::wants_injection),
    /// adjusting its headers (`Content-Length` grows by the tag; `ETag` and `Accept-Ranges` go).
    /// `body_len` is the body's exact length when the adapter knows it (a sized body without a
    /// `Content-Length` header): it lets a `HEAD` answer announce the same length as `GET`.
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, Injection};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let mut headers = http::HeaderMap::new();
    /// headers.insert("content-type", "text/html".parse().unwrap());
    /// let plan = agent.plan_injection(http::StatusCode::OK, &mut headers, true, Some(100));
    /// assert_eq!(plan, Injection::HeadersOnly);
    /// assert_eq!(headers["content-length"], (100 + agent.tag().len()).to_string());
    /// ```
    pub fn plan_injection(
        &self,
        status: StatusCode,
        headers: &mut HeaderMap,
        is_head: bool,
        body_len: Option<u64>,
    ) -> Injection {
        let Some(length) = gate::response_accepts_injection(status, headers) else {
            return Injection::None;
        };
        let length = length.or(body_len);
        let tag = match gate::csp_nonce(headers) {
            Some(nonce) => tag::build_tag(&self.inner.tag_config, Some(&nonce)),
            None => self.inner.plain_tag.clone(),
        };
        if let Some(length) = length {
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length + tag.len() as u64));
        }
        headers.remove(header::ETAG);
        headers.remove(header::ACCEPT_RANGES);
        if is_head {
            Injection::HeadersOnly
        } else {
            Injection::Body(tag)
        }
    }

    /// The tag injected into pages without a CSP nonce.
    pub fn tag(&self) -> &Bytes {
        &self.inner.plain_tag
    }
}
