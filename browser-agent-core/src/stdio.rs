//! The MindStudio stdio protocol: NDJSON `{"action":"browser","steps":[…]}` lines in, one event line
//! out per request (`browser-completed` or `command-error`), in request order; and, whenever
//! developers send notes from notes mode, a `{"event":"notes","notes":[…],"lastSeq"}` line
//! between them.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::commands::Batch;
use crate::protocol::CommandError;
use crate::BrowserAgent;

/// Longest accepted input line (bytes, without its `\n`); a longer one is skipped, not buffered.
pub(crate) const MAX_LINE: usize = 1024 * 1024;

/// The `command-error` event for a line that is no batch (the same shape as HTTP's).
fn command_error(message: String) -> Value {
    serde_json::to_value(CommandError::new(message, Vec::new())).expect("events serialize")
}

impl BrowserAgent {
    /// Serves the stdio bridge on this process's stdin and stdout until stdin closes.
    ///
    /// EOF on stdin ends the bridge: this returns `Ok(())` (the demos then exit). A bad line
    /// (not UTF-8, not JSON, too long) is answered with a `command-error` event and reading goes on.
    pub async fn serve_stdio(&self) -> std::io::Result<()> {
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        self.serve_io(stdin, tokio::io::stdout()).await
    }

    /// Serves the stdio protocol on any reader and writer (tests, pipes, sockets), until the
    /// reader's EOF (`Ok(())`) or an I/O error.
    ///
    /// Each line gets one event line: a line that is not valid UTF-8 or JSON, or is longer than
    /// 1 MiB, gets a `command-error` event and the next line is read.
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
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> std::io::Result<()>
    where
        R: AsyncBufRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        // One line at a time from either side: answers in request order, notes as they arrive.
        let writer = tokio::sync::Mutex::new(writer);
        let requests = async {
            let mut reader = reader;
            let mut buf = Vec::new();
            loop {
                let event = match next_line(&mut reader, &mut buf).await? {
                    Line::Eof => return Ok(()),
                    Line::Blank => continue,
                    Line::TooLong => command_error(format!("request line longer than {MAX_LINE} bytes")),
                    Line::NotUtf8(e) => command_error(format!("request line is not valid UTF-8: {e}")),
                    Line::Text(line) => self.stdio_request(line).await,
                };
                write_event(&writer, &event).await?;
            }
        };
        let notes = async {
            let store = &self.inner.notes;
            let mut rx = store.subscribe();
            let mut seen = store.last_seq();
            loop {
                if rx.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
                let fresh = store.list(None, Some(seen));
                seen = store.last_seq();
                if !fresh.is_empty() {
                    let event = serde_json::json!({"event": "notes", "notes": fresh, "lastSeq": seen});
                    write_event(&writer, &event).await?;
                }
            }
        };
        first_of(requests, notes).await
    }

    async fn stdio_request(&self, line: &str) -> Value {
        let fail = command_error;
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return fail(format!("request is not valid JSON: {e}")),
        };
        let action = value.get("action").and_then(Value::as_str).map(str::to_owned);
        match action.as_deref() {
            Some("browser") => {}
            Some("screenshot") => return self.stdio_screenshot(value).await,
            Some(action @ ("proof-start" | "proof-stop" | "proof")) => return self.stdio_proof(action, value),
            Some("notes") => return self.stdio_notes(&value),
            Some(other) => {
                return fail(format!(
                    "unknown action {other:?}: use \"browser\" (steps), \"screenshot\", \"notes\", \"proof-start\", \"proof-stop\" or \"proof\""
                ))
            }
            None => return fail("request needs \"action\":\"browser\" (or \"screenshot\")".into()),
        }
        // The line is the batch, with its `action`.
        let mut batch = value;
        if let Some(fields) = batch.as_object_mut() {
            fields.remove("action");
        }
        let result = match Batch::from_value(&batch) {
            Ok(batch) => self.run(batch).await,
            Err(err) => Err(err),
        };
        match result {
            Ok(result) => serde_json::to_value(&result).expect("serializable"),
            Err(err) => serde_json::to_value(err.event()).expect("events serialize"),
        }
    }
}

