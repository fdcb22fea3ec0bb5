//! MCP over stdin/stdout: newline-delimited JSON-RPC, one answer line per request, in order; the
//! same methods and tools as the HTTP endpoint. For clients that only launch processes.

use serde_json::Value;
use std::future::Future;

use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};

use super::{jsonrpc, Envelope};
use crate::error::RpcError;
use crate::protocol::mcp;
use crate::stdio::{next_line, Line, MAX_LINE};
use crate::BrowserAgent;

impl BrowserAgent {
    /// Serves MCP on this process's stdin and stdout until stdin closes (then `Ok(())`): the
    /// transport of MCP clients that launch their server (`"command": "my-dev-server",
    /// "args": ["--mcp-stdio"]`). Nothing else may write to stdout meanwhile.
    pub async fn serve_mcp_stdio(&self) -> std::io::Result<()> {
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        self.serve_mcp_io(stdin, tokio::io::stdout()).await
    }

    /// Serves MCP on any reader and writer (tests, pipes, sockets), until the reader's EOF
    /// (`Ok(())`) or an I/O error. A line that is not JSON (or longer than 1 MiB) is answered with
    /// a -32700 error and reading goes on; notifications get no answer.
    ///
    /// ```
    /// use browser_agent_core::BrowserAgent;
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let input = concat!(
    ///     r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"doc","version":"1"}}}"#, "\n",
    ///     r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "\n",
    ///     r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#, "\n",
    /// );
    /// let mut out = Vec::new();
    /// agent.serve_mcp_io(input.as_bytes(), &mut out).await.unwrap();
    /// let lines: Vec<serde_json::Value> = out.split(|b| *b == b'\n').filter(|l| !l.is_empty())
    ///     .map(|l| serde_json::from_slice(l).unwrap()).collect();
    /// assert_eq!(lines.len(), 2, "the notification gets no answer");
    /// assert_eq!(lines[0]["result"]["protocolVersion"], "2025-06-18");
    /// assert_eq!(lines[1]["result"]["tools"][0]["name"], "browser_logs");
    /// # });
    /// ```
    pub async fn serve_mcp_io<R, W>(&self, reader: R, mut writer: W) -> std::io::Result<()>
    where
        R: AsyncBufRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let mut reader = reader;
        let mut buf = Vec::new();
        // The revision `initialize` settled on: batches are allowed only under 2025-03-26.
        let mut negotiated: Option<String> = None;
        // The pages' own tools as the client was last told (`notifications/tools/list_changed`).
        let mut changes = self.inner.page_tools.subscribe();
        let mut told = self.page_tools_fingerprint();
        loop {
            // Between messages: a line of its own when the pages' tools change. `fill_buf` only
            // waits for input (it consumes nothing), so leaving it for a change loses no byte.
            loop {
                changes.mark_unchanged();
                let mut change = std::pin::pin!(tokio::time::timeout(super::page::RECHECK, changes.changed()));
                let input = std::future::poll_fn(|cx| {
                    use std::task::Poll;
                    if let Poll::Ready(ready) = std::pin::Pin::new(&mut reader).poll_fill_buf(cx) {
                        return Poll::Ready(Some(ready.map(|_| ())));
                    }
                    change.as_mut().poll(cx).map(|_| None)
                })
                .await;
                if let Some(ready) = input {
                    ready?;
                    break;
                }
                let now = self.page_tools_fingerprint();
                if now != told {
                    told = now;
                    let mut line = super::page::list_changed().to_string();
                    line.push('\n');
                    writer.write_all(line.as_bytes()).await?;
                    writer.flush().await?;
                }
            }
            let parse_error = |why: String| Some(jsonrpc::failure(None, &RpcError::Parse(why)));
            let answer = match next_line(&mut reader, &mut buf).await? {
                Line::Eof => return Ok(()),
                Line::Blank => continue,
                Line::TooLong => parse_error(format!("message line longer than {MAX_LINE} bytes")),
                Line::NotUtf8(e) => parse_error(format!("message line is not valid UTF-8: {e}")),
                Line::Text(line) => match serde_json::from_str::<Value>(line) {
                    Err(e) => parse_error(e.to_string()),
                    Ok(Value::Array(batch)) => {
                        let version = negotiated.as_deref().unwrap_or(mcp::DEFAULT_VERSION);
                        self.stdio_batch(batch, version).await
                    }
                    Ok(msg) => {
                        let initialize = msg.get("method").and_then(Value::as_str) == Some("initialize");
                        let reply = self.mcp_message(msg, &Envelope::default()).await;
                        if let Some(version) = reply
                            .as_ref()
                            .filter(|_| initialize)
                            .and_then(|r| r.body["result"]["protocolVersion"].as_str())
                        {
                            negotiated = Some(version.to_owned());
                        }
                        reply.map(|r| r.body)
                    }
                },
            };
            if let Some(answer) = answer {
                let mut line = answer.to_string();
                line.push('\n');
                writer.write_all(line.as_bytes()).await?;
                writer.flush().await?;
            }
        }
    }

