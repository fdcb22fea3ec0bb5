//! The walk: the flat tree of `document.body` (open shadow roots and their slots, same-origin
//! frames) into snapshot nodes.
//!
//! - Left out with their subtree: `display:none` (which covers `hidden`), `aria-hidden="true"`,
//!   `inert` (and everything outside an open modal dialog), closed `<details>` content (all but
//!   the summary), script/style/template/noscript,
//!   media fallback content, and the agent's own elements. `visibility:hidden` hides the element
//!   and its own text; a descendant that sets `visibility:visible` again still shows.
//! - Elements without a role (or with one that says nothing, like `paragraph` or `generic`) vanish;
//!   their children float up and their text joins the surrounding loose text, glued to inline
//!   neighbours and set off from blocks (a block boundary starts a new text line).
//! - An element without a role that is clickable (the outermost of a `cursor:pointer` subtree, an
//!   `onclick`, a `tabindex` ≥ 0) is a `clickable` node.
//! - The text of a `<label>` with a control, a legend, caption or figcaption, and of anything an
//!   `aria-labelledby` points at, is not repeated as loose text: it already is a name.

use super::flat::for_each_child;
use super::labels;
use super::modal::Modal;
use super::name::{self, pseudo, selected_text, squash, Attrs};
use super::refs::{control_ref_number, frame_number, ref_number};
use super::style::{clips_to_nothing, hides_contents, page_window, Win};
use super::{budget, roles};
use crate::js::{attribute, check_visibility, get, has_attribute, matches};
use crate::text::{has_sub, parse_number, push_number};
use browser_agent_protocol::snapshot::{Attr, SnapshotNode};
use browser_agent_protocol::SECRET_VALUE;
use std::cell::{Cell, RefCell};
use wasm_bindgen::intern;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// Tags whose subtree is never shown.
const SKIP: &[&str] = &[
    "audio", "base", "canvas", "embed", "head", "link", "meta", "noscript", "object", "script", "style", "template",
    "title", "video",
];

/// Frames inside frames are followed this deep.
const MAX_FRAME_DEPTH: u32 = 4;

/// Ids of the agent's own elements (cursor, overlays, notes) start with one of these.
const OWN_IDS: &[&str] = &["__browser-agent", "__mindstudio"];

/// A cuttable container's `ref_id` until the budget settles it: this char, then its index in
/// [`BIG`].
const PLACEHOLDER: char = '\u{1}';

thread_local! {
    /// The containers of this walk with many children (the budget may cut them, and their cut
    /// line then needs their ref): the element and its document's ref prefix.
    static BIG: RefCell<Vec<(Element, String)>> = const { RefCell::new(Vec::new()) };
    /// Only what is in the viewport is walked.
    static VIEWPORT: Cell<bool> = const { Cell::new(false) };
    /// The budget (characters) the walk may stop at inside long runs of similar siblings; 0: none.
    static LAZY: Cell<usize> = const { Cell::new(0) };
    /// A paged view of one container (`snapshot {"ref","offset","limit"}`): its element, and the
    /// window of its children that is walked (see [`page`]).
    static PAGED: RefCell<Option<(Element, usize, Option<usize>)>> = const { RefCell::new(None) };
}

/// The walk of `root` (a scoped view) shows only its children `offset .. offset + limit`: runs of
/// alike children before and after that window are counted, not walked ([`budget::skipped`]), so
/// paging through a long list costs a page, not the list. `budget::window` then drains and cuts
/// by those counts; what is not alike is walked, which finds exactly what a whole walk would.
pub(crate) fn page(root: &Element, offset: usize, limit: Option<usize>) {
    PAGED.with(|p| *p.borrow_mut() = Some((root.clone(), offset, limit)));
}

/// A walk begins: no containers marked yet; `viewport`: leave out what is off screen; `lazy`:
/// the budget in characters past which a container's run of similar children is skipped, not
/// walked (only for a view that [`super::budget::fit`] alone cuts: no window, filter or scope).
pub(crate) fn begin(viewport: bool, lazy: Option<usize>) {
    BIG.with(|b| b.borrow_mut().clear());
    PAGED.with(|p| p.borrow_mut().take());
    VIEWPORT.with(|v| v.set(viewport));
    LAZY.with(|l| l.set(lazy.unwrap_or(0)));
}

/// A run of siblings like the one whose node put a container over the budget, none hidden by an
/// attribute. The walk skips them, counting.
struct Run {
    /// How the first of them looks; the others must look the same.
    look: Look,
    /// The role of the node the first of them made.
    role: String,
    count: usize,
    /// The most it may count (a run before a paged window ends where the window starts).
    until: Option<usize>,
}

/// How an item looks, as far as a skipped run compares: its tag, `class`, first element child's
/// tag, and whether it has text other than whitespace.
#[derive(PartialEq)]
struct Look {
    tag: String,
    class: Option<String>,
    inside: Option<String>,
    text: bool,
}

