//! What the screenshot fidelity test and the screenshot bench share: the pinned npm packages
//! (a web font, SnapDOM), the two origins, a Chromium pinned to 1280×720 at device scale 1 without
//! scrollbars, the reference screenshot (CDP `Page.captureScreenshot`), the in-page capture, and
//! the comparison.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use browser_tests::image::{base64_decode, decode_png, encode_png, pixelmatch, ssim, ssim_image_compare, Rgba};
use browser_tests::{exec, exec_async, fixtures_dir, Browser};
use serde_json::{json, Value};

/// The viewport every screenshot test pins.
pub const WIDTH: u32 = 1280;
/// See [`WIDTH`].
pub const HEIGHT: u32 = 720;

/// The fixture pages, each a deterministic page of one kind of content.
pub const FIXTURES: &[&str] = &[
    "text",
    "images",
    "pseudo",
    "forms",
    "scroll",
    "canvas-svg",
    "shadow",
    "iframe",
    "big",
];

/// Installs the pinned npm packages (once per binary: `npm ci` into `target/screenshot-npm` when
/// the lock there differs) and links them into the fixtures as `screenshot/npm`.
pub fn npm_installed() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("screenshot-npm");
        let dest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/screenshot-npm");
        std::fs::create_dir_all(&dest).expect("target/screenshot-npm");
        let lock = src.join("package-lock.json");
        let installed = dest.join("package-lock.json");
        let fresh = std::fs::read(&lock).ok() == std::fs::read(&installed).ok() && dest.join("node_modules").is_dir();
        if !fresh {
            let _ = std::fs::remove_dir_all(dest.join("node_modules"));
            for f in ["package.json", "package-lock.json"] {
                std::fs::copy(src.join(f), dest.join(f)).unwrap_or_else(|e| panic!("copy {f}: {e}"));
            }
            let status = Command::new("npm")
                .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"])
                .current_dir(&dest)
                .status()
                .expect("run npm (the screenshot tests need node and npm)");
            assert!(status.success(), "npm ci in {} failed: {status}", dest.display());
        }
        let link = fixtures_dir().join("screenshot/npm");
        let target: PathBuf = dest.join("node_modules").canonicalize().expect("node_modules");
        if std::fs::read_link(&link).ok().as_deref() != Some(target.as_path()) {
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&target, &link).expect("link fixtures/screenshot/npm");
        }
    });
}

/// A 240×100 picture served by the other origin.
fn picture(seed: u8) -> Vec<u8> {
    let mut p = Rgba::filled(240, 100, [255; 4]);
    for y in 0..100 {
        for x in 0..240 {
            let band = ((x / 30 + y / 25) as u8).wrapping_add(seed) % 4;
            let c = [[41, 128, 185, 255], [230, 126, 34, 255], [39, 174, 96, 255], [142, 68, 173, 255]][band as usize];
            p.put(x, y, c);
        }
    }
    encode_png(&p)
}