impl BrowserAgent {
    /// `{"action":"notes","client"?,"since"?,"delete"?}` → `{"event":"notes","notes","lastSeq"}`
    /// (the notes held, as `GET {prefix}/notes` lists them); `delete`: an id, or `"all"`, cleared
    /// first.
    fn stdio_notes(&self, line: &Value) -> Value {
        let store = &self.inner.notes;
        match line.get("delete") {
            None | Some(Value::Null) => {}
            Some(Value::String(all)) if all == "all" => {
                store.clear();
            }
            Some(Value::String(id)) => {
                if !store.delete(id) {
                    return command_error(format!("no note {id:?}"));
                }
            }
            Some(other) => return command_error(format!("\"delete\" must be a note id or \"all\", not {other}")),
        }
        let client = line.get("client").and_then(Value::as_str);
        let since = line.get("since").and_then(Value::as_u64);
        let mut event = self.notes_json(client, since);
        event["event"] = "notes".into();
        event
    }

    /// `{"action":"proof-start","description",…}` → `{"event":"proof-started",…}`,
    /// `{"action":"proof-stop"}` → `{"event":"proof-stopped","dir","viewer","summary","counts"}`,
    /// `{"action":"proof"}` → `{"event":"proof","open",…}`; a refusal is a `command-error`.
    fn stdio_proof(&self, action: &str, mut line: Value) -> Value {
        let answer = match action {
            "proof-start" => {
                if let Some(m) = line.as_object_mut() {
                    m.remove("action");
                }
                crate::proof::ProofOptions::from_json(&line)
                    .and_then(|o| self.proof_start(o))
                    .map(|s| ("proof-started", serde_json::to_value(s).expect("serializes")))
            }
            "proof-stop" => self
                .proof_stop()
                .map(|r| ("proof-stopped", serde_json::to_value(r).expect("serializes"))),
            _ => Ok((
                "proof",
                match self.proof_status() {
                    Some(s) => serde_json::json!({"open": true, "session": s}),
                    None => serde_json::json!({"open": false}),
                },
            )),
        };
        match answer {
            Ok((event, Value::Object(fields))) => {
                let mut out = serde_json::Map::new();
                out.insert("event".into(), event.into());
                out.extend(fields);
                Value::Object(out)
            }
            Ok((event, other)) => serde_json::json!({"event": event, "value": other}),
            Err(e) => command_error(e.to_string()),
        }
    }

    /// MindStudio's `{"action":"screenshot"}` (with any of the `screenshot` step's options and
    /// `client`): `{"event":"screenshot","url",…}` (the step's result), or a `command-error`.
    async fn stdio_screenshot(&self, mut line: Value) -> Value {
        let Some(fields) = line.as_object_mut() else {
            return command_error("request must be a JSON object".into());
        };
        fields.remove("action");
        let client = fields.remove("client");
        fields.insert("command".into(), "screenshot".into());
        let mut batch = serde_json::json!({ "steps": [fields] });
        if let Some(client) = client {
            batch["client"] = client;
        }
        let result = match Batch::from_value(&batch) {
            Ok(batch) => self.run(batch).await,
            Err(err) => Err(err),
        };
        match result {
            Ok(result) => match result.steps.into_iter().next() {
                Some(step) if step.error.is_none() => {
                    let mut event = serde_json::json!({"event": "screenshot"});
                    if let (Some(map), Some(Value::Object(info))) = (event.as_object_mut(), step.result) {
                        map.extend(info);
                    }
                    event
                }
                step => command_error(
                    step.and_then(|s| s.error)
                        .or(result.error)
                        .unwrap_or_else(|| "the page sent no screenshot".into()),
                ),
            },
            Err(err) => serde_json::to_value(err.event()).expect("events serialize"),
        }
    }
}

/// Writes one event line.
async fn write_event<W: AsyncWrite + Unpin>(writer: &tokio::sync::Mutex<W>, event: &Value) -> std::io::Result<()> {
    let mut out = event.to_string();
    out.push('\n');
    let mut w = writer.lock().await;
    w.write_all(out.as_bytes()).await?;
    w.flush().await
}

