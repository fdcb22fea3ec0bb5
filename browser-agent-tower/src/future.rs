use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use browser_agent_core::{BrowserAgent, Injection};
use bytes::{Buf, Bytes, BytesMut};
use http::{Request, Response};
use http_body::Body;
use http_body_util::BodyExt;
use pin_project_lite::pin_project;

use crate::ResponseBody;

type OursFuture = Pin<Box<dyn Future<Output = Response<Bytes>> + Send>>;

pin_project! {
    /// The future of [`BrowserAgentService`](crate::BrowserAgentService).
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
                    Injection::None | Injection::HeadersOnly => ResponseBody::passthrough(body),
                };
                Poll::Ready(Ok(Response::from_parts(parts, body)))
            }
        }
    }
}

/// Answers one of our requests: refuse early on the head, read the body up to the limit (never
/// further), then let core answer.
pub(crate) fn answer<B>(agent: BrowserAgent, req: Request<B>) -> OursFuture
where
    B: Body + Send + 'static,
    B::Data: Send,
{
    Box::pin(async move {
        let (parts, body) = req.into_parts();
        if let Err(refusal) = agent.preflight(&parts) {
            return refusal;
        }
        let limit = agent.config().body_limit();
        let mut body = std::pin::pin!(body);
        let mut buf = BytesMut::new();
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else {
                return agent.bad_request("the request body could not be read");
            };
            if let Ok(mut data) = frame.into_data() {
                if buf.len() + data.remaining() > limit {
                    return agent.payload_too_large();
                }
                while data.has_remaining() {
                    let chunk = data.chunk();
                    buf.extend_from_slice(chunk);
                    let n = chunk.len();
                    data.advance(n);
                }
            }
        }
        let req = Request::from_parts(parts, buf.freeze());
        match agent.handle(req).await {
            Ok(res) => res,
            Err(never) => match never {},
        }
    })
}
