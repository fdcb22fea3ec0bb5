//! [`BrowserAgentService`]: our routes to core, everything else to the app, the tag into its HTML.

use std::task::{Context, Poll};
use std::time::Instant;

use browser_agent_core::adapter::{AdapterExt, InjectExt};
use browser_agent_core::BrowserAgent;
use bytes::Bytes;
use http::{Method, Request, Response};
use http_body::Body;
use tower_service::Service;

use crate::future::{ResponseFuture, Seen};
use crate::ours;
use crate::ResponseBody;

/// The service [`BrowserAgentLayer`](crate::BrowserAgentLayer) makes: answers our routes through
/// core, passes everything else to `S`, and streams the client tag into `S`'s HTML documents.
///
/// ```
/// use browser_agent_tower::{BrowserAgent, BrowserAgentService};
/// use tower::{service_fn, ServiceExt};
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let app = service_fn(|_req: http::Request<String>| async {
///     let res = http::Response::builder()
///         .header("content-type", "text/html")
///         .body("<!doctype html><html><head><title>t</title></head></html>".to_string())
///         .unwrap();
///     Ok::<_, std::convert::Infallible>(res)
/// });
/// let agent = BrowserAgent::builder().enabled(true).page_key("docs-key-123").build();
/// let svc = BrowserAgentService::new(app, agent);
/// let req = http::Request::get("/").header("host", "127.0.0.1").body(String::new()).unwrap();
/// let res = svc.oneshot(req).await.unwrap();
/// let html = http_body_util::BodyExt::collect(res.into_body()).await.unwrap().to_bytes();
/// assert!(std::str::from_utf8(&html).unwrap().contains("<head><script data-browser-agent="));
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct BrowserAgentService<S> {
    inner: S,
    agent: BrowserAgent,
}

impl<S> BrowserAgentService<S> {
    /// Wraps `inner` with `agent`.
    pub fn new(inner: S, agent: BrowserAgent) -> Self {
        BrowserAgentService { inner, agent }
    }

    /// The shared agent.
    pub fn agent(&self) -> &BrowserAgent {
        &self.agent
    }

    /// The wrapped service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped service, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Unwraps the inner service.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for BrowserAgentService<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    ReqBody: Body + Send + 'static,
    ReqBody::Data: Send,
    ResBody: Body<Data = Bytes>,
{
    type Response = Response<ResponseBody<ResBody>>;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<ReqBody>) -> Self::Future {
        let agent = &self.agent;
        if agent.is_ours(req.uri().path()) {
            return ResponseFuture::ours(Box::pin(ours::answer(agent.clone(), req)));
        }
        let started = Instant::now();
        let inject = agent.wants_injection(&req);
        let head = req.method() == Method::HEAD;
        // What a 5xx entry names; nothing to keep when the agent is off.
        let seen = agent.config().enabled().then(|| Seen {
            agent: agent.clone(),
            method: req.method().clone(),
            path: req.uri().path_and_query().cloned(),
            started,
        });
        ResponseFuture::app(self.inner.call(req), seen, inject, head)
    }
}
