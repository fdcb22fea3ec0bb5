//! Real third-party pages, not written here, in real headless Chromium, driven through the agent
//! API the way an agent drives them: a snapshot first, then acting by ref.
//!
//! The packages are installed from npm at pinned versions (`browser-tests/third-party-npm/`, its
//! `package-lock.json`; `npm ci` into `target/third-party-npm` when the lock there differs, linked
//! into the fixtures as the git-ignored `fixtures/third_party/npm`), and served by a test app of
//! this file: the agent's layer over the fixtures, the package files (their HTML pages made
//! offline: every absolute `http(s)://` reference becomes a local path that answers 404, so
//! nothing leaves the machine; Chromium resolves no other host either), a small JSON API that
//! records what reached it, and a record of every request to `/third_party/htmx/`.
//!
//! - swagger-ui-dist: its own `index.html` and bundle, its own `swagger-initializer.js` with the
//!   spec URL replaced (as its Docker configurator does) by `fixtures/third_party/swagger/openapi.json`;
//!   the agent expands the operation, clicks "Try it out", types the path parameter, selects an
//!   enum query parameter, checks "Send empty value", clicks Execute: the request reaches the test
//!   server and its answer is in swagger's own state and on the page; typing a spec URL in the top
//!   bar and Enter makes swagger load it.
//! - reveal.js: its own `demo.html` (all plugins); `press ArrowRight` and a click on its "next
//!   slide" control move the deck, its search plugin (Control+Shift+F, type + Enter) jumps to the
//!   matching slide, read back with `Reveal.getIndices()`.
//! - jsoneditor: its own `examples/07_json_schema_validation.html`; the agent types into a value
//!   of the tree, presses Enter on an expand button, selects an enum value, unchecks a boolean and
//!   clicks "Collapse all", and the editor's own `get()` sees each; in its code mode (Ace, a hidden
//!   textarea) `press Control+a` + `type` leaves the text Chromium's own typing (CDP) leaves.
//! - alpinejs: a page of ours in Alpine's idioms (`x-model` on a text field, a checkbox and a
//!   select, `@keyup.enter`, `@click`, `x-for`); read back with `Alpine.$data`.
//! - htmx.org 2.0.11 and 4.0.1 (`htmx4`): one page of ours with `hx-get`, `hx-post` (a form Enter submits), `hx-trigger`
//!   (`keyup[key=='Enter']`, `change` on a checkbox and a select); the test server answers static
//!   fragments and records what it got; the swapped content is read from the DOM. The fragments
//!   get no agent tag (htmx sends `HX-Request`).
//!
//! For each page: the client reaches phase `ready`, a console message and an error thrown from
//! the page (the library's own where it has one the agent can provoke) reach `GET /console`, and
//! every resource the page loaded came from the test server.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::Path as UrlPath;
use axum::http::{Method, Uri};
use axum::routing::get;
use axum::Router;
use browser_agent_testkit::{axum_app, file_or_404, Reply};
use browser_agent_tower::BrowserAgentLayer;
use browser_tests::{
    agent, any_port, eval, eval_until, fixtures_dir, ok, open, shared_browser, snapshot, wait_for, within, Server,
    SCENARIO_DEADLINE,
};
use serde_json::{json, Value};

/// Installs the pinned packages (once per test binary); their `node_modules`.
fn installed() -> &'static Path {
    static MODULES: OnceLock<PathBuf> = OnceLock::new();
    MODULES.get_or_init(|| browser_tests::npm_fixtures_at("third-party", "third_party"))
}

/// What reached the test server's recorded routes: `METHOD /path?query body`, in order.
type Seen = Arc<Mutex<Vec<String>>>;

/// Where swagger-ui-dist's own initializer points (the public pet store), and where it points here.
const SWAGGER_SPEC: (&str, &str) = (
    "https://petstore.swagger.io/v2/swagger.json",
    "/third_party/swagger/openapi.json",
);

