//! Property-based fuzzing of everything that parses what a page or an agent sends (issue 16,
//! item 8): log ingest, `GET /console` queries, batches, the snapshot grammar, MCP's JSON-RPC,
//! screenshot uploads and proof starts. Never a panic, never a 5xx, always a JSON answer; what a
//! refused request carried is never stored. `PROPTEST_CASES=100000 cargo test -p
//! browser-agent-core fuzz` runs more than CI's default.

use crate::adapter::AdapterExt;
use bytes::Bytes;
use http::Request;
use proptest::prelude::*;

use crate::BrowserAgent;

const KEY: &str = "fuzz-test-key-01";
const P: &str = "/__mindstudio_dev__";

fn agent() -> BrowserAgent {
    BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .body_limit(16 * 1024)
        .proof_dir(std::env::temp_dir().join("ba-fuzz-proof-never-written"))
        .build()
}

/// Answers one request in process; (status, body).
fn answer(agent: &BrowserAgent, method: &str, uri: &str, ct: &str, body: Vec<u8>) -> (u16, Bytes) {
    let Ok(req) = Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "127.0.0.1:3000")
        .header("content-type", ct)
        .header("x-browser-agent-key", KEY)
        .body(Bytes::from(body))
    else {
        // Not a request `http` accepts (a `<` in the query): the adapter answers it, not core.
        return (400, Bytes::from_static(br#"{"error":"unreadable request"}"#));
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let res = rt.block_on(agent.handle(req)).unwrap();
    (res.status().as_u16(), res.into_body())
}

/// JSON-ish bytes: real JSON of random shape, cut or corrupted now and then.
fn jsonish() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        "[a-z\\\\\"\\u{0}-\\u{ff}]{0,12}".prop_map(serde_json::Value::from),
        prop::sample::select(vec![
            "snapshot",
            "click",
            "screenshot",
            "type",
            "console",
            "error",
            "p1",
            "png"
        ])
        .prop_map(serde_json::Value::from),
    ];
    let value = leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "steps",
                    "command",
                    "client",
                    "type",
                    "seq",
                    "clientId",
                    "level",
                    "text",
                    "id",
                    "logs",
                    "jsonrpc",
                    "method",
                    "params",
                    "name",
                    "arguments",
                    "format",
                    "quality",
                    "description",
                    "dir",
                    "ref",
                    "x",
                ])
                .prop_map(str::to_owned),
                inner,
                0..6
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    });
    (value, 0..4u8, any::<usize>()).prop_map(|(v, damage, at)| {
        let mut bytes = serde_json::to_vec(&v).unwrap();
        match damage {
            0 if !bytes.is_empty() => bytes.truncate(at % bytes.len()),
            1 if !bytes.is_empty() => {
                let i = at % bytes.len();
                bytes[i] = bytes[i].wrapping_add(0x80);
            }
            2 => bytes.splice(0..0, std::iter::repeat_n(b'[', at % 3000)).for_each(drop),
            _ => {}
        }
        bytes
    })
}

fn refused_cleanly(status: u16, body: &Bytes) -> Result<(), TestCaseError> {
    prop_assert!(
        status < 500 || status == 503,
        "status {status}: {}",
        String::from_utf8_lossy(body)
    );
    if status >= 400 {
        let v: serde_json::Value =
            serde_json::from_slice(body).map_err(|e| TestCaseError::fail(format!("not JSON ({e})")))?;
        prop_assert!(v.get("error").is_some(), "no error field: {v}");
    }
    Ok(())
}

proptest! {
    // 2,000 cases each in CI (a few seconds); PROPTEST_CASES sets more.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn fuzz_every_json_route(body in jsonish(), route in prop::sample::select(vec![
        "/logs", "/results", "/run", "/snapshot", "/mcp", "/proof/start", "/proof/compare", "/browser/probe",
    ])) {
        let agent = agent();
        let before = agent.logs().last_seq();
        let path = if route.starts_with("/browser") { route.to_owned() } else { format!("{P}{route}") };
        let (status, res) = answer(&agent, "POST", &path, "application/json", body);
        refused_cleanly(status, &res)?;
        if status >= 400 {
            prop_assert_eq!(agent.logs().last_seq(), before, "a refused request stored entries");
        }
        prop_assert!(agent.proof_status().is_none() || route == "/proof/start");
    }

    #[test]
    fn fuzz_queries(query in "[a-zA-Z=&%0-9,._~-]{0,80}", route in prop::sample::select(vec![
        "/console", "/page", "/actions", "/snapshot", "/commands", "/proof", "/screenshots/s1.png",
    ])) {
        let agent = agent();
        let (status, res) = answer(&agent, "GET", &format!("{P}{route}?{query}"), "", Vec::new());
        refused_cleanly(status, &res)?;
        let _ = crate::LogQuery::parse(Some(&query));
    }

    #[test]
    fn fuzz_screenshot_uploads(
        query in "(client=[a-z0-9]{0,4}&)?(width=[0-9]{0,6}&)?(height=-?[0-9]{0,6}&)?(method=[a-z-]{0,16}&)?(ms=[0-9.e-]{0,6}&)?(warn=[^&]{0,30}&){0,3}",
        png in any::<bool>(),
        tail in prop::collection::vec(any::<u8>(), 0..64),
        ct in prop::sample::select(vec!["image/png", "image/jpeg", "image/png; q=1", "text/plain", ""]),
    ) {
        let agent = agent();
        let mut body = if png { b"\x89PNG\r\n\x1a\n".to_vec() } else { Vec::new() };
        body.extend(tail);
        let (status, res) = answer(&agent, "POST", &format!("{P}/screenshots?{query}"), ct, body);
        refused_cleanly(status, &res)?;
        prop_assert_eq!(agent.screenshots().list().len(), usize::from(status == 201));
    }

    #[test]
    fn fuzz_the_snapshot_grammar(text in "([ ]{0,6}(- |\\+ |~ )?[a-z]{0,9}( \"[^\"\\n]{0,12}\")?( \\[[a-z=0-9, ]{0,16}\\])?(: [^\\n]{0,10})?\\n){0,12}") {
        let nodes = crate::snapshot::parse(&text);
        let again = crate::snapshot::parse(&text);
        prop_assert_eq!(nodes.len(), again.len());
        let _ = crate::snapshot::diff(&text, "button \"x\" [ref=e1]\n");
    }
}
