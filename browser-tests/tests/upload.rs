//! The `upload` step (issue 34, item 2) in real headless Chromium: files the host reads under the
//! project root, or inline bytes, reach the page as real `File`s through a file input (`input` and
//! `change`, as a person's choice) or a drop (`dragenter`, `dragover`, `drop`), and the page reads
//! their bytes. The host's refusals (outside the root, a symlink out of it, missing, a folder, too
//! big) are 400/403/413 JSON answers before anything runs.
//!
//! Fixtures: `fixtures/upload/plain.html` (a single-file input with `accept`, a multiple one, a
//! hidden input opened by a button, an input made on a click and never attached, a drop zone),
//! `dropzone.html` and `filepond.html` (the npm libraries of `browser-tests/upload-npm/`), and the
//! files under `fixtures/upload/files/`. The tests' project root is the working directory cargo
//! gives them, `browser-tests/`.
//!
//! The libraries' round trips are written to `target/upload-rtt.md` (measured, never asserted),
//! for the table in docs/upload.md.

use std::sync::OnceLock;
use std::time::Duration;

use browser_agent_core::{Batch, BrowserAgent};
use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, eval_until, fails, mcp_tool, npm_fixtures, ok, open, run, run_raw, run_timed};
use serde_json::{json, Value};

const CAT: &str = "fixtures/upload/files/cat.png";
const NOTES: &str = "fixtures/upload/files/notes.txt";
const CSV: &str = "fixtures/upload/files/data.csv";
/// The PNG signature, as the page's hex of a file's first 8 bytes.
const PNG_HEAD: &str = "89504e470d0a1a0a";

/// The pinned npm libraries, installed once per test binary.
fn libraries() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        npm_fixtures("upload");
    });
}

/// What the page read from the files control `key` got (waits for its reads).
async fn got(server: &browser_tests::Server, page: &str, key: &str, n: usize) -> Vec<Value> {
    let v = eval_until(
        server,
        page,
        &format!("window.got[{key:?}] || null"),
        &format!("the page reads what {key} got"),
        |v| v.as_array().is_some_and(|a| a.len() == n),
    )
    .await;
    v.as_array().cloned().unwrap_or_default()
}

/// The `interaction` entries of an answer's logs: `(event, value)`.
fn interactions(answer: &Value) -> Vec<(String, String)> {
    answer["logs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["type"] == "interaction")
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
            (s("event"), s("value"))
        })
        .collect()
}

/// Appends a measured line to `target/upload-rtt.md` (for docs/upload.md; never asserted).
fn record_rtt(what: &str, took: Duration) {
    use std::io::Write;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/upload-rtt.md");
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "| {what} | {:.0} ms |", took.as_secs_f64() * 1000.0);
    }
    println!("upload round trip, {what}: {took:?}");
}

