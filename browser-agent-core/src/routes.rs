//! Our routes, implemented once: [`BrowserAgent`] is a tower `Service` over `http::Request<Bytes>`.
//! Adapters call [`BrowserAgent::preflight`] on the head (so a refused or oversized request is
//! answered without reading its body), read the body up to [`Config::body_limit`](crate::Config::body_limit),
//! then call the service.

// A refusal is a whole response, built on the cold path; boxing it would only move the cost.
#![allow(clippy::result_large_err)]

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{header, request::Parts, HeaderValue, Method, Request, Response, StatusCode};
use serde_json::{json, Value};

use crate::clients::{ClientRecord, Heartbeat, ANONYMOUS_CLIENT};
use crate::commands::{Batch, RunError};
use crate::logs::{normalize_dsh, normalize_typed, LogEntry, LogQuery, RawEntry};
use crate::protocol::{self, field, param, Delivery, Phase, Results, MAX_ID_LEN, POLL_WAIT_MS};
use crate::security;
use crate::sinks::{self, ClientState};
use crate::util::{self, now_ms};
use crate::BrowserAgent;

/// Who a route serves, which decides its checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Called by the injected client: loopback Host; writes need the page key.
    Browser,
    /// Called by the agent: loopback Host, same-origin Origin, bearer token when configured.
    Agent,
    /// Content-hashed client assets: public.
    Public,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Route {
    Probe,
    Logs,
    Console,
    Page,
    Commands,
    Results,
    Run,
    Snapshot,
    Actions,
    Asset(String),
}

impl Route {
    fn methods(&self) -> &'static [Method] {
        match self {
            Route::Probe => &[Method::GET, Method::HEAD, Method::POST],
            Route::Logs | Route::Results | Route::Run => &[Method::POST],
            Route::Console | Route::Page | Route::Commands | Route::Snapshot | Route::Actions => {
                &[Method::GET, Method::HEAD]
            }
            Route::Asset(_) => &[Method::GET, Method::HEAD],
        }
    }

    fn access(&self) -> Access {
        match self {
            Route::Probe | Route::Logs | Route::Commands | Route::Results => Access::Browser,
            Route::Console | Route::Page | Route::Run | Route::Snapshot | Route::Actions => Access::Agent,
            Route::Asset(_) => Access::Public,
        }
    }
}

type BoxFuture = Pin<Box<dyn Future<Output = Response<Bytes>> + Send>>;

/// The future of a route. Named, so adapters can store it; most routes answer at once, the
/// command routes (`/run`, `/snapshot`, a long-polled `/commands`) wait.
pub struct RouteFuture {
    inner: Answer,
}

enum Answer {
    Ready(Option<Response<Bytes>>),
    Waiting(BoxFuture),
}

impl std::fmt::Debug for RouteFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.inner {
            Answer::Ready(_) => "ready",
            Answer::Waiting(_) => "waiting",
        };
        f.debug_struct("RouteFuture").field("state", &state).finish()
    }
}

impl Future for RouteFuture {
    type Output = Result<Response<Bytes>, Infallible>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.inner {
            Answer::Ready(res) => Poll::Ready(Ok(res.take().expect("RouteFuture polled after completion"))),
            Answer::Waiting(fut) => fut.as_mut().poll(cx).map(Ok),
        }
    }
}

impl tower_service::Service<Request<Bytes>> for BrowserAgent {
    type Response = Response<Bytes>;
    type Error = Infallible;
    type Future = RouteFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Bytes>) -> RouteFuture {
        self.handle(req)
    }
}

/// A JSON error response `{"error": message}`.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response<Bytes> {
    json_response(status, &json!({ "error": message.into() }))
}

fn json_response(status: StatusCode, body: &Value) -> Response<Bytes> {
    let mut res = Response::new(Bytes::from(body.to_string()));
    *res.status_mut() = status;
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    res
}

