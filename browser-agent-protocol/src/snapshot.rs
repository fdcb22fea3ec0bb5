//! The snapshot grammar, shared by the page client (which builds the tree) and the host (which
//! renders, stores and diffs it): one node a line, two spaces per depth,
//! `role "name" [attr]… [ref=eN]`; a bare `"text"` line for loose text. Compact forms (every one
//! parses back to the same tree):
//!
//! - A node with a single child carries it on its own line after `: `
//!   (`listitem: link "Overview" [ref=e3]`, chains too: `list: listitem: "one"`).
//! - A table row whose cells are one-line chains is one line, cells separated by
//!   [`CELL_SEPARATOR`] (`, `); a cell of the same role as the one before it, with only a name, is
//!   just its quoted name (the first cell's role is `cell` unless it says otherwise):
//!   `row: columnheader "Name", "Age"`, `row: "Ada", "36", cell: button "Edit" [ref=e4]`.
//! - A run of children the snapshot left out (its budget, `offset`/`limit`) is one line that says
//!   how many and how to get them: `… 1,960 more listitem (snapshot {"ref":"e3","offset":40})`
//!   (a node with the role [`CUT`]; the rest of the line is its name).
//!
//! ```
//! use browser_agent_protocol::snapshot::{Attr, SnapshotNode, render};
//! let tree = vec![SnapshotNode::new("form", "Sign up").child(
//!     SnapshotNode::new("textbox", "Email").attr(Attr::Value("ada@\"x\"".into())).with_ref("e2"),
//! )];
//! assert_eq!(render(&tree), "form \"Sign up\": textbox \"Email\" [value=\"ada@\\\"x\\\"\"] [ref=e2]");
//! ```

use serde::{Deserialize, Serialize};

/// Names and texts longer than this many chars are cut with `…`.
pub const MAX_NAME_CHARS: usize = 80;

/// The role of a node standing for children the snapshot left out; its name is the rest of its
/// line (`1,960 more listitem (snapshot {"ref":"e3","offset":40})`).
pub const CUT: &str = "…";

/// Between the cells of a one-line table row. `", "` between two quoted cells is one o200k token
/// where `" | "` took two or three: a table of text is about a tenth smaller (quotes keep a comma
/// in a cell's text apart from the separator).
///
/// ```
/// use browser_agent_protocol::snapshot::{parse, CELL_SEPARATOR};
/// let row = format!("row: \"Smith, Ada\"{CELL_SEPARATOR}\"36\"");
/// assert_eq!(parse(&row)[0].children[0].name, "Smith, Ada");
/// ```
pub const CELL_SEPARATOR: &str = ", ";

/// Roles of a table row's cells (a row of them may be one line).
const CELLS: &[&str] = &["cell", "columnheader", "gridcell", "rowheader"];

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
    /// `[readonly]` (a read-only field, `aria-readonly="true"`)
    Readonly,
    /// `[invalid]` (`aria-invalid`, or a field the browser's validation refused after the user edited it)
    Invalid,
    /// `[current="page"]` (`aria-current`: the page, step, location, date, time, or `true`)
    Current(String),
    /// `[sort="ascending"]` (`aria-sort` of a column header: ascending, descending, other)
    Sort(String),
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
            Attr::Readonly => out.push_str("[readonly]"),
            Attr::Invalid => out.push_str("[invalid]"),
            Attr::Current(v) => quoted(out, "current", v),
            Attr::Sort(v) => quoted(out, "sort", v),
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
    /// use browser_agent_protocol::snapshot::{Attr, SnapshotNode};
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
        if self.role == CUT {
            // (Written as is: the name is the host's and the client's own text, never the page's.)
            out.push_str(CUT);
            out.push(' ');
            out.extend(self.name.chars().map(|c| if c.is_control() { ' ' } else { c }));
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
/// browser_agent_protocol::snapshot::push_decimal(&mut s, 1207);
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
/// never break its line (and is a JSON string's content: cut lines' steps carry a `filter` so).
///
/// ```
/// let mut s = String::new();
/// browser_agent_protocol::snapshot::push_escaped(&mut s, "say \"hi\"\n\\");
/// assert_eq!(s, r#"say \"hi\" \\"#);
/// ```
pub fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
}