impl Look {
    /// `el`'s look (`first`: its first element child).
    fn of(el: &Element, first: Option<&Element>) -> Look {
        Look {
            tag: el.local_name(),
            class: attribute(el, "class"),
            inside: first.map(Element::local_name),
            text: el.text_content().is_some_and(|t| !t.trim().is_empty()),
        }
    }
}

impl Run {
    /// A run of siblings like `el`, whose walk just made the last node of `out` (its loose text
    /// closed first), counting at most `until` of them.
    fn after(el: &Element, out: &mut Out, until: Option<usize>) -> Option<Run> {
        let role = out.nodes.last().map(|last| last.role.clone());
        out.flush();
        role.map(|role| Run {
            look: Look::of(el, el.first_element_child().as_ref()),
            role,
            count: 0,
            until,
        })
    }

    /// Whether `el` is one more of the run, making one node as the first did: alike, and shown
    /// with its first element child (`checkVisibility`). Anything else ends the run and is walked,
    /// which finds exactly what it makes: an item of another shape (whitespace only, an empty
    /// `<span>`, a `<template>`), a hidden one, one whose first child is hidden while the rest may
    /// show, `display:contents`.
    fn takes(&self, el: &Element) -> bool {
        let first = el.first_element_child();
        let shown = |e: &Element| check_visibility(e) != Some(false);
        Look::of(el, first.as_ref()) == self.look
            && matches(el, ":not([aria-hidden=true],[inert],[style*=hidden])")
            && shown(el)
            && first.as_ref().is_none_or(shown)
    }
}

/// The ref of a container the budget cuts (a placeholder becomes its element's ref).
pub(crate) fn settle_ref(n: &mut SnapshotNode) -> Option<String> {
    let index = n.ref_id.as_deref()?.strip_prefix(PLACEHOLDER).and_then(parse_number);
    if let Some(i) = index {
        n.ref_id = BIG.with(|b| {
            b.borrow().get(i as usize).map(|(el, prefix)| {
                let mut r = prefix.clone();
                r.push('e');
                push_number(&mut r, ref_number(el));
                r
            })
        });
    }
    n.ref_id.clone()
}

/// Drops the placeholders of containers that were not cut, and collects the line of each node
/// with a ref (for [`super::seen`]).
pub(crate) fn settle(n: &mut SnapshotNode, ref_lines: &mut Vec<String>) {
    if let Some(r) = &n.ref_id {
        if r.starts_with(PLACEHOLDER) {
            n.ref_id = None;
        } else {
            ref_lines.push(n.line());
        }
    }
    for c in &mut n.children {
        settle(c, ref_lines);
    }
}

/// What the parent passes down.
#[derive(Clone, Copy)]
struct Ctx {
    /// The parent's own text is rendered (not `visibility:hidden`).
    text_visible: bool,
    /// The parent's cursor is `pointer` (so a child's pointer is inherited, not its own).
    pointer: bool,
    /// Loose text here already is some element's name.
    suppress: bool,
    /// Inside a layout table or list (`role=presentation`/`none`), or a list with another role
    /// (`<ul role="menu">`): its rows, cells and items are layout too (ARIA passes the role on to
    /// required owned elements; an `<li>` outside a list is generic), as in Chromium.
    layout: bool,
    /// Inside a control that is not a leaf (a combobox, a text field): what takes clicks in it is
    /// part of the control (FAST's select shows its value in a `cursor:pointer` box), no node of
    /// its own.
    in_control: bool,
}

/// Nodes being collected, and loose text not yet closed into a text node.
#[derive(Default)]
struct Out {
    /// The nodes so far.
    nodes: Vec<SnapshotNode>,
    /// Loose text not yet closed into a text node.
    text: String,
}

impl Out {
    /// Closes the loose text into a text node.
    fn flush(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let t = squash(&self.text);
        self.text.clear();
        if !t.is_empty() {
            self.nodes.push(SnapshotNode::text(t));
        }
    }
}

/// The walk of one document.
struct Walker {
    /// The document's window (for computed styles).
    win: Win,
    /// `""` in the page, `f1` … in frames.
    prefix: String,
    /// Ids that some `aria-labelledby` in this document points at (sorted).
    labelled: Vec<String>,
    /// How deep in frames this document is.
    depth: u32,
    /// An open modal dialog: everything outside it (and the popups its controls own) is inert.
    modal: Option<Modal>,
}

/// The page as snapshot nodes.
pub(crate) fn walk_page() -> Vec<SnapshotNode> {
    let win = page_window();
    let doc = get(&win, "document");
    if !doc.is_object() {
        return Vec::new();
    }
    walk_document(win, doc.unchecked_ref(), String::new(), 0, None)
}

