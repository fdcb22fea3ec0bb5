//! The agent's routes ([`Access::Agent`](super::Access)): logs, open pages, action logs, and
//! running batches and snapshots.

use bytes::Bytes;
use http::{header, request::Parts, Method, Response, StatusCode};
use serde_json::{json, Value};

use super::response::{command_error, failure, json_response};
use super::Dispatch;
use crate::clients::ClientRecord;
use crate::commands::history::{annotate, batch_id, in_order};
use crate::commands::{Batch, BatchResult, RunError};
use crate::error::{BadInput, Refusal};
use crate::logs::LogQuery;
use crate::protocol::{field, param};
use crate::security;
use crate::util::{now_ms, parse_flag, Params};
use crate::BrowserAgent;

impl BrowserAgent {
    fn target(&self, client: Option<&str>, now: u64) -> Option<ClientRecord> {
        let clients = &self.inner.clients;
        match client {
            Some(id) => clients.get(id),
            None => clients.default_target(now).or_else(|| clients.most_recent()),
        }
    }

    fn liveness(&self, record: Option<&ClientRecord>, now: u64) -> (String, bool, u64, u64) {
        let (page, last) = match (record, &self.inner.restored) {
            (Some(r), _) => (r.page.clone(), r.last_seen_at),
            (None, Some(restored)) => (restored.page.clone(), restored.last_seen_at),
            (None, None) => (String::new(), 0),
        };
        let gone = record.is_some_and(|r| r.gone);
        let alive = !gone && crate::clients::is_fresh(last, now, self.inner.clients.ttl_ms());
        let ago = if last == 0 {
            0
        } else {
            (now.saturating_sub(last) + 500) / 1000
        };
        (page, alive, last, ago)
    }

    /// `GET {prefix}/console`: a `client` that names no page the host knows (no record, no entry)
    /// is a 404 naming the open pages, as `POST /run` does, rather than an empty answer.
    pub(super) fn console(&self, parts: &Parts) -> Response<Bytes> {
        match LogQuery::parse(parts.uri.query()) {
            Ok(query) => {
                if let Err(why) = self.inner.logs.check_batches(&query) {
                    return super::response::error(StatusCode::BAD_REQUEST, why);
                }
                if let Some(err) = query.client.as_deref().and_then(|c| self.unknown_client(c)) {
                    return super::response::error(StatusCode::NOT_FOUND, err.to_string());
                }
                json_response(StatusCode::OK, &self.console_json(&query))
            }
            Err(why) => failure(&why),
        }
    }

    /// A page an agent named that this host knows nothing of: no record, and no log entry held
    /// (not: none that passes a filter, which `limit=0` and `afterSeq` polling of a page closed a
    /// while ago ask for). The 404 of `/console` and `/actions`, and the error of their MCP tools.
    pub(crate) fn unknown_client(&self, client: &str) -> Option<RunError> {
        let any = LogQuery {
            client: Some(client.to_owned()),
            limit: Some(1),
            ..LogQuery::default()
        };
        let known = self.inner.clients.knows(client) || !self.inner.logs.query(&any).is_empty();
        (!known).then(|| RunError::UnknownPage {
            client: client.to_owned(),
            open: self.open_pages(now_ms()),
        })
    }

    /// The answer of `GET {prefix}/console` for `query` (also what the MCP `browser_logs` tool
    /// reads): the entries in the order they happened, each with when ([`annotate`]).
    pub(crate) fn console_json(&self, query: &LogQuery) -> Value {
        let logs = self.inner.logs.query(query);
        let now = now_ms();
        let timeline = self.inner.logs.batches().timeline();
        let logs: Vec<Value> = logs
            .iter()
            .map(|e| {
                let mut v = e.to_json();
                if let Some(obj) = v.as_object_mut() {
                    annotate(obj, &timeline, now);
                }
                v
            })
            .collect();
        let record = self.target(query.client.as_deref(), now);
        let (page, alive, last, ago) = self.liveness(record.as_ref(), now);
        json!({
            "count": logs.len(),
            "logs": logs,
            "page": page,
            "clientId": record.as_ref().map(|r| r.client_id.as_str()),
            "clientPhase": record.as_ref().map_or("", |r| r.phase.as_str()),
            "clientAlive": alive,
            "lastSeenAt": last,
            "lastSeenAgoSec": ago,
            "lastSeq": self.inner.logs.last_seq(),
            "evicted": self.inner.logs.evicted(),
        })
    }

