//! Notes mode in real headless Chromium: an IDE page frames the app (another origin) and drives
//! it with the postMessage API; real pointer and key input (CDP `Input.*`, trusted events) makes
//! a pin note on a button and an area note over a card, types into the bubbles, moves one and
//! deletes one; the notes reach the host with the element they point at (whose ref works in
//! `/run`) and a screenshot; `notes-screenshot` answers a PNG with the pink bubble where it was
//! placed; while notes mode is on the app gets no input and nothing is logged as an interaction;
//! the overlay is never in a snapshot. A second scenario: the shortcut and the `notes` step in a
//! standalone tab, and messages that must be ignored.

use std::time::Duration;

use browser_agent_core::BrowserAgent;
use browser_tests::{
    any_port, client_id, eval, exec, exec_async, ok, run, run_raw, shared_browser, snapshot, wait_for, within, Browser,
    Framework, Server, PAGE_KEY, PREFIX, SCENARIO_DEADLINE,
};
use serde_json::{json, Value};

const CHANNEL: &str = "mindstudio-browser-agent";

/// A trusted mouse event at top-level viewport coordinates.
async fn mouse(b: &Browser, kind: &str, x: f64, y: f64, buttons: u32) {
    let mut p = json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1});
    if kind == "mouseMoved" {
        p["button"] = json!(if buttons == 0 { "none" } else { "left" });
    }
    b.cdp("Input.dispatchMouseEvent", p).await;
}

async fn click_at(b: &Browser, x: f64, y: f64) {
    mouse(b, "mouseMoved", x, y, 0).await;
    mouse(b, "mousePressed", x, y, 1).await;
    mouse(b, "mouseReleased", x, y, 0).await;
}

async fn drag(b: &Browser, from: (f64, f64), to: (f64, f64)) {
    mouse(b, "mouseMoved", from.0, from.1, 0).await;
    mouse(b, "mousePressed", from.0, from.1, 1).await;
    for i in 1..=8 {
        let k = f64::from(i) / 8.0;
        mouse(
            b,
            "mouseMoved",
            from.0 + (to.0 - from.0) * k,
            from.1 + (to.1 - from.1) * k,
            1,
        )
        .await;
    }
    mouse(b, "mouseReleased", to.0, to.1, 0).await;
}

/// A key press (keyDown with its text, then keyUp), as a keyboard makes it.
async fn key(b: &Browser, key: &str, code: &str, vk: u32, modifiers: u32, text: Option<&str>) {
    let mut down =
        json!({"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk, "modifiers": modifiers});
    if let Some(t) = text {
        down["text"] = json!(t);
        down["unmodifiedText"] = json!(t);
    }
    b.cdp("Input.dispatchKeyEvent", down).await;
    let up = json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk, "modifiers": modifiers});
    b.cdp("Input.dispatchKeyEvent", up).await;
}

async fn type_text(b: &Browser, text: &str) {
    for c in text.chars() {
        let s = c.to_string();
        let code = if c == ' ' {
            "Space".to_owned()
        } else {
            format!("Key{}", c.to_ascii_uppercase())
        };
        key(b, &s, &code, c.to_ascii_uppercase() as u32, 0, Some(&s)).await;
    }
}

async fn enter(b: &Browser) {
    key(b, "Enter", "Enter", 13, 0, Some("\r")).await;
}

fn notes(server: &Server, query: &str) -> Value {
    let (status, body) = browser_tests::http_get(server.addr, &format!("{PREFIX}/notes?{query}"));
    assert_eq!(status, 200, "GET /notes: {body}");
    serde_json::from_str(&body).expect("notes JSON")
}

async fn wait_notes(server: &Server, what: &str, f: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    wait_for(what, Duration::from_secs(20), || {
        let v = notes(server, "");
        let list = v["notes"].as_array().cloned().unwrap_or_default();
        f(&list).then_some(list)
    })
    .await
}

/// Whether the app page has the overlay (the host element; its inside is a closed shadow root).
async fn overlay(server: &Server, app: &str) -> bool {
    eval(server, app, "!!document.querySelector('browser-agent-notes')").await == json!(true)
}

