//! [`ResponseFuture`]: one of our answers, or the app's response with its HTML planned for injection.

use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use browser_agent_core::adapter::{InjectExt, Injection};
use browser_agent_core::BrowserAgent;
use bytes::Bytes;
use http::Response;
use http_body::Body;
use pin_project_lite::pin_project;

use crate::ours::OursFuture;
use crate::ResponseBody;

pin_project! {
    /// The future of [`BrowserAgentService`](crate::BrowserAgentService): one of our answers, or
    /// the app's response with its HTML body planned for injection.
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
    pub struct ResponseFuture<F> {
        #[pin]
        kind: Kind<F>,
    }
}

pin_project! {
    #[project = KindProj]
    enum Kind<F> {
        Ours { fut: OursFuture },
        App { #[pin] fut: F, agent: Option<BrowserAgent>, head: bool },
    }
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

    pub(crate) fn app(fut: F, agent: Option<BrowserAgent>, head: bool) -> Self {
        ResponseFuture {
            kind: Kind::App { fut, agent, head },
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
            KindProj::App { fut, agent, head } => {
                let res = ready!(fut.poll(cx))?;
                let Some(agent) = agent.take() else {
                    return Poll::Ready(Ok(res.map(ResponseBody::passthrough)));
                };
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
