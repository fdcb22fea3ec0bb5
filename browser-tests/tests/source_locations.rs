//! Source locations (issue 35 item 1) in real headless Chromium: the same todo app (an `App` with
//! a field and an Add button, a `TodoItem` per item with a checkbox and a Remove button) in React
//! 18 and 19, Preact 10, Vue 3 and 2.7, Svelte 5 and 4, Angular 22 and 21 (`fixtures/source/*/src`),
//! built for development by the test set-up with each framework's own compiler from the pinned
//! packages of `browser-tests/source-npm/` (`build.mjs` there: esbuild with `jsxDev` and a source
//! map, the Vue versions' `compiler-sfc`, the Svelte versions' compilers with `dev`, the Angular
//! versions' AOT compilers). For each:
//! - a snapshot with `source: true` ends with the legend, where Add's ref is at `App
//!   src/<App>.<ext>:<line>` and both Remove buttons' refs at `TodoItem src/<TodoItem>.<ext>:<line>`,
//!   the lines read from the source files (the line of the element's tag; Vue keeps the file only;
//!   Angular the line of the component's class);
//! - a click with `source: true` names its target's location in its answer;
//! - the same legend through MCP's `browser_snapshot` and the Rust API's `SnapshotOptions::source`.
//!
//! A production build of React and of Angular, and a page of no framework, say once that there are no source
//! locations. Each scenario writes its row of `docs/source-locations.md`'s table to
//! `target/source-locations/<page>.md`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use browser_agent_core::SnapshotOptions;
use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, eval_until, mcp_tool, ok, open, ref_in, run, Server};
use serde_json::{json, Value};

/// Installs the pinned packages (once per test binary) and builds every fixture app into
/// `fixtures/source/npm/browser-agent-compiled/`.
fn built() -> &'static Path {
    static DONE: OnceLock<PathBuf> = OnceLock::new();
    DONE.get_or_init(|| {
        let modules = browser_tests::npm_fixtures("source");
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let status = Command::new("node")
            .arg(here.join("source-npm/build.mjs"))
            .arg(&modules)
            .arg(browser_tests::fixtures_dir().join("source"))
            .arg(modules.join("browser-agent-compiled"))
            .status()
            .unwrap_or_else(|e| panic!("run node (the source tests build their apps with it): {e}"));
        assert!(status.success(), "building the source fixtures failed: {status}");
        modules
    })
}

/// The version of the installed package `name` (its package.json).
fn version(name: &str) -> String {
    let text = std::fs::read_to_string(built().join(name).join("package.json")).expect("package.json");
    let v: Value = serde_json::from_str(&text).expect("package.json is JSON");
    v["version"].as_str().expect("a version").to_owned()
}

/// The 1-based line of `file` (under `fixtures/source/`) holding `needle`, once.
fn line_of(file: &str, needle: &str) -> u32 {
    let text = std::fs::read_to_string(browser_tests::fixtures_dir().join("source").join(file)).expect("fixture");
    let found: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(found.len(), 1, "{needle:?} once in {file}");
    found[0] as u32
}

/// One framework's app.
struct App {
    /// The page (`fixtures/source/<page>.html`) and its bundle's name.
    page: &'static str,
    /// The table's name for it.
    framework: &'static str,
    /// The npm package whose version the table gives.
    package: &'static str,
    /// The fixture folder (`react`, `vue3`, …), the components' files' names (`App`,
    /// `TodoItem`; Angular's `app`, `todo-item`) and extension.
    dir: &'static str,
    files: [&'static str; 2],
    ext: &'static str,
    /// The text on the line the Add button's location names, and the Remove button's.
    add: &'static str,
    remove: &'static str,
    /// Which line the framework keeps.
    lines: Lines,
}

/// The line a framework's location names.
#[derive(Clone, Copy, PartialEq)]
enum Lines {
    /// The element's tag.
    Tag,
    /// The component's class (Angular's `debugInfo`).
    Class,
    /// None: Vue keeps the file only.
    None,
}

/// The components' files' names, but Angular's.
const FILES: [&str; 2] = ["App", "TodoItem"];

/// The legend line holding `r`.
fn legend_line<'a>(text: &'a str, r: &str) -> &'a str {
    let legend = &text[text
        .find("\nsources:")
        .unwrap_or_else(|| panic!("no legend in\n{text}"))..];
    legend
        .lines()
        .skip(1)
        .find(|l| l.split(' ').any(|w| w == r))
        .unwrap_or_else(|| panic!("{r} is not in the legend\n{legend}"))
}

