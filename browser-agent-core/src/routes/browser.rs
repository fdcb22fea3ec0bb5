//! The page client's routes ([`Access::Browser`](super::Access)): the heartbeat probe, log
//! batches and the `gone` beacon, the command poll and the results post.

use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use http::{request::Parts, HeaderValue, Response, StatusCode};
use serde_json::{json, Value};

use super::response::{batch_response, empty, failure, json_response};
use super::Dispatch;
use crate::clients::{ClientRecord, Heartbeat, ANONYMOUS_CLIENT};
use crate::error::{BadInput, GoneError};
use crate::logs::{normalize_plain, RawEntry};
use crate::protocol::{self, field, param, Delivery, Phase, Results, MAX_ID_LEN, MAX_POLL_CLIENTS, POLL_WAIT_MS};
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
        self.tell_presence(res.headers_mut());
        res
    }

    /// GET heartbeat: always `200 {"ok":true}`; only a keyed one marks a page alive
    /// (compat: dsh-agent-browser's probe answers every heartbeat; an unkeyed one proves nothing here).
    pub(super) fn probe_get(&self, parts: &Parts) -> Response<Bytes> {
        if self.key_ok(parts) {
            let hb = Heartbeat::from_pairs(Params::parse(parts.uri.query()).iter());
            self.record_heartbeat(&hb);
            if let Some(tab) = hb.tab.as_deref().filter(|t| !t.is_empty()) {
                self.inner.commands.wake_for_tab(tab);
            }
        }
        self.probe_ok()
    }

    fn record_heartbeat(&self, hb: &Heartbeat) -> ClientRecord {
        let now = now_ms();
        let was_gone = self.inner.clients.is_gone(&hb.client);
        let error_before = self.inner.clients.get(&hb.client).map(|r| r.error);
        let record = self.inner.clients.heartbeat(hb, now);
        self.inner.page_tools.heartbeat(&hb.client, hb.tools.unwrap_or(0));
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
        let mut hb = Heartbeat::from_pairs(Params::parse(parts.uri.query()).iter());
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

/// A page a command poll covers: its client id and tab id (for a batch its tab handed over).
type Covered = (String, Option<String>);

/// `clients=ID:TAB,ID:TAB` of a command poll (every value, in order): the other pages it covers,
/// each once and never `own`, the first `most` of them (the names past that are ignored: see
/// [`MAX_POLL_CLIENTS`]).
fn poll_clients(params: &Params, own: &str, most: usize) -> Result<Vec<Covered>, BadInput> {
    let mut out: Vec<Covered> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // `clients=` with nothing covers no one else; an empty id between commas is refused.
    let values = params.all(param::CLIENTS).filter(|v| !v.trim().is_empty());
    for item in values.flat_map(|v| v.split(',')) {
        let item = item.trim();
        let (id, tab) = item.split_once(':').unwrap_or((item, ""));
        if id.is_empty() {
            return Err(BadInput::PollClientEmpty);
        }
        for part in [id, tab] {
            if part.len() > MAX_ID_LEN {
                let mut shown = part.to_owned();
                crate::util::truncate_chars(&mut shown, MAX_ID_LEN + 8);
                return Err(BadInput::PollClientLong(shown));
            }
        }
        if out.len() == most || id == own || !seen.insert(id) {
            continue;
        }
        out.push((id.to_owned(), (!tab.is_empty()).then(|| tab.to_owned())));
    }
    Ok(out)
}

/// Ends a held poll's registration when the poll ends, however it ends (its connection may be
/// dropped while it waits).
struct Hold {
    agent: BrowserAgent,
    client: String,
    serial: u64,
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.agent.inner.commands.release(&self.client, self.serial);
    }
}

impl BrowserAgent {
    /// The first batch for `client` or one of the pages its poll covers (each skipped while it
    /// said it left), with its page named when the poll covers others.
    fn take_any(&self, client: &str, tab: Option<&str>, covered: &[Covered]) -> Option<Delivery> {
        let commands = &self.inner.commands;
        if let Some(mut batch) = commands.take(client, tab) {
            if !covered.is_empty() {
                batch.client = Some(client.to_owned());
            }
            return Some(batch);
        }
        covered.iter().find_map(|(c, t)| {
            // Its tab (for a batch the tab handed over): as the poll names it, or as the page's
            // heartbeats reported it.
            let record = self.inner.clients.get(c);
            if record.as_ref().is_some_and(|r| r.gone) {
                return None;
            }
            let tab = t.clone().or_else(|| record.map(|r| r.tab).filter(|t| !t.is_empty()));
            let mut batch = commands.take(c, tab.as_deref())?;
            batch.client = Some(c.clone());
            Some(batch)
        })
    }

