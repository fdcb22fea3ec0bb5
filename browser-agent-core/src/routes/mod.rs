//! Our routes, implemented once: [`BrowserAgent`] is a tower `Service` over `http::Request<Bytes>`.
//! Adapters call [`BrowserAgent::preflight`] on the head (so a refused or oversized request is
//! answered without reading its body), read the body up to [`Config::body_limit`](crate::Config::body_limit),
//! then call the service. This file routes and checks; the handlers live by audience in
//! [`browser`] (the page client's routes), [`agent`] (the agent's) and [`assets`] (public).

// A refusal is a whole response, built on the cold path; boxing it would only move the cost.
#![allow(clippy::result_large_err)]

mod agent;
mod assets;
mod browser;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod hardening_tests;
mod mcp;
mod notes;
mod proof;
mod reader;
pub(crate) mod response;
mod screenshots;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod time_tests;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{header, request::Parts, Method, Request, Response};

use crate::error::Refusal;
use crate::protocol;
use crate::security;
use crate::BrowserAgent;
pub(crate) use agent::app_origin;
pub use reader::BodyReader;
use response::failure;

/// Who a route serves, which decides its checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Called by the injected client: loopback Host; writes need the page key.
    Browser,
    /// Called by the agent: loopback Host, same-origin Origin, bearer token when configured.
    Agent,
    /// Called by an MCP client: loopback Host, no `Origin` unless allowed, bearer token when
    /// configured, JSON bodies.
    Mcp,
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
    Mcp,
    Screenshots,
    ScreenshotFile(String),
    Proof(ProofRoute),
    /// `{prefix}/notes`: POST by the page, GET and DELETE by the agent.
    Notes,
    /// `{prefix}/notes/{id}`: DELETE by the agent.
    Note(String),
    Asset(String),
}

impl Route {
    fn methods(&self) -> &'static [Method] {
        match self {
            Route::Probe => &[Method::GET, Method::HEAD, Method::POST],
            Route::Logs | Route::Results | Route::Run | Route::Screenshots => &[Method::POST],
            // GET: the event stream that says when the pages' own tools change.
            Route::Mcp => &[Method::GET, Method::POST],
            Route::Proof(ProofRoute::Status | ProofRoute::Summary(_)) => &[Method::GET, Method::HEAD],
            Route::Proof(_) => &[Method::POST],
            Route::Snapshot => &[Method::GET, Method::HEAD, Method::POST],
            Route::Console | Route::Page | Route::Commands | Route::Actions | Route::ScreenshotFile(_) => {
                &[Method::GET, Method::HEAD]
            }
            Route::Asset(_) => &[Method::GET, Method::HEAD],
            Route::Notes => &[Method::GET, Method::HEAD, Method::POST, Method::DELETE],
            Route::Note(_) => &[Method::DELETE],
        }
    }

    fn access(&self, method: &Method) -> Access {
        match self {
            // The page sends notes; the agent reads and clears them.
            Route::Notes if method == Method::POST => Access::Browser,
            Route::Notes | Route::Note(_) => Access::Agent,
            Route::Probe | Route::Logs | Route::Commands | Route::Results | Route::Screenshots => Access::Browser,
            Route::Console
            | Route::Page
            | Route::Run
            | Route::Snapshot
            | Route::Actions
            | Route::ScreenshotFile(_)
            | Route::Proof(_) => Access::Agent,
            Route::Mcp => Access::Mcp,
            Route::Asset(_) => Access::Public,
        }
    }
}

