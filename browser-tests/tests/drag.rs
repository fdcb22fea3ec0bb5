//! The `drag` step in real headless Chromium, on pages built with the drag-and-drop libraries
//! agents meet, installed from npm at pinned versions (`browser-tests/drag-npm/`, its
//! `package-lock.json`; `npm ci` into `target/drag-npm` when the lock there differs, linked into
//! the fixtures as the git-ignored `fixtures/drag/npm`):
//!
//! - HTML5 drag and drop (`fixtures/drag/native.html`, a kanban board of ours): the drop handler
//!   reads the card's id from the `DataTransfer`; a column that cancels no dragover gets no drop;
//!   a box moved with pointer events is dragged by `dx`/`dy`; a bad destination is a 400 naming
//!   the field; the step runs the same over MCP and the Rust API (stdio parses into the same
//!   batch as `/run`);
//! - SortableJS (its default HTML5 mode, within and between lists, and `forceFallback`);
//! - jQuery UI sortable, draggable and droppable;
//! - dnd-kit (`@dnd-kit/core` + `@dnd-kit/sortable` on React 18), @hello-pangea/dnd and Radix's
//!   slider (`@radix-ui/react-slider`, which moves only while it holds the pointer's capture):
//!   apps in `fixtures/drag/*/app.jsx`, bundled by the set-up with the pinned esbuild;
//! - what an agent met (`fixtures/drag/saving.html`): an HTML5 board whose drop saves (the test
//!   app's `/api/slow`), re-fetches and redraws it all, and lists sorted by their handle only.
//!
//! Each asserts the library's own outcome (its end event, the page's order), not only ours. Each
//! library's scenario writes its row of docs/drag.md to `target/drag/<page>.md`: the version, and
//! the round trip of its first drag (`POST /run` to the answer), measured, never asserted.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use browser_agent_core::Batch;
use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, eval, eval_until, mcp_tool, ok, open, run_raw, run_timed, Server};
use serde_json::{json, Value};

/// Installs the pinned libraries (once per test binary) and bundles the React apps.
fn installed() -> &'static Path {
    static MODULES: OnceLock<PathBuf> = OnceLock::new();
    MODULES.get_or_init(|| {
        let modules = browser_tests::npm_fixtures("drag");
        for app in ["dndkit", "pangea", "radix"] {
            bundle(&modules, app);
        }
        modules
    })
}

/// Bundles `fixtures/drag/{app}/app.jsx` with the pinned esbuild into
/// `npm/browser-agent-compiled/{app}.js`, one classic script.
fn bundle(modules: &Path, app: &str) {
    let src = browser_tests::fixtures_dir().join(format!("drag/{app}/app.jsx"));
    let out = modules.join("browser-agent-compiled");
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let script = r#"
        const [src, out] = process.argv.slice(1);
        require('esbuild').buildSync({
            entryPoints: [src], outfile: out, bundle: true, format: 'iife', minify: true,
            jsx: 'automatic', logLevel: 'warning', nodePaths: [require('path').resolve('node_modules')],
            define: { 'process.env.NODE_ENV': '"production"' },
        });
    "#;
    let status = Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(&src)
        .arg(out.join(format!("{app}.js")))
        .current_dir(modules.parent().expect("node_modules has a parent"))
        .status()
        .unwrap_or_else(|e| panic!("run node (the drag tests bundle their apps with esbuild): {e}"));
    assert!(status.success(), "bundling {} failed: {status}", src.display());
}

