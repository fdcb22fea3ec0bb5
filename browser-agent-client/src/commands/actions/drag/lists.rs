//! What a drag reordered: the item texts of the lists around the source and the destination,
//! read before the drag and compared after it (`; ul#todo: A, B, C → B, C, A`). A list is the
//! parent of the dragged item: the nearest ancestor-or-self that is a list item (`li`, `tr`, a
//! `listitem`/`option`/`row`/`treeitem` role, or `draggable="true"`), else of the nearest one
//! with a sibling alike (same tag and class), else the nearest ancestor (up to [`MAX_DEPTH`]
//! levels) holding two visible elements or more. The destination's parent and the destination
//! itself count as one too (the list a lone card is in, a column, even an empty one), and a
//! heading's siblings (the list under the column's title). After the drag the list the dragged
//! item is in now is read too, when it is none of those. Only the innermost changed lists are
//! told (a board around two columns changes with them). A list the page redrew (`innerHTML`) is
//! followed to the element now at its place. A list without an id is named by its label or the
//! heading above it (`div.list under "Done"`).

use super::super::super::resolve::{is_visible, short};
use crate::js::{as_element, attribute, get, matches};
use crate::snapshot::name::squash;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// How many ancestors up a list is looked for.
const MAX_DEPTH: usize = 6;
/// Most items told of a list (around what changed).
const SHOWN: usize = 12;
/// Most characters of an item's text.
const TEXT_CHARS: usize = 30;
/// What marks a list item.
const ITEM: &str = "li, tr, [role=listitem], [role=option], [role=row], [role=treeitem], [draggable=true]";
/// Most elements looked at when searching the page for the dragged item's text after a redraw.
const FIND_MAX: u32 = 3000;

/// A list that changed: it (now), its item texts before (`None`: not read before), and now.
type Change<'a> = (Element, Option<&'a [String]>, Vec<String>);

/// A list read before the drag: it, its item texts, and where it was (to follow a redraw).
struct List {
    el: Element,
    texts: Vec<String>,
    place: Place,
}

/// The lists around a drag, read before it.
pub(super) struct Around {
    /// The dragged element's item: the child of its list that holds it, and its text.
    item: Option<(Element, String)>,
    /// Each list with its item texts before the drag.
    lists: Vec<List>,
}

impl Around {
    /// Reads the lists around `src` and `dest` before the drag.
    pub(super) fn before(src: &Element, dest: &Element) -> Around {
        let mut around = Around {
            item: None,
            lists: Vec::new(),
        };
        if let Some((item, list)) = list_of(src) {
            around.item = Some((item.clone(), text_of(&item)));
            around.add(list);
        }
        // Inside a list item (a card's title): its parts are no lists.
        let mut inside = None;
        if let Some((item, list)) = list_of(dest) {
            around.add(list);
            inside = Some(item).filter(|i| i != dest && matches(i, ITEM));
        }
        // The list a destination item is in, even alone there; the destination itself (a
        // column, even an empty one).
        for list in [dest.parent_element(), Some(dest.clone())].into_iter().flatten() {
            if !list.contains(Some(src))
                && !matches!(list.local_name().as_str(), "body" | "html")
                && !inside.as_ref().is_some_and(|i| i.contains(Some(&list)))
            {
                around.add(list);
            }
        }
        // A column's heading: the list under it.
        if is_heading(dest) {
            let mut sib = dest.next_element_sibling();
            for _ in 0..4 {
                let Some(s) = sib else { break };
                sib = s.next_element_sibling();
                around.add(s);
            }
        }
        around
    }

    fn add(&mut self, list: Element) {
        if !self.lists.iter().any(|l| l.el == list) {
            self.lists.push(List {
                texts: texts(&list),
                place: Place::of(&list),
                el: list,
            });
        }
    }

    /// The lists whose order changed, before → after; `None` when none did.
    pub(super) fn after(&self) -> Option<String> {
        let mut changed: Vec<Change<'_>> = Vec::new();
        let mut now_lists = Vec::new();
        for l in &self.lists {
            let Some(list) = l.now() else { continue };
            let now = texts(&list);
            if now != l.texts {
                changed.push((list.clone(), Some(&l.texts), now));
            }
            now_lists.push(list);
        }
        let now_in = self
            .item
            .as_ref()
            .filter(|(i, _)| i.is_connected())
            .and_then(|(i, _)| i.parent_element());
        if let Some(p) = now_in.filter(|p| !now_lists.contains(p)) {
            let now = texts(&p);
            changed.push((p, None, now));
        }
        let inner: Vec<_> = changed
            .iter()
            .filter(|(l, _, _)| !changed.iter().any(|(o, _, _)| o != l && l.contains(Some(o))))
            .collect();
        if inner.is_empty() {
            return None;
        }
        let mut out = String::new();
        for (list, before, now) in inner {
            out.push_str("; ");
            out.push_str(&name(list));
            out.push_str(": ");
            match before {
                Some(before) => {
                    let (a, b) = window(before, now);
                    out.push_str(&shown(before, a, b));
                    out.push_str(" → ");
                    out.push_str(&shown(now, a, b));
                }
                None => {
                    out.push_str("now ");
                    out.push_str(&shown(now, 0, SHOWN.min(now.len())));
                }
            }
        }
        Some(out)
    }