    pub(super) fn page(&self) -> Response<Bytes> {
        json_response(StatusCode::OK, &self.page_json())
    }

    /// The answer of `GET {prefix}/page` (also what the MCP `browser_pages` tool reads).
    pub(crate) fn page_json(&self) -> Value {
        let now = now_ms();
        let target = self.inner.clients.default_target(now);
        let pages: Vec<Value> = self
            .inner
            .clients
            .all()
            .into_iter()
            .map(|r| {
                let (_, alive, _, ago) = self.liveness(Some(&r), now);
                let current = r.rev.is_empty() || r.rev == self.inner.tag_config.rev;
                let mut v = serde_json::to_value(&r).expect("record serializes");
                v["alive"] = json!(alive);
                v["lastSeenAgoSec"] = json!(ago);
                v["currentRev"] = json!(current);
                v["target"] = json!(target.as_ref().is_some_and(|t| t.client_id == r.client_id));
                v
            })
            .collect();
        let shown = target.clone().or_else(|| self.inner.clients.most_recent());
        let (page, alive, last, ago) = self.liveness(shown.as_ref(), now);
        json!({
            "page": page,
            "clientAlive": alive,
            "lastSeenAt": last,
            "lastSeenAgoSec": ago,
            "defaultTarget": target.map(|t| t.client_id),
            "rev": self.inner.tag_config.rev,
            "pages": pages,
        })
    }

    /// `POST {prefix}/run {"steps":[…],"client"?,"timeoutMs"?}`.
    pub(super) fn run_route(&self, parts: &Parts, body: &Bytes) -> Dispatch {
        if !security::is_json(&parts.headers) {
            return Dispatch::Now(failure(&Refusal::NotJson { route: "/run" }));
        }
        let mut batch = match Batch::from_json(body) {
            Ok(b) => b,
            Err(err) => return Dispatch::Now(command_error(&err)),
        };
        // `?client=` names the page as the body's `client` does; both, naming two pages, is refused.
        if let Some(id) = Params::parse(parts.uri.query())
            .last(param::CLIENT)
            .filter(|c| !c.is_empty())
        {
            match &batch.client {
                Some(named) if named != id => {
                    let why = format!("the query names client {id:?} and the body client {named:?}: name one page");
                    return Dispatch::Now(command_error(&RunError::BadRequest(why)));
                }
                _ => batch.client = Some(id.to_owned()),
            }
        }
        let origin = app_origin(parts);
        let agent = self.clone();
        Dispatch::Later(Box::pin(async move {
            match agent.run_placed(batch, origin).await {
                (n, Ok(result)) => {
                    let mut body = serde_json::to_value(&result).expect("serializable");
                    body[field::BATCH] = json!(batch_id(n));
                    if let Some(Value::Array(logs)) = body.get_mut(field::LOGS) {
                        agent.place_logs(logs);
                    }
                    json_response(StatusCode::OK, &body)
                }
                (_, Err(err)) => command_error(&err),
            }
        }))
    }

