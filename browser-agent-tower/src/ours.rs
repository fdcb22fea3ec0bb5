//! Our routes: refuse early on the head, read the body up to the limit (never further), then let
//! core answer, all through core's [`BodyReader`].

use std::future::Future;
use std::pin::Pin;

use browser_agent_core::adapter::BodyReader;
use browser_agent_core::BrowserAgent;
use bytes::{Buf, Bytes};
use http::{Request, Response};
use http_body::Body;
use http_body_util::BodyExt;

pub(crate) type OursFuture = Pin<Box<dyn Future<Output = Response<Bytes>> + Send>>;

/// Answers a request for one of the agent's routes (check with `agent.is_ours(path)` first):
/// refused on its head when it must be, its body read up to the limit and within the deadline
/// (never further), then answered by core. [`BrowserAgentService`](crate::BrowserAgentService)
/// does this itself; tools that route requests themselves (the `browser-agent` CLI) call it.
///
/// ```
/// use browser_agent_tower::{adapter::answer, BrowserAgent};
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let agent = BrowserAgent::builder().enabled(true).build();
/// let req = http::Request::get("/browser/probe").header("host", "127.0.0.1").body(String::new()).unwrap();
/// assert_eq!(answer(agent, req).await.status(), 200);
/// # });
/// ```
pub async fn answer<B>(agent: BrowserAgent, req: Request<B>) -> Response<Bytes>
where
    B: Body + Send + 'static,
    B::Data: Send,
{
    let (parts, body) = req.into_parts();
    let mut reader = match BodyReader::begin(&agent, parts) {
        Ok(reader) => reader,
        Err(refusal) => return refusal,
    };
    let mut body = std::pin::pin!(body);
    loop {
        let frame = match reader.within(body.frame()).await {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(timed_out) => return timed_out,
        };
        let Ok(frame) = frame else {
            return reader.failed();
        };
        if let Ok(mut data) = frame.into_data() {
            while data.has_remaining() {
                let chunk = data.chunk();
                let n = chunk.len();
                if let Err(too_large) = reader.push(chunk) {
                    return too_large;
                }
                data.advance(n);
            }
        }
    }
    match reader.finish().await {
        Ok(res) => res,
        Err(never) => match never {},
    }
}
