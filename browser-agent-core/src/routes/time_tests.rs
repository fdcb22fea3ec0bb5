//! In-process tests of *when* in the log answers: entries listed in the order they happened,
//! each placed against the agent's batches (`before`, `batch`, `after`) with its `ago`, and
//! `GET /console`'s `batch` and `sinceBatch`.

use std::time::Duration;

use serde_json::{json, Value};

use super::hardening_tests::send;

use crate::util::now_ms;
use crate::BrowserAgent;

const KEY: &str = "time-test-key";
const P: &str = "/__mindstudio_dev__";
const KEYED: [(&str, &str); 2] = [("x-browser-agent-key", KEY), ("content-type", "application/json")];

fn agent() -> BrowserAgent {
    BrowserAgent::builder().enabled(true).page_key(KEY).build()
}

async fn console(agent: &BrowserAgent, query: &str) -> (u16, Value) {
    send(agent, "GET", &format!("{P}/console?{query}"), &[], b"").await
}

async fn post_logs(agent: &BrowserAgent, entries: Value) {
    let (status, body) = send(
        agent,
        "POST",
        &format!("{P}/logs"),
        &KEYED,
        entries.to_string().as_bytes(),
    )
    .await;
    assert_eq!(status, 204, "{body}");
}

fn console_entry(text: &str, seq: u64, t: Option<u64>) -> Value {
    let mut e = json!({"type": "console", "level": "log", "args": [text], "clientId": "p1", "seq": seq});
    if let Some(t) = t {
        e["t"] = t.into();
    }
    e
}

/// One batch on page `p1`, answered with `logs`: the `POST /run` answer.
async fn one_batch(agent: &BrowserAgent, n: u64, logs: Value) -> Value {
    let call = {
        let agent = agent.clone();
        tokio::spawn(async move {
            let body = json!({"steps": [{"command": "snapshot"}], "client": "p1"}).to_string();
            send(
                &agent,
                "POST",
                &format!("{P}/run"),
                &[("content-type", "application/json")],
                body.as_bytes(),
            )
            .await
        })
    };
    let (status, batch) = send(
        agent,
        "GET",
        &format!("{P}/commands?client=p1&wait=10000"),
        &[("x-browser-agent-key", KEY)],
        b"",
    )
    .await;
    assert_eq!(status, 200, "{batch}");
    // Entries stored during the batch, not part of its answer.
    post_logs(agent, json!([console_entry("while it ran", 200 + n, None)])).await;
    let results = json!({"id": batch["id"], "steps": [{"index": 0, "command": "snapshot", "result": "main"}],
        "snapshot": "main", "duration": 3, "logs": logs});
    let (status, body) = send(
        agent,
        "POST",
        &format!("{P}/results"),
        &KEYED,
        results.to_string().as_bytes(),
    )
    .await;
    assert_eq!(status, 204, "{body}");
    let (status, done) = call.await.unwrap();
    assert_eq!(status, 200, "{done}");
    done
}

