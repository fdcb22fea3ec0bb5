//! The answers every route builds: JSON bodies, empty answers, a delivered batch, the
//! `command-error` event.

use std::fmt::Display;

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Response, StatusCode};
use serde_json::{json, Value};

use crate::commands::RunError;
use crate::error::{BadInput, GoneError, IngestError, QueryError, Refusal, ScreenshotError};
use crate::protocol::Delivery;

/// An error a route answers with: its status, its text, and any header it adds. Every error
/// becomes a response here, and nowhere else.
pub(crate) trait Failure: Display {
    /// The answer's status.
    fn status(&self) -> StatusCode;
    /// Headers the answer carries besides the JSON ones.
    fn headers(&self, _: &mut HeaderMap) {}
}

impl Failure for Refusal {
    fn status(&self) -> StatusCode {
        Refusal::status(self)
    }
    fn headers(&self, headers: &mut HeaderMap) {
        if let Refusal::MethodNotAllowed { allow, .. } = self {
            headers.insert(
                header::ALLOW,
                HeaderValue::from_str(allow).expect("method names are valid"),
            );
        }
    }
}

impl Failure for QueryError {
    fn status(&self) -> StatusCode {
        QueryError::status(self)
    }
}

impl Failure for IngestError {
    fn status(&self) -> StatusCode {
        StatusCode::BAD_REQUEST
    }
}

impl Failure for BadInput {
    fn status(&self) -> StatusCode {
        StatusCode::BAD_REQUEST
    }
}

impl Failure for ScreenshotError {
    fn status(&self) -> StatusCode {
        ScreenshotError::status(self)
    }
}

impl Failure for GoneError {
    fn status(&self) -> StatusCode {
        StatusCode::BAD_REQUEST
    }
}

/// The answer to `err`: `{"error": text}` with its status.
pub(crate) fn failure(err: &impl Failure) -> Response<Bytes> {
    let mut res = error(err.status(), err.to_string());
    err.headers(res.headers_mut());
    res
}

/// A refusal of the MCP endpoint: a JSON-RPC error response without an `id`
/// (`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":text}}`), with the refusal's
/// status and headers.
pub(crate) fn rpc_refusal(err: &impl Failure) -> Response<Bytes> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": err.to_string()}});
    let mut res = json_response(err.status(), &body);
    err.headers(res.headers_mut());
    res
}

/// A JSON error response `{"error": message}`.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response<Bytes> {
    json_response(status, &json!({ "error": message.into() }))
}

pub(crate) fn json_response(status: StatusCode, body: &Value) -> Response<Bytes> {
    let mut res = Response::new(Bytes::from(body.to_string()));
    *res.status_mut() = status;
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    res
}

pub(crate) fn empty(status: StatusCode) -> Response<Bytes> {
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
    json_response(
        err.status(),
        &serde_json::to_value(err.event()).expect("events serialize"),
    )
}
