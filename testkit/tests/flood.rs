//! A log flood over TCP, both adapters (issue 16): four senders post 128 MiB of big entries to
//! `POST {prefix}/logs` with the page key, every entry far longer than the host keeps. The host's
//! memory must stay within what its configured limits allow, whatever it is sent, and what it
//! stores must be within the ring's limits.
//!
//! The bound is derived from the limits, not measured: the ring holds at most `max_log_bytes` of
//! accounted bytes (a string's length; the heap also holds its `String` and the `Value` and map
//! nodes around it: ×2); each request in flight holds at most `body_limit` bytes of body three
//! times over (the adapter's read of it, the entries parsed from it before they are cut, the
//! sender's own copy on this side of the socket) and the sender's 256 KiB read buffer; and 8 MiB
//! for the rest (the runtimes, the threads' buffers, the de-duplication state). The live heap is
//! counted by this binary's allocator (exact, unlike the resident set, which also holds what the
//! allocator keeps after a free; the resident set is reported beside it).
//!
//! Before the ingest gave back the capacity of the strings it cut, a stored entry kept its whole
//! argument (here 200 KB) behind a 4,000-char value: the ring's 500 entries held 100 MB while
//! it counted 2.5 MB.

use std::net::SocketAddr;

use browser_agent_core::{BrowserAgent, LogQuery};
use browser_agent_testkit::flood::{flood, Flood};
use browser_agent_testkit::heap::{rss_kib, CountingAlloc};
use browser_agent_testkit::{actix_app, axum_app, RunningServer};
use serde_json::Value;

#[global_allocator]
static HEAP: CountingAlloc = CountingAlloc::new();

const KEY: &str = "flood-key-0001";
const P: &str = "/__mindstudio_dev__";
const MIB: usize = 1 << 20;
const SENDERS: usize = 4;

/// Every string in `v`, however deep.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Value::Object(map) => map.values().for_each(|i| strings(i, out)),
        _ => {}
    }
}

/// How a test app is served.
type Spawn = fn(BrowserAgent, Option<std::path::PathBuf>, SocketAddr) -> std::io::Result<RunningServer>;

fn flood_within_limits(name: &str, spawn: Spawn) {
    let agent = BrowserAgent::builder().enabled(true).page_key(KEY).build();
    let config = agent.config().clone();
    // The defaults: the builder was given none of its own.
    let (max_logs, max_log_bytes, body_limit) = (config.max_logs(), config.max_log_bytes(), config.body_limit());
    let server = spawn(agent.clone(), None, "127.0.0.1:0".parse().unwrap()).expect("server");
    let bound = 2 * max_log_bytes + SENDERS * (3 * body_limit + 256 * 1024) + 8 * MIB;

    let (heap_before, rss_before) = (HEAP.reset_peak(), rss_kib());
    let f = Flood {
        senders: SENDERS,
        total_bytes: 128 * MIB as u64,
        batch_bytes: body_limit - 4096,
        arg_bytes: 200_000,
    };
    let done = flood(server.addr, P, KEY, f);
    let heap_peak = HEAP.peak();
    let (heap_after, rss_after) = (HEAP.live(), rss_kib());
    let mib = |b: usize| b as f64 / MIB as f64;
    eprintln!(
        "flood {name}: {:.0} MiB in {} batches ({} entries) in {:.1} s; live heap {:.1} MiB before, peak {:.1}, after {:.1} (bound: +{:.1}); RSS {:.1} MiB before, peak {:.1}, after {:.1}",
        mib(done.bytes as usize),
        done.batches,
        done.entries,
        done.took.as_secs_f64(),
        mib(heap_before),
        mib(heap_peak),
        mib(heap_after),
        mib(bound),
        rss_before as f64 / 1024.0,
        done.peak_rss_kib as f64 / 1024.0,
        rss_after as f64 / 1024.0,
    );
    assert!(done.bytes >= 128 * MIB as u64);
    assert!(
        heap_peak - heap_before <= bound,
        "{name}: the live heap grew by {:.1} MiB during the flood (bound {:.1} MiB)",
        mib(heap_peak - heap_before),
        mib(bound)
    );
    // What stays is the ring's (the in-flight terms are gone).
    assert!(
        heap_after.saturating_sub(heap_before) <= 2 * max_log_bytes + 8 * MIB,
        "{name}: {:.1} MiB more live heap after the flood",
        mib(heap_after.saturating_sub(heap_before))
    );

    // Nothing stored exceeds the ring's limits.
    let logs = agent.logs();
    assert!(logs.len() <= max_logs, "{} entries kept", logs.len());
    assert!(logs.bytes() <= max_log_bytes, "{} bytes kept", logs.bytes());
    assert!(logs.evicted() > 0, "the flood filled the ring");
    assert_eq!(
        logs.last_seq(),
        done.entries,
        "every entry was stored once (and then evicted)"
    );
    let kept = logs.query(&LogQuery::all());
    assert!(!kept.is_empty());
    for e in &kept {
        assert!(
            e.text.chars().count() <= config.max_text(),
            "text of {} chars",
            e.text.chars().count()
        );
        let v = serde_json::to_value(&**e).expect("entry JSON");
        let mut all = Vec::new();
        strings(&v, &mut all);
        for s in all {
            assert!(
                s.chars().count() <= config.max_field(),
                "a value of {} chars",
                s.chars().count()
            );
        }
    }
    drop(server);
}

#[test]
fn a_log_flood_stays_within_the_limits_in_both_adapters() {
    // One after the other: the heap and the resident set are the process's.
    flood_within_limits("axum", axum_app::spawn);
    flood_within_limits("actix", actix_app::spawn);
}
