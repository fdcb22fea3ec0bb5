//! What a snapshot leaves out, on the tree the walk built: the tail of long runs of children past
//! the budget ([`fit`]), a window of a container's children ([`window`]), the branches that match
//! a text ([`filter`]). Each run left out becomes one line of the grammar's [`CUT`] role that says
//! how many and how to get them: `… 1,960 more listitem (snapshot {"ref":"e3","offset":40})`.
//!
//! Pure functions over [`SnapshotNode`]s (host unit tests); the walker marks the containers that
//! may be cut (their `ref_id` is set: a real ref, or a placeholder the caller turns into one).
//!
//! A budgeted walk need not visit what [`fit`] will certainly cut: once a container's children
//! are, at their [`least_size`], over the budget, the walker stands a [`skipped`] node in for the
//! rest of their run of similar siblings, and `fit` counts it as the nodes it stands for.

use crate::text::{ci_contains, parse_number, push_number};
use browser_agent_protocol::snapshot::{is_flat_row, push_escaped, render, Attr, SnapshotNode, CUT};

/// The fields of a view that its cut lines' steps repeat (`,"filter":"…"`, `,"viewport":true`,
/// a `,"budget":N` the step gave), so following a cut line pages on through the same view.
pub(crate) fn view_fields(filter: Option<&str>, viewport: bool, budget: Option<usize>) -> String {
    let mut fields = String::new();
    if let Some(f) = filter {
        fields.push_str(",\"filter\":\"");
        push_escaped(&mut fields, f);
        fields.push('"');
    }
    if viewport {
        fields.push_str(",\"viewport\":true");
    }
    if let Some(b) = budget {
        fields.push_str(",\"budget\":");
        push_number(&mut fields, b as u32);
    }
    fields
}

/// The role of a node that stands for a run of siblings the walk skipped (never rendered: it is
/// always past the budget's cut). Its name is the run's role, its `ref_id` how many it stands for.
pub(crate) const SKIPPED: &str = "\u{2}";

/// The node standing for `count` skipped siblings of the role `role`.
pub(crate) fn skipped(role: String, count: usize) -> SnapshotNode {
    let mut n = String::new();
    push_number(&mut n, count as u32);
    SnapshotNode {
        role: SKIPPED.to_owned(),
        name: role,
        ref_id: Some(n),
        ..Default::default()
    }
}

/// How many nodes `n` stands for: a [`skipped`] run its count, any other node one.
fn weight(n: &SnapshotNode) -> usize {
    if n.role == SKIPPED {
        n.ref_id
            .as_deref()
            .and_then(parse_number)
            .map_or(0, |c| c.max(0) as usize)
    } else {
        1
    }
}

/// The role a node shows in a cut line (a skipped run's: the role of its siblings).
fn shown_role(n: &SnapshotNode) -> &str {
    if n.role == SKIPPED {
        &n.name
    } else {
        &n.role
    }
}

/// A container with fewer children than this is never cut.
pub(crate) const CUT_MIN: usize = 10;

/// Fewest children of a cut container that stay.
const KEEP_MIN: usize = 3;

/// Whether `n` may lose the tail of its children.
fn cuttable(n: &SnapshotNode) -> bool {
    n.children.len() >= CUT_MIN && n.ref_id.is_some()
}

/// The fewest characters `n` renders in as a child of a container, whatever [`fit`] keeps: its
/// line (at least one level deep) and its children's, unless it may be cut (then they may all go
/// but a few). What a walk may skip is decided on it.
pub(crate) fn least_size(n: &SnapshotNode, depth: usize) -> usize {
    let (own, whole) = own_size(n, depth);
    if whole || cuttable(n) {
        own
    } else {
        own + n.children.iter().map(|c| least_size(c, depth + 1)).sum::<usize>()
    }
}

/// What `n`'s own line costs at `depth` (indent, line, line break), and whether that line holds
/// its children too: a table row on one line carries its cells, which cost much less there than
/// on lines of their own (sizing them as lines left a 1,000-row table at 73 % of its budget).
fn own_size(n: &SnapshotNode, depth: usize) -> (usize, bool) {
    let whole = is_flat_row(n);
    let line = if whole {
        render(core::slice::from_ref(n)).len()
    } else {
        n.line().len()
    };
    (line + 2 * depth + 1, whole)
}

