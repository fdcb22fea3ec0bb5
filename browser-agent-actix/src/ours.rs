//! Our routes: the actix request's head in core's types, the body read up to the limit (never
//! further) through core's [`BodyReader`], and core's answer back as an actix response.

use std::future::{poll_fn, Future};
use std::pin::Pin;

use actix_web::dev::{ServiceRequest, ServiceResponse};
use browser_agent_core::adapter::BodyReader;
use browser_agent_core::BrowserAgent;
use bytes::Bytes;
use futures_core::Stream;

use crate::convert;

pub(crate) type OursFuture = Pin<Box<dyn Future<Output = ServiceResponse<Bytes>>>>;

/// Answers one of our requests.
pub(crate) fn answer(agent: BrowserAgent, req: ServiceRequest) -> OursFuture {
    Box::pin(async move {
        let (req, mut payload) = req.into_parts();
        let respond = |req, res| ServiceResponse::new(req, convert::response_to_actix(res));
        let parts = {
            let (Some(method), Some(uri)) = (convert::method(req.method()), convert::uri(req.uri())) else {
                return respond(req, BodyReader::unreadable());
            };
            let mut head = http::Request::new(());
            *head.method_mut() = method;
            *head.uri_mut() = uri;
            *head.version_mut() = convert::version(req.version());
            *head.headers_mut() = convert::headers_to_core(req.headers());
            head.into_parts().0
        };
        let mut reader = match BodyReader::begin(&agent, parts) {
            Ok(reader) => reader,
            Err(refusal) => return respond(req, refusal),
        };
        loop {
            let chunk = match reader.within(poll_fn(|cx| Pin::new(&mut payload).poll_next(cx))).await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(timed_out) => return respond(req, timed_out),
            };
            let Ok(chunk) = chunk else {
                let res = reader.failed();
                return respond(req, res);
            };
            if let Err(too_large) = reader.push(&chunk) {
                return respond(req, too_large);
            }
        }
        let res = match reader.finish().await {
            Ok(res) => res,
            Err(never) => match never {},
        };
        respond(req, res)
    })
}
