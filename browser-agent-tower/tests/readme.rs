//! Every `rust` snippet of the README is a doc test of an adapter crate: its lines appear, in order,
//! in the visible lines of the crate docs' code blocks (`browser-agent-tower` or
//! `browser-agent-actix`), which rustdoc compiles with only that adapter as a dependency. Edit a
//! snippet in one place and this test says where the other copy is.

use std::path::Path;

/// The code blocks of a markdown text whose info string is `rust` (or starts with it).
fn readme_blocks(markdown: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in markdown.lines() {
        let fence = line.trim_start();
        match &mut current {
            None if fence.starts_with("```rust") => current = Some(Vec::new()),
            Some(block) if fence.starts_with("```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => block.push(line.to_owned()),
            None => {}
        }
    }
    blocks
}

/// The visible lines of the doc-test code blocks in a crate's `//!` docs (rustdoc hides `# ` lines).
fn doc_test_lines(source: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_code = false;
    for line in source.lines() {
        let Some(doc) = line.strip_prefix("//!") else { continue };
        let doc = doc.strip_prefix(' ').unwrap_or(doc);
        if doc.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code && !(doc.trim_start() == "#" || doc.trim_start().starts_with("# ")) {
            lines.push(doc.to_owned());
        }
    }
    lines
}

/// Whether `needle`'s non-empty lines occur in `haystack` in order (trailing spaces ignored).
fn occurs_in_order(needle: &[String], haystack: &[String]) -> bool {
    let mut rest = haystack.iter();
    needle
        .iter()
        .filter(|l| !l.trim().is_empty())
        .all(|l| rest.any(|h| h.trim_end() == l.trim_end()))
}

#[test]
fn every_readme_rust_snippet_is_an_adapter_doc_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let crates = ["browser-agent-tower/src/lib.rs", "browser-agent-actix/src/lib.rs"]
        .map(|p| doc_test_lines(&std::fs::read_to_string(root.join(p)).expect(p)));
    let blocks = readme_blocks(&readme);
    assert!(
        blocks.len() >= 4,
        "the README's install and From-Rust snippets were not found"
    );
    for block in blocks {
        assert!(
            crates.iter().any(|lines| occurs_in_order(&block, lines)),
            "this README snippet is not (or no longer) a doc test of browser-agent-tower or \
             browser-agent-actix; copy it into one of their lib.rs docs:\n{}",
            block.join("\n")
        );
    }
}

#[test]
fn a_changed_snippet_is_noticed() {
    let docs = doc_test_lines("//! ```\n//! # use x;\n//! let a = 1;\n//! let b = 2;\n//! ```\n");
    assert_eq!(docs, ["let a = 1;", "let b = 2;"]);
    assert!(occurs_in_order(
        &["let a = 1;".into(), "".into(), "let b = 2;".into()],
        &docs
    ));
    assert!(!occurs_in_order(&["let b = 2;".into(), "let a = 1;".into()], &docs));
    assert!(!occurs_in_order(&["let a = 3;".into()], &docs));
}
