//! The snapshot grammar, shared by the page client (which builds the tree) and the host (which
//! renders, stores and diffs it): one node a line, two spaces per depth,
//! `role "name" [attr]… [ref=eN]`; a bare `"text"` line for loose text.
//!
//! ```
//! use browser_agent_core::snapshot::{Attr, SnapshotNode, render};
//! let tree = vec![SnapshotNode::new("form", "Sign up").child(
//!     SnapshotNode::new("textbox", "Email").attr(Attr::Value("ada@\"x\"".into())).with_ref("e2"),
//! )];
//! assert_eq!(render(&tree), "form \"Sign up\"\n  textbox \"Email\" [value=\"ada@\\\"x\\\"\"] [ref=e2]");
//! ```

use serde::{Deserialize, Serialize};

/// Names and texts longer than this many chars are cut with `…`.
pub const MAX_NAME_CHARS: usize = 80;

/// A state attribute, rendered in brackets after the name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "k", content = "v", rename_all = "lowercase")]
pub enum Attr {
    /// `[disabled]`
    Disabled,
    /// `[checked]`
    Checked,
    /// `[mixed]` (indeterminate checkbox, `aria-checked="mixed"`)
    Mixed,
    /// `[value="…"]`
    Value(String),
    /// `[placeholder="…"]` (only when it differs from the name)
    Placeholder(String),
    /// `[level=N]`
    Level(u8),
    /// `[expanded]`
    Expanded,
    /// `[collapsed]`
    Collapsed,
    /// `[selected]`
    Selected,
    /// `[pressed]`
    Pressed,
    /// `[open]`
    Open,
    /// `[required]`
    Required,
    /// `[url="…"]` (frames, and links whose text does not say where they go)
    Url(String),
}

impl Attr {
    fn render(&self, out: &mut String) {
        let quoted = |out: &mut String, key: &str, v: &str| {
            out.push('[');
            out.push_str(key);
            out.push_str("=\"");
            push_escaped(out, v);
            out.push_str("\"]");
        };
        match self {
            Attr::Disabled => out.push_str("[disabled]"),
            Attr::Checked => out.push_str("[checked]"),
            Attr::Mixed => out.push_str("[mixed]"),
            Attr::Value(v) => quoted(out, "value", v),
            Attr::Placeholder(v) => quoted(out, "placeholder", v),
            Attr::Level(n) => {
                out.push_str("[level=");
                push_decimal(out, u64::from(*n));
                out.push(']');
            }
            Attr::Expanded => out.push_str("[expanded]"),
            Attr::Collapsed => out.push_str("[collapsed]"),
            Attr::Selected => out.push_str("[selected]"),
            Attr::Pressed => out.push_str("[pressed]"),
            Attr::Open => out.push_str("[open]"),
            Attr::Required => out.push_str("[required]"),
            Attr::Url(v) => quoted(out, "url", v),
        }
    }
}

/// One node of the tree. A node with an empty `role` is loose text (rendered as `"text"`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotNode {
    /// ARIA role, or `clickable`; empty for text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub role: String,
    /// Accessible name (or the text of a text node).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// State attributes, in render order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attrs: Vec<Attr>,
    /// `eN` (or `fNeM` inside frames) for nodes a command can target.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub ref_id: Option<String>,
    /// Child nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<SnapshotNode>,
}

impl SnapshotNode {
    /// A node with a role and a name.
    pub fn new(role: impl Into<String>, name: impl Into<String>) -> Self {
        SnapshotNode {
            role: role.into(),
            name: name.into(),
            ..Default::default()
        }
    }

    /// A loose-text node.
    pub fn text(text: impl Into<String>) -> Self {
        SnapshotNode {
            name: text.into(),
            ..Default::default()
        }
    }

    /// Adds a state attribute.
    pub fn attr(mut self, attr: Attr) -> Self {
        self.attrs.push(attr);
        self
    }

