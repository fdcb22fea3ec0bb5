//! The `audit` step (issue 35, item 4) in real headless Chromium: axe-core, loaded on the first
//! audit as the module `audit-{rev}.js`, runs on the page or inside a target, and the answer groups
//! the violations by rule with each element as the snapshot names it, with its ref.
//!
//! Fixtures: `fixtures/audit/violations.html` (an image without alt text, a button without a
//! name, low-contrast text, a field without a label) and `fixtures/audit/clean.html`.
//!
//! The bench `audit` (`cargo bench -p browser-tests --bench audit`) audits every snapshot fixture
//! and prints the table in docs/audit.md.

use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, exec, fails, mcp_tool, ok, open, ref_in, run_raw, snapshot};
use serde_json::json;

/// The page's resource timing entries for the audit module (`[name]` each).
const AUDIT_FETCHED: &str = "return performance.getEntriesByType('resource')
    .filter(e => /\\/assets\\/audit-[0-9a-f]+\\.js$/.test(e.name)).map(e => e.name);";

/// The audit step's text result.
async fn audit(server: &browser_tests::Server, page: &str, step: serde_json::Value) -> String {
    let r = ok(server, page, step.clone()).await;
    r["result"]
        .as_str()
        .unwrap_or_else(|| panic!("{step}: a text result: {r}"))
        .to_owned()
}

/// The block of rule `id` in an audit's text: its line and the indented lines under it.
fn rule<'a>(text: &'a str, id: &str) -> Vec<&'a str> {
    let mut lines = text
        .lines()
        .skip_while(|l| l.split(' ').nth(1).is_none_or(|w| w != format!("{id}:")));
    let Some(head) = lines.next() else {
        panic!("no rule {id} in:\n{text}")
    };
    std::iter::once(head)
        .chain(lines.take_while(|l| l.starts_with("  ")))
        .collect()
}

/// The ref of the element line under a rule that contains `needle`.
fn ref_under(block: &[&str], needle: &str) -> String {
    let line = block
        .iter()
        .find(|l| l.starts_with("  - ") && l.contains(needle))
        .unwrap_or_else(|| panic!("no element with {needle:?} in {block:#?}"));
    let at = line.find("[ref=").expect("a ref") + 5;
    line[at..].split(']').next().unwrap().to_owned()
}

chromium_test!(audit_names_each_rule_with_the_right_refs, Axum, |client, server| {
    let page = open(client, &server, "/audit/violations.html").await;
    // The hands run (a snapshot), yet nothing of axe was fetched: it loads on the first audit.
    let snap = snapshot(&server, &page).await;
    assert_eq!(exec(client, AUDIT_FETCHED).await, json!([]), "no audit, no axe");
    let button = ref_in(&snap, "button [ref=");
    let field = ref_in(&snap, "textbox");

    let text = audit(&server, &page, json!({"command": "audit"})).await;
    let fetched = exec(client, AUDIT_FETCHED).await;
    assert_eq!(fetched.as_array().map(Vec::len), Some(1), "fetched once: {fetched}");
    assert!(
        text.starts_with("audit of the page (axe-core 4.14.1, ") && text.contains("4 rules violated on 4 elements"),
        "{text}"
    );
    // Each rule, with its impact and the fix axe suggests, and the element the snapshot names.
    let image = rule(&text, "image-alt");
    assert!(
        image[0].starts_with("critical image-alt: Images must have alternative text (1)"),
        "{text}"
    );
    assert!(
        image[1].starts_with("  fix any of: ") && image[1].contains("alt attribute"),
        "{text}"
    );
    let img = ref_under(&image, "img");
    let buttons = rule(&text, "button-name");
    assert!(buttons[0].starts_with("critical button-name: "), "{text}");
    assert_eq!(
        ref_under(&buttons, "button"),
        button,
        "the snapshot's ref of the button:\n{text}"
    );
    let label = rule(&text, "label");
    assert!(label[0].starts_with("critical label: "), "{text}");
    assert_eq!(
        ref_under(&label, "textbox"),
        field,
        "the snapshot's ref of the field:\n{text}"
    );
    let contrast = rule(&text, "color-contrast");
    assert!(contrast[0].starts_with("serious color-contrast: "), "{text}");
    assert!(
        contrast
            .iter()
            .any(|l| l.contains("contrast of 1.") && l.contains("#c0c0c0")),
        "axe's finding: {text}"
    );
    let faint = ref_under(&contrast, "Offers end soon");
    // What axe could not decide names its elements (round 8: only the rule was named).
    let undecided = &text[text
        .find("\nneeds a person to check (axe could not decide):\n")
        .unwrap_or_else(|| panic!("{text}"))..];
    assert!(
        undecided.contains("\n  color-contrast: ")
            && undecided.contains("\"Free shipping\"")
            && undecided.contains("[ref="),
        "{text}"
    );
    // Rules most severe first: the three critical ones before the serious one.
    assert!(text.find("critical label").unwrap() < text.find("serious color-contrast").unwrap());

    // The refs name those elements: an audit inside each says which element it audited.
    let inside = audit(&server, &page, json!({"command": "audit", "ref": img})).await;
    assert!(
        inside.starts_with(&format!("audit of img [ref={img}] (img#photo) (axe-core")),
        "{inside}"
    );
    let inside = audit(&server, &page, json!({"command": "audit", "ref": faint})).await;
    assert!(
        inside.contains("color-contrast") && !inside.contains("image-alt"),
        "{inside}"
    );
    // Later audits reuse the module.
    assert_eq!(exec(client, AUDIT_FETCHED).await, fetched, "not fetched again");
    // Loading axe left the page's globals as they were.
    assert_eq!(exec(client, "return typeof window.axe;").await, json!("undefined"));
});