/// The installed version of an npm package.
fn version(package: &str) -> String {
    let manifest = installed().join(package).join("package.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&manifest).expect("package.json")).expect("JSON");
    v["version"].as_str().unwrap_or("?").to_owned()
}

/// Runs one drag step that must succeed; its result text and the round trip.
async fn drag(server: &Server, id: &str, step: Value) -> (String, Duration) {
    let (v, took) = run_timed(server, Some(id), json!([step])).await;
    let s = &v["steps"][0];
    assert!(s["error"].is_null(), "{step} failed: {}\nanswer: {v}", s["error"]);
    let text = s["result"].as_str().unwrap_or_default().to_owned();
    println!("{step}\n  → {text} ({} ms)", took.as_millis());
    (text, took)
}

/// Writes the library's row of docs/drag.md to `target/drag/{page}.md` (and prints it).
fn row(page: &str, library: &str, version: &str, what: &str, took: Duration) {
    let text = format!("| {library} | {version} | {what} | pass | {} ms |\n", took.as_millis());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/drag");
    std::fs::create_dir_all(&dir).expect("target/drag");
    std::fs::write(dir.join(format!("{page}.md")), &text).expect("write the row");
    print!("ROW {text}");
}

/// The page's value of `expr` as JSON text (for compact assertions).
async fn json_of(server: &Server, id: &str, expr: &str) -> Value {
    eval(server, id, &format!("return {expr}")).await
}

chromium_test!(html5_kanban, Axum, |c, server| {
    let id = open(c, &server, "/drag/native.html").await;
    // Into an empty column: the drop handler reads the id it set in dragstart.
    let (text, took) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Write docs", "to": {"role": "list", "name": "Doing"}}),
    )
    .await;
    assert!(text.contains("HTML5 drag and drop: dropped"), "{text}");
    assert!(text.contains("ul#doing: (empty) → Write docs"), "{text}");
    assert!(
        text.contains("ul#todo: Write docs, Fix bug, Review → Fix bug, Review"),
        "{text}"
    );
    let log = json_of(&server, &id, "document.getElementById('log').textContent").await;
    assert_eq!(log, "dropped c1 into doing (move)");
    let events = json_of(&server, &id, "window.events").await;
    let events: Vec<&str> = events.as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(events.first(), Some(&"dragstart c1"), "{events:?}");
    assert!(events.contains(&"dragenter doing"), "{events:?}");
    assert_eq!(events.last(), Some(&"dragend c1 move"), "{events:?}");
    row(
        "native",
        "HTML5 drag and drop (our kanban)",
        "Chromium",
        "card to an empty column",
        took,
    );

    // Onto a card of another column: dropped before it.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Review", "to": {"text": "Ship"}}),
    )
    .await;
    assert!(text.contains("ul#done: Ship → Review, Ship"), "{text}");

    // A column that cancels no dragover: no drop, dragend says none, the card stays.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Fix bug", "to": {"role": "list", "name": "Archive"}}),
    )
    .await;
    assert!(text.contains("nothing there accepted the drop"), "{text}");
    let events = json_of(&server, &id, "window.events.slice(-1)[0]").await;
    assert_eq!(events, "dragend c2 none");
    let todo = json_of(
        &server,
        &id,
        "[...document.querySelectorAll('#todo li')].map(e => e.id)",
    )
    .await;
    assert_eq!(todo, json!(["c2"]));

    // By an offset: a box that follows pointer events.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "selector": "#box", "dx": 120, "dy": -30}),
    )
    .await;
    assert!(text.contains("it moved 120, -30 px"), "{text}");
    let log = json_of(&server, &id, "document.getElementById('log').textContent").await;
    assert_eq!(log, "box at 160,290");

    // Refused before anything runs, naming the field.
    for (step, says) in [
        (
            json!({"command": "drag", "text": "Fix bug"}),
            "drag needs a destination: \"to\"",
        ),
        (
            json!({"command": "drag", "text": "Fix bug", "to": "e3", "dy": 10}),
            "\"to\" and \"dx\"/\"dy\" both say where to drop",
        ),
        (
            json!({"command": "drag", "text": "Fix bug", "to": "Done"}),
            "invalid to \"Done\"",
        ),
        (
            json!({"command": "drag", "text": "Fix bug", "dx": "9"}),
            "invalid dx \"9\"",
        ),
    ] {
        let (status, v) = run_raw(
            &server,
            json!({"client": id, "steps": [{"command": "click", "selector": "#box"}, step]}),
        )
        .await;
        assert_eq!(status, 400, "{v}");
        let e = v["error"].as_str().unwrap_or_default();
        assert!(e.contains("step 2 (nothing ran)") && e.contains(says), "{e}");
    }
    let box_left = json_of(&server, &id, "document.getElementById('box').offsetLeft").await;
    assert_eq!(box_left, 160, "nothing ran");

    // MCP: the same step through browser_run.
    let res = mcp_tool(
        &server,
        "browser_run",
        json!({"client": id, "steps": [{"command": "drag", "text": "Write docs", "to": {"role": "list", "name": "To do"}}]}),
    );
    let text = res["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    assert_ne!(res["isError"], json!(true), "{res}");
    assert!(text.contains("HTML5 drag and drop: dropped"), "{text}");
    let log = json_of(&server, &id, "document.getElementById('log').textContent").await;
    assert_eq!(log, "dropped c1 into todo (move)");

    // The Rust API: a Batch of the same step.
    let result = server
        .agent
        .run(
            Batch::new(vec![
                json!({"command": "drag", "text": "Fix bug", "to": {"role": "list", "name": "Doing"}}),
            ])
            .client(&id),
        )
        .await
        .expect("the Rust API runs a drag");
    let text = result.steps[0].result_str().unwrap_or_default().to_owned();
    assert!(text.contains("ul#doing: (empty) → Fix bug"), "{text}");
    let log = json_of(&server, &id, "document.getElementById('log').textContent").await;
    assert_eq!(log, "dropped c2 into doing (move)");
});