/// The app's page: the legend on `/run`, MCP and the Rust API, and a click's answer.
async fn located(c: &fantoccini::Client, server: &Server, app: &App) {
    built();
    let id = open(c, server, &format!("/source/{}.html", app.page)).await;
    eval_until(
        server,
        &id,
        "document.querySelectorAll('li').length",
        "the app rendered its two items",
        |v| v == 2,
    )
    .await;
    let v = run(server, &id, json!([{"command": "snapshot", "source": true}])).await;
    let text = v["steps"][0]["result"].as_str().expect("snapshot text").to_owned();
    println!("{}:\n{text}", app.page);
    let add = ref_in(&text, "button \"Add\"");
    let milk = ref_in(&text, "button \"Remove Buy milk\"");
    let tests = ref_in(&text, "button \"Remove Write tests\"");
    let at = |file: &str, needle: &str| {
        let path = format!("{}/src/{file}.{}", app.dir, app.ext);
        if app.lines == Lines::None {
            format!("src/{file}.{}", app.ext)
        } else {
            format!("src/{file}.{}:{}", app.ext, line_of(&path, needle))
        }
    };
    let app_at = format!("App {}:", at(app.files[0], app.add));
    let item_at = format!("TodoItem {}:", at(app.files[1], app.remove));
    let add_line = legend_line(&text, &add);
    let item_line = legend_line(&text, &milk);
    let found = add_line.starts_with(&app_at) && item_line.starts_with(&item_at) && item_line.contains(&tests);
    // What it costs, for the docs (measured, not asserted): the legend's tokens (2.75 chars a
    // token, as the budget counts), and the step's time the first time (the module loaded, React
    // 19's source map fetched and decoded) and again, beside a snapshot without it.
    let legend_chars = text.len() - text.find("\nsources:").expect("a legend");
    let first_ms = v["steps"][0]["elapsed"].as_f64().unwrap_or(0.0);
    let again = run(
        server,
        &id,
        json!([{"command": "snapshot", "source": true}, {"command": "snapshot"}]),
    )
    .await;
    let (again_ms, plain_ms) = (
        again["steps"][0]["elapsed"].as_f64().unwrap_or(0.0),
        again["steps"][1]["elapsed"].as_f64().unwrap_or(0.0),
    );
    // The table's row first, so a wrong location is written down as well as failed.
    let row = format!(
        "| {} | {} | {} | {} | {} | {first_ms:.0} / {again_ms:.0} / {plain_ms:.0} |\n",
        app.framework,
        version(app.package),
        if found { "yes" } else { "no" },
        match (found, app.lines) {
            (true, Lines::Tag) => "yes: file and line",
            (true, Lines::Class) => "yes: file and the class's line",
            (true, Lines::None) => "file only (Vue keeps no line)",
            (false, _) => "no",
        },
        (legend_chars as f64 / 2.75).round()
    );
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/source-locations");
    std::fs::create_dir_all(&out).expect("target/source-locations");
    std::fs::write(out.join(format!("{}.md", app.page)), row).expect("write the row");
    assert!(add_line.starts_with(&app_at), "Add at {app_at}: {add_line:?}\n{text}");
    assert!(
        item_line.starts_with(&item_at) && item_line.contains(&tests),
        "both Remove buttons at {item_at}: {item_line:?}\n{text}"
    );
    // Once per location: no location is listed twice.
    let legend: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("sources:"))
        .skip(1)
        .collect();
    let mut heads: Vec<&str> = legend
        .iter()
        .map(|l| l.rsplit_once(": ").map_or(*l, |(h, _)| h))
        .collect();
    heads.sort_unstable();
    let n = heads.len();
    heads.dedup();
    assert_eq!(heads.len(), n, "each location once:\n{text}");

    // The same legend through GET /snapshot (the query's flag), MCP and the Rust API.
    let addr = server.addr;
    let path = format!("{}/snapshot?client={id}&source=true", browser_tests::PREFIX);
    let (status, body) = tokio::task::spawn_blocking(move || browser_tests::http_get(addr, &path))
        .await
        .expect("GET thread");
    assert_eq!(status, 200, "{body}");
    let by_get: Value = serde_json::from_str(&body).expect("JSON");
    assert!(
        by_get.to_string().contains(add_line),
        "GET /snapshot?source=true: {body}"
    );
    let mcp = mcp_tool(server, "browser_snapshot", json!({"client": id, "source": true}));
    let mcp_text = mcp["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        mcp_text.contains(add_line) && mcp_text.contains(item_line),
        "MCP: {mcp}"
    );
    let api = server
        .agent
        .snapshot(SnapshotOptions::new().client(&id).source(true))
        .await
        .expect("the Rust API's snapshot");
    let api_text = api.steps[0]
        .result
        .as_ref()
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    assert!(
        api_text.contains(add_line) && api_text.contains(item_line),
        "Rust API:\n{api_text}"
    );

    // An acting step names its target's location when asked.
    let clicked = ok(server, &id, json!({"command": "click", "ref": tests, "source": true})).await;
    let answer = clicked["result"].as_str().unwrap_or_default();
    assert!(
        answer.ends_with(&format!("; source: {}", item_at.trim_end_matches(':'))),
        "{clicked}"
    );
    // And only when asked.
    let plain = ok(server, &id, json!({"command": "click", "ref": add})).await;
    assert!(
        !plain["result"].as_str().unwrap_or_default().contains("source:"),
        "{plain}"
    );
}

