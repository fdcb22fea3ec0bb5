//! Web-component design systems in real headless Chromium, driven through the agent API
//! (`POST {prefix}/run`) as an agent drives them: one snapshot, then one batch that fills the
//! form by the snapshot's refs and submits it.
//!
//! The libraries are installed from npm at pinned versions (`browser-tests/webcomponents-npm/`, its
//! `package-lock.json`; `npm ci` into `target/webcomponents-npm` when the lock there differs,
//! linked into the fixtures as the git-ignored `fixtures/webcomponents/npm`), each from the
//! browser-loadable build it ships, so nothing is fetched at test time:
//!
//! - Shoelace 2 (Lit): its `cdn/` ES module build;
//! - Ionic 8 (Stencil): its `dist/ionic` lazy-loading ES module build (`ion-input` and
//!   `ion-textarea` are scoped components, whose hosts hide their rendered children from
//!   `firstChild`);
//! - Fluent UI web components 2 and FAST components 2 (FAST): their one-file bundles;
//! - Material Web 2 (Lit): ES modules with bare imports only, bundled by the set-up with the
//!   pinned esbuild into one script (its roles are set through `ElementInternals`).
//!
//! Each page (`fixtures/webcomponents/*.html`) has tabs, a form with a text field, a select, a
//! checkbox, a switch, a radio group and a textarea, a submit button, and a dialog; every control
//! carries `data-control`, every form field `data-field` (the page's `submit.js` reads the
//! fields' own `value`/`checked` properties into `#out` on submit).
//!
//! Each library's scenario measures what docs/web-components.md tabulates, and writes its row to
//! `target/web-components/<page>.md`: controls on the page against nodes with refs in the first
//! snapshot (and lines with two refs: a wrapper printed around its control), the form fields the
//! snapshot lists with their label and role, the batches from the first snapshot to the submitted
//! form, and whether `select` picked the option (and, for an option that is not there, answered
//! with the options it saw and left nothing open that covers the next step).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, eval, eval_until, open, ref_in, run, snapshot, Server};
use fantoccini::Client;
use serde_json::{json, Value};

/// Installs the pinned design systems (once per test binary), bundles Material Web; node_modules.
fn installed() -> &'static Path {
    static MODULES: OnceLock<PathBuf> = OnceLock::new();
    MODULES.get_or_init(|| {
        let modules = browser_tests::npm_fixtures("webcomponents");
        bundle_material(&modules);
        modules
    })
}

/// Bundles Material Web (`@material/web/all.js`) with the pinned esbuild into
/// `npm/browser-agent-compiled/material.js`: it ships ES modules with bare imports only.
fn bundle_material(modules: &Path) {
    let out = modules.join("browser-agent-compiled");
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let script = r#"
        const [out] = process.argv.slice(1);
        require('esbuild').buildSync({
            stdin: { contents: "import '@material/web/all.js';", resolveDir: process.cwd() }, outfile: out,
            bundle: true, format: 'iife', minify: true, logLevel: 'warning',
        });
    "#;
    let status = Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(out.join("material.js"))
        .current_dir(modules.parent().expect("node_modules has a parent"))
        .status()
        .unwrap_or_else(|e| panic!("run node (the Material test bundles it with esbuild): {e}"));
    assert!(status.success(), "bundling Material Web failed: {status}");
}

/// One design system under test.
struct Lib {
    /// `fixtures/webcomponents/{page}.html`.
    page: &'static str,
    /// The npm package (its version goes in the table).
    package: &'static str,
    /// What it is built on.
    base: &'static str,
    /// Text of the second tab's panel.
    about: &'static str,
}

/// The form's fields: the roles the snapshot may give each, and its label.
const FIELDS: &[(&[&str], &str)] = &[
    (&["textbox"], "Name"),
    (&["combobox", "button"], "Fruit"),
    (&["checkbox"], "Accept terms"),
    (&["switch"], "Newsletter"),
    (&["radio"], "Small"),
    (&["radio"], "Large"),
    (&["textbox"], "Notes"),
];