/// One element's subtree as snapshot nodes (its own node, or its children's when it has no role).
pub(crate) fn walk_element(el: &Element, prefix: String) -> Vec<SnapshotNode> {
    let Some(doc) = el.owner_document() else {
        return Vec::new();
    };
    let win = get(&doc, "defaultView");
    if !win.is_object() {
        return Vec::new();
    }
    let depth = u32::from(!prefix.is_empty());
    walk_document(win.unchecked_into(), &doc, prefix, depth, Some(el))
}

/// Walks one document (the page's or a frame's; or only `root` in it) with its label index built.
fn walk_document(
    win: Win,
    doc: &web_sys::Document,
    prefix: String,
    depth: u32,
    root: Option<&Element>,
) -> Vec<SnapshotNode> {
    let Some(body) = doc.body() else {
        return Vec::new();
    };
    let saved = labels::index_labels(doc);
    // Pseudo-elements: skipped where no sheet gives them text, but a walk scoped to one element
    // (perhaps inside shadow trees whose sheets it would have to look up) reads them all.
    let pseudo_before = super::flat::pseudo_in_document(doc, root.is_none());
    let mut w = Walker {
        labelled: labelled_ids(doc),
        win,
        prefix,
        depth,
        modal: Modal::of(doc),
    };
    let above = root.and_then(|el| el.parent_element());
    let pointer = w.look(above.as_ref().unwrap_or(&body)).is_some_and(|l| l.2);
    let mut out = Out::default();
    let ctx = Ctx {
        text_visible: true,
        pointer,
        suppress: false,
        layout: false,
        in_control: false,
    };
    match root {
        Some(el) => w.element(el.clone(), &mut out, ctx),
        None => w.children(&body, "body", &mut out, ctx, true),
    }
    out.flush();
    labels::set_label_index(saved);
    super::flat::restore_pseudo(pseudo_before);
    out.nodes
}

/// The ids that some `aria-labelledby` of `doc` points at, sorted.
fn labelled_ids(doc: &web_sys::Document) -> Vec<String> {
    let mut ids = Vec::new();
    if let Ok(list) = doc.query_selector_all(intern("[aria-labelledby]")) {
        for i in 0..list.length() {
            let Some(n) = list.item(i) else { continue };
            let el: Element = n.unchecked_into();
            if let Some(v) = attribute(&el, "aria-labelledby") {
                for id in v.split_ascii_whitespace() {
                    if let Err(at) = ids.binary_search_by(|x: &String| x.as_str().cmp(id)) {
                        ids.insert(at, id.to_owned());
                    }
                }
            }
        }
    }
    ids
}

impl Walker {
    /// `(display, visible, cursor is pointer)`; `None` when it is not displayed (or clipped to
    /// nothing).
    fn look(&self, el: &Element) -> Option<(String, bool, bool)> {
        let style = self.win.computed_style(el, None).ok()?;
        let display = style.display();
        // (An element that hides its contents is left out with them: alone it says nothing.)
        if display == "none" || hides_contents(&style) || clips_to_nothing(el, &style) {
            return None;
        }
        Some((display, style.visibility() == "visible", style.cursor() == "pointer"))
    }

    /// Whether `el` has a box and it lies wholly outside its window's viewport.
    fn off_screen(&self, el: &Element) -> bool {
        let r = el.get_bounding_client_rect();
        let (w, h) = (
            get(&self.win, "innerWidth").as_f64(),
            get(&self.win, "innerHeight").as_f64(),
        );
        let (Some(w), Some(h)) = (w, h) else { return false };
        let (x, y, bw, bh) = (r.x(), r.y(), r.width(), r.height());
        (bw > 0.0 || bh > 0.0) && (y + bh <= 0.0 || x + bw <= 0.0 || y >= h || x >= w)
    }

