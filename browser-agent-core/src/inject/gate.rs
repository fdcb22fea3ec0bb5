//! Which requests and responses get the client tag.
//!
//! Requests: `GET` or `HEAD`, or any other method (a form's `POST`) that `Sec-Fetch-Dest` says
//! is a navigation; when `Sec-Fetch-Dest` is present it must be `document`, `iframe` or `frame`;
//! never htmx (`HX-Request`), Turbo frames (`Turbo-Frame`) or `X-Requested-With`
//! fragments. Responses: an HTML document (`text/html`, not UTF-16), not 1xx/204/206/304, no
//! `Content-Range`, no `Content-Encoding` other than `identity`, a parseable `Content-Length` if any.
//! An adapter that can decode may also take a page compressed with one of gzip, deflate or br
//! ([`take_decodable_coding`]: the CLI's proxy does; the tower and actix adapters pass compressed
//! answers untouched, the app compresses after them).

use http::{header, HeaderMap, StatusCode};

use super::head::RequestHead;

/// Whether a request may receive an injected page (the Host check is the agent's, see
/// [`InjectExt::wants_injection`](super::InjectExt::wants_injection)).
///
/// ```
/// use browser_agent_core::adapter::gate::request_wants_injection;
/// let page = |dest: &str| http::Request::get("/").header("sec-fetch-dest", dest).body(()).unwrap();
/// assert!(request_wants_injection(&page("document")));
/// assert!(!request_wants_injection(&page("script")));
/// let htmx = http::Request::get("/").header("hx-request", "true").body(()).unwrap();
/// assert!(!request_wants_injection(&htmx));
/// // A form's POST answered with a page (a form shown again with its errors) is a page too; a
/// // POST without `Sec-Fetch-Dest` may be a script's, so it gets no tag.
/// let form = http::Request::post("/").header("sec-fetch-dest", "document").body(()).unwrap();
/// assert!(request_wants_injection(&form));
/// assert!(!request_wants_injection(&http::Request::post("/").body(()).unwrap()));
/// ```
pub fn request_wants_injection(head: &impl RequestHead) -> bool {
    let method = head.method_name();
    // Other methods only as navigations, which browsers name with `Sec-Fetch-Dest`.
    let mut navigation = method == "GET" || method == "HEAD";
    let headers = head.header_pairs();
    // One pass over the (few) headers, comparing lengths first: this runs on every GET the app
    // serves, and four hashed lookups cost more than the whole pass.
    for (name, dest) in headers {
        match name.len() {
            14 if name == "sec-fetch-dest" => {
                let document = [&b"document"[..], b"iframe", b"frame"];
                if !document.iter().any(|d| dest.eq_ignore_ascii_case(d)) {
                    return false;
                }
                navigation = true;
            }
            10 if name == "hx-request" => return false,
            11 if name == "turbo-frame" => return false,
            16 if name == "x-requested-with" => return false,
            _ => {}
        }
    }
    navigation
}

/// Whether a `Content-Type` value is an HTML document's (`text/html`, any parameters): the first,
/// cheapest look at a response, which most responses fail.
///
/// ```
/// use browser_agent_core::adapter::gate::is_html;
/// assert!(is_html(b"text/html; charset=utf-8") && is_html(b" TEXT/HTML"));
/// assert!(!is_html(b"application/json") && !is_html(b"text/htm"));
/// ```
pub fn is_html(content_type: &[u8]) -> bool {
    let ct = content_type.trim_ascii_start();
    ct.len() >= 9 && ct[..9].eq_ignore_ascii_case(b"text/html")
}

