//! Who may talk to which route: loopback (or configured) `Host`, same-origin `Origin` (no `Origin`
//! at all on the MCP endpoint, unless allowed), the page key on browser writes, the optional bearer
//! token on agent routes. Every refusal says why.

use http::{header, request::Parts, HeaderMap, Uri};

use crate::error::Refusal;

/// Hosts answered without configuration.
const LOOPBACK: [&str; 4] = ["localhost", "127.0.0.1", "[::1]", "::1"];

/// The request's authority (`Host`, else the URI's), trimmed, as bytes: borrowed and unvalidated,
/// as this runs on every page request (only ASCII can match a loopback name anyway).
fn authority<'a>(headers: &'a HeaderMap, uri: &'a Uri) -> Option<&'a [u8]> {
    headers
        .get(header::HOST)
        .map(|h| h.as_bytes())
        .or_else(|| uri.authority().map(|a| a.as_str().as_bytes()))
        .map(<[u8]>::trim_ascii)
}

/// `host[:port]` → `host` (keeping IPv6 brackets).
fn host_only(authority: &[u8]) -> &[u8] {
    if authority.first() == Some(&b'[') {
        return authority
            .iter()
            .position(|b| *b == b']')
            .map_or(authority, |end| &authority[..=end]);
    }
    match authority.iter().rposition(|b| *b == b':') {
        Some(colon) if authority[colon + 1..].iter().all(u8::is_ascii_digit) => &authority[..colon],
        _ => authority,
    }
}

/// Whether `host` (no port) is loopback: `localhost`, `*.localhost`, `127.0.0.1`, `[::1]`.
fn is_loopback(host: &[u8]) -> bool {
    const SUFFIX: &[u8] = b".localhost";
    LOOPBACK.iter().any(|l| l.as_bytes().eq_ignore_ascii_case(host))
        || (host.len() > SUFFIX.len() && host[host.len() - SUFFIX.len()..].eq_ignore_ascii_case(SUFFIX))
}

/// Whether an authority (`host[:port]`, as sent) is loopback or in `allowed`, without saying why not.
pub(crate) fn host_allowed(auth: &[u8], allowed: &[String]) -> bool {
    let auth = auth.trim_ascii();
    let host = host_only(auth);
    is_loopback(host)
        || allowed
            .iter()
            .any(|a| a.as_bytes().eq_ignore_ascii_case(host) || a.as_bytes().eq_ignore_ascii_case(auth))
}

/// Checks `Host` against loopback and `allowed` (entries are host or host:port, case-insensitive).
pub(crate) fn check_host(headers: &HeaderMap, uri: &Uri, allowed: &[String]) -> Result<(), Refusal> {
    let auth = authority(headers, uri).ok_or(Refusal::NoHost)?;
    if host_allowed(auth, allowed) {
        return Ok(());
    }
    Err(Refusal::HostNotAllowed {
        authority: String::from_utf8_lossy(auth).to_ascii_lowercase(),
        host: String::from_utf8_lossy(host_only(auth)).to_ascii_lowercase(),
    })
}

/// The scheme this server is reached by: the request URI's (HTTP/2, absolute-form), else the
/// `X-Forwarded-Proto` of a TLS-terminating proxy in front of the dev server (a cross-site page
/// cannot set it: a custom header needs a CORS preflight, which our routes never grant), else `http`.
fn own_scheme(parts: &Parts) -> String {
    if let Some(s) = parts.uri.scheme_str() {
        return s.to_ascii_lowercase();
    }
    parts
        .headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| v == "http" || v == "https")
        .unwrap_or_else(|| "http".to_owned())
}

