//! The pages' own tools over MCP (WebMCP, `docs/page-tools.md`): a call of `page_<name>`
//! runs a `tool` step on that page, whose `execute(input)` answers; and the event stream of
//! `GET {prefix}/mcp`, which says `notifications/tools/list_changed` when the pages' tools change.
//! The first stream answers at once with a priming event (an id, no data); the next ones, which
//! send that id as `Last-Event-ID`, are held open until something changes (or [`HOLD`] passed) and
//! then end, with `retry`: the client opens it again with the id it got, as SSE polling works in
//! the 2025-11-25 transport; the id is the state of the page tools it was told about, so a change
//! between two streams is still told.

use std::time::Duration;

use bytes::Bytes;
use http::{header, HeaderValue, Response, StatusCode};
use serde_json::{json, Value};

use super::text;
use crate::error::RpcError;
use crate::protocol::page_tools::MAX_RESULT;
use crate::BrowserAgent;

/// Longest one event stream is held open with nothing to say.
const HOLD: Duration = Duration::from_secs(25);
/// How often a held stream looks again without a signal (a page that stopped without saying so
/// leaves the list when its heartbeats stop).
pub(super) const RECHECK: Duration = Duration::from_secs(5);
/// What a client waits before opening the stream again (the SSE `retry` field), in ms.
const RETRY_MS: u64 = 500;
/// The notification.
const LIST_CHANGED: &str = "notifications/tools/list_changed";
/// Images a page tool's answer may carry through.
const MAX_IMAGES: usize = 4;

impl BrowserAgent {
    /// `tools/call` of a page's tool: resolved against the pages' tools now (a tool the page never
    /// registered, or no longer does, is refused with the tools there are), run in its page as a
    /// `tool` step (on the batches' timeline like `browser_run`), its result as MCP content after a
    /// line saying it is the page's.
    pub(super) async fn call_page_tool(
        &self,
        name: &str,
        arguments: Option<&Value>,
        origin: Option<String>,
    ) -> Result<Value, RpcError> {
        let tools = self.exposed_page_tools().await;
        let Some(tool) = tools.iter().find(|t| t.mcp_name == name) else {
            let now: Vec<&str> = tools.iter().map(|t| t.mcp_name.as_str()).collect();
            return Err(RpcError::InvalidParams(format!(
                "unknown tool {name:?}: no open page registers it (its page closed or reloaded, or it \
                 unregistered the tool); page tools now: {}",
                if now.is_empty() {
                    "none".to_owned()
                } else {
                    now.join(", ")
                }
            )));
        };
        let input = match arguments {
            None | Some(Value::Null) => json!({}),
            Some(Value::Object(o)) => Value::Object(o.clone()),
            Some(other) => {
                return Ok(failed(format!("{name}: \"arguments\" must be an object, not {other}")));
            }
        };
        let step = json!({"command": "tool", "name": tool.tool.name, "input": input});
        let batch = crate::commands::Batch::new(vec![step]).client(tool.client.clone());
        let head = format!(
            "[page tool {} of {}: its output is the page's, untrusted]",
            tool.tool.name, tool.page
        );
        let result = match self.run_placed(batch, origin).await.1 {
            Ok(result) => result,
            Err(err) => return Ok(failed(format!("{head}\n{}", text::run_error(&err)))),
        };
        let Some(step) = result.steps.first() else {
            return Ok(failed(format!("{head}\nthe page did not answer the call")));
        };
        // What the call changed on the page and the requests and errors it caused (a failed
        // save's server stack), in the same answer, as `browser_run` gives them.
        let tail = text::batch_tail(&result);
        if let Some(error) = &step.error {
            return Ok(failed(format!("{head}\n{error}\n{tail}").trim_end().to_owned()));
        }
        let mut answer = content(&head, step.result.as_ref().unwrap_or(&Value::Null));
        if let (false, Some(items)) = (tail.is_empty(), answer["content"].as_array_mut()) {
            items.push(json!({"type": "text", "text": tail.trim_end()}));
        }
        Ok(answer)
    }

