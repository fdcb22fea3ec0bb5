//! Unit tests of the command channel.

use super::queue::Ticket;
use super::*;
use crate::adapter::AdapterExt;
use crate::protocol::{field, Results};
use serde_json::json;
use std::future::Future;
use std::task::{Context, Waker};
use std::time::Instant;

fn complete(q: &CommandQueue, id: &str, result: Value, logs: Vec<Value>) -> bool {
    q.complete(id, Results::from_value(result), logs)
}

#[test]
fn a_delivered_batch_says_how_much_of_its_time_is_left() {
    let q = CommandQueue::default();
    let steps = [json!({"command": "snapshot"})];
    q.enqueue("p", &steps, vec![], Duration::from_millis(4000)).unwrap();
    let body = serde_json::to_value(q.take("p", None).unwrap()).unwrap();
    let left = body[field::TIMEOUT_MS].as_u64().unwrap();
    assert!(left > 0 && left <= 4000, "{body}");
    assert_eq!(body[field::STEPS], json!(steps), "{body}");
    assert!(body[field::ID].is_string(), "{body}");
}

#[test]
fn unknown_commands_are_refused_before_anything_runs() {
    let mut steps = [json!({"command": "snapshot"}), json!({"command": "console.log"})];
    let Err(RunError::BadRequest(m)) = validate_steps(&mut steps) else {
        panic!("an unknown command must be a bad request");
    };
    assert!(
        m.starts_with("step 2 (nothing ran): unknown command \"console.log\"; commands: snapshot, click, "),
        "{m}"
    );
}

#[test]
fn fifo_one_at_a_time_and_abandon() {
    let q = CommandQueue::default();
    let steps = [json!({"command": "snapshot"})];
    let Ticket { id: a, rx: _ra, .. } = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    let Ticket { id: b, rx: _rb, .. } = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    let first = q.take("p", None).unwrap();
    assert_eq!(first.id, a);
    assert!(q.take("p", None).is_none(), "one batch at a time");
    q.abandon(&b);
    assert!(complete(&q, &a, json!({"steps": [], "snapshot": "x"}), vec![]));
    assert!(q.take("p", None).is_none(), "the abandoned batch never runs");
    assert!(!complete(&q, &b, json!({}), vec![]), "unknown ids are refused");
    assert!(q.take("other", None).is_none());
}

#[test]
fn results_diff_after_the_first_snapshot() {
    let q = CommandQueue::default();
    let mut steps = [json!({"command": "snapshot", "diff": true})];
    let diff_steps = validate_steps(&mut steps).unwrap();
    let Ticket { id: a, rx: mut ra, .. } = q
        .enqueue("p", &steps, diff_steps.clone(), Duration::from_secs(30))
        .unwrap();
    q.take("p", None);
    complete(
        &q,
        &a,
        json!({"steps": [{"index":0,"command":"snapshot","result":"button \"A\" [ref=e1]"}], "snapshot": "button \"A\" [ref=e1]", "duration": 5}),
        vec![],
    );
    let r = ra.try_recv().unwrap().unwrap();
    assert_eq!(
        r.steps[0].result_str(),
        Some("button \"A\" [ref=e1]"),
        "the first snapshot is full"
    );
    assert_eq!(
        r.snapshot, "(as step 1 showed it)",
        "the page's first: named, not repeated, and never \"(no changes)\""
    );
    let Ticket { id: b, rx: mut rb, .. } = q.enqueue("p", &steps, diff_steps, Duration::from_secs(30)).unwrap();
    q.take("p", None);
    complete(
        &q,
        &b,
        json!({"steps": [{"index":0,"command":"snapshot","result":"button \"B\" [ref=e1]"}], "snapshot": "button \"B\" [ref=e1]"}),
        vec![],
    );
    let r = rb.try_recv().unwrap().unwrap();
    assert_eq!(r.steps[0].result_str(), Some("~ button \"B\" [ref=e1]"));
    assert_eq!(
        r.snapshot, "~ button \"B\" [ref=e1]",
        "from before the batch, not from its step"
    );
    assert_eq!(r.full_snapshot, "button \"B\" [ref=e1]");
}