fn empty(status: StatusCode) -> Response<Bytes> {
    let mut res = Response::new(Bytes::new());
    *res.status_mut() = status;
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

impl BrowserAgent {
    fn route_of(&self, path: &str) -> Option<Route> {
        if path.starts_with(&self.inner.probe_scope) {
            return (path == protocol::PROBE_PATH).then_some(Route::Probe);
        }
        let rest = path.strip_prefix(&self.inner.config.prefix)?;
        match rest {
            protocol::LOGS_PATH => Some(Route::Logs),
            protocol::CONSOLE_PATH => Some(Route::Console),
            protocol::PAGE_PATH => Some(Route::Page),
            protocol::COMMANDS_PATH => Some(Route::Commands),
            protocol::RESULTS_PATH => Some(Route::Results),
            protocol::RUN_PATH => Some(Route::Run),
            protocol::SNAPSHOT_PATH => Some(Route::Snapshot),
            protocol::ACTIONS_PATH => Some(Route::Actions),
            _ => rest
                .strip_prefix(protocol::ASSETS_DIR)
                .filter(|name| self.inner.assets.get(name).is_some())
                .map(|name| Route::Asset(name.to_owned())),
        }
    }

    /// Checks a request's head: route (404), method (405 with `Allow`), Host/Origin/key/token (403),
    /// declared length (413). `Err` is the response to send without reading the body.
    ///
    /// ```
    /// use browser_agent_core::BrowserAgent;
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let req = http::Request::builder().method("DELETE").uri("/__mindstudio_dev__/console")
    ///     .header("host", "127.0.0.1:3000").body(()).unwrap();
    /// let res = agent.preflight(&req.into_parts().0).unwrap_err();
    /// assert_eq!(res.status(), 405);
    /// assert_eq!(res.headers()["allow"], "GET, HEAD");
    /// ```
    pub fn preflight(&self, parts: &Parts) -> Result<(), Response<Bytes>> {
        let route = self.route_of(parts.uri.path()).ok_or_else(|| {
            error(
                StatusCode::NOT_FOUND,
                format!("no browser-agent route {} {}", parts.method, parts.uri.path()),
            )
        })?;
        self.check(&route, parts)
    }

    fn check(&self, route: &Route, parts: &Parts) -> Result<(), Response<Bytes>> {
        let methods = route.methods();
        if !methods.contains(&parts.method) {
            let allow = methods.iter().map(Method::as_str).collect::<Vec<_>>().join(", ");
            let mut res = error(
                StatusCode::METHOD_NOT_ALLOWED,
                format!(
                    "method {} is not allowed on {}; allowed: {allow}",
                    parts.method,
                    parts.uri.path()
                ),
            );
            res.headers_mut().insert(
                header::ALLOW,
                HeaderValue::from_str(&allow).expect("method names are valid"),
            );
            return Err(res);
        }
        let config = &self.inner.config;
        let forbidden = |m: String| error(StatusCode::FORBIDDEN, m);
        match route.access() {
            Access::Public => {}
            Access::Browser => {
                security::check_host(&parts.headers, &parts.uri, &config.allowed_hosts).map_err(forbidden)?;
                let needs_key = parts.method == Method::POST || matches!(route, Route::Commands);
                if needs_key && !self.key_ok(parts) {
                    return Err(forbidden(format!(
                        "refused: missing or wrong page key; browser writes need the header {} (or ?{}=) that the injected tag carries",
                        protocol::KEY_HEADER,
                        protocol::KEY_PARAM
                    )));
                }
            }
            Access::Agent => {
                security::check_host(&parts.headers, &parts.uri, &config.allowed_hosts).map_err(forbidden)?;
                security::check_origin(parts).map_err(forbidden)?;
                security::check_bearer(parts, config.bearer_token.as_deref())
                    .map_err(|m| error(StatusCode::UNAUTHORIZED, m))?;
            }
        }
        let declared = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > config.body_limit as u64) {
            return Err(self.payload_too_large());
        }
        Ok(())
    }

    fn key_ok(&self, parts: &Parts) -> bool {
        security::presented_key(parts).is_some_and(|k| security::same_secret(&k, &self.inner.key))
    }

    /// The 413 answer for a body over the limit (adapters send it when reading passes the limit).
    pub fn payload_too_large(&self) -> Response<Bytes> {
        error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "request body is larger than the limit of {} bytes",
                self.inner.config.body_limit
            ),
        )
    }

    /// Answers one of our requests (see [`is_ours`](Self::is_ours)). Never panics; every error is JSON.
    pub fn handle(&self, req: Request<Bytes>) -> RouteFuture {
        let (parts, body) = req.into_parts();
        let head = parts.method == Method::HEAD;
        let strip = move |mut res: Response<Bytes>| {
            if head {
                *res.body_mut() = Bytes::new();
            }
            res
        };
        let inner = match self.preflight(&parts) {
            Err(res) => Answer::Ready(Some(res)),
            Ok(()) if body.len() > self.inner.config.body_limit => Answer::Ready(Some(self.payload_too_large())),
            Ok(()) => {
                let route = self.route_of(parts.uri.path()).expect("preflight found it");
                match self.dispatch(route, &parts, &body) {
                    Dispatch::Now(res) => Answer::Ready(Some(strip(res))),
                    Dispatch::Later(fut) => Answer::Waiting(Box::pin(async move { strip(fut.await) })),
                }
            }
        };
        RouteFuture { inner }
    }

    fn dispatch(&self, route: Route, parts: &Parts, body: &Bytes) -> Dispatch {
        let now = |res| Dispatch::Now(res);
        match route {
            Route::Commands => return self.commands_poll(parts),
            Route::Run => return self.run_route(parts, body),
            Route::Snapshot => return self.snapshot_route(parts),
            _ => {}
        }
        now(match route {
            Route::Probe if parts.method == Method::POST => self.probe_post(parts, body),
            Route::Probe => self.probe_get(parts),
            Route::Logs => self.logs_post(parts, body),
            Route::Console => self.console(parts),
            Route::Page => self.page(),
            Route::Asset(name) => self.asset(&name, parts),
            Route::Results => self.results_post(body),
            Route::Actions => self.actions(parts),
            Route::Commands | Route::Run | Route::Snapshot => unreachable!("answered above"),
        })
    }

    fn probe_ok(&self) -> Response<Bytes> {
        let mut res = json_response(StatusCode::OK, &json!({ "ok": true }));
        res.headers_mut().insert(
            protocol::REV_HEADER,
            HeaderValue::from_str(&self.inner.tag_config.rev).expect("hex rev"),
        );
        res
    }

    /// GET heartbeat: always `200 {"ok":true}`; only a keyed one marks a page alive (fixes dsh's U1).
    fn probe_get(&self, parts: &Parts) -> Response<Bytes> {
        if self.key_ok(parts) {
            let hb = Heartbeat::from_query(parts.uri.query());
            self.record_heartbeat(&hb);
        }
        self.probe_ok()
    }

    fn record_heartbeat(&self, hb: &Heartbeat) -> ClientRecord {
        let now = now_ms();
        let was_gone = self.inner.clients.is_gone(&hb.client);
        let record = self.inner.clients.heartbeat(hb, now);
        if was_gone && !record.gone {
            self.page_back(&hb.client);
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

    /// dsh's fallback upload: `{"logs":[{t,level,text}],"page","phase"}` → heartbeat, then store.
    fn probe_post(&self, parts: &Parts, body: &Bytes) -> Response<Bytes> {
        let value: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => return error(StatusCode::BAD_REQUEST, format!("body is not valid JSON: {e}")),
        };
        let Some(obj) = value.as_object() else {
            return error(
                StatusCode::BAD_REQUEST,
                "body must be a JSON object {\"logs\":[…],\"page\":\"…\",\"phase\":\"…\"}",
            );
        };
        let items = match obj.get(field::LOGS) {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(items)) => items.as_slice(),
            Some(_) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "field \"logs\" must be an array of {t, level, text}",
                )
            }
        };
        let text_field = |name: &str| match obj.get(name) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(error(
                StatusCode::BAD_REQUEST,
                format!("field \"{name}\" must be a string"),
            )),
        };
        let (page, phase) = match (text_field(field::PAGE), text_field(param::PHASE)) {
            (Ok(p), Ok(ph)) => (p, ph),
            (Err(res), _) | (_, Err(res)) => return res,
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
            .filter_map(|item| normalize_dsh(item, limits, &record.page, now))
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
    fn logs_post(&self, parts: &Parts, body: &Bytes) -> Response<Bytes> {
        let gone = match gone_param(parts) {
            Ok(gone) => gone,
            Err(why) => return error(StatusCode::BAD_REQUEST, why),
        };
        if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'[') {
            let why = match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
                Err(e) => format!("body is not valid JSON: {e}"),
                Ok(_) => "body must be a JSON array of log entries ({\"type\":\"console\",…})".to_owned(),
            };
            return error(StatusCode::BAD_REQUEST, why);
        }
        // Parsed straight into entries: the host-owned keys land in slots, nothing is copied twice.
        let items: Vec<RawEntry> = match serde_json::from_slice(body) {
            Ok(items) => items,
            Err(e) => return error(StatusCode::BAD_REQUEST, format!("body is not valid JSON: {e}")),
        };
        if let Err(why) = self.ingest_typed(items, false) {
            return error(StatusCode::BAD_REQUEST, why);
        }
        if let Some(client) = gone {
            self.page_gone(&client);
        }
        empty(StatusCode::NO_CONTENT)
    }

    /// The ingest path of typed entries (`POST {prefix}/logs`, and the `logs` of `POST {prefix}/results`):
    /// validates every entry first (`Err` names the first bad one; nothing is stored then), then
    /// stores each `(clientId, seq)` once. With `answer`, returns the stored entries, each once, in
    /// host `seq` order as `GET /console` lists them: the ones stored now, and those an earlier
    /// delivery stored, looked up (one the ring has evicted since is returned as sent, with `seq` 0).
    fn ingest_typed(&self, items: Vec<RawEntry>, answer: bool) -> Result<Vec<Arc<LogEntry>>, String> {
        let now = now_ms();
        let limits = self.limits();
        let clients = &self.inner.clients;
        let mut normalized = Vec::with_capacity(items.len());
        // Pages named earlier in this batch, for entries (network, dropped) that name none.
        let mut batch_pages: std::collections::HashMap<String, String> = Default::default();
        for (index, item) in items.into_iter().enumerate() {
            let page_of = |c: &str| batch_pages.get(c).cloned().or_else(|| clients.page_of(c));
            match normalize_typed(item, limits, page_of, now) {
                Ok(Some(n)) => {
                    let (client, page) = (&n.entry.client_id, &n.entry.page);
                    if !client.is_empty() && !page.is_empty() && batch_pages.get(client) != Some(page) {
                        batch_pages.insert(client.clone(), page.clone());
                    }
                    normalized.push(n);
                }
                Ok(None) => {}
                Err(why) => return Err(format!("entry {index} {why}")),
            }
        }
        // One registry lock for the batch: proof of life and each (clientId, seq) stored once.
        let origins: Vec<_> = normalized
            .iter()
            .map(|n| n.origin.as_ref().map(|(c, s)| (c.as_str(), *s, n.entry.page.as_str())))
            .collect();
        let first = clients.deliveries(&origins, now);
        if !answer {
            let fresh = normalized
                .into_iter()
                .zip(first)
                .filter(|(_, first)| *first)
                .map(|(n, _)| n.entry)
                .collect();
            self.store(fresh);
            return Ok(Vec::new());
        }
        let (fresh, known): (Vec<_>, Vec<_>) = normalized.into_iter().zip(first).partition(|(_, first)| *first);
        let stored = self.store_shared(fresh.into_iter().map(|(n, _)| n.entry).collect());
        let known_origins: Vec<(&str, u64)> = known
            .iter()
            .filter_map(|(n, _)| n.origin.as_ref().map(|(c, s)| (c.as_str(), *s)))
            .collect();
        let mut looked_up = self.inner.logs.find_origins(&known_origins).into_iter();
        let mut known_entries: Vec<Arc<LogEntry>> = Vec::with_capacity(known.len());
        for (n, _) in known {
            let found = if n.origin.is_some() {
                looked_up.next().flatten()
            } else {
                None
            };
            known_entries.push(found.unwrap_or_else(|| Arc::new(LogEntry { seq: 0, ..n.entry })));
        }
        let mut all: Vec<Arc<LogEntry>> = stored.into_iter().chain(known_entries).collect();
        all.sort_by_key(|e| e.seq);
        let mut seen = std::collections::HashSet::new();
        all.retain(|e| match e.client_seq {
            Some(s) if !e.client_id.is_empty() => seen.insert((e.client_id.clone(), s)),
            _ => true,
        });
        Ok(all)
    }

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

    fn console(&self, parts: &Parts) -> Response<Bytes> {
        let query = match LogQuery::parse(parts.uri.query()) {
            Ok(q) => q,
            Err(why) => return error(StatusCode::BAD_REQUEST, why),
        };
        let logs = self.inner.logs.query(&query);
        let now = now_ms();
        let record = self.target(query.client.as_deref(), now);
        let (page, alive, last, ago) = self.liveness(record.as_ref(), now);
        let body = json!({
            "count": logs.len(),
            "logs": logs.iter().map(|e| &**e).collect::<Vec<_>>(),
            "page": page,
            "clientId": record.as_ref().map(|r| r.client_id.as_str()),
            "clientPhase": record.as_ref().map_or("", |r| r.phase.as_str()),
            "clientAlive": alive,
            "lastSeenAt": last,
            "lastSeenAgoSec": ago,
            "lastSeq": self.inner.logs.last_seq(),
            "evicted": self.inner.logs.evicted(),
        });
        json_response(StatusCode::OK, &body)
    }

    fn page(&self) -> Response<Bytes> {
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
        json_response(
            StatusCode::OK,
            &json!({
                "page": page,
                "clientAlive": alive,
                "lastSeenAt": last,
                "lastSeenAgoSec": ago,
                "defaultTarget": target.map(|t| t.client_id),
                "rev": self.inner.tag_config.rev,
                "pages": pages,
            }),
        )
    }

    fn asset(&self, name: &str, parts: &Parts) -> Response<Bytes> {
        let asset = self.inner.assets.get(name).expect("route_of checked it");
        let gzip = asset.gzip.as_ref().filter(|_| accepts_gzip(&parts.headers));
        let mut res = Response::new(gzip.unwrap_or(&asset.body).clone());
        let h = res.headers_mut();
        if gzip.is_some() {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        );
        h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
        res
    }
}

