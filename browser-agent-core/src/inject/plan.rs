//! What injection does: whether a request may get the tag (method, fetch headers, a Host we
//! answer), seen through [`RequestHead`] so every framework's request type uses one rule; and
//! the header edits and tag for the app's response ([`InjectExt::plan_injection`]).

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, StatusCode};

use super::head::RequestHead;
use super::{gate, tag};
use crate::BrowserAgent;

/// What to do with a response the app produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injection {
    /// Leave it alone.
    Untouched,
    /// Its headers were adjusted (HEAD: `Content-Length` grew); the body stays as it is.
    HeadersOnly,
    /// Stream the body through an [`Injector`](super::Injector) with this tag.
    Body(Bytes),
}

/// The injection decisions of a [`BrowserAgent`], for adapters: bring it into scope with
/// `use browser_agent_core::adapter::InjectExt;`.
pub trait InjectExt {
    /// Whether a request for a page may get the client tag: the agent is on, the method and fetch
    /// headers ask for a document ([`gate`]), and the request went to a Host we answer (a page
    /// served to another Host must not carry the key).
    ///
    /// ```
    /// use browser_agent_core::adapter::InjectExt;
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// let page = |method: &str, host: &str, dest: &str| {
    ///     http::Request::builder().method(method).uri("/").header("host", host)
    ///         .header("sec-fetch-dest", dest).body(()).unwrap()
    /// };
    /// assert!(agent.wants_injection(&page("GET", "127.0.0.1:3000", "document")));
    /// assert!(!agent.wants_injection(&page("GET", "evil.example", "document")));
    /// // A form's POST answered with a page is a page; a script's POST is not.
    /// assert!(agent.wants_injection(&page("POST", "localhost", "document")));
    /// assert!(!agent.wants_injection(&page("POST", "localhost", "empty")));
    /// ```
    fn wants_injection(&self, head: &impl RequestHead) -> bool;

    /// Decides injection for a response to a request that [`wants_injection`](Self::wants_injection),
    /// adjusting its headers (`Content-Length` grows by the tag; `ETag` and `Accept-Ranges` go).
    /// `body_len` is the body's exact length when the adapter knows it (a sized body without a
    /// `Content-Length` header): it lets a `HEAD` answer announce the same length as `GET`.
    ///
    /// ```
    /// use browser_agent_core::adapter::{InjectExt, Injection};
    /// use browser_agent_core::BrowserAgent;
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let mut headers = http::HeaderMap::new();
    /// headers.insert("content-type", "text/html".parse().unwrap());
    /// let plan = agent.plan_injection(http::StatusCode::OK, &mut headers, true, Some(100));
    /// assert_eq!(plan, Injection::HeadersOnly);
    /// assert_eq!(headers["content-length"], (100 + agent.tag().len()).to_string());
    /// ```
    fn plan_injection(
        &self,
        status: StatusCode,
        headers: &mut HeaderMap,
        is_head: bool,
        body_len: Option<u64>,
    ) -> Injection;
}

impl InjectExt for BrowserAgent {
    fn wants_injection(&self, head: &impl RequestHead) -> bool {
        self.enabled()
            && gate::request_wants_injection(head)
            && head
                .authority()
                .is_some_and(|a| crate::security::host_allowed(a, &self.inner.config.allowed_hosts))
    }

    fn plan_injection(
        &self,
        status: StatusCode,
        headers: &mut HeaderMap,
        is_head: bool,
        body_len: Option<u64>,
    ) -> Injection {
        let Some(length) = gate::response_accepts_injection(status, headers) else {
            return Injection::Untouched;
        };
        let length = length.or(body_len);
        let tag = match gate::csp_nonce(headers) {
            Some(nonce) => tag::build_tag(&self.inner.tag_config, Some(&nonce)),
            None => self.inner.plain_tag.clone(),
        };
        if let Some(length) = length {
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length + tag.len() as u64));
        }
        headers.remove(header::ETAG);
        headers.remove(header::ACCEPT_RANGES);
        if self.agent_attached(crate::util::now_ms()) {
            allow_profiling(headers);
        }
        if is_head {
            Injection::HeadersOnly
        } else {
            Injection::Body(tag)
        }
    }
}

/// The page policy that lets the hands sample the page's scripts while a batch acts (the JS
/// Self-Profiling API: which functions an acting step's handlers spent their time in).
pub(crate) const PROFILING_POLICY: &str = "js-profiling";

/// Adds [`PROFILING_POLICY`] to the response's `Document-Policy` (kept as the app set it
/// otherwise). Only while an agent is attached: the policy costs a page load a little, and pages
/// no agent touches pay nothing.
fn allow_profiling(headers: &mut HeaderMap) {
    let name = http::HeaderName::from_static("document-policy");
    let mut policy: Vec<&str> = headers.get_all(&name).iter().filter_map(|v| v.to_str().ok()).collect();
    if policy
        .iter()
        .flat_map(|v| v.split(','))
        .any(|p| p.trim().split(['=', ';']).next() == Some(PROFILING_POLICY))
    {
        return;
    }
    policy.push(PROFILING_POLICY);
    if let Ok(value) = HeaderValue::from_str(&policy.join(", ")) {
        headers.insert(name, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiling_joins_the_apps_document_policy_once() {
        let mut h = HeaderMap::new();
        allow_profiling(&mut h);
        assert_eq!(h["document-policy"], "js-profiling");
        allow_profiling(&mut h);
        assert_eq!(h["document-policy"], "js-profiling");
        let mut h = HeaderMap::new();
        h.insert("document-policy", HeaderValue::from_static("force-load-at-top"));
        allow_profiling(&mut h);
        assert_eq!(h["document-policy"], "force-load-at-top, js-profiling");
        let mut h = HeaderMap::new();
        h.insert("document-policy", HeaderValue::from_static("js-profiling=?0"));
        allow_profiling(&mut h);
        assert_eq!(
            h["document-policy"], "js-profiling=?0",
            "the app's own word on it stands"
        );
    }

    #[test]
    fn pages_are_profiled_only_while_an_agent_is_attached() {
        let agent = BrowserAgent::builder().enabled(true).build();
        let html = || {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html"));
            h
        };
        let mut h = html();
        agent.plan_injection(StatusCode::OK, &mut h, false, None);
        assert!(h.get("document-policy").is_none(), "no agent yet: {h:?}");
        agent.agent_called();
        let mut h = html();
        agent.plan_injection(StatusCode::OK, &mut h, false, None);
        assert_eq!(h["document-policy"], PROFILING_POLICY);
    }
}