/// The test app of this file (see the module doc) on a free port, and its record of requests.
fn start() -> (Server, Seen) {
    let modules = installed().to_owned();
    let agent = agent();
    let seen: Seen = Arc::default();
    let (pets, fragments) = (seen.clone(), seen.clone());
    let dir = fixtures_dir();
    let app = Router::new()
        .route(
            "/api/pets/{id}",
            get(move |UrlPath(id): UrlPath<String>, uri: Uri| async move {
                pets.lock().unwrap().push(format!("GET {uri}"));
                let query = uri.query().unwrap_or("").to_owned();
                let pet = json!({"id": id, "name": format!("pet {id} of the test server"), "query": query});
                axum_app::reply(Reply::new(200, "application/json", pet.to_string()))
            }),
        )
        .route(
            "/third_party/npm/{*path}",
            get(move |UrlPath(path): UrlPath<String>| async move { axum_app::reply(package_file(&modules, &path)) }),
        )
        .fallback(move |method: Method, uri: Uri, body: Bytes| async move {
            if uri.path().starts_with("/third_party/htmx/") {
                let body = String::from_utf8_lossy(&body);
                fragments
                    .lock()
                    .unwrap()
                    .push(format!("{method} {uri} {body}").trim_end().to_owned());
            }
            axum_app::reply(file_or_404(Some(&dir), uri.path()))
        })
        .layer(BrowserAgentLayer::with_agent(agent.clone()));
    let running = axum_app::serve(app, any_port()).expect("serve the third-party test app");
    (Server::from_running(agent, running), seen)
}

/// A file of the installed packages: HTML made offline, swagger's initializer pointed at the local
/// spec, everything else as it is.
fn package_file(modules: &Path, path: &str) -> Reply {
    let reply = file_or_404(Some(modules), &format!("/{path}"));
    if reply.status != 200 {
        return reply;
    }
    let text = || String::from_utf8(reply.body()).expect("a UTF-8 text file");
    let body = if path.ends_with(".html") {
        offline(&text())
    } else if path == "swagger-ui-dist/swagger-initializer.js" {
        let js = text();
        assert!(
            js.contains(SWAGGER_SPEC.0),
            "swagger's initializer no longer names {}",
            SWAGGER_SPEC.0
        );
        js.replace(SWAGGER_SPEC.0, SWAGGER_SPEC.1)
    } else {
        return reply;
    };
    Reply {
        chunks: vec![body.into()],
        ..reply
    }
}

/// A page's absolute `http(s)://` references (quoted attribute values) as local paths that answer
/// 404: its images, backgrounds and frames load nothing from elsewhere, its links go nowhere.
fn offline(html: &str) -> String {
    let mut out = html.to_owned();
    for q in ['"', '\''] {
        for scheme in ["https", "http"] {
            out = out.replace(
                &format!("{q}{scheme}://"),
                &format!("{q}/third_party/offline/{scheme}/"),
            );
        }
    }
    out
}

/// Waits for the page's client to be listed and checks it reached phase `ready`.
async fn open_ready(c: &fantoccini::Client, s: &Server, path: &str) -> String {
    let id = open(c, s, path).await;
    let phase = wait_for(&format!("{path}: phase ready"), Duration::from_secs(15), || {
        let v = s.console(&format!("client={id}&limit=1"));
        (v["clientPhase"] == "ready").then_some(v["clientPhase"].clone())
    })
    .await;
    assert_eq!(phase, "ready");
    id
}

/// The ref of the node a fresh snapshot shows `needles[0]` on: on the first line that has every
/// one of `needles`, the first ref after `needles[0]`, else the last before it (a row's cells
/// share a line: `cell: textbox [ref=e21]: "John"`).
async fn ref_with(s: &Server, id: &str, needles: &[&str]) -> String {
    let snap = snapshot(s, id).await;
    let line = snap
        .lines()
        .find(|l| needles.iter().all(|n| l.contains(n)) && l.contains("[ref="))
        .unwrap_or_else(|| panic!("no ref'd line with {needles:?} in\n{snap}"));
    let at = line.find(needles[0]).expect("the needle");
    let start = match line[at..].find("[ref=") {
        Some(i) => at + i,
        None => line[..at].rfind("[ref=").expect("a ref"),
    } + 5;
    line[start..].split(']').next().expect("a ref").to_owned()
}