/// The rendered size of each node: its own line, indent and line break (a fold's `: ` costs what
/// the line break and indent it saves), and its children's.
struct Size {
    own: usize,
    kids: Vec<Size>,
}

fn sizes(n: &SnapshotNode, depth: usize) -> Size {
    let (own, whole) = own_size(n, depth);
    Size {
        // (A skipped run is always past the cut: it is never part of a size that fits.)
        own: if n.role == SKIPPED { 0 } else { own },
        // A row on one line has its cells' size in its own (no kids: `size_with` adds none).
        kids: if whole {
            Vec::new()
        } else {
            n.children.iter().map(|c| sizes(c, depth + 1)).collect()
        },
    }
}

/// A cut line's length, about.
const CUT_LINE: usize = 64;

/// The size of `n` when every cuttable container keeps `keep` children.
fn size_with(n: &SnapshotNode, s: &Size, keep: usize) -> usize {
    let cut = cuttable(n) && n.children.len() > keep;
    let shown = if cut { keep } else { n.children.len() };
    let kids: usize = n
        .children
        .iter()
        .zip(&s.kids)
        .take(shown)
        .map(|(c, cs)| size_with(c, cs, keep))
        .sum();
    s.own + kids + if cut { CUT_LINE } else { 0 }
}

/// The forest's size when the forest itself (if `root_cuttable`) and every cuttable container keep `keep`.
fn forest_size(nodes: &[SnapshotNode], s: &[Size], keep: usize, root_cuttable: bool) -> usize {
    let shown = if root_cuttable && nodes.len() > keep {
        keep
    } else {
        nodes.len()
    };
    nodes
        .iter()
        .zip(s)
        .take(shown)
        .map(|(n, ns)| size_with(n, ns, keep))
        .sum()
}

/// How a cut container's line names it: its ref (or none at the top of the page) and the index of
/// its first child shown (not 0 when the snapshot was asked for an `offset`).
pub(crate) struct Place<'a> {
    pub(crate) reference: Option<String>,
    pub(crate) base: usize,
    /// The view's [`view_fields`].
    pub(crate) fields: &'a str,
}

/// Cuts the forest to about `max_chars`: every container marked cuttable (and the forest itself,
/// with `root`) keeps the same number of children, the largest that fits, never fewer than a few.
/// `place` names a cut container (its ref; the walker's placeholder becomes a real one). Returns
/// how many nodes were left out (subtrees count once).
pub(crate) fn fit<'a>(
    nodes: &mut Vec<SnapshotNode>,
    max_chars: usize,
    root: Option<Place<'a>>,
    place: &mut dyn FnMut(&mut SnapshotNode) -> Place<'a>,
) -> usize {
    let s: Vec<Size> = nodes.iter().map(|n| sizes(n, 0)).collect();
    let root_cuttable = root.is_some() && nodes.len() >= CUT_MIN;
    let widest = nodes.iter().map(widest_run).max().unwrap_or(0).max(nodes.len());
    if forest_size(nodes, &s, widest, root_cuttable) <= max_chars {
        return 0;
    }
    // The largest `keep` that fits: sizes grow with `keep`.
    let (mut lo, mut hi) = (KEEP_MIN, widest);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if forest_size(nodes, &s, mid, root_cuttable) <= max_chars {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut left_out = 0;
    for n in nodes.iter_mut() {
        left_out += cut_tree(n, lo, place);
    }
    if let Some(root) = root.filter(|_| root_cuttable && nodes.len() > lo) {
        left_out += cut_children(nodes, lo, &root);
    }
    left_out
}

/// The most children any node below `n` (itself included) has.
fn widest_run(n: &SnapshotNode) -> usize {
    n.children
        .iter()
        .map(widest_run)
        .max()
        .unwrap_or(0)
        .max(n.children.len())
}

fn cut_tree<'a>(n: &mut SnapshotNode, keep: usize, place: &mut dyn FnMut(&mut SnapshotNode) -> Place<'a>) -> usize {
    let cut = cuttable(n) && n.children.len() > keep;
    let shown = if cut { keep } else { n.children.len() };
    let mut left_out = 0;
    for c in n.children.iter_mut().take(shown) {
        left_out += cut_tree(c, keep, place);
    }
    if cut {
        let at = place(n);
        left_out += cut_children(&mut n.children, keep, &at);
    }
    left_out
}

