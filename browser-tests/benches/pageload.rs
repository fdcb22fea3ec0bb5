//! What the injected client costs the page's own load, in real headless Chromium: the same page
//! served by the same axum app, once plain and once behind `BrowserAgentLayer`, loaded in
//! alternation in one browser, in one run (so machine load hits both sides alike).
//!
//! Per load it reads the page's Navigation Timing (`DOMContentLoaded` and `load` ends), the paint
//! entries (first paint, first contentful paint) and the renderer main thread's busy time
//! (`Performance.getMetrics` `TaskDuration` through CDP, the document's own count 700 ms after the
//! navigation, the same window for every variant, with no script of ours run in the page inside it),
//! then reports medians, the agent side minus the plain side, and their ratio, for two pages: one
//! with its styles and script inline (no request of its own before the client's: the worst case,
//! as the first request of a document pays for setting up its loader) and the same page with them
//! linked as cached files, as a dev server's pages have them. Goal (issue 31): no
//! measurable first-paint delay, ≤ 3 ms of main-thread time for the sensor every page runs.
//!
//! ```sh
//! TMPDIR=$PWD/target/tmp cargo bench -p browser-tests --bench pageload   # ROUNDS=30 for more loads
//! ```
//! To compare with another build of the agent in the same run (the client before a change),
//! serve `target/browser-tests/pageload-page/` (the bench writes the page there) with that
//! build's demo (`PORT=4100 cargo run --release --example axum_demo -- --dir …`) and set
//! `PAGELOAD_COMPARE=http://127.0.0.1:4100/index.html`: a fourth column, loaded in alternation
//! with the others.
//! With `PAGELOAD_PROFILE=1` it then says where the added time goes: V8's sampling profiler (CDP
//! `Profiler`, 50 µs samples) over the same window of the linked page, plain and with the agent,
//! the samples' time summed per part (the inline bootstrap's JS, the sensor's, the page's own,
//! the browser's built-ins called from JS, the garbage collector, and the rest of the renderer's
//! work: parsing, compiling, loading, style and layout), mean per load.
//! The report is also written to `target/browser-tests/pageload.txt`.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use browser_agent_tower::{BrowserAgent, BrowserAgentLayer};
use browser_tests::{median, scratch, Browser};
use serde_json::{json, Value};

/// The app's stylesheet and script, served as files when the page links them.
const APP_CSS: &str = "body{font:16px sans-serif;margin:2em}li{padding:2px}button{margin-left:1em}";
const APP_JS: &str = "document.querySelector('h1').textContent += ' (' + document.querySelectorAll('li').length + ')';";

/// A page of the size and shape of a small app's first screen: styles, a form, a list, a script;
/// with `linked`, the styles and the script are files (cached), as a dev server's pages have them,
/// else inline (no request of the page's own before the client's: the worst case for it, since
/// the first request of a document pays for setting up its loader; docs/client.md).
fn page(linked: bool) -> String {
    let mut items = String::new();
    for i in 0..200 {
        let _ = write!(
            items,
            "<li><a href=\"#item-{i}\">Item {i}</a> <button>Edit</button></li>"
        );
    }
    let (style, script) = if linked {
        (
            "<link rel=stylesheet href=/app.css>".to_owned(),
            "<script src=/app.js></script>".to_owned(),
        )
    } else {
        (
            format!("<style>{APP_CSS}</style>"),
            format!("<script>{APP_JS}</script>"),
        )
    };
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Load bench</title>{style}</head>\
         <body><h1>Orders</h1><form><label>Search <input name=q></label><button>Go</button></form>\
         <ul>{items}</ul>{script}</body></html>"
    )
}

/// What serves the page.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    /// The app alone.
    Plain,
    /// The app with the agent's inline bootstrap written into the page by hand and no client to
    /// load: what capture alone costs.
    BootstrapOnly,
    /// The app behind `BrowserAgentLayer`: the bootstrap, then the sensor (no agent attached, so
    /// the hands are not loaded).
    Agent,
}