/// Whether a response is an HTML document we may rewrite. Returns the declared length when there is one.
///
/// ```
/// use browser_agent_core::adapter::gate::response_accepts_injection;
/// use http::{HeaderMap, StatusCode};
/// let mut h = HeaderMap::new();
/// h.insert("content-type", "text/html; charset=utf-8".parse().unwrap());
/// assert_eq!(response_accepts_injection(StatusCode::OK, &h), Some(None));
/// h.insert("content-encoding", "gzip".parse().unwrap());
/// assert_eq!(response_accepts_injection(StatusCode::OK, &h), None);
/// ```
pub fn response_accepts_injection(status: StatusCode, headers: &HeaderMap) -> Option<Option<u64>> {
    let length = page_answer(status, headers)?;
    if let Some(enc) = headers.get(header::CONTENT_ENCODING) {
        if !enc.as_bytes().trim_ascii().eq_ignore_ascii_case(b"identity") {
            return None;
        }
    }
    Some(length)
}

/// A content coding that [`take_decodable_coding`] lets an adapter undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Coding {
    /// `gzip`, and its old name `x-gzip`.
    Gzip,
    /// `deflate`: deflate in the zlib format (RFC 9110 §8.4.1.2).
    Deflate,
    /// `br`: Brotli.
    Brotli,
}

/// For an adapter that decodes bodies: whether a response is a page that gets the tag but for its
/// one `Content-Encoding` (`gzip`, `x-gzip`, `deflate` or `br`; a dev server may compress although
/// asked for `identity`). If so, `Content-Encoding` and `Content-Length` (the decoded length is
/// unknown) are removed and the coding the adapter must undo is returned; the decoded body then
/// goes through [`InjectExt::plan_injection`](super::InjectExt::plan_injection) like any page.
/// Anything else (stacked or unknown codings, or a response refused for another reason) leaves
/// the headers as they are: `None`.
///
/// ```
/// use browser_agent_core::adapter::gate::{take_decodable_coding, Coding};
/// use http::{HeaderMap, StatusCode};
/// let mut h = HeaderMap::new();
/// h.insert("content-type", "text/html".parse().unwrap());
/// h.insert("content-encoding", "gzip".parse().unwrap());
/// h.insert("content-length", "120".parse().unwrap());
/// assert_eq!(take_decodable_coding(StatusCode::OK, &mut h), Some(Coding::Gzip));
/// assert!(!h.contains_key("content-encoding") && !h.contains_key("content-length"));
/// h.insert("content-encoding", "gzip, br".parse().unwrap());
/// assert_eq!(take_decodable_coding(StatusCode::OK, &mut h), None);
/// assert!(h.contains_key("content-encoding"));
/// ```
pub fn take_decodable_coding(status: StatusCode, headers: &mut HeaderMap) -> Option<Coding> {
    let mut values = headers.get_all(header::CONTENT_ENCODING).iter();
    let value = values.next()?.as_bytes().trim_ascii();
    if values.next().is_some() {
        return None;
    }
    let coding = if value.eq_ignore_ascii_case(b"gzip") || value.eq_ignore_ascii_case(b"x-gzip") {
        Coding::Gzip
    } else if value.eq_ignore_ascii_case(b"deflate") {
        Coding::Deflate
    } else if value.eq_ignore_ascii_case(b"br") {
        Coding::Brotli
    } else {
        return None;
    };
    page_answer(status, headers)?;
    headers.remove(header::CONTENT_ENCODING);
    headers.remove(header::CONTENT_LENGTH);
    Some(coding)
}

/// Every rule of [`response_accepts_injection`] but the coding's; the declared length if any.
fn page_answer(status: StatusCode, headers: &HeaderMap) -> Option<Option<u64>> {
    // Most responses are not HTML: decide that first, on bytes, before any other lookup.
    let content_type = headers.get(header::CONTENT_TYPE)?.as_bytes().trim_ascii_start();
    if !is_html(content_type) {
        return None;
    }
    if status.is_informational()
        || matches!(
            status,
            StatusCode::NO_CONTENT | StatusCode::PARTIAL_CONTENT | StatusCode::NOT_MODIFIED
        )
        || headers.contains_key(header::CONTENT_RANGE)
    {
        return None;
    }
    let content_type = std::str::from_utf8(content_type).ok()?;
    let mut params = content_type.split(';');
    let media = params.next()?.trim();
    if !media.eq_ignore_ascii_case("text/html") {
        return None;
    }
    for param in params {
        if let Some((name, value)) = param.split_once('=') {
            let value = value.trim().trim_matches('"');
            if name.trim().eq_ignore_ascii_case("charset")
                && value.len() >= 6
                && value[..6].eq_ignore_ascii_case("utf-16")
            {
                return None;
            }
        }
    }
    match headers.get(header::CONTENT_LENGTH) {
        None => Some(None),
        Some(v) => v.to_str().ok()?.trim().parse::<u64>().ok().map(Some),
    }
}