#[test]
fn a_scoped_snapshot_is_never_diffed_nor_the_next_baseline() {
    let q = CommandQueue::default();
    let full = "list\n  listitem: button \"A\" [ref=e1]\n  listitem: button \"B\" [ref=e2]";
    let steps = [json!({"command": "snapshot"})];
    let Ticket { id: a, rx: mut ra, .. } = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    q.take("p", None);
    complete(
        &q,
        &a,
        json!({"steps": [{"index":0,"command":"snapshot","result":full}], "snapshot": full}),
        vec![],
    );
    assert_eq!(ra.try_recv().unwrap().unwrap().snapshot, "(as step 1 showed it)");
    // Scoped to one node, with diff asked for: answered as taken; the final snapshot's diff is
    // against the page's full one, not against the scoped text.
    let mut steps = [json!({"command": "snapshot", "ref": "e2", "diff": true})];
    let diff_steps = validate_steps(&mut steps).unwrap();
    let Ticket { id: b, rx: mut rb, .. } = q.enqueue("p", &steps, diff_steps, Duration::from_secs(30)).unwrap();
    q.take("p", None);
    complete(
        &q,
        &b,
        json!({"steps": [{"index":0,"command":"snapshot","result":"button \"B\" [ref=e2]","scoped":true}], "snapshot": full}),
        vec![],
    );
    let r = rb.try_recv().unwrap().unwrap();
    assert_eq!(r.steps[0].result_str(), Some("button \"B\" [ref=e2]"));
    assert_eq!(r.snapshot, "(no changes)");
}

#[test]
fn a_batch_without_snapshot_step_carries_the_full_snapshot_first() {
    let q = CommandQueue::default();
    let steps = [json!({"command": "click", "text": "A"})];
    let Ticket { id: a, rx: mut ra, .. } = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    q.take("p", None);
    complete(
        &q,
        &a,
        json!({"steps": [{"index":0,"command":"click","error":"No button"}], "snapshot": "button \"B\" [ref=e2]"}),
        vec![],
    );
    let r = ra.try_recv().unwrap().unwrap();
    assert_eq!(
        (r.snapshot.as_str(), r.error.as_deref()),
        ("button \"B\" [ref=e2]", Some("No button"))
    );
    assert_eq!(r.tree()[0].ref_id.as_deref(), Some("e2"));
}

#[test]
fn a_navigating_page_hands_the_rest_to_the_next_page_in_its_tab() {
    let q = CommandQueue::default();
    let steps = [
        json!({"command": "navigate", "url": "/two"}),
        json!({"command": "snapshot"}),
    ];
    let Ticket { id, mut rx, .. } = q.enqueue("old", &steps, vec![], Duration::from_secs(30)).unwrap();
    assert!(q.take("old", Some("tab1")).is_some());
    let partial = json!({"id": id, "steps": [{"index": 0, "command": "navigate", "result": "navigating to /two", "at": 3}],
        "handover": {"tab": "tab1", "remaining": [{"command": "snapshot"}], "offset": 1}});
    assert!(complete(&q, &id, partial, vec![]));
    assert!(rx.try_recv().is_err(), "the agent waits for the rest");
    assert!(q.take("other-tab-page", Some("tab2")).is_none());
    // The next page load takes a while to come (QA8: a 1.6 s batch answered "duration": 3).
    std::thread::sleep(Duration::from_millis(60));
    let rest = q.take("new", Some("tab1")).unwrap();
    assert_eq!((rest.id.as_str(), rest.offset), (id.as_str(), Some(1)));
    assert_eq!(rest.steps, [json!({"command": "snapshot"})]);
    complete(
        &q,
        &id,
        json!({"id": id, "steps": [{"index": 1, "command": "snapshot", "result": "main", "at": 2}], "snapshot": "main", "duration": 3}),
        vec![],
    );
    let done = rx.try_recv().unwrap().unwrap();
    assert_eq!(done.client_id, "new");
    assert_eq!(done.steps.len(), 2);
    assert_eq!(done.steps[0].result_str(), Some("navigating to /two"));
    // Timed as one batch: the new page's step after the old page's, the whole in `duration`.
    let at: Vec<u64> = done.steps.iter().map(|s| s.other["at"].as_u64().unwrap()).collect();
    assert!(at[0] == 3 && at[1] >= 62, "{at:?}");
    assert!(done.duration >= 60, "{}", done.duration);
    assert_eq!(q.actions("old").len(), 1);
    assert_eq!(q.actions("new")[0]["command"], "snapshot");
}