    /// Walks the flat-tree children of `el` (a closed `<details>` shows only its summary).
    ///
    /// In a lazy walk, the children of a `container` (a node of its own, not a transparent
    /// element) that are certainly over the budget (at their least size, with more than `fit`
    /// ever keeps) end the walk of the run of siblings like the last one: the rest of the run is
    /// counted into one [`budget::skipped`] node. `fit` cuts everything from there on, so the
    /// text is the same as a whole walk's.
    fn children(&mut self, el: &Element, tag: &str, out: &mut Out, ctx: Ctx, container: bool) {
        if tag == "details" && !has_attribute(el, "open") {
            // Closed: only the summary shows.
            let mut c = el.first_element_child();
            while let Some(e) = c {
                c = e.next_element_sibling();
                if e.local_name() == "summary" {
                    self.element(e, out, ctx);
                    break;
                }
            }
            return;
        }
        let max = if container { LAZY.with(Cell::get) } else { 0 };
        // A paged view of this container: its window of children.
        let paged = PAGED.with(|p| {
            let p = p.borrow();
            p.as_ref()
                .filter(|(root, ..)| container && root == el)
                .map(|(_, offset, limit)| (*offset, *limit))
        });
        let (mut size, mut counted) = (0, 0);
        // What the skipped runs stand for beyond their one node each.
        let mut extra = 0;
        let mut run: Option<Run> = None;
        for_each_child(el, tag, &mut |n: Node| {
            let kind = n.node_type();
            if let Some(r) = &mut run {
                let goes_on = match kind {
                    Node::ELEMENT_NODE => r.until.is_none_or(|u| r.count < u) && r.takes(n.unchecked_ref()),
                    Node::TEXT_NODE => n
                        .node_value()
                        .is_none_or(|t| t.bytes().all(|b| b.is_ascii_whitespace())),
                    _ => true,
                };
                if goes_on {
                    r.count += usize::from(kind == Node::ELEMENT_NODE);
                    return;
                }
                if let Some(r) = run.take() {
                    if paged.is_none() || r.count > 0 {
                        extra += r.count.saturating_sub(1);
                        out.nodes.push(budget::skipped(r.role, r.count));
                    }
                }
            }
            match kind {
                Node::TEXT_NODE if ctx.text_visible && !ctx.suppress => {
                    out.text.push_str(&n.node_value().unwrap_or_default());
                }
                Node::ELEMENT_NODE => {
                    let e: Element = n.unchecked_into();
                    let before = out.nodes.len();
                    self.element(e.clone(), out, ctx);
                    if max > 0 {
                        size += out
                            .nodes
                            .iter()
                            .skip(counted)
                            // The body's children are the top level (depth 0): counting
                            // them deeper would skip what `fit` keeps.
                            .map(|n| budget::least_size(n, usize::from(tag != "body")))
                            .sum::<usize>();
                        counted = out.nodes.len();
                        if counted == before + 1 && counted >= budget::CUT_MIN && size > max {
                            run = Run::after(&e, out, None);
                        }
                    }
                    if let Some((offset, limit)) = paged.filter(|_| out.nodes.len() == before + 1) {
                        // One node like a list item: the alike ones before the window, or all
                        // after it, are counted instead of walked.
                        let shown = out.nodes.len() + extra;
                        let until = if shown < offset {
                            Some(Some(offset - shown))
                        } else {
                            limit.filter(|l| shown >= offset + l).map(|_| None)
                        };
                        if let Some(until) = until {
                            run = Run::after(&e, out, until);
                        }
                    }
                }
                _ => {}
            }
        });
        if let Some(r) = run {
            if paged.is_none() || r.count > 0 {
                out.nodes.push(budget::skipped(r.role, r.count));
            }
        }
    }

    /// Whether `el`'s text is the name of something else (so it is not repeated as loose text).
    fn names_something(&self, el: &Element, tag: &str, id: Option<&str>) -> bool {
        let parent_is = |t: &str| el.parent_element().is_some_and(|p| p.local_name() == t);
        match tag {
            // (Not when its control is hidden from the tree, select2's `aria-hidden` `<select>`:
            // the label's text is then all that says what the widget beside it is for.)
            "label" => {
                let c = get(el, "control");
                if c.is_object() && !matches(c.unchecked_ref(), "[aria-hidden=true],[aria-hidden=true] *") {
                    return true;
                }
            }
            "legend" if parent_is("fieldset") => return true,
            "caption" if parent_is("table") => return true,
            "figcaption" if parent_is("figure") => return true,
            _ => {}
        }
        let Some(id) = id else { return false };
        if self.labelled.binary_search_by(|l| l.as_str().cmp(id)).is_ok() {
            return true;
        }
        // In a shadow tree (the document's index does not see in): what in the same tree points
        // at it (Shoelace's `<label id="label">` of its select and radio group).
        let root = el.get_root_node();
        root.node_type() == Node::DOCUMENT_FRAGMENT_NODE && {
            let mut sel = String::from("[aria-labelledby~=\"");
            for c in id.chars() {
                if c == '"' || c == '\\' {
                    sel.push('\\');
                }
                sel.push(c);
            }
            sel.push_str("\"]");
            root.unchecked_ref::<web_sys::DocumentFragment>()
                .query_selector(&sel)
                .ok()
                .flatten()
                .is_some()
        }
    }

