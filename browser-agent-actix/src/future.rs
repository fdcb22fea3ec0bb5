//! [`ResponseFuture`]: one of our answers, or the app's response with its HTML body planned for
//! injection and, when it is a 5xx, recorded as a `server` entry.

use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use actix_web::body::{BodySize, EitherBody, MessageBody};
use actix_web::dev::ServiceResponse;
use actix_web::Error;
use browser_agent_core::adapter::{gate, AdapterExt, InjectExt, Injection};
use browser_agent_core::BrowserAgent;
use pin_project_lite::pin_project;

use crate::body::{AppBody, ResponseBody};
use crate::convert;
use crate::ours::OursFuture;

pin_project! {
    /// The future of [`BrowserAgentService`](crate::BrowserAgentService): one of our answers, or
    /// the app's response with its HTML body planned for injection. When the app's response is a
    /// 5xx, it is recorded as a `server` entry (method, path, status, the time since the request
    /// arrived: [`BrowserAgent::record_response`]); our own answers never are.
    ///
    /// ```
    /// use actix_web::dev::{Service, Transform};
    /// use actix_web::test;
    /// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
    ///
    /// # actix_web::rt::System::new().block_on(async {
    /// let mw = BrowserAgentMiddleware::new(BrowserAgent::builder().enabled(true).build());
    /// let svc = mw.new_transform(test::ok_service()).await.unwrap();
    /// let fut: browser_agent_actix::ResponseFuture<_> = svc.call(test::TestRequest::get().to_srv_request());
    /// assert_eq!(fut.await.unwrap().status(), 200);
    /// # });
    /// ```
    ///
    /// A 5xx of the app, a handler's error answer included, is in the log:
    ///
    /// ```
    /// use actix_web::{test, web, App};
    /// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware, LogQuery};
    ///
    /// # actix_web::rt::System::new().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let app = test::init_service(
    ///     App::new()
    ///         .wrap(BrowserAgentMiddleware::new(agent.clone()))
    ///         .route("/boom", web::get().to(|| async {
    ///             Err::<String, _>(actix_web::error::ErrorInternalServerError("db down"))
    ///         })),
    /// )
    /// .await;
    /// let req = test::TestRequest::get().uri("/boom?x=1").insert_header(("host", "127.0.0.1")).to_request();
    /// assert_eq!(test::call_service(&app, req).await.status(), 500);
    /// let entry = &agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap())[0];
    /// assert!(entry.text.starts_with("GET /boom?x=1 → 500 Internal Server Error ("));
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
        App { #[pin] fut: F, agent: Option<BrowserAgent>, started: Instant, inject: bool, head: bool },
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

    pub(crate) fn app(fut: F, agent: Option<BrowserAgent>, started: Instant, inject: bool, head: bool) -> Self {
        ResponseFuture {
            kind: Kind::App {
                fut,
                agent,
                started,
                inject,
                head,
            },
        }
    }
}

impl<F, B> Future for ResponseFuture<F>
where
    F: Future<Output = Result<ServiceResponse<B>, Error>>,
    B: MessageBody,
{
    type Output = Result<ServiceResponse<ResponseBody<B>>, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().kind.project() {
            KindProj::Ours { fut } => {
                let res = ready!(fut.as_mut().poll(cx));
                Poll::Ready(Ok(res.map_into_right_body()))
            }
            KindProj::App {
                fut,
                agent,
                started,
                inject,
                head,
            } => {
                let res = ready!(fut.poll(cx))?;
                if let Some(agent) = agent.as_ref() {
                    let req = res.request();
                    let path = req.uri().path_and_query().map_or("/", |p| p.as_str());
                    agent.record_response(req.method().as_str(), path, res.status().as_u16(), *started);
                }
                // Most responses are not HTML: decide that on actix's own headers, before converting any.
                let html = *inject
                    && res
                        .headers()
                        .get(actix_web::http::header::CONTENT_TYPE)
                        .is_some_and(|ct| gate::is_html(ct.as_bytes()));
                let Some(agent) = agent.take().filter(|_| html) else {
                    return Poll::Ready(Ok(res.map_body(|_, body| EitherBody::left(AppBody::passthrough(body)))));
                };
                let head = *head;
                Poll::Ready(Ok(res.map_body(|parts, body| {
                    let mut headers = convert::headers_to_core(&parts.headers);
                    let status = convert::status_to_core(parts.status);
                    let size = body.size();
                    let body_len = match size {
                        BodySize::Sized(n) => Some(n),
                        BodySize::None | BodySize::Stream => None,
                    };
                    let body = match agent.plan_injection(status, &mut headers, head, body_len) {
                        Injection::Untouched => return EitherBody::left(AppBody::passthrough(body)),
                        Injection::Body(tag) => AppBody::inject(body, tag),
                        // actix writes `Content-Length` from the body's size, not from the
                        // header: make the size say what core put in the header.
                        Injection::HeadersOnly => match (body_len, content_length(&headers)) {
                            (Some(n), Some(len)) if len >= n => AppBody::grown(body, len - n),
                            _ => AppBody::passthrough(body),
                        },
                    };
                    convert::headers_to_actix(&headers, &mut parts.headers);
                    EitherBody::left(body)
                })))
            }
        }
    }
}

fn content_length(headers: &http::HeaderMap) -> Option<u64> {
    headers
        .get(http::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}
