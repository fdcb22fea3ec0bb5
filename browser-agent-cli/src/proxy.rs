//! The reverse proxy: our routes answered by core, everything else streamed to and from the dev
//! server (hyper on both sides), the client tag streamed into its HTML documents by core (a
//! document compressed although we asked for `identity` decoded on the way: see [`crate::body`]).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use browser_agent_core::adapter::{gate, AdapterExt, InjectExt, Injection};
use browser_agent_core::BrowserAgent;
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, Response, StatusCode, Uri};
use http_body_util::Empty;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tower_service::Service;

use crate::body::{BoxError, ProxyBody, UpstreamBody};
use crate::target::{split_authority, Target};
use crate::tls::Connector;

/// Seconds the 502 page waits before it tries again.
pub const RETRY_SECS: u64 = 2;

/// What every connection shares.
#[derive(Debug)]
struct Shared {
    agent: BrowserAgent,
    target: Target,
    client: Client<Connector, Incoming>,
    /// What the client connects with (TLS for an https target), for upgrades' own connections.
    connector: Connector,
    /// Set while the dev server does not answer: the first 502 of an outage is a `server` entry,
    /// not every retry of the self-reloading 502 page.
    down: AtomicBool,
    /// Set once the dev server has answered: a 502 before that is a dev server still starting
    /// (said so, and no error), one after it a dev server that stopped.
    answered: AtomicBool,
}

/// A running proxy (tests and the binary): where it listens, and its accept loop.
#[derive(Debug)]
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Stops accepting (open connections finish on their own).
    pub fn stop(self) {
        self.task.abort();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves the proxy on `listener` (already bound, so a port in use is the caller's error to
/// word) in front of `target`, until the returned handle is stopped or dropped.
pub fn serve(listener: TcpListener, agent: BrowserAgent, target: Target) -> std::io::Result<Running> {
    let addr = listener.local_addr()?;
    let connector = crate::tls::connector();
    let client = Client::builder(TokioExecutor::new())
        .pool_idle_timeout(Duration::from_secs(30))
        .build(connector.clone());
    let shared = Arc::new(Shared {
        agent,
        target,
        client,
        connector,
        down: AtomicBool::new(false),
        answered: AtomicBool::new(false),
    });
    let task = tokio::spawn(async move {
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                // Out of descriptors and the like: wait, never spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let shared = shared.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    let shared = shared.clone();
                    async move { Ok::<_, Infallible>(handle(&shared, req, peer).await) }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .with_upgrades();
                // A client that goes away mid-response is not our error to report.
                let _ = conn.await;
            });
        }
    });
    Ok(Running { addr, task })
}

async fn handle(shared: &Shared, req: Request<Incoming>, peer: SocketAddr) -> Response<ProxyBody> {
    let agent = &shared.agent;
    if agent.is_ours(req.uri().path()) {
        return browser_agent_tower::adapter::answer(agent.clone(), req)
            .await
            .map(ProxyBody::full);
    }
    if is_upgrade(req.headers()) {
        return upgrade(shared, req, peer).await;
    }
    let started = Instant::now();
    let inject = agent.wants_injection(&req);
    let head = req.method() == Method::HEAD;
    // What a 5xx entry names (the request goes upstream).
    let method = req.method().clone();
    let path = req.uri().path_and_query().cloned();
    let our_host = our_host(&req);
    let wants_page = accepts_html(req.headers());
    let mut req = upstream_request(shared, req, peer, false);
    if inject {
        // The tag can only go into a body we can read: ask the dev server not to compress it.
        req.headers_mut()
            .insert(header::ACCEPT_ENCODING, HeaderValue::from_static("identity"));
    }
    let path = path.as_ref().map_or("/", |p| p.as_str());
    let res = match shared.client.request(req).await {
        Ok(res) => res,
        Err(err) => {
            // An outage is a server error too (the agent's first look is `console?type=server`),
            // once: the 502 page retries every few seconds. While the dev server starts (it
            // never answered yet), the entry says so and is no error.
            if !shared.down.swap(true, Ordering::Relaxed) {
                let ready = shared.answered.load(Ordering::Relaxed);
                agent.record_unanswered(method.as_str(), path, &reason(&err), ready, started);
            }
            return bad_gateway(&shared.target, &err, wants_page);
        }
    };
    // Written only when an outage ends (or the first answer comes): every answer reads the
    // flags, none but those write them.
    if shared.down.load(Ordering::Relaxed) {
        shared.down.store(false, Ordering::Relaxed);
    }
    if !shared.answered.load(Ordering::Relaxed) {
        shared.answered.store(true, Ordering::Relaxed);
    }
    let (mut parts, body) = res.into_parts();
    agent.record_response(method.as_str(), path, parts.status.as_u16(), started);
    // We speak HTTP/1.1 to the browser whatever the dev server spoke (Python's answers 1.0).
    parts.version = http::Version::HTTP_11;
    remove_hop_by_hop(&mut parts.headers);
    if let Some(host) = &our_host {
        rewrite_location(&mut parts.headers, &shared.target, host);
        rewrite_cookies(&mut parts.headers, &shared.target);
    }
    if !inject {
        return Response::from_parts(parts, ProxyBody::passthrough(body.into()));
    }
    // A page compressed although we asked for identity (some dev servers compress whatever is
    // asked): core says which coding to undo and drops its headers; decoded as it streams, it is
    // a page like any other.
    let coding = gate::take_decodable_coding(parts.status, &mut parts.headers);
    let body_len = if head || coding.is_some() {
        None
    } else {
        http_body::Body::size_hint(&body).exact()
    };
    let body = match coding {
        Some(coding) if !head => UpstreamBody::decoded(body, coding),
        _ => UpstreamBody::from(body),
    };
    let body = match agent.plan_injection(parts.status, &mut parts.headers, head, body_len) {
        Injection::Body(tag) => ProxyBody::inject(body, tag),
        Injection::Untouched | Injection::HeadersOnly => ProxyBody::passthrough(body),
    };
    Response::from_parts(parts, body)
}