chromium_test!(sortablejs, Axum, |c, server| {
    installed();
    let id = open(c, &server, "/drag/sortable.html").await;
    eval_until(&server, &id, "return typeof Sortable", "SortableJS to load", |v| {
        v == "function"
    })
    .await;
    // Its default on Chromium: HTML5 drag and drop (it makes the item draggable on pointerdown).
    let (text, took) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Alpha", "to": {"text": "Gamma"}}),
    )
    .await;
    assert!(text.contains("HTML5 drag and drop: dropped"), "{text}");
    assert!(
        text.contains("ul#a: Alpha, Beta, Gamma, Delta → Beta, Gamma, Alpha, Delta"),
        "{text}"
    );
    let ends = json_of(&server, &id, "window.ends").await;
    assert_eq!(ends, json!([{"from": "a", "to": "a", "oldIndex": 0, "newIndex": 2}]));
    row(
        "sortable",
        "SortableJS (default: HTML5)",
        &version("sortablejs"),
        "item within a list",
        took,
    );

    // Into the other list of its group.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Epsilon", "to": {"text": "Beta"}}),
    )
    .await;
    let ends = json_of(&server, &id, "window.ends[1]").await;
    assert_eq!(
        (&ends["from"], &ends["to"]),
        (&json!("b"), &json!("a")),
        "{ends} {text}"
    );
    assert!(text.contains("ul#b: Epsilon, Zeta → Zeta"), "{text}");
    let a = json_of(
        &server,
        &id,
        "[...document.querySelectorAll('#a li')].map(e => e.textContent)",
    )
    .await;
    assert!(a.as_array().unwrap().contains(&json!("Epsilon")), "{a}");

    // forceFallback: pointer events and a ghost, checked every 50 ms.
    let (text, took) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "One", "to": {"text": "Three"}}),
    )
    .await;
    assert!(!text.contains("HTML5"), "{text}");
    assert!(
        text.contains("ul#f: One, Two, Three, Four → Two, Three, One, Four"),
        "{text}"
    );
    let ends = json_of(&server, &id, "window.ends[2]").await;
    assert_eq!(ends, json!({"from": "f", "to": "f", "oldIndex": 0, "newIndex": 2}));
    row(
        "sortable-fallback",
        "SortableJS (forceFallback: pointer)",
        &version("sortablejs"),
        "item within a list",
        took,
    );
});

