//! The page client's routes ([`Access::Browser`](super::Access)): the heartbeat probe, log
//! batches and the `gone` beacon, the command poll and the results post.

use std::time::Duration;

use bytes::Bytes;
use http::{request::Parts, HeaderValue, Response, StatusCode};
use serde_json::{json, Value};

use super::response::{batch_response, empty, failure, json_response};
use super::Dispatch;
use crate::clients::{ClientRecord, Heartbeat, ANONYMOUS_CLIENT};
use crate::error::{BadInput, GoneError};
use crate::logs::{normalize_plain, RawEntry};
use crate::protocol::{self, field, param, Phase, Results, MAX_ID_LEN, POLL_WAIT_MS};
use crate::sinks::{self, ClientState};
use crate::util::{now_ms, parse_flag, Params};
use crate::BrowserAgent;

impl BrowserAgent {
    fn probe_ok(&self) -> Response<Bytes> {
        let mut res = json_response(StatusCode::OK, &json!({ "ok": true }));
        res.headers_mut().insert(
            protocol::REV_HEADER,
            HeaderValue::from_str(&self.inner.tag_config.rev).expect("hex rev"),
        );
        res
    }

    /// GET heartbeat: always `200 {"ok":true}`; only a keyed one marks a page alive
    /// (compat: dsh-agent-browser's probe answers every heartbeat; an unkeyed one proves nothing here).
    pub(super) fn probe_get(&self, parts: &Parts) -> Response<Bytes> {
        if self.key_ok(parts) {
            let hb = Heartbeat::from_query(parts.uri.query());
            self.record_heartbeat(&hb);
        }
        self.probe_ok()
    }

    fn record_heartbeat(&self, hb: &Heartbeat) -> ClientRecord {
        let now = now_ms();
        let was_gone = self.inner.clients.is_gone(&hb.client);
        let error_before = self.inner.clients.get(&hb.client).map(|r| r.error);
        let record = self.inner.clients.heartbeat(hb, now);
        if was_gone && !record.gone {
            self.page_back(&hb.client);
        }
        if record.phase == Phase::Failed && error_before.as_deref() != Some(record.error.as_str()) {
            self.store_start_failure(&record, hb.stack.as_deref().unwrap_or(""));
        }
        if let Some(path) = &self.inner.config.state_file {
            sinks::store_client_state(
                path,
                &ClientState {
                    last_seen_at: now,
                    page: record.page.clone(),
                },
            );
        }
        record
    }

    /// A page's client failed to start (a heartbeat with a new `error`): stored once as an `error`
    /// entry of that page, with the message and the stack its bootstrap sent.
    fn store_start_failure(&self, record: &ClientRecord, stack: &str) {
        let entry = json!({
            field::TYPE: protocol::entry_type::ERROR,
            "message": format!("browser-agent client failed to start: {}", record.error),
            "stack": stack,
            "source": "browser-agent",
            field::CLIENT_ID: record.client_id,
            field::PAGE: record.page,
        });
        if let Ok(raw) = serde_json::from_value(entry) {
            let _ = self.ingest_typed(vec![raw], false);
        }
    }

    /// dsh's fallback upload: `{"logs":[{t,level,text}],"page","phase"}` → heartbeat, then store.
    pub(super) fn probe_post(&self, parts: &Parts, body: &Bytes) -> Response<Bytes> {
        let value: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => return failure(&BadInput::json(e)),
        };
        let Some(obj) = value.as_object() else {
            return failure(&BadInput::ProbeBody);
        };
        let items = match obj.get(field::LOGS) {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(items)) => items.as_slice(),
            Some(_) => return failure(&BadInput::ProbeLogs),
        };
        let text_field = |name: &'static str| match obj.get(name) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(BadInput::NotString(name)),
        };
        let (page, phase) = match (text_field(field::PAGE), text_field(param::PHASE)) {
            (Ok(p), Ok(ph)) => (p, ph),
            (Err(why), _) | (_, Err(why)) => return failure(&why),
        };
        let mut hb = Heartbeat::from_query(parts.uri.query());
        if !page.is_empty() {
            hb.page = page;
        }
        hb.phase = Phase::parse(&phase).or(hb.phase);
        let record = self.record_heartbeat(&hb);
        let now = now_ms();
        let limits = self.limits();
        let entries: Vec<_> = items
            .iter()
            .filter_map(|item| normalize_plain(item, limits, &record.page, now))
            .map(|mut e| {
                if hb.client != ANONYMOUS_CLIENT {
                    e.client_id = hb.client.clone();
                }
                e
            })
            .collect();
        self.store(entries);
        self.probe_ok()
    }

    /// MindStudio's bare array (our client adds clientId/seq): validate all, then store, each `(clientId, seq)` once.
    /// With `?gone=1&client=ID` (the page's `pagehide` beacon), the page then counts as left.
    pub(super) fn logs_post(&self, parts: &Parts, body: &Bytes) -> Response<Bytes> {
        let gone = match gone_param(&Params::parse(parts.uri.query())) {
            Ok(gone) => gone,
            Err(why) => return failure(&why),
        };
        if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'[') {
            let why = match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
                Err(e) => BadInput::json(e),
                Ok(_) => BadInput::LogsBody,
            };
            return failure(&why);
        }
        // Parsed straight into entries: the host-owned keys land in slots, nothing is copied twice.
        let items: Vec<RawEntry> = match serde_json::from_slice(body) {
            Ok(items) => items,
            Err(e) => return failure(&BadInput::json(e)),
        };
        if let Err(why) = self.ingest_typed(items, false) {
            return failure(&why);
        }
        if let Some(client) = gone {
            self.page_gone(&client);
        }
        empty(StatusCode::NO_CONTENT)
    }
}

