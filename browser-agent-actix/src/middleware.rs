//! [`BrowserAgentMiddleware`] (the `Transform`) and the [`BrowserAgentService`] it builds per worker.

use std::future::{ready, Ready};
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::Method;
use actix_web::Error;
use browser_agent_core::adapter::{AdapterExt, InjectExt, RequestHead};
use browser_agent_core::BrowserAgent;

use crate::body::ResponseBody;
use crate::future::ResponseFuture;
use crate::ours;

/// The middleware builder: `App::new().wrap(BrowserAgentMiddleware::new(agent.clone()))`.
///
/// It implements [`Transform`], which actix calls once per worker thread to build a
/// [`BrowserAgentService`]. The only constructor takes the [`BrowserAgent`], so the state (log ring,
/// pages, keys) is created once, outside `HttpServer::new`, and every worker shares it:
///
/// ```no_run
/// use actix_web::{web, App, HttpServer};
/// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
///
/// # fn main() -> std::io::Result<()> {
/// # actix_web::rt::System::new().block_on(async {
/// let agent = BrowserAgent::builder().enabled(true).build(); // once, outside the factory
/// HttpServer::new(move || {
///     App::new()
///         .wrap(BrowserAgentMiddleware::new(agent.clone())) // a cheap handle to the same state
///         .route("/", web::get().to(|| async { "hello" }))
/// })
/// .bind(("127.0.0.1", 3000))?
/// .run()
/// .await
/// # })
/// # }
/// ```
///
/// The wrong way is to build the agent *inside* the closure given to `HttpServer::new`: that
/// closure runs once per worker, so each worker would get its own log ring, page registry and page
/// key, and a page served by one worker would be refused or unseen by another.
///
/// Compression goes *after* (outside) this middleware, `.wrap(BrowserAgentMiddleware::new(agent))`
/// then `.wrap(Compress::default())`: the last `wrap` runs first, so our middleware sees the app's
/// HTML before it is compressed. The other way round, every page would arrive compressed and be
/// passed through without the tag.
///
/// ```
/// use actix_web::{test, web, App, HttpResponse};
/// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
///
/// # actix_web::rt::System::new().block_on(async {
/// let agent = BrowserAgent::builder().enabled(true).build();
/// let app = test::init_service(
///     App::new()
///         .wrap(BrowserAgentMiddleware::new(agent.clone()))
///         .route("/", web::get().to(|| async {
///             HttpResponse::Ok().content_type("text/html").body("<!doctype html><head></head><h1>hi</h1>")
///         })),
/// )
/// .await;
/// let req = test::TestRequest::get().uri("/").insert_header(("host", "127.0.0.1")).to_request();
/// let html = test::call_and_read_body(&app, req).await;
/// assert!(std::str::from_utf8(&html).unwrap().contains("<head><script data-browser-agent="));
///
/// // Our routes are answered by the agent, never by the app.
/// let req = test::TestRequest::get().uri("/browser/probe").insert_header(("host", "127.0.0.1")).to_request();
/// assert_eq!(test::call_and_read_body(&app, req).await, r#"{"ok":true}"#);
/// # });
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct BrowserAgentMiddleware {
    agent: BrowserAgent,
}

impl BrowserAgentMiddleware {
    /// The middleware for `agent`. Build the agent once, outside `HttpServer::new`, and pass a
    /// clone to each worker's `App` (see the type's documentation).
    ///
    /// ```
    /// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let mw = BrowserAgentMiddleware::new(agent.clone());
    /// assert_eq!(mw.agent().page_key(), agent.page_key());
    /// ```
    pub fn new(agent: BrowserAgent) -> Self {
        BrowserAgentMiddleware { agent }
    }

    /// The shared agent (read logs and pages from Rust with it).
    ///
    /// ```
    /// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
    /// let mw = BrowserAgentMiddleware::new(BrowserAgent::builder().enabled(true).build());
    /// assert_eq!(mw.agent().config().prefix(), "/__mindstudio_dev__");
    /// ```
    pub fn agent(&self) -> &BrowserAgent {
        &self.agent
    }
}

impl<S, B> Transform<S, ServiceRequest> for BrowserAgentMiddleware
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<ResponseBody<B>>;
    type Error = Error;
    type Transform = BrowserAgentService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(BrowserAgentService {
            service,
            agent: self.agent.clone(),
        }))
    }
}

/// The middleware service [`BrowserAgentMiddleware`] builds for each worker: answers our routes
/// through core, passes everything else to the app, and streams the client tag into the app's HTML
/// documents ([`AppBody`](crate::AppBody)).
///
/// ```
/// use actix_web::{test, web, App, HttpResponse};
/// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
///
/// # actix_web::rt::System::new().block_on(async {
/// let agent = BrowserAgent::builder().enabled(true).build();
/// let app = test::init_service(
///     App::new()
///         .wrap(BrowserAgentMiddleware::new(agent))
///         .route("/api", web::get().to(|| async { HttpResponse::Ok().json([1, 2]) })),
/// )
/// .await;
/// // Not HTML, not ours: passed through untouched.
/// let req = test::TestRequest::get().uri("/api").insert_header(("host", "127.0.0.1")).to_request();
/// assert_eq!(test::call_and_read_body(&app, req).await, "[1,2]");
/// # });
/// ```
#[derive(Debug)]
pub struct BrowserAgentService<S> {
    service: S,
    agent: BrowserAgent,
}

impl<S> BrowserAgentService<S> {
    /// The shared agent.
    ///
    /// ```
    /// # use actix_web::{dev::{Service, ServiceRequest, ServiceResponse, Transform}, test, web, App};
    /// use browser_agent_actix::{BrowserAgent, BrowserAgentMiddleware};
    /// # actix_web::rt::System::new().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let app = test::ok_service();
    /// let svc = BrowserAgentMiddleware::new(agent.clone()).new_transform(app).await.unwrap();
    /// assert_eq!(svc.agent().page_key(), agent.page_key());
    /// # });
    /// ```
    pub fn agent(&self) -> &BrowserAgent {
        &self.agent
    }
}

impl<S, B> Service<ServiceRequest> for BrowserAgentService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<ResponseBody<B>>;
    type Error = Error;
    type Future = ResponseFuture<S::Future>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let agent = &self.agent;
        if agent.is_ours(req.path()) {
            return ResponseFuture::ours(ours::answer(agent.clone(), req));
        }
        let started = Instant::now();
        let inject = agent.wants_injection(&Head(&req));
        let head = req.method() == Method::HEAD;
        // The response carries the request: only the agent and the time are kept for a 5xx entry.
        let agent = agent.config().enabled().then(|| agent.clone());
        ResponseFuture::app(self.service.call(req), agent, started, inject, head)
    }
}

/// An actix request seen through core's [`RequestHead`], read in place: converting the headers
/// to core's types on every request cost more than the injection check itself.
struct Head<'a>(&'a ServiceRequest);

impl RequestHead for Head<'_> {
    fn method_name(&self) -> &str {
        self.0.method().as_str()
    }
    fn header_pairs(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.0.headers().iter().map(|(n, v)| (n.as_str(), v.as_bytes()))
    }
    fn authority(&self) -> Option<&[u8]> {
        self.0
            .headers()
            .get(actix_web::http::header::HOST)
            .map(|h| h.as_bytes())
            .or_else(|| self.0.uri().authority().map(|a| a.as_str().as_bytes()))
    }
    fn header(&self, name: &str) -> Option<&[u8]> {
        self.0.headers().get(name).map(|v| v.as_bytes())
    }
}