/// Renders a forest: one node a line, two spaces per depth, in the compact forms of the module
/// docs.
///
/// ```
/// use browser_agent_protocol::snapshot::{render, SnapshotNode};
/// let link = SnapshotNode::new("link", "Docs").with_ref("e3");
/// let list = SnapshotNode::new("list", "").child(SnapshotNode::new("listitem", "").child(link));
/// assert_eq!(render(&[list]), "list: listitem: link \"Docs\" [ref=e3]");
/// let row = SnapshotNode::new("row", "")
///     .child(SnapshotNode::new("cell", "Ada"))
///     .child(SnapshotNode::new("cell", "36"));
/// assert_eq!(render(&[row]), "row: \"Ada\", \"36\"");
/// ```
pub fn render(nodes: &[SnapshotNode]) -> String {
    let mut out = String::new();
    for n in nodes {
        render_node(&mut out, n, 0);
    }
    out
}

fn render_node(out: &mut String, node: &SnapshotNode, depth: usize) {
    if !out.is_empty() {
        out.push('\n');
    }
    for _ in 0..depth {
        out.push_str("  ");
    }
    let mut n = node;
    loop {
        out.push_str(&n.line());
        if is_flat_row(n) {
            out.push_str(": ");
            let mut role = "cell";
            for (i, c) in n.children.iter().enumerate() {
                if i > 0 {
                    out.push_str(CELL_SEPARATOR);
                }
                if c.role == role && c.attrs.is_empty() && c.ref_id.is_none() && c.children.is_empty() {
                    push_quoted(out, &c.name);
                } else {
                    push_chain(out, c);
                }
                role = &c.role;
            }
            return;
        }
        match n.children.as_slice() {
            [only] if folds(n, only) => {
                out.push_str(": ");
                n = only;
            }
            _ => break,
        }
    }
    for c in &n.children {
        render_node(out, c, depth + 1);
    }
}

/// Whether `child`, the only child of `parent`, goes on its parent's line.
fn folds(parent: &SnapshotNode, child: &SnapshotNode) -> bool {
    !parent.role.is_empty() && parent.role != CUT && child.role != CUT && !is_flat_row(child)
}

/// A chain of single children on one line (`cell: button "Edit" [ref=e4]`).
fn push_chain(out: &mut String, node: &SnapshotNode) {
    let mut n = node;
    out.push_str(&n.line());
    while let [only] = n.children.as_slice() {
        out.push_str(": ");
        out.push_str(&only.line());
        n = only;
    }
}

/// Whether a node and its single children down to a leaf fit one line.
fn is_chain(n: &SnapshotNode) -> bool {
    match n.children.as_slice() {
        [] => true,
        [only] => folds(n, only) && is_chain(only),
        _ => false,
    }
}

/// Whether `n` is a table row [`render`] writes on one line, its cells with it: two or more cells,
/// each a one-line chain.
///
/// ```
/// use browser_agent_protocol::snapshot::{is_flat_row, SnapshotNode};
/// let row = SnapshotNode::new("row", "")
///     .child(SnapshotNode::new("cell", "Ada"))
///     .child(SnapshotNode::new("cell", "").child(SnapshotNode::new("button", "Edit").with_ref("e4")));
/// assert!(is_flat_row(&row));
/// assert!(!is_flat_row(&SnapshotNode::new("row", "").child(SnapshotNode::new("cell", "Ada"))));
/// ```
pub fn is_flat_row(n: &SnapshotNode) -> bool {
    n.role == "row"
        && n.children.len() >= 2
        && n.children
            .iter()
            .all(|c| CELLS.contains(&c.role.as_str()) && is_chain(c))
}

