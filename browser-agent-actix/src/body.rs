//! The response bodies: [`AppBody`] (the app's, maybe with the tag streamed in) and [`ResponseBody`] (that or ours).

use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, EitherBody, MessageBody};
use browser_agent_core::adapter::InjectingStream;
use bytes::Bytes;
use pin_project_lite::pin_project;

pin_project! {
    /// The body of a response the app produced, as [`BrowserAgentService`](crate::BrowserAgentService)
    /// sends it: untouched, with only its length grown (`HEAD` of an injected page), or with the
    /// client tag streamed in by core's [`InjectingStream`].
    ///
    /// Its [`MessageBody::size`] is exact: actix writes `Content-Length` from it (and ignores a
    /// `Content-Length` header), so a sized page stays sized with the tag counted, and a streamed
    /// page stays streamed.
    ///
    /// ```
    /// use actix_web::body::{BodySize, EitherBody, MessageBody};
    /// use actix_web::{test, web, App, HttpResponse};
    /// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
    ///
    /// # actix_web::rt::System::new().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let app = test::init_service(
    ///     App::new()
    ///         .wrap(BrowserAgentMiddleware::new(agent.clone()))
    ///         .route("/", web::get().to(|| async {
    ///             HttpResponse::Ok().content_type("text/html").body("<html><head></head></html>")
    ///         })),
    /// )
    /// .await;
    /// let req = test::TestRequest::get().uri("/").insert_header(("host", "127.0.0.1")).to_request();
    /// let res = test::call_service(&app, req).await;
    /// let size = res.response().body().size();
    /// assert_eq!(size, BodySize::Sized((26 + agent.tag().len()) as u64));
    /// # });
    /// ```
    pub struct AppBody<B> {
        #[pin]
        kind: Kind<B>,
    }
}

pin_project! {
    #[project = KindProj]
    enum Kind<B> {
        Passthrough { #[pin] body: B },
        Grown { #[pin] body: B, extra: u64 },
        Inject {
            #[pin] body: B,
            stream: InjectingStream,
        },
    }
}

impl<B> std::fmt::Debug for AppBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.kind {
            Kind::Passthrough { .. } => "Passthrough",
            Kind::Grown { .. } => "Grown",
            Kind::Inject { .. } => "Inject",
        };
        f.debug_struct("AppBody").field("kind", &kind).finish()
    }
}

impl<B> AppBody<B> {
    pub(crate) fn passthrough(body: B) -> Self {
        AppBody {
            kind: Kind::Passthrough { body },
        }
    }

    /// `HEAD` of a page that would get the tag: no bytes change, the length grows by `extra`.
    pub(crate) fn grown(body: B, extra: u64) -> Self {
        AppBody {
            kind: Kind::Grown { body, extra },
        }
    }

    pub(crate) fn inject(body: B, tag: Bytes) -> Self {
        AppBody {
            kind: Kind::Inject {
                body,
                stream: InjectingStream::new(tag),
            },
        }
    }
}

impl<B: MessageBody> MessageBody for AppBody<B> {
    type Error = B::Error;

    fn size(&self) -> BodySize {
        match &self.kind {
            Kind::Passthrough { body } => body.size(),
            Kind::Grown { body, extra } => match body.size() {
                BodySize::Sized(n) => BodySize::Sized(n + extra),
                other => other,
            },
            Kind::Inject { body, stream } => {
                let extra = stream.extra_len();
                let inner = if stream.inner_done() {
                    BodySize::Sized(0)
                } else {
                    body.size()
                };
                match inner {
                    BodySize::None => BodySize::Sized(extra),
                    BodySize::Sized(n) => BodySize::Sized(n + extra),
                    BodySize::Stream => BodySize::Stream,
                }
            }
        }
    }

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Self::Error>>> {
        match self.project().kind.project() {
            KindProj::Passthrough { body } | KindProj::Grown { body, .. } => body.poll_next(cx),
            KindProj::Inject { mut body, stream } => loop {
                if let Some(chunk) = stream.next() {
                    return Poll::Ready(Some(Ok(chunk)));
                }
                if stream.inner_done() {
                    return Poll::Ready(None);
                }
                match body.as_mut().poll_next(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                    Poll::Ready(Some(Ok(data))) => stream.push(data),
                    Poll::Ready(None) => stream.end(),
                }
            },
        }
    }

    fn try_into_bytes(self) -> Result<Bytes, Self>
    where
        Self: Sized,
    {
        match self.kind {
            Kind::Passthrough { body } => body.try_into_bytes().map_err(AppBody::passthrough),
            kind => Err(AppBody { kind }),
        }
    }
}

/// The response body of the middleware: the app's ([`AppBody`], left) or one of ours (right).
///
/// ```
/// use actix_web::body::EitherBody;
/// use actix_web::{test, web, App};
/// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
///
/// # actix_web::rt::System::new().block_on(async {
/// let app = test::init_service(
///     App::new()
///         .wrap(BrowserAgentMiddleware::new(BrowserAgent::builder().enabled(true).build()))
///         .route("/", web::get().to(|| async { "app" })),
/// )
/// .await;
/// let ours = test::TestRequest::get().uri("/browser/probe").insert_header(("host", "127.0.0.1"));
/// let res = test::call_service(&app, ours.to_request()).await;
/// assert!(matches!(res.response().body(), EitherBody::Right { .. }));
/// let res = test::call_service(&app, test::TestRequest::get().uri("/").to_request()).await;
/// assert!(matches!(res.response().body(), EitherBody::Left { .. }));
/// # });
/// ```
pub type ResponseBody<B> = EitherBody<AppBody<B>, Bytes>;
