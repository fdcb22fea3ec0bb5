//! Keys as browsers send them, and the agent's text and choice commands on framework builds of
//! several eras, in real headless Chromium, driven through the agent API.
//!
//! - Keys (`fixtures/frameworks/keys.html`): the agent's `press` and `type` make the same key
//!   events, field by field (`key`, `code`, `keyCode`, `which`, `charCode`, `location`, `repeat`,
//!   and which of keydown/keypress/keyup fire), as Chromium makes for real key presses sent with
//!   CDP `Input.dispatchKeyEvent` (the way Playwright types on a US layout). A default action
//!   (Enter's implicit submission, Space on a checkbox, Enter on a link, Tab's focus move) does not
//!   run when a handler prevented the keydown or the keypress, for the agent as for the browser.
//! - Frameworks (`fixtures/frameworks/*.html`): a small todo app of ours in each framework's own
//!   binding idioms (Vue 0.10, 0.12, 1, 2 and 3, Knockout 2 and 3, AngularJS 1.8, Backbone 1.1 +
//!   jQuery 1 and Backbone 1.6 + jQuery 3, React 15 and 18 from their UMD builds; React 19, which
//!   ships no UMD build, as a JSX app (`fixtures/frameworks/react19/app.jsx`) bundled by the set-up
//!   with the pinned esbuild (its binary comes in the registry package `@esbuild/linux-x64`) into
//!   one script; Ember 3.28 in globals mode, its templates compiled in the page; Svelte 4, its
//!   component `fixtures/frameworks/svelte/Todo.svelte` compiled by the set-up with the pinned
//!   `svelte/compiler` into an ES module the page imports through an import map), on the
//!   framework's own build installed from npm (pinned by
//!   `browser-tests/frameworks-npm/package-lock.json`, installed with `npm ci` into
//!   `target/frameworks-npm` when the lock there differs, served through the git-ignored link
//!   `fixtures/frameworks/npm`). Typing + Enter, filling, checking, selecting and clicking change
//!   the app's own state, read back from the app's model; after the app clears the field on
//!   Enter, the next `type` starts from the empty field. The Ember and Svelte apps also log what
//!   they add and throw from a click handler: both reach the agent's console.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use browser_tests::{
    agent, any_port, eval, eval_until, exec, ok, open, run, shared_browser, wait_for, within, Server, SCENARIO_DEADLINE,
};
use serde_json::{json, Value};

/// Installs the pinned framework builds (once per test binary) and links them into the fixtures.
fn frameworks_installed() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let modules = browser_tests::npm_fixtures("frameworks");
        compile_svelte(&modules);
        bundle_react19(&modules);
    });
}

/// Bundles the React 19 app (`fixtures/frameworks/react19/app.jsx`) with the pinned esbuild into
/// `npm/browser-agent-compiled/react19-todo.js`, one classic script (React 19 ships no UMD build).
/// `react` and `react-dom` are the set's `react19` and `react-dom19` (the plain names are React 18).
fn bundle_react19(modules: &Path) {
    let src = browser_tests::fixtures_dir().join("frameworks/react19/app.jsx");
    let out = modules.join("browser-agent-compiled");
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let script = r#"
        const [src, out] = process.argv.slice(1);
        require('esbuild').buildSync({
            entryPoints: [src], outfile: out, bundle: true, format: 'iife', minify: true,
            jsx: 'automatic', logLevel: 'warning',
            alias: { react: 'react19', 'react-dom': 'react-dom19' },
            define: { 'process.env.NODE_ENV': '"production"' },
        });
    "#;
    let status = Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(&src)
        .arg(out.join("react19-todo.js"))
        .current_dir(modules.parent().expect("node_modules has a parent"))
        .status()
        .unwrap_or_else(|e| panic!("run node (the React 19 test bundles its app with esbuild): {e}"));
    assert!(status.success(), "bundling {} failed: {status}", src.display());
}

/// Compiles the Svelte app (`fixtures/frameworks/svelte/Todo.svelte`) with the pinned
/// `svelte/compiler` into `npm/browser-agent-compiled/svelte-todo.js`, an ES module that imports
/// the runtime by its bare names (`svelte/internal`), as a bundler would be given it.
fn compile_svelte(modules: &Path) {
    let src = browser_tests::fixtures_dir().join("frameworks/svelte/Todo.svelte");
    let out = modules.join("browser-agent-compiled");
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let script = r#"
        const fs = require('fs');
        const { compile } = require('svelte/compiler');
        const [src, out] = process.argv.slice(1);
        const r = compile(fs.readFileSync(src, 'utf8'), { filename: 'Todo.svelte' });
        for (const w of r.warnings) console.error(w.message);
        fs.writeFileSync(out, r.js.code);
    "#;
    let status = Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(&src)
        .arg(out.join("svelte-todo.js"))
        .current_dir(modules.parent().expect("node_modules has a parent"))
        .status()
        .unwrap_or_else(|e| panic!("run node (the Svelte test compiles its app with it): {e}"));
    assert!(status.success(), "compiling {} failed: {status}", src.display());
}