const JSX_ADD: &str = ">Add</button>";
const JSX_REMOVE: &str = ">Remove {title}</button>";

chromium_test!(react_18_dev_source, Axum, |c, server| {
    let app = App {
        page: "react18",
        framework: "React 18 (`_debugSource`, jsxDEV)",
        package: "react",
        dir: "react",
        files: FILES,
        ext: "jsx",
        add: JSX_ADD,
        remove: JSX_REMOVE,
        lines: Lines::Tag,
    };
    located(c, &server, &app).await;
});

chromium_test!(react_19_owner_stacks, Axum, |c, server| {
    let app = App {
        page: "react19",
        framework: "React 19 (`_debugStack` + source map)",
        package: "react19",
        dir: "react",
        files: FILES,
        ext: "jsx",
        add: JSX_ADD,
        remove: JSX_REMOVE,
        lines: Lines::Tag,
    };
    located(c, &server, &app).await;
});

chromium_test!(an_audit_names_where_its_elements_are_rendered, Axum, |c, server| {
    // Round 8: `audit` with `source` gave refs but no locations, and a snapshot of one of its refs
    // (a text's element, which shows no ref of its own) said the page had no development build.
    built();
    let id = open(c, &server, "/source/react18.html").await;
    eval_until(
        &server,
        &id,
        "document.querySelectorAll('li').length",
        "the app rendered its two items",
        |v| v == 2,
    )
    .await;
    let at = format!(
        "TodoItem src/TodoItem.jsx:{}:",
        line_of("react/src/TodoItem.jsx", "<small")
    );
    let audit = ok(&server, &id, json!({"command": "audit", "source": true})).await;
    let text = audit["result"].as_str().unwrap_or_default();
    let contrast = &text[text.find("color-contrast").unwrap_or_else(|| panic!("{text}"))..];
    let faint = ref_in(contrast, "\"todo\"");
    assert!(legend_line(text, &faint).starts_with(&at), "{text}");
    let v = run(
        &server,
        &id,
        json!([{"command": "snapshot", "ref": faint, "source": true}]),
    )
    .await;
    let text = v["steps"][0]["result"].as_str().unwrap_or_default();
    assert!(legend_line(text, &faint).starts_with(&at), "{v}");
});

chromium_test!(preact_10_jsx_dev, Axum, |c, server| {
    let app = App {
        page: "preact",
        framework: "Preact 10 (`__source`, jsxDEV)",
        package: "preact",
        dir: "preact",
        files: FILES,
        ext: "jsx",
        add: JSX_ADD,
        remove: JSX_REMOVE,
        lines: Lines::Tag,
    };
    located(c, &server, &app).await;
});

chromium_test!(vue_3_file, Axum, |c, server| {
    let app = App {
        page: "vue3",
        framework: "Vue 3 (`__vueParentComponent`, `__file`)",
        package: "vue",
        dir: "vue3",
        files: FILES,
        ext: "vue",
        add: ">Add</button>",
        remove: ">Remove {{ title }}</button>",
        lines: Lines::None,
    };
    located(c, &server, &app).await;
});

