//! What the screenshot fidelity test and the screenshot bench share: the pinned npm packages
//! (a web font, SnapDOM), the two origins, a Chromium pinned to 1280×720 at device scale 1 without
//! scrollbars, the reference screenshot (CDP `Page.captureScreenshot`), the in-page capture, and
//! the comparison.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use browser_agent_testkit::http::request;
use browser_tests::image::{base64_decode, decode_png, encode_png, pixelmatch, ssim, ssim_image_compare, Rgba};
use browser_tests::{client_id, exec, exec_async, run_raw, Browser, Server};
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
        browser_tests::npm_fixtures("screenshot");
    });
}

/// A 240×100 picture served by the other origin.
fn picture(seed: u8) -> Vec<u8> {
    let mut p = Rgba::filled(240, 100, [255; 4]);
    for y in 0..100 {
        for x in 0..240 {
            let band = ((x / 30 + y / 25) as u8).wrapping_add(seed) % 4;
            let c = [
                [41, 128, 185, 255],
                [230, 126, 34, 255],
                [39, 174, 96, 255],
                [142, 68, 173, 255],
            ][band as usize];
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
                    [
                        (header::CONTENT_TYPE, "image/png"),
                        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
                    ],
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

/// Opens `url` of `server` and waits until the client runs and the page is still: loaded, fonts
/// and images ready, two frames painted; the client id.
pub async fn open_still(b: &Browser, server: &Server, url: &str) -> String {
    b.client.goto(url).await.expect("goto");
    let id = client_id(&b.client, server).await;
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
    id
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
    /// The capture's own time in the page, as it measured it (walk to encoded bytes).
    pub ms: f64,
    /// End to end: `POST /run` sent to its answer (the image stored on the host).
    pub wall_ms: f64,
    /// The page's longest main-thread task during the step, 0 when none took 50 ms (see [`probe_start`]).
    pub longest_task_ms: f64,
}

/// Starts recording the page's long tasks (Long Tasks API: main-thread tasks of 50 ms or more).
/// Passive on purpose: a busy probe (a ping-pong loop) would leave the page no idle time, and
/// `canvas.toBlob` waits for idle time (up to a second in Chromium).
pub async fn probe_start(b: &Browser) {
    js(
        b,
        "const p = window.__baProbe = { max: 0, obs: new PerformanceObserver((l) => { for (const e of l.getEntries()) p.max = Math.max(p.max, e.duration); }) }; \
         p.obs.observe({ type: 'longtask' }); return true;",
    )
    .await;
}

/// Stops recording; the longest task seen in milliseconds (0: none of 50 ms or more).
pub async fn probe_stop(b: &Browser) -> f64 {
    let v = js(
        b,
        "const p = window.__baProbe; if (!p) return -1; for (const e of p.obs.takeRecords()) p.max = Math.max(p.max, e.duration); p.obs.disconnect(); return p.max;",
    )
    .await;
    v.as_f64().unwrap_or(-1.0)
}

/// One `screenshot` step through `POST {prefix}/run` for `client` with `opts` (step fields), then
/// the image through the step result's `url`: the bytes and what the step said, or the error.
pub async fn capture(b: &Browser, server: &Server, client: &str, opts: Value) -> Result<Capture, String> {
    let mut step = json!({"command": "screenshot"});
    for (k, v) in opts.as_object().cloned().unwrap_or_default() {
        step[k] = v;
    }
    probe_start(b).await;
    let t0 = Instant::now();
    let (status, v) = run_raw(server, json!({"client": client, "steps": [step]})).await;
    let wall_ms = ms_since(t0);
    let longest = probe_stop(b).await;
    if status != 200 {
        return Err(v["error"].as_str().map(str::to_owned).unwrap_or_else(|| v.to_string()));
    }
    let s = &v["steps"][0];
    if let Some(e) = s["error"].as_str() {
        return Err(e.to_owned());
    }
    let r = &s["result"];
    let url = r["url"].as_str().ok_or_else(|| format!("no url in {r}"))?;
    let path = url.strip_prefix(&server.url("")).unwrap_or(url).to_owned();
    let addr = server.addr;
    let resp = tokio::task::spawn_blocking(move || request(addr, "GET", &path, &[], b""))
        .await
        .expect("get thread");
    if resp.status != 200 {
        return Err(format!("GET {url}: {}", resp.status));
    }
    Ok(Capture {
        bytes: resp.body,
        method: r["method"].as_str().unwrap_or_default().to_owned(),
        warnings: r["warnings"]
            .as_array()
            .map(|w| w.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
            .unwrap_or_default(),
        ms: r["ms"].as_f64().unwrap_or(-1.0),
        wall_ms,
        longest_task_ms: longest,
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
pub fn fixture_url(server: &Server, other: &browser_agent_testkit::RunningServer, name: &str) -> String {
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