/// A WebSocket (or other) upgrade: the request goes to the dev server on a connection of its own;
/// when it answers 101, both sides are upgraded and bytes are copied both ways until either closes.
async fn upgrade(shared: &Shared, mut req: Request<Incoming>, peer: SocketAddr) -> Response<ProxyBody> {
    let wants_page = false;
    let client_side = hyper::upgrade::on(&mut req);
    // An upgrade request has no body; sending ours as a stream of unknown length would make it
    // chunked, and Node's WebSocket servers (Vite's) then never answer.
    let mut req = upstream_request(shared, req, peer, true).map(|_| Empty::<Bytes>::new());
    // A connection of our own sends the URI as it is: origin-form, as servers expect it (Node
    // takes an absolute one for a path, and Vite's WebSocket never answers).
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str()).to_owned();
    *req.uri_mut() = Uri::try_from(path).unwrap_or_else(|_| Uri::from_static("/"));
    let target = &shared.target;
    let mut connector = shared.connector.clone();
    if let Err(err) = std::future::poll_fn(|cx| connector.poll_ready(cx)).await {
        return bad_gateway(target, &*BoxError::from(err), wants_page);
    }
    let stream = match connector.call(target_uri(target, "/")).await {
        Ok(stream) => stream,
        Err(err) => return bad_gateway(target, &*BoxError::from(err), wants_page),
    };
    let (mut sender, conn) = match hyper::client::conn::http1::handshake(stream).await {
        Ok(pair) => pair,
        Err(err) => return bad_gateway(target, &err, wants_page),
    };
    tokio::spawn(async move {
        let _ = conn.with_upgrades().await;
    });
    let mut res = match sender.send_request(req).await {
        Ok(res) => res,
        Err(err) => return bad_gateway(target, &err, wants_page),
    };
    if res.status() != StatusCode::SWITCHING_PROTOCOLS {
        let (parts, body) = res.into_parts();
        return Response::from_parts(parts, ProxyBody::passthrough(body.into()));
    }
    let upstream_side = hyper::upgrade::on(&mut res);
    tokio::spawn(async move {
        let (Ok(client), Ok(upstream)) = tokio::join!(client_side, upstream_side) else {
            return;
        };
        let _ = tokio::io::copy_bidirectional(&mut TokioIo::new(client), &mut TokioIo::new(upstream)).await;
    });
    let (parts, _) = res.into_parts();
    Response::from_parts(parts, ProxyBody::full(Bytes::new()))
}