/// The second origin (another site: 127.0.0.2): `/cors/*.png` with
/// `Access-Control-Allow-Origin: *`, `/nocors/*.png` without.
pub fn other_origin() -> browser_agent_testkit::RunningServer {
    let app = Router::new()
        .route(
            "/cors/{name}",
            get(|axum::extract::Path(name): axum::extract::Path<String>| async move {
                let seed = if name.contains('2') { 1 } else { 0 };
                (
                    [(header::CONTENT_TYPE, "image/png"), (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")],
                    picture(seed),
                )
                    .into_response()
            }),
        )
        .route(
            "/nocors/{name}",
            get(|| async { ([(header::CONTENT_TYPE, "image/png")], picture(2)).into_response() }),
        );
    browser_agent_testkit::axum_app::serve(app, "127.0.0.2:0".parse().expect("address")).expect("serve 127.0.0.2")
}

/// A Chromium for screenshots: scrollbars hidden, 1280×720 at device scale 1; with
/// `html_in_canvas`, the CanvasDrawElement blink feature too (Chromium 156 has drawElementImage
/// only behind it).
pub async fn launch(scratch: &Path, html_in_canvas: bool) -> Browser {
    let mut args = vec!["--hide-scrollbars", "--force-color-profile=srgb"];
    if html_in_canvas {
        args.push("--enable-blink-features=CanvasDrawElement");
    }
    let b = Browser::launch_with(scratch, &args).await;
    b.client.goto("about:blank").await.expect("blank");
    pin_viewport(&b).await;
    b
}

/// `Emulation.setDeviceMetricsOverride` 1280×720 at scale 1, scrollbars hidden.
pub async fn pin_viewport(b: &Browser) {
    b.cdp(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": false}),
    )
    .await;
    b.cdp("Emulation.setScrollbarsHidden", json!({"hidden": true})).await;
}

/// Opens `url` and waits until it is still: loaded, fonts and images ready, two frames painted.
pub async fn open_still(b: &Browser, url: &str) {
    b.client.goto(url).await.expect("goto");
    let size = exec_async(
        &b.client,
        r#"const done = arguments[arguments.length - 1];
        const loaded = document.readyState === 'complete' ? Promise.resolve() : new Promise((r) => addEventListener('load', r));
        loaded
          .then(() => Promise.all([document.fonts.ready, ...[...document.images].map((i) => i.decode().catch(() => 0))]))
          .then(() => new Promise((r) => setTimeout(r, 150)))
          .then(() => document.fonts.ready)
          .then(() => requestAnimationFrame(() => requestAnimationFrame(() => done([innerWidth, innerHeight]))));"#,
    )
    .await;
    assert_eq!(size, json!([WIDTH, HEIGHT]), "the viewport is pinned on {url}");
}

/// The browser's own screenshot of the viewport.
pub async fn reference(b: &Browser) -> Vec<u8> {
    let v = b.cdp("Page.captureScreenshot", json!({"format": "png"})).await;
    base64_decode(v["data"].as_str().expect("screenshot data")).expect("base64 screenshot")
}

/// What the in-page capture answered.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The encoded image.
    pub bytes: Vec<u8>,
    /// `html-in-canvas` or `foreignobject`.
    pub method: String,
    /// What was left out.
    pub warnings: Vec<String>,
    /// The capture's own time, as it measured it.
    pub ms: f64,
    /// The page's time from the call to the bytes, as the test's script measured it.
    pub wall_ms: f64,
    /// The longest main-thread task during the capture (Long Tasks API; 0 when none ≥ 50 ms).
    pub longest_task_ms: f64,
}

/// The capture module's source, read from the tree on each call (no rebuild after an edit).
pub fn module_source() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../browser-agent-client/screenshot/screenshot.js");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// Runs the capture module in the page with `opts` (JSON; `element` may be a CSS selector),
/// loaded from a blob: URL; the image and what it said, or the error's message.
pub async fn capture(b: &Browser, opts: Value) -> Result<Capture, String> {
    let script = format!(
        r#"const done = arguments[arguments.length - 1];
        const src = {src};
        const opts = {opts};
        (async () => {{
          if (!window.__baShot) window.__baShot = await import(URL.createObjectURL(new Blob([src], {{ type: 'text/javascript' }})));
          if (typeof opts.element === 'string') opts.element = document.querySelector(opts.element);
          const longest = {{ ms: 0 }};
          const po = typeof PerformanceObserver !== 'undefined' ? new PerformanceObserver((l) => {{
            for (const e of l.getEntries()) longest.ms = Math.max(longest.ms, e.duration);
          }}) : null;
          try {{ po && po.observe({{ type: 'longtask' }}); }} catch {{}}
          const t0 = performance.now();
          const r = await window.__baShot.capture(opts);
          const wall = performance.now() - t0;
          const b64 = await new Promise((res) => {{ const f = new FileReader(); f.onload = () => res(String(f.result).split(',')[1]); f.readAsDataURL(r.blob); }});
          await new Promise((res) => setTimeout(res, 0));
          if (po) {{ for (const e of po.takeRecords()) longest.ms = Math.max(longest.ms, e.duration); po.disconnect(); }}
          return {{ b64, method: r.method, warnings: r.warnings, ms: r.ms, wall, longest: longest.ms, width: r.width, height: r.height }};
        }})().then(done, (e) => done({{ error: String(e && e.message || e) }}));"#,
        src = serde_json::to_string(&module_source()).expect("JSON string"),
        opts = opts,
    );
    let v = exec_async(&b.client, &script).await;
    if let Some(e) = v["error"].as_str() {
        return Err(e.to_owned());
    }
    Ok(Capture {
        bytes: base64_decode(v["b64"].as_str().unwrap_or_default()).ok_or("the image is not base64")?,
        method: v["method"].as_str().unwrap_or_default().to_owned(),
        warnings: v["warnings"]
            .as_array()
            .map(|w| w.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
            .unwrap_or_default(),
        ms: v["ms"].as_f64().unwrap_or(-1.0),
        wall_ms: v["wall"].as_f64().unwrap_or(-1.0),
        longest_task_ms: v["longest"].as_f64().unwrap_or(0.0),
    })
}

/// How close a capture is to the browser's own screenshot.
#[derive(Debug, Clone, Copy)]
pub struct Fidelity {
    /// Mismatched pixels (pixelmatch, YIQ threshold 0.1, anti-aliasing excluded), a fraction.
    pub mismatch: f64,
    /// Mean 8×8 SSIM of the gray pictures (standard definition).
    pub ssim: f64,
    /// `image-compare`'s MSSIMSimple on the same pictures (window sums: low on dithered gradients).
    pub ssim_ic: f64,
}

/// A rectangle (CSS px = output px at scale 1) painted the same in both pictures before comparing:
/// what is by design not drawn (a cross-origin image without CORS is a placeholder, with a warning).
pub type Mask = (u32, u32, u32, u32);

/// Compares `shot` with `reference` outside `masks`; writes both and the diff under
/// `target/browser-tests/screenshot/` as `{name}-{ref,cap,diff}.png` for a person to look at.
pub fn compare(name: &str, reference: &[u8], shot: &[u8]) -> Result<Fidelity, String> {
    compare_masked(name, reference, shot, &[])
}

/// [`compare`] with masks.
pub fn compare_masked(name: &str, reference: &[u8], shot: &[u8], masks: &[Mask]) -> Result<Fidelity, String> {
    let mut a = decode_png(reference)?;
    let mut b = decode_png(shot)?;
    for &(x, y, w, h) in masks {
        for yy in y..(y + h).min(a.height.min(b.height)) {
            for xx in x..(x + w).min(a.width.min(b.width)) {
                a.put(xx, yy, [255, 0, 255, 255]);
                b.put(xx, yy, [255, 0, 255, 255]);
            }
        }
    }
    let d = pixelmatch(&a, &b, 0.1)?;
    let s = ssim(&a, &b)?;
    let ssim_ic = ssim_image_compare(&a, &b)?;
    let dir = out_dir();
    let _ = std::fs::write(dir.join(format!("{name}-ref.png")), reference);
    let _ = std::fs::write(dir.join(format!("{name}-cap.png")), shot);
    let _ = std::fs::write(dir.join(format!("{name}-diff.png")), encode_png(&d.image));
    Ok(Fidelity {
        mismatch: d.ratio(),
        ssim: s,
        ssim_ic,
    })
}

/// `target/browser-tests/screenshot/`.
pub fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/browser-tests/screenshot");
    std::fs::create_dir_all(&dir).expect("screenshot output dir");
    dir
}

/// A reference screenshot taken right before and right after `during` that agree (the page was
/// still), with what `during` produced; up to three tries.
pub async fn still_reference<T, F, Fut>(b: &Browser, mut during: F) -> (Vec<u8>, T)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = T>,
{
    let mut last = None;
    for _ in 0..3 {
        let before = reference(b).await;
        let v = during().await;
        let after = reference(b).await;
        if before == after {
            return (before, v);
        }
        last = Some((after, v));
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (r, v) = last.expect("a try");
    eprintln!("warning: the page did not stay still across the capture (3 tries); comparing with the last reference");
    (r, v)
}

/// The fixture's URL on `server`, with the other origin's address in the query.
pub fn fixture_url(server: &browser_tests::Server, other: &browser_agent_testkit::RunningServer, name: &str) -> String {
    server.url(&format!("/screenshot/{name}.html?x=http://{}", other.addr))
}

/// Milliseconds since `t0`.
pub fn ms_since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1000.0
}

/// Runs a script in the page (WebDriver); its value.
pub async fn js(b: &Browser, script: &str) -> Value {
    exec(&b.client, script).await
}

/// The boxes of the page's `[data-shot-mask]` elements, to [`compare_masked`] out.
pub async fn masks(b: &Browser) -> Vec<Mask> {
    let v = js(
        b,
        "return [...document.querySelectorAll('[data-shot-mask]')].map((e) => { const r = e.getBoundingClientRect(); \
         return [Math.floor(r.left), Math.floor(r.top), Math.ceil(r.width) + 1, Math.ceil(r.height) + 1]; })",
    )
    .await;
    v.as_array()
        .map(|all| {
            all.iter()
                .filter_map(|m| {
                    let n = |i: usize| m[i].as_f64().map(|f| f.max(0.0) as u32);
                    Some((n(0)?, n(1)?, n(2)?, n(3)?))
                })
                .collect()
        })
        .unwrap_or_default()
}