chromium_test!(vue_2_file, Axum, |c, server| {
    let app = App {
        page: "vue2",
        framework: "Vue 2.7 (`__vue__`, `$options.__file`)",
        package: "vue2",
        dir: "vue2",
        files: FILES,
        ext: "vue",
        add: ">Add</button>",
        remove: ">Remove {{ title }}</button>",
        lines: Lines::None,
    };
    located(c, &server, &app).await;
});

chromium_test!(svelte_5_meta, Axum, |c, server| {
    let app = App {
        page: "svelte5",
        framework: "Svelte 5 (`__svelte_meta`)",
        package: "svelte",
        dir: "svelte5",
        files: FILES,
        ext: "svelte",
        add: ">Add</button>",
        remove: ">Remove {title}</button>",
        lines: Lines::Tag,
    };
    located(c, &server, &app).await;
});

chromium_test!(svelte_4_meta, Axum, |c, server| {
    let app = App {
        page: "svelte4",
        framework: "Svelte 4 (`__svelte_meta`)",
        package: "svelte4",
        dir: "svelte4",
        files: FILES,
        ext: "svelte",
        add: ">Add</button>",
        remove: ">Remove {title}</button>",
        lines: Lines::Tag,
    };
    located(c, &server, &app).await;
});

/// Angular's AOT development build: `ng.getOwningComponent`, and the component def's `debugInfo`
/// (the file and the line of the component's class).
fn angular(page: &'static str, framework: &'static str, package: &'static str) -> App {
    App {
        page,
        framework,
        package,
        dir: "angular",
        files: ["app", "todo-item"],
        ext: "ts",
        add: "export class App ",
        remove: "export class TodoItem ",
        lines: Lines::Class,
    }
}

chromium_test!(angular_22_debug_info, Axum, |c, server| {
    let app = angular("angular22", "Angular 22 (AOT, `ɵcmp.debugInfo`)", "@angular/core");
    located(c, &server, &app).await;
});

chromium_test!(angular_21_debug_info, Axum, |c, server| {
    let app = angular("angular21", "Angular 21 (AOT, `ɵcmp.debugInfo`)", "@angular21/core");
    located(c, &server, &app).await;
});

/// The answers of a page without locations: the legend and a click's answer say why, once.
async fn none(c: &fantoccini::Client, server: &Server, path: &str, why: &str) -> String {
    let id = open(c, server, path).await;
    none_on(server, &id, path, why).await
}

/// [`none`] on the page `id`, already open at `path`.
async fn none_on(server: &Server, id: &str, path: &str, why: &str) -> String {
    let v = run(
        server,
        id,
        json!([{"command": "snapshot", "source": true}, {"command": "click", "role": "button", "nth": 0, "source": true}]),
    )
    .await;
    let text = v["steps"][0]["result"].as_str().expect("snapshot text");
    println!("{path}:\n{text}");
    let heading = format!("sources: none ({why})");
    assert!(text.ends_with(&heading), "{text}");
    assert_eq!(text.matches("sources:").count(), 1, "{text}");
    let click = v["steps"][1]["result"].as_str().unwrap_or_default();
    assert!(click.ends_with(&format!("; source: none ({why})")), "{v}");
    text.to_owned()
}

chromium_test!(react_production_build_says_none, Axum, |c, server| {
    built();
    let why = "React production build: no source locations";
    none(c, &server, "/source/react18-prod.html", why).await;
    let row = format!(
        "| React 18 production build | {} | no, said once: \"{why}\" | — | {} | |\n",
        version("react"),
        ((why.len() + 16) as f64 / 2.75).round()
    );
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/source-locations");
    std::fs::create_dir_all(&out).expect("target/source-locations");
    std::fs::write(out.join("react18-prod.md"), row).expect("write the row");
});

chromium_test!(angular_production_build_says_none, Axum, |c, server| {
    built();
    let why = "Angular production build: no source locations";
    let path = "/source/angular22-prod.html";
    let id = open(c, &server, path).await;
    // Rendered, and a production build: `ng-version` on its root, no `ng` global.
    eval_until(
        &server,
        &id,
        "document.querySelectorAll('li').length + ':' + !!document.querySelector('[ng-version]') + ':' + typeof ng",
        "the production app rendered",
        |v| *v == "2:true:undefined",
    )
    .await;
    none_on(&server, &id, path, why).await;
    let row = format!(
        "| Angular 22 production build | {} | no, said once: \"{why}\" | — | {} | |\n",
        version("@angular/core"),
        ((why.len() + 16) as f64 / 2.75).round()
    );
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/source-locations");
    std::fs::create_dir_all(&out).expect("target/source-locations");
    std::fs::write(out.join("angular22-prod.md"), row).expect("write the row");
});