/// When `Origin` is present it must be the page's own origin: same scheme and same authority as
/// `Host` (so `https://127.0.0.1:PORT` is not the origin of an `http` server on that port).
pub(crate) fn check_origin(parts: &Parts) -> Result<(), Refusal> {
    let Some(origin) = parts.headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or("").trim().to_ascii_lowercase();
    let own = String::from_utf8_lossy(authority(&parts.headers, &parts.uri).unwrap_or_default()).to_ascii_lowercase();
    let (scheme, rest) = origin.split_once("://").unwrap_or(("", ""));
    let strip_default = |a: &str, scheme: &str| -> String {
        let default = if scheme == "https" { ":443" } else { ":80" };
        a.strip_suffix(default).unwrap_or(a).to_owned()
    };
    if (scheme == "http" || scheme == "https")
        && scheme == own_scheme(parts)
        && !own.is_empty()
        && strip_default(rest, scheme) == strip_default(&own, scheme)
    {
        Ok(())
    } else {
        Err(Refusal::CrossOrigin { origin })
    }
}

/// The MCP endpoint's rule, stricter than [`check_origin`]: MCP clients are not browsers and send
/// no `Origin`, so any `Origin` is refused unless it is in `allowed` (as `scheme://host[:port]`,
/// case-insensitive; `:*` matches any port, e.g. `http://localhost:*`).
pub(crate) fn check_mcp_origin(parts: &Parts, allowed: &[String]) -> Result<(), Refusal> {
    let Some(origin) = parts.headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = String::from_utf8_lossy(origin.as_bytes()).trim().to_ascii_lowercase();
    let listed = |entry: &String| {
        let entry = entry.trim().trim_end_matches('/').to_ascii_lowercase();
        match entry.strip_suffix(":*") {
            Some(base) => origin.strip_prefix(base).is_some_and(|port| {
                port.is_empty()
                    || port
                        .strip_prefix(':')
                        .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
            }),
            None => entry == origin,
        }
    };
    if allowed.iter().any(listed) {
        Ok(())
    } else {
        Err(Refusal::McpOrigin { origin })
    }
}

/// Agent routes answer a browser only for its own origin's requests: `Sec-Fetch-Site`, which
/// every current browser sends and no page can set, must then be `same-origin` (the app's page)
/// or `none` (the user typed the URL). `same-site` is refused too: another port of the same host
/// is another origin. Non-browser clients (curl, the agent) send none and pass.
pub(crate) fn check_fetch_site(parts: &Parts) -> Result<(), Refusal> {
    let Some(site) = parts.headers.get(SEC_FETCH_SITE) else {
        return Ok(());
    };
    let site = site.to_str().unwrap_or("").trim().to_ascii_lowercase();
    if site == "same-origin" || site == "none" {
        Ok(())
    } else {
        Err(Refusal::CrossSite { site })
    }
}

/// The header browsers put on every request to say who made it.
const SEC_FETCH_SITE: &str = "sec-fetch-site";

/// A `GET {prefix}/snapshot` makes the page work, so it must not be a request a cross-site page
/// can make with `<img>` or `<script>`: a browser's GET must carry `Sec-Fetch-Site` (checked by
/// [`check_fetch_site`]). A browser that sends none (Firefox before 90, Safari before 16.4) is
/// known by its `User-Agent: Mozilla/…`, which a page cannot change on a subresource, and is told
/// to POST; curl and other non-browser clients keep their GET.
pub(crate) fn check_snapshot_get(parts: &Parts) -> Result<(), Refusal> {
    if parts.headers.contains_key(SEC_FETCH_SITE) {
        return Ok(());
    }
    let browser = parts
        .headers
        .get(header::USER_AGENT)
        .is_some_and(|ua| ua.as_bytes().starts_with(b"Mozilla/"));
    if browser || parts.headers.contains_key(header::ORIGIN) || parts.headers.contains_key(header::REFERER) {
        Err(Refusal::SnapshotGet)
    } else {
        Ok(())
    }
}

/// Whether `Content-Type` is exactly `application/json`, parameters allowed (`; charset=utf-8`),
/// case-insensitive; `application/jsonx` or `text/plain` is not.
pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split(';').next().unwrap_or("").trim();
            essence.eq_ignore_ascii_case("application/json")
        })
}