    /// Where the dragged item's text is now, when the page replaced the item (a redraw): the one
    /// visible element like it (tag and class) with the same text, and its list (`"Fix bug" is
    /// now in div.list under "Done": Ship, Fix bug`).
    pub(super) fn found_now(&self) -> Option<String> {
        let (item, text) = self.item.as_ref().filter(|(i, _)| !i.is_connected())?;
        let all = item.owner_document()?.query_selector_all(&item.local_name()).ok()?;
        if all.length() > FIND_MAX {
            return None;
        }
        let like = short(item);
        let mut found = (0..all.length())
            .filter_map(|i| all.item(i).and_then(|n| n.dyn_into::<Element>().ok()))
            .filter(|e| short(e) == like && text_of(e) == *text && is_visible(e));
        let now = found.next()?;
        if found.next().is_some() {
            return None;
        }
        let mut out = String::from("\"");
        out.push_str(text);
        out.push_str("\" is now in ");
        let list = now.parent_element()?;
        out.push_str(&name(&list));
        out.push_str(": ");
        let all = texts(&list);
        out.push_str(&shown(&all, 0, SHOWN.min(all.len())));
        Some(out)
    }
}

/// Where an element was: its topmost ancestor and the child indices down from it, to find the
/// element a redraw put in its place.
struct Place {
    top: Element,
    path: Vec<u32>,
    like: String,
}

impl Place {
    fn of(el: &Element) -> Place {
        let mut path = Vec::new();
        let mut cur = el.clone();
        while let Some(p) = cur.parent_element() {
            let mut i = 0;
            let mut s = cur.previous_element_sibling();
            while let Some(e) = s {
                i += 1;
                s = e.previous_element_sibling();
            }
            path.push(i);
            cur = p;
        }
        path.reverse();
        Place {
            top: cur,
            path,
            like: short(el),
        }
    }
}

impl List {
    /// The list, or the element like it (tag and class) at its place now that the page redrew it.
    fn now(&self) -> Option<Element> {
        if self.el.is_connected() {
            return Some(self.el.clone());
        }
        let p = &self.place;
        if !p.top.is_connected() {
            return None;
        }
        let mut cur = p.top.clone();
        for i in &p.path {
            cur = as_element(js_sys::Reflect::get_u32(&get(&cur, "children"), *i).ok()?)?;
        }
        (short(&cur) == p.like).then_some(cur)
    }
}

/// Whether `el` is a heading.
fn is_heading(el: &Element) -> bool {
    matches(el, "h1, h2, h3, h4, h5, h6, [role=heading]")
}

/// How a list is named: `tag#id`; else `tag.class` with its `aria-label` or the heading just
/// above it (before it or an ancestor, two levels up): `div.list under "Done"`.
fn name(list: &Element) -> String {
    let mut out = short(list);
    if out.contains('#') {
        return out;
    }
    if let Some(label) = attribute(list, "aria-label").filter(|l| !l.trim().is_empty()) {
        out.push_str(" \"");
        out.push_str(&cut(&squash(&label)));
        out.push('"');
        return out;
    }
    let mut cur = Some(list.clone());
    for _ in 0..3 {
        let Some(el) = cur else { break };
        let mut sib = el.previous_element_sibling();
        for _ in 0..3 {
            let Some(s) = sib else { break };
            if is_heading(&s) {
                out.push_str(" under \"");
                out.push_str(&cut(&squash(&s.text_content().unwrap_or_default())));
                out.push('"');
                return out;
            }
            sib = s.previous_element_sibling();
        }
        cur = el
            .parent_element()
            .filter(|p| !matches!(p.local_name().as_str(), "body" | "html"));
    }
    out
}

/// The dragged item of `el` and its list: see the module's doc.
fn list_of(el: &Element) -> Option<(Element, Element)> {
    list_by(el, true)
}

