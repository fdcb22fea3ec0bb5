//! What the agent has seen of the page: the ref lines of snapshots (`button "Save" [ref=e9]`),
//! kept to explain stale refs. Two stores: the last snapshot's lines, and the lines of every
//! snapshot before the running batch, by ref.

use crate::text::find_sub;
use std::cell::RefCell;

/// Most snapshot lines kept to explain stale refs.
const SEEN_MAX: usize = 2000;

thread_local! {
    /// The last snapshot's lines that carry refs, in order.
    static LAST: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// Snapshot lines with refs the agent may have seen, by ref (sorted).
    static SEEN: RefCell<Vec<(String, String)>> = const { RefCell::new(Vec::new()) };
}

/// Keeps the ref lines of a snapshot just taken: each node with a ref, its own line (a compact
/// line of the snapshot may hold several).
pub(crate) fn record(lines: Vec<String>) {
    LAST.with(|l| *l.borrow_mut() = lines);
}

/// The last snapshot's lines that carry refs.
pub(crate) fn last_lines() -> Vec<String> {
    LAST.with(|l| l.borrow().clone())
}

/// Adds the last snapshot's ref lines to what the agent has seen (a batch starts: the agent saw
/// the previous one).
pub(crate) fn remember() {
    let lines = last_lines();
    SEEN.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() + lines.len() > SEEN_MAX {
            s.clear();
        }
        for l in lines {
            let l = l.trim();
            let Some(at) = find_sub(l, "[ref=") else {
                continue;
            };
            let key = l.get(at + 5..).unwrap_or("").split(']').next().unwrap_or("").to_owned();
            match s.binary_search_by(|(k, _)| k.as_str().cmp(&key)) {
                Ok(i) => s[i].1 = l.to_owned(),
                Err(i) => s.insert(i, (key, l.to_owned())),
            }
        }
    });
}

/// The line a snapshot showed for ref `r` (`e9`), when the agent has seen one.
pub(crate) fn line_of(r: &str) -> Option<String> {
    SEEN.with(|s| {
        let s = s.borrow();
        s.binary_search_by(|(k, _)| k.as_str().cmp(r))
            .ok()
            .map(|i| s[i].1.clone())
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{last_lines, line_of, remember};
    use browser_agent_protocol::snapshot::parse;

    pub(crate) fn record(text: &str) {
        let mut lines = Vec::new();
        for n in parse(text) {
            n.walk(0, &mut |node, _| {
                if node.ref_id.is_some() {
                    lines.push(node.line());
                }
            });
        }
        super::record(lines);
    }

    #[test]
    fn remembers_ref_lines() {
        record("heading \"Shop\"\nbutton \"Save\" [ref=e9]\n  link \"Home\" [ref=f1e2]\n");
        assert_eq!(last_lines(), ["button \"Save\" [ref=e9]", "link \"Home\" [ref=f1e2]"]);
        assert_eq!(line_of("e9"), None);
        remember();
        assert_eq!(line_of("e9").as_deref(), Some("button \"Save\" [ref=e9]"));
        assert_eq!(line_of("f1e2").as_deref(), Some("link \"Home\" [ref=f1e2]"));
        record("button \"Saved\" [ref=e9]\n");
        remember();
        assert_eq!(line_of("e9").as_deref(), Some("button \"Saved\" [ref=e9]"));
        assert_eq!(line_of("f1e2").as_deref(), Some("link \"Home\" [ref=f1e2]"));
        record("listitem: link \"Docs\" [ref=e3]\nrow: \"a\", cell: button \"Go\" [ref=e4]");
        assert_eq!(last_lines(), ["link \"Docs\" [ref=e3]", "button \"Go\" [ref=e4]"]);
    }
}
