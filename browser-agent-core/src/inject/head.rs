//! [`RequestHead`]: the read-only view of a request's head that the injection rule looks at, so
//! every framework's request type goes through one rule ([`gate`](super::gate) and
//! [`InjectExt`](super::InjectExt) read it).

use http::{header, HeaderMap, HeaderValue};

/// A read-only view of a request's head: what the injection rule looks at. Implemented here for
/// `http`'s [`Request`](http::Request) and [`Parts`](http::request::Parts); an adapter whose
/// framework has other request types implements it on a small wrapper (nothing is copied).
///
/// ```
/// use browser_agent_core::adapter::RequestHead;
/// let req = http::Request::get("/").header("host", "127.0.0.1:3000").body(()).unwrap();
/// assert_eq!((req.method_name(), req.authority()), ("GET", Some(&b"127.0.0.1:3000"[..])));
/// assert_eq!(req.header("host"), Some(&b"127.0.0.1:3000"[..]));
/// ```
pub trait RequestHead {
    /// The method's name (`GET`, `HEAD`, …).
    fn method_name(&self) -> &str;
    /// Every header as (lower-case name, value), repeated names in order.
    fn header_pairs(&self) -> impl Iterator<Item = (&str, &[u8])>;
    /// Where the request was sent: its `Host` header, else its URI's authority.
    fn authority(&self) -> Option<&[u8]>;
    /// The first value of header `name` (lower-case).
    fn header(&self, name: &str) -> Option<&[u8]> {
        self.header_pairs().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

fn http_authority<'a>(headers: &'a HeaderMap, uri: &'a http::Uri) -> Option<&'a [u8]> {
    headers
        .get(header::HOST)
        .map(HeaderValue::as_bytes)
        .or_else(|| uri.authority().map(|a| a.as_str().as_bytes()))
}

impl RequestHead for http::request::Parts {
    fn method_name(&self) -> &str {
        self.method.as_str()
    }
    fn header_pairs(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes()))
    }
    fn authority(&self) -> Option<&[u8]> {
        http_authority(&self.headers, &self.uri)
    }
    fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers.get(name).map(HeaderValue::as_bytes)
    }
}

impl<B> RequestHead for http::Request<B> {
    fn method_name(&self) -> &str {
        self.method().as_str()
    }
    fn header_pairs(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.headers().iter().map(|(n, v)| (n.as_str(), v.as_bytes()))
    }
    fn authority(&self) -> Option<&[u8]> {
        http_authority(self.headers(), self.uri())
    }
    fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers().get(name).map(HeaderValue::as_bytes)
    }
}
