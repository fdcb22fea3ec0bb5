//! [`ResponseBody`]: one of our answers, the app's body untouched, or its HTML with the tag streamed in.

use std::pin::Pin;
use std::task::{Context, Poll};

use browser_agent_core::adapter::InjectingStream;
use bytes::Bytes;
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

pin_project! {
    /// The response body of [`BrowserAgentService`](crate::BrowserAgentService): one of our answers,
    /// the app's body untouched, or the app's HTML with the client tag streamed in. Its size hint
    /// counts the tag, so a sized page stays sized.
    ///
    /// ```
    /// use browser_agent_tower::{BrowserAgent, BrowserAgentService, ResponseBody};
    /// use http_body::Body;
    /// use tower::{service_fn, ServiceExt};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let page = "<html><head></head></html>";
    /// let app = service_fn(move |_req: http::Request<String>| async move {
    ///     let res = http::Response::builder().header("content-type", "text/html").body(page.to_string()).unwrap();
    ///     Ok::<_, std::convert::Infallible>(res)
    /// });
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let svc = BrowserAgentService::new(app, agent.clone());
    /// let req = http::Request::get("/").header("host", "127.0.0.1").body(String::new()).unwrap();
    /// let body: ResponseBody<String> = svc.oneshot(req).await.unwrap().into_body();
    /// assert_eq!(body.size_hint().exact(), Some((page.len() + agent.tag().len()) as u64));
    /// # });
    /// ```
    pub struct ResponseBody<B> {
        #[pin]
        kind: Kind<B>,
    }
}

pin_project! {
    #[project = KindProj]
    enum Kind<B> {
        Full { data: Option<Bytes> },
        Passthrough { #[pin] body: B },
        // The injection state is boxed: inline it made every response ~260 bytes larger, and
        // responses are moved several times on their way out (for all requests, not only pages).
        Inject { #[pin] body: B, state: Box<InjectState> },
    }
}

struct InjectState {
    stream: InjectingStream,
    trailers: Option<HeaderMap>,
}

impl<B> std::fmt::Debug for ResponseBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.kind {
            Kind::Full { .. } => "Full",
            Kind::Passthrough { .. } => "Passthrough",
            Kind::Inject { .. } => "Inject",
        };
        f.debug_struct("ResponseBody").field("kind", &kind).finish()
    }
}

impl<B> ResponseBody<B> {
    /// One of our answers (or any complete body). Public, like [`passthrough`](Self::passthrough)
    /// and [`inject`](Self::inject), for tools that route requests themselves (the
    /// `browser-agent` CLI's proxy).
    ///
    /// ```
    /// use browser_agent_tower::ResponseBody;
    /// use http_body::Body;
    /// let body: ResponseBody<String> = ResponseBody::full("hi");
    /// assert_eq!(body.size_hint().exact(), Some(2));
    /// ```
    pub fn full(data: impl Into<Bytes>) -> Self {
        let data = data.into();
        ResponseBody {
            kind: Kind::Full {
                data: (!data.is_empty()).then_some(data),
            },
        }
    }

    /// The app's (or upstream's) body, untouched.
    ///
    /// ```
    /// use browser_agent_tower::ResponseBody;
    /// use http_body::Body;
    /// let body = ResponseBody::passthrough(String::from("app"));
    /// assert_eq!(body.size_hint().exact(), Some(3));
    /// ```
    pub fn passthrough(body: B) -> Self {
        ResponseBody {
            kind: Kind::Passthrough { body },
        }
    }

    /// An HTML body with `tag` streamed in at the place core's scanner finds (see
    /// `browser_agent_core::adapter::InjectingStream`).
    ///
    /// ```
    /// use browser_agent_tower::ResponseBody;
    /// use http_body::Body;
    /// let body = ResponseBody::inject(String::from("<head></head>"), bytes::Bytes::from_static(b"<script></script>"));
    /// assert!(!body.is_end_stream());
    /// ```
    pub fn inject(body: B, tag: Bytes) -> Self {
        ResponseBody {
            kind: Kind::Inject {
                body,
                state: Box::new(InjectState {
                    stream: InjectingStream::new(tag),
                    trailers: None,
                }),
            },
        }
    }
}

impl<B> Body for ResponseBody<B>
where
    B: Body<Data = Bytes>,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        match self.project().kind.project() {
            KindProj::Full { data } => Poll::Ready(data.take().map(|d| Ok(Frame::data(d)))),
            KindProj::Passthrough { body } => body.poll_frame(cx),
            KindProj::Inject { mut body, state } => loop {
                let InjectState { stream, trailers } = &mut **state;
                if let Some(chunk) = stream.next() {
                    return Poll::Ready(Some(Ok(Frame::data(chunk))));
                }
                if stream.inner_done() {
                    return Poll::Ready(trailers.take().map(|t| Ok(Frame::trailers(t))));
                }
                match body.as_mut().poll_frame(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                    Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                        Ok(data) => stream.push(data),
                        Err(frame) => {
                            // Trailers end the data: place the tag first, send them last.
                            *trailers = frame.into_trailers().ok();
                            stream.end();
                        }
                    },
                    Poll::Ready(None) => stream.end(),
                }
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Full { data } => data.is_none(),
            Kind::Passthrough { body } => body.is_end_stream(),
            Kind::Inject { state, .. } => state.stream.is_finished() && state.trailers.is_none(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Full { data } => SizeHint::with_exact(data.as_ref().map_or(0, |d| d.len() as u64)),
            Kind::Passthrough { body } => body.size_hint(),
            Kind::Inject { body, state } => {
                let extra = state.stream.extra_len();
                let inner = if state.stream.inner_done() {
                    SizeHint::with_exact(0)
                } else {
                    body.size_hint()
                };
                let mut hint = SizeHint::new();
                hint.set_lower(inner.lower() + extra);
                if let Some(upper) = inner.upper() {
                    hint.set_upper(upper + extra);
                }
                hint
            }
        }
    }
}