/// The keys compared: (agent key, CDP key, code, windowsVirtualKeyCode, text).
const KEYS: [(&str, &str, &str, u32, &str); 16] = [
    ("a", "a", "KeyA", 65, "a"),
    ("Z", "Z", "KeyZ", 90, "Z"),
    ("7", "7", "Digit7", 55, "7"),
    ("Space", " ", "Space", 32, " "),
    ("+", "+", "Equal", 187, "+"),
    ("-", "-", "Minus", 189, "-"),
    ("?", "?", "Slash", 191, "?"),
    ("Enter", "Enter", "Enter", 13, "\r"),
    ("Escape", "Escape", "Escape", 27, ""),
    ("Tab", "Tab", "Tab", 9, ""),
    ("Backspace", "Backspace", "Backspace", 8, ""),
    ("ArrowLeft", "ArrowLeft", "ArrowLeft", 37, ""),
    ("ArrowUp", "ArrowUp", "ArrowUp", 38, ""),
    ("ArrowRight", "ArrowRight", "ArrowRight", 39, ""),
    ("ArrowDown", "ArrowDown", "ArrowDown", 40, ""),
    ("Delete", "Delete", "Delete", 46, ""),
];

/// A real key press through CDP, as Playwright sends it: keyDown (with text) or rawKeyDown, keyUp.
async fn cdp_press(browser: &browser_tests::Browser, key: &str, code: &str, vk: u32, text: &str) {
    let mut down = json!({
        "type": if text.is_empty() { "rawKeyDown" } else { "keyDown" },
        "key": key, "code": code, "windowsVirtualKeyCode": vk, "location": 0,
    });
    if !text.is_empty() {
        down["text"] = json!(text);
        down["unmodifiedText"] = json!(text);
    }
    browser.cdp("Input.dispatchKeyEvent", down).await;
    browser
        .cdp(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk, "location": 0}),
        )
        .await;
}

