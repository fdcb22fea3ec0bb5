//! The MCP server at `{prefix}/mcp` (and on stdio): our fixed list of tools over the agent API, then
//! the tools the open pages registered ([`page`], WebMCP), answered statelessly. Legacy revisions (2025-03-26, 2025-06-18, 2025-11-25) open with
//! `initialize`; 2026-07-28 requests carry their revision in `_meta` and are checked against the
//! HTTP headers that mirror it. Here: the methods; [`jsonrpc`] the message shapes, [`streamable`]
//! the streamable-HTTP transport, [`stdio`] newline-delimited JSON-RPC on stdin/stdout, [`tools`]
//! the tools, [`page`] the pages' own tools and the event stream that says when they change,
//! [`text`] what their results say.

mod jsonrpc;
mod page;
mod stdio;
mod streamable;
#[cfg(test)]
mod tests;
mod text;
mod tools;

use http::StatusCode;
use serde_json::{json, Value};

use crate::error::{supported_versions, RpcError};
use crate::protocol::mcp;
use crate::BrowserAgent;
use jsonrpc::Message;
pub(crate) use streamable::HttpHead;

/// A JSON-RPC error without an id (for refusals answered before a message is read).
pub(crate) fn failure(err: &RpcError) -> Value {
    jsonrpc::failure(None, err)
}

/// The server's name in `serverInfo`.
const SERVER_NAME: &str = "browser-agent";
/// What `initialize` and `server/discover` tell the agent about using the tools.
const INSTRUCTIONS: &str = "Start with browser_snapshot; batch a whole flow in one browser_run (refs stay valid while the element exists); read browser_logs after errors.";
/// The methods this server answers, for the -32601 message.
const METHODS: &str = "initialize, ping, server/discover, tools/list, tools/call";
/// How long a client may keep `tools/list` and `server/discover` answers (2026-07-28 caching hints).
const TTL_MS: u64 = 60_000;

/// What a message's transport tells besides its body: on HTTP the headers that mirror it, and
/// where the app is (named when no page is open).
#[derive(Debug, Clone, Default)]
pub(crate) struct Envelope {
    /// Whether the message came over HTTP, whose modern requests must mirror the body in headers.
    pub(crate) http: bool,
    /// `MCP-Protocol-Version`, as sent.
    pub(crate) version: Option<String>,
    /// `Mcp-Method`, as sent.
    pub(crate) method: Option<String>,
    /// `Mcp-Name`, as sent (the base64 sentinel form is decoded when compared).
    pub(crate) name: Option<String>,
    /// `http://{Host}/` of the request.
    pub(crate) origin: Option<String>,
}

/// The answer to one request: the JSON-RPC response and, on HTTP, its status.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) body: Value,
}

impl Reply {
    fn error(id: Option<Value>, err: &RpcError, modern: bool) -> Reply {
        Reply {
            status: err.status(modern),
            body: jsonrpc::failure(id, err),
        }
    }
}

impl BrowserAgent {
    /// Answers one JSON-RPC message: `None` for a notification or a response (HTTP 202).
    pub(crate) async fn mcp_message(&self, msg: Value, envelope: &Envelope) -> Option<Reply> {
        let (id, method, params) = match jsonrpc::classify(msg) {
            Ok(Message::Request { id, method, params }) => (id, method, params),
            Ok(Message::Notification | Message::Response) => return None,
            Err((id, err)) => return Some(Reply::error(id, &err, false)),
        };
        let modern = match era(&method, params.as_ref(), envelope) {
            Ok(modern) => modern,
            Err(err) => return Some(Reply::error(Some(id), &err, true)),
        };
        Some(match self.mcp_call(&method, params, modern, envelope).await {
            Ok(result) => Reply {
                status: StatusCode::OK,
                body: jsonrpc::success(id, result),
            },
            Err(err) => Reply::error(Some(id), &err, modern),
        })
    }