/// `gone=1&client=ID` of a `POST {prefix}/logs`: the client that says it left, if any.
fn gone_param(params: &Params) -> Result<Option<String>, GoneError> {
    let mut gone = false;
    for value in params.all(param::GONE) {
        gone = parse_flag(value).ok_or_else(|| GoneError::Flag(value.to_owned()))?;
    }
    if !gone {
        return Ok(None);
    }
    match params.last(param::CLIENT) {
        Some(client) if !client.is_empty() && client.len() <= MAX_ID_LEN => Ok(Some(client.to_owned())),
        _ => Err(GoneError::NoClient),
    }
}

impl BrowserAgent {
    /// `GET {prefix}/commands?client=&wait=`: the page's poll. Without `wait` it answers at once
    /// (`200` [`Delivery`] or 204), as the MindStudio client expects; with `wait` (ms, capped at
    /// [`POLL_WAIT_MS`]) it returns the moment a batch is queued, or 204 at the end.
    pub(super) fn commands_poll(&self, parts: &Parts) -> Dispatch {
        let params = Params::parse(parts.uri.query());
        let client = params.last(param::CLIENT).unwrap_or("").to_owned();
        let tab = params
            .all(param::TAB)
            .filter(|t| !t.is_empty() && t.len() <= MAX_ID_LEN)
            .last()
            .map(str::to_owned);
        let mut wait = Duration::ZERO;
        for value in params.all(param::WAIT) {
            match value.trim().parse::<u64>() {
                Ok(ms) => wait = Duration::from_millis(ms.min(POLL_WAIT_MS)),
                Err(_) => return Dispatch::Now(failure(&BadInput::Wait(value.to_owned()))),
            }
        }
        if client.is_empty() || client.len() > MAX_ID_LEN {
            return Dispatch::Now(failure(&BadInput::NoClient));
        }
        let commands = &self.inner.commands;
        // A new poll is proof of life, also of a page that said it left (the back/forward cache).
        let was_gone = self.inner.clients.is_gone(&client);
        self.inner.clients.touch_poll(&client, now_ms());
        if was_gone {
            self.page_back(&client);
        }
        if let Some(batch) = commands.take(&client, tab.as_deref()) {
            return Dispatch::Now(batch_response(&batch));
        }
        if wait.is_zero() {
            return Dispatch::Now(empty(StatusCode::NO_CONTENT));
        }
        let agent = self.clone();
        Dispatch::Later(Box::pin(async move {
            let deadline = tokio::time::Instant::now() + wait;
            loop {
                let wake = agent.inner.commands.wake(&client);
                let notified = wake.notified();
                tokio::pin!(notified);
                // Register before looking, so a batch queued in between still wakes us.
                notified.as_mut().enable();
                // The page said it left while this poll was held: it gets nothing (not even a
                // batch its tab handed over, which is for the next page).
                if agent.inner.clients.is_gone(&client) {
                    return empty(StatusCode::NO_CONTENT);
                }
                if let Some(batch) = agent.inner.commands.take(&client, tab.as_deref()) {
                    return batch_response(&batch);
                }
                if tokio::time::timeout_at(deadline, notified).await.is_err() {
                    agent.inner.clients.poll_ended(&client, now_ms());
                    return empty(StatusCode::NO_CONTENT);
                }
            }
        }))
    }

    /// `POST {prefix}/results`: 204; an unknown id (timed out, or never sent) is only warned about.
    /// The batch's `logs` go through the same ingest as `POST {prefix}/logs` (each `(clientId, seq)`
    /// stored once), and the agent gets the stored entries, as `GET /console` shows them. A malformed
    /// body or log entry is a 400 that changes nothing (the batch still waits for its results).
    pub(super) fn results_post(&self, body: &Bytes) -> Response<Bytes> {
        let value: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => return failure(&BadInput::json(e)),
        };
        let mut results = Results::from_value(value);
        let Some(id) = results.id.clone() else {
            return failure(&BadInput::NoBatchId);
        };
        let mut items: Vec<RawEntry> = match results.logs.take() {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.into_iter().map(RawEntry::from_value).collect(),
            Some(_) => return failure(&BadInput::ResultLogs),
        };
        // Entries that name no page are the page's that ran the batch.
        if let Some(client) = self.inner.commands.client_of(&id) {
            items.iter_mut().for_each(|item| item.default_client(&client));
        }
        let logs = match self.ingest_typed(items, true) {
            Ok(stored) => stored,
            Err(why) => return failure(&BadInput::ResultEntry(why)),
        };
        let logs = logs
            .iter()
            .map(|e| serde_json::to_value(&**e).expect("entries serialize"))
            .collect();
        if !self.inner.commands.complete(&id, results, logs) {
            eprintln!("browser-agent: result for unknown or timed-out batch {id:?} ignored");
        }
        empty(StatusCode::NO_CONTENT)
    }
}