/// Keeps the first `keep` of `children` and says how to get the rest; returns how many went.
fn cut_children(children: &mut Vec<SnapshotNode>, keep: usize, at: &Place<'_>) -> usize {
    let gone: Vec<SnapshotNode> = children.drain(keep.min(children.len())..).collect();
    let n = gone.iter().map(weight).sum();
    if !gone.is_empty() {
        children.push(cut_line(&gone, at.reference.as_deref(), at.base + keep, at.fields));
    }
    n
}

/// The line for the `gone` nodes: `… 1,960 more listitem (snapshot {"ref":"e3","offset":40})`,
/// with the view's `filter` and `viewport` ([`view_fields`]).
pub(crate) fn cut_line(gone: &[SnapshotNode], reference: Option<&str>, offset: usize, fields: &str) -> SnapshotNode {
    let role = gone.first().map_or("", shown_role);
    let role = if gone.iter().all(|g| shown_role(g) == role) {
        if role.is_empty() {
            "text"
        } else {
            role
        }
    } else {
        "nodes"
    };
    let mut name = String::new();
    push_grouped(&mut name, gone.iter().map(weight).sum());
    name.push_str(" more ");
    name.push_str(role);
    name.push_str(" (snapshot {");
    if let Some(r) = reference {
        name.push_str("\"ref\":\"");
        name.push_str(r);
        name.push_str("\",");
    }
    name.push_str("\"offset\":");
    push_number(&mut name, offset as u32);
    name.push_str(fields);
    name.push_str("})");
    cut_node(name)
}

/// A `… {text}` line.
fn cut_node(text: String) -> SnapshotNode {
    SnapshotNode {
        role: CUT.to_owned(),
        name: text,
        ..Default::default()
    }
}