/// Whether `Accept-Encoding` allows gzip: `gzip`, `x-gzip` or `*` with a q-value other than 0.
fn accepts_gzip(headers: &http::HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut it = item.split(';');
            let coding = it.next().unwrap_or("").trim();
            let refused = it.any(|p| {
                let p = p.trim().as_bytes();
                p.len() >= 2
                    && p[..2].eq_ignore_ascii_case(b"q=")
                    && std::str::from_utf8(&p[2..]).is_ok_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
            });
            !refused && (coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") || coding == "*")
        })
}

impl BrowserAgent {
    /// A 400 answer with `message` (for adapters that fail to read a body).
    pub fn bad_request(&self, message: &str) -> Response<Bytes> {
        error(StatusCode::BAD_REQUEST, message)
    }
}

enum Dispatch {
    Now(Response<Bytes>),
    Later(BoxFuture),
}

/// The MindStudio failure event ([`RunError::event`]), also readable as a plain `{"error"}` body.
fn command_error(err: &RunError) -> Response<Bytes> {
    let status = match err {
        RunError::BadRequest(_) => StatusCode::BAD_REQUEST,
        RunError::NoBrowser(_) | RunError::UnknownPage(..) | RunError::PageClosed(..) | RunError::PageLeft { .. } => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        RunError::QueueFull => StatusCode::TOO_MANY_REQUESTS,
        RunError::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
    };
    json_response(status, &serde_json::to_value(err.event()).expect("events serialize"))
}

