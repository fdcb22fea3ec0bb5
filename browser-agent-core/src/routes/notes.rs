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
                    let held = if held.is_empty() { "none".into() } else { held.join(", ") };
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