/// `n` with thousands separated by commas (`1,960`).
fn push_grouped(out: &mut String, n: usize) {
    let mut digits = String::new();
    push_number(&mut digits, n as u32);
    let len = digits.len();
    for (i, d) in digits.bytes().enumerate() {
        if i > 0 && (len - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(char::from(d));
    }
}

/// The children `offset .. offset + limit` of `nodes`, with a cut line for those after them.
/// Counted by weight: a paged walk stands one [`skipped`] node for a run of children it did not
/// walk, before the window or after it (never inside: see `walker::page`).
pub(crate) fn window(
    nodes: &mut Vec<SnapshotNode>,
    offset: usize,
    limit: Option<usize>,
    reference: Option<&str>,
    fields: &str,
) {
    let total: usize = nodes.iter().map(weight).sum();
    let (mut start, mut before) = (0, 0);
    while start < nodes.len() && before + weight(&nodes[start]) <= offset {
        before += weight(&nodes[start]);
        start += 1;
    }
    nodes.drain(..start);
    // Past the end: say where the end is, not a bare container line that reads as an empty list.
    if offset > 0 && nodes.is_empty() {
        let mut name = String::from("offset ");
        push_grouped(&mut name, offset);
        name.push_str(" is past the end (");
        push_grouped(&mut name, total);
        name.push_str(" in all)");
        nodes.push(cut_node(name));
        return;
    }
    if let Some(limit) = limit {
        if nodes.len() > limit {
            let gone: Vec<SnapshotNode> = nodes.drain(limit..).collect();
            nodes.push(cut_line(&gone, reference, offset + limit, fields));
        }
    }
}

/// Only the branches with a node whose line contains `text` (ASCII case-insensitive), with their
/// ancestors; a matching node keeps its whole subtree, and a matching heading its section (the
/// siblings after it, up to the next heading of its level or above): `filter: "Priorities"` is
/// the list under that heading, not the heading alone. An open dialog or popup stays whole wherever
/// it is: what the page put on top of the section is what the next step meets.
pub(crate) fn filter(nodes: Vec<SnapshotNode>, text: &str) -> Vec<SnapshotNode> {
    let mut out = Vec::new();
    // The level of the matching heading whose section the siblings are in.
    let mut section: Option<u8> = None;
    for mut n in nodes {
        if let Some(level) = section {
            if heading_level(&n).is_some_and(|l| l <= level) {
                section = None;
            } else {
                out.push(n);
                continue;
            }
        }
        if ci_contains(&n.line(), text) {
            section = heading_level(&n);
            out.push(n);
            continue;
        }
        if matches!(n.role.as_ref(), "dialog" | "alertdialog") {
            out.push(n);
            continue;
        }
        n.children = filter(core::mem::take(&mut n.children), text);
        if !n.children.is_empty() {
            out.push(n);
        }
    }
    out
}

/// A heading's level (2 when it says none, as ARIA's default); `None` for any other node.
fn heading_level(n: &SnapshotNode) -> Option<u8> {
    (n.role == "heading").then(|| {
        n.attrs
            .iter()
            .find_map(|a| match a {
                Attr::Level(l) => Some(*l),
                _ => None,
            })
            .unwrap_or(2)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use browser_agent_protocol::snapshot::render;

    fn list(items: usize) -> Vec<SnapshotNode> {
        let mut list = SnapshotNode::new("list", "").with_ref("?");
        for i in 0..items {
            list = list.child(
                SnapshotNode::new("listitem", "")
                    .child(SnapshotNode::new("checkbox", format!("Item {i}")).with_ref(format!("e{}", 2 * i + 1)))
                    .child(SnapshotNode::new("button", "Remove").with_ref(format!("e{}", 2 * i + 2))),
            );
        }
        vec![SnapshotNode::new("heading", "Inventory"), list]
    }

    #[test]
    fn long_lists_are_cut_to_the_budget_and_say_how_to_get_the_rest() {
        let mut nodes = list(2000);
        let full = render(&nodes).len();
        let mut placed = 0;
        let left = fit(
            &mut nodes,
            8_000,
            Some(Place {
                reference: None,
                base: 0,
                fields: "",
            }),
            &mut |n| {
                placed += 1;
                n.ref_id = Some("e4001".into());
                Place {
                    reference: n.ref_id.clone(),
                    base: 0,
                    fields: "",
                }
            },
        );
        let text = render(&nodes);
        assert!(
            full > 100_000 && text.len() <= 8_000 && text.len() > 6_000,
            "{}",
            text.len()
        );
        assert_eq!(placed, 1);
        let kept = nodes[1].children.len() - 1;
        assert_eq!(left, 2000 - kept);
        let last = text.lines().last().unwrap();
        let mut want = String::from("  … ");
        push_grouped(&mut want, 2000 - kept);
        want.push_str(" more listitem (snapshot {\"ref\":\"e4001\",\"offset\":");
        push_number(&mut want, kept as u32);
        want.push_str("})");
        assert_eq!(last, want);
        // Under the budget: nothing is cut.
        let mut small = list(5);
        assert_eq!(fit(&mut small, 8_000, None, &mut |_| unreachable!()), 0);
        assert_eq!(small, list(5));
    }

    /// What a lazy walk of `nodes` builds: in each cuttable container, once its children are over
    /// `max` at their least size (and at least [`CUT_MIN`]), the rest stand as one skipped run.
    fn lazily(mut nodes: Vec<SnapshotNode>, max: usize) -> Vec<SnapshotNode> {
        for n in &mut nodes {
            let mut kids = core::mem::take(&mut n.children);
            let (mut size, mut k) = (0, 0);
            while k < kids.len() {
                size += least_size(&kids[k], 1);
                k += 1;
                if k >= CUT_MIN && size > max && k < kids.len() {
                    let role = kids[k].role.clone();
                    let rest = kids.len() - k;
                    kids.truncate(k);
                    kids.push(skipped(role, rest));
                    break;
                }
            }
            n.children = lazily(kids, max);
        }
        nodes
    }

    #[test]
    fn a_lazy_walk_gives_the_same_cut_as_a_whole_one() {
        let root = || Place {
            reference: None,
            base: 0,
            fields: "",
        };
        for items in [12, 300, 2000] {
            for tokens in [100, 1_000, 8_000, 30_000] {
                let max = tokens * 11 / 4;
                let mut whole = list(items);
                let mut lazy = lazily(list(items), max);
                let place = &mut |n: &mut SnapshotNode| {
                    n.ref_id = Some("e9999".into());
                    Place {
                        reference: n.ref_id.clone(),
                        base: 0,
                        fields: "",
                    }
                };
                let left_whole = fit(&mut whole, max, Some(root()), place);
                let left_lazy = fit(&mut lazy, max, Some(root()), place);
                assert_eq!(render(&lazy), render(&whole), "{items} items, {tokens} tokens");
                assert_eq!(left_lazy, left_whole, "{items} items, {tokens} tokens");
                assert!(!render(&lazy).contains(SKIPPED));
            }
        }
        // The cut line counts a skipped run as the nodes it stands for.
        let gone = [SnapshotNode::new("listitem", ""), skipped("listitem".into(), 1_999)];
        assert_eq!(
            cut_line(&gone, Some("e3"), 1, "").line(),
            "… 2,000 more listitem (snapshot {\"ref\":\"e3\",\"offset\":1})"
        );
    }

    #[test]
    fn windows_and_filters() {
        let mut nodes = list(50).remove(1).children;
        window(&mut nodes, 40, Some(5), Some("e9"), "");
        assert_eq!(nodes.len(), 6);
        assert_eq!(nodes[0].children[0].name, "Item 40");
        assert_eq!(
            nodes[5].line(),
            "… 5 more listitem (snapshot {\"ref\":\"e9\",\"offset\":45})"
        );
        // Past the end, or at it: where the end is.
        for offset in [50, 2_500] {
            let mut nodes = list(50).remove(1).children;
            window(&mut nodes, offset, None, Some("e9"), "");
            let mut past = String::from("… offset ");
            push_grouped(&mut past, offset);
            assert_eq!(render(&nodes), past + " is past the end (50 in all)");
        }
        let mut nodes = list(50).remove(1).children;
        window(&mut nodes, 49, None, Some("e9"), "");
        assert_eq!(nodes.len(), 1, "the last child is no past-the-end line");
        let found = filter(list(50), "item 42");
        assert_eq!(render(&found), "list [ref=?]: listitem: checkbox \"Item 42\" [ref=e85]");
        // A heading brings its section: the siblings up to the next heading of its level.
        let page = vec![
            SnapshotNode::new("heading", "Board").attr(Attr::Level(2)),
            SnapshotNode::new("", "To do 2"),
            SnapshotNode::new("heading", "Priorities").attr(Attr::Level(2)),
            SnapshotNode::new("", "Drag the handles"),
            SnapshotNode::new("heading", "Notes").attr(Attr::Level(3)),
            SnapshotNode::new("list", "").child(SnapshotNode::new("listitem", "1. Security")),
            SnapshotNode::new("heading", "Settings").attr(Attr::Level(2)),
            SnapshotNode::new("button", "Avatar").with_ref("e6"),
        ];
        assert_eq!(
            render(&filter(page.clone(), "priorities")),
            "heading \"Priorities\" [level=2]\n\"Drag the handles\"\nheading \"Notes\" [level=3]\nlist: listitem \"1. Security\""
        );
        assert_eq!(render(&filter(page.clone(), "avatar")), "button \"Avatar\" [ref=e6]");
        // An open popup outside the section stays.
        let mut with_popup = page;
        with_popup.push(
            SnapshotNode::new("dialog", "Plan").child(SnapshotNode::new("button", "Confirm plan").with_ref("e9")),
        );
        assert_eq!(
            render(&filter(with_popup, "avatar")),
            "button \"Avatar\" [ref=e6]\ndialog \"Plan\": button \"Confirm plan\" [ref=e9]"
        );
        let mut s = String::new();
        push_grouped(&mut s, 1234567);
        assert_eq!(s, "1,234,567");
    }
}
