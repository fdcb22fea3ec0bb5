//! In-process tests of the cross-site rules (issue 16, item 2) through [`BrowserAgent::handle`]:
//! what a browser on another site can send (`<img>`, `<script>`, a form, a beacon, `fetch` in
//! no-cors mode) is refused before it reaches the page, and curl keeps working.

use crate::adapter::AdapterExt;
use std::time::Duration;

use bytes::Bytes;
use http::Request;
use serde_json::{json, Value};

use crate::BrowserAgent;

const KEY: &str = "hardening-test-key";
const P: &str = "/__mindstudio_dev__";
const HOST: &str = "127.0.0.1:3000";
const CHROMIUM_UA: &str =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";

fn agent() -> BrowserAgent {
    BrowserAgent::builder().enabled(true).page_key(KEY).build()
}

/// One request through `BrowserAgent::handle` to `Host: 127.0.0.1:3000`: its status and JSON body
/// (null when it has none). The route tests beside this file use it too.
pub(super) async fn send(
    agent: &BrowserAgent,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Value) {
    let mut req = Request::builder().method(method).uri(uri).header("host", HOST);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req.body(Bytes::copy_from_slice(body)).unwrap();
    let res = tokio::time::timeout(Duration::from_secs(20), agent.handle(req))
        .await
        .expect("the route answers")
        .unwrap();
    let status = res.status().as_u16();
    let body = res.into_body();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

async fn open_page(agent: &BrowserAgent, client: &str) {
    let url = format!("/browser/probe?key={KEY}&client={client}&page=http%3A%2F%2F127.0.0.1%2F&phase=ready&visible=1");
    assert_eq!(send(agent, "GET", &url, &[], b"").await.0, 200);
}

/// Nothing was queued for the page: an immediate poll answers 204.
async fn nothing_queued(agent: &BrowserAgent, client: &str) {
    let uri = format!("{P}/commands?client={client}");
    let (status, body) = send(agent, "GET", &uri, &[("x-browser-agent-key", KEY)], b"").await;
    assert_eq!(status, 204, "a batch reached the page: {body}");
}

/// Answers the page's next batch with a snapshot `text`.
async fn answer_next(agent: &BrowserAgent, client: &str, text: &str) -> Value {
    let uri = format!("{P}/commands?client={client}&wait=10000");
    let (status, batch) = send(agent, "GET", &uri, &[("x-browser-agent-key", KEY)], b"").await;
    assert_eq!(status, 200, "{batch}");
    let body = json!({"id": batch["id"], "steps": [{"index": 0, "command": "snapshot", "result": text}]});
    let headers = [("x-browser-agent-key", KEY), ("content-type", "application/json")];
    let (status, _) = send(
        agent,
        "POST",
        &format!("{P}/results"),
        &headers,
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(status, 204);
    batch
}

/// The JSON content type, for [`send_later`]'s headers.
const JSON: (&str, &str) = ("content-type", "application/json");

/// [`send`] on a task of its own: a route that queues a batch answers once a page answers it
/// ([`answer_next`]).
fn send_later(
    agent: &BrowserAgent,
    method: &'static str,
    uri: String,
    headers: Vec<(&'static str, &'static str)>,
    body: impl Into<Vec<u8>>,
) -> tokio::task::JoinHandle<(u16, Value)> {
    let agent = agent.clone();
    let body = body.into();
    tokio::spawn(async move { send(&agent, method, &uri, &headers, &body).await })
}

/// A request (method, path, headers, body) and the status and piece of error text it gets.
type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, &'a [u8], u16, &'a str);

#[tokio::test]
async fn cross_site_requests_reach_no_page_and_store_nothing() {
    let agent = agent();
    open_page(&agent, "victim").await;
    let snapshot = format!("{P}/snapshot");
    let run = format!("{P}/run");
    let console = format!("{P}/console");
    let page = format!("{P}/page");
    let steps = br#"{"steps":[{"command":"snapshot"}]}"#;
    let cases: Vec<Case<'_>> = vec![
        // <img src=…/snapshot> in Chromium, from another site and from another port of this host.
        (
            "GET",
            &snapshot,
            vec![
                ("sec-fetch-site", "cross-site"),
                ("sec-fetch-dest", "image"),
                ("user-agent", CHROMIUM_UA),
            ],
            b"",
            403,
            "Sec-Fetch-Site \"cross-site\"",
        ),
        (
            "GET",
            &snapshot,
            vec![("sec-fetch-site", "same-site"), ("user-agent", CHROMIUM_UA)],
            b"",
            403,
            "Sec-Fetch-Site \"same-site\"",
        ),
        // The same <img> in a browser without Sec-Fetch-Site (Firefox 88).
        (
            "GET",
            &snapshot,
            vec![(
                "user-agent",
                "Mozilla/5.0 (X11; Linux x86_64; rv:88.0) Gecko/20100101 Firefox/88.0",
            )],
            b"",
            403,
            "use POST /snapshot",
        ),
        (
            "GET",
            &snapshot,
            vec![("referer", "http://evil.example/")],
            b"",
            403,
            "use POST /snapshot",
        ),
        // A cross-site form or beacon: a simple content type, and Sec-Fetch-Site in Chromium.
        (
            "POST",
            &snapshot,
            vec![("content-type", "application/x-www-form-urlencoded")],
            b"diff=1",
            415,
            "POST /snapshot needs Content-Type: application/json",
        ),
        (
            "POST",
            &snapshot,
            vec![("content-type", "text/plain"), ("sec-fetch-site", "cross-site")],
            b"{}",
            403,
            "Sec-Fetch-Site",
        ),
        (
            "POST",
            &run,
            vec![("content-type", "text/plain;charset=UTF-8")],
            steps,
            415,
            "POST /run needs Content-Type: application/json (so a cross-site form cannot send it)",
        ),
        (
            "POST",
            &run,
            vec![("content-type", "application/jsonx")],
            steps,
            415,
            "POST /run needs Content-Type",
        ),
        (
            "POST",
            &run,
            vec![("content-type", "application/json"), ("sec-fetch-site", "cross-site")],
            steps,
            403,
            "Sec-Fetch-Site",
        ),
        // The Origin check includes the scheme.
        (
            "POST",
            &run,
            vec![
                ("content-type", "application/json"),
                ("origin", "https://127.0.0.1:3000"),
            ],
            steps,
            403,
            "Origin \"https://127.0.0.1:3000\"",
        ),
        // Reads are refused too: another site's page must not read the logs.
        (
            "GET",
            &console,
            vec![("sec-fetch-site", "cross-site")],
            b"",
            403,
            "Sec-Fetch-Site",
        ),
        (
            "GET",
            &page,
            vec![("sec-fetch-site", "same-site")],
            b"",
            403,
            "Sec-Fetch-Site",
        ),
    ];
    for (method, uri, headers, body, status, text) in cases {
        let (got, answer) = send(&agent, method, uri, &headers, body).await;
        assert_eq!(got, status, "{method} {uri} {headers:?}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(error.contains(text), "{method} {uri} {headers:?}: {error}");
        nothing_queued(&agent, "victim").await;
    }
    let (_, console) = send(&agent, "GET", &format!("{P}/console"), &[], b"").await;
    assert_eq!(console["count"], 0, "{console}");
}

#[tokio::test]
async fn same_origin_pages_and_curl_still_act() {
    let agent = agent();
    open_page(&agent, "p").await;
    // curl: no Sec-Fetch-Site, no Origin, its own User-Agent.
    let call = send_later(
        &agent,
        "GET",
        format!("{P}/snapshot"),
        vec![("user-agent", "curl/8.5.0")],
        b"",
    );
    answer_next(&agent, "p", "button \"A\" [ref=e1]").await;
    let (status, body) = call.await.unwrap();
    assert_eq!(
        (status, body["snapshot"].as_str()),
        (200, Some("button \"A\" [ref=e1]")),
        "{body}"
    );

    // The page itself (same-origin fetch) and the user typing the URL (none).
    for site in ["same-origin", "none"] {
        let headers = vec![("sec-fetch-site", site), ("user-agent", CHROMIUM_UA)];
        let call = send_later(&agent, "GET", format!("{P}/snapshot?diff=0"), headers, b"");
        answer_next(&agent, "p", "button \"A\" [ref=e1]").await;
        assert_eq!(call.await.unwrap().0, 200, "{site}");
    }

    // POST with JSON (parameters allowed), the body's fields over the query's.
    let headers = vec![
        ("content-type", "Application/JSON; charset=utf-8"),
        ("user-agent", CHROMIUM_UA),
    ];
    let body = br#"{"client":"p","diff":true}"#;
    let call = send_later(
        &agent,
        "POST",
        format!("{P}/snapshot?diff=0&client=nobody"),
        headers,
        body,
    );
    let batch = answer_next(&agent, "p", "button \"A\" [ref=e1]\nbutton \"B\" [ref=e2]").await;
    assert_eq!(batch["steps"][0]["diff"], true, "{batch}");
    let (status, body) = call.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["diff"], true);
    assert_eq!(body["clientId"], "p");

    // An empty JSON POST is a plain snapshot; bad bodies are 400s that queue nothing.
    for (body, text) in [
        (
            &b"[]"[..],
            "body must be a JSON object {\"client\"?: \"…\", \"diff\"?: true}",
        ),
        (b"{\"diff\":\"maybe\"}", "invalid diff \"maybe\""),
        (b"{\"client\":5}", "field \"client\" must be a string"),
        (b"{", "body is not valid JSON"),
        // The view is the snapshot step's, checked as the step is; other fields are refused.
        (b"{\"offset\":-1}", "step 1 (nothing ran): invalid offset -1: expected a whole number"),
        (b"{\"budget\":\"2000\"}", "step 1 (nothing ran): invalid budget \"2000\""),
        (
            b"{\"filtr\":\"Save\"}",
            "step 1 (nothing ran): a snapshot step takes diff, ref, selector, offset, limit, filter, viewport, budget, full; not \"filtr\"",
        ),
    ] {
        let (status, answer) = send(
            &agent,
            "POST",
            &format!("{P}/snapshot"),
            &[("content-type", "application/json")],
            body,
        )
        .await;
        assert_eq!(status, 400, "{answer}");
        assert!(answer["error"].as_str().unwrap_or_default().contains(text), "{answer}");
        nothing_queued(&agent, "p").await;
    }
    // The query says the same as a body or a step would.
    for (query, text) in [
        (
            "limt=1",
            "step 1 (nothing ran): a snapshot step takes diff, ref, selector, offset, limit, filter, viewport, budget, full; not \"limt\"",
        ),
        (
            "budget=-1",
            "step 1 (nothing ran): invalid budget -1: expected a whole number of tokens, 1 or more",
        ),
        (
            "offset=x",
            "step 1 (nothing ran): invalid offset \"x\": expected a whole number of children to skip",
        ),
        ("full=yes", "step 1 (nothing ran): invalid full \"yes\": use true or false"),
        ("diff=maybe", "step 1 (nothing ran): invalid diff \"maybe\": use true or false"),
        ("full=1&budget=900", "step 1 (nothing ran): full and budget contradict each other"),
        // Which of two refs (or pages) was meant is a guess: refused, not the last taken.
        ("ref=e1&ref=e2", "parameter \"ref\" is given twice: give it once"),
        ("client=p&diff=1&client=q", "parameter \"client\" is given twice"),
        // `/snapshot` is not a second `/run`.
        ("command=evaluate&script=1", "/snapshot takes no \"command\""),
    ] {
        let uri = format!("{P}/snapshot?{query}");
        let (status, answer) = send(&agent, "GET", &uri, &[("user-agent", "curl/8.5.0")], b"").await;
        assert_eq!(status, 400, "{query}: {answer}");
        assert!(
            answer["error"].as_str().unwrap_or_default().starts_with(text),
            "{query}: {answer}"
        );
        nothing_queued(&agent, "p").await;
    }
    let body = br#"{"command":"evaluate","script":"return 1"}"#;
    let (status, answer) = send(&agent, "POST", &format!("{P}/snapshot"), &[JSON], body).await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap_or_default()
            .starts_with("/snapshot takes no"),
        "{answer}"
    );
    nothing_queued(&agent, "p").await;
    let call = send_later(&agent, "POST", format!("{P}/snapshot"), vec![JSON], b"");
    answer_next(&agent, "p", "x").await;
    assert_eq!(call.await.unwrap().0, 200);
    // The body's view reaches the page as the step's, over the query's.
    let body = br#"{"ref":"e3","offset":40,"filter":"Save","budget":2000,"viewport":false}"#;
    let call = send_later(
        &agent,
        "POST",
        format!("{P}/snapshot?filter=Cancel&limit=3.0&diff=0"),
        vec![JSON],
        body,
    );
    let batch = answer_next(&agent, "p", "x").await;
    assert_eq!(
        batch["steps"][0],
        json!({"command": "snapshot", "diff": false, "ref": "e3", "offset": 40, "limit": 3.0, "filter": "Save",
            "budget": 2000, "viewport": false}),
        "{batch}"
    );
    assert_eq!(call.await.unwrap().0, 200);
}

