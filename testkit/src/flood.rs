//! A log flood (issue 16): concurrent senders post batches of big entries to a host's log ingest
//! (`POST {prefix}/logs` with the page key) over kept-alive loopback connections, while a sampler
//! thread records the process's resident set. The flood test (`testkit/tests/flood.rs`) and the
//! flood benchmark (`browser-tests/benches/flood.rs`) share it.
//!
//! Every entry carries its page's `clientId` and a new `seq` (so the host stores each one, as it
//! would a real page's), a `text` and one console argument far longer than the host keeps: the
//! host must cut them and keep no more than its limits, whatever it was sent.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::heap::rss_kib;
use crate::http::KeepAlive;

/// What to send.
#[derive(Debug, Clone, Copy)]
pub struct Flood {
    /// Concurrent senders, each on its own kept-alive connection (and thread).
    pub senders: usize,
    /// Bytes of request bodies to send in all (rounded up to whole batches).
    pub total_bytes: u64,
    /// Bytes of one batch's body at most (keep it within the host's `body_limit`).
    pub batch_bytes: usize,
    /// Bytes of each entry's console argument (its `text` is a quarter of it).
    pub arg_bytes: usize,
}

/// What a flood did.
#[derive(Debug, Clone, Copy)]
pub struct Flooded {
    /// Bytes of bodies sent (every one answered 204).
    pub bytes: u64,
    /// Batches sent.
    pub batches: u64,
    /// Entries sent.
    pub entries: u64,
    /// How long it took.
    pub took: Duration,
    /// The highest resident set sampled meanwhile (every 2 ms), in KiB.
    pub peak_rss_kib: u64,
}

/// A text of `n` bytes that reads like a log line (words, digits, a URL), not one repeated byte.
pub fn filler(n: usize) -> String {
    const WORDS: &str = "lorem ipsum 0123 dolor sit amet GET /api/items?page=7 → 200 consectetur adipiscing ";
    let mut s = String::with_capacity(n + WORDS.len());
    while s.len() < n {
        s.push_str(WORDS);
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    s
}

/// One batch body of entries `first_seq…` of page `client`, each with `arg` as its argument and
/// `text` as its text, as many as fit in `batch_bytes` (at least one).
fn batch(client: &str, first_seq: u64, text: &str, arg: &str, batch_bytes: usize) -> (Vec<u8>, u64) {
    let mut body = Vec::with_capacity(batch_bytes);
    body.push(b'[');
    let mut seq = first_seq;
    loop {
        let entry = format!(
            r#"{{"type":"console","level":"log","clientId":"{client}","seq":{seq},"t":1700000000000,"page":"http://127.0.0.1/flood","text":"{text}","args":["{arg}"]}}"#
        );
        if seq > first_seq && body.len() + entry.len() + 2 > batch_bytes {
            break;
        }
        if seq > first_seq {
            body.push(b',');
        }
        body.extend_from_slice(entry.as_bytes());
        seq += 1;
    }
    body.push(b']');
    (body, seq - first_seq)
}

/// Floods `{prefix}/logs` of the host at `addr` with `flood`, keyed with `key`; panics on any
/// answer but 204.
///
/// ```no_run
/// use browser_agent_testkit::flood::{flood, Flood};
/// # let addr: std::net::SocketAddr = "127.0.0.1:3000".parse().unwrap();
/// let f = Flood { senders: 4, total_bytes: 64 << 20, batch_bytes: 1 << 20, arg_bytes: 200_000 };
/// let done = flood(addr, "/__mindstudio_dev__", "KEY", f);
/// println!("{} MB in {:?}, peak RSS {} KiB", done.bytes >> 20, done.took, done.peak_rss_kib);
/// ```
pub fn flood(addr: SocketAddr, prefix: &str, key: &str, flood: Flood) -> Flooded {
    let text = Arc::new(filler(flood.arg_bytes / 4));
    let arg = Arc::new(filler(flood.arg_bytes));
    let sent = Arc::new(AtomicU64::new(0));
    let batches = Arc::new(AtomicU64::new(0));
    let entries = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(rss_kib()));
    let sampler = {
        let (done, peak) = (done.clone(), peak.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(rss_kib(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let t0 = Instant::now();
    let path = format!("{prefix}/logs");
    let threads: Vec<_> = (0..flood.senders)
        .map(|s| {
            let (text, arg, sent, batches, entries) = (
                text.clone(),
                arg.clone(),
                sent.clone(),
                batches.clone(),
                entries.clone(),
            );
            let path = path.clone();
            let key = key.to_owned();
            std::thread::spawn(move || {
                let mut conn = KeepAlive::new(addr);
                let client = format!("flood-{s:02}");
                let headers = [
                    ("x-browser-agent-key", key.as_str()),
                    ("content-type", "application/json"),
                ];
                let mut seq = 1;
                while sent.load(Ordering::Relaxed) < flood.total_bytes {
                    let (body, n) = batch(&client, seq, &text, &arg, flood.batch_bytes);
                    seq += n;
                    sent.fetch_add(body.len() as u64, Ordering::Relaxed);
                    let r = conn.post(&path, &headers, &body);
                    assert_eq!(r.status, 204, "POST {path}: {}", r.text());
                    batches.fetch_add(1, Ordering::Relaxed);
                    entries.fetch_add(n, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    }
    let took = t0.elapsed();
    done.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    peak.fetch_max(rss_kib(), Ordering::Relaxed);
    Flooded {
        bytes: sent.load(Ordering::Relaxed),
        batches: batches.load(Ordering::Relaxed),
        entries: entries.load(Ordering::Relaxed),
        took,
        peak_rss_kib: peak.load(Ordering::Relaxed),
    }
}