chromium_test!(jquery_ui, Axum, |c, server| {
    installed();
    let id = open(c, &server, "/drag/jqueryui.html").await;
    eval_until(
        &server,
        &id,
        "return !!(window.jQuery && jQuery.ui)",
        "jQuery UI to load",
        |v| v == &json!(true),
    )
    .await;
    let (text, took) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "First", "to": {"text": "Third"}}),
    )
    .await;
    let updates = json_of(&server, &id, "window.updates").await;
    assert_eq!(updates, json!(["Second,Third,First,Fourth"]), "{text}");
    assert!(
        text.contains("ul#list: First, Second, Third, Fourth → Second, Third, First, Fourth"),
        "{text}"
    );
    row(
        "jqueryui-sortable",
        "jQuery UI sortable",
        &version("jquery-ui"),
        "item within a list",
        took,
    );
    // Up the list: released above the centre line, which jQuery UI needs when moving up.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Fourth", "to": {"text": "Second"}}),
    )
    .await;
    let updates = json_of(&server, &id, "window.updates[1]").await;
    assert_eq!(updates, json!("Fourth,Second,Third,First"), "{text}");

    let (text, took) = drag(
        &server,
        &id,
        json!({"command": "drag", "selector": "#box", "dx": 100, "dy": 50}),
    )
    .await;
    assert!(text.contains("it moved 100, 50 px"), "{text}");
    let pos = json_of(&server, &id, "[$('#box').position().left, $('#box').position().top]").await;
    assert_eq!(pos, json!([400, 90]));
    row(
        "jqueryui-draggable",
        "jQuery UI draggable",
        &version("jquery-ui"),
        "box by dx/dy",
        took,
    );

    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "selector": "#box", "to": {"selector": "#bin"}}),
    )
    .await;
    let log = json_of(&server, &id, "document.getElementById('log').textContent").await;
    assert_eq!(log, "dropped box", "{text}");
});

chromium_test!(dnd_kit, Axum, |c, server| {
    installed();
    let id = open(c, &server, "/drag/dndkit.html").await;
    eval_until(
        &server,
        &id,
        "return document.querySelectorAll('#fruits li').length",
        "the app to render",
        |v| v == 5,
    )
    .await;
    let (text, took) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Apple", "to": {"text": "Cherry"}}),
    )
    .await;
    let ends = json_of(&server, &id, "window.ends").await;
    assert_eq!(ends, json!([{"active": "Apple", "over": "Cherry"}]), "{text}");
    assert!(
        text.contains("ul#fruits: Apple, Banana, Cherry, Damson, Elder → Banana, Cherry, Apple, Damson, Elder"),
        "{text}"
    );
    row(
        "dndkit",
        "dnd-kit (@dnd-kit/core + sortable, React 18)",
        &version("@dnd-kit/core"),
        "item within a list",
        took,
    );
    // Up the list.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Elder", "to": {"text": "Banana"}}),
    )
    .await;
    assert!(text.contains("→ Elder, Banana, Cherry, Apple, Damson"), "{text}");
});

chromium_test!(hello_pangea_dnd, Axum, |c, server| {
    installed();
    let id = open(c, &server, "/drag/pangea.html").await;
    eval_until(
        &server,
        &id,
        "return document.querySelectorAll('#todo li').length",
        "the app to render",
        |v| v == 3,
    )
    .await;
    let (text, took) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Plan", "to": {"text": "Test"}}),
    )
    .await;
    let end = json_of(&server, &id, "window.ends && window.ends[0] && [window.ends[0].source.index, window.ends[0].destination && window.ends[0].destination.index]").await;
    assert_eq!(end, json!([0, 2]), "{text}");
    assert!(
        text.contains("ul#todo: Plan, Build, Test → Build, Test, Plan"),
        "{text}"
    );
    row(
        "pangea",
        "@hello-pangea/dnd (React 18)",
        &version("@hello-pangea/dnd"),
        "item within a list",
        took,
    );
    // Into the other list.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Build", "to": {"selector": "#done"}}),
    )
    .await;
    let lists = json_of(&server, &id, "window.lists").await;
    assert!(
        lists["done"].as_array().unwrap().contains(&json!("Build")),
        "{lists} {text}"
    );
    assert!(
        !lists["todo"].as_array().unwrap().contains(&json!("Build")),
        "{lists} {text}"
    );
});

