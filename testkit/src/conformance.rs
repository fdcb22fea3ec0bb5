//! The HTTP conformance suite, written once and run against every adapter: each case is a function
//! of the address of a real loopback server whose agent is [`agent`], started by that adapter's
//! test app. [`conformance_suite!`](crate::conformance_suite) makes one `#[tokio::test]` per case
//! from a `spawn(agent, dir, addr) -> io::Result<server with an addr field>`:
//!
//! ```ignore
//! mod axum_adapter {
//!     browser_agent_testkit::conformance_suite!(browser_agent_testkit::axum_app::spawn);
//! }
//! ```
//!
//! A difference between adapters is a failing test, but for the one core's rules make on purpose:
//! a page that comes compressed. The tower and actix adapters pass it untouched (the app compresses
//! after them; [`cases::a_compressed_page_passes_untouched`]); the CLI's proxy decodes it and tags
//! it ([`take_decodable_coding`](browser_agent_core::adapter::gate::take_decodable_coding)), which
//! its own `browser-agent-cli/tests/compressed.rs` checks with real gzip, deflate and br. Its
//! instance says so: `conformance_suite!(spawn, decodes_compressed_pages)`.
//!
//! The instances: `testkit/tests/conformance.rs` (axum, actix),
//! `browser-agent-cli/tests/conformance_proxy.rs` (the CLI's proxy).

use std::net::SocketAddr;

use crate::http::{send, send_chunked, send_partial, Resp};
use crate::{demo_route, fixtures, tag_config};
use browser_agent_core::BrowserAgent;
use serde_json::{json, Value};

/// The page key of the suite's agent.
pub const KEY: &str = "conformance-key-0001";
const P: &str = "/__mindstudio_dev__";

/// The agent type, for the suite's macro.
pub type Agent = BrowserAgent;

/// The agent every case expects: enabled, key [`KEY`], a 64 KiB body limit.
pub fn agent() -> BrowserAgent {
    BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .body_limit(64 * 1024)
        .build()
}

fn keyed() -> [(&'static str, &'static str); 2] {
    [("x-browser-agent-key", KEY), ("content-type", "application/json")]
}

