//! What a drag reordered: the item texts of the lists around the source and the destination,
//! read before the drag and compared after it (`; ul#todo: A, B, C → B, C, A`). A list is the
//! nearest ancestor (up to [`MAX_DEPTH`] levels) holding two visible elements or more; the
//! destination's parent and the destination itself count as one too (the list a lone card is in,
//! a column, even an empty one). After the drag the list the
//! dragged item is in now is read too, when it is none of those. Only the innermost changed lists
//! are told (a board around two columns changes with them).

use super::super::super::resolve::{is_visible, short};
use crate::js::{as_element, get};
use crate::snapshot::name::squash;
use web_sys::Element;

/// How many ancestors up a list is looked for.
const MAX_DEPTH: usize = 6;
/// Most items told of a list (around what changed).
const SHOWN: usize = 12;
/// Most characters of an item's text.
const TEXT_CHARS: usize = 30;

/// A list that changed: it, its item texts before (`None`: not read before), and now.
type Change<'a> = (&'a Element, Option<&'a [String]>, Vec<String>);

/// The lists around a drag, read before it.
pub(super) struct Around {
    /// The dragged element's item: the child of its list that holds it.
    item: Option<Element>,
    /// Each list with its item texts before the drag.
    lists: Vec<(Element, Vec<String>)>,
}

impl Around {
    /// Reads the lists around `src` and `dest` before the drag.
    pub(super) fn before(src: &Element, dest: &Element) -> Around {
        let mut around = Around {
            item: None,
            lists: Vec::new(),
        };
        if let Some((item, list)) = list_of(src) {
            around.item = Some(item);
            around.add(list);
        }
        if let Some((_, list)) = list_of(dest) {
            around.add(list);
        }
        // The list a destination item is in, even alone there; the destination itself (a
        // column, even an empty one).
        for list in [dest.parent_element(), Some(dest.clone())].into_iter().flatten() {
            if !list.contains(Some(src)) && !matches!(list.local_name().as_str(), "body" | "html") {
                around.add(list);
            }
        }
        around
    }

    fn add(&mut self, list: Element) {
        if !self.lists.iter().any(|(l, _)| *l == list) {
            let texts = texts(&list);
            self.lists.push((list, texts));
        }
    }

    /// The lists whose order changed, before → after; `None` when none did.
    pub(super) fn after(&self) -> Option<String> {
        let mut changed: Vec<Change<'_>> = Vec::new();
        for (list, before) in &self.lists {
            if !list.is_connected() {
                continue;
            }
            let now = texts(list);
            if now != *before {
                changed.push((list, Some(before), now));
            }
        }
        let now_in = self
            .item
            .as_ref()
            .filter(|i| i.is_connected())
            .and_then(|i| i.parent_element());
        let mut entered = None;
        if let Some(p) = now_in.filter(|p| !self.lists.iter().any(|(l, _)| l == p)) {
            entered = Some(p);
        }
        if let Some(p) = &entered {
            changed.push((p, None, texts(p)));
        }
        let inner: Vec<_> = changed
            .iter()
            .filter(|(l, _, _)| !changed.iter().any(|(o, _, _)| o != l && l.contains(Some(*o))))
            .collect();
        if inner.is_empty() {
            return None;
        }
        let mut out = String::new();
        for (list, before, now) in inner {
            out.push_str("; ");
            out.push_str(&short(list));
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
}

/// The nearest ancestor-or-self of `el` whose parent holds two visible elements or more (the
/// item), and that parent (the list).
fn list_of(el: &Element) -> Option<(Element, Element)> {
    let mut cur = el.clone();
    for _ in 0..MAX_DEPTH {
        let p = cur.parent_element()?;
        if matches!(p.local_name().as_str(), "body" | "html") {
            return None;
        }
        if items(&p).len() >= 2 {
            return Some((cur, p));
        }
        cur = p;
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

/// The item texts of `list`: each item's text, squashed and cut.
fn texts(list: &Element) -> Vec<String> {
    items(list)
        .iter()
        .map(|e| {
            let t = squash(&e.text_content().unwrap_or_default());
            let mut out: String = t.chars().take(TEXT_CHARS).collect();
            if t.chars().nth(TEXT_CHARS).is_some() {
                out.push('…');
            }
            if out.is_empty() {
                short(e)
            } else {
                out
            }
        })
        .collect()
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