#[test]
fn a_diff_never_pairs_the_snapshots_of_two_page_loads() {
    let q = CommandQueue::default();
    // The old page's baseline, from an earlier batch.
    let first = [json!({"command": "snapshot"})];
    let Ticket { id, .. } = q.enqueue("old", &first, vec![], Duration::from_secs(30)).unwrap();
    q.take("old", Some("tab1"));
    let before = "button \"A\" [ref=e1]";
    complete(&q, &id, json!({"steps": [], "snapshot": before}), vec![]);
    let mut steps = [
        json!({"command": "snapshot", "diff": true}),
        json!({"command": "click", "ref": "e1"}),
        json!({"command": "snapshot", "diff": true}),
    ];
    let diff_steps = validate_steps(&mut steps).unwrap();
    let Ticket { id, mut rx, .. } = q.enqueue("old", &steps, diff_steps, Duration::from_secs(30)).unwrap();
    q.take("old", Some("tab1"));
    let old_now = "button \"A\" [ref=e1]\n\"Leaving\"";
    let partial = json!({"steps": [
            {"index": 0, "command": "snapshot", "result": old_now},
            {"index": 1, "command": "click", "result": "clicked"}],
        "handover": {"tab": "tab1", "remaining": [steps[2].clone()], "offset": 2}});
    assert!(complete(&q, &id, partial, vec![]));
    q.take("new", Some("tab1")).unwrap();
    // The new load numbers its refs from e1 again: the same ref is another element.
    let new_page = "button \"B\" [ref=e1]";
    complete(
        &q,
        &id,
        json!({"steps": [{"index": 2, "command": "snapshot", "result": new_page}], "snapshot": new_page}),
        vec![],
    );
    let done = rx.try_recv().unwrap().unwrap();
    assert_eq!(
        done.steps[0].result_str(),
        Some("+ \"Leaving\""),
        "the old page's step is diffed against the old page's baseline"
    );
    assert_eq!(
        done.steps[2].result_str(),
        Some(new_page),
        "the new page's first snapshot is whole, not `~ button \"B\"` against the old page"
    );
    assert_eq!(
        done.snapshot, "(as step 3 showed it)",
        "the new page has no baseline from before the batch: named as its step showed it"
    );
}

#[test]
fn a_page_restored_from_the_back_forward_cache_answers_its_next_snapshot_whole() {
    let q = CommandQueue::default();
    let snapshot = [json!({"command": "snapshot"})];
    let one = "link \"Two\" [ref=e1]";
    let two = "button \"Alpha\" [ref=e1]";
    // Runs a snapshot batch on `client`, which answers `text`; the final snapshot as the agent reads it.
    let answer = |client: &str, text: &str| {
        let Ticket { id, mut rx, .. } = q.enqueue(client, &snapshot, vec![], Duration::from_secs(30)).unwrap();
        q.take(client, None).unwrap();
        complete(&q, &id, json!({"steps": [], "snapshot": text}), vec![]);
        rx.try_recv().unwrap().unwrap().snapshot
    };
    assert_eq!(answer("one", one), one);
    assert_eq!(answer("one", one), "(no changes)");
    // It goes (a link to page two), and comes back by its own heartbeat or poll.
    q.page_gone("one", "queued", "left while running", GONE_GRACE);
    assert_eq!(answer("two", two), two);
    q.page_back("one");
    assert_eq!(
        answer("one", one),
        one,
        "whole, not \"(no changes)\" against what it showed before page two"
    );
    // `[move, snapshot diff]` run on `from`, which hands the snapshot over to `to`, which answers
    // `text`: the batch's result.
    let hand = |from: &str, to: &str, text: &str| {
        let mut steps = [json!({"command": "back"}), json!({"command": "snapshot", "diff": true})];
        let diff_steps = validate_steps(&mut steps).unwrap();
        let Ticket { id, mut rx, .. } = q.enqueue(from, &steps, diff_steps, Duration::from_secs(30)).unwrap();
        q.take(from, Some("tab1")).unwrap();
        let handover = json!({"steps": [{"index": 0, "command": "back", "result": "going back"}],
            "handover": {"tab": "tab1", "remaining": [steps[1].clone()], "offset": 1}});
        assert!(complete(&q, &id, handover, vec![]));
        q.take(to, Some("tab1")).unwrap();
        let answer = json!({"steps": [{"index": 1, "command": "snapshot", "result": text}], "snapshot": text});
        complete(&q, &id, answer, vec![]);
        rx.try_recv().unwrap().unwrap()
    };
    // Back through a batch: page two hands the rest over, and page one takes it (its baseline
    // from the answer above is not what the agent saw last).
    let done = hand("two", "one", one);
    assert_eq!(
        done.snapshot, "(as step 2 showed it)",
        "page one's baseline was dropped: its step's"
    );
    assert_eq!(
        done.steps[1].result_str(),
        Some(one),
        "whole: the agent last saw page two"
    );
    // The same document taking its own rest back (a single-page app's `back`, a `#hash`): its
    // baseline, just stored by its handover, stays.
    let done = hand("one", "one", one);
    assert_eq!(
        done.steps[1].result_str(),
        Some("(no changes)"),
        "diffed: the same document"
    );
}