/// The recorded key events since the last call (and empties the record).
async fn recorded(server: &Server, id: &str) -> Value {
    eval(
        server,
        id,
        "const e = window.keyEvents; window.keyEvents = []; return e",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_match_chromium() {
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within("keys_match_chromium", SCENARIO_DEADLINE, async {
        let c = &browser.client;
        let id = open(c, &server, "/frameworks/keys.html").await;
        for (agent_key, key, code, vk, text) in KEYS {
            exec(c, "document.getElementById('rec').focus(); window.keyEvents = [];").await;
            cdp_press(&browser, key, code, vk, text).await;
            let real = recorded(&server, &id).await;
            assert!(
                real.as_array().is_some_and(|a| a.len() >= 2),
                "{agent_key}: Chromium's events {real}"
            );
            ok(
                &server,
                &id,
                json!({"command": "press", "key": agent_key, "label": "Record"}),
            )
            .await;
            let ours = recorded(&server, &id).await;
            assert_eq!(ours, real, "press {agent_key}: ours (left) against Chromium's (right)");
        }
        // `type`: each character's events are the real key's, in an input and in a textarea (where
        // a newline is the Enter key).
        for (label, sel, text) in [("Record", "rec", "aZ7 +-?"), ("Area", "area", "a\nZ7")] {
            exec(
                c,
                &format!(
                    "const el = document.getElementById('{sel}'); el.value = ''; el.focus(); window.keyEvents = [];"
                ),
            )
            .await;
            for ch in text.chars() {
                let (key, code, vk, t) = match ch {
                    '\n' => ("Enter".to_owned(), "Enter".to_owned(), 13, "\r".to_owned()),
                    _ => {
                        let k = KEYS.iter().find(|k| k.4 == ch.to_string()).expect("a key of the table");
                        (k.1.to_owned(), k.2.to_owned(), k.3, k.4.to_owned())
                    }
                };
                cdp_press(&browser, &key, &code, vk, &t).await;
            }
            let real = recorded(&server, &id).await;
            let real_value = exec(c, &format!("return document.getElementById('{sel}').value")).await;
            exec(c, &format!("document.getElementById('{sel}').value = ''")).await;
            ok(&server, &id, json!({"command": "type", "label": label, "text": text})).await;
            let ours = recorded(&server, &id).await;
            assert_eq!(
                ours, real,
                "type {text:?} in {label}: ours (left) against Chromium's (right)"
            );
            let our_value = exec(c, &format!("return document.getElementById('{sel}').value")).await;
            assert_eq!(our_value, real_value, "type {text:?} in {label}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prevented_keys_do_not_act() {
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within("prevented_keys_do_not_act", SCENARIO_DEADLINE, async {
        let c = &browser.client;
        let id = open(c, &server, "/frameworks/keys.html").await;
        // The browser itself: a keypress handler that prevents Enter keeps the form from submitting.
        exec(c, "document.getElementById('guarded-input').focus()").await;
        cdp_press(&browser, "Enter", "Enter", 13, "\r").await;
        assert_eq!(
            eval(&server, &id, "[window.submits, window.guardedEnters]").await,
            json!([0, 1])
        );
        // The agent: the same for keypress and for keydown; the page stays (no navigation).
        for label in ["Guarded", "Guarded down"] {
            ok(&server, &id, json!({"command": "type", "label": label, "text": "milk"})).await;
            ok(
                &server,
                &id,
                json!({"command": "press", "key": "Enter", "label": label}),
            )
            .await;
        }
        assert_eq!(
            eval(&server, &id, "[window.submits, window.guardedEnters, location.search]").await,
            json!([0, 2, ""])
        );
        // Space on a checkbox whose keydown is prevented; Enter on a link whose keydown is
        // prevented (Chromium sends a link no keypress); Tab in a field whose keydown is prevented.
        ok(
            &server,
            &id,
            json!({"command": "press", "key": "Space", "label": "Kept box"}),
        )
        .await;
        ok(
            &server,
            &id,
            json!({"command": "press", "key": "Enter", "role": "link", "name": "Anchor link"}),
        )
        .await;
        ok(
            &server,
            &id,
            json!({"command": "press", "key": "Tab", "label": "Record"}),
        )
        .await;
        assert_eq!(
            eval(
                &server,
                &id,
                "[document.getElementById('box').checked, location.hash, document.activeElement.id]"
            )
            .await,
            json!([false, "", "rec"])
        );
        // Not prevented, the same keys act.
        ok(&server, &id, json!({"command": "press", "key": "Tab", "label": "Area"})).await;
        assert_eq!(
            eval(&server, &id, "document.activeElement.id").await,
            json!("guarded-input")
        );
    })
    .await;
}

/// Polls the app's model until `check` accepts it (frameworks render asynchronously); the model.
async fn model_eval_until(server: &Server, id: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    eval_until(server, id, "model()", what, check).await
}

/// Runs `steps` in one batch; every step must succeed.
async fn run_ok(server: &Server, id: &str, steps: Value) {
    let v = run(server, id, steps.clone()).await;
    for (i, st) in v["steps"].as_array().expect("steps").iter().enumerate() {
        assert!(st["error"].is_null(), "step {} of {steps} failed: {}", i, st["error"]);
    }
}

/// The todo app of one framework, driven as an agent drives it.
async fn todo_app(page: &str) {
    frameworks_installed();
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within(page, SCENARIO_DEADLINE, async {
        let c = &browser.client;
        let id = open(c, &server, &format!("/frameworks/{page}")).await;
        let m = model_eval_until(&server, &id, "the app starts", |m| m["items"] == json!([])).await;
        println!("{page}: {}", m["version"]);
        let (s, id) = (&server, id.as_str());
        // The app has rendered its form (some frameworks render after their model exists).
        let what = format!("{page}: the app renders its field");
        eval_until(s, id, "!!document.getElementById('new')", &what, |v| v == true).await;
        if matches!(page, "react.html" | "react19.html") {
            // React sets an empty `onclick` on its root container: no control, so the snapshot
            // does not wrap the whole app in one `clickable`.
            let snap = ok(s, id, json!({"command": "snapshot"})).await;
            let snap = snap["result"].as_str().unwrap_or_default();
            assert!(!snap.contains("clickable"), "{page}: {snap}");
        }
        for (text, items) in [("buy milk", json!(["buy milk"])), ("eggs", json!(["buy milk", "eggs"]))] {
            ok(s, id, json!({"command": "type", "label": "New todo", "text": text})).await;
            ok(s, id, json!({"command": "press", "key": "Enter", "label": "New todo"})).await;
            let m = model_eval_until(s, id, &format!("{page}: Enter adds {text:?}"), |m| m["items"] == items).await;
            assert_eq!(m["draft"], "", "{page}: the app cleared its draft");
            // The app renders the cleared field (some frameworks on the next frame).
            let what = format!("{page}: the field is empty after Enter");
            eval_until(s, id, "document.getElementById('new').value", &what, |v| v == "").await;
        }
        ok(s, id, json!({"command": "fill", "label": "Note", "text": "hello"})).await;
        model_eval_until(s, id, &format!("{page}: fill Note"), |m| m["note"] == "hello").await;
        ok(s, id, json!({"command": "type", "label": "Note", "text": " there"})).await;
        model_eval_until(s, id, &format!("{page}: type in Note"), |m| m["note"] == "hello there").await;
        ok(s, id, json!({"command": "check", "label": "Done"})).await;
        model_eval_until(s, id, &format!("{page}: check Done"), |m| m["done"] == true).await;
        ok(s, id, json!({"command": "uncheck", "label": "Done"})).await;
        model_eval_until(s, id, &format!("{page}: uncheck Done"), |m| m["done"] == false).await;
        ok(s, id, json!({"command": "select", "label": "Color", "option": "Green"})).await;
        model_eval_until(s, id, &format!("{page}: select Color"), |m| m["color"] == "green").await;
        ok(
            s,
            id,
            json!({"command": "click", "role": "button", "name": "Clear all"}),
        )
        .await;
        model_eval_until(s, id, &format!("{page}: click Clear all"), |m| m["items"] == json!([])).await;
        // One batch, as an agent sends it: the next `type` follows the Enter at once, before the
        // app's own (often asynchronous) render of the cleared field; it must not type onto the
        // old text. The list shows what the model holds.
        run_ok(
            s,
            id,
            json!([
                {"command": "type", "label": "New todo", "text": "bread"},
                {"command": "press", "key": "Enter", "label": "New todo"},
                {"command": "type", "label": "New todo", "text": "jam"},
                {"command": "press", "key": "Enter", "label": "New todo"},
            ]),
        )
        .await;
        let m = model_eval_until(s, id, &format!("{page}: one batch adds bread and jam"), |m| {
            m["items"].as_array().is_some_and(|a| a.len() >= 2)
        })
        .await;
        assert_eq!(m["items"], json!(["bread", "jam"]), "{page}: one batch");
        let shown = eval(
            s,
            id,
            "Array.from(document.querySelectorAll('li'), (li) => li.textContent.trim())",
        )
        .await;
        assert_eq!(shown, json!(["bread", "jam"]), "{page}: the list");
        if matches!(
            page,
            "backbone.html" | "backbone11.html" | "react.html" | "react15.html" | "react19.html"
        ) {
            // Their keypress handlers saw every Enter (e.keyCode / React's e.charCode).
            assert_eq!(eval(s, id, "model().presses").await, json!(4), "{page}: keypress Enter");
        }
        if matches!(page, "ember.html" | "svelte.html") {
            // The app's own console output and an error thrown from its click handler (which the
            // framework's event dispatch lets reach the window) are captured.
            ok(s, id, json!({"command": "click", "role": "button", "name": "Break"})).await;
            let failed = format!("{} handler failed", page.trim_end_matches(".html"));
            let logs = wait_for(
                &format!("{page}: the app's log and error"),
                Duration::from_secs(10),
                || {
                    let logs = s.logs_of(id);
                    let added = |t: &str| {
                        logs.iter()
                            .any(|e| e["type"] == "console" && e["args"] == json!(["added", t]))
                    };
                    let thrown = logs
                        .iter()
                        .any(|e| e["type"] == "error" && e["message"].as_str().is_some_and(|m| m.contains(&failed)));
                    (["buy milk", "eggs", "bread", "jam"].iter().all(|t| added(t)) && thrown).then_some(logs)
                },
            )
            .await;
            let error = logs
                .iter()
                .find(|e| e["type"] == "error" && e["message"].as_str().is_some_and(|m| m.contains(&failed)))
                .expect("the error");
            println!("{page}: {error}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vue010_v_model() {
    todo_app("vue010.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vue012_v_model() {
    todo_app("vue012.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vue1_v_model() {
    todo_app("vue1.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vue2_v_model() {
    todo_app("vue2.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vue3_v_model() {
    todo_app("vue3.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn knockout2_bindings() {
    todo_app("knockout2.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backbone11_jquery1_handlers() {
    todo_app("backbone11.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn knockout_bindings() {
    todo_app("knockout.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn angularjs_ng_model() {
    todo_app("angular.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backbone_jquery_handlers() {
    todo_app("backbone.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn react18_controlled_inputs() {
    todo_app("react.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn react19_controlled_inputs() {
    todo_app("react19.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn react15_controlled_inputs() {
    todo_app("react15.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ember_input_and_on() {
    todo_app("ember.html").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn svelte_bind() {
    todo_app("svelte.html").await;
}