chromium_test!(radix_slider_follows_the_pointer_it_captured, Axum, |c, server| {
    installed();
    let id = open(c, &server, "/drag/radix.html").await;
    eval_until(
        &server,
        &id,
        "return document.querySelectorAll('[role=slider]').length",
        "the app to render",
        |v| v == 3,
    )
    .await;
    // Radix captures the pointer on pointerdown and slides only on moves the capturing element
    // receives: the moves must go where the capture is, as the browser sends them.
    let (text, took) = drag(
        &server,
        &id,
        json!({"command": "drag", "role": "slider", "name": "Volume", "dx": 150, "dy": 0}),
    )
    .await;
    let volume = json_of(&server, &id, "window.values.volume[0]").await;
    let v = volume.as_i64().unwrap_or(-1);
    assert!(
        (60..=80).contains(&v),
        "volume {volume} after a 150 px drag of 300: {text}"
    );
    let commits = json_of(&server, &id, "window.commits").await;
    assert_eq!(commits, json!([format!("volume {v}")]), "{text}");
    row(
        "radix",
        "@radix-ui/react-slider (React 18)",
        &version("@radix-ui/react-slider"),
        "a slider's thumb by an offset",
        took,
    );
    // The same by hand: press the thumb (a `down` step), move the held pointer onto a point of the
    // slider 90 % along (`hover`), release (`up`): the moves and the release go to the capture.
    let (answer, _) = run_timed(
        &server,
        Some(&id),
        json!([
            {"command": "down", "role": "slider", "name": "Volume"},
            {"command": "hover", "selector": "#Volume-slider", "x": 270, "y": 12},
            {"command": "up"}
        ]),
    )
    .await;
    assert!(
        answer["steps"]
            .as_array()
            .is_some_and(|s| s.iter().all(|s| s["error"].is_null())),
        "{answer}"
    );
    let volume = json_of(&server, &id, "window.values.volume[0]").await;
    let held = volume.as_i64().unwrap_or(-1);
    assert!(
        (85..=95).contains(&held),
        "volume {volume} after down, hover at 90 %, up: {answer}"
    );
    let commits = json_of(&server, &id, "window.commits").await;
    assert_eq!(commits, json!([format!("volume {v}"), format!("volume {held}")]));
    let restored = json_of(
        &server,
        &id,
        "['setPointerCapture', 'hasPointerCapture', 'releasePointerCapture'].every((m, i) => Element.prototype[m] === window.native[i])",
    )
    .await;
    assert_eq!(restored, json!(true));

    // The upper thumb of a range, 90 px to the left: the range narrows, the lower thumb stays.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "role": "slider", "name": "Price to", "dx": -90, "dy": 0}),
    )
    .await;
    let price = json_of(&server, &id, "window.values.price").await;
    let p = price[1].as_i64().unwrap_or(-1);
    assert!(price[0] == json!(10) && (20..=40).contains(&p), "price {price}: {text}");
    assert!(text.contains(&format!("its value 60 → {p}")), "{text}");
});