    /// Walks one element: left out, a node of its own, or transparent (its children float up).
    fn element(&mut self, el: Element, out: &mut Out, ctx: Ctx) {
        let tag = el.local_name().to_ascii_lowercase();
        if SKIP.binary_search(&tag.as_str()).is_ok() {
            return;
        }
        let a = Attrs::of(&el);
        if a.get(&el, "aria-hidden").as_deref() == Some("true") || a.has("inert") {
            return;
        }
        let id = a.get(&el, "id");
        if id
            .as_deref()
            .is_some_and(|id| OWN_IDS.iter().any(|p| id.starts_with(p)))
        {
            return;
        }
        if let Some(modal) = &self.modal {
            // Outside the modal dialog (neither it, inside it, nor around it, nor a popup its
            // controls own): inert.
            if !modal.reaches(&el) {
                return;
            }
        }
        let Some((display, visible, pointer)) = self.look(&el) else {
            return;
        };
        if VIEWPORT.with(Cell::get) && self.off_screen(&el) {
            return;
        }
        let explicit = a.get(&el, "role");
        let implicit_only = explicit.is_none();
        let mut role = roles::role_of(&el, &tag, explicit);
        let layout = match tag.as_str() {
            "table" | "ul" | "ol" => matches!(role, "presentation" | "none"),
            _ => ctx.layout,
        };
        let owned = matches!(role, "row" | "cell" | "columnheader" | "rowheader" | "listitem");
        if roles::is_dropped(role) || !visible || (layout && owned && implicit_only) {
            role = "";
        }
        let ctx = Ctx { layout, ..ctx };
        // An icon (an `<svg>` or `<img>` without an explicit role) that is itself clickable is a
        // `clickable`, not an image nobody may target: icon buttons of delegated handlers.
        let icon = role == "img" && matches!(tag.as_str(), "svg" | "img") && implicit_only;
        // What takes clicks without an interactive role gets a ref: as a `clickable` when it has
        // no role of its own (or is an icon), else on its own role's line (`row [ref=e5]: …`,
        // `listitem [ref=e6]: "Apple"`: clickable rows and items).
        let mut clickable = false;
        let mut stand_in = false;
        if visible && !roles::is_interactive(role) {
            let tabindex = a.get(&el, "tabindex");
            let onclick_attr = a.has("onclick");
            // (The `onclick` property is read only where there is no role: for every row, cell
            // and item of a big table or list it would be a JS call each, for a rare handler.)
            let bare = role.is_empty() || icon;
            // A label whose control is not displayed (a CSS toggle over a `hidden` checkbox) is
            // what a user clicks: the only node of that control, with its `[checked]`.
            stand_in = tag == "label" && {
                let control = get(&el, "control");
                check_visibility(&control) == Some(false)
                    && matches!(get(&control, "type").as_string().as_deref(), Some("checkbox" | "radio"))
            };
            clickable = stand_in
                || !(ctx.in_control && bare)
                    && roles::clickable(
                        &el,
                        &tag,
                        pointer && !ctx.pointer,
                        onclick_attr,
                        tabindex.as_deref(),
                        || bare && roles::onclick_handler(&el),
                    );
            if clickable && bare {
                role = "clickable";
            }
        }
        if role.is_empty() {
            self.transparent(&el, &tag, id.as_deref(), &display, visible, pointer, out, ctx);
        } else {
            out.flush();
            if let Some(mut node) = self.node(&el, &tag, role, clickable, visible, pointer, &a) {
                if stand_in && get(&get(&el, "control"), "checked").is_truthy() {
                    node.attrs.push(Attr::Checked);
                }
                if node.role == "clickable" && node.ref_id.is_none() {
                    // A component's host that only wraps its control: the control is the node.
                    out.nodes.append(&mut node.children);
                } else if node.role == "clickable"
                    && node.name.is_empty()
                    && node.children.is_empty()
                    && component(&el, &tag)
                {
                    // A part of a component that takes clicks and says nothing (FAST's
                    // number field's step arrows): no empty `clickable`.
                } else {
                    out.nodes.push(node);
                }
            }
        }
    }

    /// An element without a node of its own: its children and text join the parent's.
    #[allow(clippy::too_many_arguments)]
    fn transparent(
        &mut self,
        el: &Element,
        tag: &str,
        id: Option<&str>,
        display: &str,
        visible: bool,
        pointer: bool,
        out: &mut Out,
        ctx: Ctx,
    ) {
        let block = !(display.starts_with("inline") || display == "contents");
        let spaced = display.starts_with("inline-");
        if block {
            out.flush();
        } else if spaced {
            out.text.push(' ');
        }
        let suppress = ctx.suppress || self.names_something(el, tag, id);
        let show_text = visible && !suppress;
        if show_text {
            out.text.push_str(&pseudo(&self.win, el, "::before"));
        }
        let inner = Ctx {
            text_visible: visible,
            pointer,
            suppress,
            layout: ctx.layout,
            in_control: ctx.in_control,
        };
        self.children(el, tag, out, inner, false);
        if show_text {
            out.text.push_str(&pseudo(&self.win, el, "::after"));
        }
        if block {
            out.flush();
        } else if spaced {
            out.text.push(' ');
        }
    }