/// The request as the dev server gets it: its URI on the target, `Host` the target's, the
/// `X-Forwarded-*` headers added, hop-by-hop headers gone (but an upgrade's own).
fn upstream_request(shared: &Shared, req: Request<Incoming>, peer: SocketAddr, upgrade: bool) -> Request<Incoming> {
    let (mut parts, body) = req.into_parts();
    let target = &shared.target;
    let our_host = parts.headers.get(header::HOST).cloned().or_else(|| {
        parts
            .uri
            .authority()
            .and_then(|a| HeaderValue::from_str(a.as_str()).ok())
    });
    parts.uri = target_uri(target, parts.uri.path_and_query().map_or("/", |p| p.as_str()));
    parts.version = http::Version::HTTP_11;
    let upgrade_value = parts.headers.get(header::UPGRADE).cloned();
    remove_hop_by_hop(&mut parts.headers);
    if upgrade {
        if let Some(value) = upgrade_value {
            parts
                .headers
                .insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
            parts.headers.insert(header::UPGRADE, value);
        }
    }
    if let Ok(host) = HeaderValue::from_str(&target.authority()) {
        parts.headers.insert(header::HOST, host);
    }
    let headers = &mut parts.headers;
    let ip = peer.ip().to_string();
    let forwarded_for = match headers.get("x-forwarded-for").and_then(|v| v.to_str().ok()) {
        Some(earlier) => format!("{earlier}, {ip}"),
        None => ip,
    };
    if let Ok(v) = HeaderValue::from_str(&forwarded_for) {
        headers.insert(HeaderName::from_static("x-forwarded-for"), v);
    }
    if !headers.contains_key("x-forwarded-proto") {
        headers.insert(
            HeaderName::from_static("x-forwarded-proto"),
            HeaderValue::from_static("http"),
        );
    }
    if let Some(host) = our_host {
        if !headers.contains_key("x-forwarded-host") {
            headers.insert(HeaderName::from_static("x-forwarded-host"), host);
        }
    }
    Request::from_parts(parts, body)
}

/// `path` (with its query) on the dev server: `http://127.0.0.1:5173/path`.
fn target_uri(target: &Target, path: &str) -> Uri {
    Uri::try_from(format!("{}://{}{}", target.scheme(), target.authority(), path))
        .unwrap_or_else(|_| Uri::from_static("/"))
}

/// Where the browser sent the request (`Host`, else the URI's authority).
fn our_host(req: &Request<Incoming>) -> Option<String> {
    req.headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| req.uri().authority().map(|a| a.as_str().to_owned()))
}

fn is_upgrade(headers: &HeaderMap) -> bool {
    headers.contains_key(header::UPGRADE)
        && headers
            .get_all(header::CONNECTION)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case("upgrade"))
}

fn accepts_html(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"))
}

/// Headers meant for one hop only (RFC 9110 §7.6.1), and those the `Connection` header names.
fn remove_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|t| HeaderName::from_bytes(t.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in [
        header::CONNECTION,
        HeaderName::from_static("keep-alive"),
        header::PROXY_AUTHENTICATE,
        header::PROXY_AUTHORIZATION,
        HeaderName::from_static("proxy-connection"),
        header::TE,
        header::TRAILER,
        header::TRANSFER_ENCODING,
        header::UPGRADE,
    ] {
        headers.remove(name);
    }
}

/// A redirect to the dev server's own address goes to ours instead (an https dev server's to our
/// plain http one).
fn rewrite_location(headers: &mut HeaderMap, target: &Target, our_host: &str) {
    let Some(location) = headers.get(header::LOCATION).and_then(|v| v.to_str().ok()) else {
        return;
    };
    let (prefix, rest) = if let Some(rest) = location.strip_prefix("http://") {
        ("http://", rest)
    } else if let Some(rest) = location.strip_prefix("https://").filter(|_| target.tls) {
        ("http://", rest)
    } else if let Some(rest) = location.strip_prefix("//") {
        ("//", rest)
    } else {
        return;
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if !target.is_authority(&rest[..end]) {
        return;
    }
    if let Ok(v) = HeaderValue::from_str(&format!("{prefix}{our_host}{}", &rest[end..])) {
        headers.insert(header::LOCATION, v);
    }
}

/// A cookie the dev server scopes to its own host (`Domain=` the target) is scoped to ours: the
/// attribute goes, so the browser keeps it for the host it asked (ours).
fn rewrite_cookies(headers: &mut HeaderMap, target: &Target) {
    if !headers.contains_key(header::SET_COOKIE) {
        return;
    }
    let target_host = target.connect_host();
    let cookies: Vec<HeaderValue> = headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| {
            let Ok(s) = v.to_str() else {
                return v.clone();
            };
            let mut changed = false;
            let kept: Vec<&str> = s
                .split(';')
                .filter(|attr| {
                    let attr = attr.trim();
                    let names_target = attr
                        .split_once('=')
                        .filter(|(name, _)| name.trim().eq_ignore_ascii_case("domain"))
                        .is_some_and(|(_, value)| {
                            let (host, _) = split_authority(value.trim().trim_start_matches('.'));
                            host.eq_ignore_ascii_case(target_host)
                        });
                    changed |= names_target;
                    !names_target
                })
                .collect();
            if changed {
                HeaderValue::from_str(&kept.join(";")).unwrap_or_else(|_| v.clone())
            } else {
                v.clone()
            }
        })
        .collect();
    headers.remove(header::SET_COOKIE);
    for cookie in cookies {
        headers.append(header::SET_COOKIE, cookie);
    }
}

