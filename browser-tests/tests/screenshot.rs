//! The `screenshot` step end to end in real headless Chromium, through both demos: `/run` answers
//! the stored image's description, `GET {prefix}/screenshots/{id}.png` serves the bytes, the image
//! shows the page (pixels read back in the page), the page is left as it was, and every other
//! interface (inline base64, the Rust API, MCP image content, the stdio form) and bad input.
//! Fidelity against Chromium's own rendering is `screenshot_fidelity.rs`.

use browser_agent_testkit::http::{request, Resp};
use browser_tests::Framework::{Actix, Axum};
use browser_tests::{chromium_test, exec, exec_async, fails, mcp_tool, ok, open, run_raw, Server, PAGE_KEY, PREFIX};
use fantoccini::Client;
use serde_json::{json, Value};

/// A 1 × 1 PNG.
const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D,
    0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// `GET` of one of our paths (or a full URL of this server).
fn get(server: &Server, url: &str) -> Resp {
    let path = url.strip_prefix(&server.url("")).unwrap_or(url);
    request(server.addr, "GET", path, &[], b"")
}

/// The width and height in a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The colour at `(x, y)` of the image at `url`, decoded by the page itself.
async fn pixel(client: &Client, url: &str, x: u32, y: u32) -> Vec<u64> {
    let script = format!(
        r#"const done = arguments[arguments.length - 1];
        const img = new Image();
        img.onload = () => {{
          const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
          const g = c.getContext('2d'); g.drawImage(img, 0, 0);
          done(Array.from(g.getImageData({x}, {y}, 1, 1).data.slice(0, 3)));
        }};
        img.onerror = () => done('not decodable');
        img.src = {url:?};"#
    );
    let v = exec_async(client, &script).await;
    v.as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect()
}

/// Runs one `screenshot` step that must succeed; its result (the stored image's description).
async fn shoot(server: &Server, page: &str, step: Value) -> Value {
    ok(server, page, step).await["result"].clone()
}

fn near(c: &[u64], want: [u64; 3]) -> bool {
    c.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 40)
}

async fn viewport(server: Server, client: &Client) {
    let page = open(client, &server, "/actions/shot.html").await;
    let before = exec(client, "return document.documentElement.outerHTML").await;
    let (vw, vh) = {
        let v = exec(client, "return [innerWidth, innerHeight]").await;
        (v[0].as_u64().unwrap() as u32, v[1].as_u64().unwrap() as u32)
    };
    let shot = shoot(&server, &page, json!({"command": "screenshot"})).await;
    assert_eq!(shot["width"], vw.min(1568), "{shot}");
    assert_eq!(shot["height"], vh, "{shot}");
    assert_eq!(shot["format"], "png");
    assert!(
        ["html-in-canvas", "foreignobject"].contains(&shot["method"].as_str().unwrap()),
        "{shot}"
    );
    assert_eq!(shot["client"], page.as_str());
    let url = shot["url"].as_str().unwrap();
    assert!(
        url.starts_with(&server.url(&format!("{PREFIX}/screenshots/s"))),
        "{url}"
    );
    let image = get(&server, url);
    assert_eq!(image.status, 200);
    assert_eq!(image.header("content-type"), Some("image/png"));
    assert_eq!(image.body.len() as u64, shot["bytes"].as_u64().unwrap());
    assert_eq!(png_size(&image.body), (vw.min(1568), vh));
    // The image shows the page: the red and blue boxes where the page has them, white elsewhere.
    assert!(near(&pixel(client, url, 140, 90).await, [255, 0, 0]), "red box");
    assert!(near(&pixel(client, url, 360, 80).await, [0, 0, 255]), "blue box");
    assert!(near(&pixel(client, url, 600, 400).await, [255, 255, 255]), "background");
    // The page is as it was, and the capture's upload is not the page's network traffic.
    assert_eq!(exec(client, "return document.documentElement.outerHTML").await, before);
    let network = server.console("type=network&limit=500");
    assert!(
        !network.to_string().contains("/screenshots"),
        "the upload was logged as page traffic: {network}"
    );
}

chromium_test!(viewport_png_axum, Axum, |client, server| viewport(server, client).await);
chromium_test!(viewport_png_actix, Actix, |client, server| viewport(server, client)
    .await);