chromium_test!(
    a_path_and_inline_bytes_reach_a_file_input_as_real_files,
    Axum,
    |client, server| {
        let page = open(client, &server, "/upload/plain.html").await;
        // A path the host reads, into the input its label names.
        let (v, took) = run_timed(
            &server,
            Some(&page),
            json!([{"command": "upload", "label": "Avatar", "files": [CAT]}]),
        )
        .await;
        let step = &v["steps"][0];
        assert!(step["error"].is_null(), "{v}");
        let size = std::fs::metadata(CAT).unwrap().len();
        let result = step["result"].as_str().unwrap_or_default();
        assert!(
            result.starts_with(&format!("uploaded \"cat.png\" ({size} bytes) into ")) && result.contains("\"Avatar\""),
            "{v}"
        );
        let avatar = got(&server, &page, "avatar", 1).await;
        assert_eq!(avatar[0]["name"], "cat.png");
        assert_eq!(avatar[0]["type"], "image/png");
        assert_eq!(avatar[0]["size"], size);
        assert_eq!(avatar[0]["head"], PNG_HEAD, "the page read the bytes: {avatar:?}");
        assert_eq!(avatar[0]["isFile"], true);
        let mtime = std::fs::metadata(CAT).unwrap().modified().unwrap();
        let mtime = mtime.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
        assert_eq!(avatar[0]["lastModified"], mtime, "the file's own time");
        // `input` (bubbling, composed), then `change` (bubbling), each once.
        let events = browser_tests::eval(&server, &page, "events").await;
        assert_eq!(
            events,
            json!([["input", "avatar", true, true, 1], ["change", "avatar", true, false, 1]])
        );
        // The sensor logs the agent's upload once, as it logs a person's.
        assert_eq!(interactions(&v), [("upload".to_owned(), "cat.png".to_owned())], "{v}");
        // The answer's diff shows what the page made of it.
        assert!(
            v["snapshot"].as_str().unwrap().contains("avatar: cat.png (73 bytes)"),
            "{v}"
        );
        record_rtt("plain input, a 73-byte path", took);

        // Inline bytes, several, into the `multiple` input (by its ref-less label text).
        let v = run(
            &server,
            &page,
            json!([{"command": "upload", "label": "Attachments", "files": [
                {"name": "hello.txt", "data": "aGVsbG8gd29ybGQ="},
                {"name": "raw.bin", "data": "AAEC", "type": "application/x-raw", "lastModified": 1_700_000_000_000u64},
            ]}]),
        )
        .await;
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        assert!(v["steps"][0]["result"]
            .as_str()
            .unwrap()
            .starts_with("uploaded \"hello.txt\" (11 bytes), \"raw.bin\" (3 bytes) into "));
        let many = got(&server, &page, "many", 2).await;
        assert_eq!(many[0]["text"], "hello world");
        assert_eq!(many[0]["type"], "text/plain", "the type from the extension");
        assert_eq!(many[1]["type"], "application/x-raw");
        assert_eq!(many[1]["lastModified"], 1_700_000_000_000u64);
        assert_eq!(many[1]["head"], "000102");
    }
);

chromium_test!(
    multiple_and_accept_are_kept_as_a_picker_keeps_them,
    Axum,
    |client, server| {
        let page = open(client, &server, "/upload/plain.html").await;
        let e = fails(
            &server,
            &page,
            json!({"command": "upload", "label": "Avatar", "files": [CAT, CAT]}),
        )
        .await;
        assert!(
            e.contains("takes one file (it has no \"multiple\"), and 2 were given"),
            "{e}"
        );
        let e = fails(
            &server,
            &page,
            json!({"command": "upload", "label": "Avatar", "files": [NOTES]}),
        )
        .await;
        assert!(
            e.contains("\"notes.txt\" (text/plain) does not match accept=\"image/png,.jpg\""),
            "{e}"
        );
        // Nothing reached the page.
        assert_eq!(browser_tests::eval(&server, &page, "events.length").await, 0);
        // A `.jpg` name matches by its extension, whatever its type.
        ok(
            &server,
            &page,
            json!({"command": "upload", "label": "Avatar", "files": [{"name": "me.JPG", "data": "/9j/"}]}),
        )
        .await;
        assert_eq!(got(&server, &page, "avatar", 1).await[0]["type"], "image/jpeg");
    }
);