chromium_test!(a_scoped_audit_reports_only_inside_its_target, Axum, |client, server| {
    let page = open(client, &server, "/audit/violations.html").await;
    let snap = snapshot(&server, &page).await;
    let field = ref_in(&snap, "textbox");
    // The field alone: only its missing label.
    let text = audit(&server, &page, json!({"command": "audit", "ref": field})).await;
    assert!(text.starts_with(&format!("audit of textbox [ref={field}] (")), "{text}");
    assert!(text.contains("1 rule violated on 1 element"), "{text}");
    assert_eq!(ref_under(&rule(&text, "label"), "textbox"), field);
    // The sign-up section (any target field works): its two violations, not the product's.
    let text = audit(&server, &page, json!({"command": "audit", "selector": "#signup"})).await;
    assert!(text.contains("2 rules violated on 2 elements"), "{text}");
    assert!(
        text.contains(" label: ") && text.contains(" color-contrast: "),
        "{text}"
    );
    assert!(!text.contains("image-alt") && !text.contains("button-name"), "{text}");
    // Elements per rule are capped by `limit`, saying how many more there are.
    let text = audit(&server, &page, json!({"command": "audit", "limit": 0})).await;
    assert!(text.contains("\n  … 1 more (a higher \"limit\" lists them)"), "{text}");
    assert!(!text.contains("[ref="), "{text}");
    // A target that is not there fails the step, as for any other command.
    let e = fails(&server, &page, json!({"command": "audit", "ref": "e999"})).await;
    assert!(e.contains("e999"), "{e}");
});

chromium_test!(a_clean_page_has_no_violations, Axum, |client, server| {
    let page = open(client, &server, "/audit/clean.html").await;
    let text = audit(&server, &page, json!({"command": "audit"})).await;
    assert!(text.starts_with("audit of the page (axe-core 4.14.1, "), "{text}");
    assert!(
        text.lines().next().unwrap().ends_with(" rules): no violations"),
        "{text}"
    );
    assert!(!text.contains("[ref="), "{text}");
});

chromium_test!(audit_is_validated_and_reaches_mcp, Axum, |client, server| {
    let page = open(client, &server, "/audit/violations.html").await;
    // An unknown field is refused by the host, naming it, before anything runs.
    let (status, v) = run_raw(
        &server,
        json!({"client": page, "steps": [{"command": "audit", "rules": ["image-alt"]}]}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert!(v.to_string().contains("\\\"rules\\\""), "{v}");
    let (status, v) = run_raw(
        &server,
        json!({"client": page, "steps": [{"command": "audit", "limit": -1}]}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert!(v.to_string().contains("limit"), "{v}");
    assert_eq!(exec(client, AUDIT_FETCHED).await, json!([]), "nothing ran");
    // MCP's browser_run carries it like any step.
    let answer = mcp_tool(
        &server,
        "browser_run",
        json!({"client": page, "steps": [{"command": "audit"}]}),
    );
    let text = answer["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("critical image-alt: ") && text.contains("[ref="),
        "{answer}"
    );
});
