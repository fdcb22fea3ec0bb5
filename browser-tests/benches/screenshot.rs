//! The in-page screenshot of a 2,000-element page (`fixtures/screenshot/big.html`, 1280×720
//! viewport at device scale 1) in real headless Chromium: our `screenshot` step on both paths
//! (foreignObject, HTML-in-Canvas: the Chromium runs with `--enable-blink-features=CanvasDrawElement`)
//! side by side with SnapDOM 3.1.1 (`@zumer/snapdom`, MIT, installed pinned under target/ by the
//! set-up, never committed) making a PNG of the same viewport on the same page, in alternation in
//! one run, so machine load hits every side alike.
//!
//! Per capture: the time in the page from the call to the encoded PNG (ours: the step's own `ms`;
//! SnapDOM: `snapdom(document.documentElement, {clip: 'viewport', dpr: 1, scale: 1})` then
//! `toBlob({format: 'png'})`), ours end to end too (`POST /run` sent → answer, the image stored on
//! the host), and the main thread's longest task (Long Tasks API: 0 when none took 50 ms). Then the
//! fidelity of each one's last image against CDP `Page.captureScreenshot` (pixelmatch YIQ 0.1
//! mismatched pixels, 8×8 SSIM). Goals (issue 13): ≤ 400 ms end to end on the foreignObject path,
//! ≤ 150 ms on HTML-in-Canvas; faster than SnapDOM and at least as faithful.
//!
//! ```sh
//! TMPDIR=$PWD/target/tmp cargo bench -p browser-tests --bench screenshot   # ROUNDS=15 for more
//! ```
//! The report is also written to `target/browser-tests/screenshot-bench.txt`.

#[path = "../tests/screenshot_common/mod.rs"]
mod screenshot_common;

use std::fmt::Write as _;

use browser_tests::image::base64_decode;
use browser_tests::{agent, any_port, exec_async, median, scratch, Browser, Server};
use screenshot_common::*;
use serde_json::{json, Value};

/// One engine's figures over the rounds.
#[derive(Default)]
struct Side {
    in_page: Vec<f64>,
    end_to_end: Vec<f64>,
    blocking: Vec<f64>,
    last: Vec<u8>,
    note: String,
}

/// SnapDOM's capture of the viewport as a PNG, in the page: (ms, longest task ms, PNG bytes).
async fn snapdom_once(b: &Browser, target: &str) -> Result<(f64, f64, Vec<u8>), String> {
    probe_start(b).await;
    let script = r#"const done = arguments[arguments.length - 1];
        (async () => {
          const t0 = performance.now();
          const r = await window.snapdom(TARGET, { clip: 'viewport', dpr: 1, scale: 1 });
          const blob = await r.toBlob({ format: 'png' });
          const ms = performance.now() - t0;
          const b64 = await new Promise((res) => { const f = new FileReader(); f.onload = () => res(String(f.result).split(',')[1]); f.readAsDataURL(blob); });
          return { ms, b64, type: blob.type };
        })().then(done, (e) => done({ error: String(e && e.message || e) }));"#
        .replace("TARGET", target);
    let v = exec_async(&b.client, &script).await;
    let longest = probe_stop(b).await;
    if let Some(e) = v["error"].as_str() {
        return Err(e.to_owned());
    }
    let bytes = base64_decode(v["b64"].as_str().unwrap_or_default()).ok_or("SnapDOM's PNG is not base64")?;
    Ok((v["ms"].as_f64().unwrap_or(-1.0), longest, bytes))
}

async fn load_snapdom(b: &Browser) {
    let v: Value = exec_async(
        &b.client,
        r#"const done = arguments[arguments.length - 1];
        if (window.snapdom) { done(true); } else {
          const s = document.createElement('script');
          s.src = '/screenshot/npm/@zumer/snapdom/dist/snapdom.js';
          s.onload = () => done(typeof window.snapdom === 'function');
          s.onerror = () => done('SnapDOM did not load');
          document.head.appendChild(s);
        }"#,
    )
    .await;
    assert_eq!(v, json!(true), "SnapDOM loaded: {v}");
}