chromium_test!(element_full_page_jpeg_and_inline, Axum, |client, server| {
    let page = open(client, &server, "/actions/shot.html").await;
    // An element by any target, with padding: its box plus the padding on each side.
    let shot = shoot(
        &server,
        &page,
        json!({"command": "screenshot", "role": "img", "name": "Blue box", "padding": 10}),
    )
    .await;
    assert_eq!(
        (shot["width"].as_u64(), shot["height"].as_u64()),
        (Some(140), Some(100)),
        "{shot}"
    );
    let url = shot["url"].as_str().unwrap().to_owned();
    assert!(near(&pixel(client, &url, 70, 50).await, [0, 0, 255]), "the element");
    assert!(near(&pixel(client, &url, 3, 3).await, [255, 255, 255]), "the padding");
    // The whole page: as tall as the document (the green bar ends at 2,000 px).
    let full = shoot(&server, &page, json!({"command": "screenshot", "fullPage": true})).await;
    assert_eq!(full["height"], 2000, "{full}");
    // JPEG with a quality, inline as base64 for callers that cannot fetch.
    let jpeg = shoot(
        &server,
        &page,
        json!({"command": "screenshot", "format": "jpeg", "quality": 0.6, "inline": true}),
    )
    .await;
    assert_eq!(jpeg["format"], "jpeg");
    let served = get(&server, jpeg["url"].as_str().unwrap());
    assert_eq!(served.header("content-type"), Some("image/jpeg"));
    assert!(served.body.starts_with(&[0xFF, 0xD8, 0xFF]));
    let inline = exec(
        client,
        &format!("return atob({:?}).length", jpeg["data"].as_str().unwrap()),
    )
    .await;
    assert_eq!(inline.as_u64(), Some(served.body.len() as u64));
    // The Rust API returns the bytes.
    let agent = server.agent.clone();
    let options = browser_agent_core::ScreenshotOptions::new()
        .client(page.clone())
        .max_width(320);
    let api = agent.screenshots().take(options).await.unwrap();
    assert_eq!(api.info.width, 320);
    assert_eq!(png_size(&api.bytes).0, 320);
});

