//! Every `rust` snippet of the root README is a doc test of an adapter crate: its lines appear, in
//! order, in the visible lines of a code block of `browser-agent-tower/README.md` or
//! `browser-agent-actix/README.md`, which are those crates' docs (`#![doc = include_str!(…)]`) and
//! which rustdoc compiles with only that adapter as a dependency. Edit a snippet in one place and
//! this test says where the other copy is.

use std::path::Path;

/// The lines of each code block of a markdown text whose info string starts with `rust`; with
/// `visible`, without the lines rustdoc hides (`#` and `# …`).
fn rust_blocks(markdown: &str, visible: bool) -> Vec<Vec<String>> {
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
            Some(_) if visible && (fence == "#" || fence.starts_with("# ")) => {}
            Some(block) => block.push(line.to_owned()),
            None => {}
        }
    }
    blocks
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
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect(p);
    let readme = read("README.md");
    let crates = ["browser-agent-tower/README.md", "browser-agent-actix/README.md"]
        .map(|p| rust_blocks(&read(p), true).concat());
    let blocks = rust_blocks(&readme, false);
    assert!(blocks.len() >= 2, "the README's axum and actix snippets were not found");
    for block in blocks {
        assert!(
            crates.iter().any(|lines| occurs_in_order(&block, lines)),
            "this README snippet is not (or no longer) a doc test of browser-agent-tower or \
             browser-agent-actix; copy it into one of their READMEs:\n{}",
            block.join("\n")
        );
    }
}

#[test]
fn the_adapters_docs_are_their_readmes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for lib in ["browser-agent-tower/src/lib.rs", "browser-agent-actix/src/lib.rs"] {
        let source = std::fs::read_to_string(root.join(lib)).expect(lib);
        assert!(
            source.starts_with("#![doc = include_str!(\"../README.md\")]"),
            "{lib} should take its crate docs from its README"
        );
    }
}

#[test]
fn a_changed_snippet_is_noticed() {
    let docs = rust_blocks("```rust\n# use x;\nlet a = 1;\nlet b = 2;\n```\n", true).concat();
    assert_eq!(docs, ["let a = 1;", "let b = 2;"]);
    assert!(occurs_in_order(
        &["let a = 1;".into(), "".into(), "let b = 2;".into()],
        &docs
    ));
    assert!(!occurs_in_order(&["let b = 2;".into(), "let a = 1;".into()], &docs));
    assert!(!occurs_in_order(&["let a = 3;".into()], &docs));
}
