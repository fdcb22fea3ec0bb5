//! Hostile pages, in real headless Chromium: pages that extend or replace the built-ins before the
//! client loads, wrap the DOM's own methods or `Promise.prototype.then` (as zone.js and
//! instrumentation do: `builtins.html?break=listeners|old-listeners|then|queries`), take `console`
//! over after load, freeze the globals, write themselves with `document.write`, have no `<head>`
//! or a `<base>` to another origin (`fixtures/hostile/*.html`).
//! On each the client starts, captures the page's console (from before it loaded and after), and a
//! click through `POST /run` changes the page; the checks never run WebDriver scripts in the page
//! (a page that broke `JSON.stringify` or `Function.prototype.apply` may break the driver's own).
//!
//! Libraries are the real ones, from npm (pinned by `browser-tests/hostile-npm/package-lock.json`,
//! installed with `npm ci` into `target/hostile-npm` when the lock there differs, served through
//! the git-ignored link `fixtures/hostile/npm`): MooTools 1.4.5 (its core; the window changes of its
//! Browser and Element modules are made by the fixture in their idiom), Prototype.js 1.7's language
//! layer (npm `prototype`, CommonJS modules joined into one browser script here), Sugar 1.4.1 and
//! zone.js 0.16.3 (Promise replaced by its ZoneAwarePromise; listeners, timers, fetch and XHR
//! wrapped; the page runs in a zone of its own).
//!
//! Where the page makes starting impossible (a CSP without `'wasm-unsafe-eval'`, or one that
//! refuses connections), the page registers as `failed` with the error, `GET {prefix}/page` shows
//! it, the error is a log entry, and `POST /run` answers with it, word for word.

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use browser_tests::{agent, any_port, ok, run, run_raw, shared_browser, wait_for, within, Server, SCENARIO_DEADLINE};
use serde_json::{json, Value};

/// Installs the pinned libraries (once per test binary) and links them into the fixtures.
fn libraries_installed() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let modules = browser_tests::npm_fixtures("hostile");
        prototype_for_browsers(&modules.join("prototype"));
    });
}

/// npm's `prototype` is Prototype.js 1.7's language layer as CommonJS modules (`lib/*.js`, entry
/// `lib/index.js`): joined here into `browser.js`, each module in a function with `module`,
/// `exports` and `require`, the entry's exports (`$A`, `$w`, `Class`, …) made globals, as the
/// browser build has them.
fn prototype_for_browsers(package: &Path) {
    let mut names: Vec<String> = std::fs::read_dir(package.join("lib"))
        .expect("prototype/lib")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".js") && !n.starts_with("._"))
        .collect();
    names.sort();
    let mut out = String::from("(function () {\nvar defs = {}, done = {};\n");
    for name in &names {
        let source = std::fs::read_to_string(package.join("lib").join(name)).expect("a prototype module");
        let id = name.trim_end_matches(".js");
        out.push_str(&format!(
            "defs['./{id}'] = function (module, exports, require) {{\n{source}\n}};\n"
        ));
    }
    out.push_str(
        "function require(id) {\n  id = id.replace(/\\.js$/, '');\n  if (!done[id]) {\n    var module = (done[id] = { exports: {} });\n    defs[id](module, module.exports, require);\n  }\n  return done[id].exports;\n}\nvar api = require('./index');\nfor (var k in api) window[k] = api[k];\n})();\n",
    );
    let target = package.join("browser.js");
    if std::fs::read_to_string(&target).ok().as_deref() != Some(out.as_str()) {
        std::fs::write(&target, out).expect("write prototype/browser.js");
    }
}

/// The page the host lists at `url` once it is alive and in `phase`; its record.
async fn listed(server: &Server, url: &str, phase: &str) -> Value {
    wait_for(
        &format!("the host to list {url} at phase {phase}"),
        Duration::from_secs(20),
        || {
            let pages = server.pages();
            pages["pages"]
                .as_array()?
                .iter()
                .find(|p| p["page"] == url && p["alive"] == true && p["phase"] == phase)
                .cloned()
        },
    )
    .await
}