    /// The node of an element with a role (`clickable`: it takes clicks, so it has a ref whatever
    /// its role); `None` when it would say nothing (a nameless image, an empty unnamed container).
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        el: &Element,
        tag: &str,
        role: &'static str,
        clickable: bool,
        visible: bool,
        pointer: bool,
        a: &Attrs,
    ) -> Option<SnapshotNode> {
        let (name, from_content) = if role == "iframe" {
            (a.get(el, "title").map(|t| squash(&t)).unwrap_or_default(), false)
        } else {
            name::name_with(&self.win, el, tag, role, a)
        };
        let name = if name.is_empty() && roles::is_interactive(role) && role != "clickable" {
            host_name(&self.win, el, role)
        } else {
            name
        };
        let attrs = self.states(el, tag, role, &name, a);
        let wants_ref = clickable || roles::is_interactive(role);
        // A component (a custom element, or what its shadow tree draws) that takes clicks only by
        // its cursor, a tabindex or a handler: when a control is inside it, that control is what
        // acts, and the component's ref waits until its content is known.
        let wrapper = clickable && (role == "clickable" || !roles::is_interactive(role)) && component(el, tag);
        if !wants_ref && roles::is_landmark(role) && !name.is_empty() {
            // A named landmark keeps the number it always had (so the numbers of what follows stay
            // as they were), but its ref is not shown: nobody clicks a landmark.
            ref_number(el);
        }
        let mut node = SnapshotNode {
            role: role.to_owned(),
            name,
            attrs,
            ref_id: None,
            children: Vec::new(),
        };
        if wants_ref && !wrapper {
            let n = control_ref_number(el, role, &node.name);
            let mut r = self.prefix.clone();
            r.push('e');
            push_number(&mut r, n);
            node.ref_id = Some(r);
        }
        if role == "img" && node.name.is_empty() && node.ref_id.is_none() && !wrapper {
            return None;
        }
        if wrapper && roles::is_leaf(role) {
            let mut r = self.prefix.clone();
            r.push('e');
            push_number(&mut r, ref_number(el));
            node.ref_id = Some(r);
        }
        if !roles::is_leaf(role) {
            match tag {
                "iframe" | "frame" => node.children = self.frame(el),
                "select" => node.children = super::options::options(el, role == "listbox"),
                "input" | "textarea" => {}
                _ => {
                    // (A container's `::before`/`::after` are bullets and decoration: left out.)
                    let mut inner = Out::default();
                    let ctx = Ctx {
                        text_visible: visible,
                        pointer,
                        suppress: false,
                        // A `<ul role="menu">`'s items wrap its menu items: no list items.
                        layout: matches!(tag, "ul" | "ol") && role != "list",
                        in_control: matches!(role, "combobox" | "textbox" | "searchbox" | "spinbutton"),
                    };
                    self.children(el, tag, &mut inner, ctx, true);
                    inner.flush();
                    node.children = inner.nodes;
                }
            }
            if roles::is_interactive(role) && role != "clickable" {
                fold_same_named_clickables(&mut node);
            }
            tidy(&mut node, from_content);
            if wrapper && !has_control(&node.children) {
                let mut r = self.prefix.clone();
                r.push('e');
                push_number(&mut r, ref_number(el));
                node.ref_id = Some(r);
            }
            if node.children.len() >= budget::CUT_MIN && node.ref_id.is_none() {
                let mut r = String::from(PLACEHOLDER);
                BIG.with(|b| {
                    let mut b = b.borrow_mut();
                    push_number(&mut r, b.len() as u32);
                    b.push((el.clone(), self.prefix.clone()));
                });
                node.ref_id = Some(r);
            }
        }
        // (An empty cell stays: it keeps the columns of its row in place.)
        let says_nothing = node.name.is_empty()
            && node.children.is_empty()
            && node.attrs.is_empty()
            && node.ref_id.is_none()
            && !matches!(role, "iframe" | "cell" | "gridcell" | "columnheader" | "rowheader");
        (!says_nothing).then_some(node)
    }

    /// A same-origin frame's page, with its refs prefixed `fN`; nothing for other origins.
    fn frame(&mut self, el: &Element) -> Vec<SnapshotNode> {
        if self.depth >= MAX_FRAME_DEPTH {
            return Vec::new();
        }
        let doc = get(el, "contentDocument");
        let fwin = get(el, "contentWindow");
        if !doc.is_object() || !fwin.is_object() {
            return Vec::new();
        }
        let mut prefix = String::from("f");
        push_number(&mut prefix, frame_number(el));
        walk_document(fwin.unchecked_into(), doc.unchecked_ref(), prefix, self.depth + 1, None)
    }

    /// The state attributes of a node (`checked`, `expanded`, `value`, `level`, …).
    fn states(&self, el: &Element, tag: &str, role: &str, name: &str, a: &Attrs) -> Vec<Attr> {
        let mut attrs = Vec::new();
        let aria = |n: &str| a.get(el, n);
        let is_true = |n: &str| aria(n).as_deref() == Some("true");
        let form_control = matches!(
            tag,
            "button" | "input" | "select" | "textarea" | "option" | "optgroup" | "fieldset"
        );
        let disabled = if roles::is_interactive(role) {
            crate::js::disabled(el)
        } else {
            (form_control && matches(el, ":disabled")) || is_true("aria-disabled")
        };
        if disabled {
            attrs.push(Attr::Disabled);
        }
        if matches!(
            role,
            "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
        ) {
            let (checked, mixed) = match aria("aria-checked") {
                _ if tag == "input" => (get(el, "checked").is_truthy(), get(el, "indeterminate").is_truthy()),
                Some(v) => (v == "true", v == "mixed"),
                // A component that keeps its state in `ElementInternals` (Material's md-radio):
                // its `checked` property.
                None => (
                    tag.contains('-') && get(el, "checked") == wasm_bindgen::JsValue::TRUE,
                    false,
                ),
            };
            if mixed {
                attrs.push(Attr::Mixed);
            } else if checked {
                attrs.push(Attr::Checked);
            }
        }
        let value = match role {
            "textbox" | "searchbox" | "spinbutton" | "combobox" if tag == "input" || tag == "textarea" => {
                let v = get(el, "value").as_string().unwrap_or_default();
                if !v.is_empty() && aria("type").is_some_and(|t| t.eq_ignore_ascii_case("password")) {
                    SECRET_VALUE.to_owned()
                } else {
                    v
                }
            }
            "combobox" if tag == "select" => selected_text(el),
            "slider" | "spinbutton" | "progressbar" | "meter" => aria("aria-valuetext")
                .or_else(|| aria("aria-valuenow"))
                .or_else(|| number_or_string(&get(el, "value")))
                .unwrap_or_default(),
            _ => String::new(),
        };
        let filled = !value.is_empty();
        if filled && value != name {
            attrs.push(Attr::Value(value));
        }
        if tag == "input" || tag == "textarea" {
            if let Some(p) = aria("placeholder").map(|p| squash(&p)) {
                if !p.is_empty() && p != name {
                    attrs.push(Attr::Placeholder(p));
                }
            }
        }
        if role == "heading" {
            let level = aria("aria-level")
                .and_then(|l| parse_number(l.trim()))
                .or_else(|| tag.strip_prefix('h').and_then(parse_number))
                .map_or(2, |l| l.clamp(1, 255) as u8);
            attrs.push(Attr::Level(level));
        }
        let expanded = if tag == "summary" {
            el.parent_element()
                .filter(|p| p.local_name() == "details")
                .map(|p| if has_attribute(&p, "open") { "true" } else { "false" }.to_owned())
        } else {
            aria("aria-expanded")
        };
        match expanded.as_deref() {
            Some("true") => attrs.push(Attr::Expanded),
            Some("false") => attrs.push(Attr::Collapsed),
            _ => {}
        }
        let selected_prop = || {
            tag.contains('-')
                && matches!(role, "tab" | "option")
                && !a.has("aria-selected")
                && (get(el, "selected") == wasm_bindgen::JsValue::TRUE
                    || get(el, "active") == wasm_bindgen::JsValue::TRUE)
        };
        if is_true("aria-selected") || selected_prop() {
            attrs.push(Attr::Selected);
        }
        if matches!(aria("aria-pressed").as_deref(), Some("true" | "mixed")) {
            attrs.push(Attr::Pressed);
        }
        if (tag == "details" || tag == "dialog") && a.has("open") {
            attrs.push(Attr::Open);
        }
        if (form_control && a.has("required")) || is_true("aria-required") {
            attrs.push(Attr::Required);
        }
        if ((tag == "input" || tag == "textarea") && a.has("readonly")) || is_true("aria-readonly") {
            attrs.push(Attr::Readonly);
        }
        // Refused by the browser's validation once it holds a value (a typed bad address), so an
        // untouched required field is not flagged (`:user-invalid` misses the agent's synthetic edits).
        let refused = filled && matches(el, ":invalid");
        if refused || matches!(aria("aria-invalid").as_deref(), Some(v) if v != "false") {
            attrs.push(Attr::Invalid);
        }
        if let Some(v) = aria("aria-current").filter(|v| v != "false") {
            attrs.push(Attr::Current(v));
        }
        if let Some(v) = aria("aria-sort").filter(|v| v != "none") {
            attrs.push(Attr::Sort(v));
        }
        if role == "iframe" {
            let href = get(&get(&get(el, "contentWindow"), "location"), "href").as_string();
            let url = href.or_else(|| aria("src")).unwrap_or_default();
            if !url.is_empty() {
                attrs.push(Attr::Url(url));
            }
        }
        attrs
    }
}