async fn serve(variant: Variant, linked: bool) -> SocketAddr {
    // `enabled(true)`: benches build in release, where the agent is off by default.
    let agent = BrowserAgent::builder().enabled(true).build();
    let mut html = page(linked);
    if variant == Variant::BootstrapOnly {
        let tag = String::from_utf8(agent.tag().to_vec()).expect("tag is UTF-8");
        let (start, end) = (
            tag.find("\"client\":\"").expect("client url"),
            tag.find("\"wasm\"").expect("wasm url"),
        );
        let tag = format!("{}\"client\":\"\",{}", &tag[..start], &tag[end..]);
        html = html.replacen("<head>", &format!("<head>{tag}"), 1);
    }
    let cached = |content_type: &'static str, body: &'static str| {
        get(move || async move {
            (
                [("content-type", content_type), ("cache-control", "max-age=3600")],
                body,
            )
        })
    };
    let app = Router::new()
        .route("/", get(move || async move { Html(html) }))
        .route("/app.css", cached("text/css", APP_CSS))
        .route("/app.js", cached("text/javascript", APP_JS));
    let app = if variant == Variant::Agent {
        app.layer(BrowserAgentLayer::with_agent(agent))
    } else {
        app
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
    addr
}

/// Reads one figure of a load.
type Figure = fn(&Load) -> f64;

/// One load's figures, in milliseconds.
#[derive(Default)]
struct Load {
    dcl: f64,
    load: f64,
    first_paint: f64,
    fcp: f64,
    main_thread: f64,
}

async fn task_duration(browser: &Browser) -> f64 {
    let m = browser.cdp("Performance.getMetrics", json!({})).await;
    m["metrics"]
        .as_array()
        .and_then(|all| all.iter().find(|x| x["name"] == "TaskDuration"))
        .and_then(|x| x["value"].as_f64())
        .expect("TaskDuration metric")
        * 1000.0
}

async fn load_once(browser: &Browser, url: &str, variant: Variant) -> Load {
    let c = &browser.client;
    c.goto("about:blank").await.expect("blank");
    c.goto(url).await.expect("goto");
    // The same window for every variant, with no script of ours run in the page inside it (a
    // WebDriver `execute` is main-thread work too): the client has started well within it.
    tokio::time::sleep(Duration::from_millis(700)).await;
    // TaskDuration starts again with each document, so this is the page's own. (Until 2026-12 the
    // bench subtracted the reading on about:blank, another document's count: 9 to 26 ms of noise.)
    let main_thread = task_duration(browser).await;
    if variant == Variant::Agent {
        let started = c
            .execute("var g = window.__browserAgent; return !!(g && g.h);", vec![])
            .await
            .expect("execute");
        assert_eq!(started, Value::Bool(true), "the sensor started within the window");
    }
    let t: Value = c
        .execute(
            "const n = performance.getEntriesByType('navigation')[0];
             const p = Object.fromEntries(performance.getEntriesByType('paint').map(e => [e.name, e.startTime]));
             return [n.domContentLoadedEventEnd, n.loadEventEnd, p['first-paint'] ?? -1, p['first-contentful-paint'] ?? -1];",
            vec![],
        )
        .await
        .expect("timing");
    let f = |i: usize| t[i].as_f64().unwrap_or(-1.0);
    Load {
        dcl: f(0),
        load: f(1),
        first_paint: f(2),
        fcp: f(3),
        main_thread,
    }
}

#[tokio::main]
async fn main() {
    // `cargo bench` passes `--bench`; a `cargo test --benches` run passes nothing and should be quick.
    let benching = std::env::args().any(|a| a == "--bench");
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if benching { 20 } else { 2 });
    let page_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/browser-tests/pageload-page");
    let _ = std::fs::create_dir_all(&page_dir);
    let _ = std::fs::write(page_dir.join("index.html"), page(false));
    let compare = std::env::var("PAGELOAD_COMPARE").ok();
    // The inline page's three variants (and the compared build's, on the same page), then the
    // linked page's three.
    let kinds = [Variant::Plain, Variant::BootstrapOnly, Variant::Agent];
    let mut variants = kinds.to_vec();
    let mut urls = Vec::new();
    for v in kinds {
        urls.push(format!("http://{}/", serve(v, false).await));
    }
    if let Some(url) = &compare {
        variants.push(Variant::Agent);
        urls.push(url.clone());
    }
    let linked_from = urls.len();
    for v in kinds {
        variants.push(v);
        urls.push(format!("http://{}/", serve(v, true).await));
    }
    let dir = scratch();
    let browser = Browser::launch(&dir).await;
    browser.cdp("Performance.enable", json!({})).await;
    // One warm-up load each: the client's assets are immutable and cached after the first page,
    // as they are for a developer reloading their app.
    for (url, v) in urls.iter().zip(variants.iter().copied()) {
        load_once(&browser, url, v).await;
    }
    let mut loads: Vec<Vec<Load>> = variants.iter().map(|_| Vec::new()).collect();
    // Each round starts at the next variant: the load after another variant's page can cost more
    // than the one after it (in 2026-12 A/B runs the variant loaded second read ~2-3 ms more,
    // whichever it was), so no variant keeps one place in the rotation.
    for round in 0..rounds {
        for k in 0..urls.len() {
            let i = (round + k) % urls.len();
            loads[i].push(load_once(&browser, &urls[i], variants[i]).await);
        }
    }
    let profile = if std::env::var("PAGELOAD_PROFILE").is_ok_and(|v| v == "1") {
        // The linked page, plain and with the agent.
        let (plain, agent) = (linked_from, linked_from + 2);
        Some(attribution(&browser, &urls[plain], &urls[agent], rounds).await)
    } else {
        None
    };
    browser.close().await;

    let mut report = format!(
        "page load, headless Chromium, {rounds} interleaved loads per variant (medians, ms; Δ and ratio against plain)\n"
    );
    table(
        &mut report,
        "its styles and script inline",
        &loads[..linked_from],
        compare.is_some(),
    );
    table(
        &mut report,
        "its styles and script linked (cached files)",
        &loads[linked_from..],
        false,
    );
    if let Some(profile) = profile {
        report.push_str(&profile);
    }
    print!("{report}");
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/browser-tests/pageload.txt");
    let _ = std::fs::write(out, &report);
}