async fn console(addr: SocketAddr, query: &str) -> Value {
    let r = send(addr, "GET", &format!("{P}/console?{query}"), &[], b"").await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

async fn stored(addr: SocketAddr) -> u64 {
    console(addr, "limit=0").await["lastSeq"].as_u64().unwrap()
}

async fn post_logs(addr: SocketAddr, body: Value) -> Resp {
    send(
        addr,
        "POST",
        &format!("{P}/logs"),
        &keyed(),
        body.to_string().as_bytes(),
    )
    .await
}

fn no_wildcard_cors(r: &Resp) {
    assert_ne!(r.header("access-control-allow-origin"), Some("*"), "never ACAO *");
}

/// `page` with `tag` inserted right after `marker` (which must occur once).
fn with_tag_after(page: &[u8], marker: &[u8], tag: &[u8]) -> Vec<u8> {
    let at = page.windows(marker.len()).position(|w| w == marker).expect("marker") + marker.len();
    [&page[..at], tag, &page[at..]].concat()
}

/// The cases, each named for what it checks, each a function of the server's address (and, where
/// it compares pages, the agent's tag).
#[allow(missing_docs)]
pub mod cases {
    use super::*;

    pub async fn probe_get_answers_but_only_a_keyed_one_proves_a_page(addr: SocketAddr) {
        let r = send(addr, "GET", "/browser/probe?page=alice-check&phase=probe", &[], b"").await;
        assert_eq!((r.status, r.json()), (200, json!({"ok": true})));
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert!(r.header("x-browser-agent-rev").is_some_and(|v| v.len() == 16));
        no_wildcard_cors(&r);
        let page = send(addr, "GET", &format!("{P}/page"), &[], b"").await.json();
        assert_eq!(page["pages"], json!([]), "a keyless heartbeat never makes a page alive");
        assert_eq!(page["clientAlive"], json!(false));

        let url = format!("/browser/probe?key={KEY}&client=c1&page=http%3A%2F%2F127.0.0.1%2Fa&title=A&phase=ready&visible=1&focused=1&iframe=0");
        assert_eq!(send(addr, "GET", &url, &[], b"").await.json(), json!({"ok": true}));
        let page = send(addr, "GET", &format!("{P}/page"), &[], b"").await.json();
        assert_eq!(page["defaultTarget"], "c1");
        assert_eq!(page["clientAlive"], true);
        assert_eq!(page["page"], "http://127.0.0.1/a");
        let p0 = &page["pages"][0];
        assert_eq!(
            (p0["clientId"].as_str(), p0["phase"].as_str(), p0["title"].as_str()),
            (Some("c1"), Some("ready"), Some("A"))
        );
        assert_eq!(
            (
                p0["alive"].as_bool(),
                p0["visible"].as_bool(),
                p0["focused"].as_bool(),
                p0["inIframe"].as_bool()
            ),
            (Some(true), Some(true), Some(true), Some(false))
        );
        let c = console(addr, "").await;
        assert_eq!(
            (
                c["clientAlive"].as_bool(),
                c["clientPhase"].as_str(),
                c["lastSeenAgoSec"].as_u64()
            ),
            (Some(true), Some("ready"), Some(0))
        );
        assert!(c["lastSeenAt"].as_u64().unwrap() > 1_600_000_000_000);
        for field in [
            "count",
            "logs",
            "page",
            "clientPhase",
            "clientAlive",
            "lastSeenAt",
            "lastSeenAgoSec",
        ] {
            assert!(c.get(field).is_some(), "console answer has {field}");
        }
    }

    pub async fn other_paths_under_browser_are_404(addr: SocketAddr) {
        for path in ["/browser/nope", "/browser/probe/", "/browser/probe/x"] {
            let r = send(addr, "GET", path, &[], b"").await;
            assert_eq!(r.status, 404, "{path}");
            assert!(r.error().contains(path), "{}", r.text());
        }
    }

    pub async fn probe_post_stores_dsh_logs(addr: SocketAddr) {
        let body = json!({"logs": [{"t": 5, "level": "error", "text": "probe-x"}, {"text": ""}, {"level": 7, "text": 42}], "page": "http://127.0.0.1/dsh | Title", "phase": "hooked"});
        let r = send(addr, "POST", "/browser/probe", &keyed(), body.to_string().as_bytes()).await;
        assert_eq!((r.status, r.json()), (200, json!({"ok": true})));
        let c = console(addr, "level=error").await;
        assert_eq!(c["count"], 1);
        let e = &c["logs"][0];
        assert_eq!(
            (e["text"].as_str(), e["t"].as_u64(), e["page"].as_str()),
            (Some("probe-x"), Some(5), Some("http://127.0.0.1/dsh | Title"))
        );
        let all = console(addr, "").await;
        assert_eq!(all["count"], 2, "the empty text is dropped");
        assert_eq!(
            (all["logs"][1]["text"].as_str(), all["logs"][1]["level"].as_str()),
            (Some("42"), Some("info"))
        );
    }

    pub async fn probe_post_refusals_store_nothing(addr: SocketAddr) {
        post_logs(addr, json!([{"type": "console", "level": "log", "args": ["kept"]}])).await;
        let before = stored(addr).await;
        let r = send(addr, "POST", "/browser/probe", &keyed(), b"{not json").await;
        assert_eq!(r.status, 400);
        assert!(r.error().contains("not valid JSON"), "{}", r.text());
        let r = send(addr, "POST", "/browser/probe", &keyed(), br#"{"logs":"nope"}"#).await;
        assert_eq!(r.status, 400);
        assert!(r.error().contains("\"logs\""));
        let r = send(addr, "POST", "/browser/probe", &keyed(), br#"{"page":5}"#).await;
        assert!(r.status == 400 && r.error().contains("\"page\""));
        let r = send(
            addr,
            "POST",
            "/browser/probe",
            &[("content-type", "application/json")],
            br#"{"logs":[{"text":"forged"}]}"#,
        )
        .await;
        assert_eq!(r.status, 403);
        assert!(r.error().contains("page key"), "{}", r.text());
        assert_eq!(stored(addr).await, before);
        assert_eq!(console(addr, "").await["logs"][0]["text"], "kept");
    }

    pub async fn logs_accept_both_seed_shapes_with_readable_text(addr: SocketAddr) {
        let batch = json!([
            {"type": "console", "level": "warn", "args": ["careful", {"n": 1}], "url": "http://127.0.0.1/p", "clientId": "c9", "seq": 1},
            {"type": "error", "message": "TypeError: x is undefined", "stack": "TypeError…", "source": "http://127.0.0.1/app.js", "line": 3, "column": 7, "clientId": "c9", "seq": 2},
            {"type": "network", "method": "GET", "url": "/api/items", "status": 500, "statusText": "Internal Server Error", "duration": 12, "ok": false, "body": "{\"error\":1}", "clientId": "c9", "seq": 3},
            {"type": "interaction", "event": "click", "target": "button \"Save\"", "text": "Save", "clientId": "c9", "seq": 4},
            {"t": 7, "level": "info", "text": "dsh style"},
            {"type": "custom", "message": "kept as is", "extra": true}
        ]);
        let r = post_logs(addr, batch).await;
        assert_eq!(r.status, 204, "{}", r.text());
        assert!(r.body.is_empty());
        let c = console(addr, "").await;
        let texts: Vec<&str> = c["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["text"].as_str().unwrap())
            .collect();
        assert_eq!(
            texts,
            [
                "dsh style",
                "careful {\"n\":1}",
                "TypeError: x is undefined (http://127.0.0.1/app.js:3:7)",
                "GET /api/items → 500 Internal Server Error (12 ms)",
                "click button \"Save\"",
                "kept as is",
            ],
            "in the order they happened: the dsh entry says t=7"
        );
        let levels: Vec<&str> = c["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["level"].as_str().unwrap())
            .collect();
        assert_eq!(levels, ["info", "warn", "error", "error", "info", "info"]);
        let net = &c["logs"][3];
        assert_eq!(
            (
                net["body"].as_str(),
                net["clientId"].as_str(),
                net["type"].as_str(),
                net["page"].as_str()
            ),
            (
                Some("{\"error\":1}"),
                Some("c9"),
                Some("network"),
                Some("http://127.0.0.1/p")
            )
        );
        assert_eq!(c["logs"][5]["extra"], true, "unknown fields are kept");
        let mut seqs: Vec<u64> = c["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_u64().unwrap())
            .collect();
        seqs.sort_unstable();
        assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1));
    }

    pub async fn retried_batches_are_stored_once(addr: SocketAddr) {
        let batch = json!([{"type": "console", "level": "log", "args": ["a"], "clientId": "r1", "seq": 1}, {"type": "console", "level": "log", "args": ["b"], "clientId": "r1", "seq": 2}]);
        assert_eq!(post_logs(addr, batch.clone()).await.status, 204);
        assert_eq!(post_logs(addr, batch).await.status, 204);
        let overlap = json!([{"type": "console", "level": "log", "args": ["b"], "clientId": "r1", "seq": 2}, {"type": "console", "level": "log", "args": ["c"], "clientId": "r1", "seq": 3}]);
        assert_eq!(post_logs(addr, overlap).await.status, 204);
        let c = console(addr, "client=r1").await;
        let texts: Vec<&str> = c["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["text"].as_str().unwrap())
            .collect();
        assert_eq!(texts, ["a", "b", "c"]);
    }

    pub async fn logs_refusals_store_nothing(addr: SocketAddr) {
        post_logs(addr, json!([{"type": "console", "args": ["first"]}])).await;
        let before = stored(addr).await;
        let cases: [(&[u8], &str); 4] = [
            (b"{\"type\":\"console\"}", "JSON array"),
            (
                b"[{\"type\":\"console\",\"args\":[\"ok\"]}, 5]",
                "entry 1 is not an object",
            ),
            (
                b"[{\"type\":\"console\",\"args\":[\"ok\"]},{\"type\":\"console\",\"seq\":\"x\"}]",
                "entry 1 has an invalid \"seq\"",
            ),
            (b"not json", "not valid JSON"),
        ];
        for (body, needle) in cases {
            let r = send(addr, "POST", &format!("{P}/logs"), &keyed(), body).await;
            assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(body));
            assert!(r.error().contains(needle), "{} lacks {needle}", r.text());
        }
        let body = br#"[{"type":"console","args":["forged"]}]"#;
        for headers in [vec![], vec![("x-browser-agent-key", "wrong-key-0000")]] {
            let r = send(addr, "POST", &format!("{P}/logs"), &headers, body).await;
            assert_eq!(r.status, 403);
            assert!(r.error().contains("page key"));
        }
        let r = send(addr, "POST", &format!("{P}/logs"), &[("host", "evil.example")], body).await;
        assert_eq!(r.status, 403);
        assert_eq!(stored(addr).await, before, "refused requests change nothing");
        // sendBeacon cannot set headers: the key goes in the query, the body may be text/plain.
        let r = send(
            addr,
            "POST",
            &format!("{P}/logs?key={KEY}"),
            &[("content-type", "text/plain;charset=UTF-8")],
            br#"[{"type":"console","args":["beacon"]}]"#,
        )
        .await;
        assert_eq!(r.status, 204);
        assert_eq!(stored(addr).await, before + 1);
    }

    pub async fn console_filters_and_errors(addr: SocketAddr) {
        let entries: Vec<Value> = (0..6)
            .map(|i| {
                let kind = if i % 2 == 0 { "console" } else { "network" };
                let level = ["log", "error", "warn"][i % 3];
                let client = if i < 3 { "a" } else { "b" };
                json!({"type": kind, "level": level, "args": [format!("m{i}")], "t": 1000 + i * 10, "clientId": client, "method": "GET", "url": format!("/u{i}"), "status": 200, "statusText": "OK", "duration": 1})
            })
            .collect();
        assert_eq!(post_logs(addr, Value::Array(entries)).await.status, 204);
        let ts = |v: Value| {
            v["logs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["t"].as_u64().unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(ts(console(addr, "level=error").await), [1010, 1040]);
        assert_eq!(ts(console(addr, "sinceMs=1030").await), [1030, 1040, 1050]);
        assert_eq!(ts(console(addr, "limit=2").await), [1040, 1050]);
        assert_eq!(console(addr, "limit=0").await["count"], 0);
        assert_eq!(ts(console(addr, "type=console").await), [1000, 1020, 1040]);
        assert_eq!(ts(console(addr, "client=b&type=console").await), [1040]);
        assert_eq!(ts(console(addr, "afterSeq=4").await), [1040, 1050]);
        for (query, needle) in [
            ("level=fatal", "level"),
            ("limit=-1", "limit"),
            ("sinceMs=soon", "sinceMs"),
            ("afterSeq=x", "afterSeq"),
            (
                "type=bogus",
                "invalid type \"bogus\": use console, error, network, websocket, dialog, interaction, navigation, dropped or server",
            ),
        ] {
            let r = send(addr, "GET", &format!("{P}/console?{query}"), &[], b"").await;
            assert_eq!(r.status, 400, "{query}");
            assert!(r.error().contains(needle), "{}", r.text());
        }
    }

    pub async fn unknown_paths_and_methods(addr: SocketAddr) {
        for path in [
            format!("{P}/nope"),
            format!("{P}/"),
            P.to_string(),
            format!("{P}/assets/client-0000.js"),
        ] {
            let r = send(addr, "GET", &path, &[], b"").await;
            assert_eq!(r.status, 404, "{path}");
            r.error();
        }
        for (method, path, allow) in [
            ("DELETE", format!("{P}/console"), "GET, HEAD"),
            ("POST", format!("{P}/page"), "GET, HEAD"),
            ("GET", format!("{P}/logs"), "POST"),
            ("PUT", "/browser/probe".to_string(), "GET, HEAD, POST"),
            ("OPTIONS", format!("{P}/logs"), "POST"),
        ] {
            let r = send(addr, method, &path, &[("origin", "http://evil.example")], b"").await;
            assert_eq!(r.status, 405, "{method} {path}");
            assert_eq!(r.header("allow"), Some(allow));
            assert!(r.error().contains(method));
            no_wildcard_cors(&r);
        }
    }

    pub async fn host_and_origin_refusals(addr: SocketAddr) {
        for host in ["evil.example", "127.0.0.1.evil.example:80", "192.168.0.10:3000"] {
            for path in [format!("{P}/console"), format!("{P}/page")] {
                let r = send(addr, "GET", &path, &[("host", host)], b"").await;
                assert_eq!(r.status, 403, "{host} {path}");
                assert!(r.error().contains("not loopback"));
            }
        }
        let own = format!("http://{addr}");
        let r = send(addr, "GET", &format!("{P}/console"), &[("origin", own.as_str())], b"").await;
        assert_eq!(r.status, 200, "same-origin pages may read");
        for origin in ["http://evil.example", "null", "http://localhost:1"] {
            let r = send(addr, "GET", &format!("{P}/console"), &[("origin", origin)], b"").await;
            assert_eq!(r.status, 403, "{origin}");
            assert!(r.error().contains("Origin"));
            no_wildcard_cors(&r);
        }
        for host in ["localhost", "[::1]:9", "app.localhost"] {
            assert_eq!(
                send(addr, "GET", &format!("{P}/page"), &[("host", host)], b"")
                    .await
                    .status,
                200,
                "{host}"
            );
        }
    }

    pub async fn bodies_over_the_limit_are_refused_without_reading_them(addr: SocketAddr) {
        post_logs(addr, json!([{"type": "console", "args": ["before"]}])).await;
        let before = stored(addr).await;
        let r = send_partial(
            addr,
            &format!("{P}/logs"),
            &[("x-browser-agent-key", KEY)],
            50 * 1024 * 1024,
            1024,
        )
        .await;
        assert_eq!(r.status, 413);
        assert!(r.error().contains("65536 bytes"), "{}", r.text());
        let r = send_chunked(addr, &format!("{P}/logs"), &[("x-browser-agent-key", KEY)], 1024 * 1024).await;
        assert_eq!(r.status, 413);
        let r = send_partial(
            addr,
            "/browser/probe",
            &[("x-browser-agent-key", KEY)],
            10 * 1024 * 1024,
            10,
        )
        .await;
        assert_eq!(r.status, 413);
        assert_eq!(stored(addr).await, before);
    }

    pub async fn assets_are_content_hashed_and_immutable(addr: SocketAddr) {
        let page = send(addr, "GET", "/", &[], b"").await;
        let cfg = tag_config(&page.text());
        assert_eq!((cfg.key.as_str(), cfg.prefix.as_str()), (KEY, P));
        assert_eq!(
            cfg.rev,
            send(addr, "GET", "/browser/probe", &[], b"")
                .await
                .header("x-browser-agent-rev")
                .unwrap()
        );
        for (url, ty) in [(&cfg.client, "text/javascript"), (&cfg.wasm, "application/wasm")] {
            if url.is_empty() {
                continue;
            }
            assert!(url.contains(&cfg.rev[..12]), "{url} is content-hashed");
            let r = send(addr, "GET", url, &[("host", "anything.example")], b"").await;
            assert_eq!(r.status, 200, "{url}");
            assert!(r.header("content-type").unwrap().starts_with(ty));
            assert_eq!(r.header("cache-control"), Some("public, max-age=31536000, immutable"));
            assert!(!r.body.is_empty());
            let head = send(addr, "HEAD", url, &[], b"").await;
            assert_eq!(head.status, 200);
            // Gzipped (the build's copy) only for clients that accept it; plain otherwise.
            let name = url.rsplit('/').next().unwrap();
            let asset = browser_agent_core::adapter::ClientAssets::embedded().get(name).unwrap();
            assert_eq!(r.header("content-encoding"), None, "{url}");
            assert_eq!(r.header("vary"), Some("accept-encoding"), "{url}");
            assert_eq!(r.body, asset.body, "{url}");
            let gz = send(addr, "GET", url, &[("accept-encoding", "gzip, deflate, br")], b"").await;
            assert_eq!(gz.status, 200, "{url}");
            assert_eq!(gz.header("content-encoding"), Some("gzip"), "{url}");
            assert_eq!(gz.header("vary"), Some("accept-encoding"), "{url}");
            assert_eq!(Some(&gz.body[..]), asset.gzip.as_deref(), "{url}");
            assert!(gz.body.len() < r.body.len() / 2, "{url}");
            let refused = send(addr, "GET", url, &[("accept-encoding", "gzip;q=0, br")], b"").await;
            assert_eq!(refused.header("content-encoding"), None, "{url}");
            assert_eq!(refused.body, asset.body, "{url}");
        }
    }

    pub async fn html_gets_the_tag_once_in_the_right_place(addr: SocketAddr, tag: &[u8]) {
        let html = fixtures::HTML.as_bytes();
        let want = with_tag_after(html, b"<meta charset=\"utf-8\">", tag);
        let sized = send(addr, "GET", "/fixtures/sized", &[], b"").await;
        assert_eq!(sized.status, 200);
        assert_eq!(sized.header("content-length"), Some(want.len().to_string().as_str()));
        assert_eq!(sized.body, want);
        let chunked = send(addr, "GET", "/fixtures/chunked", &[], b"").await;
        assert_eq!(
            chunked.body, want,
            "the same page streamed in 7-byte chunks gives the same bytes"
        );
        assert!(chunked.chunked || chunked.header("content-length").is_some());

        let latin1 = send(addr, "GET", "/fixtures/latin1", &[], b"").await;
        assert_eq!(
            latin1.body,
            with_tag_after(
                b"<html><head><title>caf\xe9</title></head><body>\xe9t\xe9</body></html>",
                b"<head>",
                tag
            ),
            "non-UTF-8 bytes survive"
        );
        let nohead = send(addr, "GET", "/fixtures/nohead", &[], b"").await;
        assert_eq!(
            nohead.body,
            with_tag_after(
                b"<!doctype html><title>no head</title><p>body text</p>",
                b"<!doctype html>",
                tag
            )
        );
        let error = send(addr, "GET", "/fixtures/error", &[], b"").await;
        assert_eq!(
            (
                error.status,
                error.body.windows(tag.len()).filter(|w| *w == tag).count()
            ),
            (500, 1),
            "error pages get the agent too"
        );
        let etag = send(addr, "GET", "/fixtures/etag", &[], b"").await;
        assert_eq!((etag.header("etag"), etag.header("accept-ranges")), (None, None));
        let page = send(addr, "GET", "/", &[("sec-fetch-dest", "document")], b"").await;
        assert_eq!(page.body.windows(tag.len()).filter(|w| *w == tag).count(), 1);
        assert!(page.body.starts_with(b"<!doctype html>"), "nothing before the doctype");
    }

    pub async fn csp_nonce_is_copied(addr: SocketAddr) {
        let r = send(addr, "GET", "/fixtures/nonce", &[], b"").await;
        let text = r.text();
        assert!(text.contains("nonce=\"fixture123\">"), "{text}");
        assert_eq!(
            r.header("content-length").map(|l| l.parse::<usize>().unwrap()),
            Some(r.body.len())
        );
    }

    pub async fn head_grows_only_the_length(addr: SocketAddr, tag: &[u8]) {
        let get = send(addr, "GET", "/fixtures/sized", &[], b"").await;
        let head = send(addr, "HEAD", "/fixtures/sized", &[], b"").await;
        assert_eq!(head.status, 200);
        assert_eq!(head.header("content-length"), get.header("content-length"));
        assert_eq!(get.body.len(), fixtures::HTML.len() + tag.len());
    }

    pub async fn what_is_not_ours_passes_untouched(addr: SocketAddr, tag: &[u8]) {
        let items = send(addr, "GET", "/api/items", &[], b"").await;
        assert_eq!(items.body, demo_route("/api/items").unwrap().body());
        let fail = send(addr, "GET", "/api/fail", &[], b"").await;
        assert_eq!((fail.status, fail.body), (500, demo_route("/api/fail").unwrap().body()));
        let posted = send(
            addr,
            "POST",
            "/api/items",
            &[("content-type", "application/json")],
            br#"{"name":"x"}"#,
        )
        .await;
        assert_eq!(posted.json().as_array().unwrap().len(), 4);
        for (path, want) in [
            ("/fixtures/json", fixtures::fixture("json").unwrap().chunks.concat()),
            ("/fixtures/xhtml", fixtures::HTML.as_bytes().to_vec()),
            ("/fixtures/partial", fixtures::HTML.as_bytes()[..20].to_vec()),
        ] {
            let r = send(addr, "GET", path, &[], b"").await;
            assert_eq!(r.body, want, "{path} untouched");
        }
        assert_eq!(send(addr, "GET", "/fixtures/partial", &[], b"").await.status, 206);
        let empty = send(addr, "GET", "/fixtures/empty", &[], b"").await;
        assert_eq!((empty.status, empty.body.len()), (204, 0));
        let not_modified = send(addr, "GET", "/fixtures/notmodified", &[], b"").await;
        assert_eq!((not_modified.status, not_modified.body.len()), (304, 0));
        for headers in [
            vec![("hx-request", "true")],
            vec![("turbo-frame", "main")],
            vec![("sec-fetch-dest", "empty")],
            vec![("x-requested-with", "XMLHttpRequest")],
            vec![("host", "evil.example")],
        ] {
            let r = send(addr, "GET", "/fixtures/sized", &headers, b"").await;
            assert_eq!(
                r.body,
                fixtures::HTML.as_bytes(),
                "{headers:?}: fragments and foreign hosts get no tag"
            );
        }
        let post = send(addr, "POST", "/fixtures/sized", &[], b"").await;
        assert!(
            !post.body.windows(tag.len()).any(|w| w == tag),
            "a script's POST gets no tag"
        );
        // A form's POST answered with a page (the form again, with its errors) is a navigation.
        let form = send(addr, "POST", "/fixtures/sized", &[("sec-fetch-dest", "document")], b"").await;
        assert!(
            form.body.windows(tag.len()).any(|w| w == tag),
            "a form's POST gets the tag"
        );
        let fetched = send(addr, "POST", "/fixtures/sized", &[("sec-fetch-dest", "empty")], b"").await;
        assert!(!fetched.body.windows(tag.len()).any(|w| w == tag));
    }

    /// A page the app compressed passes as it came, headers and bytes (the fixture's are not even
    /// gzip: nothing may try to read them). Not a case of an adapter that decodes such pages (the
    /// CLI's proxy: see the module docs).
    pub async fn a_compressed_page_passes_untouched(addr: SocketAddr) {
        let r = send(addr, "GET", "/fixtures/gzip", &[], b"").await;
        assert_eq!(r.header("content-encoding"), Some("gzip"));
        assert_eq!(r.body, fixtures::fixture("gzip").unwrap().chunks.concat(), "untouched");
    }

    /// Registers a page the way the client does (keyed heartbeat), so it can be a command target.
    async fn open_page(addr: SocketAddr, client: &str, visible: bool) {
        let url = format!(
            "/browser/probe?key={KEY}&client={client}&page=http%3A%2F%2F127.0.0.1%2F{client}&phase=ready&visible={}",
            visible as u8
        );
        assert_eq!(send(addr, "GET", &url, &[], b"").await.status, 200);
    }

    async fn poll(addr: SocketAddr, client: &str, wait: u64) -> Resp {
        send(
            addr,
            "GET",
            &format!("{P}/commands?client={client}&wait={wait}"),
            &[("x-browser-agent-key", KEY)],
            b"",
        )
        .await
    }

    async fn answer(addr: SocketAddr, batch: &Value, snapshot: &str) {
        let steps: Vec<Value> = batch["steps"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, s)| json!({"index": i, "command": s["command"], "result": snapshot}))
            .collect();
        let body = json!({"id": batch["id"], "steps": steps, "snapshot": snapshot, "logs": [{"type": "console", "level": "log", "args": ["during batch"]}], "duration": 7});
        let r = send(
            addr,
            "POST",
            &format!("{P}/results"),
            &keyed(),
            body.to_string().as_bytes(),
        )
        .await;
        assert_eq!(r.status, 204);
    }

    fn run(addr: SocketAddr, body: Value) -> tokio::task::JoinHandle<Resp> {
        tokio::spawn(async move {
            send(
                addr,
                "POST",
                &format!("{P}/run"),
                &[("content-type", "application/json")],
                body.to_string().as_bytes(),
            )
            .await
        })
    }

    pub async fn run_without_a_page_fails_at_once_saying_what_to_open(addr: SocketAddr) {
        let r = run(addr, json!({"steps": [{"command": "snapshot"}]})).await.unwrap();
        assert_eq!(r.status, 503);
        let body = r.json();
        assert_eq!(body["event"], "command-error");
        assert_eq!(
            body["message"],
            format!("No browser connected: open http://{addr}/ in a browser")
        );
        for (bad, needle) in [
            (json!({"steps": []}), "non-empty \"steps\""),
            (json!({"steps": [{"x": 1}]}), "step 1 (nothing ran) needs a \"command\""),
            (
                json!({"steps": [{"command": "snapshot"}, {"command": "console.log"}]}),
                "step 2 (nothing ran): unknown command \"console.log\"; commands: snapshot, click,",
            ),
            (json!({"steps": [{"command": "snapshot"}], "timeoutMs": 5}), "timeoutMs"),
            (json!({"steps": [{"command": "snapshot"}], "client": 5}), "\"client\""),
        ] {
            let r = run(addr, bad).await.unwrap();
            assert_eq!(r.status, 400);
            assert!(r.error().contains(needle), "{}", r.text());
        }
        let r = send(
            addr,
            "POST",
            &format!("{P}/run"),
            &[("content-type", "text/plain")],
            br#"{"steps":[{"command":"snapshot"}]}"#,
        )
        .await;
        assert_eq!(r.status, 415);
        assert!(r.error().contains("application/json"));
        let r = send(
            addr,
            "POST",
            &format!("{P}/run"),
            &[("content-type", "application/json"), ("origin", "http://evil.example")],
            br#"{"steps":[{"command":"snapshot"}]}"#,
        )
        .await;
        assert_eq!(r.status, 403, "a cross-site page cannot drive the browser");
    }

    pub async fn a_batch_round_trips_through_a_long_poll(addr: SocketAddr) {
        open_page(addr, "p1", true).await;
        // The page is already waiting when the batch is queued: the poll wakes with it.
        let waiting = tokio::spawn(async move { poll(addr, "p1", 20_000).await });
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let agent_call = run(addr, json!({"steps": [{"command": "snapshot"}]}));
        let got = waiting.await.unwrap();
        assert_eq!(got.status, 200, "woken by the batch, not by the 20 s timeout");
        assert_eq!(got.header("cache-control"), Some("no-store"));
        let batch = got.json();
        assert_eq!(batch["id"].as_str().unwrap().len(), 8);
        assert_eq!(batch["steps"], json!([{"command": "snapshot"}]));
        answer(addr, &batch, "button \"Go\" [ref=e1]").await;
        let done = agent_call.await.unwrap();
        assert_eq!(done.status, 200, "{}", done.text());
        let body = done.json();
        assert_eq!(body["event"], "browser-completed");
        assert_eq!(body["clientId"], "p1");
        assert_eq!(body["steps"][0]["result"], "button \"Go\" [ref=e1]");
        assert_eq!(body["logs"][0]["args"][0], "during batch");
        assert_eq!(
            (body["logs"][0]["text"].as_str(), body["logs"][0]["clientId"].as_str()),
            (Some("during batch"), Some("p1"))
        );
        assert_eq!(body["duration"], 7);
        // Mindstudio's no-wait mode: 204 at once when nothing is queued.
        let idle = poll(addr, "p1", 0).await;
        assert_eq!((idle.status, idle.body.len()), (204, 0));
        // Polling needs the page key: a foreign page cannot steal batches.
        let r = send(addr, "GET", &format!("{P}/commands?client=p1"), &[], b"").await;
        assert_eq!(r.status, 403);
        let r = send(
            addr,
            "GET",
            &format!("{P}/commands"),
            &[("x-browser-agent-key", KEY)],
            b"",
        )
        .await;
        assert!(r.status == 400 && r.error().contains("client"));
        // Results for unknown ids are accepted and ignored.
        let r = send(
            addr,
            "POST",
            &format!("{P}/results"),
            &keyed(),
            br#"{"id":"deadbeef","steps":[]}"#,
        )
        .await;
        assert_eq!(r.status, 204);
        let r = send(addr, "POST", &format!("{P}/results"), &keyed(), br#"{"steps":[]}"#).await;
        assert!(r.status == 400 && r.error().contains("\"id\""));
    }

    pub async fn run_answers_with_the_logs_as_console_shows_them(addr: SocketAddr) {
        open_page(addr, "lg", true).await;
        poll(addr, "lg", 0).await;
        // The page's regular flush stored its first entry before the batch's results arrive.
        let early = json!({"type": "console", "level": "log", "args": ["flushed first"], "clientId": "lg", "seq": 1});
        assert_eq!(post_logs(addr, json!([early])).await.status, 204);
        let agent_call = run(addr, json!({"steps": [{"command": "snapshot"}]}));
        let batch = poll(addr, "lg", 5_000).await.json();
        let during = json!({"type": "network", "method": "GET", "url": "/api/fail", "status": 500, "statusText": "Internal Server Error",
            "duration": 4, "ok": false, "clientId": "lg", "seq": 2});
        let unnamed = json!({"type": "console", "level": "warn", "args": ["no client id"]});
        let results = |logs: Value| json!({"id": batch["id"], "steps": [{"index": 0, "command": "snapshot", "result": "main"}], "snapshot": "main", "logs": logs, "duration": 3});
        let post = |body: Value| async move {
            send(
                addr,
                "POST",
                &format!("{P}/results"),
                &keyed(),
                body.to_string().as_bytes(),
            )
            .await
        };

        // Bad logs: a clear 400, nothing stored, and the batch still waits for its results.
        let before = stored(addr).await;
        for (logs, needle) in [
            (json!("nope"), "field \"logs\" must be an array"),
            (
                json!([during, {"type": 5}]),
                "field \"logs\": entry 1 has an invalid \"type\"",
            ),
            (
                json!([{"type": "console", "args": ["x"], "clientId": "x".repeat(65)}]),
                "\"clientId\"",
            ),
        ] {
            let r = post(results(logs)).await;
            assert_eq!(r.status, 400);
            assert!(r.error().contains(needle), "{} lacks {needle}", r.text());
        }
        assert_eq!(stored(addr).await, before);

        assert_eq!(post(results(json!([early, during, unnamed]))).await.status, 204);
        let body = agent_call.await.unwrap().json();
        let logs = body["logs"].as_array().unwrap();
        // Each as /console shows it, but `ago`, which counts to each answer's time.
        let no_ago = |logs: &[Value]| -> Vec<Value> {
            let mut logs = logs.to_vec();
            logs.iter_mut().for_each(|e| {
                e.as_object_mut().unwrap().remove("ago");
            });
            logs
        };
        let console_logs = console(addr, "client=lg").await["logs"].clone();
        assert_eq!(
            no_ago(logs),
            no_ago(console_logs.as_array().unwrap()),
            "the answer's entries are the stored ones, in the same shape as /console, each once"
        );
        let texts: Vec<&str> = logs.iter().map(|e| e["text"].as_str().unwrap()).collect();
        assert_eq!(
            texts,
            [
                "flushed first",
                "GET /api/fail → 500 Internal Server Error (4 ms)",
                "no client id"
            ]
        );
        let levels: Vec<&str> = logs.iter().map(|e| e["level"].as_str().unwrap()).collect();
        assert_eq!(levels, ["log", "error", "warn"]);
        assert_eq!(
            (logs[1]["clientSeq"].as_u64(), logs[1]["page"].as_str()),
            (Some(2), Some("http://127.0.0.1/lg"))
        );
        assert_eq!(
            logs[2]["clientId"], "lg",
            "an entry without a client id is the running page's"
        );
        // The page's later /logs batch with the same entries adds nothing.
        let last = stored(addr).await;
        assert_eq!(last, before + 2);
        let during_again =
            json!({"type": "network", "method": "GET", "url": "/api/fail", "status": 500, "clientId": "lg", "seq": 2});
        assert_eq!(post_logs(addr, json!([during_again])).await.status, 204);
        assert_eq!(stored(addr).await, last);
    }

    pub async fn a_timed_out_batch_is_removed_and_never_runs(addr: SocketAddr) {
        open_page(addr, "slow", true).await;
        poll(addr, "slow", 0).await; // it polls once, so it is a command target, then goes quiet
        let r = run(addr, json!({"steps": [{"command": "snapshot"}], "timeoutMs": 300}))
            .await
            .unwrap();
        assert_eq!(r.status, 504);
        assert!(r.error().contains("timed out after 300 ms"), "{}", r.text());
        let late = poll(addr, "slow", 0).await;
        assert_eq!(late.status, 204, "the timed-out batch must not run later");
    }

    pub async fn batches_go_to_the_default_page_or_the_named_one_in_order(addr: SocketAddr) {
        open_page(addr, "hidden", false).await;
        open_page(addr, "front", true).await;
        for c in ["hidden", "front"] {
            poll(addr, c, 0).await;
        }
        let page = send(addr, "GET", &format!("{P}/page"), &[], b"").await.json();
        assert_eq!(page["defaultTarget"], "front", "the visible page is the default");
        let first = run(addr, json!({"steps": [{"command": "snapshot"}]}));
        let to_hidden = run(addr, json!({"steps": [{"command": "snapshot"}], "client": "hidden"}));
        let b1 = poll(addr, "front", 5_000).await.json();
        let b2 = poll(addr, "hidden", 5_000).await.json();
        answer(addr, &b1, "\"front\"").await;
        answer(addr, &b2, "\"hidden\"").await;
        assert_eq!(first.await.unwrap().json()["clientId"], "front");
        assert_eq!(to_hidden.await.unwrap().json()["clientId"], "hidden");
        // One batch at a time per page, in order.
        let a = run(addr, json!({"steps": [{"command": "back"}]}));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let b = run(addr, json!({"steps": [{"command": "forward"}]}));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let ba = poll(addr, "front", 5_000).await.json();
        assert_eq!(ba["steps"][0]["command"], "back");
        assert_eq!(poll(addr, "front", 0).await.status, 204, "b waits until a is answered");
        answer(addr, &ba, "x").await;
        let bb = poll(addr, "front", 5_000).await.json();
        assert_eq!(bb["steps"][0]["command"], "forward");
        answer(addr, &bb, "x").await;
        assert_eq!(a.await.unwrap().status, 200);
        assert_eq!(b.await.unwrap().status, 200);
        let r = run(addr, json!({"steps": [{"command": "snapshot"}], "client": "nope"}))
            .await
            .unwrap();
        assert_eq!(r.status, 503);
        assert!(
            r.error().contains("No page with client id \"nope\"") && r.error().contains("\"front\""),
            "{}",
            r.text()
        );
    }

    /// The `pagehide` beacon of a page that leaves: its last entries, and `gone=1`.
    async fn gone_beacon(addr: SocketAddr, client: &str, entries: Value) -> Resp {
        send(
            addr,
            "POST",
            &format!("{P}/logs?key={KEY}&client={client}&gone=1"),
            &[("content-type", "text/plain;charset=UTF-8")],
            entries.to_string().as_bytes(),
        )
        .await
    }

    async fn page_record(addr: SocketAddr, client: &str) -> Value {
        let page = send(addr, "GET", &format!("{P}/page"), &[], b"").await.json();
        page["pages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["clientId"] == client)
            .cloned()
            .unwrap_or(Value::Null)
    }

    pub async fn a_handed_over_batch_no_page_takes_fails_saying_where_the_page_went(addr: SocketAddr) {
        open_page(addr, "nav", true).await;
        poll(addr, "nav", 0).await;
        // Its own timeout (1.5 s) is shorter than the wait for the next page (10 s): it bounds it.
        let agent_call = run(
            addr,
            json!({"steps": [{"command": "navigate", "url": "/api/items"}, {"command": "snapshot"}], "timeoutMs": 1_500}),
        );
        let batch = send(
            addr,
            "GET",
            &format!("{P}/commands?client=nav&tab=t9&wait=5000"),
            &[("x-browser-agent-key", KEY)],
            b"",
        )
        .await
        .json();
        let handover = json!({"id": batch["id"], "steps": [{"index": 0, "command": "navigate", "result": "navigating to /api/items"}],
            "handover": {"tab": "t9", "remaining": [{"command": "snapshot"}], "offset": 1, "url": format!("http://{addr}/api/items")}, "duration": 2});
        let r = send(
            addr,
            "POST",
            &format!("{P}/results"),
            &keyed(),
            handover.to_string().as_bytes(),
        )
        .await;
        assert_eq!(r.status, 204);
        assert_eq!(gone_beacon(addr, "nav", json!([])).await.status, 204);
        // /api/items is JSON: no client starts there, nothing polls with tab t9.
        let r = agent_call.await.unwrap();
        assert_eq!(r.status, 503, "{}", r.text());
        let body = r.json();
        assert_eq!(body["event"], "command-error");
        let message = body["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!(
                "The page navigated to http://{addr}/api/items and no browser-agent client started there within "
            )) && message.ends_with("(not an HTML page served through this dev server?); the steps before it ran: #0 navigate: navigating to /api/items"),
            "{message}"
        );
        assert_eq!(body["steps"][0]["result"], "navigating to /api/items", "{body}");
    }

    pub async fn a_page_that_left_is_no_target_and_its_batches_fail_at_once(addr: SocketAddr) {
        open_page(addr, "stay", true).await;
        poll(addr, "stay", 0).await;
        open_page(addr, "leaver", true).await;
        poll(addr, "leaver", 0).await;
        let page = send(addr, "GET", &format!("{P}/page"), &[], b"").await.json();
        assert_eq!(page["defaultTarget"], "leaver", "the most recent page");
        // The page runs one batch and has another queued when it leaves.
        let first = run(
            addr,
            json!({"steps": [{"command": "click", "text": "Docs"}], "timeoutMs": 60_000}),
        );
        let running = poll(addr, "leaver", 5_000).await.json();
        let second = run(
            addr,
            json!({"steps": [{"command": "snapshot"}], "client": "leaver", "timeoutMs": 60_000}),
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;

        // Refused beacons change nothing: without the key, a bad flag, no client.
        let before = stored(addr).await;
        let bye = json!([{"type": "console", "args": ["bye"], "clientId": "leaver", "seq": 1}]);
        let r = send(
            addr,
            "POST",
            &format!("{P}/logs?client=leaver&gone=1"),
            &[("content-type", "text/plain")],
            bye.to_string().as_bytes(),
        )
        .await;
        assert_eq!(r.status, 403, "gone needs the page key like every browser write");
        for query in ["gone=maybe&client=leaver", "gone=1"] {
            let r = send(
                addr,
                "POST",
                &format!("{P}/logs?key={KEY}&{query}"),
                &[],
                bye.to_string().as_bytes(),
            )
            .await;
            assert_eq!(r.status, 400, "{query}");
            assert!(r.error().contains("gone"), "{}", r.text());
        }
        assert_eq!(stored(addr).await, before);
        assert_eq!(page_record(addr, "leaver").await["alive"], true);

        let r = gone_beacon(addr, "leaver", bye).await;
        assert_eq!(r.status, 204, "{}", r.text());
        assert_eq!(
            console(addr, "client=leaver").await["logs"][0]["text"],
            "bye",
            "the body is ingested"
        );
        let left = page_record(addr, "leaver").await;
        assert_eq!(
            (left["alive"].as_bool(), left["gone"].as_bool()),
            (Some(false), Some(true))
        );
        let page = send(addr, "GET", &format!("{P}/page"), &[], b"").await.json();
        assert_eq!(page["defaultTarget"], "stay");

        // The queued batch fails now, not after its 60 s; the running one still gets its results.
        let r = second.await.unwrap();
        assert_eq!(r.status, 503, "{}", r.text());
        let message = r.error();
        assert!(
            message.contains("\"leaver\" (http://127.0.0.1/leaver) was closed or navigated away before this batch ran"),
            "{message}"
        );
        assert!(
            message.contains("\"stay\"") && !message.contains("Open pages: \"leaver\""),
            "{message}"
        );
        answer(addr, &running, "main").await;
        assert_eq!(
            first.await.unwrap().status,
            200,
            "results posted after the beacon still count"
        );

        // Named explicitly: fails at once; un-targeted: goes to the page that stayed.
        let r = run(addr, json!({"steps": [{"command": "snapshot"}], "client": "leaver"}))
            .await
            .unwrap();
        assert_eq!(r.status, 503);
        assert!(
            r.error()
                .starts_with("The page with client id \"leaver\" was closed or navigated away.")
                && r.error().contains("Open pages: \"stay\" (http://127.0.0.1/stay)")
                && !r.error().contains("\"leaver\" ("),
            "{}",
            r.text()
        );
        let to_default = run(addr, json!({"steps": [{"command": "snapshot"}]}));
        let b = poll(addr, "stay", 5_000).await.json();
        answer(addr, &b, "x").await;
        assert_eq!(to_default.await.unwrap().json()["clientId"], "stay");

        // Its hidden heartbeat (sent as it unloads) does not bring it back; restored from the
        // back/forward cache, its visible heartbeat does, and so does a new poll.
        open_page(addr, "leaver", false).await;
        assert_eq!(page_record(addr, "leaver").await["gone"], true);
        open_page(addr, "leaver", true).await;
        let back = page_record(addr, "leaver").await;
        assert_eq!(
            (back["alive"].as_bool(), back["gone"].as_bool()),
            (Some(true), Some(false))
        );
        assert_eq!(
            gone_beacon(addr, "leaver", json!([])).await.status,
            204,
            "an empty body is fine"
        );
        assert_eq!(page_record(addr, "leaver").await["alive"], false);
        poll(addr, "leaver", 0).await;
        assert_eq!(page_record(addr, "leaver").await["alive"], true);
    }

    pub async fn the_default_target_is_the_top_level_page_not_an_iframe_in_it(addr: SocketAddr) {
        let beat = |client: &'static str, focused: u8, iframe: u8| async move {
            let url = format!(
                "/browser/probe?key={KEY}&client={client}&page=http%3A%2F%2F127.0.0.1%2F{client}&phase=ready&visible=1&focused={focused}&iframe={iframe}"
            );
            assert_eq!(send(addr, "GET", &url, &[], b"").await.status, 200);
            poll(addr, client, 0).await;
        };
        beat("top", 1, 0).await;
        // A click in its same-origin iframe: the iframe has focus and is the most recently active.
        beat("framed", 1, 1).await;
        beat("top", 0, 0).await;
        beat("framed", 1, 1).await;
        let page = send(addr, "GET", &format!("{P}/page"), &[], b"").await.json();
        assert_eq!(page["defaultTarget"], "top", "{page}");
        let call = run(addr, json!({"steps": [{"command": "snapshot"}]}));
        let batch = poll(addr, "top", 5_000).await.json();
        answer(addr, &batch, "main").await;
        assert_eq!(call.await.unwrap().json()["clientId"], "top");
    }

    pub async fn snapshot_route_and_diffs(addr: SocketAddr) {
        for bad in ["maybe", "yes", "2"] {
            let r = send(addr, "GET", &format!("{P}/snapshot?diff={bad}"), &[], b"").await;
            assert_eq!(r.status, 400, "diff={bad}: {}", r.text());
            assert!(r.error().contains(&format!("invalid diff \"{bad}\"")), "{}", r.text());
        }
        open_page(addr, "s1", true).await;
        let page = tokio::spawn(async move {
            for text in ["button \"A\" [ref=e1]", "button \"A\" [ref=e1]\nbutton \"B\" [ref=e2]"] {
                let batch = poll(addr, "s1", 10_000).await.json();
                answer(addr, &batch, text).await;
            }
        });
        let full = send(addr, "GET", &format!("{P}/snapshot"), &[], b"").await;
        assert_eq!(full.status, 200, "{}", full.text());
        assert_eq!(full.json()["snapshot"], "button \"A\" [ref=e1]");
        let diff = send(addr, "GET", &format!("{P}/snapshot?diff=TRUE&client=s1"), &[], b"")
            .await
            .json();
        assert_eq!(diff["snapshot"], "+ button \"B\" [ref=e2]");
        page.await.unwrap();
    }

    pub async fn a_batch_survives_a_page_load_in_the_same_tab(addr: SocketAddr) {
        open_page(addr, "before", true).await;
        poll(addr, "before", 0).await;
        let agent_call = run(
            addr,
            json!({"steps": [{"command": "navigate", "url": "/two"}, {"command": "snapshot"}]}),
        );
        let tabbed = |client: &'static str| async move {
            send(
                addr,
                "GET",
                &format!("{P}/commands?client={client}&tab=t1&wait=5000"),
                &[("x-browser-agent-key", KEY)],
                b"",
            )
            .await
        };
        let batch = tabbed("before").await.json();
        let handover = json!({"id": batch["id"], "steps": [{"index": 0, "command": "navigate", "result": "navigating to /two", "at": 1,
            "target": null, "viewport": {"w": 800, "h": 600}}], "handover": {"tab": "t1", "remaining": [{"command": "snapshot"}], "offset": 1}, "duration": 2});
        assert_eq!(
            send(
                addr,
                "POST",
                &format!("{P}/results"),
                &keyed(),
                handover.to_string().as_bytes()
            )
            .await
            .status,
            204
        );
        // The old page's `pagehide` beacon comes after its handover: the batch is the tab's now.
        assert_eq!(gone_beacon(addr, "before", json!([])).await.status, 204);
        // The next page load in the same tab picks up the rest.
        open_page(addr, "after", true).await;
        let rest = tabbed("after").await.json();
        assert_eq!(
            (rest["id"].clone(), rest["offset"].as_u64()),
            (batch["id"].clone(), Some(1))
        );
        let done = json!({"id": rest["id"], "steps": [{"index": 1, "command": "snapshot", "result": "heading \"Two\""}], "snapshot": "heading \"Two\"", "duration": 4});
        send(
            addr,
            "POST",
            &format!("{P}/results"),
            &keyed(),
            done.to_string().as_bytes(),
        )
        .await;
        let body = agent_call.await.unwrap().json();
        assert_eq!(body["clientId"], "after");
        let results: Vec<&str> = body["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["result"].as_str().unwrap())
            .collect();
        assert_eq!(results, ["navigating to /two", "heading \"Two\""]);
        let log = send(addr, "GET", &format!("{P}/actions?client=before"), &[], b"")
            .await
            .json();
        assert_eq!(log["actions"][0]["command"], "navigate");
        assert_eq!(log["actions"][0]["viewport"]["w"], 800);
    }

    /// The next page of the tab may poll before the old page's handover (sent from `pagehide`,
    /// by a keepalive request) reaches the host: its poll, already held, gets the rest at once.
    pub async fn a_handover_reaches_the_next_page_already_polling(addr: SocketAddr) {
        open_page(addr, "before", true).await;
        let agent_call = run(
            addr,
            json!({"steps": [{"command": "navigate", "url": "/two"}, {"command": "snapshot"}]}),
        );
        let tabbed = move |client: &'static str, wait: u64| async move {
            send(
                addr,
                "GET",
                &format!("{P}/commands?client={client}&tab=t1&wait={wait}"),
                &[("x-browser-agent-key", KEY)],
                b"",
            )
            .await
        };
        let batch = tabbed("before", 5000).await.json();
        // The next page is up and polling before the handover arrives.
        open_page(addr, "after", true).await;
        let next = tokio::spawn(async move { tabbed("after", 20_000).await });
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let handover = json!({"id": batch["id"], "steps": [{"index": 0, "command": "navigate", "result": "navigating to /two"}],
            "handover": {"tab": "t1", "remaining": [{"command": "snapshot"}], "offset": 1}, "duration": 2});
        let r = send(
            addr,
            "POST",
            &format!("{P}/results"),
            &keyed(),
            handover.to_string().as_bytes(),
        )
        .await;
        assert_eq!(r.status, 204);
        let t0 = std::time::Instant::now();
        let rest = tokio::time::timeout(std::time::Duration::from_secs(3), next)
            .await
            .expect("the held poll of the next page gets the handed-over rest at once")
            .unwrap();
        assert!(t0.elapsed() < std::time::Duration::from_secs(3));
        let rest = rest.json();
        assert_eq!(
            (rest["id"].clone(), rest["offset"].as_u64()),
            (batch["id"].clone(), Some(1))
        );
        let done = json!({"id": rest["id"], "steps": [{"index": 1, "command": "snapshot", "result": "heading \"Two\""}], "snapshot": "heading \"Two\"", "duration": 4});
        send(
            addr,
            "POST",
            &format!("{P}/results"),
            &keyed(),
            done.to_string().as_bytes(),
        )
        .await;
        assert_eq!(agent_call.await.unwrap().json()["clientId"], "after");
    }

    pub async fn mcp_answers_json_rpc_and_refuses_what_it_must(addr: SocketAddr) {
        let mcp = format!("{P}/mcp");
        let json_ct = [("content-type", "application/json")];
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "conformance", "version": "1"}}});
        let r = send(addr, "POST", &mcp, &json_ct, init.to_string().as_bytes()).await;
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r
            .header("content-type")
            .is_some_and(|c| c.starts_with("application/json")));
        assert_eq!(r.json()["result"]["protocolVersion"], "2025-06-18");
        no_wildcard_cors(&r);
        let headers = [
            ("content-type", "application/json"),
            ("mcp-protocol-version", "2025-06-18"),
        ];
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = send(addr, "POST", &mcp, &headers, note.to_string().as_bytes()).await;
        assert_eq!(
            (r.status, r.body.len()),
            (202, 0),
            "a notification gets 202 and no body"
        );
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let r = send(addr, "POST", &mcp, &headers, list.to_string().as_bytes()).await;
        let names: Vec<String> = r.json()["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or("").to_owned())
            .collect();
        assert!(names.iter().any(|n| n == "browser_run"), "{names:?}");
        // GET opens the event stream (the pages' own tools changing): only with its Accept; other
        // methods are refused naming the two it takes.
        let r = send(addr, "GET", &mcp, &[], b"").await;
        assert_eq!(r.status, 406, "{}", r.text());
        assert!(r.text().contains("Accept: text/event-stream"), "{}", r.text());
        let r = send(addr, "PUT", &mcp, &[], b"").await;
        assert_eq!((r.status, r.header("allow")), (405, Some("GET, POST")));
        let with_origin = [("content-type", "application/json"), ("origin", "http://127.0.0.1:9")];
        let r = send(addr, "POST", &mcp, &with_origin, list.to_string().as_bytes()).await;
        assert_eq!(r.status, 403, "any Origin is refused: {}", r.text());
        let r = send(
            addr,
            "POST",
            &mcp,
            &[("content-type", "text/plain")],
            list.to_string().as_bytes(),
        )
        .await;
        assert_eq!(r.status, 415, "{}", r.text());
        let r = send(addr, "POST", &mcp, &json_ct, b"{not json").await;
        assert_eq!(r.json()["error"]["code"], -32700, "{}", r.text());
    }
}