    /// `GET {prefix}/commands?client=&wait=[&clients=]`: the page's poll. Without `wait` it
    /// answers at once (`200` [`Delivery`] or 204), as the MindStudio client expects; with `wait`
    /// (ms, capped at [`POLL_WAIT_MS`]) it returns the moment a batch is queued, or 204 at the
    /// end. With `clients=` it covers those pages too (the other tabs of the browser, which the
    /// polling tab relays batches to): the batch names its page in `client`, and each covered page
    /// counts as polling. A newer held poll of the same `client` ends this one with a 204.
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
        // Every page the host keeps a record of, the poll's own included.
        let most = MAX_POLL_CLIENTS.max(self.config().max_clients.saturating_sub(1));
        let covered = match poll_clients(&params, &client, most) {
            Ok(covered) => covered,
            Err(why) => return Dispatch::Now(failure(&why)),
        };
        // A new poll is proof of life, also of a page that said it left (the back/forward cache).
        let now = now_ms();
        let was_gone = self.inner.clients.is_gone(&client);
        self.inner.clients.touch_poll(&client, now);
        if was_gone {
            self.page_back(&client);
        }
        // A covered page is polling too; one that said it left comes back by its own heartbeat.
        for (c, _) in &covered {
            if !self.inner.clients.is_gone(c) {
                self.inner.clients.touch_poll(c, now);
            }
        }
        if let Some(batch) = self.take_any(&client, tab.as_deref(), &covered) {
            return Dispatch::Now(batch_response(&batch));
        }
        if wait.is_zero() || self.ask_for_tab(tab.as_deref(), &covered) {
            return Dispatch::Now(self.no_batch());
        }
        let agent = self.clone();
        Dispatch::Later(Box::pin(async move {
            let hold = Hold {
                serial: agent.inner.commands.hold(&client),
                agent: agent.clone(),
                client: client.clone(),
            };
            let deadline = tokio::time::Instant::now() + wait;
            loop {
                let wakes: Vec<_> = std::iter::once(&client)
                    .chain(covered.iter().map(|(c, _)| c))
                    .map(|c| agent.inner.commands.wake(c))
                    .collect();
                let mut notified: Vec<_> = wakes.iter().map(|w| Box::pin(w.notified())).collect();
                // Register before looking, so a batch queued in between still wakes us.
                for n in &mut notified {
                    n.as_mut().enable();
                }
                // The page said it left while this poll was held, or polls anew: this poll gets
                // nothing (not even a batch its tab handed over, which is for the next page).
                if agent.inner.clients.is_gone(&client) || !agent.inner.commands.holds(&client, hold.serial) {
                    return empty(StatusCode::NO_CONTENT);
                }
                if let Some(batch) = agent.take_any(&client, tab.as_deref(), &covered) {
                    return batch_response(&batch);
                }
                if agent.ask_for_tab(tab.as_deref(), &covered) {
                    return agent.no_batch();
                }
                let any = std::future::poll_fn(|cx| {
                    if notified.iter_mut().any(|n| n.as_mut().poll(cx).is_ready()) {
                        std::task::Poll::Ready(())
                    } else {
                        std::task::Poll::Pending
                    }
                });
                if tokio::time::timeout_at(deadline, any).await.is_err() {
                    let now = now_ms();
                    for c in std::iter::once(&client).chain(covered.iter().map(|(c, _)| c)) {
                        agent.inner.clients.poll_ended(c, now);
                    }
                    return empty(StatusCode::NO_CONTENT);
                }
            }
        }))
    }

    /// Whether a poll should end now and say a handover waits: pages send their tab id only when
    /// told, and the batch may be for the tab of this page or of a page it covers whose tab the
    /// host does not know yet (the polling page then asks the pages it covers for theirs).
    fn ask_for_tab(&self, tab: Option<&str>, covered: &[Covered]) -> bool {
        let unknown = |c: &String| self.inner.clients.get(c).is_some_and(|r| !r.gone && r.tab.is_empty());
        (tab.is_none() || covered.iter().any(|(c, t)| t.is_none() && unknown(c)))
            && self.inner.commands.handover_waiting()
    }

    /// A poll's `204` with no batch, telling the page what a heartbeat's answer would.
    fn no_batch(&self) -> Response<Bytes> {
        let mut res = empty(StatusCode::NO_CONTENT);
        self.tell_presence(res.headers_mut());
        res
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
        let logs = logs.iter().map(|e| e.to_json()).collect();
        if !self.inner.commands.complete(&id, results, logs) {
            eprintln!("browser-agent: result for unknown or timed-out batch {id:?} ignored");
        }
        empty(StatusCode::NO_CONTENT)
    }
}