/// Runs one step on a ref; it must succeed.
async fn on_ref(s: &Server, id: &str, command: &str, r: &str, extra: Value) {
    let mut step = json!({"command": command, "ref": r});
    if let (Some(step), Some(extra)) = (step.as_object_mut(), extra.as_object()) {
        step.extend(extra.clone());
    }
    ok(s, id, step).await;
}

/// Waits until the page's logs hold a console entry whose text contains `log` and an error entry
/// whose message contains `error`; prints both.
async fn logged(s: &Server, id: &str, log: &str, error: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let logs = s.logs_of(id);
        let l = logs
            .iter()
            .find(|e| e["type"] == "console" && e["text"].as_str().is_some_and(|t| t.contains(log)));
        let e = logs
            .iter()
            .find(|e| e["type"] == "error" && e["message"].as_str().is_some_and(|m| m.contains(error)));
        if let (Some(l), Some(e)) = (l, e) {
            println!("console: {}\nerror: {}", l["text"], e["message"]);
            return;
        }
        assert!(
            Instant::now() < deadline,
            "no console entry with {log:?} and error with {error:?} in\n{}",
            logs.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every resource the page loaded came from the test server.
async fn all_local(s: &Server, id: &str) {
    let foreign = eval(
        s,
        id,
        "performance.getEntriesByType('resource').map((e) => e.name)\
         .filter((n) => !n.startsWith(location.origin + '/') && !/^(data|blob):/.test(n))",
    )
    .await;
    assert_eq!(foreign, json!([]), "resources from elsewhere");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swagger_ui_try_it_out() {
    let (server, seen) = start();
    let browser = shared_browser().await;
    within("swagger_ui_try_it_out", SCENARIO_DEADLINE, async {
        let (c, s) = (&browser.client, &server);
        let id = open_ready(c, s, "/third_party/npm/swagger-ui-dist/index.html").await;
        let id = id.as_str();
        ok(s, id, json!({"command": "wait", "text": "Find a pet by id"})).await;
        // Expand the operation, then "Try it out".
        let op = ref_with(s, id, &["Find a pet by id"]).await;
        on_ref(s, id, "click", &op, json!({})).await;
        eval_until(s, id, "!!document.querySelector('.try-out__btn')", "the operation expands", |v| v == true).await;
        let try_out = ref_with(s, id, &["button \"Try it out"]).await;
        on_ref(s, id, "click", &try_out, json!({})).await;
        eval_until(s, id, "!!document.querySelector('.execute')", "Try it out shows Execute", |v| v == true).await;
        // Type the path parameter, select the kind, check "Send empty value" for the note.
        let pet_id = ref_with(s, id, &["textbox \"petId\""]).await;
        on_ref(s, id, "type", &pet_id, json!({"text": "42"})).await;
        let kind = ref_with(s, id, &["combobox", "--"]).await;
        on_ref(s, id, "select", &kind, json!({"option": "dog"})).await;
        let empty = ref_with(s, id, &["checkbox", "Send empty value"]).await;
        on_ref(s, id, "check", &empty, json!({})).await;
        let params = eval_until(
            s,
            id,
            "ui.specSelectors.parameterValues(['/api/pets/{petId}', 'get']).toJS()",
            "swagger's parameter values",
            |v| v["path.petId"] == "42" && v["query.kind"] == "dog",
        )
        .await;
        println!("parameters: {params}");
        let execute = ref_with(s, id, &["button \"Execute"]).await;
        on_ref(s, id, "click", &execute, json!({})).await;
        let response = eval_until(
            s,
            id,
            "(ui.specSelectors.responseFor('/api/pets/{petId}', 'get') || {toJS: () => null}).toJS()",
            "swagger's response",
            |v| v["status"] == 200,
        )
        .await;
        let body: Value = serde_json::from_str(response["text"].as_str().expect("a response text")).expect("JSON");
        assert_eq!(body["id"], "42", "{response}");
        assert_eq!(body["name"], "pet 42 of the test server");
        assert_eq!(body["query"], "kind=dog&note=", "{response}");
        assert_eq!(
            *seen.lock().unwrap(),
            ["GET /api/pets/42?kind=dog&note="],
            "what reached the test server"
        );
        // The answer is on the page.
        eval_until(
            s,
            id,
            "document.querySelector('.live-responses-table') ? document.querySelector('.live-responses-table').textContent : ''",
            "the response on the page",
            |v| v.as_str().is_some_and(|t| t.contains("pet 42 of the test server")),
        )
        .await;
        ok(
            s,
            id,
            json!({"command": "evaluate", "script":
                "console.info('swagger page says hi', ui.specSelectors.info().get('title')); \
                 setTimeout(() => { throw new Error('swagger page threw') }); return 1"}),
        )
        .await;
        logged(s, id, "swagger page says hi Pets of the browser tests", "swagger page threw").await;
        // Type + Enter in the top bar's URL field: swagger loads the spec from there.
        let explore = ref_with(s, id, &["textbox [value=\"/third_party/swagger/openapi.json\"]"]).await;
        let again = "/third_party/swagger/openapi.json?again=1";
        on_ref(s, id, "fill", &explore, json!({"text": again})).await;
        on_ref(s, id, "press", &explore, json!({"key": "Enter"})).await;
        eval_until(s, id, "ui.specSelectors.url()", "Enter loads the spec", |v| v == again).await;
        eval_until(s, id, "ui.specSelectors.loadingStatus()", "the spec loads", |v| v == "success").await;
        all_local(s, id).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reveal_demo_keys_and_controls() {
    let (server, _seen) = start();
    let browser = shared_browser().await;
    within("reveal_demo_keys_and_controls", SCENARIO_DEADLINE, async {
        let (c, s) = (&browser.client, &server);
        let id = open_ready(c, s, "/third_party/npm/reveal.js/demo.html").await;
        let id = id.as_str();
        eval_until(s, id, "Reveal.isReady()", "reveal.js starts", |v| v == true).await;
        println!("reveal.js {}", eval(s, id, "Reveal.VERSION").await);
        let h = |v: &Value| v["h"].as_i64().unwrap_or(-1);
        assert_eq!(h(&eval(s, id, "Reveal.getIndices()").await), 0);
        ok(s, id, json!({"command": "press", "key": "ArrowRight"})).await;
        eval_until(s, id, "Reveal.getIndices()", "ArrowRight moves to slide 1", |v| {
            h(v) == 1
        })
        .await;
        let next = ref_with(s, id, &["button \"next slide\""]).await;
        on_ref(s, id, "click", &next, json!({})).await;
        eval_until(s, id, "Reveal.getIndices()", "the next control moves to slide 2", |v| {
            h(v) == 2
        })
        .await;
        // The search plugin: Control+Shift+F opens its box, Enter searches and jumps.
        ok(s, id, json!({"command": "press", "key": "Control+Shift+F"})).await;
        let search = ref_with(s, id, &["searchbox \"Search...\""]).await;
        on_ref(s, id, "type", &search, json!({"text": "THE END"})).await;
        on_ref(s, id, "press", &search, json!({"key": "Enter"})).await;
        let at = eval_until(
            s,
            id,
            "({i: Reveal.getIndices(), text: Reveal.getCurrentSlide().textContent})",
            "search jumps to the slide that has the text",
            |v| v["text"].as_str().is_some_and(|t| t.contains("THE END")),
        )
        .await;
        assert!(h(&at["i"]) > 2, "{at}");
        // The library's own warning, and an error thrown in the page.
        ok(
            s,
            id,
            json!({"command": "evaluate", "script":
                "Reveal.registerPlugin(RevealZoom()); setTimeout(() => Reveal.getPlugin('zoom').nope()); return 1"}),
        )
        .await;
        logged(s, id, "plugin has already been registered", "nope is not a function").await;
        all_local(s, id).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsoneditor_tree_edits() {
    let (server, _seen) = start();
    let browser = shared_browser().await;
    within("jsoneditor_tree_edits", SCENARIO_DEADLINE, async {
        let (c, s) = (&browser.client, &server);
        let id = open_ready(
            c,
            s,
            "/third_party/npm/jsoneditor/examples/07_json_schema_validation.html",
        )
        .await;
        let id = id.as_str();
        let start = eval(s, id, "editor.get()").await;
        assert_eq!(start["firstName"], "John", "{start}");
        // Type into the firstName value (the row's last ref: its field comes first).
        let first = ref_with(s, id, &["\"John\""]).await;
        on_ref(s, id, "type", &first, json!({"text": "ny"})).await;
        eval_until(s, id, "editor.get()", "typing in the tree", |v| {
            v["firstName"] == "Johnny"
        })
        .await;
        // Enter on the expand button of "job" (jsoneditor's own Enter handling) expands it.
        let job = "editor.node.childs.find((n) => n.field === 'job').expanded";
        assert_eq!(eval(s, id, job).await, false);
        let expand = ref_with(s, id, &["button \"Click to expand/collapse", "\"job\""]).await;
        on_ref(s, id, "press", &expand, json!({"key": "Enter"})).await;
        eval_until(s, id, job, "Enter expands job", |v| v == true).await;
        // Select an enum value, uncheck a boolean.
        let gender = ref_with(s, id, &["combobox"]).await;
        on_ref(s, id, "select", &gender, json!({"option": "female"})).await;
        eval_until(s, id, "editor.get()", "selecting gender", |v| v["gender"] == "female").await;
        let hire = ref_with(s, id, &["checkbox", "checked"]).await;
        on_ref(s, id, "uncheck", &hire, json!({})).await;
        eval_until(s, id, "editor.get()", "unchecking availableToHire", |v| {
            v["availableToHire"] == false
        })
        .await;
        // Click "Collapse all".
        let collapse = ref_with(s, id, &["Collapse all"]).await;
        on_ref(s, id, "click", &collapse, json!({})).await;
        eval_until(s, id, "editor.node.expanded", "collapse all", |v| v == false).await;
        ok(
            s,
            id,
            json!({"command": "evaluate", "script":
                "new JSONEditor(document.createElement('div'), {nope: 1}); \
                 setTimeout(() => editor.setMode('nope')); return 1"}),
        )
        .await;
        logged(s, id, "Unknown option \"nope\"", "Unknown mode \"nope\"").await;
        all_local(s, id).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alpine_x_model() {
    let (server, _seen) = start();
    let browser = shared_browser().await;
    within("alpine_x_model", SCENARIO_DEADLINE, async {
        let (c, s) = (&browser.client, &server);
        let id = open_ready(c, s, "/third_party/alpine.html").await;
        let id = id.as_str();
        let m = eval_until(s, id, "window.Alpine ? model() : null", "Alpine starts", |v| {
            v["items"] == json!([])
        })
        .await;
        println!("alpine {}", m["version"]);
        let new = ref_with(s, id, &["textbox \"New todo\""]).await;
        for (text, items) in [("buy milk", json!(["buy milk"])), ("eggs", json!(["buy milk", "eggs"]))] {
            on_ref(s, id, "type", &new, json!({"text": text})).await;
            on_ref(s, id, "press", &new, json!({"key": "Enter"})).await;
            let m = eval_until(s, id, "model()", &format!("Enter adds {text:?}"), |m| {
                m["items"] == items
            })
            .await;
            assert_eq!(m["draft"], "");
        }
        let note = ref_with(s, id, &["textbox \"Note\""]).await;
        on_ref(s, id, "type", &note, json!({"text": "hello"})).await;
        eval_until(s, id, "model()", "type in Note", |m| m["note"] == "hello").await;
        // Select all, then type: the text replaces the selection.
        on_ref(s, id, "press", &note, json!({"key": "Control+a"})).await;
        on_ref(s, id, "type", &note, json!({"text": "bye"})).await;
        eval_until(s, id, "model()", "Control+a, then type in Note", |m| m["note"] == "bye").await;
        let done = ref_with(s, id, &["checkbox \"Done\""]).await;
        on_ref(s, id, "check", &done, json!({})).await;
        eval_until(s, id, "model()", "check Done", |m| m["done"] == true).await;
        let color = ref_with(s, id, &["combobox \"Color\""]).await;
        on_ref(s, id, "select", &color, json!({"option": "Green"})).await;
        eval_until(s, id, "model()", "select Color", |m| m["color"] == "green").await;
        let shown = eval(
            s,
            id,
            "Array.from(document.querySelectorAll('li'), (li) => li.textContent)",
        )
        .await;
        assert_eq!(shown, json!(["buy milk", "eggs"]));
        let clear = ref_with(s, id, &["button \"Clear all\""]).await;
        on_ref(s, id, "click", &clear, json!({})).await;
        eval_until(s, id, "model()", "click Clear all", |m| m["items"] == json!([])).await;
        // The app's own console output and the error its click handler throws.
        let brk = ref_with(s, id, &["button \"Break\""]).await;
        on_ref(s, id, "click", &brk, json!({})).await;
        logged(s, id, "added eggs", "alpine handler failed").await;
        all_local(s, id).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn htmx2_swaps_server_fragments() {
    htmx_page("", "2.0.11", "todo=buy%20milk").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn htmx4_swaps_server_fragments() {
    htmx_page("?v=4", "4.0.1", "todo=buy+milk").await;
}

/// The htmx page on the htmx of `query` (its `version`), whose form posts `posted`.
async fn htmx_page(query: &str, version: &str, posted: &str) {
    let (server, seen) = start();
    let browser = shared_browser().await;
    within(&format!("htmx {version}"), SCENARIO_DEADLINE, async {
        let (c, s) = (&browser.client, &server);
        let id = open_ready(c, s, &format!("/third_party/htmx.html{query}")).await;
        let id = id.as_str();
        let loaded = eval_until(s, id, "window.htmx && htmx.version", "htmx loads", |v| v.is_string()).await;
        assert_eq!(loaded, version);
        let text_of = |sel: &str| format!("(document.querySelector('{sel}') || {{}}).textContent || ''");
        let has = |t: &'static str| move |v: &Value| v.as_str().is_some_and(|s| s.contains(t));
        // Click: hx-get.
        let load = ref_with(s, id, &["button \"Load greeting\""]).await;
        on_ref(s, id, "click", &load, json!({})).await;
        eval_until(
            s,
            id,
            &text_of("#greeting"),
            "the greeting fragment",
            has("Hello from the server"),
        )
        .await;
        // Type + Enter in a form: its hx-post.
        let todo = ref_with(s, id, &["textbox \"New todo\""]).await;
        on_ref(s, id, "type", &todo, json!({"text": "buy milk"})).await;
        on_ref(s, id, "press", &todo, json!({"key": "Enter"})).await;
        eval_until(
            s,
            id,
            &text_of("#todos"),
            "the added fragment",
            has("added on the server"),
        )
        .await;
        // Type + Enter on hx-trigger="keyup[key=='Enter']".
        let q = ref_with(s, id, &["textbox \"Search\""]).await;
        on_ref(s, id, "type", &q, json!({"text": "eggs"})).await;
        on_ref(s, id, "press", &q, json!({"key": "Enter"})).await;
        eval_until(
            s,
            id,
            &text_of("#results"),
            "the results fragment",
            has("Results from the server"),
        )
        .await;
        // Check and select: hx-trigger="change".
        let done = ref_with(s, id, &["checkbox \"Done\""]).await;
        on_ref(s, id, "check", &done, json!({})).await;
        let color = ref_with(s, id, &["combobox \"Color\""]).await;
        on_ref(s, id, "select", &color, json!({"option": "Green"})).await;
        let seen_all = wait_for("the test server saw five requests", Duration::from_secs(10), || {
            let seen = seen.lock().unwrap().clone();
            (seen.len() >= 5).then_some(seen)
        })
        .await;
        assert_eq!(
            seen_all,
            [
                "GET /third_party/htmx/greeting.html".to_owned(),
                format!("POST /third_party/htmx/added.html {posted}"),
                "GET /third_party/htmx/results.html?q=eggs".to_owned(),
                "POST /third_party/htmx/saved.html done=yes".to_owned(),
                "POST /third_party/htmx/saved.html color=green".to_owned(),
            ],
            "what reached the test server"
        );
        eval_until(
            s,
            id,
            &text_of("#saved"),
            "the saved fragment",
            has("Saved on the server"),
        )
        .await;
        // The fragments came without the agent's tag: one client in the page.
        assert_eq!(
            eval(s, id, "document.querySelectorAll('script[data-browser-agent]').length").await,
            1
        );
        let brk = ref_with(s, id, &["button \"Break\""]).await;
        on_ref(s, id, "click", &brk, json!({})).await;
        logged(s, id, "swapped into saved", "htmx page handler failed").await;
        all_local(s, id).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsoneditor_code_mode_ace() {
    let (server, _seen) = start();
    let browser = shared_browser().await;
    within("jsoneditor_code_mode_ace", SCENARIO_DEADLINE, async {
        let (c, s) = (&browser.client, &server);
        let id = open_ready(
            c,
            s,
            "/third_party/npm/jsoneditor/examples/07_json_schema_validation.html",
        )
        .await;
        let id = id.as_str();
        // The mode menu: "Tree ▾", then "Code" (the Ace editor).
        let mode = ref_with(s, id, &["button \"Tree ▾\""]).await;
        on_ref(s, id, "click", &mode, json!({})).await;
        let code = ref_with(s, id, &["\"Code\""]).await;
        on_ref(s, id, "click", &code, json!({})).await;
        eval_until(s, id, "editor.getMode()", "the code mode", |v| v == "code").await;
        // Select all in Ace, then type: the typed text replaces the document, as a person's
        // typing does (Ace's own key binding selects; its hidden textarea holds the selection).
        // (A number: Ace's auto-closing brackets and quotes would change a JSON object.)
        let text = "12345";
        let ace = ref_with(s, id, &["textbox \"Cursor at row"]).await;
        on_ref(s, id, "press", &ace, json!({"key": "Control+a"})).await;
        on_ref(s, id, "type", &ace, json!({"text": text})).await;
        let ours = eval_until(s, id, "editor.getText()", "typing replaces the selection", |v| {
            v.as_str().is_some_and(|t| !t.contains("firstName"))
        })
        .await;
        // The same keys from Chromium itself (CDP), from the same start.
        eval(s, id, "editor.set(json); editor.aceEditor.focus(); return 1").await;
        let ctrl_a =
            |kind: &str| json!({"type": kind, "key": "a", "code": "KeyA", "windowsVirtualKeyCode": 65, "modifiers": 2});
        browser.cdp("Input.dispatchKeyEvent", ctrl_a("rawKeyDown")).await;
        browser.cdp("Input.dispatchKeyEvent", ctrl_a("keyUp")).await;
        for ch in text.chars() {
            browser.cdp("Input.insertText", json!({"text": ch.to_string()})).await;
        }
        let real = eval(s, id, "editor.getText()").await;
        assert_eq!(ours, real, "Ace's text: ours (left) against Chromium's typing (right)");
        assert_eq!(eval(s, id, "editor.get()").await, json!(12345));
    })
    .await;
}