/// One page's table: plain, bootstrap only, with the sensor (and the compared build).
fn table(report: &mut String, page: &str, loads: &[Vec<Load>], compared: bool) {
    let _ = writeln!(
        report,
        "\nthe page with {page}\n{:<24}{:>8}{:>16}{:>8}{:>16}{:>8}{:>8}{}",
        "",
        "plain",
        "bootstrap only",
        "Δ",
        "+ sensor",
        "Δ",
        "ratio",
        if compared {
            format!("{:>16}{:>8}", "compared", "Δ")
        } else {
            String::new()
        }
    );
    let rows: [(&str, Figure); 5] = [
        ("DOMContentLoaded", |l| l.dcl),
        ("load", |l| l.load),
        ("first paint", |l| l.first_paint),
        ("first contentful paint", |l| l.fcp),
        ("main-thread busy time", |l| l.main_thread),
    ];
    for (name, get) in rows {
        let m: Vec<f64> = loads
            .iter()
            .map(|l| median(&mut l.iter().map(get).collect::<Vec<_>>()))
            .collect();
        let (base, boot, full) = (m[0], m[1], m[2]);
        let _ = write!(
            report,
            "{name:<24}{base:>8.1}{boot:>16.1}{:>+8.1}{full:>16.1}{:>+8.1}{:>7.2}×",
            boot - base,
            full - base,
            if base > 0.0 { full / base } else { f64::NAN }
        );
        if let Some(other) = m.get(3) {
            let _ = write!(report, "{other:>16.1}{:>+8.1}", other - base);
        }
        report.push('\n');
    }
}