chromium_test!(bad_input_is_refused_and_nothing_is_stored, Axum, |client, server| {
    let page = open(client, &server, "/actions/shot.html").await;
    let (status, v) = run_raw(
        &server,
        json!({"client": page, "steps": [{"command": "screenshot", "format": "gif"}]}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(
        v["error"],
        "step 1 (nothing ran): invalid format \"gif\": use \"png\" (the default) or \"jpeg\""
    );
    let (status, v) = run_raw(
        &server,
        json!({"client": page, "steps": [{"command": "screenshot", "format": "jpeg", "quality": 7}]}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    // A target that does not resolve teaches what is there instead, as for clicks.
    let why = fails(&server, &page, json!({"command": "screenshot", "text": "Delete"})).await;
    let click_why = fails(&server, &page, json!({"command": "click", "text": "Delete"})).await;
    assert_eq!(why, click_why);
    assert!(why.contains("Save"), "{why}");
    assert!(server.agent.screenshots().list().is_empty(), "nothing stored");
    // The upload route: the page key, an image type, an image, the page's id.
    let path = format!("{PREFIX}/screenshots?client={page}&width=1&height=1&method=foreignobject&ms=1");
    let png = PIXEL_PNG.to_vec();
    let post = |headers: &[(&str, &str)], body: &[u8]| request(server.addr, "POST", &path, headers, body);
    assert_eq!(post(&[("content-type", "image/png")], &png).status, 403);
    let keyed = |ct| [("content-type", ct), ("x-browser-agent-key", PAGE_KEY)];
    let wrong_type = post(&keyed("text/plain"), &png);
    assert_eq!(wrong_type.status, 415);
    assert!(
        wrong_type.error().contains("image/png or image/jpeg"),
        "{}",
        wrong_type.error()
    );
    let not_png = post(&keyed("image/png"), b"GIF89a....");
    assert_eq!(
        (not_png.status, not_png.error()),
        (
            400,
            "the body is not a image/png image (its first bytes do not say so)".to_owned()
        )
    );
    assert!(server.agent.screenshots().list().is_empty(), "nothing stored");
    let stored = post(&keyed("image/png"), &png);
    assert_eq!(stored.status, 201, "{}", stored.text());
    let missing = get(&server, &format!("{PREFIX}/screenshots/s99.png"));
    assert_eq!(missing.status, 404);
    assert_eq!(
        missing.error(),
        "no screenshot \"s99.png\": the store holds s1.png (the oldest are evicted past BrowserAgent::builder().max_screenshots(…))"
    );
});

chromium_test!(mcp_image_content_and_stdio_form, Actix, |client, server| {
    let page = open(client, &server, "/actions/shot.html").await;
    // MCP: browser_run's screenshot steps come back as image content (JPEG by default).
    let result = mcp_tool(
        &server,
        "browser_run",
        json!({"client": page, "steps": [{"command": "screenshot"}]}),
    );
    let content = &result["content"];
    assert!(
        content[0]["text"].as_str().unwrap().contains("1. screenshot: "),
        "{content}"
    );
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/jpeg");
    let decoded = exec(
        client,
        &format!("return atob({:?}).charCodeAt(0)", content[1]["data"].as_str().unwrap()),
    )
    .await;
    assert_eq!(decoded, 0xFF);
    // The stdio bridge's MindStudio form.
    let (mut ours, theirs) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(theirs);
    let agent = server.agent.clone();
    let serving = tokio::spawn(async move { agent.serve_io(tokio::io::BufReader::new(read), write).await });
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    ours.write_all(
        format!(
            "{{\"action\":\"screenshot\",\"client\":\"{page}\"}}\n{{\"action\":\"screenshot\",\"format\":\"bmp\"}}\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut lines = tokio::io::BufReader::new(&mut ours).lines();
    let event: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(event["event"], "screenshot", "{event}");
    assert!(event["url"].as_str().unwrap().ends_with(".png"), "{event}");
    assert_eq!(event["client"], page.as_str());
    let refused: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(refused["event"], "command-error", "{refused}");
    assert!(
        refused["message"].as_str().unwrap().contains("invalid format \"bmp\""),
        "{refused}"
    );
    serving.abort();
});

chromium_test!(raw_svg_data_urls_are_drawn, Axum, |client, server| {
    // Icons inlined as many apps do it: SVG data URLs with `<`, `#` and quotes left raw, in
    // `<img>`s and in a CSS background. Such a URL once broke the page's copy ("The browser could
    // not draw the page's copy"), and with it the whole screenshot.
    let page = open(client, &server, "/actions/shot.html").await;
    let icon = |fill: &str| {
        format!(
            r#"data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg" width='60' height='60'><rect width="60" height="60" fill="{fill}"/></svg>"#
        )
    };
    let script = format!(
        r#"const done = arguments[arguments.length - 1];
        const add = (src, left) => new Promise((resolve) => {{
          const img = new Image();
          img.style.cssText = 'position:absolute;top:300px;width:60px;height:60px;left:' + left + 'px';
          img.onload = () => resolve(img.naturalWidth);
          img.onerror = () => resolve('broken');
          img.src = src;
          document.body.append(img);
        }});
        const bg = document.createElement('div');
        bg.style.cssText = 'position:absolute;left:140px;top:300px;width:60px;height:60px';
        bg.style.backgroundImage = 'url(' + JSON.stringify({bg:?}) + ')';
        document.body.append(bg);
        Promise.all([add({img:?}, 40), add({hash:?}, 240)]).then(done);"#,
        img = icon("rgb(0,160,0)"),
        bg = icon("rgb(160,0,160)"),
        // Chromium ends the URL at a raw `#` (a fragment): the page shows a broken image.
        hash = icon("#0000a0"),
    );
    assert_eq!(
        exec_async(client, &script).await,
        json!([60, "broken"]),
        "what the page draws"
    );
    let shot = shoot(&server, &page, json!({"command": "screenshot"})).await;
    let url = shot["url"].as_str().unwrap().to_owned();
    assert!(near(&pixel(client, &url, 70, 330).await, [0, 160, 0]), "the <img> icon");
    assert!(
        near(&pixel(client, &url, 170, 330).await, [160, 0, 160]),
        "the CSS icon"
    );
    assert!(
        near(&pixel(client, &url, 140, 90).await, [255, 0, 0]),
        "the rest of the page"
    );
});