#[test]
fn a_page_that_leaves_fails_its_queued_batches_at_once_but_keeps_a_handed_over_one() {
    let q = CommandQueue::default();
    let steps = [
        json!({"command": "navigate", "url": "/two"}),
        json!({"command": "snapshot"}),
    ];
    let running = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    let mut queued = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    assert!(q.take("p", Some("tab1")).is_some());
    // The page hands the rest of its running batch over, then its `gone` beacon arrives.
    let handover = json!({"steps": [{"index": 0, "command": "navigate", "result": "navigating to /two"}],
        "handover": {"tab": "tab1", "remaining": [{"command": "snapshot"}], "offset": 1}});
    assert!(complete(&q, &running.id, handover, vec![]));
    let handed = q.deadline(&running.id);
    q.page_gone("p", "left before it ran", "left while running", GONE_GRACE);
    match queued.rx.try_recv().unwrap() {
        Err(RunError::PageLeft { message, steps }) => {
            assert_eq!((message.as_str(), steps.len()), ("left before it ran", 0))
        }
        other => panic!("the queued batch fails at once: {other:?}"),
    }
    assert!(q.take("p", None).is_none(), "it never runs later");
    assert_eq!(
        q.deadline(&running.id),
        handed,
        "the handed-over batch is the tab's, not the gone page's"
    );
    assert!(
        q.take("next", Some("tab1")).is_some(),
        "the next page of the tab still gets it"
    );
    let mut rx = running.rx;
    assert!(complete(
        &q,
        &running.id,
        json!({"steps": [{"index": 1, "command": "snapshot", "result": "main"}], "snapshot": "main"}),
        vec![]
    ));
    assert_eq!(rx.try_recv().unwrap().unwrap().steps.len(), 2);
}

#[test]
fn a_batch_its_page_was_running_when_it_left_waits_briefly_for_its_results() {
    let q = CommandQueue::default();
    let steps = [json!({"command": "click", "text": "Docs"})];
    // The results (with the handover) arrive just after the `gone` beacon: they still count.
    let a = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    q.take("p", Some("t"));
    q.page_gone("p", "queued", "left while running", GONE_GRACE);
    let grace_end = q.deadline(&a.id).expect("an early end is set");
    let told = std::pin::pin!(a.changed.notified()).poll(&mut Context::from_waker(Waker::noop()));
    assert!(told.is_ready(), "the caller is told");
    let handover = json!({"steps": [], "handover": {"tab": "t", "remaining": [], "offset": 1}});
    assert!(complete(&q, &a.id, handover, vec![]));
    assert_ne!(q.deadline(&a.id), Some(grace_end), "no longer the gone page's grace");
    // No results at all: at the end of the grace it fails with the message, and is removed.
    let b = q.enqueue("r", &steps, vec![], Duration::from_secs(30)).unwrap();
    q.take("r", None);
    q.page_gone("r", "queued", "left while running", GONE_GRACE);
    let end = q.deadline(&b.id).unwrap();
    let overall = end + Duration::from_secs(60);
    assert!(q
        .expire(&b.id, end - Duration::from_millis(1), overall, 60_000)
        .is_none());
    assert_eq!(
        q.expire(&b.id, end, overall, 60_000),
        Some(RunError::PageLeft {
            message: "left while running".into(),
            steps: vec![]
        })
    );
    assert!(!complete(&q, &b.id, json!({"steps": []}), vec![]), "removed");
    // Restored from the back/forward cache: it waits for its results again.
    let c = q.enqueue("s", &steps, vec![], Duration::from_secs(30)).unwrap();
    q.take("s", None);
    q.page_gone("s", "queued", "left while running", GONE_GRACE);
    q.page_back("s");
    assert!(q.deadline(&c.id).is_none());
    let far = Instant::now() + Duration::from_secs(3600);
    assert_eq!(
        q.expire(&c.id, far, far, 5),
        Some(RunError::Timeout(Duration::from_millis(5)))
    );
    // Never taken (the page did not poll): said apart from a page that took it and went quiet.
    let d = q.enqueue("t", &steps, vec![], Duration::from_secs(30)).unwrap();
    let err = q.expire(&d.id, far, far, 5).unwrap();
    assert_eq!(err, RunError::NotTaken(Duration::from_millis(5)));
    assert!(
        err.to_string().contains("never took it") && err.to_string().ends_with("Reload the page"),
        "{err}"
    );
    assert_eq!(err.status(), 504);
}

