//! [`Target`]: the upstream dev server, as `--target` names it.

use std::fmt;
use std::str::FromStr;

/// The upstream dev server: `http://host[:port][/]` or `https://host[:port][/]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Host name or IP literal as given (`localhost`, `127.0.0.1`, `[::1]`).
    pub host: String,
    /// Port (80, or 443 for https, when the URL names none).
    pub port: u16,
    /// Whether the dev server speaks TLS (`https://`); the browser still speaks plain http to us.
    pub tls: bool,
}

impl Target {
    /// `http` or `https`: how we speak to the dev server.
    pub fn scheme(&self) -> &'static str {
        if self.tls {
            "https"
        } else {
            "http"
        }
    }

    /// `host:port`, what the upstream's `Host` header says.
    pub fn authority(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// The host to connect to, without the brackets of an IPv6 literal.
    pub fn connect_host(&self) -> &str {
        self.host.trim_start_matches('[').trim_end_matches(']')
    }

    /// Whether `authority` (`host[:port]`, from a `Location` URL) is this target: the same host and
    /// port, or any loopback name with the same port when the target is on loopback (a dev server
    /// asked on `127.0.0.1` often redirects to `localhost`).
    pub fn is_authority(&self, authority: &str) -> bool {
        let (host, port) = split_authority(authority);
        let port = port.unwrap_or(if self.tls { 443 } else { 80 });
        if port != self.port {
            return false;
        }
        host.eq_ignore_ascii_case(&self.host) || (is_loopback(&self.host) && is_loopback(host))
    }
}

fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `host[:port]` split (an IPv6 literal keeps its brackets); a port that is not a number counts as none.
pub(crate) fn split_authority(authority: &str) -> (&str, Option<u16>) {
    let colon = if authority.starts_with('[') {
        authority
            .find(']')
            .and_then(|end| authority[end..].find(':').map(|c| end + c))
    } else {
        authority.rfind(':')
    };
    match colon {
        Some(at) => (&authority[..at], authority[at + 1..].parse().ok()),
        None => (authority, None),
    }
}

impl FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (rest, tls) = if let Some(rest) = s.strip_prefix("http://") {
            (rest, false)
        } else if let Some(rest) = s.strip_prefix("https://") {
            if !cfg!(feature = "https") {
                return Err(
                    "this browser-agent was built without the `https` feature, so it cannot speak TLS to an https:// dev server (rebuild it with the default features)"
                        .into(),
                );
            }
            (rest, true)
        } else if s.contains("://") {
            return Err("only http:// and https:// URLs are supported".into());
        } else {
            // `localhost:5173` and `5173` are what people type.
            (s, false)
        };
        let (authority, path) = match rest.find(['/', '?', '#']) {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, ""),
        };
        if !(path.is_empty() || path == "/") {
            return Err(format!(
                "the target must be the dev server's root, without a path or query (got {path:?})"
            ));
        }
        if authority.parse::<u16>() == Ok(0) || split_authority(authority).1 == Some(0) {
            return Err("port 0 is no dev server's address: give the port it listens on".into());
        }
        if let Ok(port) = authority.parse::<u16>() {
            return Ok(Target {
                host: "127.0.0.1".into(),
                port,
                tls,
            });
        }
        let (host, port) = split_authority(authority);
        if host.is_empty() || host.contains(['@', '?', '#', ' ']) {
            return Err("expected http://HOST:PORT or https://HOST:PORT, e.g. http://127.0.0.1:5173".into());
        }
        if authority.len() > host.len() && port.is_none() {
            return Err(format!("invalid port in {authority:?}"));
        }
        Ok(Target {
            host: host.to_owned(),
            port: port.unwrap_or(if tls { 443 } else { 80 }),
            tls,
        })
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}:{}", self.scheme(), self.host, self.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_as_people_type_them() {
        let t = |s: &str| s.parse::<Target>();
        assert_eq!(t("http://127.0.0.1:5173").unwrap().authority(), "127.0.0.1:5173");
        assert_eq!(t("http://localhost:3000/").unwrap().port, 3000);
        assert_eq!(t("localhost:8000").unwrap().host, "localhost");
        assert_eq!(t("5173").unwrap().to_string(), "http://127.0.0.1:5173");
        assert_eq!(t("http://example.test").unwrap().port, 80);
        assert_eq!(t("http://[::1]:5173").unwrap().connect_host(), "::1");
        let https = t("https://localhost:5173").unwrap();
        assert!(https.tls && https.to_string() == "https://localhost:5173");
        assert_eq!(t("https://dev.test").unwrap().port, 443);
        assert!(!t("5173").unwrap().tls);
        assert!(t("ftp://x:1").unwrap_err().contains("only http:// and https://"));
        assert!(t("http://x:1/app").unwrap_err().contains("without a path"));
        assert!(t("http://127.0.0.1:5273?x=1")
            .unwrap_err()
            .contains("without a path or query (got \"?x=1\")"));
        assert!(t("http://x:port").unwrap_err().contains("invalid port"));
        assert!(t("http://:80").is_err());
        assert!(t("http://127.0.0.1:0").unwrap_err().contains("port 0"));
        assert!(t("0").unwrap_err().contains("port 0"));
    }

    #[test]
    fn loopback_names_are_one_host() {
        let t: Target = "http://127.0.0.1:5173".parse().unwrap();
        assert!(t.is_authority("localhost:5173") && t.is_authority("[::1]:5173") && t.is_authority("127.0.0.1:5173"));
        assert!(!t.is_authority("localhost:5174") && !t.is_authority("example.test:5173"));
        let t: Target = "https://localhost".parse().unwrap();
        assert!(t.is_authority("127.0.0.1:443") && t.is_authority("localhost") && !t.is_authority("localhost:80"));
    }
}
