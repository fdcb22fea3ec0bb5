//! The parent-frame API (issue 15 item 6) in real headless Chromium: an IDE page frames the app
//! (`fixtures/notes/parent.html`, which collects the app's messages in `window.msgs`) and talks to
//! it on the `mindstudio-browser-agent` channel: outbound `ready`, `location`, `command-started`,
//! `command-completed`; inbound `healthcheck`, `capture-page`, `navigate`, `back`, `forward`,
//! `cursor-hide`/`cursor-show`/`cursor-auto`. Messages not from the parent are ignored.

use std::time::Duration;

use browser_tests::Framework::{Actix, Axum};
use browser_tests::{chromium_test, exec, run, wait_for, Server};
use fantoccini::Client;
use serde_json::{json, Value};

/// The app's messages the parent collected, from index `from`.
async fn msgs(c: &Client) -> Vec<Value> {
    exec(c, "return window.msgs")
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Waits until a message with `command` (and matching `pred`) arrived after the first `from`.
async fn wait_msg(c: &Client, from: usize, command: &str, pred: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..100 {
        let all = msgs(c).await;
        if let Some(m) = all.iter().skip(from).find(|m| m["command"] == command && pred(m)) {
            return m.clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no {command} message; got {:?}", msgs(c).await);
}

/// Posts `{channel, command, …extra}` to the framed app, as the IDE would.
async fn send(c: &Client, message: Value) {
    let mut m = json!({"channel": "mindstudio-browser-agent"});
    m.as_object_mut().unwrap().extend(message.as_object().unwrap().clone());
    exec(
        c,
        &format!("document.getElementById('app').contentWindow.postMessage({m}, '*'); return true"),
    )
    .await;
}

/// The client id of the framed page now listed at `path`.
async fn framed_page(server: &Server, path: &str) -> String {
    wait_for(&format!("a framed page at {path}"), Duration::from_secs(15), || {
        let pages = server.pages();
        pages["pages"].as_array()?.iter().find_map(|p| {
            (p["inIframe"] == true && p["alive"] == true && p["page"].as_str()?.ends_with(path))
                .then(|| p["clientId"].as_str().unwrap().to_owned())
        })
    })
    .await
}

async fn scenario(c: &Client, server: Server) {
    c.goto(&server.url("/notes/parent.html?app=/actions/shot.html"))
        .await
        .unwrap();
    let ready = wait_msg(c, 0, "ready", |_| true).await;
    assert!(
        ready["url"].as_str().unwrap().ends_with("/actions/shot.html"),
        "{ready}"
    );
    let location = wait_msg(c, 0, "location", |_| true).await;
    assert_eq!(location["canGoForward"], false, "{location}");
    let page = framed_page(&server, "/actions/shot.html").await;

    // A batch tells the IDE when it starts and how it ended.
    let from = msgs(c).await.len();
    run(&server, &page, json!([{"command": "click", "text": "Save"}])).await;
    let started = wait_msg(c, from, "command-started", |_| true).await;
    assert_eq!(started["steps"][0]["command"], "click", "{started}");
    let done = wait_msg(c, from, "command-completed", |_| true).await;
    assert_eq!(
        (done["id"].clone(), done["success"].clone()),
        (started["id"].clone(), json!(true))
    );
    let from = msgs(c).await.len();
    run(
        &server,
        &page,
        json!([{"command": "click", "text": "Nothing like this"}]),
    )
    .await;
    wait_msg(c, from, "command-completed", |m| m["success"] == false).await;

    // healthcheck and capture-page answer.
    let from = msgs(c).await.len();
    send(c, json!({"command": "healthcheck"})).await;
    let health = wait_msg(c, from, "healthcheck-reply", |_| true).await;
    assert_eq!(health["connected"], true, "{health}");
    send(c, json!({"command": "capture-page"})).await;
    let shot = wait_msg(c, from, "capture-page-result", |_| true).await;
    assert!(
        shot["image"]
            .as_str()
            .is_some_and(|i| i.starts_with("data:image/png;base64,")),
        "{shot}"
    );

    // The cursor as the IDE sets it: hidden, then shown again for the next action.
    // (Read right after the batch: the cursor fades 1.5 s after one.)
    let cursor = "const el = document.getElementById('app').contentDocument.getElementById('__browser-agent-cursor'); return el ? el.style.opacity : 'absent'";
    send(c, json!({"command": "cursor-hide"})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(exec(c, cursor).await, "0", "cursor-hide hides the cursor on screen");
    run(&server, &page, json!([{"command": "click", "text": "Save"}])).await;
    assert_eq!(
        exec(c, cursor).await,
        "0",
        "cursor-hide: the next action does not show it"
    );
    send(c, json!({"command": "cursor-auto"})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    run(&server, &page, json!([{"command": "click", "text": "Save"}])).await;
    assert_eq!(exec(c, cursor).await, "1", "cursor-auto: framed pages show it");

    // A message the page posts to itself is not the parent's: ignored.
    exec(
        c,
        "const w = document.getElementById('app').contentWindow; w.eval(\"postMessage({channel: 'mindstudio-browser-agent', command: 'navigate', url: '/actions/proof.html'}, '*')\"); return true",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let here = exec(
        c,
        "return document.getElementById('app').contentWindow.location.pathname",
    )
    .await;
    assert_eq!(here, "/actions/shot.html");

    // navigate, back, forward: each says where the page is now.
    let from = msgs(c).await.len();
    send(c, json!({"command": "navigate", "url": "/actions/proof.html"})).await;
    let moved = wait_msg(c, from, "location", |m| {
        m["url"].as_str().unwrap().ends_with("/actions/proof.html")
    })
    .await;
    assert_eq!(moved["canGoBack"], true, "{moved}");
    let from = msgs(c).await.len();
    send(c, json!({"command": "back"})).await;
    let back = wait_msg(c, from, "location", |m| {
        m["url"].as_str().unwrap().ends_with("/actions/shot.html")
    })
    .await;
    assert_eq!(back["canGoForward"], true, "{back}");
    let from = msgs(c).await.len();
    send(c, json!({"command": "forward"})).await;
    wait_msg(c, from, "location", |m| {
        m["url"].as_str().unwrap().ends_with("/actions/proof.html")
    })
    .await;
    // Only http(s) URLs are followed.
    send(c, json!({"command": "navigate", "url": "javascript:alert(1)"})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let here = exec(
        c,
        "return document.getElementById('app').contentWindow.location.pathname",
    )
    .await;
    assert_eq!(here, "/actions/proof.html");
}

chromium_test!(parent_frame_api_axum, Axum, |c, server| scenario(c, server).await);
chromium_test!(parent_frame_api_actix, Actix, |c, server| scenario(c, server).await);