/// `gone=1&client=ID` of a `POST {prefix}/logs`: the client that says it left, if any.
fn gone_param(parts: &Parts) -> Result<Option<String>, String> {
    let mut gone = false;
    let mut client = String::new();
    for (name, value) in util::query_pairs(parts.uri.query()) {
        match name.as_str() {
            param::GONE => {
                gone =
                    parse_flag(&value).ok_or_else(|| format!("invalid gone {value:?}: use 1 (the page left) or 0"))?
            }
            param::CLIENT => client = value,
            _ => {}
        }
    }
    if !gone {
        return Ok(None);
    }
    if client.is_empty() || client.len() > MAX_ID_LEN {
        return Err(format!(
            "gone=1 needs the parameter \"client\" (the page's client id, at most {MAX_ID_LEN} chars)"
        ));
    }
    Ok(Some(client))
}

/// `1`/`true` or `0`/`false` (ASCII case-insensitive); `None` for anything else.
fn parse_flag(value: &str) -> Option<bool> {
    match value.trim() {
        "1" => Some(true),
        "0" => Some(false),
        v if v.eq_ignore_ascii_case("true") => Some(true),
        v if v.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

impl BrowserAgent {
    /// `GET {prefix}/commands?client=&wait=`: the page's poll. Without `wait` it answers at once
    /// (`200` [`Delivery`] or 204), as the MindStudio client expects; with `wait` (ms, capped at
    /// [`POLL_WAIT_MS`]) it returns the moment a batch is queued, or 204 at the end.
    fn commands_poll(&self, parts: &Parts) -> Dispatch {
        let mut client = String::new();
        let mut tab: Option<String> = None;
        let mut wait = Duration::ZERO;
        for (name, value) in util::query_pairs(parts.uri.query()) {
            match name.as_str() {
                param::CLIENT => client = value,
                param::TAB if !value.is_empty() && value.len() <= MAX_ID_LEN => tab = Some(value),
                param::WAIT => match value.trim().parse::<u64>() {
                    Ok(ms) => wait = Duration::from_millis(ms.min(POLL_WAIT_MS)),
                    Err(_) => {
                        return Dispatch::Now(error(
                            StatusCode::BAD_REQUEST,
                            format!("invalid wait {value:?}: expected milliseconds"),
                        ))
                    }
                },
                _ => {}
            }
        }
        if client.is_empty() || client.len() > MAX_ID_LEN {
            return Dispatch::Now(error(
                StatusCode::BAD_REQUEST,
                format!("parameter \"client\" (the page's client id, at most {MAX_ID_LEN} chars) is required"),
            ));
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
    fn results_post(&self, body: &Bytes) -> Response<Bytes> {
        let value: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => return error(StatusCode::BAD_REQUEST, format!("body is not valid JSON: {e}")),
        };
        let mut results = Results::from_value(value);
        let Some(id) = results.id.clone() else {
            return error(StatusCode::BAD_REQUEST, "field \"id\" (the batch id) must be a string");
        };
        let mut items: Vec<RawEntry> = match results.logs.take() {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.into_iter().map(RawEntry::from_value).collect(),
            Some(_) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "field \"logs\" must be an array of log entries ({\"type\":\"console\",…})",
                )
            }
        };
        // Entries that name no page are the page's that ran the batch.
        if let Some(client) = self.inner.commands.client_of(&id) {
            items.iter_mut().for_each(|item| item.default_client(&client));
        }
        let logs = match self.ingest_typed(items, true) {
            Ok(stored) => stored,
            Err(why) => return error(StatusCode::BAD_REQUEST, format!("field \"logs\": {why}")),
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

    /// `POST {prefix}/run {"steps":[…],"client"?,"timeoutMs"?}`.
    fn run_route(&self, parts: &Parts, body: &Bytes) -> Dispatch {
        let json_type = parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim().to_ascii_lowercase().starts_with("application/json"));
        if !json_type {
            return Dispatch::Now(error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "POST /run needs Content-Type: application/json (so a cross-site form cannot send it)",
            ));
        }
        let batch = match Batch::from_json(body) {
            Ok(b) => b,
            Err(err) => return Dispatch::Now(command_error(&err)),
        };
        let origin = app_origin(parts);
        let agent = self.clone();
        Dispatch::Later(Box::pin(async move {
            match agent.run_with_hint(batch, origin).await {
                Ok(result) => json_response(StatusCode::OK, &serde_json::to_value(&result).expect("serializable")),
                Err(err) => command_error(&err),
            }
        }))
    }

    /// `GET {prefix}/snapshot?client=&diff=`: a snapshot without writing a batch.
    fn snapshot_route(&self, parts: &Parts) -> Dispatch {
        let mut client = None;
        let mut diff = false;
        for (name, value) in util::query_pairs(parts.uri.query()) {
            match name.as_str() {
                param::CLIENT if !value.is_empty() => client = Some(value),
                "diff" if !value.is_empty() => match parse_flag(&value) {
                    Some(flag) => diff = flag,
                    None => {
                        return Dispatch::Now(error(
                            StatusCode::BAD_REQUEST,
                            format!("invalid diff {value:?}: use true or 1 (only what changed since the last snapshot), false or 0"),
                        ))
                    }
                },
                _ => {}
            }
        }
        let origin = app_origin(parts);
        let agent = self.clone();
        Dispatch::Later(Box::pin(async move {
            let mut batch = Batch::new(vec![json!({(field::COMMAND): "snapshot", "diff": diff})]);
            batch.client = client;
            match agent.run_with_hint(batch, origin).await {
                Ok(result) => {
                    let step = result.steps.first();
                    match step.and_then(|s| s.result_str()) {
                        Some(text) => json_response(
                            StatusCode::OK,
                            &json!({(field::SNAPSHOT): text, (field::CLIENT_ID): result.client_id, "diff": diff}),
                        ),
                        None => {
                            let why = step
                                .and_then(|s| s.error.as_deref())
                                .unwrap_or("the page sent no snapshot");
                            command_error(&RunError::BadRequest(why.to_owned()))
                        }
                    }
                }
                Err(err) => command_error(&err),
            }
        }))
    }
}

impl BrowserAgent {
    /// `GET {prefix}/actions?client=`: the page's action log (every executed step, with its time,
    /// target label and box, and the viewport), default page when no client is named.
    fn actions(&self, parts: &Parts) -> Response<Bytes> {
        let client = util::query_pairs(parts.uri.query())
            .find(|(k, _)| k == param::CLIENT)
            .map(|(_, v)| v);
        let now = now_ms();
        let Some(record) = self.target(client.as_deref().filter(|c| !c.is_empty()), now) else {
            return json_response(StatusCode::OK, &json!({"clientId": null, "actions": []}));
        };
        let actions = self.inner.commands.actions(&record.client_id);
        json_response(
            StatusCode::OK,
            &json!({"clientId": record.client_id, "page": record.page, "actions": actions}),
        )
    }
}

/// `http://{Host}/`: where the agent's own request says the app is (named when no page is open).
fn app_origin(parts: &Parts) -> Option<String> {
    parts
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|h| format!("http://{h}/"))
}

fn batch_response(batch: &Delivery) -> Response<Bytes> {
    let body = serde_json::to_vec(batch).expect("batches serialize");
    let mut res = Response::new(Bytes::from(body));
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

#[cfg(test)]
mod tests {
    use super::accepts_gzip;
    use http::{header::ACCEPT_ENCODING, HeaderMap, HeaderValue};

    fn accepts(values: &[&str]) -> bool {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        }
        accepts_gzip(&h)
    }

    #[test]
    fn gzip_is_served_only_when_accepted() {
        assert!(accepts(&["gzip, deflate, br, zstd"]));
        assert!(accepts(&["br", "GZip;q=0.5"]));
        assert!(accepts(&["x-gzip"]));
        assert!(accepts(&["*"]));
        assert!(!accepts(&[]));
        assert!(!accepts(&["br, deflate"]));
        assert!(!accepts(&["gzip;q=0"]));
        assert!(!accepts(&["gzip; q=0.000, identity"]));
        assert!(!accepts(&["gzipped"]));
        // A value that is not ASCII is ignored (without panicking).
        assert!(!accepts(&["gzip;q=é"]));
    }
}