#[test]
fn a_handed_over_batch_fails_soon_when_no_page_takes_it() {
    let q = CommandQueue::default();
    let steps = [
        json!({"command": "click", "text": "Export"}),
        json!({"command": "navigate", "url": "/api/items"}),
        json!({"command": "snapshot"}),
    ];
    let handover = |url: Option<&str>| {
        let mut h = json!({"tab": "t", "remaining": [{"command": "snapshot"}], "offset": 2});
        if let Some(url) = url {
            h["url"] = json!(url);
        }
        json!({"steps": [
            {"index": 0, "command": "click", "result": "clicked button \"Export\""},
            {"index": 1, "command": "navigate", "result": "navigating to /api/items"}],
            "handover": h})
    };
    let a = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    q.take("p", Some("t"));
    assert!(q.deadline(&a.id).is_none(), "running: only the batch's own timeout");
    assert!(complete(
        &q,
        &a.id,
        handover(Some("http://127.0.0.1:3000/api/items")),
        vec![]
    ));
    let wait_end = q.deadline(&a.id).expect("the new page must connect soon");
    let overall = wait_end + Duration::from_secs(20);
    let err = q.expire(&a.id, wait_end, overall, 30_000).unwrap();
    assert_eq!(
        err.to_string(),
        "The page navigated to http://127.0.0.1:3000/api/items and no browser-agent client started there \
         within 10 s (not an HTML page served through this dev server?); the steps before it ran: \
         #0 click: clicked button \"Export\"; #1 navigate: navigating to /api/items"
    );
    assert_eq!(err.steps().len(), 2, "the answer keeps the steps that ran");
    assert!(q.take("p2", Some("t")).is_none(), "removed: no later page runs it");

    // No URL in the handover; the batch's own timeout comes first (2.5 s after the handover).
    let b = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    q.take("p", Some("t"));
    complete(&q, &b.id, handover(None), vec![]);
    let since = q.deadline(&b.id).unwrap() - HANDOVER_WAIT;
    let overall = since + Duration::from_millis(2_500);
    let err = q.expire(&b.id, overall, overall, 4_000).unwrap();
    assert!(
        err.to_string()
            .starts_with("The page navigated away or was closed and no browser-agent client started there within 2.5 s (its tab closed"),
        "{err}"
    );

    // The next page connects in time: the batch's own timeout applies again.
    let c = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    q.take("p", Some("t"));
    complete(&q, &c.id, handover(None), vec![]);
    let wait_end = q.deadline(&c.id).unwrap();
    assert!(q.take("next", Some("t")).is_some());
    assert!(q.deadline(&c.id).is_none());
    assert!(q
        .expire(&c.id, wait_end, wait_end + Duration::from_secs(1), 30_000)
        .is_none());
}

#[test]
fn validation_names_the_problem() {
    assert!(validate_steps(&mut [])
        .unwrap_err()
        .to_string()
        .contains("non-empty \"steps\""));
    assert!(validate_steps(&mut [json!({"x": 1})])
        .unwrap_err()
        .to_string()
        .contains("step 1 (nothing ran) needs a \"command\""));
    let mut too_many = vec![json!({"command":"snapshot"}); MAX_STEPS + 1];
    assert!(validate_steps(&mut too_many).is_err());
    let q = CommandQueue::default();
    for _ in 0..MAX_QUEUED {
        q.enqueue("p", &[json!({"command":"snapshot"})], vec![], Duration::from_secs(30))
            .unwrap();
    }
    assert_eq!(
        q.enqueue("p", &[json!({"command":"snapshot"})], vec![], Duration::from_secs(30))
            .unwrap_err(),
        RunError::QueueFull
    );
}