/// The `'nonce-…'` that the response's CSP grants to scripts, if any (`script-src-elem`, else
/// `script-src`, else `default-src`, across every CSP header).
///
/// ```
/// use browser_agent_core::adapter::gate::csp_nonce;
/// use http::HeaderMap;
/// let mut h = HeaderMap::new();
/// h.insert("content-security-policy", "default-src 'self'; script-src 'nonce-abc123' 'strict-dynamic'".parse().unwrap());
/// assert_eq!(csp_nonce(&h).as_deref(), Some("abc123"));
/// ```
pub fn csp_nonce(headers: &HeaderMap) -> Option<String> {
    let policies: Vec<&str> = headers
        .get_all(header::CONTENT_SECURITY_POLICY)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    for directive_name in ["script-src-elem", "script-src", "default-src"] {
        for policy in &policies {
            for directive in policy.split(';') {
                let mut tokens = directive.split_ascii_whitespace();
                if !tokens.next().is_some_and(|n| n.eq_ignore_ascii_case(directive_name)) {
                    continue;
                }
                let nonce = tokens
                    .filter_map(|t| t.strip_prefix("'nonce-").and_then(|t| t.strip_suffix('\'')))
                    .find(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=_-".contains(&b)));
                if let Some(nonce) = nonce {
                    return Some(nonce.to_owned());
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::Method;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    fn request(method: Method, headers: HeaderMap) -> http::request::Parts {
        let mut parts = http::Request::new(()).into_parts().0;
        parts.method = method;
        parts.headers = headers;
        parts
    }

    #[test]
    fn request_rules() {
        assert!(request_wants_injection(&request(Method::HEAD, HeaderMap::new())));
        assert!(!request_wants_injection(&request(Method::POST, HeaderMap::new())));
        for (k, v, want) in [
            ("sec-fetch-dest", "document", true),
            ("sec-fetch-dest", "iframe", true),
            ("sec-fetch-dest", "empty", false),
            ("hx-request", "true", false),
            ("turbo-frame", "x", false),
            ("x-requested-with", "XMLHttpRequest", false),
        ] {
            assert_eq!(
                request_wants_injection(&request(Method::GET, headers(&[(k, v)]))),
                want,
                "{k}: {v}"
            );
        }
    }

    #[test]
    fn response_rules() {
        let html = [("content-type", "text/html")];
        assert_eq!(response_accepts_injection(StatusCode::OK, &headers(&html)), Some(None));
        assert_eq!(
            response_accepts_injection(StatusCode::INTERNAL_SERVER_ERROR, &headers(&html)),
            Some(None),
            "error pages get the agent too"
        );
        for status in [
            StatusCode::NO_CONTENT,
            StatusCode::PARTIAL_CONTENT,
            StatusCode::NOT_MODIFIED,
            StatusCode::CONTINUE,
        ] {
            assert_eq!(response_accepts_injection(status, &headers(&html)), None);
        }
        type Case<'a> = (&'a [(&'a str, &'a str)], Option<Option<u64>>);
        let cases: [Case<'_>; 8] = [
            (
                &[
                    ("content-type", "TEXT/HTML; charset=ISO-8859-1"),
                    ("content-length", "12"),
                ],
                Some(Some(12)),
            ),
            (&[("content-type", "text/html; charset=\"UTF-16LE\"")], None),
            (&[("content-type", "application/json")], None),
            (&[("content-type", "text/htmlx")], None),
            (&[], None),
            (&[("content-type", "text/html"), ("content-encoding", "br")], None),
            (
                &[("content-type", "text/html"), ("content-encoding", "identity")],
                Some(None),
            ),
            (&[("content-type", "text/html"), ("content-length", "nope")], None),
        ];
        for (h, want) in cases {
            let mut map = HeaderMap::new();
            for (k, v) in h {
                map.append(http::HeaderName::from_static(k), v.parse().unwrap());
            }
            assert_eq!(response_accepts_injection(StatusCode::OK, &map), want, "{h:?}");
        }
        assert_eq!(
            response_accepts_injection(
                StatusCode::OK,
                &headers(&[("content-type", "text/html"), ("content-range", "bytes 0-1/2")])
            ),
            None
        );
    }

    #[test]
    fn decodable_codings() {
        let take = |pairs: &[(&'static str, &'static str)], status: StatusCode| {
            let mut h = headers(pairs);
            let coding = take_decodable_coding(status, &mut h);
            (coding, h)
        };
        for (value, want) in [
            ("gzip", Coding::Gzip),
            ("X-GZIP", Coding::Gzip),
            (" deflate ", Coding::Deflate),
            ("br", Coding::Brotli),
        ] {
            let (coding, h) = take(
                &[
                    ("content-type", "text/html"),
                    ("content-encoding", value),
                    ("content-length", "10"),
                    ("etag", "\"x\""),
                ],
                StatusCode::OK,
            );
            assert_eq!(coding, Some(want), "{value}");
            assert!(!h.contains_key(header::CONTENT_ENCODING) && !h.contains_key(header::CONTENT_LENGTH));
            assert!(h.contains_key(header::ETAG), "plan_injection decides the rest");
            assert_eq!(
                response_accepts_injection(StatusCode::OK, &h),
                Some(None),
                "then a page like any"
            );
        }
        let refused: [(&[(&'static str, &'static str)], StatusCode); 7] = [
            (&[("content-type", "text/html")], StatusCode::OK),
            (
                &[("content-type", "text/html"), ("content-encoding", "identity")],
                StatusCode::OK,
            ),
            (
                &[("content-type", "text/html"), ("content-encoding", "zstd")],
                StatusCode::OK,
            ),
            (
                &[("content-type", "text/html"), ("content-encoding", "gzip, br")],
                StatusCode::OK,
            ),
            (
                &[
                    ("content-type", "text/html"),
                    ("content-encoding", "gzip"),
                    ("content-encoding", "br"),
                ],
                StatusCode::OK,
            ),
            (
                &[("content-type", "application/json"), ("content-encoding", "gzip")],
                StatusCode::OK,
            ),
            (
                &[("content-type", "text/html"), ("content-encoding", "gzip")],
                StatusCode::NOT_MODIFIED,
            ),
        ];
        for (pairs, status) in refused {
            let (coding, h) = take(pairs, status);
            assert_eq!(coding, None, "{pairs:?} {status}");
            assert_eq!(h, headers(pairs), "headers untouched");
        }
    }

    #[test]
    fn nonce_rules() {
        assert_eq!(csp_nonce(&HeaderMap::new()), None);
        assert_eq!(
            csp_nonce(&headers(&[(
                "content-security-policy",
                "style-src 'nonce-s'; default-src 'nonce-d'"
            )]))
            .as_deref(),
            Some("d")
        );
        assert_eq!(
            csp_nonce(&headers(&[("content-security-policy", "script-src 'nonce-a\"b'")])),
            None,
            "unsafe chars refused"
        );
        assert_eq!(
            csp_nonce(&headers(&[
                ("content-security-policy", "default-src 'nonce-d'"),
                ("content-security-policy", "script-src-elem 'nonce-e'")
            ]))
            .as_deref(),
            Some("e")
        );
    }
}
