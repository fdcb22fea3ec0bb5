//! The notes routes: the page's `POST {prefix}/notes?client=` (page key required; one confirmed
//! note, or a retraction), the agent's `GET {prefix}/notes?client=&since=`, `DELETE
//! {prefix}/notes/{id}` and `DELETE {prefix}/notes` (all).

use bytes::Bytes;
use http::{request::Parts, Method, Response, StatusCode};
use serde_json::json;

use super::response::{error, json_response};
use crate::protocol::notes::NoteInput;
use crate::protocol::{self, MAX_ID_LEN};
use crate::util::Params;
use crate::BrowserAgent;

impl BrowserAgent {
    /// `{prefix}/notes` (`GET`, `POST`, `DELETE`) and `{prefix}/notes/{id}` (`DELETE`).
    pub(super) fn notes_route(&self, id: Option<&str>, parts: &Parts, body: &Bytes) -> Response<Bytes> {
        let params = Params::parse(parts.uri.query());
        let client = params.last(protocol::param::CLIENT).filter(|c| !c.is_empty());
        match (&parts.method, id) {
            (&Method::POST, _) => self.note_post(client, body),
            (&Method::DELETE, Some(id)) => {
                if self.inner.notes.delete(id) {
                    json_response(StatusCode::OK, &json!({"deleted": id}))
                } else {
                    let held: Vec<String> = self.inner.notes.list(None, None).into_iter().map(|n| n.id).collect();
                    let held = if held.is_empty() {
                        "none".into()
                    } else {
                        held.join(", ")
                    };
                    error(StatusCode::NOT_FOUND, format!("no note {id:?}: the host holds {held}"))
                }
            }
            (&Method::DELETE, None) => json_response(StatusCode::OK, &json!({"deleted": self.inner.notes.clear()})),
            _ => {
                let since = match params.last("since").filter(|s| !s.is_empty()) {
                    None => None,
                    Some(s) => match s.parse::<u64>() {
                        Ok(n) => Some(n),
                        Err(_) => {
                            return error(
                                StatusCode::BAD_REQUEST,
                                format!("invalid since {s:?}: expected a note seq (lastSeq of the previous answer)"),
                            )
                        }
                    },
                };
                json_response(StatusCode::OK, &self.notes_json(client, since))
            }
        }
    }

    /// The answer of `GET {prefix}/notes`: `{count, notes, lastSeq}` (also MCP's and stdio's).
    pub(crate) fn notes_json(&self, client: Option<&str>, since: Option<u64>) -> serde_json::Value {
        let notes = self.inner.notes.list(client, since);
        json!({"count": notes.len(), "notes": notes, "lastSeq": self.inner.notes.last_seq()})
    }