/// The parts a load's sampled time is summed into.
const PARTS: [&str; 6] = [
    "inline bootstrap (JS)",
    "sensor module (JS)",
    "page's own scripts (JS)",
    "built-ins called from JS",
    "garbage collector",
    "renderer, not JS (parse, compile, load, style, layout)",
];

/// One load of `url` under V8's sampling profiler: each sample's time added to its part.
async fn profiled_load(browser: &Browser, url: &str, parts: &mut [f64; PARTS.len()]) {
    let c = &browser.client;
    c.goto("about:blank").await.expect("blank");
    browser.cdp("Profiler.enable", json!({})).await;
    browser
        .cdp("Profiler.setSamplingInterval", json!({"interval": 50}))
        .await;
    browser.cdp("Profiler.start", json!({})).await;
    c.goto(url).await.expect("goto");
    tokio::time::sleep(Duration::from_millis(700)).await;
    let p = browser.cdp("Profiler.stop", json!({})).await;
    let nodes = p["profile"]["nodes"].as_array().cloned().unwrap_or_default();
    let part_of: std::collections::HashMap<i64, Option<usize>> = nodes
        .iter()
        .map(|n| {
            let frame = &n["callFrame"];
            let url = frame["url"].as_str().unwrap_or("");
            let name = frame["functionName"].as_str().unwrap_or("");
            let part = if url.contains("/assets/sensor-") {
                Some(1)
            } else if url.starts_with("http") && url.ends_with('/') {
                // Inline scripts carry the document's URL: on this page only the bootstrap's.
                Some(0)
            } else if url.starts_with("http") {
                Some(2)
            } else {
                match name {
                    "(idle)" | "(root)" => None,
                    "(garbage collector)" => Some(4),
                    "(program)" => Some(5),
                    _ => Some(3),
                }
            };
            (n["id"].as_i64().unwrap_or(-1), part)
        })
        .collect();
    let samples = p["profile"]["samples"].as_array().cloned().unwrap_or_default();
    let deltas = p["profile"]["timeDeltas"].as_array().cloned().unwrap_or_default();
    for (i, sample) in samples.iter().enumerate() {
        // A sample's time: until the next one.
        let ms = deltas.get(i + 1).and_then(Value::as_f64).unwrap_or(0.0) / 1000.0;
        if let Some(Some(part)) = sample.as_i64().and_then(|id| part_of.get(&id)) {
            parts[*part] += ms;
        }
    }
}

/// Where the agent's added time goes on the linked page: each part's mean per load, plain and
/// with the agent, over `rounds` alternating loads.
async fn attribution(browser: &Browser, plain: &str, agent: &str, rounds: usize) -> String {
    let (mut a, mut b) = ([0.0; PARTS.len()], [0.0; PARTS.len()]);
    for _ in 0..rounds {
        profiled_load(browser, plain, &mut a).await;
        profiled_load(browser, agent, &mut b).await;
    }
    let n = rounds as f64;
    let mut out = format!(
        "\nwhere the time goes, the page with its styles and script linked (V8's sampling profiler, \
         {rounds} loads each, mean ms per load)\n{:<56}{:>8}{:>10}{:>8}\n",
        "", "plain", "+ agent", "Δ"
    );
    for (i, part) in PARTS.iter().enumerate() {
        let _ = writeln!(
            out,
            "{part:<56}{:>8.2}{:>10.2}{:>+8.2}",
            a[i] / n,
            b[i] / n,
            (b[i] - a[i]) / n
        );
    }
    let (ta, tb): (f64, f64) = (a.iter().sum(), b.iter().sum());
    let _ = writeln!(
        out,
        "{:<56}{:>8.2}{:>10.2}{:>+8.2}",
        "all of it",
        ta / n,
        tb / n,
        (tb - ta) / n
    );
    out
}
