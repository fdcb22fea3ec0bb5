//! The snapshot walk of the 2,000-item list (issue 17 item 4: full walk ≤ 200 ms, default
//! budgeted snapshot ≤ 50 ms), in real headless Chromium, against baselines in the same run:
//!
//! - **the page as served**: no style sheet gives a `::before`/`::after` any text, so the walk
//!   skips reading pseudo-elements (the bootstrap's `pc` scan says so);
//! - **one unused pseudo-element rule added** (`.bench-unused::before { content: "x" }`, matching
//!   nothing): the same page walked as every page was before the skip, reading both
//!   pseudo-elements of every element whose text or name it gathers;
//! - **the JS floor**: a script that visits every element of the body and reads its computed
//!   `display`, `visibility` and `cursor` (what any style-aware walk must do at least), no
//!   names, no refs, no text.
//!
//! Each figure is the page's own `walkMs` (or the script's own clock), the median of `WALKS`
//! (default 15) after 2 warm-up walks; first walks (refs made for 4,000 elements) are reported
//! apart. Ratios, not times, are the point on a shared machine.
//!
//! ```sh
//! TMPDIR=$PWD/target/tmp cargo bench -p browser-tests --bench walk   # WALKS=40 for more
//! ```
//! The report is also written to `target/browser-tests/walk.txt`.

use std::fmt::Write as _;

use browser_tests::{agent, any_port, client_id, exec, median, run_timed, scratch, Browser, Server};
use fantoccini::Client;
use serde_json::json;

/// Every element of the body, its computed display, visibility and cursor read; its own ms.
const JS_FLOOR: &str = r#"
const t = performance.now();
let n = 0;
for (const el of document.body.querySelectorAll('*')) {
  const s = getComputedStyle(el);
  if (s.display !== 'none' && s.visibility === 'visible' && s.cursor !== 'x') n++;
}
return [performance.now() - t, n];
"#;

const ADD_UNUSED_RULE: &str = r#"
const s = document.createElement('style');
s.textContent = '.bench-unused::before { content: "x" }';
document.head.appendChild(s);
return 0;
"#;

/// One snapshot step's walk time (`full`: everything; else the default budget).
async fn walk(server: &Server, id: &str, full: bool) -> f64 {
    let step = if full {
        json!({"command": "snapshot", "full": true})
    } else {
        json!({"command": "snapshot"})
    };
    let (v, _) = run_timed(
        server,
        Some(id),
        json!([step, {"command": "evaluate", "script": "window.__browserAgent.walkMs"}]),
    )
    .await;
    let text = v["steps"][0]["result"].as_str().expect("snapshot");
    // The walk really covered the list: the full snapshot ends at item 2,000, the default is cut.
    if full {
        assert!(text.contains("\"Item 2000\""), "full snapshot is whole");
    } else {
        assert!(text.contains("more listitem"), "default snapshot is cut");
    }
    v["steps"][1]["result"].as_f64().expect("walkMs")
}

/// One page of the list (`{"ref","offset":1000,"limit":40}`): its walk time. The paged walk
/// counts the alike items around the window instead of walking them (issue 31 item 5).
async fn page_walk(server: &Server, id: &str, list: &str) -> f64 {
    let (v, _) = run_timed(
        server,
        Some(id),
        json!([
            {"command": "snapshot", "ref": list, "offset": 1000, "limit": 40},
            {"command": "evaluate", "script": "window.__browserAgent.walkMs"}
        ]),
    )
    .await;
    let text = v["steps"][0]["result"].as_str().expect("snapshot");
    assert!(
        text.contains("\"Item 1001\"") && text.contains("\"Item 1040\"") && !text.contains("\"Item 1041\""),
        "the page shows items 1,001 to 1,040: {text}"
    );
    assert!(text.contains("… 960 more listitem"), "and counts the rest: {text}");
    v["steps"][1]["result"].as_f64().expect("walkMs")
}

