//! MCP's streamable-HTTP transport, stateless and JSON-only: one POST carries one message (or,
//! under 2025-03-26, a batch); a request gets `200 application/json`, a notification or a response
//! `202` with no body. No `Mcp-Session-Id`. (The `GET` event stream is [`super::page`]'s.) The head was checked before (Host, Origin,
//! token, `Content-Type`, size: [`Access::Mcp`](crate::routes)); this checks the revision header
//! and reads the body.

use bytes::Bytes;
use http::{header, request::Parts, HeaderValue, Response, StatusCode};
use serde_json::Value;

use super::{jsonrpc, Envelope};
use crate::error::RpcError;
use crate::protocol::mcp;
use crate::routes::response::{empty, json_response};
use crate::BrowserAgent;

/// The headers of an MCP POST the transport reads, taken from the request's head.
#[derive(Debug, Clone, Default)]
pub(crate) struct HttpHead {
    envelope: Envelope,
}

impl HttpHead {
    /// Reads `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the app's origin.
    pub(crate) fn from_parts(parts: &Parts) -> HttpHead {
        let text = |name: &str| {
            parts
                .headers
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_owned())
        };
        HttpHead {
            envelope: Envelope {
                http: true,
                version: text(mcp::VERSION_HEADER),
                method: text(mcp::METHOD_HEADER),
                name: text(mcp::NAME_HEADER),
                origin: crate::routes::app_origin(parts),
            },
        }
    }
}

impl BrowserAgent {
    /// Answers one MCP POST.
    pub(crate) async fn mcp_http(&self, head: HttpHead, body: Bytes) -> Response<Bytes> {
        let envelope = head.envelope;
        let version = envelope.version.as_deref().unwrap_or(mcp::DEFAULT_VERSION);
        let known = mcp::LEGACY_VERSIONS.contains(&version) || mcp::MODERN_VERSIONS.contains(&version);
        if !known {
            let err = RpcError::UnsupportedVersion {
                requested: version.to_owned(),
            };
            return answer(err.status(true), &jsonrpc::failure(None, &err));
        }
        let value: Value = match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => {
                let err = RpcError::Parse(e.to_string());
                return answer(err.status(false), &jsonrpc::failure(None, &err));
            }
        };
        let Value::Array(batch) = value else {
            return match self.mcp_message(value, &envelope).await {
                Some(reply) => answer(reply.status, &reply.body),
                None => accepted(),
            };
        };
        let refused = if version != mcp::BATCH_VERSION {
            Some(RpcError::Batch {
                version: version.to_owned(),
                allowed: mcp::BATCH_VERSION,
            })
        } else if batch.is_empty() {
            Some(RpcError::InvalidRequest("the batch is empty".into()))
        } else {
            None
        };
        if let Some(err) = refused {
            return answer(err.status(false), &jsonrpc::failure(None, &err));
        }
        let mut replies = Vec::new();
        for msg in batch {
            if let Some(reply) = self.mcp_message(msg, &envelope).await {
                replies.push(reply.body);
            }
        }
        if replies.is_empty() {
            accepted()
        } else {
            answer(StatusCode::OK, &Value::Array(replies))
        }
    }
}

/// A JSON answer, marked `Content-Encoding: identity` so that a compression layer outside ours
/// leaves it alone (MCP clients have broken on compressed answers).
fn answer(status: StatusCode, body: &Value) -> Response<Bytes> {
    let mut res = json_response(status, body);
    res.headers_mut()
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("identity"));
    res
}

fn accepted() -> Response<Bytes> {
    empty(StatusCode::ACCEPTED)
}