/// The page key from the `x-browser-agent-key` header or the `key` query parameter.
pub(crate) fn presented_key(parts: &Parts) -> Option<String> {
    if let Some(v) = parts
        .headers
        .get(crate::protocol::KEY_HEADER)
        .and_then(|v| v.to_str().ok())
    {
        return Some(v.trim().to_owned());
    }
    crate::util::Params::parse(parts.uri.query())
        .first(crate::protocol::param::KEY)
        .map(str::to_owned)
}

/// Compares without an early exit, so timing does not reveal how much of a guess was right.
pub(crate) fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks `Authorization: Bearer <token>` when a token is configured.
pub(crate) fn check_bearer(parts: &Parts, token: Option<&str>) -> Result<(), Refusal> {
    let Some(token) = token else { return Ok(()) };
    let given = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        // The scheme is case-insensitive (RFC 9110 §11.1): `bearer t0k` is one too.
        .and_then(|v| v.trim_start().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim());
    match given {
        Some(g) if same_secret(g, token) => Ok(()),
        _ => Err(Refusal::BadToken),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(headers: &[(&str, &str)]) -> Parts {
        let mut b = http::Request::builder().uri("/x");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(()).unwrap().into_parts().0
    }

    fn host_of(h: &[(&str, &str)], allowed: &[String]) -> Result<(), String> {
        let p = parts(h);
        check_host(&p.headers, &p.uri, allowed).map_err(|r| r.to_string())
    }

    #[test]
    fn hosts() {
        for ok in [
            "localhost:3000",
            "127.0.0.1",
            "[::1]:8080",
            "LOCALHOST",
            "app.localhost:1",
        ] {
            assert!(host_of(&[("host", ok)], &[]).is_ok(), "{ok}");
        }
        for bad in [
            "evil.com",
            "127.0.0.1.evil.com:3000",
            "192.168.1.5:3000",
            "localhost.evil",
        ] {
            let err = host_of(&[("host", bad)], &[]).unwrap_err();
            assert!(err.contains("not loopback"), "{bad}: {err}");
        }
        assert!(host_of(&[], &[]).unwrap_err().contains("no Host"));
        assert!(host_of(&[("host", "dev.box:3000")], &["dev.box".into()]).is_ok());
        assert!(host_of(&[("host", "dev.box:3000")], &["dev.box:3000".into()]).is_ok());
        assert!(host_of(&[("host", "dev.box:4000")], &["dev.box:3000".into()]).is_err());
    }

    #[test]
    fn origins() {
        assert!(check_origin(&parts(&[("host", "127.0.0.1:3000")])).is_ok());
        assert!(check_origin(&parts(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "http://127.0.0.1:3000")
        ]))
        .is_ok());
        assert!(check_origin(&parts(&[("host", "localhost"), ("origin", "http://localhost:80")])).is_ok());
        for bad in [
            "http://evil.com",
            "null",
            "http://127.0.0.1:3001",
            "file://",
            "http://127.0.0.1:3000.evil.com",
        ] {
            assert!(
                check_origin(&parts(&[("host", "127.0.0.1:3000"), ("origin", bad)])).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn mcp_origins() {
        let p = |origin: &str| parts(&[("host", "127.0.0.1:3000"), ("origin", origin)]);
        assert!(check_mcp_origin(&parts(&[("host", "127.0.0.1:3000")]), &[]).is_ok());
        assert!(
            check_mcp_origin(&p("http://127.0.0.1:3000"), &[]).is_err(),
            "not even same-origin"
        );
        let allowed = ["http://localhost:6274/".to_owned(), "http://127.0.0.1:*".to_owned()];
        for ok in [
            "http://localhost:6274",
            "HTTP://LOCALHOST:6274",
            "http://127.0.0.1:9",
            "http://127.0.0.1",
        ] {
            assert!(check_mcp_origin(&p(ok), &allowed).is_ok(), "{ok}");
        }
        for bad in [
            "http://localhost:6275",
            "http://127.0.0.1.evil.com",
            "http://127.0.0.1:9x",
            "null",
        ] {
            let err = check_mcp_origin(&p(bad), &allowed).unwrap_err();
            assert!(err.to_string().contains("mcp_allow_origin"), "{bad}: {err}");
        }
    }

    #[test]
    fn fetch_sites() {
        assert!(check_fetch_site(&parts(&[])).is_ok());
        for ok in ["same-origin", "none", "Same-Origin"] {
            assert!(check_fetch_site(&parts(&[("sec-fetch-site", ok)])).is_ok(), "{ok}");
        }
        for bad in ["cross-site", "same-site", "", "bogus"] {
            let err = check_fetch_site(&parts(&[("sec-fetch-site", bad)])).unwrap_err();
            assert_eq!(err.status(), 403);
            assert!(err.to_string().contains("Sec-Fetch-Site"), "{err}");
        }
    }

    #[test]
    fn snapshot_gets() {
        assert!(check_snapshot_get(&parts(&[("user-agent", "curl/8.5.0")])).is_ok());
        assert!(check_snapshot_get(&parts(&[])).is_ok());
        assert!(check_snapshot_get(&parts(&[("sec-fetch-site", "same-origin")])).is_ok());
        for h in [
            (
                "user-agent",
                "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/88.0",
            ),
            ("referer", "http://evil.example/"),
            ("origin", "http://evil.example"),
        ] {
            let err = check_snapshot_get(&parts(&[h])).unwrap_err();
            assert!(err.to_string().contains("POST"), "{h:?}: {err}");
        }
    }

    #[test]
    fn json_types() {
        for ok in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            " application/json ;x=1",
        ] {
            assert!(is_json(&parts(&[("content-type", ok)]).headers), "{ok}");
        }
        for bad in [
            "application/jsonx",
            "text/plain",
            "application/json-seq",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=application/json",
            "",
        ] {
            assert!(!is_json(&parts(&[("content-type", bad)]).headers), "{bad}");
        }
        assert!(!is_json(&parts(&[]).headers));
    }

    #[test]
    fn origin_schemes() {
        let host = ("host", "127.0.0.1:3000");
        assert!(check_origin(&parts(&[host, ("origin", "https://127.0.0.1:3000")])).is_err());
        assert!(check_origin(&parts(&[
            host,
            ("x-forwarded-proto", "https"),
            ("origin", "https://127.0.0.1:3000")
        ]))
        .is_ok());
        assert!(check_origin(&parts(&[
            host,
            ("x-forwarded-proto", "https"),
            ("origin", "http://127.0.0.1:3000")
        ]))
        .is_err());
    }

    #[test]
    fn keys_and_tokens() {
        let p = http::Request::builder()
            .uri("/x?a=1&key=abc")
            .body(())
            .unwrap()
            .into_parts()
            .0;
        assert_eq!(presented_key(&p).as_deref(), Some("abc"));
        assert_eq!(
            presented_key(&parts(&[("x-browser-agent-key", "h")])).as_deref(),
            Some("h")
        );
        assert!(same_secret("abc", "abc") && !same_secret("abc", "abd") && !same_secret("abc", "ab"));
        assert!(check_bearer(&parts(&[]), None).is_ok());
        assert!(check_bearer(&parts(&[("authorization", "Bearer t0k")]), Some("t0k")).is_ok());
        assert!(check_bearer(&parts(&[("authorization", "Bearer nope")]), Some("t0k")).is_err());
        assert!(check_bearer(&parts(&[("authorization", "bearer t0k")]), Some("t0k")).is_ok());
        assert!(check_bearer(&parts(&[("authorization", "Basic t0k")]), Some("t0k")).is_err());
        assert!(check_bearer(&parts(&[("authorization", "t0k")]), Some("t0k")).is_err());
    }
}
