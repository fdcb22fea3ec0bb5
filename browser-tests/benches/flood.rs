//! Log flood (issue 16): eight senders post 1 GiB of big entries (each `text` and console argument
//! far longer than the host keeps) to the host's log ingest, `POST {prefix}/logs` with the page
//! key, over kept-alive loopback connections, first to the axum test app, then to the actix one,
//! each in the same process after a baseline. The report gives, per adapter, the resident set
//! before (the baseline: the server started and idle), its peak during the flood (sampled every
//! 2 ms) and after, beside the live heap (counted by this binary's allocator) and what the host
//! kept (entries and accounted bytes of its ring, against its limits).
//!
//! ```sh
//! cargo bench -p browser-tests --bench flood     # GIB=4 for more, SENDERS=16 for more senders
//! ```
//! The report is also written to `target/browser-tests/flood.txt`.

use std::fmt::Write as _;

use browser_agent_core::BrowserAgent;
use browser_agent_testkit::flood::{flood, Flood};
use browser_agent_testkit::heap::{rss_kib, CountingAlloc};
use browser_tests::{any_port, scratch, Framework, Server, PAGE_KEY, PREFIX};

#[global_allocator]
static HEAP: CountingAlloc = CountingAlloc::new();

const MIB: f64 = 1024.0 * 1024.0;

fn main() {
    let gib: u64 = std::env::var("GIB").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let senders: usize = std::env::var("SENDERS").ok().and_then(|v| v.parse().ok()).unwrap_or(8);
    let mut report = String::new();
    let _ = writeln!(
        report,
        "flood: {gib} GiB per adapter to POST {PREFIX}/logs, {senders} senders on kept-alive loopback connections, 200 KB console arguments"
    );
    for framework in [Framework::Axum, Framework::Actix] {
        let agent = BrowserAgent::builder().enabled(true).page_key(PAGE_KEY).build();
        let server = Server::start_on(framework, agent.clone(), any_port());
        let body_limit = agent.config().body_limit();
        // Warm the server (its runtime, a connection) before the baseline.
        let _ = flood(
            server.addr,
            PREFIX,
            PAGE_KEY,
            Flood {
                senders: 1,
                total_bytes: 1,
                batch_bytes: 4096,
                arg_bytes: 100,
            },
        );
        let (rss_before, heap_before) = (rss_kib(), HEAP.reset_peak());
        let done = flood(
            server.addr,
            PREFIX,
            PAGE_KEY,
            Flood {
                senders,
                total_bytes: gib << 30,
                batch_bytes: body_limit - 4096,
                arg_bytes: 200_000,
            },
        );
        let (rss_after, heap_after, heap_peak) = (rss_kib(), HEAP.live(), HEAP.peak());
        let logs = agent.logs();
        let kib = |k: u64| k as f64 / 1024.0;
        let _ = writeln!(
            report,
            "  {framework:?}: {:.2} GB in {} batches ({} entries) in {:.1} s ({:.0} MB/s)",
            done.bytes as f64 / 1e9,
            done.batches,
            done.entries,
            done.took.as_secs_f64(),
            done.bytes as f64 / 1e6 / done.took.as_secs_f64()
        );
        let _ = writeln!(
            report,
            "    RSS before {:.1} MiB, peak {:.1} MiB (+{:.1}), after {:.1} MiB (+{:.1})",
            kib(rss_before),
            kib(done.peak_rss_kib),
            kib(done.peak_rss_kib.saturating_sub(rss_before)),
            kib(rss_after),
            kib(rss_after.saturating_sub(rss_before)),
        );
        let _ = writeln!(
            report,
            "    live heap before {:.1} MiB, peak {:.1} MiB, after {:.1} MiB",
            heap_before as f64 / MIB,
            heap_peak as f64 / MIB,
            heap_after as f64 / MIB
        );
        let _ = writeln!(
            report,
            "    the ring keeps {} of {} entries ({} max), {:.2} MiB accounted ({:.0} MiB max)",
            logs.len(),
            logs.last_seq(),
            agent.config().max_logs(),
            logs.bytes() as f64 / MIB,
            agent.config().max_log_bytes() as f64 / MIB
        );
        server.stop();
    }
    print!("{report}");
    let _ = std::fs::write(scratch().join("../flood.txt"), report);
}