/// The list item `el` is in: a marked one, or one beside an element alike (not the nearest
/// ancestor that merely has a sibling).
pub(super) fn item_of(el: &Element) -> Option<Element> {
    list_by(el, false).map(|(i, _)| i)
}

/// [`list_of`]; `loose`: else the nearest ancestor with any sibling.
fn list_by(el: &Element, loose: bool) -> Option<(Element, Element)> {
    let in_page = |p: &Element| !matches!(p.local_name().as_str(), "body" | "html");
    // A list item: its parent, even when it is alone there.
    let mut cur = el.clone();
    for _ in 0..MAX_DEPTH {
        if matches(&cur, ITEM) {
            if let Some(p) = cur.parent_element().filter(in_page) {
                return Some((cur, p));
            }
        }
        match cur.parent_element() {
            Some(p) if in_page(&p) => cur = p,
            _ => break,
        }
    }
    // An element with a sibling alike (not a card's title beside its button), else with any.
    for alike in [true, false] {
        if !alike && !loose {
            break;
        }
        let mut cur = el.clone();
        for _ in 0..MAX_DEPTH {
            let p = cur.parent_element().filter(in_page)?;
            let items = items(&p);
            let like = short(&cur);
            let n = if alike {
                items
                    .iter()
                    .filter(|i| short(i) == like && attribute(i, "class") == attribute(&cur, "class"))
                    .count()
            } else {
                items.len()
            };
            if n >= 2 {
                return Some((cur, p));
            }
            cur = p;
        }
    }
    None
}

/// The visible element children of `list` (a library's hidden clone or placeholder left out).
fn items(list: &Element) -> Vec<Element> {
    let c = get(list, "children");
    let n = get(&c, "length").as_f64().unwrap_or(0.0) as u32;
    (0..n)
        .filter_map(|i| as_element(js_sys::Reflect::get_u32(&c, i).unwrap_or_default()))
        .filter(is_visible)
        .collect()
}

/// The item texts of `list`.
fn texts(list: &Element) -> Vec<String> {
    items(list).iter().map(text_of).collect()
}

/// An item's text, squashed and cut: without its buttons and what is `aria-hidden` (a card's
/// "×", a handle's "⠿") when more is left; `tag.class` when it has none.
pub(super) fn text_of(e: &Element) -> String {
    let mut own = String::new();
    words(e, &mut own, 0);
    let t = squash(&own);
    let t = if t.is_empty() {
        squash(&e.text_content().unwrap_or_default())
    } else {
        t
    };
    if t.is_empty() {
        short(e)
    } else {
        cut(&t)
    }
}

/// The text of `el`'s nodes into `out`, leaving out buttons, `aria-hidden` elements, scripts and
/// styles below it.
fn words(el: &Element, out: &mut String, depth: u32) {
    let nodes = el.child_nodes();
    for i in 0..nodes.length() {
        let Some(n) = nodes.item(i) else { continue };
        if let Some(e) = n.dyn_ref::<Element>() {
            let skip = depth > 20
                || matches!(e.local_name().as_str(), "button" | "script" | "style" | "template")
                || attribute(e, "aria-hidden").as_deref() == Some("true");
            if !skip {
                out.push(' ');
                words(e, out, depth + 1);
                out.push(' ');
            }
        } else if n.node_type() == web_sys::Node::TEXT_NODE {
            out.push_str(&n.node_value().unwrap_or_default());
        }
    }
}

/// `t` cut to [`TEXT_CHARS`] characters, with `…` where it was cut.
fn cut(t: &str) -> String {
    let mut out: String = t.chars().take(TEXT_CHARS).collect();
    if t.chars().nth(TEXT_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// The range of items shown of a long list: from one before the first difference to one after
/// the last, at most [`SHOWN`].
fn window(a: &[String], b: &[String]) -> (usize, usize) {
    let n = a.len().max(b.len());
    if n <= SHOWN {
        return (0, n);
    }
    let first = (0..n).find(|i| a.get(*i) != b.get(*i)).unwrap_or(0);
    let start = first.saturating_sub(1);
    (start, (start + SHOWN).min(n))
}

/// Items `a..b` of `list`, comma-separated, with `…` where the list goes on.
fn shown(list: &[String], a: usize, b: usize) -> String {
    let mut out = String::new();
    if a > 0 {
        out.push_str("…, ");
    }
    let end = b.min(list.len());
    let part: Vec<&str> = list
        .get(a.min(end)..end)
        .unwrap_or(&[])
        .iter()
        .map(String::as_str)
        .collect();
    if part.is_empty() {
        out.push_str("(empty)");
    }
    crate::text::push_joined(&mut out, &part, ", ");
    if end < list.len() {
        out.push_str(", …");
    }
    out
}