chromium_test!(no_framework_says_none, Axum, |c, server| {
    none(
        c,
        &server,
        "/source/plain.html",
        "no development build of React, Vue, Svelte, Preact or Angular: no source locations",
    )
    .await;
});

chromium_test!(source_is_a_flag, Axum, |c, server| {
    let id = open(c, &server, "/source/plain.html").await;
    let (status, v) = browser_tests::run_raw(
        &server,
        json!({"client": id, "steps": [{"command": "snapshot", "source": "yes"}]}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert!(v.to_string().contains("source"), "{v}");
});

/// A trusted mouse event or key (CDP), as a person's.
async fn cdp(b: &browser_tests::Browser, cmd: &str, p: Value) {
    b.cdp(cmd, p).await;
}

/// A note pinned on React 18's Remove button carries its source location (notes always do).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_note_carries_its_elements_source() {
    let browser = browser_tests::shared_browser().await;
    let server = Server::start_on(Axum, browser_tests::agent(), browser_tests::any_port());
    let b: &browser_tests::Browser = &browser;
    browser_tests::within("a note's source", browser_tests::SCENARIO_DEADLINE, async move {
        built();
        let c = &b.client;
        let id = open(c, &server, "/source/react18.html").await;
        eval_until(&server, &id, "document.querySelectorAll('li').length", "the app rendered", |v| v == 2).await;
        let v = run(&server, &id, json!([{"command": "notes", "mode": "enter"}])).await;
        assert_eq!(v["steps"][0]["result"]["mode"], "on", "{v}");
        let r = browser_tests::eval(
            &server,
            &id,
            "(() => { const r = [...document.querySelectorAll('button')].find((b) => b.textContent == 'Remove Buy milk').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()",
        )
        .await;
        let (x, y) = (r[0].as_f64().expect("x"), r[1].as_f64().expect("y"));
        for (kind, buttons) in [("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 0)] {
            let button = if kind == "mouseMoved" { "none" } else { "left" };
            let p = json!({"type": kind, "x": x, "y": y, "button": button, "buttons": buttons, "clickCount": 1});
            cdp(b, "Input.dispatchMouseEvent", p).await;
        }
        for ch in "why".chars() {
            let s = ch.to_string();
            let code = format!("Key{}", ch.to_ascii_uppercase());
            let vk = ch.to_ascii_uppercase() as u32;
            let down = json!({"type": "keyDown", "key": s, "code": code, "windowsVirtualKeyCode": vk, "text": s, "unmodifiedText": s});
            cdp(b, "Input.dispatchKeyEvent", down).await;
            cdp(b, "Input.dispatchKeyEvent", json!({"type": "keyUp", "key": s, "code": code, "windowsVirtualKeyCode": vk})).await;
        }
        let enter = json!({"type": "keyDown", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"});
        cdp(b, "Input.dispatchKeyEvent", enter).await;
        cdp(b, "Input.dispatchKeyEvent", json!({"type": "keyUp", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13})).await;
        let list = browser_tests::wait_for("the note", std::time::Duration::from_secs(20), || {
            let (status, body) = browser_tests::http_get(server.addr, &format!("{}/notes", browser_tests::PREFIX));
            assert_eq!(status, 200, "{body}");
            let v: Value = serde_json::from_str(&body).expect("notes JSON");
            let list = v["notes"].as_array().cloned().unwrap_or_default();
            (!list.is_empty()).then_some(list)
        })
        .await;
        let line = line_of("react/src/TodoItem.jsx", JSX_REMOVE);
        assert_eq!(list[0]["source"], json!(format!("TodoItem src/TodoItem.jsx:{line}")), "{}", list[0]);
        let mcp = mcp_tool(&server, "browser_logs", json!({"type": "notes"}));
        let text = mcp["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        assert!(text.contains(&format!("(source: TodoItem src/TodoItem.jsx:{line})")), "{mcp}");
        run(&server, &id, json!([{"command": "notes", "mode": "exit"}])).await;
    })
    .await;
}
