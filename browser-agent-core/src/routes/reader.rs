//! [`BodyReader`]: the request-side mirror of [`InjectingStream`](crate::inject::InjectingStream),
//! so every adapter reads our requests' bodies the same way: refuse on the head, collect the body
//! up to the limit (never further), then answer.

// A refusal is a whole response, built on the cold path; boxing it would only move the cost.
#![allow(clippy::result_large_err)]

use bytes::{Bytes, BytesMut};
use http::{request::Parts, Request, Response};

use super::response::failure;
use super::RouteFuture;
use crate::error::Refusal;
use crate::BrowserAgent;

/// Reads the body of one of our requests for an adapter, whatever its body type.
///
/// ```
/// use browser_agent_core::{adapter::BodyReader, BrowserAgent};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let agent = BrowserAgent::builder().enabled(true).page_key("k3y-for-docs").body_limit(64).build();
/// let head = |len: usize| {
///     http::Request::post("/__mindstudio_dev__/logs")
///         .header("host", "127.0.0.1")
///         .header("x-browser-agent-key", "k3y-for-docs")
///         .header("content-length", len)
///         .body(())
///         .unwrap()
///         .into_parts()
///         .0
/// };
/// // Refused on the head: the body is never read.
/// assert_eq!(BodyReader::begin(&agent, head(65)).unwrap_err().status(), 413);
/// let mut reader = BodyReader::begin(&agent, head(2)).unwrap();
/// reader.push(b"[").unwrap();
/// reader.push(b"]").unwrap();
/// assert_eq!(reader.finish().await.unwrap().status(), 204);
/// # });
/// ```
#[derive(Debug)]
pub struct BodyReader {
    agent: BrowserAgent,
    parts: Parts,
    body: BytesMut,
    limit: usize,
    deadline: tokio::time::Instant,
}

impl BodyReader {
    /// Checks the request's head (route, method, Host/Origin/key/token, declared length): `Err` is
    /// the answer to send without reading the body.
    pub fn begin(agent: &BrowserAgent, parts: Parts) -> Result<BodyReader, Response<Bytes>> {
        agent
            .preflight(&parts)
            .map_err(|refusal| agent.refuse(parts.uri.path(), &refusal))?;
        Ok(BodyReader {
            deadline: tokio::time::Instant::now() + agent.inner.config.body_timeout,
            agent: agent.clone(),
            limit: agent.body_limit_at(parts.uri.path()),
            parts,
            body: BytesMut::new(),
        })
    }

    /// Waits for `next` (the adapter's next chunk of the body) until the body's deadline
    /// ([`Config::body_timeout`](crate::Config::body_timeout), counted from [`begin`](Self::begin));
    /// `Err` is the 408 to send when the body did not arrive in time (stop reading then).
    ///
    /// ```
    /// use browser_agent_core::{adapter::BodyReader, BrowserAgent};
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).page_key("k3y-for-docs")
    ///     .body_timeout(std::time::Duration::from_millis(20)).build();
    /// let head = http::Request::post("/__mindstudio_dev__/logs").header("host", "127.0.0.1")
    ///     .header("x-browser-agent-key", "k3y-for-docs").body(()).unwrap().into_parts().0;
    /// let reader = BodyReader::begin(&agent, head).unwrap();
    /// let stalled = std::future::pending::<Option<&[u8]>>();
    /// assert_eq!(reader.within(stalled).await.unwrap_err().status(), 408);
    /// # });
    /// ```
    pub async fn within<F: std::future::Future>(&self, next: F) -> Result<F::Output, Response<Bytes>> {
        tokio::time::timeout_at(self.deadline, next).await.map_err(|_| {
            failure(&Refusal::BodyTimeout {
                ms: self.agent.inner.config.body_timeout.as_millis(),
            })
        })
    }

    /// Adds a chunk of the body; `Err` is the 413 to send when the body passes the limit (stop
    /// reading then).
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), Response<Bytes>> {
        if self.body.len() + chunk.len() > self.limit {
            let path = self.parts.uri.path();
            return Err(self.agent.refuse(path, &self.agent.too_large(path)));
        }
        self.body.extend_from_slice(chunk);
        Ok(())
    }

    /// The answer when the body could not be read (the connection failed mid-body).
    pub fn failed(&self) -> Response<Bytes> {
        failure(&Refusal::UnreadableBody)
    }

    /// The answer to a request whose head the adapter could not translate (a method or target
    /// `http` does not accept).
    pub fn unreadable() -> Response<Bytes> {
        failure(&Refusal::UnreadableRequest)
    }

    /// The body is complete: answers the request.
    pub fn finish(self) -> RouteFuture {
        let req = Request::from_parts(self.parts, self.body.freeze());
        self.agent.answer(req)
    }
}