chromium_test!(
    a_button_that_opens_a_hidden_input_gives_it_the_files,
    Axum,
    |client, server| {
        let page = open(client, &server, "/upload/plain.html").await;
        let v = run(
            &server,
            &page,
            json!([{"command": "upload", "role": "button", "name": "Choose photos", "files": [CAT, NOTES]}]),
        )
        .await;
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        let result = v["steps"][0]["result"].as_str().unwrap();
        assert!(
            result.contains("into the file input") && result.contains("of button \"Choose photos\""),
            "{result}"
        );
        let hidden = got(&server, &page, "hidden", 2).await;
        assert_eq!(
            (hidden[0]["head"].as_str(), hidden[1]["text"].as_str()),
            (Some(PNG_HEAD), Some("Shopping list\nmilk\neggs\n"))
        );
        // A person's click on the button, then the choice: one click and one upload entry.
        let done = interactions(&v);
        assert_eq!(
            done,
            [
                ("click".to_owned(), String::new()),
                ("upload".to_owned(), "cat.png, notes.txt".to_owned())
            ],
            "{v}"
        );
        // An input the click made and never attached, with its `accept`.
        ok(
            &server,
            &page,
            json!({"command": "upload", "text": "Import CSV", "files": [CSV]}),
        )
        .await;
        assert_eq!(
            got(&server, &page, "import", 1).await[0]["text"],
            "name,qty\nmilk,1\neggs,12\n"
        );
        let e = fails(
            &server,
            &page,
            json!({"command": "upload", "text": "Import CSV", "files": [NOTES]}),
        )
        .await;
        assert!(e.contains("does not match accept=\".csv\""), "{e}");
        // A hidden input named by its label's text.
        ok(
            &server,
            &page,
            json!({"command": "upload", "label": "Resume", "files": [NOTES]}),
        )
        .await;
        assert_eq!(
            got(&server, &page, "resume", 1).await[0]["text"],
            "Shopping list\nmilk\neggs\n"
        );
        // The hidden input named by its selector.
        ok(
            &server,
            &page,
            json!({"command": "upload", "selector": "#hidden", "files": [NOTES]}),
        )
        .await;
        assert_eq!(got(&server, &page, "hidden", 1).await[0]["name"], "notes.txt");
    }
);

chromium_test!(a_drop_zone_gets_the_files_of_a_drop, Axum, |client, server| {
    let page = open(client, &server, "/upload/plain.html").await;
    let v = run(
        &server,
        &page,
        json!([{"command": "upload", "text": "Drop files here", "files": [NOTES, CAT]}]),
    )
    .await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    assert!(v["steps"][0]["result"]
        .as_str()
        .unwrap()
        .starts_with("dropped \"notes.txt\" (24 bytes), \"cat.png\" (73 bytes) onto "));
    let zone = got(&server, &page, "zone", 2).await;
    assert_eq!(zone[0]["text"], "Shopping list\nmilk\neggs\n");
    assert_eq!(zone[1]["head"], PNG_HEAD);
    let events = browser_tests::eval(&server, &page, "events").await;
    assert_eq!(
        events,
        json!([
            ["dragenter", "zone", "Files"],
            ["dragover", "zone"],
            ["drop", "zone", 2, true]
        ])
    );
    // Where no listener takes a drop, the step says so and nothing is dropped.
    let e = fails(
        &server,
        &page,
        json!({"command": "upload", "text": "Just a paragraph", "files": [NOTES]}),
    )
    .await;
    assert!(e.contains("is no drop zone"), "{e}");
});

chromium_test!(
    dropzone_from_npm_takes_a_drop_and_its_browse_button,
    Axum,
    |client, server| {
        libraries();
        let page = open(client, &server, "/upload/dropzone.html").await;
        eval_until(&server, &page, "window.dzReady === true", "Dropzone starts", |v| {
            v == &json!(true)
        })
        .await;
        let (v, took) = run_timed(
            &server,
            Some(&page),
            json!([{"command": "upload", "selector": "#dz", "files": [NOTES]}]),
        )
        .await;
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        assert!(
            v["steps"][0]["result"]
                .as_str()
                .unwrap()
                .starts_with("dropped \"notes.txt\""),
            "{v}"
        );
        record_rtt("Dropzone 6.3.5, a drop of 24 bytes", took);
        // Dropzone's own button opens its hidden input (appended to the body).
        let (v, took) = run_timed(
            &server,
            Some(&page),
            json!([{"command": "upload", "text": "Browse files", "files": [CAT]}]),
        )
        .await;
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        record_rtt("Dropzone 6.3.5, its browse button, 73 bytes", took);
        let dz = eval_until(&server, &page, "window.dz", "Dropzone read both files", |v| {
            v.as_array().is_some_and(|a| a.len() == 2)
        })
        .await;
        assert_eq!(dz[0]["name"], "notes.txt");
        assert_eq!(dz[0]["text"], "Shopping list\nmilk\neggs\n");
        assert_eq!(
            (dz[1]["name"].as_str(), dz[1]["size"].as_u64()),
            (Some("cat.png"), Some(73))
        );
        assert!(
            v["snapshot"].as_str().unwrap().contains("cat.png"),
            "Dropzone's preview: {v}"
        );
    }
);