/// Parses rendered text back into nodes (the inverse of [`render`] for what it produces, compact
/// forms included), so the host and the Rust API get a typed tree from the one text the page sends.
///
/// ```
/// use browser_agent_protocol::snapshot::{parse, render};
/// let text = "form \"Sign up\"\n  textbox \"Email\" [value=\"a\\\"b\"] [required] [ref=e2]\n  \"loose text\"\nheading \"Hi\" [level=2]";
/// let tree = parse(text);
/// assert_eq!(tree[0].children[0].ref_id.as_deref(), Some("e2"));
/// assert_eq!(render(&tree), text);
/// let compact = "list\n  listitem: link \"Docs\" [ref=e3]\n  listitem: \"a: b, c\"\n\
///                row: columnheader \"Name\", \"Age\", cell: button \"Sort\" [ref=e4]";
/// let tree = parse(compact);
/// assert_eq!(tree[0].children[0].children[0].ref_id.as_deref(), Some("e3"));
/// assert_eq!(tree[0].children[1].children[0].name, "a: b, c");
/// assert_eq!(tree[1].children[1].role, "columnheader");
/// assert_eq!(tree[1].children[2].children[0].name, "Sort");
/// assert_eq!(render(&tree), compact);
/// ```
pub fn parse(text: &str) -> Vec<SnapshotNode> {
    // The open path: (depth, the chain of one line, root first) from the root to the last line
    // read; the lines below a line belong to the last node of its chain.
    type Open = (usize, Vec<SnapshotNode>);
    fn close(path: &mut Vec<Open>, roots: &mut Vec<SnapshotNode>, depth: usize) {
        while path.last().is_some_and(|(d, _)| *d >= depth) {
            let (_, chain) = path.pop().expect("checked");
            let Some(node) = collapse(chain) else { continue };
            match path.last_mut().and_then(|(_, c)| c.last_mut()) {
                Some(parent) => parent.children.push(node),
                None => roots.push(node),
            }
        }
    }
    let mut roots: Vec<SnapshotNode> = Vec::new();
    let mut path: Vec<Open> = Vec::new();
    for line in text.lines() {
        // A snapshot taken with `source` ends with its legend, which is no node.
        if line.starts_with(crate::source::HEADING) {
            break;
        }
        let body = line.trim_start_matches(' ');
        if body.is_empty() {
            continue;
        }
        let depth = (line.len() - body.len()) / 2;
        let Some(chain) = parse_compact(body) else { continue };
        close(&mut path, &mut roots, depth);
        path.push((depth, chain));
    }
    close(&mut path, &mut roots, 0);
    roots
}

/// A chain (root first) as one node: each the only child of the one before.
fn collapse(mut chain: Vec<SnapshotNode>) -> Option<SnapshotNode> {
    let mut node = chain.pop()?;
    while let Some(mut parent) = chain.pop() {
        parent.children.push(node);
        node = parent;
    }
    Some(node)
}