async fn wait_overlay(server: &Server, app: &str, on: bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while overlay(server, app).await != on {
        assert!(std::time::Instant::now() < deadline, "the overlay never became {on}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The client id of the alive page whose URL contains `needle`.
async fn page_with(server: &Server, needle: &str) -> String {
    wait_for(&format!("a page with {needle}"), Duration::from_secs(20), || {
        let pages = server.pages();
        pages["pages"].as_array()?.iter().find_map(|p| {
            (p["alive"] == true && p["page"].as_str().is_some_and(|u| u.contains(needle)))
                .then(|| p["clientId"].as_str().unwrap_or_default().to_owned())
        })
    })
    .await
}

/// A box of an element in the app, in the app's viewport: [x, y, w, h].
async fn rect_in_app(server: &Server, app: &str, selector: &str) -> [f64; 4] {
    let v = eval(
        server,
        app,
        &format!("(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }})()"),
    )
    .await;
    let n = |i: usize| v[i].as_f64().expect("a number");
    [n(0), n(1), n(2), n(3)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_from_an_ide_frame_reach_the_agent_with_elements_and_screenshots() {
    let browser = shared_browser().await;
    // The IDE: another site (127.0.0.2) serving the parent page; the app accepts its messages only.
    let ide_server = Server::start_on(Framework::Axum, browser_tests::agent(), "127.0.0.2:0".parse().unwrap());
    let ide = format!("http://{}", ide_server.addr);
    let agent = BrowserAgent::builder()
        .enabled(true)
        .page_key(PAGE_KEY)
        .notes_parent_origin(ide.clone())
        .build();
    let server = Server::start_on(Framework::Axum, agent, any_port());
    let b: &Browser = &browser;
    within("notes from an IDE frame", SCENARIO_DEADLINE, async move {
        let c = &b.client;
        c.set_window_size(860, 660).await.expect("window size");
        let app_url = server.url("/notes/app.html");
        c.goto(&format!("{ide}/notes/parent.html?app={app_url}")).await.unwrap();
        let app = page_with(&server, "/notes/app.html").await;

        exec(c, "send('notes-enter')").await;
        wait_overlay(&server, &app, true).await;
        let frame = exec(c, "const r = app.getBoundingClientRect(); return [r.x, r.y];").await;
        let (fx, fy) = (frame[0].as_f64().unwrap(), frame[1].as_f64().unwrap());

        // A pin on the Save button.
        let save = rect_in_app(&server, &app, "#save").await;
        let (sx, sy) = (save[0] + save[2] / 2.0, save[1] + save[3] / 2.0);
        click_at(b, fx + sx, fy + sy).await;
        type_text(b, "this button is too small").await;
        enter(b).await;
        // An area over the card.
        let card = rect_in_app(&server, &app, "#card").await;
        drag(
            b,
            (fx + card[0] - 8.0, fy + card[1] - 8.0),
            (fx + card[0] + card[2] + 8.0, fy + card[1] + card[3] + 8.0),
        )
        .await;
        type_text(b, "broken card").await;
        enter(b).await;
        // A third, on the title, to delete.
        let title = rect_in_app(&server, &app, "#title").await;
        click_at(b, fx + title[0] + 150.0, fy + title[1] + 10.0).await;
        type_text(b, "title: larger, please").await;
        enter(b).await;
        let sent = wait_notes(&server, "three notes", |n| n.len() == 3).await;
        if std::env::var_os("BROWSER_AGENT_DOCS").is_some() {
            // The README's picture: the IDE with the app in notes mode.
            let png = c.screenshot().await.expect("screenshot");
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/notes-mode.png");
            std::fs::write(path, png).expect("write docs/notes-mode.png");
        }

        // Move the area note: drag its bubble 40 px right (it sits 8 px under the box).
        let area = sent.iter().find(|n| n["kind"] == "area").expect("an area note").clone();
        let (bx, by) = (
            area["box"]["x"].as_f64().unwrap() + 20.0,
            area["box"]["y"].as_f64().unwrap() + area["box"]["h"].as_f64().unwrap() + 20.0,
        );
        drag(b, (fx + bx, fy + by), (fx + bx + 40.0, fy + by)).await;
        // Delete the title note: select its bubble, then Delete.
        let third = sent
            .iter()
            .find(|n| n["text"] == "title: larger, please")
            .expect("the third note")
            .clone();
        let (tx, ty) = (
            third["point"]["x"].as_f64().unwrap() + 40.0,
            third["point"]["y"].as_f64().unwrap() + 22.0,
        );
        click_at(b, fx + tx, fy + ty).await;
        key(b, "Delete", "Delete", 46, 0, None).await;

        let left = wait_notes(&server, "the moved area and no third note", |n| {
            n.len() == 2
                && n.iter().any(|n| {
                    n["kind"] == "area" && n["box"]["x"].as_f64() > area["box"]["x"].as_f64().map(|x| x + 30.0)
                })
        })
        .await;
        let pin = left.iter().find(|n| n["kind"] == "pin").expect("the pin").clone();
        assert_eq!(pin["text"], "this button is too small", "{pin}");
        let element = pin["element"].as_str().unwrap();
        assert!(element.starts_with("button \"Save\" [ref=e"), "{pin}");
        assert!((pin["point"]["x"].as_f64().unwrap() - sx).abs() < 2.0, "{pin}");
        assert!(pin["url"].as_str().unwrap().ends_with("/notes/app.html"), "{pin}");
        assert_eq!(pin["viewport"]["w"].as_f64(), Some(760.0), "{pin}");
        assert_eq!(pin["client"], app.as_str());
        let shot = &pin["screenshot"];
        assert!(shot["url"].as_str().unwrap().contains("/screenshots/"), "{pin}");
        let (status, _) = browser_tests::http_get(
            server.addr,
            &format!("{PREFIX}/screenshots/{}.png", shot["id"].as_str().unwrap()),
        );
        assert_eq!(status, 200);
        let moved = left.iter().find(|n| n["kind"] == "area").unwrap();
        assert_eq!(
            (moved["text"].as_str(), moved["id"].as_str()),
            (Some("broken card"), area["id"].as_str())
        );
        assert!(
            moved["seq"].as_u64() > area["seq"].as_u64(),
            "a moved note is sent again: {moved}"
        );
        // What the area held where it was drawn: the card's button and heading.
        let inside: Vec<&str> = area["elements"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(inside.iter().any(|e| e.starts_with("button \"Open\" [ref=")), "{area}");
        assert!(
            inside.iter().any(|e| e.starts_with("heading \"Monthly report\"")),
            "{area}"
        );

        // The app got none of it, and nothing was logged as an interaction.
        let counts = eval(&server, &app, "[window.saves, window.docClicks, window.keys]").await;
        assert_eq!(counts, json!([0, 0, 0]), "the app saw the developer's input");
        let clicks = server.console(&format!("type=interaction&client={app}&limit=50"));
        assert_eq!(clicks["count"], 0, "{clicks}");
        // The overlay is in no snapshot.
        let snap = snapshot(&server, &app).await;
        assert!(
            !snap.contains("too small") && !snap.contains("Notes:") && !snap.contains("textbox"),
            "{snap}"
        );

        // notes-screenshot: a PNG with the pink bubble where the pin's bubble is.
        exec(c, "send('notes-screenshot')").await;
        let probe = format!(
            "const done = arguments[arguments.length - 1];
             const wait = () => {{
               const m = msgs.find((m) => m.command === 'screenshot-result');
               if (!m) return setTimeout(wait, 100);
               if (!m.image) return done({{error: m.error}});
               const img = new Image();
               img.onload = () => {{
                 const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
                 const g = c.getContext('2d'); g.drawImage(img, 0, 0);
                 const k = img.width / 760;
                 const px = (x, y) => Array.from(g.getImageData(Math.round(x * k), Math.round(y * k), 1, 1).data);
                 done({{prefix: m.image.slice(0, 22), w: img.width, bubble: px({bx}, {by}), far: px(700, 500)}});
               }};
               img.src = m.image;
             }};
             wait();",
            bx = sx + 60.0,
            by = sy + 20.0
        );
        let pixels = exec_async(c, &probe).await;
        assert_eq!(pixels["prefix"], "data:image/png;base64,", "{pixels}");
        let rgb = |v: &Value| -> Vec<u64> { v.as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).collect() };
        let bubble = rgb(&pixels["bubble"]);
        assert!(
            bubble[0] > 180 && bubble[1] < 90 && bubble[2] > 100,
            "pink (#DD2590) at the bubble: {pixels}"
        );
        let far = rgb(&pixels["far"]);
        assert!(!(far[0] > 180 && far[1] < 90), "not pink away from the notes: {pixels}");

        // The note's ref works in /run, while notes mode is still on (the overlay is no target).
        let r = element.rsplit("[ref=").next().unwrap().trim_end_matches(']');
        ok(&server, &app, json!({"command": "click", "ref": r})).await;
        assert_eq!(eval(&server, &app, "window.saves").await, 1);

        // notes-exit removes every note from the page; the host keeps them.
        exec(c, "send('notes-exit')").await;
        wait_overlay(&server, &app, false).await;
        assert_eq!(notes(&server, "")["count"], 2);
        let since = notes(&server, "")["lastSeq"].as_u64().unwrap();
        assert_eq!(notes(&server, &format!("since={since}"))["count"], 0);
        assert_eq!(notes(&server, &format!("client={app}"))["count"], 2);

        // A parent of another origin than the configured one is ignored.
        c.goto(&format!("{}?app={app_url}", server.url("/notes/parent.html")))
            .await
            .unwrap();
        let app2 = wait_for("the second app page", Duration::from_secs(20), || {
            let pages = server.pages();
            pages["pages"].as_array()?.iter().find_map(|p| {
                let id = p["clientId"].as_str()?;
                (p["alive"] == true && id != app && p["page"].as_str()?.contains("/notes/app.html"))
                    .then(|| id.to_owned())
            })
        })
        .await;
        exec(c, "send('notes-enter')").await;
        tokio::time::sleep(Duration::from_millis(800)).await;
        assert!(
            !overlay(&server, &app2).await,
            "a message from another origin entered notes mode"
        );

        // The agent clears what it handled.
        let id = pin["id"].as_str().unwrap();
        let del = |path: String| {
            let addr = server.addr;
            async move {
                let r = tokio::task::spawn_blocking(move || {
                    browser_agent_testkit::http::request(addr, "DELETE", &path, &[], b"")
                })
                .await
                .unwrap();
                (r.status, r.text())
            }
        };
        let (status, _) = del(format!("{PREFIX}/notes/{id}")).await;
        assert_eq!(status, 200);
        let (status, body) = del(format!("{PREFIX}/notes/{id}")).await;
        assert_eq!(status, 404, "{body}");
        let (status, body) = del(format!("{PREFIX}/notes")).await;
        assert_eq!((status, body.contains("\"deleted\":1")), (200, true), "{body}");
        assert_eq!(notes(&server, "")["count"], 0);
        ide_server.stop();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shortcut_and_the_notes_step_in_a_standalone_tab() {
    let browser = shared_browser().await;
    let server = Server::start_on(Framework::Actix, browser_tests::agent(), any_port());
    let b: &Browser = &browser;
    within("notes in a standalone tab", SCENARIO_DEADLINE, async move {
        let c = &b.client;
        c.goto(&server.url("/notes/app.html")).await.unwrap();
        let app = client_id(c, &server).await;

        // A message from the page itself (not a parent frame) is ignored.
        eval(
            &server,
            &app,
            &format!("window.postMessage({{channel: '{CHANNEL}', command: 'notes-enter'}}, '*'), 1"),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(!overlay(&server, &app).await);

        // Alt+Shift+N enters.
        key(b, "N", "KeyN", 78, 1 | 8, None).await;
        wait_overlay(&server, &app, true).await;
        let save = rect_in_app(&server, &app, "#save").await;
        click_at(b, save[0] + save[2] / 2.0, save[1] + save[3] / 2.0).await;
        type_text(b, "rename to publish").await;
        enter(b).await;
        let got = wait_notes(&server, "the note", |n| n.len() == 1).await;
        assert_eq!(got[0]["text"], "rename to publish");
        assert!(
            got[0]["element"]
                .as_str()
                .unwrap()
                .starts_with("button \"Save\" [ref=e"),
            "{}",
            got[0]
        );
        assert_eq!(
            eval(&server, &app, "[window.saves, window.docClicks, window.keys]").await,
            json!([0, 0, 0])
        );
        // Escape with nothing edited leaves.
        key(b, "Escape", "Escape", 27, 0, None).await;
        wait_overlay(&server, &app, false).await;

        // The agent asks for it.
        let v = run(&server, &app, json!([{"command": "notes", "mode": "enter"}])).await;
        assert_eq!(v["steps"][0]["result"]["mode"], "on", "{v}");
        assert!(overlay(&server, &app).await);
        let snap = snapshot(&server, &app).await;
        assert!(!snap.contains("Notes:") && snap.contains("button \"Save\""), "{snap}");
        let v = run(&server, &app, json!([{"command": "notes", "mode": "exit"}])).await;
        assert_eq!(v["steps"][0]["result"]["mode"], "off", "{v}");
        let (status, v) = run_raw(
            &server,
            json!({"client": app, "steps": [{"command": "notes", "mode": "sideways"}]}),
        )
        .await;
        assert_eq!(status, 400, "refused before it runs: {v}");
        assert!(v["message"].as_str().unwrap().contains("\"enter\" or \"exit\""), "{v}");
        // The same shortcut toggles.
        key(b, "N", "KeyN", 78, 1 | 8, None).await;
        wait_overlay(&server, &app, true).await;
        key(b, "N", "KeyN", 78, 1 | 8, None).await;
        wait_overlay(&server, &app, false).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_off_means_no_shortcut_and_a_failing_step() {
    let browser = shared_browser().await;
    let agent = BrowserAgent::builder()
        .enabled(true)
        .page_key(PAGE_KEY)
        .notes(false)
        .build();
    let server = Server::start_on(Framework::Axum, agent, any_port());
    let b: &Browser = &browser;
    within("notes off", SCENARIO_DEADLINE, async move {
        let c = &b.client;
        c.goto(&server.url("/notes/app.html")).await.unwrap();
        let app = client_id(c, &server).await;
        key(b, "N", "KeyN", 78, 1 | 8, None).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(!overlay(&server, &app).await);
        let v = run(&server, &app, json!([{"command": "notes", "mode": "enter"}])).await;
        assert!(
            v["steps"][0]["error"].as_str().unwrap().contains("notes mode is off"),
            "{v}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_area_note_reads_its_element_as_the_snapshot_does() {
    // Issue 33: an area note's element ran the card's block children together ("PlanPro— 12
    // seatsUpgrade"); it reads as the snapshot does, a line a node, with refs that work.
    let browser = shared_browser().await;
    let server = Server::start_on(Framework::Axum, browser_tests::agent(), any_port());
    let b: &Browser = &browser;
    within("an area note's element", SCENARIO_DEADLINE, async move {
        let c = &b.client;
        c.goto(&server.url("/notes/plans.html")).await.unwrap();
        let app = client_id(c, &server).await;
        let v = run(&server, &app, json!([{"command": "notes", "mode": "enter"}])).await;
        assert_eq!(v["steps"][0]["result"]["mode"], "on", "{v}");
        let card = rect_in_app(&server, &app, "#pro").await;
        drag(
            b,
            (card[0] - 6.0, card[1] - 6.0),
            (card[0] + card[2] + 6.0, card[1] + card[3] + 6.0),
        )
        .await;
        type_text(b, "too small").await;
        enter(b).await;
        let got = wait_notes(&server, "the area note", |n| n.len() == 1).await;
        let element = got[0]["element"].as_str().unwrap().to_owned();
        let lines: Vec<&str> = element.lines().collect();
        assert_eq!(lines.len(), 3, "{element}");
        assert_eq!(lines[0], "heading \"PlanPro\"", "{element}");
        assert_eq!(lines[1], "\"— 12 seats\"", "{element}");
        assert!(lines[2].starts_with("button \"Upgrade\" [ref=e"), "{element}");
        // Its ref is the snapshot's: it works in a step.
        let r = lines[2].rsplit("[ref=").next().unwrap().trim_end_matches(']');
        let snap = snapshot(&server, &app).await;
        assert!(snap.contains(&format!("button \"Upgrade\" [ref={r}]")), "{snap}");
        run(&server, &app, json!([{"command": "notes", "mode": "exit"}])).await;
    })
    .await;
}
