//! The MCP endpoint's route (`POST {prefix}/mcp`, [`Access::Mcp`](super::Access)): its head is
//! checked with the others in `check`; [`crate::mcp`] answers it.

use bytes::Bytes;
use http::request::Parts;

use super::Dispatch;
use crate::mcp::HttpHead;
use crate::BrowserAgent;

impl BrowserAgent {
    pub(super) fn mcp_route(&self, parts: &Parts, body: &Bytes) -> Dispatch {
        let head = HttpHead::from_parts(parts);
        let (agent, body) = (self.clone(), body.clone());
        Dispatch::Later(Box::pin(async move { agent.mcp_http(head, body).await }))
    }
}
