//! [`ResponseFuture`]: one of our answers, or the app's response with its HTML planned for
//! injection and, when it is a 5xx, recorded as a `server` entry.

use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use browser_agent_core::adapter::{AdapterExt, InjectExt, Injection};
use browser_agent_core::BrowserAgent;
use bytes::Bytes;
use http::uri::PathAndQuery;
use http::{Method, Response};
use http_body::Body;
use pin_project_lite::pin_project;

use crate::ours::OursFuture;
use crate::ResponseBody;

pin_project! {
    /// The future of [`BrowserAgentService`](crate::BrowserAgentService): one of our answers, or
    /// the app's response with its HTML body planned for injection. When the app's response head
    /// is a 5xx, it is recorded as a `server` entry (method, path, status, the time since the
    /// request arrived: [`BrowserAgent::record_response`]); our own answers never are.
    ///
    /// ```
    /// use browser_agent_tower::{BrowserAgent, BrowserAgentService, ResponseFuture};
    /// use tower::{service_fn, Service};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = service_fn(|_req: http::Request<String>| async {
    ///     Ok::<_, std::convert::Infallible>(http::Response::new(String::from("app")))
    /// });
    /// let mut svc = BrowserAgentService::new(app, BrowserAgent::builder().enabled(true).build());
    /// let req = http::Request::get("/browser/probe").header("host", "127.0.0.1").body(String::new()).unwrap();
    /// let fut: ResponseFuture<_> = svc.call(req);
    /// assert_eq!(fut.await.unwrap().status(), 200);
    /// # });
    /// ```
    ///
    /// An app answer that is a 5xx is in the log, with the path the app got:
    ///
    /// ```
    /// use browser_agent_tower::{BrowserAgent, BrowserAgentService, LogQuery};
    /// use tower::{service_fn, ServiceExt};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let app = service_fn(|_req: http::Request<String>| async {
    ///     let res = http::Response::builder().status(503).body(String::from("down")).unwrap();
    ///     Ok::<_, std::convert::Infallible>(res)
    /// });
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let svc = BrowserAgentService::new(app, agent.clone());
    /// let req = http::Request::get("/api/items?page=2").header("host", "127.0.0.1").body(String::new()).unwrap();
    /// assert_eq!(svc.oneshot(req).await.unwrap().status(), 503);
    /// let entry = &agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap())[0];
    /// assert!(entry.text.starts_with("GET /api/items?page=2 → 503 Service Unavailable ("));
    /// # });
    /// ```
    pub struct ResponseFuture<F> {
        #[pin]
        kind: Kind<F>,
    }
}

pin_project! {
    #[project = KindProj]
    enum Kind<F> {
        Ours { fut: OursFuture },
        App { #[pin] fut: F, seen: Option<Seen>, inject: bool, head: bool },
    }
}

/// What the service keeps of an app request to name it if the answer is a 5xx (`None` when the
/// agent is off): an `Arc`, the method (no allocation for the standard ones), the path and query
/// (its bytes shared with the request's, as hyper parses them), and the time. Measured against
/// copying the path inline: the bigger future cost more in moves than the refcount.
#[derive(Debug)]
pub(crate) struct Seen {
    pub(crate) agent: BrowserAgent,
    pub(crate) method: Method,
    pub(crate) path: Option<PathAndQuery>,
    pub(crate) started: Instant,
}

impl<F> std::fmt::Debug for ResponseFuture<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseFuture").finish_non_exhaustive()
    }
}

impl<F> ResponseFuture<F> {
    pub(crate) fn ours(fut: OursFuture) -> Self {
        ResponseFuture {
            kind: Kind::Ours { fut },
        }
    }

    pub(crate) fn app(fut: F, seen: Option<Seen>, inject: bool, head: bool) -> Self {
        ResponseFuture {
            kind: Kind::App {
                fut,
                seen,
                inject,
                head,
            },
        }
    }
}

impl<F, B, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
    B: Body<Data = Bytes>,
{
    type Output = Result<Response<ResponseBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().kind.project() {
            KindProj::Ours { fut } => {
                let res = ready!(fut.as_mut().poll(cx));
                Poll::Ready(Ok(res.map(ResponseBody::full)))
            }
            KindProj::App {
                fut,
                seen,
                inject,
                head,
            } => {
                let res = ready!(fut.poll(cx))?;
                let Some(seen) = seen.take() else {
                    return Poll::Ready(Ok(res.map(ResponseBody::passthrough)));
                };
                let status = res.status().as_u16();
                let path = seen.path.as_ref().map_or("/", |p| p.as_str());
                seen.agent
                    .record_response(seen.method.as_str(), path, status, seen.started);
                if !*inject {
                    return Poll::Ready(Ok(res.map(ResponseBody::passthrough)));
                }
                let agent = seen.agent;
                let (mut parts, body) = res.into_parts();
                let body_len = body.size_hint().exact();
                let body = match agent.plan_injection(parts.status, &mut parts.headers, *head, body_len) {
                    Injection::Body(tag) => ResponseBody::inject(body, tag),
                    Injection::Untouched | Injection::HeadersOnly => ResponseBody::passthrough(body),
                };
                Poll::Ready(Ok(Response::from_parts(parts, body)))
            }
        }
    }
}