    async fn stdio_batch(&self, batch: Vec<Value>, version: &str) -> Option<Value> {
        if version != mcp::BATCH_VERSION {
            let err = RpcError::Batch {
                version: version.to_owned(),
                allowed: mcp::BATCH_VERSION,
            };
            return Some(jsonrpc::failure(None, &err));
        }
        if batch.is_empty() {
            return Some(jsonrpc::failure(
                None,
                &RpcError::InvalidRequest("the batch is empty".into()),
            ));
        }
        let mut replies = Vec::new();
        for msg in batch {
            if let Some(reply) = self.mcp_message(msg, &Envelope::default()).await {
                replies.push(reply.body);
            }
        }
        (!replies.is_empty()).then_some(Value::Array(replies))
    }
}

#[cfg(test)]
mod tests {
    use crate::adapter::AdapterExt;
    use serde_json::json;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::*;

    const KEY: &str = "mcp-stdio-key";

    /// A client over an in-memory duplex, a page answering one batch through the routes, and every
    /// kind of line: handshake, notification, tools, a batch the revision refuses, junk, modern.
    #[tokio::test]
    async fn mcp_round_trip_over_a_duplex_with_a_page() {
        let agent = BrowserAgent::builder().enabled(true).page_key(KEY).build();
        let now = crate::util::now_ms();
        agent.clients().heartbeat(
            &crate::clients::Heartbeat {
                client: "pg".into(),
                page: "http://127.0.0.1:3000/".into(),
                visible: Some(true),
                ..Default::default()
            },
            now,
        );
        agent.clients().touch_poll("pg", now);
        let (agent_in, mut to_agent) = tokio::io::duplex(64 * 1024);
        let (from_agent, agent_out) = tokio::io::duplex(64 * 1024);
        let server = {
            let agent = agent.clone();
            tokio::spawn(async move { agent.serve_mcp_io(BufReader::new(agent_in), agent_out).await })
        };
        let page = {
            let agent = agent.clone();
            tokio::spawn(async move {
                loop {
                    if let Some(batch) = agent.inner.commands.take("pg", None) {
                        let results = json!({"id": batch.id, "steps": [{"index": 0, "command": "click", "result": "clicked", "matched": "button \"Add\" [ref=e6]"}],
                            "snapshot": "button \"Add\" [ref=e6]", "duration": 5,
                            "logs": [{"type": "error", "message": "boom", "clientId": "pg", "seq": 1}]});
                        let post = http::Request::post("/__mindstudio_dev__/results")
                            .header("host", "127.0.0.1:3000")
                            .header("x-browser-agent-key", KEY)
                            .body(bytes::Bytes::from(results.to_string()))
                            .unwrap();
                        assert_eq!(agent.handle(post).await.unwrap().status(), 204);
                        return;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                }
            })
        };
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).to_string(),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string(),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "browser_run", "arguments": {"steps": [{"command": "click", "ref": "e6"}]}}}).to_string(),
            json!([{"jsonrpc": "2.0", "id": 4, "method": "ping"}]).to_string(),
            "not json".to_owned(),
            String::new(),
            json!({"jsonrpc": "2.0", "id": 5, "method": "server/discover", "params": {"_meta": {(mcp::META_VERSION): "2026-07-28"}}}).to_string(),
        ];
        to_agent.write_all((lines.join("\n") + "\n").as_bytes()).await.unwrap();
        drop(to_agent);
        page.await.unwrap();
        server.await.unwrap().unwrap();
        let mut answers = Vec::new();
        let mut reader = BufReader::new(from_agent).lines();
        while let Some(line) = reader.next_line().await.unwrap() {
            answers.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        assert_eq!(
            answers.len(),
            6,
            "one line per request, none for the notification: {answers:?}"
        );
        assert_eq!(answers[0]["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(answers[1]["result"]["tools"].as_array().map(Vec::len), Some(5));
        let text = answers[2]["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            text,
            "batch b1 · page pg: 1 step(s) in 5 ms\n1. click button \"Add\" [ref=e6]: clicked\nsnapshot:\nbutton \"Add\" [ref=e6]\nlogs:\n#1 error error boom\n"
        );
        assert_eq!(answers[3]["error"]["code"], -32600, "no batches under 2025-11-25");
        assert_eq!(answers[4]["error"]["code"], -32700);
        assert_eq!(answers[4]["id"], Value::Null);
        assert_eq!(answers[5]["result"]["resultType"], "complete");
        assert_eq!(answers[5]["id"], 5);
    }
}