/// The proof session's routes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ProofRoute {
    Status,
    Start,
    Stop,
    Compare,
    Summary(String),
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
        self.answer(req)
    }
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
            protocol::MCP_PATH => Some(Route::Mcp),
            protocol::SCREENSHOTS_PATH => Some(Route::Screenshots),
            protocol::PROOF_PATH => Some(Route::Proof(ProofRoute::Status)),
            protocol::NOTES_PATH => Some(Route::Notes),
            _ if rest.starts_with(protocol::NOTES_PATH) => rest
                .strip_prefix(protocol::NOTES_PATH)
                .and_then(|r| r.strip_prefix('/'))
                .filter(|id| !id.is_empty() && !id.contains('/'))
                .map(|id| Route::Note(id.to_owned())),
            _ if rest.starts_with(protocol::PROOF_PATH) => {
                let sub = rest.strip_prefix(protocol::PROOF_PATH)?.strip_prefix('/')?;
                match sub {
                    "start" => Some(Route::Proof(ProofRoute::Start)),
                    "stop" => Some(Route::Proof(ProofRoute::Stop)),
                    "compare" => Some(Route::Proof(ProofRoute::Compare)),
                    _ => sub
                        .strip_suffix("/summary")
                        .filter(|id| !id.is_empty() && !id.contains('/'))
                        .map(|id| Route::Proof(ProofRoute::Summary(id.to_owned()))),
                }
            }
            _ if rest.starts_with(protocol::SCREENSHOTS_PATH) => rest
                .strip_prefix(protocol::SCREENSHOTS_PATH)
                .and_then(|r| r.strip_prefix('/'))
                .filter(|name| !name.is_empty() && !name.contains('/'))
                .map(|name| Route::ScreenshotFile(name.to_owned())),
            _ => rest
                .strip_prefix(protocol::ASSETS_DIR)
                .filter(|name| self.inner.assets.get(name).is_some())
                .map(|name| Route::Asset(name.to_owned())),
        }
    }

    /// Checks a request's head: route (404), method (405 with `Allow`), Host/Origin/key/token (403),
    /// declared length (413). `Err` is the response to send without reading the body.
    ///
    /// Adapters reach it through [`BodyReader::begin`]:
    ///
    /// ```
    /// use browser_agent_core::{adapter::BodyReader, BrowserAgent};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let req = http::Request::builder().method("DELETE").uri("/__mindstudio_dev__/console")
    ///     .header("host", "127.0.0.1:3000").body(()).unwrap();
    /// let res = BodyReader::begin(&agent, req.into_parts().0).unwrap_err();
    /// assert_eq!(res.status(), 405);
    /// assert_eq!(res.headers()["allow"], "GET, HEAD");
    /// ```
    pub(crate) fn preflight(&self, parts: &Parts) -> Result<(), Refusal> {
        let route = self.route_of(parts.uri.path()).ok_or_else(|| Refusal::NotFound {
            method: parts.method.to_string(),
            path: parts.uri.path().to_owned(),
        })?;
        self.check(&route, parts)
    }

    fn check(&self, route: &Route, parts: &Parts) -> Result<(), Refusal> {
        let config = &self.inner.config;
        if route.access(&parts.method) == Access::Mcp {
            // Before the method: a browser's request is refused for what it is, whatever it asks.
            security::check_host(&parts.headers, &parts.uri, &config.allowed_hosts)?;
            security::check_mcp_origin(parts, &config.mcp_origins)?;
        }
        let methods = route.methods();
        if !methods.contains(&parts.method) {
            return Err(Refusal::MethodNotAllowed {
                method: parts.method.to_string(),
                path: parts.uri.path().to_owned(),
                allow: methods.iter().map(Method::as_str).collect::<Vec<_>>().join(", "),
            });
        }
        match route.access(&parts.method) {
            Access::Public => {}
            Access::Browser => {
                security::check_host(&parts.headers, &parts.uri, &config.allowed_hosts)?;
                let needs_key = parts.method == Method::POST || matches!(route, Route::Commands);
                if needs_key && !self.key_ok(parts) {
                    return Err(Refusal::NoKey);
                }
            }
            Access::Agent => {
                security::check_host(&parts.headers, &parts.uri, &config.allowed_hosts)?;
                security::check_origin(parts)?;
                security::check_fetch_site(parts)?;
                security::check_bearer(parts, config.bearer_token.as_deref())?;
                self.agent_called();
            }
            Access::Mcp => {
                security::check_bearer(parts, config.bearer_token.as_deref())?;
                self.agent_called();
                if parts.method == Method::POST && !security::is_json(&parts.headers) {
                    return Err(Refusal::McpNotJson {
                        path: parts.uri.path().to_owned(),
                    });
                }
            }
        }
        let declared = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.body_limit_of(route) as u64) {
            return Err(self.too_large_for(route));
        }
        Ok(())
    }

    /// The answer to a refused request: `{"error"}`, or on the MCP endpoint a JSON-RPC error
    /// without an `id` (as the MCP transport allows), with the same status and text.
    pub(crate) fn refuse(&self, path: &str, refusal: &Refusal) -> Response<Bytes> {
        if self.route_of(path) == Some(Route::Mcp) {
            response::rpc_refusal(refusal)
        } else {
            failure(refusal)
        }
    }

    fn key_ok(&self, parts: &Parts) -> bool {
        security::presented_key(parts).is_some_and(|k| security::same_secret(&k, &self.inner.key))
    }

    /// The body limit of a route: the screenshot upload's own, every other route's [`Config::body_limit`](crate::Config::body_limit).
    fn body_limit_of(&self, route: &Route) -> usize {
        match route {
            Route::Screenshots => self.inner.config.screenshot_upload_limit,
            _ => self.inner.config.body_limit,
        }
    }

    /// The body limit of the route at `path`.
    pub(crate) fn body_limit_at(&self, path: &str) -> usize {
        self.route_of(path)
            .map_or(self.inner.config.body_limit, |r| self.body_limit_of(&r))
    }

    /// The refusal of a body over the route's limit.
    fn too_large_for(&self, route: &Route) -> Refusal {
        Refusal::TooLarge {
            limit: self.body_limit_of(route),
        }
    }

    /// The refusal of a body over the limit of the route at `path`.
    pub(crate) fn too_large(&self, path: &str) -> Refusal {
        Refusal::TooLarge {
            limit: self.body_limit_at(path),
        }
    }

    /// Answers one of our requests ([`AdapterExt::handle`](crate::adapter::AdapterExt::handle)).
    /// Never panics; every error is JSON.
    pub(crate) fn answer(&self, req: Request<Bytes>) -> RouteFuture {
        let (parts, body) = req.into_parts();
        let head = parts.method == Method::HEAD;
        // A HEAD answer is the GET's without its body: its length stays what the GET's would be
        // (the server would otherwise say 0 for the empty body).
        let strip = move |mut res: Response<Bytes>| {
            if head {
                let len = res.body().len();
                if !res.headers().contains_key(http::header::CONTENT_LENGTH) {
                    res.headers_mut()
                        .insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(len));
                }
                *res.body_mut() = Bytes::new();
            }
            res
        };
        let inner = match self.preflight(&parts) {
            Err(refusal) => Answer::Ready(Some(self.refuse(parts.uri.path(), &refusal))),
            Ok(()) if body.len() > self.body_limit_at(parts.uri.path()) => {
                Answer::Ready(Some(self.refuse(parts.uri.path(), &self.too_large(parts.uri.path()))))
            }
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
            Route::Snapshot => return self.snapshot_route(parts, body),
            Route::Mcp => return self.mcp_route(parts, body),
            _ => {}
        }
        now(match route {
            Route::Probe if parts.method == Method::POST => self.probe_post(parts, body),
            Route::Probe => self.probe_get(parts),
            Route::Logs => self.logs_post(parts, body),
            Route::Console => self.console(parts),
            Route::Page => match unknown_param(&crate::util::Params::parse(parts.uri.query()), parts, &[]) {
                Some(refused) => refused,
                None => self.page(),
            },
            Route::Asset(name) => self.asset(&name, parts),
            Route::Results => self.results_post(body),
            Route::Actions => self.actions(parts),
            Route::Screenshots => self.screenshot_upload(parts, body),
            Route::ScreenshotFile(name) => self.screenshot_file(&name),
            Route::Proof(route) => self.proof_route(route, parts, body),
            Route::Notes => self.notes_route(None, parts, body),
            Route::Note(id) => self.notes_route(Some(&id), parts, body),
            Route::Commands | Route::Run | Route::Snapshot | Route::Mcp => unreachable!("answered above"),
        })
    }
}

/// A 400 naming the first of `params` (the query of `parts`) that is not one of `takes` (a typo
/// is said, not ignored, as `/console` and `/run` do); `None` when all are.
pub(super) fn unknown_param(params: &crate::util::Params, parts: &Parts, takes: &[&str]) -> Option<Response<Bytes>> {
    let (name, _) = params.iter().find(|(name, _)| !takes.contains(name))?;
    let takes = if takes.is_empty() {
        "no parameters".to_owned()
    } else {
        takes.join(", ")
    };
    Some(response::error(
        http::StatusCode::BAD_REQUEST,
        format!("unknown parameter {name:?}: {} takes {takes}", parts.uri.path()),
    ))
}

/// A route's answer: now, or when the batch or long-poll it waits for ends.
enum Dispatch {
    Now(Response<Bytes>),
    Later(BoxFuture),
}