/// Opens `url` without waiting through the driver: a page that broke what chromedriver's own
/// scripts use (`Array.prototype.toJSON`) makes its navigation fail, so the page navigates itself
/// from `about:blank`, and everything after is read from the host.
async fn open(c: &fantoccini::Client, url: &str) {
    // Leaving such a page through the driver fails too: [`works`] makes it go to about:blank itself.
    let mut tries = 0;
    while let Err(e) = c.goto("about:blank").await {
        tries += 1;
        assert!(tries < 50, "open about:blank: {e}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    c.execute(
        &format!("setTimeout(function () {{ location.href = {url:?}; }}, 0)"),
        vec![],
    )
    .await
    .unwrap_or_else(|e| panic!("navigate to {url}: {e}"));
}

/// The console entries of `id` whose arguments begin with `first`.
fn console_with(server: &Server, id: &str, first: &str) -> Vec<Value> {
    server
        .logs_of(id)
        .into_iter()
        .filter(|e| e["type"] == "console" && e["args"][0] == first)
        .collect()
}

/// Opens `path`; the client starts, the page's console is captured from before the client loaded
/// (`page says` with an object) and after (through `evaluate`), a click through `/run` changes the
/// page, and a `wait` for the text it wrote and a snapshot showing it succeed. The client id.
async fn works(c: &fantoccini::Client, server: &Server, path: &str) -> String {
    works_probed(c, server, path).await.0
}

/// [`works`], and what the page's `probe()` (when it has one) answers after the click.
async fn works_probed(c: &fantoccini::Client, server: &Server, path: &str) -> (String, Value) {
    let url = server.url(path);
    open(c, &url).await;
    let page = listed(server, &url, "ready").await;
    let id = page["clientId"].as_str().expect("a client id").to_owned();
    let early = wait_for(
        &format!("{path}: the page's first log"),
        Duration::from_secs(10),
        || console_with(server, &id, "page says").into_iter().next(),
    )
    .await;
    let said = early["args"][1].as_str().unwrap_or_default();
    assert!(
        said.ends_with(r#","list":[1,2]}"#) || said.ends_with(r#","list":["1","2"]}"#),
        "{path}: {early}"
    );
    let v = run(
        server,
        &id,
        json!([
            {"command": "evaluate", "script": "console.log('after load', 7); return 1"},
            {"command": "click", "text": "Press me"},
            {"command": "evaluate", "script": "return document.getElementById('out').textContent"},
            {"command": "evaluate", "script": "return window.probe ? window.probe() : null"},
            {"command": "wait", "text": "pressed 1", "timeout": 5000},
            {"command": "snapshot"},
            {"command": "wait", "ms": 50},
        ]),
    )
    .await;
    for s in v["steps"].as_array().expect("steps") {
        assert!(s["error"].is_null(), "{path}: step failed: {s}");
    }
    assert_eq!(
        v["steps"][2]["result"], "pressed 1",
        "{path}: the click reached the page: {v}"
    );
    let snapshot = v["steps"][5]["result"].as_str().unwrap_or_default();
    assert!(
        snapshot.contains("button \"Press me\"") && snapshot.contains("pressed 1"),
        "{path}: the snapshot: {snapshot}"
    );
    let later = wait_for(
        &format!("{path}: the log made after load"),
        Duration::from_secs(10),
        || console_with(server, &id, "after load").into_iter().next(),
    )
    .await;
    assert_eq!(later["args"], json!(["after load", "7"]), "{path}");
    let script = "requestAnimationFrame(function () { location.href = 'about:blank'; }); return 1";
    ok(server, &id, json!({"command": "evaluate", "script": script})).await;
    (id, v["steps"][3]["result"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn libraries_that_extend_built_ins() {
    libraries_installed();
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within("libraries_that_extend_built_ins", SCENARIO_DEADLINE, async {
        for path in [
            "/hostile/mootools.html",
            "/hostile/prototype.html",
            "/hostile/sugar.html",
        ] {
            works(&browser.client, &server, path).await;
        }
        // zone.js replaced Promise and wraps listeners and timers; the page's zone still ran its tasks
        // and its then callback.
        let (_, probe) = works_probed(&browser.client, &server, "/hostile/zone.html").await;
        assert_eq!(
            (&probe["zoned"], &probe["promise"]),
            (&json!("app"), &json!("ZoneAwarePromise")),
            "{probe}"
        );
        assert!(
            probe["tasks"].as_u64() > Some(0),
            "the app's zone ran its tasks: {probe}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replaced_built_ins() {
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within("replaced_built_ins", Duration::from_secs(300), async {
        for broken in [
            "fetch",
            "fetch-rejects",
            "xhr",
            "json",
            "tojson",
            "promise",
            "textdecoder",
            "wasm",
            "array-from",
            "window",
            "timers",
            "reflect",
            "push",
            "apply",
            "listeners",
            "old-listeners",
            "then",
            "queries",
            "all",
        ] {
            let (_, probe) = works_probed(
                &browser.client,
                &server,
                &format!("/hostile/builtins.html?break={broken}"),
            )
            .await;
            // The page's wrappers were in the way of the client's own listeners and promises.
            let through = match broken {
                "listeners" | "old-listeners" => &probe["events"],
                "then" => &probe["thens"],
                "queries" => &probe["queries"],
                _ => continue,
            };
            assert!(through.as_u64() > Some(0), "{broken}: {probe}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frozen_written_headless_and_based_elsewhere() {
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within(
        "frozen_written_headless_and_based_elsewhere",
        SCENARIO_DEADLINE,
        async {
            for path in [
                "/hostile/frozen.html",
                "/hostile/docwrite.html",
                "/hostile/nohead.html",
                "/hostile/base.html",
            ] {
                works(&browser.client, &server, path).await;
            }
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_taken_over_after_load() {
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within("console_taken_over_after_load", SCENARIO_DEADLINE, async {
        for mode in ["silence", "wrap", "bind", "replace", "assign"] {
            let path = format!("/hostile/console.html?mode={mode}");
            let id = works(&browser.client, &server, &path).await;
            // The page's own handler logged through what it made of console.log: once each.
            let pressed = wait_for(&format!("{mode}: the click's log"), Duration::from_secs(10), || {
                let found = console_with(&server, &id, "pressed");
                (!found.is_empty()).then_some(found)
            })
            .await;
            assert_eq!(pressed.len(), 1, "{mode}: {pressed:?}");
            assert_eq!(pressed[0]["args"], json!(["pressed", "1"]), "{mode}");
            assert_eq!(console_with(&server, &id, "after load").len(), 1, "{mode}: logged once");
        }
    })
    .await;
}

/// A page whose CSP makes starting impossible: it is listed as `failed` with the error, the error
/// is an `error` entry of that page, and a batch is refused with the error, word for word.
async fn says_why(c: &fantoccini::Client, server: &Server, path: &str) -> String {
    let url = server.url(path);
    open(c, &url).await;
    let page = listed(server, &url, "failed").await;
    let id = page["clientId"].as_str().expect("a client id");
    let error = page["error"].as_str().expect("the page's error").to_owned();
    assert_eq!(
        server.pages()["defaultTarget"],
        Value::Null,
        "a failed page is never the default target"
    );
    let expected = format!("A page is open at {url} but its browser-agent client failed to start: {error}");
    let (status, v) = run_raw(server, json!({"steps": [{"command": "snapshot"}]})).await;
    assert_eq!((status, v["message"].as_str()), (503, Some(expected.as_str())), "{v}");
    let (status, v) = run_raw(server, json!({"client": id, "steps": [{"command": "snapshot"}]})).await;
    assert_eq!((status, v["message"].as_str()), (503, Some(expected.as_str())), "{v}");
    let logs = server.logs_of(id);
    let entry = logs
        .iter()
        .find(|e| e["type"] == "error" && e["source"] == "browser-agent")
        .unwrap_or_else(|| panic!("{path}: no error entry in {logs:?}"));
    assert_eq!(
        entry["message"],
        format!("browser-agent client failed to start: {error}")
    );
    assert!(entry["stack"].as_str().is_some(), "{entry}");
    error
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_that_forbid_the_client_say_why() {
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within("pages_that_forbid_the_client_say_why", SCENARIO_DEADLINE, async {
        let c = &browser.client;
        let no_wasm = says_why(c, &server, "/hostile/csp-no-wasm.html").await;
        assert_eq!(
            no_wasm,
            "CompileError: WebAssembly.instantiateStreaming(): Compiling or instantiating WebAssembly module violates the following Content Security policy directive because 'unsafe-eval' is not an allowed source of script in the following Content Security Policy directive: \"script-src 'self' 'unsafe-inline'\"."
        );
        // Connections refused: the heartbeat goes through an <img>, so the page is still listed.
        let no_connect = says_why(c, &server, "/hostile/csp-no-connect.html").await;
        assert_eq!(
            no_connect,
            "TypeError: Failed to fetch (the page's Content-Security-Policy refused connect-src)"
        );
        // A page that works, opened next to them, is the target again.
        let url = server.url("/hostile/base.html");
        open(c, &url).await;
        let id = listed(&server, &url, "ready").await["clientId"].clone();
        assert_eq!(server.pages()["defaultTarget"], id);
        let (status, v) = run_raw(&server, json!({"steps": [{"command": "snapshot"}]})).await;
        assert_eq!(status, 200, "{v}");
    })
    .await;
}

/// A page whose CSP forbids `eval` but carries a script nonce (`/fixtures/nonce-wasm`): the client
/// starts under the nonce, and `evaluate` runs the agent's script through a `<script>` with that
/// nonce: an expression, a body with `return`, an awaited value, a throw and a syntax error, each
/// answered as on any page, and none logged as the page's error. Inside the script, `new Function`
/// is still refused: the CSP held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluate_on_a_page_that_forbids_eval() {
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within("evaluate_on_a_page_that_forbids_eval", SCENARIO_DEADLINE, async {
        let url = server.url("/fixtures/nonce-wasm");
        open(&browser.client, &url).await;
        let id = listed(&server, &url, "ready").await["clientId"]
            .as_str()
            .expect("a client id")
            .to_owned();
        let v = run(
            &server,
            &id,
            json!([
                {"command": "evaluate", "script": "document.title + ' ' + (1 + 2)"},
                {"command": "evaluate", "script": "const p = document.querySelector('p'); return p.textContent"},
                {"command": "evaluate", "script": "await new Promise((r) => setTimeout(r, 10)); return {n: [1, 2]}"},
                {"command": "evaluate", "script": "try { new Function('1'); return 'eval ran' } catch (e) { return e.name }"},
            ]),
        )
        .await;
        let results: Vec<&Value> = v["steps"].as_array().expect("steps").iter().map(|s| &s["result"]).collect();
        assert_eq!(
            results,
            [&json!("fixture 3"), &json!("fixture body"), &json!({"n": [1, 2]}), &json!("EvalError")],
            "{v}"
        );
        // A statement that is no expression (the expression form does not parse: tried, kept
        // from the page's error listeners, then the body form), and a script that is neither.
        for (script, expected) in [
            ("throw new RangeError('nope')", "evaluate failed: RangeError: nope"),
            ("1 +", "evaluate failed: SyntaxError: Unexpected token '}'"),
        ] {
            let (status, v) = run_raw(
                &server,
                json!({"client": id, "steps": [{"command": "evaluate", "script": script}]}),
            )
            .await;
            let error = v["steps"][0]["error"].as_str().unwrap_or_default();
            assert!(status == 200 && error.starts_with(expected), "{script}: {v}");
        }
        let errors: Vec<Value> = server.logs_of(&id).into_iter().filter(|e| e["type"] == "error").collect();
        assert!(errors.is_empty(), "the forms that did not parse were logged: {errors:?}");
    })
    .await;
}
