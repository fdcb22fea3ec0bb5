//! In-process tests of the routes through [`BrowserAgent::handle`], as tower-http tests its
//! services: the core semantics of every route (shapes, filters, refusals and their texts). The
//! conformance suite (`examples/tests/conformance.rs`) keeps proving both adapters over TCP.

use crate::adapter::AdapterExt;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request};
use serde_json::{json, Value};

use crate::BrowserAgent;

const KEY: &str = "route-test-key";
const P: &str = "/__mindstudio_dev__";
const HOST: &str = "127.0.0.1:3000";

fn agent() -> BrowserAgent {
    BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .body_limit(65_536)
        .build()
}

/// An answer, read.
struct Res {
    status: u16,
    headers: HeaderMap,
    body: Bytes,
}

impl Res {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error: {}", self.text()))
            .to_owned()
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Sends a request to `Host: 127.0.0.1:3000` unless `headers` names another (an empty value
/// leaves the header out).
async fn send(agent: &BrowserAgent, method: &str, uri: &str, headers: &[(&str, &str)], body: &[u8]) -> Res {
    let mut req = Request::builder().method(method).uri(uri);
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req = req.header("host", HOST);
    }
    for (k, v) in headers.iter().filter(|(_, v)| !v.is_empty()) {
        req = req.header(*k, *v);
    }
    let req = req.body(Bytes::copy_from_slice(body)).unwrap();
    let res = tokio::time::timeout(Duration::from_secs(20), agent.handle(req))
        .await
        .expect("the route answers")
        .unwrap();
    let (parts, body) = res.into_parts();
    Res {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body,
    }
}

const KEYED: [(&str, &str); 2] = [("x-browser-agent-key", KEY), ("content-type", "application/json")];

async fn get(agent: &BrowserAgent, uri: &str) -> Res {
    send(agent, "GET", uri, &[], b"").await
}

async fn post_logs(agent: &BrowserAgent, entries: Value) -> Res {
    send(
        agent,
        "POST",
        &format!("{P}/logs"),
        &KEYED,
        entries.to_string().as_bytes(),
    )
    .await
}

async fn console(agent: &BrowserAgent, query: &str) -> Value {
    let r = get(agent, &format!("{P}/console?{query}")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn texts(console: &Value) -> Vec<String> {
    console["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap().to_owned())
        .collect()
}

async fn open_page(agent: &BrowserAgent, client: &str) {
    let url = format!(
        "/browser/probe?key={KEY}&client={client}&page=http%3A%2F%2F127.0.0.1%2F{client}&phase=ready&visible=1"
    );
    assert_eq!(get(agent, &url).await.status, 200);
}

async fn poll(agent: &BrowserAgent, client: &str, wait: u64) -> Res {
    let uri = format!("{P}/commands?client={client}&wait={wait}");
    send(agent, "GET", &uri, &[("x-browser-agent-key", KEY)], b"").await
}

fn run(agent: &BrowserAgent, body: Value) -> tokio::task::JoinHandle<Res> {
    let agent = agent.clone();
    tokio::spawn(async move {
        let headers = [("content-type", "application/json")];
        send(
            &agent,
            "POST",
            &format!("{P}/run"),
            &headers,
            body.to_string().as_bytes(),
        )
        .await
    })
}

#[tokio::test]
async fn probe_get_answers_but_only_a_keyed_one_proves_a_page() {
    let agent = agent();
    let r = get(&agent, "/browser/probe?page=alice-check&phase=probe").await;
    assert_eq!((r.status, r.json()), (200, json!({"ok": true})));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert!(r.header("x-browser-agent-rev").is_some_and(|v| v.len() == 16));
    let page = get(&agent, &format!("{P}/page")).await.json();
    assert_eq!(page["pages"], json!([]), "a keyless heartbeat never makes a page alive");

    let url = format!("/browser/probe?key={KEY}&client=c1&page=http%3A%2F%2F127.0.0.1%2Fa&title=A&phase=ready&visible=1&focused=1&iframe=0&tab=t1");
    assert_eq!(get(&agent, &url).await.json(), json!({"ok": true}));
    let page = get(&agent, &format!("{P}/page")).await.json();
    assert_eq!(
        (
            page["defaultTarget"].as_str(),
            page["clientAlive"].as_bool(),
            page["page"].as_str()
        ),
        (Some("c1"), Some(true), Some("http://127.0.0.1/a"))
    );
    let p0 = &page["pages"][0];
    assert_eq!(
        (
            p0["clientId"].as_str(),
            p0["phase"].as_str(),
            p0["title"].as_str(),
            p0["tab"].as_str()
        ),
        (Some("c1"), Some("ready"), Some("A"), Some("t1"))
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
    assert_eq!(
        (p0["currentRev"].as_bool(), p0["target"].as_bool()),
        (Some(true), Some(true))
    );
    let c = console(&agent, "").await;
    assert_eq!(
        (
            c["clientAlive"].as_bool(),
            c["clientPhase"].as_str(),
            c["clientId"].as_str(),
            c["lastSeenAgoSec"].as_u64()
        ),
        (Some(true), Some("ready"), Some("c1"), Some(0))
    );
    for field in ["count", "logs", "page", "lastSeenAt", "lastSeq", "evicted"] {
        assert!(c.get(field).is_some(), "console answer has {field}");
    }
    for path in ["/browser/nope", "/browser/probe/", "/browser/probe/x"] {
        let r = get(&agent, path).await;
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.error(), format!("no browser-agent route GET {path}"));
    }
}

#[tokio::test]
async fn probe_post_stores_plain_logs_and_its_refusals_store_nothing() {
    let agent = agent();
    let body = json!({"logs": [{"t": 5, "level": "error", "text": "probe-x"}, {"text": ""}, {"level": 7, "text": 42}], "page": "http://127.0.0.1/dsh | Title", "phase": "hooked"});
    let r = send(&agent, "POST", "/browser/probe", &KEYED, body.to_string().as_bytes()).await;
    assert_eq!((r.status, r.json()), (200, json!({"ok": true})));
    let c = console(&agent, "").await;
    assert_eq!(texts(&c), ["probe-x", "42"], "the empty text is dropped");
    let e = &c["logs"][0];
    assert_eq!(
        (e["t"].as_u64(), e["level"].as_str(), e["page"].as_str()),
        (Some(5), Some("error"), Some("http://127.0.0.1/dsh | Title"))
    );
    assert_eq!(c["logs"][1]["level"], "info");
    for (body, needle) in [
        (&b"{not json"[..], "body is not valid JSON: "),
        (
            b"[1]",
            "body must be a JSON object {\"logs\":[…],\"page\":\"…\",\"phase\":\"…\"}",
        ),
        (
            br#"{"logs":"nope"}"#,
            "field \"logs\" must be an array of {t, level, text}",
        ),
        (br#"{"page":5}"#, "field \"page\" must be a string"),
    ] {
        let r = send(&agent, "POST", "/browser/probe", &KEYED, body).await;
        assert_eq!(r.status, 400);
        assert!(r.error().starts_with(needle), "{}", r.text());
    }
    let r = send(
        &agent,
        "POST",
        "/browser/probe",
        &[],
        br#"{"logs":[{"text":"forged"}]}"#,
    )
    .await;
    assert_eq!(r.status, 403);
    assert!(r.error().contains("page key"), "{}", r.text());
    assert_eq!(console(&agent, "").await["count"], 2);
}

#[tokio::test]
async fn logs_take_both_shapes_once_each_and_refusals_store_nothing() {
    let agent = agent();
    let batch = json!([
        {"type": "console", "level": "warn", "args": ["careful", {"n": 1}], "url": "http://127.0.0.1/p", "clientId": "c9", "seq": 1},
        {"type": "network", "method": "GET", "url": "/api/items", "status": 500, "statusText": "Internal Server Error", "duration": 12, "ok": false, "clientId": "c9", "seq": 2},
        {"t": 7, "level": "info", "text": "plain style"},
        {"type": "custom", "message": "kept as is", "extra": true}
    ]);
    let r = post_logs(&agent, batch.clone()).await;
    assert_eq!((r.status, r.body.len()), (204, 0), "{}", r.text());
    let retry = Value::Array(batch.as_array().unwrap()[..2].to_vec());
    assert_eq!(
        post_logs(&agent, retry).await.status,
        204,
        "a retry of the entries with (clientId, seq)"
    );
    let c = console(&agent, "").await;
    assert_eq!(
        texts(&c),
        [
            "plain style",
            "careful {\"n\":1}",
            "GET /api/items → 500 Internal Server Error (12 ms)",
            "kept as is"
        ],
        "a retried batch is stored once; listed by when it happened (\"plain style\" says t=7)"
    );
    assert_eq!(
        (c["logs"][1]["page"].as_str(), c["logs"][3]["extra"].as_bool()),
        (Some("http://127.0.0.1/p"), Some(true))
    );
    for (body, needle) in [
        (
            &b"{\"type\":\"console\"}"[..],
            "body must be a JSON array of log entries",
        ),
        (
            b"[{\"type\":\"console\",\"args\":[\"ok\"]}, 5]",
            "entry 1 is not an object",
        ),
        (
            b"[{\"type\":\"console\",\"seq\":\"x\"}]",
            "entry 0 has an invalid \"seq\"",
        ),
        (
            b"[{\"type\":\"console\",\"clientId\":5}]",
            "entry 0 has an invalid \"clientId\" (expected a string of at most 64 chars)",
        ),
        (b"not json", "body is not valid JSON"),
    ] {
        let r = send(&agent, "POST", &format!("{P}/logs"), &KEYED, body).await;
        assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(body));
        assert!(r.error().contains(needle), "{} lacks {needle}", r.text());
    }
    let body = br#"[{"type":"console","args":["forged"]}]"#;
    for headers in [&[][..], &[("x-browser-agent-key", "wrong-key-0000")]] {
        let r = send(&agent, "POST", &format!("{P}/logs"), headers, body).await;
        assert_eq!(r.status, 403);
        assert_eq!(r.error(), "refused: missing or wrong page key; browser writes need the header x-browser-agent-key (or ?key=) that the injected tag carries");
    }
    let r = send(&agent, "POST", &format!("{P}/logs"), &[("host", "evil.example")], body).await;
    assert_eq!(r.status, 403);
    assert_eq!(console(&agent, "").await["count"], 4, "refused requests change nothing");
    // sendBeacon cannot set headers: the key goes in the query.
    let beacon = br#"[{"type":"console","args":["beacon"]}]"#;
    let r = send(
        &agent,
        "POST",
        &format!("{P}/logs?key={KEY}"),
        &[("content-type", "text/plain")],
        beacon,
    )
    .await;
    assert_eq!(r.status, 204);
    assert_eq!(console(&agent, "").await["count"], 5);
}

#[tokio::test]
async fn console_filters_and_names_bad_parameters() {
    let agent = agent();
    let entries: Vec<Value> = (0..6)
        .map(|i| {
            let kind = if i % 2 == 0 { "console" } else { "network" };
            let level = ["log", "error", "warn"][i % 3];
            let client = if i < 3 { "a" } else { "b" };
            json!({"type": kind, "level": level, "args": [format!("m{i}")], "t": 1000 + i * 10, "clientId": client, "method": "GET", "url": format!("/u{i}"), "status": 200, "statusText": "OK", "duration": 1})
        })
        .collect();
    assert_eq!(post_logs(&agent, Value::Array(entries)).await.status, 204);
    let ts = |v: Value| {
        v["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["t"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(ts(console(&agent, "level=error").await), [1010, 1040]);
    assert_eq!(ts(console(&agent, "sinceMs=1030").await), [1030, 1040, 1050]);
    assert_eq!(ts(console(&agent, "limit=2").await), [1040, 1050]);
    assert_eq!(console(&agent, "limit=0").await["count"], 0);
    assert_eq!(ts(console(&agent, "type=console").await), [1000, 1020, 1040]);
    assert_eq!(ts(console(&agent, "client=b&type=console").await), [1040]);
    assert_eq!(ts(console(&agent, "afterSeq=4").await), [1040, 1050]);
    for (query, text) in [
        (
            "level=fatal",
            "invalid level \"fatal\": use debug, log, info, warn or error (comma-separated for several)",
        ),
        ("limit=-1", "invalid limit \"-1\": expected a whole number"),
        ("limit=1.5", "invalid limit \"1.5\": expected a whole number"),
        ("afterSeq=20.5", "invalid afterSeq \"20.5\": expected a whole number"),
        (
            "sinceMs=soon",
            "invalid sinceMs \"soon\": expected a non-negative number",
        ),
        (
            "type=bogus",
            "invalid type \"bogus\": use console, error, network, websocket, dialog, interaction, navigation, dropped or server",
        ),
    ] {
        let r = get(&agent, &format!("{P}/console?{query}")).await;
        assert_eq!((r.status, r.error().as_str()), (400, text), "{query}");
    }
}

#[tokio::test]
async fn unknown_paths_methods_and_oversized_bodies() {
    let agent = agent();
    for path in [
        format!("{P}/nope"),
        format!("{P}/"),
        format!("{P}/assets/client-0000.js"),
    ] {
        let r = get(&agent, &path).await;
        assert_eq!(
            (r.status, r.error()),
            (404, format!("no browser-agent route GET {path}"))
        );
    }
    for (method, path, allow) in [
        ("DELETE", format!("{P}/console"), "GET, HEAD"),
        ("GET", format!("{P}/logs"), "POST"),
        ("PUT", "/browser/probe".to_owned(), "GET, HEAD, POST"),
    ] {
        let r = send(&agent, method, &path, &[("origin", "http://evil.example")], b"").await;
        assert_eq!(r.status, 405, "{method} {path}");
        assert_eq!(r.header("allow"), Some(allow));
        assert_eq!(
            r.error(),
            format!("method {method} is not allowed on {path}; allowed: {allow}")
        );
    }
    let too_large = "request body is larger than the limit of 65536 bytes";
    let declared = [("x-browser-agent-key", KEY), ("content-length", "70000")];
    let r = send(&agent, "POST", &format!("{P}/logs"), &declared, b"[]").await;
    assert_eq!(
        (r.status, r.error().as_str()),
        (413, too_large),
        "refused on the declared length"
    );
    let big = vec![b' '; 65_537];
    let r = send(&agent, "POST", &format!("{P}/logs"), &KEYED, &big).await;
    assert_eq!((r.status, r.error().as_str()), (413, too_large));
    let r = send(&agent, "HEAD", &format!("{P}/console"), &[], b"").await;
    assert_eq!((r.status, r.body.len()), (200, 0), "HEAD answers without a body");
    let get = send(&agent, "GET", &format!("{P}/console"), &[], b"").await;
    assert_eq!(
        r.header("content-length"),
        Some(get.body.len().to_string().as_str()),
        "... and with the GET's length"
    );
}

#[tokio::test]
async fn host_origin_key_and_token_refusals() {
    let agent = agent();
    for host in ["evil.example", "127.0.0.1.evil.example:80", "192.168.0.10:3000"] {
        let r = send(&agent, "GET", &format!("{P}/console"), &[("host", host)], b"").await;
        assert_eq!(r.status, 403, "{host}");
        let bare = host
            .rsplit_once(':')
            .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
            .map_or(host, |(h, _)| h);
        assert_eq!(r.error(), format!("refused: Host {host:?} is not loopback; add it with BrowserAgent::builder().allow_host(\"{bare}\") (the CLI: --allow-host {bare}) if this dev server is reached by that name (this check blocks DNS rebinding)"));
    }
    let r = send(&agent, "GET", &format!("{P}/console"), &[("host", "")], b"").await;
    assert_eq!(r.status, 403);
    assert!(
        r.error().starts_with("refused: the request has no Host header"),
        "{}",
        r.text()
    );
    let own = format!("http://{HOST}");
    assert_eq!(
        send(&agent, "GET", &format!("{P}/console"), &[("origin", &own)], b"")
            .await
            .status,
        200
    );
    for origin in ["http://evil.example", "null", "http://localhost:1"] {
        let r = send(&agent, "GET", &format!("{P}/console"), &[("origin", origin)], b"").await;
        assert_eq!(r.status, 403, "{origin}");
        assert_eq!(r.error(), format!("refused: Origin {origin:?} is not this server's own origin; agent routes answer only same-origin pages and non-browser clients (this check blocks cross-site requests)"));
    }
    for host in ["localhost", "[::1]:9", "app.localhost"] {
        assert_eq!(
            send(&agent, "GET", &format!("{P}/page"), &[("host", host)], b"")
                .await
                .status,
            200,
            "{host}"
        );
    }
    let r = send(&agent, "GET", &format!("{P}/commands?client=c1"), &[], b"").await;
    assert_eq!(r.status, 403, "a poll needs the page key");

    let guarded = BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .bearer_token("t0ken")
        .build();
    let r = get(&guarded, &format!("{P}/page")).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.error(), "refused: this agent route needs the header Authorization: Bearer <token> configured with BrowserAgent::builder().bearer_token(…) (the CLI: --token)");
    let r = send(
        &guarded,
        "GET",
        &format!("{P}/page"),
        &[("authorization", "Bearer t0ken")],
        b"",
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        get(&guarded, "/browser/probe").await.status,
        200,
        "browser routes need no token"
    );
}

#[tokio::test]
async fn run_refuses_bad_batches_and_fails_at_once_without_a_page() {
    let agent = agent();
    let r = run(&agent, json!({"steps": [{"command": "snapshot"}]})).await.unwrap();
    assert_eq!(r.status, 503);
    assert_eq!(
        r.json(),
        json!({"event": "command-error", "message": format!("No browser connected: open http://{HOST}/ in a browser"),
               "error": format!("No browser connected: open http://{HOST}/ in a browser")})
    );
    for (bad, needle) in [
        (
            json!({"steps": []}),
            "browser action requires a non-empty \"steps\" array",
        ),
        (json!([1]), "body must be a JSON object {\"steps\":[…]}"),
        (
            json!({"steps": [{"x": 1}]}),
            "step 1 (nothing ran) needs a \"command\" string, e.g. {\"command\":\"snapshot\"}",
        ),
        (
            json!({"steps": [{"command": "snapshot"}, {"command": "console.log"}]}),
            "step 2 (nothing ran): unknown command \"console.log\"; commands: snapshot, click,",
        ),
        (
            json!({"steps": [{"command": "snapshot"}], "timeoutMs": 5}),
            "field \"timeoutMs\" must be a number of milliseconds between 100 and 300000",
        ),
        (
            json!({"steps": [{"command": "snapshot"}], "client": 5}),
            "field \"client\" must be a string (a client id from GET /page)",
        ),
    ] {
        let r = run(&agent, bad).await.unwrap();
        assert_eq!(r.status, 400);
        assert_eq!(r.json()["event"], "command-error");
        assert!(r.error().starts_with(needle), "{}", r.text());
    }
    let body = br#"{"steps":[{"command":"snapshot"}]}"#;
    let r = send(
        &agent,
        "POST",
        &format!("{P}/run"),
        &[("content-type", "text/plain")],
        body,
    )
    .await;
    assert_eq!(
        (r.status, r.error().as_str()),
        (
            415,
            "POST /run needs Content-Type: application/json (so a cross-site form cannot send it)"
        )
    );
    let r = run(&agent, json!({"steps": [{"command": "snapshot"}], "client": "nobody"}))
        .await
        .unwrap();
    assert_eq!(
        (r.status, r.error().as_str()),
        (
            503,
            "No page with client id \"nobody\" is connected. No page is connected."
        )
    );
    // The log and action log queries: a typo or a parameter given twice is a 400 (it would answer
    // the whole log); a page nobody knows is a 404 on both.
    for (query, text) in [
        ("levels=error", "unknown parameter \"levels\""),
        ("type=error&type=console", "parameter \"type\" is given twice"),
        ("client=a&clientId=b", "parameter \"clientId\" is given twice"),
    ] {
        let r = send(&agent, "GET", &format!("{P}/console?{query}"), &[], b"").await;
        assert_eq!(r.status, 400, "{query}");
        assert!(r.error().starts_with(text), "{query}: {}", r.error());
    }
    let r = send(&agent, "GET", &format!("{P}/console?level=error&level=warn"), &[], b"").await;
    assert_eq!(r.status, 200);
    for path in ["console", "actions"] {
        let r = send(&agent, "GET", &format!("{P}/{path}?client=nobody"), &[], b"").await;
        assert_eq!(r.status, 404, "{path}");
    }
}

#[tokio::test]
async fn commands_poll_checks_its_parameters_and_holds_or_answers_204() {
    let agent = agent();
    let keyed = [("x-browser-agent-key", KEY)];
    let r = send(&agent, "GET", &format!("{P}/commands"), &keyed, b"").await;
    assert_eq!(
        (r.status, r.error().as_str()),
        (
            400,
            "parameter \"client\" (the page's client id, at most 64 chars) is required"
        )
    );
    let long = "x".repeat(65);
    let r = send(&agent, "GET", &format!("{P}/commands?client={long}"), &keyed, b"").await;
    assert_eq!(r.status, 400);
    let r = send(&agent, "GET", &format!("{P}/commands?client=c1&wait=soon"), &keyed, b"").await;
    assert_eq!(
        (r.status, r.error().as_str()),
        (400, "invalid wait \"soon\": expected milliseconds")
    );
    let r = poll(&agent, "c1", 0).await;
    assert_eq!((r.status, r.body.len()), (204, 0), "without a batch: 204 at once");
    let r = poll(&agent, "c1", 30).await;
    assert_eq!(r.status, 204, "a held poll ends with 204");
}

#[tokio::test]
async fn a_batch_round_trips_through_a_long_poll_with_its_logs_as_console_shows_them() {
    let agent = agent();
    open_page(&agent, "p1").await;
    let waiting = {
        let agent = agent.clone();
        tokio::spawn(async move { poll(&agent, "p1", 20_000).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let call = run(&agent, json!({"steps": [{"command": "snapshot"}], "timeoutMs": 20_000}));
    let got = waiting.await.unwrap();
    assert_eq!(got.status, 200, "woken by the batch");
    let batch = got.json();
    assert_eq!(batch["steps"], json!([{"command": "snapshot"}]));
    let left = batch["timeoutMs"].as_u64().unwrap();
    assert!(left > 0 && left <= 20_000, "{batch}");
    let id = batch["id"].as_str().unwrap().to_owned();

    // Malformed results change nothing: the batch still waits.
    for (body, text) in [
        (json!({"steps": []}), "field \"id\" (the batch id) must be a string"),
        (
            json!({"id": id, "logs": 5}),
            "field \"logs\" must be an array of log entries ({\"type\":\"console\",…})",
        ),
        (
            json!({"id": id, "logs": [{"seq": -1}]}),
            "field \"logs\": entry 0 has an invalid \"seq\" (expected a non-negative integer)",
        ),
    ] {
        let r = send(
            &agent,
            "POST",
            &format!("{P}/results"),
            &KEYED,
            body.to_string().as_bytes(),
        )
        .await;
        assert_eq!((r.status, r.error().as_str()), (400, text));
    }
    let results = json!({"id": id, "steps": [{"index": 0, "command": "snapshot", "result": "main"}], "snapshot": "main", "duration": 7,
        "logs": [{"type": "console", "level": "warn", "args": ["during batch"], "seq": 3}]});
    let r = send(
        &agent,
        "POST",
        &format!("{P}/results"),
        &KEYED,
        results.to_string().as_bytes(),
    )
    .await;
    assert_eq!(r.status, 204, "{}", r.text());
    let done = call.await.unwrap();
    assert_eq!(done.status, 200, "{}", done.text());
    let done = done.json();
    assert_eq!(
        (
            done["event"].as_str(),
            done["clientId"].as_str(),
            done["snapshot"].as_str(),
            done["duration"].as_u64()
        ),
        (
            Some("browser-completed"),
            Some("p1"),
            Some("(as step 1 showed it)"),
            Some(7)
        ),
        "the page's first snapshot, which its step shows whole: named, not repeated"
    );
    assert_eq!(
        done["steps"],
        json!([{"index": 0, "command": "snapshot", "result": "main"}])
    );
    let log = &done["logs"][0];
    assert_eq!(
        (
            log["text"].as_str(),
            log["clientId"].as_str(),
            log["clientSeq"].as_u64()
        ),
        (Some("during batch"), Some("p1"), Some(3)),
        "entries that name no page are the page's that ran the batch: {log}"
    );
    // As GET /console shows it, but `ago`, which counts to each answer's time.
    let (mut shown, mut answered) = (console(&agent, "").await["logs"][0].clone(), log.clone());
    for entry in [&mut shown, &mut answered] {
        entry.as_object_mut().unwrap().remove("ago");
    }
    assert_eq!(shown, answered, "as GET /console shows it");
    assert_eq!(log["batch"], "b1", "during the batch: {log}");
    let actions = get(&agent, &format!("{P}/actions?client=p1")).await.json();
    assert_eq!(
        (actions["clientId"].as_str(), actions["actions"][0]["command"].as_str()),
        (Some("p1"), Some("snapshot"))
    );
    let late = send(
        &agent,
        "POST",
        &format!("{P}/results"),
        &KEYED,
        results.to_string().as_bytes(),
    )
    .await;
    assert_eq!(late.status, 204, "an unknown id is only warned about");
}

#[tokio::test]
async fn the_gone_beacon_ends_a_page_and_checks_its_parameters() {
    let agent = agent();
    open_page(&agent, "leaver").await;
    assert_eq!(poll(&agent, "leaver", 0).await.status, 204);
    let beacon = |query: &str| format!("{P}/logs?key={KEY}&{query}");
    for (query, text) in [
        (
            "gone=maybe&client=leaver",
            "invalid gone \"maybe\": use 1 (the page left) or 0",
        ),
        (
            "gone=1",
            "gone=1 needs the parameter \"client\" (the page's client id, at most 64 chars)",
        ),
    ] {
        let r = send(&agent, "POST", &beacon(query), &[], b"[]").await;
        assert_eq!((r.status, r.error().as_str()), (400, text));
    }
    let page = get(&agent, &format!("{P}/page")).await.json();
    assert_eq!(page["defaultTarget"], "leaver", "refused beacons change nothing");
    let r = send(
        &agent,
        "POST",
        &beacon("client=leaver&gone=1"),
        &[],
        br#"[{"type":"console","args":["bye"]}]"#,
    )
    .await;
    assert_eq!(r.status, 204);
    let page = get(&agent, &format!("{P}/page")).await.json();
    assert_eq!(
        (page["defaultTarget"].as_str(), page["pages"][0]["gone"].as_bool()),
        (None, Some(true))
    );
    let r = run(&agent, json!({"steps": [{"command": "snapshot"}], "client": "leaver"}))
        .await
        .unwrap();
    assert_eq!(
        (r.status, r.error().as_str()),
        (
            503,
            "The page with client id \"leaver\" was closed or navigated away. No page is connected."
        )
    );
    assert_eq!(
        texts(&console(&agent, "").await),
        ["bye"],
        "the beacon's entries are stored"
    );
}

/// `GET {prefix}/commands` with `query` after `client=`, keyed.
async fn poll_with(agent: &BrowserAgent, query: &str) -> Res {
    let uri = format!("{P}/commands?client={query}");
    send(agent, "GET", &uri, &[("x-browser-agent-key", KEY)], b"").await
}

#[tokio::test]
async fn one_poll_covers_other_pages_and_names_the_page_of_its_batch() {
    let agent = agent();
    for c in ["lead", "f1", "f2"] {
        open_page(&agent, c).await;
    }
    let held = {
        let agent = agent.clone();
        tokio::spawn(async move { poll_with(&agent, "lead&clients=f1,f2:t2&wait=5000").await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let waiting = run(
        &agent,
        json!({"client": "f2", "steps": [{"command": "snapshot"}], "timeoutMs": 3000}),
    );
    let r = held.await.unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    let batch = r.json();
    assert_eq!(batch["client"], "f2", "the batch names its page: {batch}");
    let id = batch["id"].as_str().unwrap().to_owned();
    let results = json!({"id": id, "steps": [{"index": 0, "command": "snapshot", "result": "- main"}], "snapshot": "- main", "logs": []});
    let headers = [("content-type", "application/json"), ("x-browser-agent-key", KEY)];
    let r = send(
        &agent,
        "POST",
        &format!("{P}/results"),
        &headers,
        results.to_string().as_bytes(),
    )
    .await;
    assert_eq!(r.status, 204);
    let r = waiting.await.unwrap();
    assert_eq!((r.status, r.json()["clientId"].clone()), (200, json!("f2")));
    // A poll of one page alone still answers as it always did: no `client` in the batch.
    let waiting = run(
        &agent,
        json!({"client": "lead", "steps": [{"command": "snapshot"}], "timeoutMs": 3000}),
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    let r = poll(&agent, "lead", 2000).await;
    assert_eq!(r.status, 200);
    assert!(r.json().get("client").is_none(), "{}", r.text());
    waiting.abort();
}

#[tokio::test]
async fn a_newer_poll_of_the_same_page_ends_the_older_with_204() {
    let agent = agent();
    open_page(&agent, "lead").await;
    let older = {
        let agent = agent.clone();
        tokio::spawn(async move { poll_with(&agent, "lead&wait=20000").await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let newer = {
        let agent = agent.clone();
        tokio::spawn(async move { poll_with(&agent, "lead&clients=f1&wait=20000").await })
    };
    let r = tokio::time::timeout(Duration::from_secs(5), older)
        .await
        .expect("the older poll ends")
        .unwrap();
    assert_eq!(r.status, 204);
    // The newer one still holds, and gets a batch for a page it covers.
    let waiting = run(
        &agent,
        json!({"client": "f1", "steps": [{"command": "snapshot"}], "timeoutMs": 3000}),
    );
    let r = tokio::time::timeout(Duration::from_secs(5), newer)
        .await
        .expect("the newer poll answers")
        .unwrap();
    assert_eq!((r.status, r.json()["client"].clone()), (200, json!("f1")));
    waiting.abort();
}

#[tokio::test]
async fn a_poll_refuses_a_bad_clients_list_with_a_json_error() {
    let agent = agent();
    let r = poll_with(&agent, "lead&clients=a,,b").await;
    assert_eq!(r.status, 400);
    assert!(
        r.error().contains("\"clients\" has an empty client id"),
        "{}",
        r.error()
    );
    let long = "x".repeat(65);
    let r = poll_with(&agent, &format!("lead&clients=a,{long}")).await;
    assert_eq!(r.status, 400);
    assert!(r.error().contains("longer than 64 chars"), "{}", r.error());
    let r = poll_with(&agent, &format!("lead&clients=a:{long}")).await;
    assert_eq!(r.status, 400, "a tab id too long");
    // Duplicates and the poller itself are fine; an empty list covers no one.
    let r = poll_with(&agent, "lead&clients=c0,c1,c1,lead").await;
    assert_eq!(r.status, 204, "{}", r.text());
    let r = poll_with(&agent, "lead&clients=").await;
    assert_eq!(r.status, 204, "{}", r.text());
}

/// A poll that names `pages` (`p0`, `p1`, …) besides `lead`, without waiting: what it answers
/// once a batch for `target` is queued.
async fn poll_covering(agent: &BrowserAgent, pages: usize, target: &str) -> Res {
    open_page(agent, "lead").await;
    open_page(agent, target).await;
    let waiting = run(
        agent,
        json!({"client": target, "steps": [{"command": "snapshot"}], "timeoutMs": 3000}),
    );
    let names: Vec<String> = (0..pages).map(|i| format!("p{i}")).collect();
    let query = format!("lead&clients={}", names.join(","));
    // The batch is queued once the run waits for it.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let r = poll_with(agent, &query).await;
        if r.status != 204 || std::time::Instant::now() > deadline {
            waiting.abort();
            return r;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn one_poll_covers_every_page_the_host_keeps() {
    // Issue 16: past 64 pages a browser's other tabs got no batch. A default host keeps 256 page
    // records; one poll covers all of them: the leader and 255 others, the last one included.
    let last = format!("p{}", crate::protocol::MAX_POLL_CLIENTS - 1);
    assert_eq!(last, "p254");
    let r = poll_covering(&agent(), crate::protocol::MAX_POLL_CLIENTS, &last).await;
    assert_eq!(
        (r.status, r.json()["client"].clone()),
        (200, json!(last)),
        "{}",
        r.text()
    );
    // Names past the bound are ignored, not refused: the pages named first keep their commands.
    let r = poll_covering(&agent(), 300, "p0").await;
    assert_eq!(
        (r.status, r.json()["client"].clone()),
        (200, json!("p0")),
        "{}",
        r.text()
    );
    // A host that keeps more pages covers more in one poll.
    let agent = BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .max_clients(400)
        .build();
    let r = poll_covering(&agent, 399, "p398").await;
    assert_eq!(
        (r.status, r.json()["client"].clone()),
        (200, json!("p398")),
        "{}",
        r.text()
    );
}

#[tokio::test]
async fn page_and_actions_refuse_a_parameter_they_do_not_take() {
    // QA8: `GET /actions?clientId=c2` read the default page's log without a word.
    let agent = agent();
    for (path, text) in [
        (
            "/page?client=c1",
            "unknown parameter \"client\": /__mindstudio_dev__/page takes no parameters",
        ),
        (
            "/actions?clientId=c2",
            "unknown parameter \"clientId\": /__mindstudio_dev__/actions takes client",
        ),
    ] {
        let r = get(&agent, &format!("{P}{path}")).await;
        assert_eq!((r.status, r.error().as_str()), (400, text), "{path}");
    }
    assert_eq!(get(&agent, &format!("{P}/actions?client=")).await.status, 200);
}