chromium_test!(
    filepond_from_npm_takes_files_through_its_input,
    Axum,
    |client, server| {
        libraries();
        let page = open(client, &server, "/upload/filepond.html").await;
        eval_until(&server, &page, "window.fpReady === true", "FilePond starts", |v| {
            v == &json!(true)
        })
        .await;
        let (v, took) = run_timed(
            &server,
            Some(&page),
            json!([{"command": "upload", "selector": ".filepond--root", "files": [NOTES, CSV]}]),
        )
        .await;
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        record_rtt("FilePond 4.32.12, its input, 2 files of 24 bytes", took);
        let fp = eval_until(&server, &page, "window.fp", "FilePond read both files", |v| {
            v.as_array().is_some_and(|a| a.len() == 2)
        })
        .await;
        let mut names: Vec<&str> = fp
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["name"].as_str())
            .collect();
        names.sort_unstable();
        assert_eq!(names, ["data.csv", "notes.txt"], "{fp}");
        assert!(
            fp.as_array()
                .unwrap()
                .iter()
                .any(|f| f["text"] == "name,qty\nmilk,1\neggs,12\n"),
            "{fp}"
        );
    }
);

chromium_test!(upload_works_over_mcp_stdio_and_the_rust_api, Axum, |client, server| {
    let page = open(client, &server, "/upload/plain.html").await;
    let args = json!({"client": page, "steps": [{"command": "upload", "label": "Attachments", "files": [NOTES]}]});
    let server_ref = &server;
    let answer = tokio::task::block_in_place(|| mcp_tool(server_ref, "browser_run", args));
    assert_ne!(answer["isError"], true, "{answer}");
    assert!(
        answer.to_string().contains("uploaded \\\"notes.txt\\\" (24 bytes)"),
        "{answer}"
    );
    got(&server, &page, "many", 1).await;
    let agent: &BrowserAgent = &server.agent;
    let batch = Batch::new(vec![
        json!({"command": "upload", "label": "Attachments", "files": [CSV]}),
    ])
    .client(page.clone());
    let result = agent.run(batch).await.expect("the Rust API runs an upload");
    let text = result.steps[0].result_str().unwrap_or_default();
    assert!(text.starts_with("uploaded \"data.csv\" (24 bytes) into "), "{text}");
    // A stdio line, as an agent that runs the host as its child sends it.
    let line = json!({"action": "browser", "client": page, "steps": [
        {"command": "upload", "label": "Attachments", "files": [{"name": "s.txt", "data": "c3RkaW8="}]}
    ]});
    let mut out = Vec::new();
    agent
        .serve_io(format!("{line}\n").as_bytes(), &mut out)
        .await
        .expect("the stdio bridge answers");
    let answer: Value = serde_json::from_slice(out.split(|b| *b == b'\n').next().unwrap_or_default()).unwrap();
    assert!(
        answer["steps"][0]["result"]
            .as_str()
            .is_some_and(|r| r.starts_with("uploaded \"s.txt\" (5 bytes) into ")),
        "{answer}"
    );
});