    /// Sets the ref.
    pub fn with_ref(mut self, r: impl Into<String>) -> Self {
        self.ref_id = Some(r.into());
        self
    }

    /// Adds a child.
    pub fn child(mut self, child: SnapshotNode) -> Self {
        self.children.push(child);
        self
    }

    /// This node's own line (no indent, no children).
    ///
    /// ```
    /// use browser_agent_core::snapshot::{Attr, SnapshotNode};
    /// let n = SnapshotNode::new("heading", "Title").attr(Attr::Level(1)).with_ref("e3");
    /// assert_eq!(n.line(), "heading \"Title\" [level=1] [ref=e3]");
    /// assert_eq!(SnapshotNode::text("x".repeat(100)).line().chars().count(), 82);
    /// ```
    pub fn line(&self) -> String {
        let mut out = String::new();
        if self.role.is_empty() {
            push_quoted(&mut out, &self.name);
            return out;
        }
        out.push_str(&self.role);
        if !self.name.is_empty() {
            out.push(' ');
            push_quoted(&mut out, &self.name);
        }
        for a in &self.attrs {
            out.push(' ');
            a.render(&mut out);
        }
        if let Some(r) = &self.ref_id {
            out.push_str(" [ref=");
            out.push_str(r);
            out.push(']');
        }
        out
    }

    /// Every node of this subtree, depth-first, with its depth.
    pub fn walk<'a>(&'a self, depth: usize, visit: &mut impl FnMut(&'a SnapshotNode, usize)) {
        visit(self, depth);
        for c in &self.children {
            c.walk(depth + 1, visit);
        }
    }
}

/// Appends the decimal digits of `n` without `core::fmt` (host and wasm share it: in the client,
/// formatting machinery costs kilobytes; on the host, ingestion calls it per entry).
///
/// ```
/// let mut s = String::from("e");
/// browser_agent_core::snapshot::push_decimal(&mut s, 1207);
/// assert_eq!(s, "e1207");
/// ```
pub fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[i..].iter().map(|d| char::from(*d)));
}

fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    let mut cut = String::new();
    let s = if s.chars().nth(MAX_NAME_CHARS).is_some() {
        cut.extend(s.chars().take(MAX_NAME_CHARS - 1));
        cut.push('…');
        cut.as_str()
    } else {
        s
    };
    push_escaped(out, s);
    out.push('"');
}

/// Escapes `"` and `\`, and turns line breaks and other control chars into spaces, so a value can
/// never break its line.
fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
}

/// Renders a forest: one node a line, two spaces per depth.
pub fn render(nodes: &[SnapshotNode]) -> String {
    let mut out = String::new();
    for n in nodes {
        n.walk(0, &mut |node, depth| {
            if !out.is_empty() {
                out.push('\n');
            }
            for _ in 0..depth {
                out.push_str("  ");
            }
            out.push_str(&node.line());
        });
    }
    out
}

/// Parses rendered text back into nodes (the inverse of [`render`] for what it produces), so the
/// host and the Rust API get a typed tree from the one text the page sends.
///
/// ```
/// use browser_agent_core::snapshot::{parse, render};
/// let text = "form \"Sign up\"\n  textbox \"Email\" [value=\"a\\\"b\"] [required] [ref=e2]\n  \"loose text\"\nheading \"Hi\" [level=2]";
/// let tree = parse(text);
/// assert_eq!(tree[0].children[0].ref_id.as_deref(), Some("e2"));
/// assert_eq!(render(&tree), text);
/// ```
pub fn parse(text: &str) -> Vec<SnapshotNode> {
    let mut roots: Vec<SnapshotNode> = Vec::new();
    // The open path: (depth, node) from the root to the last node read.
    let mut path: Vec<(usize, SnapshotNode)> = Vec::new();
    fn close(path: &mut Vec<(usize, SnapshotNode)>, roots: &mut Vec<SnapshotNode>, depth: usize) {
        while path.last().is_some_and(|(d, _)| *d >= depth) {
            let (_, node) = path.pop().expect("checked");
            match path.last_mut() {
                Some((_, parent)) => parent.children.push(node),
                None => roots.push(node),
            }
        }
    }
    for line in text.lines() {
        let body = line.trim_start_matches(' ');
        if body.is_empty() {
            continue;
        }
        let depth = (line.len() - body.len()) / 2;
        let Some(node) = parse_line(body) else { continue };
        close(&mut path, &mut roots, depth);
        path.push((depth, node));
    }
    close(&mut path, &mut roots, 0);
    roots
}