/// Instantiates every case of [`conformance::cases`](crate::conformance::cases) as a
/// `#[tokio::test]` against one adapter: `$spawn(agent, dir, addr) -> io::Result<Server>`, where
/// `Server` has an `addr` field and stops when dropped. The calling crate needs `tokio` (macros).
///
/// `conformance_suite!(spawn, decodes_compressed_pages)` is the suite of an adapter that decodes a
/// page the app compressed and tags it (the CLI's proxy): every case but
/// [`a_compressed_page_passes_untouched`](crate::conformance::cases::a_compressed_page_passes_untouched).
#[macro_export]
macro_rules! conformance_suite {
    ($spawn:path) => {
        $crate::conformance_suite!(@cases $spawn);
        case!(a_compressed_page_passes_untouched);
    };
    ($spawn:path, decodes_compressed_pages) => {
        $crate::conformance_suite!(@cases $spawn);
    };
    (@cases $spawn:path) => {
        use $crate::conformance::cases;

        fn start() -> (impl Sized, ::std::net::SocketAddr, $crate::conformance::Agent) {
            let agent = $crate::conformance::agent();
            let addr = ::std::net::SocketAddr::from(([127, 0, 0, 1], 0));
            let server = $spawn(agent.clone(), None, addr).expect("server starts");
            let addr = server.addr;
            (server, addr, agent)
        }

        macro_rules! case {
            ($name:ident) => {
                #[tokio::test]
                async fn $name() {
                    let (_server, addr, _agent) = start();
                    cases::$name(addr).await;
                }
            };
            ($name:ident, tag) => {
                #[tokio::test]
                async fn $name() {
                    let (_server, addr, agent) = start();
                    cases::$name(addr, agent.tag()).await;
                }
            };
        }

        case!(probe_get_answers_but_only_a_keyed_one_proves_a_page);
        case!(other_paths_under_browser_are_404);
        case!(probe_post_stores_dsh_logs);
        case!(probe_post_refusals_store_nothing);
        case!(logs_accept_both_seed_shapes_with_readable_text);
        case!(retried_batches_are_stored_once);
        case!(logs_refusals_store_nothing);
        case!(console_filters_and_errors);
        case!(unknown_paths_and_methods);
        case!(host_and_origin_refusals);
        case!(bodies_over_the_limit_are_refused_without_reading_them);
        case!(assets_are_content_hashed_and_immutable);
        case!(html_gets_the_tag_once_in_the_right_place, tag);
        case!(csp_nonce_is_copied);
        case!(head_grows_only_the_length, tag);
        case!(what_is_not_ours_passes_untouched, tag);
        case!(run_without_a_page_fails_at_once_saying_what_to_open);
        case!(a_batch_round_trips_through_a_long_poll);
        case!(a_timed_out_batch_is_removed_and_never_runs);
        case!(run_answers_with_the_logs_as_console_shows_them);
        case!(batches_go_to_the_default_page_or_the_named_one_in_order);
        case!(snapshot_route_and_diffs);
        case!(a_batch_survives_a_page_load_in_the_same_tab);
        case!(a_handover_reaches_the_next_page_already_polling);
        case!(a_page_that_left_is_no_target_and_its_batches_fail_at_once);
        case!(a_handed_over_batch_no_page_takes_fails_saying_where_the_page_went);
        case!(the_default_target_is_the_top_level_page_not_an_iframe_in_it);
        case!(mcp_answers_json_rpc_and_refuses_what_it_must);
    };
}