/// A host whose project root is a fresh folder with a file, a folder, a big file and a symlink
/// that leads out of it; no page is needed: each refusal comes before the batch is queued.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_refuses_files_outside_the_root_missing_or_too_big_with_json() {
    let root = browser_tests::scratch().join("upload-root");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("ok.txt"), b"fine").unwrap();
    std::fs::write(root.parent().unwrap().join("secret.txt"), b"secret").unwrap();
    std::os::unix::fs::symlink(root.parent().unwrap().join("secret.txt"), root.join("escape.txt")).unwrap();
    let big = std::fs::File::create(root.join("big.bin")).unwrap();
    big.set_len(browser_agent_core::protocol::upload::MAX_FILE_BYTES + 1)
        .unwrap();
    let agent = BrowserAgent::builder()
        .enabled(true)
        .page_key(browser_tests::PAGE_KEY)
        .project_root(&root)
        .build();
    let server = browser_tests::Server::start_on(Axum, agent, browser_tests::any_port());
    let step = |files: Value| json!({"steps": [{"command": "upload", "selector": "input", "files": files}]});
    let cases = [
        (
            json!(["../secret.txt"]),
            403,
            "files[0] \"../secret.txt\" is outside the project root",
        ),
        (json!(["/etc/hostname"]), 403, "is outside the project root"),
        (
            json!(["escape.txt"]),
            403,
            "\"escape.txt\" is a symlink that leads outside the project root",
        ),
        (
            json!(["missing.png"]),
            400,
            "\"missing.png\": no such file under the project root",
        ),
        (json!(["sub"]), 400, "\"sub\" is a folder"),
        (
            json!(["big.bin"]),
            413,
            "\"big.bin\" is 8388609 bytes, more than the 8388608 a file may have",
        ),
        (
            json!([{"name": "x", "data": "not base64!"}]),
            400,
            "files[0].data is not base64",
        ),
        (json!([{"data": "aGk="}]), 400, "inline data needs a \"name\""),
        (json!([]), 400, "a list of 1 to 32 files, got 0"),
    ];
    for (files, status, says) in cases {
        let (got_status, body) = run_raw(&server, step(files.clone())).await;
        assert_eq!(got_status, status, "{files}: {body}");
        assert_eq!(body["event"], "command-error", "{body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(error.starts_with("step 1 (nothing ran): "), "{error}");
        assert!(error.contains(says), "{files}: {error}");
    }
    // A file inside the root passes the host's checks: what stops it is that no page is open.
    let (status, body) = run_raw(&server, step(json!(["ok.txt"]))).await;
    assert_eq!(status, 503, "{body}");
    server.stop();
}

/// A 4 MiB file read by a host whose project root is a scratch folder: the page gets every byte
/// (its size and its first bytes); the round trip is recorded for docs/upload.md.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_4_mib_file_reaches_the_page_whole() {
    let browser = browser_tests::shared_browser().await;
    let root = browser_tests::scratch().join("upload-big");
    std::fs::create_dir_all(&root).unwrap();
    let mut bytes: Vec<u8> = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend((0..4 * 1024 * 1024 - 8).map(|i| (i % 251) as u8));
    std::fs::write(root.join("big.png"), &bytes).unwrap();
    let agent = BrowserAgent::builder()
        .enabled(true)
        .page_key(browser_tests::PAGE_KEY)
        .project_root(&root)
        .build();
    let server = browser_tests::Server::start_on(Axum, agent, browser_tests::any_port());
    browser_tests::within(
        "a_4_mib_file_reaches_the_page_whole",
        browser_tests::SCENARIO_DEADLINE,
        async {
            let page = open(&browser.client, &server, "/upload/plain.html").await;
            let (v, took) = run_timed(
                &server,
                Some(&page),
                json!([{"command": "upload", "label": "Attachments", "files": ["big.png"]}]),
            )
            .await;
            assert!(v["steps"][0]["error"].is_null(), "{v}");
            let many = got(&server, &page, "many", 1).await;
            assert_eq!(many[0]["size"], bytes.len());
            assert_eq!(many[0]["head"], PNG_HEAD);
            record_rtt("plain input, a 4 MiB path", took);
        },
    )
    .await;
    server.stop();
}