/// Whether `el` is part of a web component: a custom element, a shadow host, or in a shadow tree.
fn component(el: &Element, tag: &str) -> bool {
    tag.contains('-')
        || get(el, "shadowRoot").is_object()
        || el.get_root_node().node_type() == Node::DOCUMENT_FRAGMENT_NODE
}

/// The name of a control drawn in a shadow tree that names it nothing: its host's (the
/// `aria-label` on `<md-checkbox>`, the `<label>` around it), as delegated ARIA gives it.
fn host_name(win: &Win, el: &Element, role: &str) -> String {
    let root = el.get_root_node();
    if root.node_type() != Node::DOCUMENT_FRAGMENT_NODE {
        return String::new();
    }
    let host = get(&root, "host");
    let Some(host) = host.dyn_ref::<Element>() else {
        return String::new();
    };
    let tag = host.local_name().to_ascii_lowercase();
    name::name_with(win, host, &tag, role, &Attrs::of(host)).0
}

/// Whether `nodes` hold a control with a ref (not a cut container's placeholder).
fn has_control(nodes: &[SnapshotNode]) -> bool {
    nodes.iter().any(|n| {
        n.ref_id.as_ref().is_some_and(|r| !r.starts_with(PLACEHOLDER)) && roles::is_interactive(&n.role)
            || has_control(&n.children)
    })
}