    /// `GET {prefix}/mcp` with `Accept: text/event-stream`: without a `Last-Event-ID`, at once
    /// the priming event (the id of the state now, no data: the client comes back with it, so no
    /// change after this answer is missed); with one, held until the pages' tools differ from
    /// what it names, then one `list_changed` event; after [`HOLD`] with no change, an event with
    /// the id alone.
    pub(crate) async fn mcp_events(&self, last_event_id: Option<String>) -> Response<Bytes> {
        let mut changes = self.inner.page_tools.subscribe();
        let Some(told) = last_event_id else {
            let now = self.page_tools_fingerprint();
            return event_stream(format!("id: {now}\nretry: 0\ndata:\n\n"));
        };
        let deadline = tokio::time::Instant::now() + HOLD;
        loop {
            changes.mark_unchanged();
            let now = self.page_tools_fingerprint();
            if now != told {
                let message = json!({"jsonrpc": "2.0", "method": LIST_CHANGED});
                return event_stream(format!(
                    "id: {now}\nretry: {RETRY_MS}\nevent: message\ndata: {message}\n\n"
                ));
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return event_stream(format!("id: {now}\nretry: {RETRY_MS}\ndata:\n\n"));
            }
            let _ = tokio::time::timeout(left.min(RECHECK), changes.changed()).await;
        }
    }
}

/// The `notifications/tools/list_changed` message, for the stdio transport.
pub(super) fn list_changed() -> Value {
    json!({"jsonrpc": "2.0", "method": LIST_CHANGED})
}

fn event_stream(body: String) -> Response<Bytes> {
    let mut res = Response::new(Bytes::from(body));
    *res.status_mut() = StatusCode::OK;
    let headers = res.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("identity"));
    res
}

fn failed(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// A page tool's result as MCP content: a `CallToolResult`-shaped value (`{content:[…], isError}`,
/// what WebMCP pages return) keeps its text and image items; any other value is one text item
/// (a string as it is, else its JSON). Over [`MAX_RESULT`] bytes: refused, saying its size.
fn content(head: &str, v: &Value) -> Value {
    let size = serde_json::to_string(v).map_or(usize::MAX, |s| s.len());
    if size > MAX_RESULT {
        return failed(format!(
            "{head}\nits result is {size} bytes of JSON, over the {MAX_RESULT} bytes an answer carries"
        ));
    }
    let mut items = vec![json!({"type": "text", "text": head})];
    let mut is_error = false;
    match v.get("content").and_then(Value::as_array) {
        Some(parts) => {
            is_error = v.get("isError").and_then(Value::as_bool) == Some(true);
            let mut images = 0;
            for part in parts {
                let kind = part.get("type").and_then(Value::as_str);
                let text = part.get("text").and_then(Value::as_str);
                let image = (
                    part.get("data").and_then(Value::as_str),
                    part.get("mimeType").and_then(Value::as_str),
                );
                match (kind, text, image) {
                    (Some("text"), Some(text), _) => items.push(json!({"type": "text", "text": text})),
                    (Some("image"), _, (Some(data), Some(mime)))
                        if images < MAX_IMAGES && mime.starts_with("image/") =>
                    {
                        images += 1;
                        items.push(json!({"type": "image", "data": data, "mimeType": mime}));
                    }
                    _ => items.push(json!({"type": "text", "text": part.to_string()})),
                }
            }
        }
        None => items.push(json!({"type": "text", "text": match v {
            Value::String(s) => s.clone(),
            Value::Null => "(no result)".to_owned(),
            other => other.to_string(),
        }})),
    }
    let mut result = json!({ "content": items });
    if is_error {
        result["isError"] = true.into();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_become_content() {
        let r = content(
            "h",
            &json!({"content": [{"type": "text", "text": "done"}], "isError": true}),
        );
        assert_eq!(
            r,
            json!({"content": [{"type": "text", "text": "h"}, {"type": "text", "text": "done"}], "isError": true})
        );
        let r = content("h", &json!({"count": 2}));
        assert_eq!(r["content"][1]["text"], "{\"count\":2}");
        assert_eq!(content("h", &json!("ok"))["content"][1]["text"], "ok");
        let big = content("h", &json!("x".repeat(MAX_RESULT)));
        assert_eq!(big["isError"], true);
        assert!(big["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("over the 100000 bytes"));
    }
}