chromium_test!(fill_sets_an_aria_slider_with_its_keys, Axum, |c, server| {
    installed();
    let id = open(c, &server, "/drag/radix.html").await;
    eval_until(
        &server,
        &id,
        "return document.querySelectorAll('[role=slider]').length",
        "the app to render",
        |v| v == 3,
    )
    .await;
    // Radix's thumb is a <span role=slider>: `fill` presses its arrow keys, as a person would.
    let v = ok(
        &server,
        &id,
        json!({"command": "fill", "role": "slider", "name": "Volume", "text": "45"}),
    )
    .await;
    assert_eq!(v["result"], "filled \"45\"", "{v}");
    assert_eq!(json_of(&server, &id, "window.values.volume[0]").await, json!(45));
    let v = ok(
        &server,
        &id,
        json!({"command": "fill", "role": "slider", "name": "Price to", "text": "25"}),
    )
    .await;
    assert_eq!(v["result"], "filled \"25\"", "{v}");
    assert_eq!(json_of(&server, &id, "window.values.price").await, json!([10, 25]));
    // Out of its range, or no number: a clear refusal, nothing pressed.
    let (_, v) = run_raw(
        &server,
        json!({"client": id, "steps": [{"command": "fill", "role": "slider", "name": "Volume", "text": "150"}]}),
    )
    .await;
    let e = v["steps"][0]["error"].as_str().unwrap_or_default();
    assert!(e.ends_with("takes 0 to 100, not 150"), "{v}");
    assert_eq!(json_of(&server, &id, "window.values.volume[0]").await, json!(45));
});

chromium_test!(saves_then_redraws, Axum, |c, server| {
    let id = open(c, &server, "/drag/saving.html").await;
    eval_until(
        &server,
        &id,
        "return document.querySelectorAll('#board .card').length",
        "the board to load",
        |v| v == 4,
    )
    .await;
    // The drop saves (800 ms), re-fetches, then redraws the whole board: the answer waits for
    // those requests and tells where the card is now.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Fix login bug", "to": {"text": "Done"}}),
    )
    .await;
    assert!(text.contains("HTML5 drag and drop: dropped"), "{text}");
    assert!(!text.contains("did not move"), "{text}");
    assert!(
        text.contains("div.list under \"To do\": Fix login bug, Add tests → Add tests"),
        "{text}"
    );
    assert!(
        text.contains("div.list under \"Done\": Ship it → Fix login bug, Ship it"),
        "{text}"
    );
    let log = json_of(&server, &id, "document.getElementById('log').textContent").await;
    assert_eq!(log, "saved card 1 in done");
    // Onto its own column: saved and redrawn in place; the answer says where it is now.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Add tests", "to": {"text": "To do"}}),
    )
    .await;
    assert!(
        text.ends_with(
            "the page replaced the dragged element: \"Add tests\" is now in div.list under \"To do\": Add tests"
        ),
        "{text}"
    );
    let log = json_of(&server, &id, "document.getElementById('log').textContent").await;
    assert_eq!(log, "saved card 2 in todo");

    // Pressed on its text, the item would not move: the step presses its handle, says so, and
    // waits for the save and the redraw.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "3. Security", "to": {"text": "1. Performance"}}),
    )
    .await;
    assert!(
        text.starts_with("dragged listitem \"3. Security\" by its handle span.handle to"),
        "{text}"
    );
    assert!(
        text.contains(
            "ul#priorities: 1. Performance, 2. Reliability, 3. Security → 3. Security, 1. Performance, 2. Reliability"
        ),
        "{text}"
    );
    let log = json_of(&server, &id, "document.getElementById('log').textContent").await;
    assert_eq!(log, "saved priorities: 3. Security, 1. Performance, 2. Reliability");

    // Items that draw a grab cursor but drag only by their handle: nothing moves, and the
    // answer names the handle to try.
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "text": "Docs", "to": {"text": "Design"}}),
    )
    .await;
    let handle = "#backlog > li:nth-child(3) > span.handle";
    assert!(
        text.ends_with(&format!(
            "no list order changed and it did not move; its item holds span.handle, which looks like a drag handle: drag by that ({{\"selector\":\"{handle}\"}})"
        )),
        "{text}"
    );
    let (text, _) = drag(
        &server,
        &id,
        json!({"command": "drag", "selector": handle, "to": {"text": "Design"}}),
    )
    .await;
    assert!(
        text.contains("ul#backlog: Design, Build, Docs → Docs, Design, Build"),
        "{text}"
    );
});