/// The line of `snap` with a ref that shows a field of one of `roles` named `name` (or starting
/// with it: Ionic names its select "Fruit, Pick a fruit").
fn field_line<'a>(snap: &'a str, roles: &[&str], name: &str) -> Option<&'a str> {
    snap.lines().find(|l| {
        let l = l.trim_start().trim_start_matches("- ");
        l.contains("[ref=")
            && roles.iter().any(|r| {
                // (A line may start with its parent's role: `listitem: textbox "Name" …`.)
                l.split(": ").any(|part| part.starts_with(&format!("{r} \"{name}")))
            })
    })
}

/// The ref on `line`.
fn ref_on(line: &str) -> String {
    ref_in(line, "[ref=")
}

/// What one library's scenario measured (a row of the docs' table).
struct Row {
    controls: usize,
    refs: usize,
    doubles: usize,
    listed: usize,
    batches: usize,
    select: &'static str,
}

async fn scenario(c: &Client, server: &Server, lib: &Lib) {
    let modules = installed();
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(modules.join(lib.package).join("package.json")).expect("package.json"),
    )
    .expect("package.json is JSON");
    let version = manifest["version"].as_str().unwrap_or("?").to_owned();
    let id = open(c, server, &format!("/webcomponents/{}.html", lib.page)).await;
    let ready = "return [...document.querySelectorAll('[data-control]')].every(e => customElements.get(e.localName) \
                 && (e.shadowRoot || e.classList.contains('hydrated')))";
    eval_until(server, &id, ready, "the components to render", |v| v == &json!(true)).await;

    // Batch 1: the first snapshot.
    let snap = snapshot(server, &id).await;
    println!("===== {} {version}\n{snap}", lib.page);
    let controls = eval(server, &id, "return document.querySelectorAll('[data-control]').length")
        .await
        .as_u64()
        .unwrap_or(0) as usize;
    let refs = snap.lines().filter(|l| l.contains("[ref=")).count();
    let doubles = snap.lines().filter(|l| l.matches("[ref=").count() > 1).count();
    let found: Vec<Option<&str>> = FIELDS
        .iter()
        .map(|(roles, name)| field_line(&snap, roles, name))
        .collect();
    let listed = found.iter().filter(|f| f.is_some()).count();
    let line = |i: usize| found[i].unwrap_or_else(|| panic!("{}: field {:?} not listed:\n{snap}", lib.page, FIELDS[i]));
    let save = snap
        .lines()
        .find(|l| l.contains("button \"Save\"") && l.contains("[ref="))
        .unwrap_or_else(|| panic!("{}: no Save button:\n{snap}", lib.page));

    // Batch 2: the form, filled by ref and submitted, as an agent writes it from the snapshot.
    let steps = json!([
        {"command": "fill", "ref": ref_on(line(0)), "text": "Ada"},
        {"command": "select", "ref": ref_on(line(1)), "option": "Banana"},
        {"command": "check", "ref": ref_on(line(2))},
        {"command": "check", "ref": ref_on(line(3))},
        {"command": "check", "ref": ref_on(line(5))},
        {"command": "fill", "ref": ref_on(line(6)), "text": "Fragile"},
        {"command": "click", "ref": ref_on(save)},
    ]);
    let v = run(server, &id, steps.clone()).await;
    let errors: Vec<String> = v["steps"]
        .as_array()
        .map(|s| {
            s.iter()
                .filter_map(|s| s["error"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let selected = v["steps"][1]["result"].as_str().unwrap_or_default().to_owned();
    let want =
        json!({"name": "Ada", "fruit": "banana", "terms": true, "news": true, "size": "large", "notes": "Fragile"});
    let out = eval(server, &id, "return document.getElementById('out').textContent").await;
    let submitted: Option<Value> = out
        .as_str()
        .and_then(|t| t.strip_prefix("submitted "))
        .and_then(|j| serde_json::from_str(j).ok());
    // (Only the fields this form has in common: Ionic's has a second select, picked below.)
    let submitted = submitted.map(|mut s| {
        if let Some(m) = s.as_object_mut() {
            m.retain(|k, _| want.get(k).is_some());
        }
        s
    });
    let batches = if errors.is_empty() && submitted.as_ref() == Some(&want) {
        2
    } else {
        0
    };

    // An option that is not there: the options it saw, nothing left open, the next step not covered.
    let missing = run(
        server,
        &id,
        json!([{"command": "select", "ref": ref_on(line(1)), "option": "Mango"}]),
    )
    .await;
    let missing_err = missing["steps"][0]["error"].as_str().unwrap_or_default().to_owned();
    let next = run(server, &id, json!([{"command": "check", "ref": ref_on(line(4))}])).await;
    let next_err = next["steps"][0]["error"].as_str().map(str::to_owned);
    let after = snapshot(server, &id).await;
    let select_ok = selected == "selected \"Banana\""
        && missing_err.contains("\"Mango\"")
        && missing_err.contains("\"Apple\"")
        && missing_err.contains("\"Cherry\"")
        && next_err.is_none()
        && !after.contains("\"Cherry\"");
    if lib.page == "ionic" {
        // Ionic's default select opens an alert: its radios, then its "OK".
        let color = field_line(&snap, &["button"], "Color").expect("the Color select");
        let v = run(
            server,
            &id,
            json!([{"command": "select", "ref": ref_on(color), "option": "Green"}]),
        )
        .await;
        assert_eq!(v["steps"][0]["result"], "selected \"Green\"", "{v}");
        let value = eval(server, &id, "return document.querySelector('[data-field=color]').value").await;
        assert_eq!(value, "green");
        let after = snapshot(server, &id).await;
        assert!(
            !after.contains("alertdialog") && !after.contains("\"Red\""),
            "the alert stayed open:\n{after}"
        );
    }
    let row = Row {
        controls,
        refs,
        doubles,
        listed,
        batches,
        select: if select_ok { "yes" } else { "no" },
    };
    let text = format!(
        "| {} ({}) | {version} | {} | {} | {} | {}/{} | {} | {} |\n",
        lib.package,
        lib.base,
        row.controls,
        row.refs,
        row.doubles,
        row.listed,
        FIELDS.len(),
        if row.batches == 0 {
            "failed".to_owned()
        } else {
            row.batches.to_string()
        },
        row.select
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/web-components");
    std::fs::create_dir_all(&dir).expect("target/web-components");
    std::fs::write(dir.join(format!("{}.md", lib.page)), &text).expect("write the row");
    print!("ROW {text}");

    assert!(
        errors.is_empty(),
        "{}: the form batch failed: {errors:?}\n{v}",
        lib.page
    );
    assert_eq!(submitted.as_ref(), Some(&want), "{}: submitted {out}", lib.page);
    assert_eq!(selected, "selected \"Banana\"", "{}", lib.page);
    assert!(
        missing_err.starts_with("No option \"Mango\"")
            && missing_err.contains("\"Apple\"")
            && missing_err.contains("\"Cherry\""),
        "{}: {missing_err}",
        lib.page
    );
    assert_eq!(next_err, None, "{}: the step after a failed select", lib.page);
    assert!(
        !after.contains("\"Cherry\""),
        "{}: the list stayed open:\n{after}",
        lib.page
    );
    assert_eq!(row.doubles, 0, "{}: a control printed twice:\n{snap}", lib.page);
    assert_eq!(
        row.refs, row.controls,
        "{}: nodes with refs against controls:\n{snap}",
        lib.page
    );
    assert_eq!(row.listed, FIELDS.len(), "{}:\n{snap}", lib.page);

    // A text target names the control once; the dialog scopes the snapshot and targeting.
    let v = run(server, &id, json!([{"command": "click", "text": "Open dialog"}])).await;
    assert!(v["steps"][0]["error"].is_null(), "{}: {v}", lib.page);
    let text = wait_snapshot(server, &id, |s| s.contains("Dialog body text")).await;
    assert!(
        !text.contains("\"Save\""),
        "{}: the page behind the dialog shows:\n{text}",
        lib.page
    );
    let v = run(server, &id, json!([{"command": "click", "text": "Done"}])).await;
    assert!(v["steps"][0]["error"].is_null(), "{}: {v}", lib.page);
    wait_snapshot(server, &id, |s| {
        !s.contains("Dialog body text") && s.contains("\"Save\"")
    })
    .await;

    // Tabs.
    let v = run(
        server,
        &id,
        json!([{"command": "click", "role": "tab", "name": "About"}]),
    )
    .await;
    assert!(v["steps"][0]["error"].is_null(), "{}: {v}", lib.page);
    wait_snapshot(server, &id, |s| s.contains(lib.about)).await;
}

/// Snapshots until `ok` accepts one (components animate in and out); the last one.
async fn wait_snapshot(server: &Server, id: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let s = snapshot(server, id).await;
        if ok(&s) {
            return s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the snapshot never showed what was waited for:\n{s}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

chromium_test!(shoelace, Axum, |c, server| {
    let lib = Lib {
        page: "shoelace",
        package: "@shoelace-style/shoelace",
        base: "Lit",
        about: "Shoelace 2 on Lit.",
    };
    scenario(c, &server, &lib).await
});
chromium_test!(ionic, Axum, |c, server| {
    let lib = Lib {
        page: "ionic",
        package: "@ionic/core",
        base: "Stencil",
        about: "Ionic 8 on Stencil.",
    };
    scenario(c, &server, &lib).await
});
chromium_test!(fluent, Axum, |c, server| {
    let lib = Lib {
        page: "fluent",
        package: "@fluentui/web-components",
        base: "FAST",
        about: "Fluent UI 2 on FAST.",
    };
    scenario(c, &server, &lib).await
});
chromium_test!(fast, Axum, |c, server| {
    let lib = Lib {
        page: "fast",
        package: "@microsoft/fast-components",
        base: "FAST",
        about: "FAST components on FAST Element.",
    };
    scenario(c, &server, &lib).await
});
chromium_test!(material, Axum, |c, server| {
    let lib = Lib {
        page: "material",
        package: "@material/web",
        base: "Lit",
        about: "Material Web on Lit.",
    };
    scenario(c, &server, &lib).await
});

chromium_test!(sliders_numbers_dates_and_switches, Axum, |c, server| {
    // fill on sliders, number and date fields drawn by components (Shoelace's inner inputs,
    // FAST's slider host with a value of its own), uncheck on a switch: read back from the
    // components' own value/checked properties.
    installed();
    let id = open(c, &server, "/webcomponents/extras.html").await;
    let ready = "return [...document.querySelectorAll('[data-control]')].every(e => customElements.get(e.localName) && e.shadowRoot)";
    eval_until(&server, &id, ready, "the components to render", |v| v == &json!(true)).await;
    let snap = snapshot(&server, &id).await;
    println!("{snap}");
    assert_eq!(
        snap.lines().filter(|l| l.matches("[ref=").count() > 1).count(),
        0,
        "{snap}"
    );
    let controls = eval(
        &server,
        &id,
        "return document.querySelectorAll('[data-control]').length",
    )
    .await;
    let refs = snap.lines().filter(|l| l.contains("[ref=")).count();
    assert_eq!(
        json!(refs),
        controls,
        "one ref a control (no empty clickables):\n{snap}"
    );
    let slider = |name: &str| field_line(&snap, &["slider"], name).map(ref_on);
    let field = |name: &str| field_line(&snap, &["textbox", "spinbutton"], name).map(ref_on);
    let steps = json!([
        {"command": "fill", "ref": slider("Volume").expect("Volume slider"), "text": "75"},
        {"command": "fill", "ref": field("Quantity").expect("Quantity field"), "text": "3"},
        {"command": "fill", "ref": field("Delivery date").expect("date field"), "text": "2026-12-24"},
        {"command": "uncheck", "ref": field_line(&snap, &["switch"], "Dark mode").map(ref_on).expect("switch")},
        {"command": "fill", "ref": slider("Brightness").expect("Brightness slider"), "text": "7"},
        {"command": "fill", "ref": field("Count").expect("Count field"), "text": "12"},
    ]);
    let v = run(&server, &id, steps).await;
    let errors: Vec<&Value> = v["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| !s["error"].is_null())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let values = eval(
        &server,
        &id,
        "const g = (i) => document.getElementById(i); \
         return [g('volume').value, g('qty').value, g('when').value, g('dark').checked, String(g('bright').value), String(g('count').value)]",
    )
    .await;
    assert_eq!(values, json!([75, "3", "2026-12-24", false, "7", "12"]));
});

chromium_test!(a_dialog_the_batch_closed_is_closed_in_its_answer, Axum, |c, server| {
    // Shoelace fades its dialog out after `hide()`. A dialog closed when a request the click sent
    // came back (after the click's own wait), the list then read again, was read mid-fade once
    // the requests ended: the batch's answer said a modal dialog was open and left the page out.
    installed();
    let id = open(c, &server, "/webcomponents/shoelace-members.html").await;
    snapshot(&server, &id).await;
    let v = run(
        &server,
        &id,
        json!([{"command": "click", "role": "button", "name": "Invite member"}]),
    )
    .await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    let v = run(
        &server,
        &id,
        json!([
            {"command": "fill", "label": "Email", "value": "ada@example.com"},
            {"command": "select", "role": "combobox", "name": "Role", "value": "Designer"},
            {"command": "click", "role": "button", "name": "Send invite"}
        ]),
    )
    .await;
    assert!(v["steps"][2]["error"].is_null(), "{v}");
    let closed = v["snapshot"].as_str().unwrap_or_default();
    assert!(
        !closed.starts_with(browser_agent_core::snapshot::MODAL_OPEN) && closed.contains("invited ada@example.com"),
        "the dialog the batch closed is gone from its answer, and the page is back: {v}"
    );
});

chromium_test!(a_menu_item_is_one_node, Axum, |c, server| {
    // Shoelace draws each menu item's content in a `cursor:pointer` part of its shadow root: it
    // was listed again inside the item, `menuitem "Remove" [ref=e4]: clickable "Remove" [ref=e5]`.
    installed();
    let id = open(c, &server, "/webcomponents/shoelace-members.html").await;
    let v = run(
        &server,
        &id,
        json!([{"command": "click", "role": "button", "name": "Actions"}, {"command": "snapshot"}]),
    )
    .await;
    let text = v["steps"][1]["result"].as_str().unwrap_or_default();
    assert!(text.contains("menuitem \"Make admin\" [ref="), "{text}");
    assert!(!text.contains("clickable"), "no second node inside an item: {text}");
    let v = run(
        &server,
        &id,
        json!([{"command": "click", "role": "menuitem", "name": "Remove"}]),
    )
    .await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    assert_eq!(
        eval(&server, &id, "return document.getElementById('out').textContent").await,
        json!("chose remove")
    );
});

chromium_test!(
    a_components_button_keeps_its_ref_when_its_row_is_redrawn,
    Axum,
    |c, server| {
        // A list drawn again on every change: each row's icon button is a new component whose
        // `<button>` is in its shadow root. Its row was looked up in the shadow root only, so the
        // redrawn rows got new refs (the diff listed every row twice) and an earlier ref was "gone".
        installed();
        let id = open(c, &server, "/webcomponents/shoelace-members.html").await;
        let before = snapshot(&server, &id).await;
        let line = before
            .lines()
            .find(|l| l.contains("Linus Berg"))
            .unwrap_or_else(|| panic!("the row: {before}"));
        let edit = ref_in(line, "button \"Edit\"");
        let v = run(
            &server,
            &id,
            json!([{"command": "click", "role": "button", "name": "Redraw"}]),
        )
        .await;
        let changes = v["snapshot"].as_str().unwrap_or_default();
        assert!(
            !changes.contains("Linus Berg"),
            "a row drawn again as it was is no change: {changes}"
        );
        let v = run(&server, &id, json!([{"command": "click", "ref": edit}])).await;
        assert!(
            v["steps"][0]["error"].is_null(),
            "the earlier ref lands on the row's new button: {v}"
        );
        assert_eq!(
            eval(&server, &id, "return document.getElementById('out').textContent").await,
            json!("edit Linus Berg")
        );
    }
);