fn parse_line(s: &str) -> Option<SnapshotNode> {
    let mut rest = s;
    let mut node = SnapshotNode::default();
    if rest.starts_with('"') {
        let (name, after) = take_quoted(rest)?;
        node.name = name;
        return after.trim().is_empty().then_some(node);
    }
    let role_end = rest.find(' ').unwrap_or(rest.len());
    node.role = rest[..role_end].to_owned();
    rest = rest[role_end..].trim_start();
    if rest.starts_with('"') {
        let (name, after) = take_quoted(rest)?;
        node.name = name;
        rest = after.trim_start();
    }
    while let Some(inner) = rest.strip_prefix('[') {
        let (key, value, after) = match inner.find(['=', ']']) {
            Some(i) if inner.as_bytes()[i] == b']' => (&inner[..i], None, &inner[i + 1..]),
            Some(i) => {
                let v = &inner[i + 1..];
                if v.starts_with('"') {
                    let (value, after) = take_quoted(v)?;
                    (&inner[..i], Some(value), after.strip_prefix(']')?)
                } else {
                    let end = v.find(']')?;
                    (&inner[..i], Some(v[..end].to_owned()), &v[end + 1..])
                }
            }
            None => return None,
        };
        let attr = match (key, value) {
            ("ref", Some(v)) => {
                node.ref_id = Some(v);
                None
            }
            ("disabled", None) => Some(Attr::Disabled),
            ("checked", None) => Some(Attr::Checked),
            ("mixed", None) => Some(Attr::Mixed),
            ("expanded", None) => Some(Attr::Expanded),
            ("collapsed", None) => Some(Attr::Collapsed),
            ("selected", None) => Some(Attr::Selected),
            ("pressed", None) => Some(Attr::Pressed),
            ("open", None) => Some(Attr::Open),
            ("required", None) => Some(Attr::Required),
            ("value", Some(v)) => Some(Attr::Value(v)),
            ("placeholder", Some(v)) => Some(Attr::Placeholder(v)),
            ("url", Some(v)) => Some(Attr::Url(v)),
            ("level", Some(v)) => Some(Attr::Level(v.parse().ok()?)),
            _ => return None,
        };
        node.attrs.extend(attr);
        rest = after.trim_start();
    }
    rest.is_empty().then_some(node)
}

/// Reads a `"…"` string with `\"` and `\\` escapes; returns it and what follows.
fn take_quoted(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &s[i + 1..])),
            '\\' => out.push(chars.next()?.1),
            c => out.push(c),
        }
    }
    None
}

/// What [`diff`] answers when nothing changed.
pub const NO_CHANGES: &str = "(no changes)";

