//! The MindStudio stdio protocol: NDJSON `{"action":"browser","steps":[…]}` lines in, one event line
//! out per request (`browser-completed` or `command-error`), in request order.

use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

use crate::BrowserAgent;

/// Longest accepted input line.
const MAX_LINE: usize = 1024 * 1024;

impl BrowserAgent {
    /// Serves the stdio bridge on this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(&self) -> std::io::Result<()> {
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        self.serve_io(stdin, tokio::io::stdout()).await
    }

    /// Serves the stdio protocol on any reader and writer (tests, pipes, sockets).
    ///
    /// ```
    /// use browser_agent_core::BrowserAgent;
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let input = &b"{\"action\":\"browser\",\"steps\":[{\"command\":\"snapshot\"}]}\nnot json\n"[..];
    /// let mut out = Vec::new();
    /// agent.serve_io(input, &mut out).await.unwrap();
    /// let lines: Vec<serde_json::Value> = out.split(|b| *b == b'\n').filter(|l| !l.is_empty())
    ///     .map(|l| serde_json::from_slice(l).unwrap()).collect();
    /// assert_eq!(lines[0]["event"], "command-error");
    /// assert!(lines[0]["message"].as_str().unwrap().starts_with("No browser connected"));
    /// assert!(lines[1]["message"].as_str().unwrap().contains("not valid JSON"));
    /// # });
    /// ```
    pub async fn serve_io<R, W>(&self, reader: R, mut writer: W) -> std::io::Result<()>
    where
        R: AsyncBufRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let mut lines = reader.lines();
        while let Some(line) = lines.next_line().await? {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let event = self.stdio_request(line).await;
            let mut out = event.to_string();
            out.push('\n');
            writer.write_all(out.as_bytes()).await?;
            writer.flush().await?;
        }
        Ok(())
    }

    async fn stdio_request(&self, line: &str) -> Value {
        let fail = |message: String| json!({"event": "command-error", "message": message});
        if line.len() > MAX_LINE {
            return fail(format!("request line longer than {MAX_LINE} bytes"));
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return fail(format!("request is not valid JSON: {e}")),
        };
        match value.get("action").and_then(Value::as_str) {
            Some("browser") => {}
            Some(other) => return fail(format!("unknown action {other:?}: only \"browser\" is supported")),
            None => return fail("request needs \"action\":\"browser\"".into()),
        }
        let batch = match crate::routes::parse_run(line.as_bytes()) {
            Ok(b) => b,
            Err(message) => return fail(message),
        };
        match self.run(batch).await {
            Ok(result) => serde_json::to_value(&result).expect("serializable"),
            Err(err) => {
                let mut event = fail(err.to_string());
                if !err.steps().is_empty() {
                    event["steps"] = Value::Array(err.steps().to_vec());
                }
                event
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::Heartbeat;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    #[tokio::test]
    async fn stdio_round_trip_with_a_page() {
        let agent = BrowserAgent::builder().enabled(true).page_key("stdio-test-key").build();
        let now = crate::util::now_ms();
        agent.clients().heartbeat(
            &Heartbeat {
                client: "pg".into(),
                visible: Some(true),
                ..Default::default()
            },
            now,
        );
        agent.clients().touch_poll("pg", now);
        let (agent_in, mut to_agent) = tokio::io::duplex(4096);
        let (mut from_agent, agent_out) = tokio::io::duplex(4096);
        let server = {
            let agent = agent.clone();
            tokio::spawn(async move { agent.serve_io(BufReader::new(agent_in), agent_out).await })
        };
        // The page: wait for the batch, answer it.
        let page = {
            let agent = agent.clone();
            tokio::spawn(async move {
                loop {
                    if let Some(batch) = agent.inner.commands.take("pg", None) {
                        let batch: Value = serde_json::from_str(&batch).unwrap();
                        let result = json!({"id": batch["id"], "steps": [{"index": 0, "command": "snapshot", "result": "main"}], "snapshot": "main", "duration": 3,
                            "logs": [{"type": "console", "level": "warn", "args": ["low disk", 3], "clientId": "pg", "seq": 7}]});
                        // As the page does: through the route, whose ingest gives the logs their text.
                        let post = http::Request::post("/__mindstudio_dev__/results")
                            .header("host", "127.0.0.1:3000")
                            .header("x-browser-agent-key", "stdio-test-key")
                            .body(bytes::Bytes::from(result.to_string()))
                            .unwrap();
                        assert_eq!(agent.handle(post).await.unwrap().status(), 204);
                        return;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                }
            })
        };
        to_agent
            .write_all(b"{\"action\":\"browser\",\"steps\":[{\"command\":\"snapshot\"}]}\n{\"action\":\"other\"}\n")
            .await
            .unwrap();
        drop(to_agent);
        page.await.unwrap();
        server.await.unwrap().unwrap();
        let mut out = String::new();
        let mut lines = BufReader::new(&mut from_agent).lines();
        while let Some(l) = lines.next_line().await.unwrap() {
            out.push_str(&l);
            out.push('\n');
        }
        let events: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(events[0]["event"], "browser-completed");
        assert_eq!(events[0]["steps"][0]["result"], "main");
        assert_eq!(events[0]["clientId"], "pg");
        let log = &events[0]["logs"][0];
        assert_eq!(
            (
                log["text"].as_str(),
                log["level"].as_str(),
                log["seq"].as_u64(),
                log["clientSeq"].as_u64()
            ),
            (Some("low disk 3"), Some("warn"), Some(1), Some(7)),
            "events carry the entries as GET /console shows them: {log}"
        );
        assert_eq!(events[1]["event"], "command-error");
        assert!(events[1]["message"].as_str().unwrap().contains("unknown action"));
    }
}