    fn note_post(&self, client: Option<&str>, body: &Bytes) -> Response<Bytes> {
        let Some(client) = client.filter(|c| c.len() <= MAX_ID_LEN) else {
            return error(
                StatusCode::BAD_REQUEST,
                format!("parameter \"client\" (the page's client id, at most {MAX_ID_LEN} chars) is required"),
            );
        };
        let mut input: NoteInput = match serde_json::from_slice(body) {
            Ok(n) => n,
            Err(e) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    format!("body must be a note {{\"kind\":\"pin\"|\"area\",\"text\",\"point\"|\"box\",…}}: {e}"),
                )
            }
        };
        let redaction = &self.inner.config.redaction;
        input.url = redaction.text(&input.url).into_owned();
        // The screenshot it names, if the store holds it and the same page took it.
        let shot = Some(&input.screenshot)
            .filter(|s| !s.is_empty())
            .and_then(|id| self.inner.screenshots.get(id))
            .map(|s| s.info)
            .filter(|info| info.client == client);
        match self.inner.notes.insert(client, std::mem::take(&mut input), shot) {
            Ok(Some(note)) => json_response(StatusCode::CREATED, &serde_json::to_value(note).expect("serializes")),
            Ok(None) => super::response::empty(StatusCode::NO_CONTENT),
            Err(e) => error(StatusCode::BAD_REQUEST, e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::adapter::AdapterExt;
    use bytes::Bytes;
    use serde_json::{json, Value};

    use crate::BrowserAgent;

    const P: &str = "/__mindstudio_dev__";

    async fn call(agent: &BrowserAgent, method: &str, path: &str, key: Option<&str>, body: &str) -> (u16, Value) {
        let mut req = http::Request::builder()
            .method(method)
            .uri(path)
            .header("host", "127.0.0.1:3000");
        if let Some(k) = key {
            req = req.header("x-browser-agent-key", k);
        }
        let res = agent
            .handle(req.body(Bytes::from(body.to_owned())).unwrap())
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, serde_json::from_slice(res.body()).unwrap_or(Value::Null))
    }

    #[tokio::test]
    async fn the_page_posts_the_agent_reads_and_clears() {
        let agent = BrowserAgent::builder().enabled(true).page_key("notes-test-key").build();
        let pin = json!({"nid": "a1", "kind": "pin", "text": "too small", "point": {"x": 3, "y": 4},
            "element": "button \"Save\" [ref=e7]", "url": "http://127.0.0.1:3000/?token=abc", "viewport": {"w": 800, "h": 600}});
        let post = format!("{P}/notes?client=c1");
        // Without the page key: refused, nothing stored.
        let (status, body) = call(&agent, "POST", &post, None, &pin.to_string()).await;
        assert_eq!(status, 403, "{body}");
        assert_eq!(agent.notes().list(None, None).len(), 0);
        let (status, note) = call(&agent, "POST", &post, Some("notes-test-key"), &pin.to_string()).await;
        assert_eq!(status, 201, "{note}");
        assert_eq!((note["id"].as_str(), note["kind"].as_str()), (Some("n1"), Some("pin")));
        assert_eq!(
            note["url"], "http://127.0.0.1:3000/?token=[redacted]",
            "URLs are redacted like logs"
        );
        // Bad shapes are 400s that name the field.
        for (bad, says) in [
            (json!({"kind": "pin", "text": "x"}), "needs \"point\""),
            (json!({"kind": "circle", "text": "x"}), "body must be a note"),
            (
                json!({"kind": "area", "text": " ", "box": {"x": 0, "y": 0, "w": 1, "h": 1}}),
                "must say something",
            ),
        ] {
            let (status, body) = call(&agent, "POST", &post, Some("notes-test-key"), &bad.to_string()).await;
            assert_eq!(status, 400, "{bad}: {body}");
            assert!(body["error"].as_str().unwrap().contains(says), "{body}");
        }
        let (status, body) = call(
            &agent,
            "POST",
            &format!("{P}/notes"),
            Some("notes-test-key"),
            &pin.to_string(),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        // The agent lists, filters and clears.
        let (status, list) = call(&agent, "GET", &format!("{P}/notes"), None, "").await;
        assert_eq!(
            (status, list["count"].as_u64(), list["lastSeq"].as_u64()),
            (200, Some(1), Some(1))
        );
        let (_, list) = call(&agent, "GET", &format!("{P}/notes?since=1"), None, "").await;
        assert_eq!(list["count"], 0);
        let (status, body) = call(&agent, "GET", &format!("{P}/notes?since=soon"), None, "").await;
        assert_eq!(status, 400, "{body}");
        let (status, body) = call(&agent, "DELETE", &format!("{P}/notes/n9"), None, "").await;
        assert_eq!(status, 404);
        assert!(body["error"].as_str().unwrap().contains("holds n1"), "{body}");
        let (status, _) = call(&agent, "DELETE", &format!("{P}/notes/n1"), None, "").await;
        assert_eq!(status, 200);
        let (status, body) = call(&agent, "PUT", &format!("{P}/notes"), None, "").await;
        assert_eq!(status, 405, "{body}");
        // The page retracts a note it deleted.
        call(&agent, "POST", &post, Some("notes-test-key"), &pin.to_string()).await;
        let gone = json!({"nid": "a1", "deleted": true});
        let (status, _) = call(&agent, "POST", &post, Some("notes-test-key"), &gone.to_string()).await;
        assert_eq!(status, 204);
        assert!(agent.notes().list(None, None).is_empty());
    }

    #[tokio::test]
    async fn mcp_reads_notes_through_browser_logs() {
        let agent = BrowserAgent::builder().enabled(true).page_key("notes-test-key").build();
        let call_logs = |args: Value| {
            let agent = agent.clone();
            async move {
                let r = agent
                    .call_tool(Some(json!({"name": "browser_logs", "arguments": args})), None)
                    .await
                    .unwrap();
                r["content"][0]["text"].as_str().unwrap().to_owned()
            }
        };
        assert!(call_logs(json!({"type": "notes"}))
            .await
            .starts_with("No notes (lastSeq 0)"));
        let pin = json!({"kind": "pin", "text": "too small", "point": {"x": 3, "y": 4},
            "element": "button \"Save\" [ref=e7]", "url": "http://127.0.0.1:3000/"});
        call(
            &agent,
            "POST",
            &format!("{P}/notes?client=c1"),
            Some("notes-test-key"),
            &pin.to_string(),
        )
        .await;
        let text = call_logs(json!({"type": "notes"})).await;
        assert_eq!(
            text,
            "1 note(s), lastSeq 1 (afterSeq polls for newer):\nn1 [pin at (3, 4)] \"too small\" on button \"Save\" [ref=e7] in http://127.0.0.1:3000/\n"
        );
        assert!(call_logs(json!({"type": "notes", "afterSeq": 1}))
            .await
            .starts_with("No notes"));
    }

    #[tokio::test]
    async fn stdio_emits_a_notes_event_when_notes_arrive() {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let agent = BrowserAgent::builder().enabled(true).page_key("notes-test-key").build();
        let (agent_in, mut to_agent) = tokio::io::duplex(4096);
        let (from_agent, agent_out) = tokio::io::duplex(1 << 16);
        let server = {
            let agent = agent.clone();
            tokio::spawn(async move { agent.serve_io(BufReader::new(agent_in), agent_out).await })
        };
        let mut lines = BufReader::new(from_agent).lines();
        // The bridge is up once it answers a line.
        to_agent.write_all(b"{\"action\":\"notes\"}\n").await.unwrap();
        let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(
            (first["event"].as_str(), first["count"].as_u64()),
            (Some("notes"), Some(0))
        );
        let area = json!({"kind": "area", "text": "broken card", "box": {"x": 1, "y": 2, "w": 30, "h": 40},
            "elements": ["button \"Open\" [ref=e3]"]});
        let (status, _) = call(
            &agent,
            "POST",
            &format!("{P}/notes?client=c2"),
            Some("notes-test-key"),
            &area.to_string(),
        )
        .await;
        assert_eq!(status, 201);
        let event: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(event["event"], "notes", "{event}");
        assert_eq!(event["notes"][0]["text"], "broken card", "{event}");
        assert_eq!(event["notes"][0]["elements"][0], "button \"Open\" [ref=e3]", "{event}");
        to_agent
            .write_all(b"{\"action\":\"notes\",\"delete\":\"all\"}\n")
            .await
            .unwrap();
        let cleared: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(cleared["count"], 0, "{cleared}");
        drop(to_agent);
        server.await.unwrap().unwrap();
    }
}
