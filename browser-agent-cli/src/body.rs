//! [`ProxyBody`]: one of our answers, the upstream's body untouched, or its HTML with the tag
//! streamed in: the tower adapter's [`ResponseBody`](browser_agent_tower::ResponseBody) over
//! hyper's incoming body, so the proxy and the layer stream the tag through the same code.

/// The body of every response the proxy sends.
pub type ProxyBody = browser_agent_tower::ResponseBody<hyper::body::Incoming>;