/// A property that is a string (`input.value`) or a number (`progress.value`) as text.
fn number_or_string(v: &wasm_bindgen::JsValue) -> Option<String> {
    if let Some(s) = v.as_string() {
        return Some(s);
    }
    v.as_f64()?;
    v.unchecked_ref::<js_sys::Number>()
        .to_string_with_radix(10)
        .ok()
        .map(String::from)
}

/// Leaves out what repeats the node's name: text children the name already contains, a single
/// unaddressed child with the same name; and the name a row, a cell or a clickable took from its
/// content when its children say it anyway.
fn tidy(node: &mut SnapshotNode, from_content: bool) {
    if node.children.is_empty() {
        return;
    }
    let all_text = node.children.iter().all(|c| c.role.is_empty());
    if all_text && !node.name.is_empty() && node.children.iter().all(|c| has_sub(&node.name, &c.name)) {
        node.children.clear();
        return;
    }
    if let [only] = node.children.as_slice() {
        // (Not a row's one cell, nor a child with state of its own: a one-cell header row is
        // `row: columnheader "Name" [sort="ascending"]`, not `row "Name"`.)
        let keeps = only.role == "row"
            || matches!(node.role.as_str(), "row" | "table" | "grid" | "treegrid" | "rowgroup")
            || !only.attrs.is_empty();
        if !keeps
            && !only.role.is_empty()
            && only.ref_id.is_none()
            && only.children.is_empty()
            && only.name == node.name
        {
            node.children.clear();
            return;
        }
    }
    let repeats_children = matches!(
        node.role.as_str(),
        "row" | "clickable" | "cell" | "gridcell" | "columnheader" | "rowheader"
    );
    if from_content && repeats_children && !all_text {
        node.name.clear();
    }
}

/// What takes clicks inside a control and says only the control's name is the control itself
/// (the base of Shoelace's menu item, drawn in its shadow root under `cursor:pointer`): its
/// content joins the control, with no second node and ref to target. A part with a name of its
/// own (a tab's close icon) stays.
fn fold_same_named_clickables(node: &mut SnapshotNode) {
    if node.name.is_empty() || !node.children.iter().any(|c| c.role == "clickable") {
        return;
    }
    let children = std::mem::take(&mut node.children);
    for mut c in children {
        if c.role == "clickable" && c.name == node.name {
            node.children.append(&mut c.children);
        } else {
            node.children.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_is_sorted() {
        assert!(SKIP.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn tidy_drops_repeats() {
        let mut link = SnapshotNode::new("link", "Home").child(SnapshotNode::new("img", "Home"));
        tidy(&mut link, true);
        assert!(link.children.is_empty());
        let mut h = SnapshotNode::new("heading", "Docs (new tab)").child(SnapshotNode::text("Docs"));
        tidy(&mut h, true);
        assert!(h.children.is_empty());
        let mut row = SnapshotNode::new("row", "Ada 36")
            .child(SnapshotNode::new("cell", "Ada"))
            .child(SnapshotNode::new("cell", "36"));
        tidy(&mut row, true);
        assert_eq!(row.name, "");
        assert_eq!(row.children.len(), 2);
        let mut header = SnapshotNode::new("row", "Name").child(
            SnapshotNode::new("columnheader", "Name")
                .attr(browser_agent_protocol::snapshot::Attr::Sort("ascending".into())),
        );
        tidy(&mut header, true);
        assert_eq!(header.name, "");
        assert_eq!(header.children[0].role, "columnheader");
        let mut one = SnapshotNode::new("row", "Ada").child(SnapshotNode::new("cell", "Ada"));
        tidy(&mut one, true);
        assert_eq!((one.name.as_str(), one.children.len()), ("", 1));
        let mut labelled = SnapshotNode::new("heading", "Other").child(SnapshotNode::text("Text"));
        tidy(&mut labelled, false);
        assert_eq!(labelled.children.len(), 1);
    }
}
