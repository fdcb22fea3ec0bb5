//! The `audit` step on every snapshot fixture (issue 35 item 4): time of a page's first audit and
//! of the next, and the answer's size; the answers go to `target/audit/` for the token count in
//! docs/audit.md.
//!
//! ```sh
//! TMPDIR=$PWD/target/tmp cargo bench -p browser-tests --bench audit
//! ```

use std::time::Duration;

use browser_tests::Framework::Axum;
use browser_tests::{ok, open, run_timed};
use serde_json::json;

/// Audits each snapshot fixture twice (the first audit on a page loads and compiles axe; the
/// browser's cache serves the module after the first page) and prints time and size; the answers
/// go to target/audit/ for the token count in docs/audit.md.
#[tokio::main]
async fn main() {
    let browser = browser_tests::shared_browser().await;
    let server = browser_tests::Server::start_on(Axum, browser_tests::agent(), browser_tests::any_port());
    let client = &browser.client;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/audit");
    std::fs::create_dir_all(&dir).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(browser_tests::fixtures_dir().join("snapshot"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".html"))
        .collect();
    names.sort();
    // Warm the browser's cache of the module, so each row is a page's first audit, not the download.
    let page = open(client, &server, "/audit/clean.html").await;
    let (_, cold) = run_timed(&server, Some(&page), json!([{"command": "audit"}])).await;
    println!(
        "first audit in this browser (module downloaded): {} ms\n",
        cold.as_millis()
    );
    println!("| fixture | violations | first audit (ms) | again (ms) | chars |");
    println!("|---|---:|---:|---:|---:|");
    for name in names {
        let page = open(client, &server, &format!("/snapshot/{name}")).await;
        ok(&server, &page, json!({"command": "snapshot"})).await;
        let mut times = Vec::new();
        let mut text = String::new();
        for _ in 0..2 {
            let (v, took) = run_timed(&server, Some(&page), json!([{"command": "audit"}])).await;
            times.push(took);
            text = v["steps"][0]["result"].as_str().unwrap_or_default().to_owned();
        }
        std::fs::write(dir.join(name.replace(".html", ".txt")), &text).unwrap();
        let head = text.lines().next().unwrap_or_default();
        let found = head.rsplit("): ").next().unwrap_or_default();
        let ms = |d: Duration| d.as_millis();
        println!(
            "| {name} | {found} | {} | {} | {} |",
            ms(times[0]),
            ms(times[1]),
            text.chars().count()
        );
    }
}
