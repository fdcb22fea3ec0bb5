//! Translation between actix-web's `http` 0.2 types and core's `http` 1 types. Nothing else.

use actix_web::http::header::{
    HeaderMap as ActixHeaderMap, HeaderName as ActixHeaderName, HeaderValue as ActixHeaderValue,
};
use actix_web::http::{Method as ActixMethod, StatusCode as ActixStatus, Uri as ActixUri};
use actix_web::HttpResponse;
use bytes::Bytes;

/// The method, in core's type.
pub(crate) fn method(m: &ActixMethod) -> Option<http::Method> {
    match *m {
        ActixMethod::GET => Some(http::Method::GET),
        ActixMethod::HEAD => Some(http::Method::HEAD),
        ActixMethod::POST => Some(http::Method::POST),
        _ => http::Method::from_bytes(m.as_str().as_bytes()).ok(),
    }
}

/// The request target, in core's type.
pub(crate) fn uri(u: &ActixUri) -> Option<http::Uri> {
    match (u.scheme(), u.authority(), u.path_and_query()) {
        // Origin form (`/path?query`), what HTTP/1.1 clients send: parse it as it is.
        (None, None, Some(pq)) => http::Uri::try_from(pq.as_str()).ok(),
        _ => http::Uri::try_from(u.to_string()).ok(),
    }
}

/// Every header (repeated names kept in order), in core's type.
pub(crate) fn headers_to_core(from: &ActixHeaderMap) -> http::HeaderMap {
    let mut to = http::HeaderMap::with_capacity(from.len());
    for (name, value) in from.iter() {
        if let (Ok(n), Ok(v)) = (
            http::HeaderName::from_bytes(name.as_str().as_bytes()),
            http::HeaderValue::from_bytes(value.as_bytes()),
        ) {
            to.append(n, v);
        }
    }
    to
}

/// Replaces every header of `to` with those of `from`.
pub(crate) fn headers_to_actix(from: &http::HeaderMap, to: &mut ActixHeaderMap) {
    to.clear();
    for (name, value) in from {
        if let (Ok(n), Ok(v)) = (
            ActixHeaderName::from_bytes(name.as_str().as_bytes()),
            ActixHeaderValue::from_bytes(value.as_bytes()),
        ) {
            to.append(n, v);
        }
    }
}

/// A status, in actix's type.
pub(crate) fn status_to_actix(s: http::StatusCode) -> ActixStatus {
    ActixStatus::from_u16(s.as_u16()).unwrap_or(ActixStatus::INTERNAL_SERVER_ERROR)
}

/// A status, in core's type.
pub(crate) fn status_to_core(s: ActixStatus) -> http::StatusCode {
    http::StatusCode::from_u16(s.as_u16()).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR)
}

/// The HTTP version, in core's type.
pub(crate) fn version(v: actix_web::http::Version) -> http::Version {
    use actix_web::http::Version as V;
    match v {
        V::HTTP_09 => http::Version::HTTP_09,
        V::HTTP_10 => http::Version::HTTP_10,
        V::HTTP_2 => http::Version::HTTP_2,
        V::HTTP_3 => http::Version::HTTP_3,
        _ => http::Version::HTTP_11,
    }
}

/// One of core's answers as an actix response (actix derives `Content-Length` from the body).
pub(crate) fn response_to_actix(res: http::Response<Bytes>) -> HttpResponse<Bytes> {
    let (parts, body) = res.into_parts();
    let mut out = HttpResponse::with_body(status_to_actix(parts.status), body);
    headers_to_actix(&parts.headers, out.headers_mut());
    out
}