/// The list's ref, from the default snapshot's cut line.
async fn list_ref(server: &Server, id: &str) -> String {
    let (v, _) = run_timed(server, Some(id), json!([{"command": "snapshot"}])).await;
    let text = v["steps"][0]["result"].as_str().expect("snapshot");
    let at = text.rfind("{\"ref\":\"").expect("a cut line with the list's ref") + 8;
    text[at..].split('"').next().expect("ref").to_owned()
}

struct Figures {
    first: f64,
    full: f64,
    default: f64,
    page: f64,
}

async fn measure(server: &Server, c: &Client, walks: usize, unused_rule: bool) -> Figures {
    c.goto(&server.url("/snapshot/biglist.html")).await.expect("open");
    let id = client_id(c, server).await;
    if unused_rule {
        exec(c, ADD_UNUSED_RULE).await;
    }
    let first = walk(server, &id, true).await;
    let list = list_ref(server, &id).await;
    let (mut full, mut default, mut page) = (vec![], vec![], vec![]);
    for i in 0..walks + 2 {
        let f = walk(server, &id, true).await;
        let d = walk(server, &id, false).await;
        let p = page_walk(server, &id, &list).await;
        if i >= 2 {
            full.push(f);
            default.push(d);
            page.push(p);
        }
    }
    Figures {
        first,
        full: median(&mut full),
        default: median(&mut default),
        page: median(&mut page),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let walks: usize = std::env::var("WALKS").ok().and_then(|v| v.parse().ok()).unwrap_or(15);
    let server = Server::start(agent(), any_port());
    let browser = Browser::launch(&scratch()).await;
    let c = &browser.client;

    // Alternated, so that a busy spell of the machine falls on both alike.
    let (mut skip, mut read) = (vec![], vec![]);
    for _ in 0..2 {
        skip.push(measure(&server, c, walks, false).await);
        read.push(measure(&server, c, walks, true).await);
    }
    let mut floor = vec![];
    for _ in 0..walks {
        let v = exec(c, JS_FLOOR).await;
        assert!(v[1].as_u64().unwrap_or(0) > 8000, "the floor visited the list: {v}");
        floor.push(v[0].as_f64().expect("ms"));
    }
    let pick = |v: &[Figures], f: fn(&Figures) -> f64| median(&mut v.iter().map(f).collect::<Vec<_>>());
    let (s_first, s_full, s_default) = (
        pick(&skip, |f| f.first),
        pick(&skip, |f| f.full),
        pick(&skip, |f| f.default),
    );
    let (r_first, r_full, r_default) = (
        pick(&read, |f| f.first),
        pick(&read, |f| f.full),
        pick(&read, |f| f.default),
    );
    let floor = median(&mut floor);
    let s_page = pick(&skip, |f| f.page);

    let mut report = String::new();
    let _ = writeln!(report, "2,000-item list walk, medians of {walks} walks (ms):");
    let _ = writeln!(report, "{:<52} {:>8} {:>8} {:>8}", "", "first", "full", "default");
    let _ = writeln!(
        report,
        "{:<52} {s_first:>8.1} {s_full:>8.1} {s_default:>8.1}",
        "as served (pseudo-elements skipped)"
    );
    let _ = writeln!(
        report,
        "{:<52} {r_first:>8.1} {r_full:>8.1} {r_default:>8.1}",
        "one unused ::before rule (pseudo-elements read)"
    );
    let _ = writeln!(
        report,
        "{:<52} {:>8.2} {:>8.2} {:>8.2}",
        "ratio (read / skipped)",
        r_first / s_first,
        r_full / s_full,
        r_default / s_default
    );
    let _ = writeln!(
        report,
        "baseline: JS floor (computed display/visibility/cursor of every element) {floor:.1} ms; full walk / floor {:.1}",
        s_full / floor
    );
    let _ = writeln!(
        report,
        "one page of the list (ref, offset 1,000, limit 40): {s_page:.1} ms; page / full walk {:.2}",
        s_page / s_full
    );
    print!("{report}");
    let _ = std::fs::write(scratch().join("../walk.txt"), report);
    browser.close().await;
    server.stop();
}