    async fn mcp_call(
        &self,
        method: &str,
        params: Option<Value>,
        modern: bool,
        envelope: &Envelope,
    ) -> Result<Value, RpcError> {
        let mut result = match method {
            "initialize" => initialize(params.as_ref()),
            "ping" => json!({}),
            "server/discover" => json!({
                "supportedVersions": supported_versions(),
                "capabilities": capabilities(),
                "instructions": INSTRUCTIONS,
                "ttlMs": TTL_MS,
                "cacheScope": "private",
                "_meta": {(mcp::META_SERVER_INFO): server_info()},
            }),
            "tools/list" => {
                // Ours, then the tools the open pages registered (WebMCP), named by page.
                let mut tools = tools::list().clone();
                if let Value::Array(all) = &mut tools {
                    all.extend(self.exposed_page_tools().await.iter().map(|t| t.to_mcp()));
                }
                let mut list = json!({ "tools": tools });
                if modern {
                    list["ttlMs"] = TTL_MS.into();
                    list["cacheScope"] = "private".into();
                }
                list
            }
            "tools/call" => self.call_tool(params, envelope.origin.clone()).await?,
            _ => {
                return Err(RpcError::MethodNotFound {
                    method: method.to_owned(),
                    known: METHODS,
                })
            }
        };
        if modern || method == "server/discover" {
            result["resultType"] = "complete".into();
        }
        Ok(result)
    }
}

fn server_info() -> Value {
    json!({"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")})
}

fn capabilities() -> Value {
    // The pages' own tools come and go: `notifications/tools/list_changed` says when (on the
    // stdio transport as a line, on HTTP in the GET event stream).
    json!({"tools": {"listChanged": true}})
}

/// `initialize`: the client's revision when it is one of ours, else the newest legacy one.
fn initialize(params: Option<&Value>) -> Value {
    let requested = params.and_then(|p| p.get("protocolVersion")).and_then(Value::as_str);
    let version = requested
        .and_then(|v| mcp::LEGACY_VERSIONS.iter().find(|known| **known == v))
        .copied()
        .unwrap_or(mcp::LATEST_LEGACY);
    json!({
        "protocolVersion": version,
        "capabilities": capabilities(),
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    })
}

/// Whether a request speaks 2026-07-28 (its `_meta` names the revision), after checking that the
/// HTTP headers mirror the body as that revision requires; legacy requests need no headers but a
/// modern `MCP-Protocol-Version` without the `_meta` is a mismatch.
fn era(method: &str, params: Option<&Value>, envelope: &Envelope) -> Result<bool, RpcError> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(mcp::META_VERSION));
    let Some(meta) = meta else {
        return match envelope.version.as_deref() {
            Some(v) if envelope.http && mcp::MODERN_VERSIONS.contains(&v) => Err(RpcError::HeaderMismatch(format!(
                "MCP-Protocol-Version {v} needs params._meta[\"{}\"] = \"{v}\" in the body",
                mcp::META_VERSION
            ))),
            _ => Ok(false),
        };
    };
    let Some(version) = meta.as_str() else {
        return Err(RpcError::InvalidRequest(format!(
            "params._meta[\"{}\"] must be a string (the protocol revision)",
            mcp::META_VERSION
        )));
    };
    if !mcp::MODERN_VERSIONS.contains(&version) {
        return Err(RpcError::UnsupportedVersion {
            requested: version.to_owned(),
        });
    }
    if !envelope.http {
        return Ok(true);
    }
    let mismatch = |header: &str, sent: Option<&str>, body: &str| match sent {
        None => Err(RpcError::HeaderMismatch(format!(
            "the {header} header is missing; it must be {body:?}"
        ))),
        Some(sent) if sent != body => Err(RpcError::HeaderMismatch(format!(
            "{header} header value {sent:?} does not match body value {body:?}"
        ))),
        Some(_) => Ok(()),
    };
    mismatch("MCP-Protocol-Version", envelope.version.as_deref(), version)?;
    mismatch("Mcp-Method", envelope.method.as_deref(), method)?;
    if method == "tools/call" {
        let name = params.and_then(|p| p.get("name")).and_then(Value::as_str).unwrap_or("");
        let sent = envelope.name.as_deref().map(decode_header);
        mismatch("Mcp-Name", sent.as_deref(), name)?;
    }
    Ok(true)
}

/// A header value in the 2026-07-28 base64 sentinel form (`=?base64?…?=`), decoded; others as sent.
fn decode_header(value: &str) -> String {
    value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
        .and_then(crate::protocol::base64::decode)
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| value.to_owned())
}