/// Runs both futures until the first one ends; its output.
async fn first_of<T>(a: impl std::future::Future<Output = T>, b: impl std::future::Future<Output = T>) -> T {
    let mut a = std::pin::pin!(a);
    let mut b = std::pin::pin!(b);
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(v) = a.as_mut().poll(cx) {
            return std::task::Poll::Ready(v);
        }
        b.as_mut().poll(cx)
    })
    .await
}

/// One line of an NDJSON input, as [`next_line`] read it.
pub(crate) enum Line<'a> {
    /// The input ended.
    Eof,
    /// Only white space: skipped.
    Blank,
    /// Longer than [`MAX_LINE`]; it was skipped without being held.
    TooLong,
    /// Not valid UTF-8.
    NotUtf8(std::str::Utf8Error),
    /// The line, trimmed.
    Text(&'a str),
}

/// Reads the next line (`\n`-terminated, or the last one) into `buf`, never holding more than
/// [`MAX_LINE`] bytes of it: both stdio protocols (MindStudio's and MCP's) read their input so.
pub(crate) async fn next_line<'a, R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &'a mut Vec<u8>,
) -> std::io::Result<Line<'a>> {
    buf.clear();
    // At most one byte past the bound, so an over-long line is never held whole.
    let limit = MAX_LINE as u64 + 1;
    if (&mut *reader).take(limit).read_until(b'\n', buf).await? == 0 {
        return Ok(Line::Eof);
    }
    let ended = buf.last() == Some(&b'\n');
    if ended {
        buf.pop();
    }
    if buf.len() > MAX_LINE {
        if !ended {
            skip_line(reader).await?;
        }
        return Ok(Line::TooLong);
    }
    Ok(match std::str::from_utf8(buf) {
        Ok(line) if line.trim().is_empty() => Line::Blank,
        Ok(line) => Line::Text(line.trim()),
        Err(e) => Line::NotUtf8(e),
    })
}

/// Consumes the rest of the current line (through its `\n`, or to EOF) without keeping it.
async fn skip_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<()> {
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                reader.consume(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::AdapterExt;
    use crate::clients::Heartbeat;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    async fn events_for(input: &[u8]) -> Vec<Value> {
        let agent = BrowserAgent::builder().enabled(true).build();
        let mut out = Vec::new();
        agent
            .serve_io(input, &mut out)
            .await
            .expect("bad lines do not end the bridge");
        out.split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }

    #[tokio::test]
    async fn invalid_utf8_line_is_answered_and_reading_goes_on() {
        let events = events_for(b"{\"action\":\"x\xff\xfe\"}\n{\"action\":\"other\"}\n").await;
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(events[0]["event"], "command-error");
        assert!(
            events[0]["message"].as_str().unwrap().contains("not valid UTF-8"),
            "{events:?}"
        );
        assert!(
            events[1]["message"].as_str().unwrap().contains("unknown action"),
            "{events:?}"
        );
    }

    #[tokio::test]
    async fn over_long_line_is_answered_and_skipped() {
        let mut input = vec![b'a'; MAX_LINE + 10];
        input.extend_from_slice(b"\n{\"action\":\"other\"}\n");
        input.extend_from_slice(&[b' '; MAX_LINE]); // exactly the bound, blank: skipped, no event
        input.extend_from_slice(b"\nnot json");
        let events = events_for(&input).await;
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(
            events[0]["message"].as_str().unwrap().contains("longer than"),
            "{events:?}"
        );
        assert!(
            events[1]["message"].as_str().unwrap().contains("unknown action"),
            "{events:?}"
        );
        assert!(
            events[2]["message"].as_str().unwrap().contains("not valid JSON"),
            "{events:?}"
        );
    }

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
                        let result = serde_json::json!({"id": batch.id, "steps": [{"index": 0, "command": "snapshot", "result": "main"}], "snapshot": "main", "duration": 3,
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
