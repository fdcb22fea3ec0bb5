//! [`ProxyBody`]: one of our answers, the upstream's body untouched, or its HTML with the tag
//! streamed in through core's [`InjectingStream`] (as the tower and actix adapters do).

use std::pin::Pin;
use std::task::{Context, Poll};

use browser_agent_core::adapter::InjectingStream;
use bytes::Bytes;
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use pin_project_lite::pin_project;

pin_project! {
    /// The body of every response the proxy sends.
    pub struct ProxyBody {
        #[pin]
        kind: Kind,
    }
}

pin_project! {
    #[project = KindProj]
    enum Kind {
        Full { data: Option<Bytes> },
        Passthrough { #[pin] body: Incoming },
        Inject { #[pin] body: Incoming, state: Box<InjectState> },
    }
}

struct InjectState {
    stream: InjectingStream,
    trailers: Option<HeaderMap>,
}

impl std::fmt::Debug for ProxyBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.kind {
            Kind::Full { .. } => "Full",
            Kind::Passthrough { .. } => "Passthrough",
            Kind::Inject { .. } => "Inject",
        };
        f.debug_struct("ProxyBody").field("kind", &kind).finish()
    }
}

impl ProxyBody {
    /// A whole body we built (our routes, the 502 page).
    pub fn full(data: impl Into<Bytes>) -> Self {
        let data = data.into();
        ProxyBody {
            kind: Kind::Full {
                data: (!data.is_empty()).then_some(data),
            },
        }
    }

    /// The upstream's body, frame by frame as it arrives.
    pub fn passthrough(body: Incoming) -> Self {
        ProxyBody {
            kind: Kind::Passthrough { body },
        }
    }

    /// The upstream's HTML with `tag` placed once.
    pub fn inject(body: Incoming, tag: Bytes) -> Self {
        ProxyBody {
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

impl Body for ProxyBody {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
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