/// The dev server did not answer: say what is not answering, and try again by itself.
fn bad_gateway(target: &Target, err: &dyn std::error::Error, wants_page: bool) -> Response<ProxyBody> {
    let why = reason(err);
    let builder = Response::builder()
        .status(StatusCode::BAD_GATEWAY)
        .header(header::CACHE_CONTROL, "no-store")
        .header(header::RETRY_AFTER, RETRY_SECS.to_string());
    let res = if wants_page {
        let page = format!(
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"{RETRY_SECS}\">\
             <title>502: the dev server is not answering</title>\
             <style>body{{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:4em auto;padding:0 1em;color:#222}}code{{background:#f3f3f3;padding:0 .3em}}</style>\
             </head><body><h1>The dev server is not answering</h1>\
             <p>browser-agent forwards this page to <code>{target}</code>, and nothing answers there ({why}).</p>\
             <p>Is the dev server running? This page tries again every {RETRY_SECS} s and shows your app as soon as it answers.</p>\
             </body></html>\n"
        );
        builder
            .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
            .body(ProxyBody::full(page))
    } else {
        builder
            .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(ProxyBody::full(format!(
                "502 Bad Gateway: the dev server at {target} is not answering ({why})\n"
            )))
    };
    res.unwrap_or_else(|_| Response::new(ProxyBody::full(Bytes::new())))
}

/// The innermost cause, which says what happened (`Connection refused (os error 111)`).
fn reason(err: &dyn std::error::Error) -> String {
    let mut cause = err;
    while let Some(next) = cause.source() {
        cause = next;
    }
    let text = cause.to_string();
    if text.is_empty() {
        err.to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        "http://127.0.0.1:5173".parse().unwrap()
    }

    #[test]
    fn locations_on_the_target_move_to_our_host() {
        let rewrite = |loc: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::LOCATION, loc.parse().unwrap());
            rewrite_location(&mut h, &target(), "127.0.0.1:6173");
            h[header::LOCATION].to_str().unwrap().to_owned()
        };
        assert_eq!(
            rewrite("http://127.0.0.1:5173/login?next=/"),
            "http://127.0.0.1:6173/login?next=/"
        );
        assert_eq!(rewrite("http://localhost:5173"), "http://127.0.0.1:6173");
        assert_eq!(rewrite("//localhost:5173/x"), "//127.0.0.1:6173/x");
        assert_eq!(rewrite("/relative"), "/relative");
        assert_eq!(rewrite("http://example.test/x"), "http://example.test/x");
        assert_eq!(rewrite("https://127.0.0.1:5173/x"), "https://127.0.0.1:5173/x");
        // An https dev server's redirects to itself come to us, in plain http.
        let https: Target = "https://localhost:5173".parse().unwrap();
        let mut h = HeaderMap::new();
        h.insert(header::LOCATION, "https://127.0.0.1:5173/app/".parse().unwrap());
        rewrite_location(&mut h, &https, "127.0.0.1:6173");
        assert_eq!(h[header::LOCATION], "http://127.0.0.1:6173/app/");
    }

    #[test]
    fn cookies_scoped_to_the_target_lose_their_domain() {
        let mut h = HeaderMap::new();
        h.append(header::SET_COOKIE, "a=1; Domain=127.0.0.1; Path=/".parse().unwrap());
        h.append(header::SET_COOKIE, "b=2; domain=.example.test".parse().unwrap());
        h.append(header::SET_COOKIE, "c=3; HttpOnly".parse().unwrap());
        rewrite_cookies(&mut h, &target());
        let all: Vec<_> = h
            .get_all(header::SET_COOKIE)
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(all, ["a=1; Path=/", "b=2; domain=.example.test", "c=3; HttpOnly"]);
    }

    #[test]
    fn hop_by_hop_headers_go_with_those_connection_names() {
        let mut h = HeaderMap::new();
        h.insert(header::CONNECTION, "keep-alive, x-private".parse().unwrap());
        h.insert("x-private", "1".parse().unwrap());
        h.insert("keep-alive", "timeout=5".parse().unwrap());
        h.insert(header::TRANSFER_ENCODING, "chunked".parse().unwrap());
        h.insert(header::CONTENT_TYPE, "text/html".parse().unwrap());
        remove_hop_by_hop(&mut h);
        assert_eq!(h.keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["content-type"]);
    }
}