fn texts(answer: &Value) -> Vec<&str> {
    answer["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn entries_say_when_and_the_log_reads_by_batch() {
    let agent = agent();
    let (status, _) = send(
        &agent,
        "GET",
        &format!("/browser/probe?key={KEY}&client=p1&page=http%3A%2F%2F127.0.0.1%2F&phase=ready&visible=1"),
        &[],
        b"",
    )
    .await;
    assert_eq!(status, 200);
    let start = now_ms();
    // Before any batch: the page's load, and one of its entries that arrives late.
    post_logs(&agent, json!([console_entry("page loaded", 1, Some(start - 5_000))])).await;

    // No batch yet: no place, and the batch filters say so.
    let (_, c) = console(&agent, "").await;
    let e = &c["logs"][0];
    assert!(e["ago"].as_u64().unwrap() >= 5_000, "{e}");
    assert!(e.get("before").is_none() && e.get("batch").is_none(), "{e}");
    let (status, body) = console(&agent, "sinceBatch=last").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("sinceBatch \"last\": no batch has run yet"))
    );

    let done = one_batch(&agent, 1, json!([console_entry("clicked", 101, None)])).await;
    assert_eq!(done["batch"], "b1", "the answer names its batch: {done}");
    assert_eq!(done["logs"][0]["batch"], "b1", "{done}");
    assert!(done["logs"][0]["ago"].as_u64().is_some(), "{done}");

    // After the batch; then an entry of the load that the page delivers only now.
    tokio::time::sleep(Duration::from_millis(5)).await;
    post_logs(&agent, json!([console_entry("later", 102, None)])).await;
    post_logs(
        &agent,
        json!([console_entry("late load entry", 2, Some(start - 4_000))]),
    )
    .await;

    let (_, c) = console(&agent, "").await;
    assert_eq!(
        texts(&c),
        ["page loaded", "late load entry", "while it ran", "clicked", "later"],
        "in the order they happened, not of arrival"
    );
    let places: Vec<(Option<&str>, Option<&str>, Option<&str>)> = c["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["before"].as_str(), e["batch"].as_str(), e["after"].as_str()))
        .collect();
    assert_eq!(
        places,
        [
            (Some("b1"), None, None),
            (Some("b1"), None, None),
            (None, Some("b1"), None),
            (None, Some("b1"), None),
            (None, None, Some("b1")),
        ]
    );
    let agos: Vec<u64> = c["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["ago"].as_u64().unwrap())
        .collect();
    assert!(agos[0] >= 5_000 && agos[1] >= 4_000 && agos[1] < agos[0], "{agos:?}");

    let (_, c) = console(&agent, "batch=b1").await;
    assert_eq!(texts(&c), ["while it ran", "clicked"]);
    let (_, c) = console(&agent, "batch=last").await;
    assert_eq!(texts(&c), ["while it ran", "clicked"]);
    let (_, c) = console(&agent, "sinceBatch=1").await;
    assert_eq!(texts(&c), ["while it ran", "clicked", "later"]);
    let (_, c) = console(&agent, "sinceBatch=last&limit=1").await;
    assert_eq!(texts(&c), ["later"]);

    // A second batch: b1's entries are now before it, and `last` moves. (Times are whole
    // milliseconds: a batch that starts in the millisecond the last one ended shares that
    // millisecond's entries with it, so this one starts a few milliseconds later, as any batch
    // an agent sends after reading an answer does.)
    tokio::time::sleep(Duration::from_millis(3)).await;
    let done = one_batch(&agent, 2, json!([])).await;
    assert_eq!(done["batch"], "b2");
    let (_, c) = console(&agent, "batch=last").await;
    assert_eq!(texts(&c), ["while it ran"]);
    assert_eq!(c["logs"][0]["batch"], "b2");
}

#[tokio::test]
async fn bad_batch_parameters_are_a_400_naming_the_parameter() {
    let agent = agent();
    for (query, text) in [
        ("batch=b1", "batch \"b1\": no batch has run yet"),
        (
            "batch=seven",
            "invalid batch \"seven\": use a batch id as a batch's answer names it (b7, or 7), or last",
        ),
        (
            "sinceBatch=b0",
            "invalid sinceBatch \"b0\": use a batch id as a batch's answer names it (b7, or 7), or last",
        ),
        ("batch=1&batch=2", "parameter \"batch\" is given twice: give it once"),
    ] {
        let (status, body) = console(&agent, query).await;
        assert_eq!((status, body["error"].as_str()), (400, Some(text)), "{query}");
    }
    // A batch refused before it ran (no page) is no batch.
    let body = json!({"steps": [{"command": "snapshot"}]}).to_string();
    let (status, _) = send(
        &agent,
        "POST",
        &format!("{P}/run"),
        &[("content-type", "application/json")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(status, 503);
    let (status, body) = console(&agent, "batch=last").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("batch \"last\": no batch has run yet"))
    );
}
