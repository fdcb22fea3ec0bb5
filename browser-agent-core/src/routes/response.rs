//! The answers every route builds: JSON bodies, empty answers, a delivered batch, the
//! `command-error` event.

use bytes::Bytes;
use http::{header, HeaderValue, Response, StatusCode};
use serde_json::{json, Value};

use crate::commands::RunError;
use crate::protocol::Delivery;

/// A JSON error response `{"error": message}`.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response<Bytes> {
    json_response(status, &json!({ "error": message.into() }))
}

pub(super) fn json_response(status: StatusCode, body: &Value) -> Response<Bytes> {
    let mut res = Response::new(Bytes::from(body.to_string()));
    *res.status_mut() = status;
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    res
}

pub(super) fn empty(status: StatusCode) -> Response<Bytes> {
    let mut res = Response::new(Bytes::new());
    *res.status_mut() = status;
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

pub(super) fn batch_response(batch: &Delivery) -> Response<Bytes> {
    let body = serde_json::to_vec(batch).expect("batches serialize");
    let mut res = Response::new(Bytes::from(body));
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// The MindStudio failure event ([`RunError::event`]), also readable as a plain `{"error"}` body.
pub(super) fn command_error(err: &RunError) -> Response<Bytes> {
    let status = match err {
        RunError::BadRequest(_) => StatusCode::BAD_REQUEST,
        RunError::NoBrowser(_) | RunError::UnknownPage(..) | RunError::PageClosed(..) | RunError::PageLeft { .. } => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        RunError::QueueFull => StatusCode::TOO_MANY_REQUESTS,
        RunError::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
    };
    json_response(status, &serde_json::to_value(err.event()).expect("events serialize"))
}