#[tokio::test]
async fn secrets_are_redacted_in_the_ring_and_the_ndjson_file_unless_turned_off() {
    let dir = std::env::temp_dir().join(format!("ba-redact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("logs.ndjson");
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    let batch = json!([
        {"type": "network", "method": "GET", "url": "/api/me?access_token=ya29.A0ARrdaM&page=2", "status": 401,
         "body": "{\"error\":\"expired\",\"refresh_token\":\"1//0gLx\"}", "clientId": "c", "seq": 1},
        {"type": "console", "level": "log", "args": ["login", {"password": "hunter2", "user": "ada"}], "clientId": "c", "seq": 2},
        {"type": "console", "level": "warn", "args": [format!("Authorization: Bearer {jwt}")], "clientId": "c", "seq": 3},
        {"type": "network", "method": "POST", "url": "/login", "status": 500, "requestBody": "user=ada&passwd=s3cret!", "clientId": "c", "seq": 4},
    ]);
    let headers = [("x-browser-agent-key", KEY), ("content-type", "application/json")];
    for (redact, path) in [(true, file.clone()), (false, dir.join("raw.ndjson"))] {
        let agent = BrowserAgent::builder()
            .enabled(true)
            .page_key(KEY)
            .redact(redact)
            .ndjson_file(&path)
            .build();
        let (status, _) = send(
            &agent,
            "POST",
            &format!("{P}/logs"),
            &headers,
            batch.to_string().as_bytes(),
        )
        .await;
        assert_eq!(status, 204);
        let (_, console) = send(&agent, "GET", &format!("{P}/console"), &[], b"").await;
        let shown = console["logs"].to_string();
        let written = std::fs::read_to_string(&path).unwrap();
        for secret in ["ya29.A0ARrdaM", "1//0gLx", "hunter2", jwt, "s3cret!"] {
            assert_eq!(shown.contains(secret), !redact, "{secret} in {shown}");
            assert_eq!(written.contains(secret), !redact, "{secret} in {written}");
        }
        if redact {
            assert!(shown.contains("access_token=[redacted]&page=2"), "{shown}");
            assert!(shown.contains("\"user\":\"ada\""), "{shown}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hundreds of page loads that each ran a batch with a 64 KB snapshot and were abandoned: the
/// command state of the pages (queues, action logs, snapshot baselines) and the page records stay
/// bounded in count and bytes, and a page in use keeps its state.
#[tokio::test]
async fn abandoned_pages_free_their_state() {
    use crate::commands::{MAX_BASELINE_BYTES, MAX_PAGES};
    let agent = agent();
    let snapshot: String = (0..1_600)
        .map(|i| format!("button \"item {i:05}\" [ref=e{i}]\n"))
        .collect();
    assert!(snapshot.len() > 40_000);
    open_page(&agent, "keeper").await;
    let body = br#"{"steps":[{"command":"snapshot"}],"client":"keeper"}"#;
    let call = send_later(&agent, "POST", format!("{P}/run"), vec![JSON], body);
    answer_next(&agent, "keeper", "button \"keep\" [ref=e1]").await;
    assert_eq!(call.await.unwrap().0, 200);
    for n in 0..(MAX_PAGES * 2 + 50) {
        let client = format!("load{n}");
        open_page(&agent, &client).await;
        let body = json!({"steps": [{"command": "snapshot"}], "client": client}).to_string();
        let call = send_later(&agent, "POST", format!("{P}/run"), vec![JSON], body);
        answer_next(&agent, &client, &snapshot).await;
        assert_eq!(call.await.unwrap().0, 200);
        if n % 100 == 0 {
            // The keeper is still in use: it polls now and then.
            nothing_queued(&agent, "keeper").await;
        }
    }
    let (pages, bytes, _) = agent.inner.commands.footprint();
    assert!(pages <= MAX_PAGES, "{pages} pages kept");
    assert!(bytes <= MAX_BASELINE_BYTES, "{bytes} bytes of baselines kept");
    assert!(agent.inner.clients.all().len() <= crate::config::DEFAULT_MAX_CLIENTS);
    // The last pages keep theirs: a diff of the newest page is a diff.
    let last = format!("load{}", MAX_PAGES * 2 + 49);
    let body = json!({"client": last, "diff": true}).to_string();
    let call = send_later(&agent, "POST", format!("{P}/snapshot"), vec![JSON], body);
    answer_next(&agent, &last, &format!("{snapshot}button \"new\" [ref=e9999]\n")).await;
    let (status, body) = call.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["snapshot"], "+ button \"new\" [ref=e9999]", "{body}");
    // The keeper's action log survived.
    assert!(!agent.inner.commands.actions("keeper").is_empty());
}