/// A page whose client failed to start: every agent-facing answer that would say "No browser
/// connected" (the HTTP route, the Rust API, stdio) says instead which page is open and why.
#[tokio::test]
async fn a_page_whose_client_failed_to_start_is_named_instead_of_no_browser() {
    use crate::BrowserAgent;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let agent = BrowserAgent::builder()
        .enabled(true)
        .page_key("failed-test-key")
        .build();
    let request = |method: &str, uri: &str, body: &str| {
        http::Request::builder()
            .method(method)
            .uri(uri)
            .header("host", "127.0.0.1:3000")
            .header("x-browser-agent-key", "failed-test-key")
            .header("content-type", "application/json")
            .body(bytes::Bytes::from(body.to_owned()))
            .unwrap()
    };
    let probe = "/browser/probe?client=c9&page=http%3A%2F%2F127.0.0.1%3A3000%2Fapp&phase=failed\
                 &error=CompileError%3A%20refused&stack=CompileError%3A%20refused%0A%20%20at%20x";
    assert_eq!(agent.handle(request("GET", probe, "")).await.unwrap().status(), 200);
    let expected =
        "A page is open at http://127.0.0.1:3000/app but its browser-agent client failed to start: CompileError: refused";
    let run = r#"{"steps":[{"command":"snapshot"}]}"#;
    let res = agent
        .handle(request("POST", "/__mindstudio_dev__/run", run))
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    let body: Value = serde_json::from_slice(res.body()).unwrap();
    assert_eq!(body["message"], expected, "{body}");
    let named = r#"{"client":"c9","steps":[{"command":"snapshot"}]}"#;
    let res = agent
        .handle(request("POST", "/__mindstudio_dev__/run", named))
        .await
        .unwrap();
    let body: Value = serde_json::from_slice(res.body()).unwrap();
    assert_eq!(body["message"], expected, "{body}");
    let err = agent.snapshot(crate::SnapshotOptions::new()).await.unwrap_err();
    assert!(matches!(&err, RunError::ClientFailed { .. }) && err.status() == 503);
    assert_eq!(err.to_string(), expected);
    // The page is listed as failed with its error; the error is one entry of that page (a second
    // heartbeat with the same error stores nothing more).
    assert_eq!(agent.handle(request("GET", probe, "")).await.unwrap().status(), 200);
    let res = agent
        .handle(request("GET", "/__mindstudio_dev__/page", ""))
        .await
        .unwrap();
    let pages: Value = serde_json::from_slice(res.body()).unwrap();
    assert_eq!(pages["pages"][0]["phase"], "failed", "{pages}");
    assert_eq!(pages["pages"][0]["error"], "CompileError: refused", "{pages}");
    assert_eq!(pages["defaultTarget"], Value::Null, "{pages}");
    let res = agent
        .handle(request("GET", "/__mindstudio_dev__/console?type=error", ""))
        .await
        .unwrap();
    let logs: Value = serde_json::from_slice(res.body()).unwrap();
    assert_eq!(logs["count"], 1, "{logs}");
    let entry = &logs["logs"][0];
    assert_eq!(
        entry["message"],
        "browser-agent client failed to start: CompileError: refused"
    );
    assert_eq!(entry["stack"], "CompileError: refused\n  at x");
    assert_eq!(entry["clientId"], "c9");
    // stdio.
    let (agent_in, mut to_agent) = tokio::io::duplex(4096);
    let (mut from_agent, agent_out) = tokio::io::duplex(4096);
    let server = {
        let agent = agent.clone();
        tokio::spawn(async move { agent.serve_io(BufReader::new(agent_in), agent_out).await })
    };
    to_agent
        .write_all(b"{\"action\":\"browser\",\"steps\":[{\"command\":\"snapshot\"}]}\n")
        .await
        .unwrap();
    drop(to_agent);
    server.await.unwrap().unwrap();
    let mut line = String::new();
    BufReader::new(&mut from_agent).read_line(&mut line).await.unwrap();
    let event: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(event["message"], expected, "{event}");
}

#[test]
fn the_action_log_keeps_a_result_that_is_no_string_as_its_json() {
    // QA8: an `evaluate` that returned an object left no result in the action log.
    let q = CommandQueue::default();
    let steps = [json!({"command": "evaluate", "script": "({a: 1})"})];
    let Ticket { id, .. } = q.enqueue("p", &steps, vec![], Duration::from_secs(30)).unwrap();
    q.take("p", None);
    let answer = json!({"id": id, "steps": [{"index": 0, "command": "evaluate", "result": {"a": 1, "b": [true]}}], "snapshot": ""});
    assert!(complete(&q, &id, answer, vec![]));
    assert_eq!(q.actions("p")[0]["result"], r#"{"a":1,"b":[true]}"#);
}
