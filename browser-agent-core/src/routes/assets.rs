//! The content-hashed client assets ([`Access::Public`](super::Access)), gzipped when accepted.

use bytes::Bytes;
use http::{header, request::Parts, HeaderValue, Response};

use crate::BrowserAgent;

impl BrowserAgent {
    pub(super) fn asset(&self, name: &str, parts: &Parts) -> Response<Bytes> {
        let asset = self.inner.assets.get(name).expect("route_of checked it");
        let gzip = asset.gzip.as_ref().filter(|_| accepts_gzip(&parts.headers));
        let mut res = Response::new(gzip.unwrap_or(&asset.body).clone());
        let h = res.headers_mut();
        if gzip.is_some() {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        );
        h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
        res
    }
}

/// Whether `Accept-Encoding` allows gzip: `gzip`, `x-gzip` or `*` with a q-value other than 0.
fn accepts_gzip(headers: &http::HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut it = item.split(';');
            let coding = it.next().unwrap_or("").trim();
            let refused = it.any(|p| {
                let p = p.trim().as_bytes();
                p.len() >= 2
                    && p[..2].eq_ignore_ascii_case(b"q=")
                    && std::str::from_utf8(&p[2..]).is_ok_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
            });
            !refused && (coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") || coding == "*")
        })
}

#[cfg(test)]
mod tests {
    use super::accepts_gzip;
    use http::{header::ACCEPT_ENCODING, HeaderMap, HeaderValue};

    fn accepts(values: &[&str]) -> bool {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        }
        accepts_gzip(&h)
    }

    #[test]
    fn gzip_is_served_only_when_accepted() {
        assert!(accepts(&["gzip, deflate, br, zstd"]));
        assert!(accepts(&["br", "GZip;q=0.5"]));
        assert!(accepts(&["x-gzip"]));
        assert!(accepts(&["*"]));
        assert!(!accepts(&[]));
        assert!(!accepts(&["br, deflate"]));
        assert!(!accepts(&["gzip;q=0"]));
        assert!(!accepts(&["gzip; q=0.000, identity"]));
        assert!(!accepts(&["gzipped"]));
        // A value that is not ASCII is ignored (without panicking).
        assert!(!accepts(&["gzip;q=é"]));
    }
}