/// What changed between two rendered snapshots of the same page: lines keyed by their ref
/// (`~` changed, `+` added, `-` removed); lines without a ref compared by content.
///
/// ```
/// use browser_agent_core::snapshot::diff;
/// let old = "button \"Save\" [ref=e1]\ntextbox \"Email\" [value=\"\"] [ref=e2]\n\"Draft\"";
/// let new = "button \"Save\" [ref=e1]\ntextbox \"Email\" [value=\"ada\"] [ref=e2]\n\"Saved\"\nbutton \"Undo\" [ref=e3]";
/// assert_eq!(
///     diff(old, new),
///     "~ textbox \"Email\" [value=\"ada\"] [ref=e2]\n+ \"Saved\"\n+ button \"Undo\" [ref=e3]\n- \"Draft\""
/// );
/// assert_eq!(diff(old, old), "(no changes)");
/// ```
pub fn diff(old: &str, new: &str) -> String {
    fn ref_of(line: &str) -> Option<&str> {
        let t = line.trim_end();
        let start = t.rfind(" [ref=").or_else(|| t.starts_with("[ref=").then_some(0))?;
        t.ends_with(']').then(|| &t[start..])
    }
    let old_lines: Vec<&str> = old.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let new_lines: Vec<&str> = new.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut old_by_ref: std::collections::HashMap<&str, &str> = Default::default();
    let mut old_plain: Vec<&str> = Vec::new();
    for l in &old_lines {
        match ref_of(l) {
            Some(r) => {
                old_by_ref.insert(r, l);
            }
            None => old_plain.push(l),
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut seen_refs = std::collections::HashSet::new();
    for l in &new_lines {
        match ref_of(l) {
            Some(r) => {
                seen_refs.insert(r);
                match old_by_ref.get(r) {
                    Some(prev) if prev == l => {}
                    Some(_) => out.push(format!("~ {l}")),
                    None => out.push(format!("+ {l}")),
                }
            }
            None => match old_plain.iter().position(|p| p == l) {
                Some(i) => {
                    old_plain.remove(i);
                }
                None => out.push(format!("+ {l}")),
            },
        }
    }
    for l in &old_lines {
        if let Some(r) = ref_of(l) {
            if !seen_refs.contains(r) {
                out.push(format!("- {l}"));
            }
        }
    }
    out.extend(old_plain.iter().map(|l| format!("- {l}")));
    if out.is_empty() {
        NO_CHANGES.to_owned()
    } else {
        out.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_newlines_never_break_a_line() {
        let n = SnapshotNode::new("textbox", "a \"b\"\nc\\d").attr(Attr::Placeholder("x\ny".into()));
        assert_eq!(n.line(), "textbox \"a \\\"b\\\" c\\\\d\" [placeholder=\"x y\"]");
        assert_eq!(render(&[n]).lines().count(), 1);
    }

    #[test]
    fn names_are_cut_at_80_chars_with_an_ellipsis() {
        let n = SnapshotNode::new("link", "é".repeat(200));
        let line = n.line();
        assert_eq!(line.chars().filter(|c| *c == 'é').count(), 79);
        assert!(line.ends_with("…\""));
    }

    #[test]
    fn render_indents_two_spaces_per_depth() {
        let tree =
            SnapshotNode::new("list", "").child(SnapshotNode::new("listitem", "").child(SnapshotNode::text("one")));
        assert_eq!(
            render(&[tree, SnapshotNode::new("button", "Go").with_ref("e1")]),
            "list\n  listitem\n    \"one\"\nbutton \"Go\" [ref=e1]"
        );
    }

    #[test]
    fn parse_round_trips_render() {
        let tree = vec![
            SnapshotNode::new("iframe", "")
                .attr(Attr::Url("http://127.0.0.1/f?a=\"b\"".into()))
                .child(
                    SnapshotNode::new("checkbox", "Terms")
                        .attr(Attr::Checked)
                        .attr(Attr::Disabled)
                        .with_ref("f1e3"),
                ),
            SnapshotNode::text("a [bracket] \\ and \"quote\""),
            SnapshotNode::new("clickable", "").with_ref("e9"),
        ];
        let text = render(&tree);
        assert_eq!(parse(&text), tree);
        assert!(parse("not [a valid [line").is_empty());
    }

    #[test]
    fn diff_removed_and_changed() {
        let d = diff(
            "dialog \"Confirm\" [open] [ref=e9]\n  button \"OK\" [ref=e10]",
            "button \"OK\" [disabled] [ref=e10]",
        );
        assert_eq!(
            d,
            "~ button \"OK\" [disabled] [ref=e10]\n- dialog \"Confirm\" [open] [ref=e9]"
        );
    }
}
