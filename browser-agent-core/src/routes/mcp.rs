//! The MCP endpoint's route (`POST {prefix}/mcp`, and `GET` for its event stream,
//! [`Access::Mcp`](super::Access)): its head is checked with the others in `check`; [`crate::mcp`]
//! answers it.

use bytes::Bytes;
use http::{header, request::Parts, Method, StatusCode};

use super::Dispatch;
use crate::mcp::HttpHead;
use crate::BrowserAgent;

impl BrowserAgent {
    pub(super) fn mcp_route(&self, parts: &Parts, body: &Bytes) -> Dispatch {
        if parts.method == Method::GET {
            let accepts = |v: &str| v.split(',').any(|t| t.trim().starts_with("text/event-stream"));
            if !parts
                .headers
                .get_all(header::ACCEPT)
                .iter()
                .any(|v| accepts(&String::from_utf8_lossy(v.as_bytes())))
            {
                let err = crate::error::RpcError::InvalidRequest(
                    "GET opens the event stream: it needs \"Accept: text/event-stream\"; requests are POSTed".into(),
                );
                let mut res = super::response::json_response(StatusCode::NOT_ACCEPTABLE, &crate::mcp::failure(&err));
                res.headers_mut()
                    .insert(header::CONTENT_ENCODING, http::HeaderValue::from_static("identity"));
                return Dispatch::Now(res);
            }
            let last = parts
                .headers
                .get("last-event-id")
                .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_owned())
                .filter(|v| !v.is_empty());
            let agent = self.clone();
            return Dispatch::Later(Box::pin(async move { agent.mcp_events(last).await }));
        }
        let head = HttpHead::from_parts(parts);
        let (agent, body) = (self.clone(), body.clone());
        Dispatch::Later(Box::pin(async move { agent.mcp_http(head, body).await }))
    }
}