#[tokio::main]
async fn main() {
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(9);
    npm_installed();
    let b = launch(&scratch(), true).await;
    let server = Server::start(agent(), any_port());
    let other = other_origin();
    let page = open_still(&b, &server, &fixture_url(&server, &other, "big")).await;
    let elements = js(&b, "return document.getElementsByTagName('*').length").await;
    load_snapdom(&b).await;

    let mut fo = Side::default();
    let mut hic = Side::default();
    let mut snap = Side::default();
    let mut snap_body = Side::default();
    // One warm-up each (module load, caches), then the rounds in alternation.
    for round in 0..=rounds {
        for (side, method) in [(&mut fo, "foreignobject"), (&mut hic, "html-in-canvas")] {
            match capture(&b, &server, &page, json!({"method": method})).await {
                Ok(c) if round > 0 => {
                    side.in_page.push(c.ms);
                    side.end_to_end.push(c.wall_ms);
                    side.blocking.push(c.longest_task_ms);
                    side.last = c.bytes;
                    side.note = c.warnings.join("; ");
                }
                Ok(_) => {}
                Err(e) => side.note = format!("failed: {e}"),
            }
        }
        // SnapDOM on the root (what a viewport capture means) and on the body (its usual target).
        for (side, target) in [
            (&mut snap, "document.documentElement"),
            (&mut snap_body, "document.body"),
        ] {
            match snapdom_once(&b, target).await {
                Ok((ms, longest, bytes)) if round > 0 => {
                    side.in_page.push(ms);
                    side.blocking.push(longest);
                    side.last = bytes;
                }
                Ok(_) => {}
                Err(e) => side.note = format!("failed: {e}"),
            }
        }
    }
    let reference = reference(&b).await;

    let mut report = String::new();
    let _ = writeln!(
        report,
        "screenshot bench: big.html ({elements} elements), 1280×720 viewport, scale 1, PNG; {rounds} rounds (medians)"
    );
    let _ = writeln!(
        report,
        "{:<26} {:>10} {:>12} {:>14} {:>10} {:>8}  notes",
        "engine", "in page", "end to end", "longest task", "mismatch", "SSIM"
    );
    let mut figures = Vec::new();
    for (name, side) in [
        ("ours, html-in-canvas", &hic),
        ("ours, foreignobject", &fo),
        ("SnapDOM 3.1.1 (html)", &snap),
        ("SnapDOM 3.1.1 (body)", &snap_body),
    ] {
        let file: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
        let fid = compare(&format!("bench-{file}"), &reference, &side.last);
        let (mm, ss) = match &fid {
            Ok(f) => (format!("{:.3}%", f.mismatch * 100.0), format!("{:.4}", f.ssim)),
            Err(e) => ("-".to_owned(), format!("({e})")),
        };
        let e2e = if side.end_to_end.is_empty() {
            "-".to_owned()
        } else {
            format!("{:.0} ms", median(&mut side.end_to_end.clone()))
        };
        let _ = writeln!(
            report,
            "{name:<26} {:>7.0} ms {e2e:>12} {:>11.0} ms {mm:>10} {ss:>8}  {}",
            median(&mut side.in_page.clone()),
            median(&mut side.blocking.clone()),
            side.note
        );
        figures.push((
            median(&mut side.in_page.clone()),
            median(&mut side.blocking.clone()),
            fid.ok(),
        ));
    }
    let (h, f) = (&figures[0], &figures[1]);
    for (label, s) in [("html", &figures[2]), ("body", &figures[3])] {
        let _ = writeln!(
            report,
            "ratios SnapDOM ({label}) / ours: in-page time {:.2}× vs html-in-canvas, {:.2}× vs foreignobject; mismatched pixels {}",
            s.0 / h.0,
            s.0 / f.0,
            match (&s.2, &f.2) {
                (Some(a), Some(b)) => format!("{:.3}% vs {:.3}%", a.mismatch * 100.0, b.mismatch * 100.0),
                _ => "-".to_owned(),
            }
        );
    }
    print!("{report}");
    let _ = std::fs::write(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/browser-tests/screenshot-bench.txt"),
        &report,
    );
    b.close().await;
}