/// `s` cut at each `sep` outside quotes and brackets.
fn split_top<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted, mut escaped, mut brackets) = (0, false, false, 0u32);
    for (i, c) in s.char_indices() {
        if quoted {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => quoted = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '[' => brackets += 1,
            ']' => brackets = brackets.saturating_sub(1),
            _ if brackets == 0 && i >= start && s[i..].starts_with(sep) => {
                parts.push(&s[start..i]);
                start = i + sep.len();
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// One line's nodes: a chain (`a: b: c`, root first), or a flat row (`row: "x", cell: button "y"`)
/// as one node holding its cells.
fn parse_compact(body: &str) -> Option<Vec<SnapshotNode>> {
    if let Some(rest) = body.strip_prefix(CUT).and_then(|r| r.strip_prefix(' ')) {
        return Some(vec![SnapshotNode {
            role: CUT.to_owned(),
            name: rest.to_owned(),
            ..Default::default()
        }]);
    }
    let chain = |s: &str| -> Option<SnapshotNode> {
        collapse(
            split_top(s, ": ")
                .into_iter()
                .map(parse_line)
                .collect::<Option<Vec<_>>>()?,
        )
    };
    let cells = split_top(body, CELL_SEPARATOR);
    if cells.len() < 2 {
        return split_top(body, ": ").into_iter().map(parse_line).collect();
    }
    // `row: first, second, …`: the row is the first cell's head.
    let (head, first) = split_top(cells[0], ": ")
        .split_first()
        .map(|(h, _)| (*h, &cells[0][h.len()..]))?;
    let first = first.strip_prefix(": ")?;
    let mut row = parse_line(head)?;
    let mut role = "cell".to_owned();
    for seg in std::iter::once(first).chain(cells[1..].iter().copied()) {
        let cell = if seg.starts_with('"') {
            let (name, after) = take_quoted(seg)?;
            if !after.is_empty() {
                return None;
            }
            SnapshotNode::new(role.clone(), name)
        } else {
            chain(seg)?
        };
        role.clone_from(&cell.role);
        row.children.push(cell);
    }
    Some(vec![row])
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
            ("readonly", None) => Some(Attr::Readonly),
            ("invalid", None) => Some(Attr::Invalid),
            ("current", Some(v)) => Some(Attr::Current(v)),
            ("sort", Some(v)) => Some(Attr::Sort(v)),
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

/// What a batch's changes begin with when its page ends with a modal dialog open: the dialog is
/// then shown whole, and the page behind it (inert, left out of the snapshot) stays the baseline
/// of the next changes, so opening and closing a modal does not list the whole page as removed
/// and then added.
pub const MODAL_OPEN: &str =
    "(a modal dialog is open; the page behind it is inert, left out, and the next changes count from it as it was)";

/// What changed between two rendered snapshots of the same page, node by node (a compact line
/// holds several; a one-line table row is one): each node's own line (`role "name" [attr]…
/// [ref=eN]`, without its children), keyed by its ref (`~` changed, `+` added, `-` removed);
/// nodes without a ref compared by content; `>` a node that is the same but no longer in the
/// same order (the rows of a table sorted anew, the items of a list reordered). A one-line row is
/// keyed by the first ref it holds, so a changed cell is one `~` row; a row one line on one side
/// and not on the other (a menu opened in it) is compared node by node, each of its lines with the
/// row's text.
///
/// ```
/// use browser_agent_protocol::snapshot::diff;
/// let old = "button \"Save\" [ref=e1]\ntextbox \"Email\" [value=\"\"] [ref=e2]\n\"Draft\"";
/// let new = "button \"Save\" [ref=e1]\ntextbox \"Email\" [value=\"ada\"] [ref=e2]\n\"Saved\"\nbutton \"Undo\" [ref=e3]";
/// assert_eq!(
///     diff(old, new),
///     "~ textbox \"Email\" [value=\"ada\"] [ref=e2]\n+ \"Saved\"\n+ button \"Undo\" [ref=e3]\n- \"Draft\""
/// );
/// assert_eq!(diff(old, old), "(no changes)");
/// // Compact lines compare node by node: the link moved into a second item, nothing else changed.
/// let old = "list: listitem: link \"A\" [ref=e1]";
/// let new = "list\n  listitem: link \"A\" [ref=e1]\n  listitem: link \"B\" [ref=e2]";
/// assert_eq!(diff(old, new), "+ listitem\n+ link \"B\" [ref=e2]");
/// // A table row is one line; sorted anew, the row that left its place is `>`.
/// let old = "table\n  row: \"Apple\", \"3\"\n  row: \"Banana\", \"1\"\n  row: \"Cherry\", \"2\"";
/// let new = "table\n  row: \"Banana\", \"1\"\n  row: \"Cherry\", \"2\"\n  row: \"Apple\", \"3\"";
/// assert_eq!(diff(old, new), "> row: \"Apple\", \"3\"");
/// ```
pub fn diff(old: &str, new: &str) -> String {
    use std::collections::{HashMap, HashSet};
    /// Each node's own line (a one-line row whole), in document order, with its ref, and for a
    /// control whose name says nothing alone (`button "✖"`, an unnamed checkbox), the text of the
    /// row it sits in: a diff line has no neighbours to read it from. Outside a row, a card's
    /// text and its controls are siblings (`"Fix login bug"`, `button "×"`): the text just before
    /// the control, past other such controls, is its row.
    /// `reshaped`: inside a row compared node by node because it is one line on one side only;
    /// there every line without a ref carries the row's text too.
    fn lines(
        nodes: &[SnapshotNode],
        row: Option<&str>,
        reshaped_rows: &HashSet<&str>,
        reshaped: bool,
        out: &mut Vec<(String, Option<String>, Option<String>)>,
    ) {
        for (i, n) in nodes.iter().enumerate() {
            let key = (n.role == "row").then(|| first_ref(n)).flatten();
            let reshaped = reshaped || key.is_some_and(|k| reshaped_rows.contains(k));
            if is_flat_row(n) && !reshaped {
                out.push((render(std::slice::from_ref(n)), key.map(str::to_owned), None));
            } else {
                let context = ((n.ref_id.is_some() && !says_something(&n.name)) || (reshaped && n.ref_id.is_none()))
                    .then(|| row.map(str::to_owned).or_else(|| text_before(&nodes[..i])))
                    .flatten();
                out.push((n.line(), n.ref_id.clone(), context));
                let own;
                let row = if ROW_ROLES.contains(&n.role.as_str()) {
                    own = row_text(n);
                    Some(own.as_str()).filter(|t| !t.is_empty())
                } else {
                    row
                };
                lines(&n.children, row, reshaped_rows, reshaped, out);
            }
        }
    }
    /// Each table row's first ref, and whether the row is one line.
    fn rows<'a>(nodes: &'a [SnapshotNode], out: &mut HashMap<&'a str, bool>) {
        for n in nodes {
            if n.role == "row" {
                if let Some(key) = first_ref(n) {
                    out.insert(key, is_flat_row(n));
                }
            }
            rows(&n.children, out);
        }
    }
    // A bare container line (`listitem`) says nothing by itself: its moving is not news.
    let bare = |l: &str| !l.contains(['"', '[', ':']);
    let (old_tree, new_tree) = (parse(old), parse(new));
    let (mut old_rows, mut new_rows) = (HashMap::new(), HashMap::new());
    rows(&old_tree, &mut old_rows);
    rows(&new_tree, &mut new_rows);
    let reshaped_rows: HashSet<&str> = old_rows
        .iter()
        .filter(|(key, flat)| new_rows.get(*key).is_some_and(|f| f != *flat))
        .map(|(key, _)| *key)
        .collect();
    let (mut old_lines, mut new_lines) = (Vec::new(), Vec::new());
    lines(&old_tree, None, &reshaped_rows, false, &mut old_lines);
    lines(&new_tree, None, &reshaped_rows, false, &mut new_lines);
    // Old lines by ref, and the old places of each plain line (taken in order).
    let mut old_by_ref: HashMap<&str, usize> = HashMap::new();
    let mut old_plain: HashMap<&str, std::collections::VecDeque<usize>> = HashMap::new();
    for (i, (l, r, _)) in old_lines.iter().enumerate() {
        match r {
            Some(r) => {
                old_by_ref.insert(r, i);
            }
            None => old_plain.entry(l).or_default().push_back(i),
        }
    }
    // A plain line that repeats ("Qty 1", "Remove") pairs with its copies in order, so its place
    // says nothing about order: only lines with a ref, and plain lines found once on each side,
    // may be `>`.
    let mut new_count: HashMap<&str, usize> = HashMap::new();
    for (l, r, _) in &new_lines {
        if r.is_none() {
            *new_count.entry(l).or_default() += 1;
        }
    }
    let once = |l: &str| old_plain.get(l).is_some_and(|q| q.len() == 1) && new_count.get(l) == Some(&1);
    // (Read before the pairing below takes plain lines off `old_plain`.)
    let may_move: Vec<bool> = new_lines.iter().map(|(l, r, _)| r.is_some() || once(l)).collect();
    // Each new line: its old place if it has one, and whether it changed there.
    let mut matched = vec![false; old_lines.len()];
    let places: Vec<Option<(usize, bool)>> = new_lines
        .iter()
        .map(|(l, r, _)| {
            let at = match r {
                Some(r) => old_by_ref.get(r.as_str()).map(|&i| (i, old_lines[i].0 != *l)),
                None => old_plain
                    .get_mut(l.as_str())
                    .and_then(|q| q.pop_front())
                    .map(|i| (i, false)),
            };
            if let Some((i, _)) = at {
                matched[i] = true;
            }
            at
        })
        .collect();
    // The lines that may move, as (new place, old place); those off the longest run in order moved.
    let movable: Vec<(usize, usize)> = places
        .iter()
        .zip(&may_move)
        .enumerate()
        .filter_map(|(i, (p, may))| p.filter(|_| *may).map(|(at, _)| (i, at)))
        .collect();
    let kept = in_order(&movable.iter().map(|m| m.1).collect::<Vec<_>>());
    let mut moved = vec![false; new_lines.len()];
    for (k, (i, _)) in movable.iter().enumerate() {
        moved[*i] = !kept.contains(&k);
    }
    let mut out: Vec<String> = Vec::new();
    // ` in "Buy milk"` after a line whose name says nothing alone.
    let in_row = |row: &Option<String>| {
        let mut out = String::new();
        if let Some(t) = row {
            out.push_str(" in ");
            push_quoted(&mut out, t);
        }
        out
    };
    for (((l, _, row), place), moved) in new_lines.iter().zip(&places).zip(&moved) {
        let mark = match place {
            None => "+",
            Some((_, true)) => "~",
            Some(_) if *moved && !bare(l) => ">",
            Some(_) => continue,
        };
        out.push(format!("{mark} {l}{}", in_row(row)));
    }
    // Removed: the lines with a ref first, then the plain ones, each in document order.
    for plain in [false, true] {
        for (i, (l, r, row)) in old_lines.iter().enumerate() {
            if !matched[i] && r.is_none() == plain {
                out.push(format!("- {l}{}", in_row(row)));
            }
        }
    }
    if out.is_empty() {
        NO_CHANGES.to_owned()
    } else {
        out.join("\n")
    }
}

/// The roles of a row among alike ones: a control in one is told from the next row's by the row's
/// text (the client's targeting reads the same rows).
const ROW_ROLES: [&str; 5] = ["listitem", "row", "option", "treeitem", "article"];
/// Roles of what opens over a row (a row's menu): not the row's text.
const POPUP_ROLES: [&str; 5] = ["menu", "listbox", "dialog", "alertdialog", "tooltip"];
/// Characters of a row's text shown beside a control in a diff.
const ROW_SHOWN: usize = 40;

/// The first ref in a node's subtree (its own first), in document order.
fn first_ref(n: &SnapshotNode) -> Option<&str> {
    n.ref_id.as_deref().or_else(|| n.children.iter().find_map(first_ref))
}

/// Whether a name says what its control is alone: it has a letter or a digit (`"✖"`, `"…"` and
/// `""` do not).
fn says_something(name: &str) -> bool {
    name.chars().any(char::is_alphanumeric)
}

/// The plain text just before a control among its siblings, past controls whose names say
/// nothing (a card's `"Buy milk"`, `button "✎"`, `button "✖"`), cut as a row's text is.
fn text_before(siblings: &[SnapshotNode]) -> Option<String> {
    let n = siblings
        .iter()
        .rev()
        .find(|s| s.ref_id.is_none() || says_something(&s.name))?;
    (n.role.is_empty() && n.children.is_empty() && says_something(&n.name)).then(|| row_text(n))
}

/// The words of a row's nodes that say something (texts and names, in order, past a popup open
/// in it: its items are not the row's), cut to [`ROW_SHOWN`] characters.
fn row_text(row: &SnapshotNode) -> String {
    fn words(n: &SnapshotNode, out: &mut String) {
        if POPUP_ROLES.contains(&n.role.as_str()) {
            return;
        }
        if says_something(&n.name) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&n.name);
        }
        for c in &n.children {
            words(c, out);
        }
    }
    let mut all = String::new();
    words(row, &mut all);
    let mut chars = all.chars();
    let mut out: String = chars.by_ref().take(ROW_SHOWN).collect();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// The positions in `seq` of a longest increasing run of its values (not necessarily adjacent):
/// the lines that kept their order; the others moved (patience sorting, O(n log n)).
fn in_order(seq: &[usize]) -> std::collections::HashSet<usize> {
    // tails[k]: the position of the smallest last value of an increasing run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; seq.len()];
    for (i, &v) in seq.iter().enumerate() {
        let k = tails.partition_point(|&t| seq[t] < v);
        before[i] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut kept = std::collections::HashSet::new();
    let mut at = tails.last().copied();
    while let Some(i) = at {
        kept.insert(i);
        at = before[i];
    }
    kept
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
        let item = |t: &str| {
            SnapshotNode::new("listitem", "")
                .child(SnapshotNode::text(t))
                .child(SnapshotNode::text("!"))
        };
        let tree = SnapshotNode::new("list", "").child(item("one")).child(item("two"));
        assert_eq!(
            render(&[tree, SnapshotNode::new("button", "Go").with_ref("e1")]),
            "list\n  listitem\n    \"one\"\n    \"!\"\n  listitem\n    \"two\"\n    \"!\"\nbutton \"Go\" [ref=e1]"
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
    fn compact_forms_round_trip() {
        let cell = |name: &str| SnapshotNode::new("cell", name);
        let table = SnapshotNode::new("table", "Orders")
            .child(
                SnapshotNode::new("row", "")
                    .child(SnapshotNode::new("columnheader", "Order"))
                    .child(SnapshotNode::new("columnheader", "Total")),
            )
            .child(
                SnapshotNode::new("row", "")
                    .child(SnapshotNode::new("rowheader", "Sum"))
                    .child(cell(""))
                    .child(cell("$1, 2: 3 | 4"))
                    .child(
                        SnapshotNode::new("cell", "").child(
                            SnapshotNode::new("button", "Refund")
                                .attr(Attr::Disabled)
                                .with_ref("e1"),
                        ),
                    ),
            )
            .child(
                // A cell holding two controls keeps its row on several lines.
                SnapshotNode::new("row", "").child(cell("x")).child(
                    SnapshotNode::new("cell", "")
                        .child(SnapshotNode::new("button", "A").with_ref("e2"))
                        .child(SnapshotNode::new("button", "B").with_ref("e3")),
                ),
            );
        let cut = SnapshotNode {
            role: CUT.into(),
            name: "1,960 more listitem (snapshot {\"ref\":\"e9\",\"offset\":40})".into(),
            ..Default::default()
        };
        let list = SnapshotNode::new("list", "")
            .with_ref("e9")
            .child(SnapshotNode::new("listitem", "").child(SnapshotNode::text("one")))
            .child(cut);
        let nested = SnapshotNode::new("navigation", "Pages").child(
            SnapshotNode::new("list", "")
                .child(SnapshotNode::new("listitem", "").child(SnapshotNode::new("link", "1").with_ref("e4"))),
        );
        let group = SnapshotNode::new("group", "Danger").child(
            SnapshotNode::new("region", "")
                .child(SnapshotNode::new("button", "X").with_ref("e5"))
                .child(SnapshotNode::text("y")),
        );
        let tree = vec![table, list, nested, group];
        let text = render(&tree);
        assert_eq!(
            text,
            "table \"Orders\"\n  row: columnheader \"Order\", \"Total\"\n  row: rowheader \"Sum\", cell, \"$1, 2: 3 | 4\", \
             cell: button \"Refund\" [disabled] [ref=e1]\n  row\n    cell \"x\"\n    cell\n      button \"A\" [ref=e2]\n      \
             button \"B\" [ref=e3]\nlist [ref=e9]\n  listitem: \"one\"\n  … 1,960 more listitem (snapshot \
             {\"ref\":\"e9\",\"offset\":40})\nnavigation \"Pages\": list: listitem: link \"1\" [ref=e4]\n\
             group \"Danger\": region\n  button \"X\" [ref=e5]\n  \"y\""
        );
        assert_eq!(parse(&text), tree);
        assert_eq!(diff(&text, &text), "(no changes)");
    }

    #[test]
    fn diffs_say_what_moved_and_which_row_changed() {
        // Reordered items: the moved text, not the bare item lines around it.
        let d = diff(
            "list\n  listitem: \"Preheat\"\n  listitem: \"Mix\"\n  listitem: \"Bake\"",
            "list\n  listitem: \"Bake\"\n  listitem: \"Preheat\"\n  listitem: \"Mix\"",
        );
        assert!(matches!(d.as_str(), "> \"Bake\"" | "> \"Preheat\"\n> \"Mix\""), "{d}");
        // Ref'd nodes reordered.
        let d = diff(
            "link \"A\" [ref=e1]\nlink \"B\" [ref=e2]\nlink \"C\" [ref=e3]",
            "link \"C\" [ref=e3]\nlink \"A\" [ref=e1]\nlink \"B\" [ref=e2]",
        );
        assert_eq!(d, "> link \"C\" [ref=e3]");
        // A changed cell comes with its row.
        let old = "table\n  row: columnheader \"Fruit\", columnheader \"Price\"\n  row: \"Apple\", \"1\"\n  row: \"Banana\", \"2\"";
        let new = "table\n  row: columnheader \"Fruit\", columnheader \"Price\"\n  row: \"Apple\", \"5\"\n  row: \"Banana\", \"2\"";
        assert_eq!(diff(old, new), "+ row: \"Apple\", \"5\"\n- row: \"Apple\", \"1\"");
        // Inserted at the top, removed, or unchanged: nothing is `>`.
        let items = |names: &[&str]| {
            let mut t = String::from("list");
            for n in names {
                t.push_str(&format!("\n  listitem: link \"{n}\""));
            }
            t
        };
        // (Bare lines pair in order, so the last `listitem` is the one that reads as added.)
        assert_eq!(
            diff(&items(&["A", "B", "C"]), &items(&["Z", "A", "B", "C"])),
            "+ link \"Z\"\n+ listitem"
        );
        assert_eq!(
            diff(&items(&["A", "B", "C"]), &items(&["A", "C"])),
            "- link \"B\"\n- listitem"
        );
        // Repeated texts ("Qty 1", the Remove buttons) never read as moved when an item goes or
        // comes: only the item's own lines change.
        let cart = |names: &[&str]| {
            let mut t = String::from("list");
            for n in names {
                t.push_str(&format!(
                    "\n  listitem\n    \"{n}\"\n    \"Qty 1\"\n    button \"Remove\""
                ));
            }
            t
        };
        let d = diff(&cart(&["Apple", "Banana", "Cherry"]), &cart(&["Banana", "Cherry"]));
        assert!(!d.contains('>'), "{d}");
        let d = diff(&cart(&["Apple", "Banana"]), &cart(&["Kiwi", "Apple", "Banana"]));
        assert!(!d.contains('>') && d.contains("+ \"Kiwi\""), "{d}");
        let big: Vec<String> = (0..3000).map(|i| format!("Item {i}")).collect();
        let big: Vec<&str> = big.iter().map(String::as_str).collect();
        assert_eq!(diff(&items(&big), &items(&big)), NO_CHANGES);
    }

    #[test]
    fn controls_named_by_a_glyph_carry_their_rows_text_in_a_diff() {
        let todo = |done: &str| {
            format!(
                "list\n  listitem\n    checkbox \"✔\"{done} [ref=e2]\n    \"Buy milk\"\n    button \"✖\" [ref=e3]\n  \
                 listitem\n    checkbox \"✔\" [ref=e4]\n    \"Walk the dog\"\n    button \"✖\" [ref=e5]"
            )
        };
        assert_eq!(
            diff(&todo(""), &todo(" [checked]")),
            "~ checkbox \"✔\" [checked] [ref=e2] in \"Buy milk\""
        );
        let one = "list\n  listitem\n    checkbox \"✔\" [ref=e2]\n    \"Buy milk\"\n    button \"✖\" [ref=e3]";
        assert_eq!(
            diff(&todo(""), one),
            "- checkbox \"✔\" [ref=e4] in \"Walk the dog\"\n- button \"✖\" [ref=e5] in \"Walk the dog\"\n- listitem\n- \"Walk the dog\""
        );
        // Outside a row, the text just before the control (past its glyph siblings) is its row.
        let card = |t: &str| format!("heading \"Done\"\n\"{t}\"\nbutton \"✎\" [ref=e6]\nbutton \"×\" [ref=e7]");
        assert_eq!(
            diff(&card("Fix login bug"), "heading \"Done\""),
            "- button \"✎\" [ref=e6] in \"Fix login bug\"\n- button \"×\" [ref=e7] in \"Fix login bug\"\n- \"Fix login bug\""
        );
        assert_eq!(
            diff("heading \"Done\"\nbutton \"×\" [ref=e7]", "heading \"Done\""),
            "- button \"×\" [ref=e7]",
            "a heading is no row's text"
        );
        // A name that says something needs no row; nor does a control outside any row.
        assert_eq!(
            diff("button \"Save\" [ref=e1]", "button \"Save\" [disabled] [ref=e1]"),
            "~ button \"Save\" [disabled] [ref=e1]"
        );
        assert_eq!(
            diff("button \"✖\" [ref=e1]", "button \"✖\" [pressed] [ref=e1]"),
            "~ button \"✖\" [pressed] [ref=e1]"
        );
    }

    #[test]
    fn a_row_that_changed_is_one_line_or_only_what_changed_in_it() {
        let members = |linus: &str| {
            format!(
                "table\n  row: columnheader \"Name\", \"Role\", \"Actions\"\n  \
                 row: \"Sam Lee\", \"Manager\", cell: button \"Actions\" [ref=e17]\n  {linus}"
            )
        };
        let flat = |role: &str| format!("row: \"Linus Berg\", \"{role}\", cell: button \"Actions\" [ref=e18]");
        // A cell changed: the row, once, as it is now.
        assert_eq!(
            diff(&members(&flat("Developer")), &members(&flat("Admin"))),
            "~ row: \"Linus Berg\", \"Admin\", cell: button \"Actions\" [ref=e18]"
        );
        // A menu opened in the row: what changed in it, not the row removed and added cell by cell.
        let open = "row\n    cell \"Linus Berg\"\n    cell \"Developer\"\n    cell\n      \
                    button \"Actions\" [expanded] [ref=e18]\n      menu\n        \
                    menuitem \"Make admin\" [ref=e32]\n        menuitem \"Remove\" [ref=e34]";
        assert_eq!(
            diff(&members(&flat("Developer")), &members(open)),
            "~ button \"Actions\" [expanded] [ref=e18]\n+ menu in \"Linus Berg Developer Actions\"\n\
             + menuitem \"Make admin\" [ref=e32]\n+ menuitem \"Remove\" [ref=e34]"
        );
        // It closed, and the row says the new role.
        assert_eq!(
            diff(&members(open), &members(&flat("Admin"))),
            "+ cell \"Admin\" in \"Linus Berg Admin Actions\"\n~ button \"Actions\" [ref=e18]\n\
             - menuitem \"Make admin\" [ref=e32]\n- menuitem \"Remove\" [ref=e34]\n\
             - cell \"Developer\" in \"Linus Berg Developer Actions\"\n\
             - menu in \"Linus Berg Developer Actions\""
        );
        // Rows without a ref still compare by content.
        assert_eq!(
            diff("row: \"A\", \"1\"", "row: \"A\", \"2\""),
            "+ row: \"A\", \"2\"\n- row: \"A\", \"1\""
        );
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