    /// Runs an agent's batch (`POST /run`, MCP's `browser_run`) on the batches' timeline: it is
    /// `b{n}` from now to its answer (or to its caller's leaving), so the log places entries
    /// against it; a batch refused before it ran leaves no trace.
    pub(crate) async fn run_placed(
        &self,
        batch: Batch,
        origin: Option<String>,
    ) -> (u64, Result<BatchResult, RunError>) {
        let batches = self.inner.logs.batches();
        let n = batches.begin(batch.client.as_deref(), now_ms());
        // Ends the batch's span should the caller leave before the answer (the future dropped).
        struct Ending<'a>(&'a BrowserAgent, u64, bool);
        impl Drop for Ending<'_> {
            fn drop(&mut self) {
                if !self.2 {
                    self.0.inner.logs.batches().end(self.1, None, now_ms());
                }
            }
        }
        let mut ending = Ending(self, n, false);
        let started = now_ms();
        let mut outcome = self.run_with_hint(batch, origin).await;
        if let Ok(result) = &mut outcome {
            self.add_dialogs(result);
            self.opener_after_close(result, started).await;
        }
        ending.2 = true;
        match &outcome {
            Ok(result) => batches.end(n, Some(&result.client_id), now_ms()),
            Err(
                RunError::BadRequest(_)
                | RunError::NoBrowser(_)
                | RunError::ClientFailed { .. }
                | RunError::UnknownPage { .. }
                | RunError::PageClosed { .. }
                | RunError::QueueFull
                | RunError::Forbidden(_)
                | RunError::TooLarge(_),
            ) => batches.forget(n),
            Err(_) => batches.end(n, None, now_ms()),
        }
        (n, outcome)
    }

    /// A batch answer's logs (JSON entries) in the order they happened, each with when.
    pub(crate) fn place_logs(&self, logs: &mut [Value]) {
        let now = now_ms();
        let timeline = self.inner.logs.batches().timeline();
        in_order(logs);
        for entry in logs.iter_mut().filter_map(Value::as_object_mut) {
            annotate(entry, &timeline, now);
        }
    }

    /// `POST {prefix}/snapshot {"client"?, "diff"?, view…}` (JSON, so no cross-site form or `<img>`
    /// can make the page work), or `GET {prefix}/snapshot?client=&diff=` from curl and same-origin
    /// browsers ([`security::check_snapshot_get`]): a snapshot without writing a batch. Both may
    /// carry the `snapshot` step's view ([`crate::protocol::SNAPSHOT_VIEW`]: `ref`, `offset`, `limit`, `filter`,
    /// `viewport`, `budget`, `full`); the body's fields win over the query's.
    pub(super) fn snapshot_route(&self, parts: &Parts, body: &Bytes) -> Dispatch {
        if parts.method == Method::POST {
            if !security::is_json(&parts.headers) {
                return Dispatch::Now(failure(&Refusal::NotJson { route: "/snapshot" }));
            }
        } else if let Err(refusal) = security::check_snapshot_get(parts) {
            return Dispatch::Now(failure(&refusal));
        }
        // The query, then the body: `client`, `diff` and the view (`protocol::SNAPSHOT_VIEW`), the
        // body's winning. Values go into the `snapshot` step as an agent writes them (the query's
        // numbers and flags parsed), so the step check says the same about a bad one as it does on
        // every other surface, a name it does not take included (refused, not ignored). A name
        // given twice in the query is refused: which of two refs was meant is a guess.
        let mut client = None;
        let mut step = serde_json::Map::new();
        step.insert(field::COMMAND.into(), json!("snapshot"));
        for (name, value) in Params::parse(parts.uri.query()).iter() {
            if value.is_empty() {
                continue;
            }
            if name == field::COMMAND {
                return Dispatch::Now(failure(&BadInput::SnapshotCommand));
            }
            if step.contains_key(name) || (name == param::CLIENT && client.is_some()) {
                return Dispatch::Now(failure(&BadInput::Twice(name.to_owned())));
            }
            let value = match name {
                param::CLIENT => {
                    client = Some(value.to_owned());
                    continue;
                }
                "diff" | "full" | "viewport" | "source" => parse_flag(value).map_or_else(|| json!(value), Value::Bool),
                "offset" | "limit" | "budget" => query_number(value),
                // The view's text fields, and any other name, for the step check to take or refuse.
                _ => json!(value),
            };
            step.insert(name.to_owned(), value);
        }
        if parts.method == Method::POST && !body.trim_ascii().is_empty() {
            let value: Value = match serde_json::from_slice(body) {
                Ok(v) => v,
                Err(e) => return Dispatch::Now(failure(&BadInput::json(e))),
            };
            let Value::Object(obj) = value else {
                return Dispatch::Now(failure(&BadInput::SnapshotBody));
            };
            for (name, value) in obj {
                match (name.as_str(), value) {
                    (param::CLIENT, Value::Null) => {}
                    (param::CLIENT, Value::String(c)) => client = Some(c).filter(|c| !c.is_empty()).or(client),
                    (param::CLIENT, _) => return Dispatch::Now(failure(&BadInput::NotString(param::CLIENT))),
                    (field::COMMAND, _) => return Dispatch::Now(failure(&BadInput::SnapshotCommand)),
                    (_, value) => {
                        step.insert(name, value);
                    }
                }
            }
        }
        let step = Value::Object(step);
        let diff = step["diff"].as_bool().unwrap_or(false);
        let origin = app_origin(parts);
        let agent = self.clone();
        Dispatch::Later(Box::pin(async move {
            match agent.snapshot_text(client, step, origin).await {
                Ok(answer) => {
                    let mut body =
                        json!({(field::SNAPSHOT): answer.text, (field::CLIENT_ID): answer.client_id, "diff": diff});
                    if let Some(cut) = answer.cut {
                        body[field::CUT] = json!(cut);
                    }
                    if answer.scoped {
                        body[field::SCOPED] = json!(true);
                    }
                    json_response(StatusCode::OK, &body)
                }
                Err(err) => command_error(&err),
            }
        }))
    }

    /// A snapshot's answer, through a one-step batch (`{prefix}/snapshot` and the MCP
    /// `browser_snapshot` tool); `origin` is where the app is, named when no page is open.
    pub(crate) async fn snapshot_text(
        &self,
        client: Option<String>,
        step: Value,
        origin: Option<String>,
    ) -> Result<SnapshotAnswer, RunError> {
        let mut batch = Batch::new(vec![step]);
        batch.client = client;
        let result = self.run_with_hint(batch, origin).await?;
        let step = result.steps.first();
        match step.and_then(|s| s.result_str().map(|text| (s, text))) {
            Some((s, text)) => Ok(SnapshotAnswer {
                text: text.to_owned(),
                client_id: result.client_id,
                cut: s.other.get(field::CUT).and_then(Value::as_u64),
                scoped: s.other.get(field::SCOPED).and_then(Value::as_bool) == Some(true),
            }),
            None => {
                let why = step
                    .and_then(|s| s.error.as_deref())
                    .unwrap_or("the page sent no snapshot");
                Err(RunError::BadRequest(why.to_owned()))
            }
        }
    }

    /// `GET {prefix}/actions?client=`: the page's action log (every executed step, with its time,
    /// target label and box, and the viewport), default page when no client is named.
    pub(super) fn actions(&self, parts: &Parts) -> Response<Bytes> {
        let params = Params::parse(parts.uri.query());
        if let Some(refused) = super::unknown_param(&params, parts, &[param::CLIENT]) {
            return refused;
        }
        let client = params.first(param::CLIENT).filter(|c| !c.is_empty());
        if let Some(err) = client.and_then(|c| self.unknown_client(c)) {
            return super::response::error(StatusCode::NOT_FOUND, err.to_string());
        }
        json_response(StatusCode::OK, &self.actions_json(client))
    }

    /// The answer of `GET {prefix}/actions?client=` (also what the MCP `browser_actions` tool reads).
    pub(crate) fn actions_json(&self, client: Option<&str>) -> Value {
        let Some(record) = self.target(client, now_ms()) else {
            return json!({"clientId": null, "actions": []});
        };
        let mut actions = Value::Array(self.inner.commands.actions(&record.client_id));
        // Step results may quote URLs with tokens (`navigating to …?access_token=…`).
        self.inner.config.redaction.json(&mut actions);
        json!({"clientId": record.client_id, "page": record.page, "actions": actions})
    }
}

/// What a `snapshot` step answered ([`BrowserAgent::snapshot_text`]).
pub(crate) struct SnapshotAnswer {
    /// The snapshot's text.
    pub(crate) text: String,
    /// The page it came from.
    pub(crate) client_id: String,
    /// How many nodes the budget left out ([`field::CUT`]).
    pub(crate) cut: Option<u64>,
    /// Not the page's default view ([`field::SCOPED`]).
    pub(crate) scoped: bool,
}

/// A query's count as the JSON number an agent would write (`5`, `5.0`, `-1`); anything else stays
/// a string, for the step check to name.
fn query_number(value: &str) -> Value {
    let v = value.trim();
    if let Ok(n) = v.parse::<i64>() {
        return json!(n);
    }
    v.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or_else(|| json!(value), Value::Number)
}

/// `http://{Host}/`: where the agent's own request says the app is (named when no page is open).
pub(crate) fn app_origin(parts: &Parts) -> Option<String> {
    parts
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|h| format!("http://{h}/"))
}
