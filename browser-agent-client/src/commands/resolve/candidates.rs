//! The elements a lookup searches, how matches are ranked, and the errors when none or several
//! remain.

use super::describe::{describe, is_interactive_el};
use super::outcome::Miss;
use super::scope::page_window_document;
use super::visibility::{hidden_err, visible};
use crate::js::{closest, get};
use crate::snapshot::name::squash;
use crate::text::{cat, push_number};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Most items an error lists.
const MAX_LIST: usize = 10;

/// Tags never taken as targets, nor searched for text.
const NEVER: &[&str] = &[
    "body", "head", "html", "link", "meta", "noscript", "script", "style", "template", "title",
];

/// The agent's own elements (cursor, overlays).
fn own(el: &Element) -> bool {
    closest(el, browser_agent_protocol::UI_SELECTOR).is_some()
}

/// Every element under `document.body` that could be a target, in document order, open shadow
/// roots and same-origin frames included (their elements right after their host or frame, as the
/// snapshot walks them).
pub(super) fn all_elements() -> Vec<Element> {
    let mut out = Vec::new();
    let Some(doc) = page_window_document() else {
        return out;
    };
    let Some(body) = doc.body() else { return out };
    collect(body.query_selector_all("*").ok(), &mut out);
    out.retain(|e| !own(e));
    out
}

/// Appends the possible targets of `list`, descending into open shadow roots and same-origin frames.
fn collect(list: Option<web_sys::NodeList>, out: &mut Vec<Element>) {
    let Some(list) = list else { return };
    for i in 0..list.length() {
        let Some(n) = list.item(i) else { continue };
        let el: Element = n.unchecked_into();
        let tag = el.local_name().to_ascii_lowercase();
        if NEVER.contains(&tag.as_str()) || closest(&el, "svg").is_some_and(|s| s != el) {
            continue;
        }
        let shadow = get(&el, "shadowRoot");
        // A same-origin frame's document (cross-origin ones read as null).
        let frame_doc = if matches!(tag.as_str(), "iframe" | "frame") {
            get(&el, "contentDocument")
        } else {
            JsValue::NULL
        };
        out.push(el);
        if frame_doc.is_object() {
            let body = get(&frame_doc, "body");
            if body.is_object() {
                collect(body.unchecked_into::<Element>().query_selector_all("*").ok(), out);
            }
        }
        if shadow.is_object() {
            collect(
                shadow
                    .unchecked_into::<web_sys::DocumentFragment>()
                    .query_selector_all("*")
                    .ok(),
                out,
            );
        }
    }
}

/// The text of `el`'s own text-node children, squashed.
pub(super) fn own_text(el: &Element) -> String {
    let mut t = String::new();
    let mut c = crate::snapshot::flat::first_child(el);
    while let Some(n) = c {
        if n.node_type() == web_sys::Node::TEXT_NODE {
            t.push_str(&n.node_value().unwrap_or_default());
        }
        c = crate::snapshot::flat::next_sibling(&n);
    }
    squash(&t)
}

/// One match and how good it is.
pub(super) struct Cand {
    /// The element.
    pub(super) el: Element,
    /// It is something an agent acts on.
    pub(super) interactive: bool,
    /// It matches exactly (not only contains the text).
    pub(super) exact: bool,
}

/// Keeps the best tier of visible candidates; drops wrappers that contain another candidate.
pub(super) fn best(mut cands: Vec<Cand>) -> Vec<Cand> {
    let els: Vec<Element> = cands.iter().map(|c| c.el.clone()).collect();
    cands.retain(|c| {
        // A wrapper of another match goes, unless it is what acts (a button around a span).
        let wraps = |o: &Element| *o != c.el && c.el.contains(Some(o)) && (!c.interactive || is_interactive_el(o));
        !els.iter().any(wraps)
    });
    let any_interactive = cands.iter().any(|c| c.interactive);
    cands.retain(|c| c.interactive == any_interactive);
    let any_exact = cands.iter().any(|c| c.exact);
    cands.retain(|c| c.exact == any_exact);
    cands
}

/// The nearest ancestor-or-self an agent would act on (a `<span>` in a button → the button).
pub(super) fn promote(el: &Element) -> Element {
    let mut cur = Some(el.clone());
    let mut hops = 0;
    while let Some(e) = cur {
        let tag = e.local_name();
        if tag == "body" || hops > 6 {
            break;
        }
        if is_interactive_el(&e) {
            return e;
        }
        // A label's text names its control (a custom radio beside it, not the group around both).
        if tag == "label" {
            if let Some(c) = super::describe::label_control(&e).filter(visible) {
                return c;
            }
        }
        // A component that wraps its control (`<sl-button>` around its `<button>`): the control.
        if let Some(c) = super::describe::sole_control(&e).filter(super::visibility::visible) {
            return c;
        }
        hops += 1;
        // (Out of a shadow tree to its host: text drawn inside a component names the component.)
        cur = e.parent_element().or_else(|| {
            let root = e.get_root_node();
            crate::js::as_element(get(&root, "host"))
        });
    }
    el.clone()
}

/// Picks one of several equally good matches (`nth`), or says which there are. An `nth` past
/// the matches is refused even when only one matches (acting on it would act on another element),
/// and is nothing found, so a `wait` for the third match waits until there are three.
fn choose(step: &JsValue, what: &str, mut cands: Vec<Cand>) -> Result<Element, Miss> {
    let nth = get(step, "nth").as_f64();
    let i = nth.unwrap_or(0.0);
    if (nth.is_some() || cands.len() == 1) && i >= 0.0 && (i as usize) < cands.len() {
        return Ok(cands.swap_remove(i as usize).el);
    }
    let mut m = String::new();
    push_number(&mut m, cands.len() as u32);
    m.push_str(if cands.len() == 1 {
        " element matches "
    } else {
        " elements match "
    });
    m.push_str(what);
    m.push_str(": ");
    list(&mut m, cands.iter().map(|c| describe(&c.el)));
    m.push_str(". Use a ref, or \"nth\" (0 = the first)");
    if nth.is_some() {
        m.push_str("; nth is out of range");
        return Err(Miss::Nothing(m));
    }
    Err(Miss::Several(m))
}

/// Appends up to [`MAX_LIST`] items separated by `, `, then `and N more`.
pub(super) fn list(out: &mut String, items: impl Iterator<Item = String>) {
    let mut n = 0usize;
    for item in items {
        if n < MAX_LIST {
            if n > 0 {
                out.push_str(", ");
            }
            out.push_str(&item);
        }
        n += 1;
    }
    if n > MAX_LIST {
        out.push_str(" and ");
        push_number(out, (n - MAX_LIST) as u32);
        out.push_str(" more");
    }
}

/// The visible interactive elements, as the snapshot lists them (a `<select>`'s options are part of
/// it, not nodes of their own). Only the ones shown get described, so only they get refs.
fn visible_interactive() -> Vec<Element> {
    all_elements()
        .into_iter()
        // What `aria-hidden` hides (the page behind an open MUI or Radix popup) is not in the
        // snapshot, so not offered here either.
        .filter(|e| {
            e.local_name() != "option"
                && is_interactive_el(e)
                && visible(e)
                && closest(e, "[aria-hidden=true]").is_none()
        })
        .collect()
}

/// `m` plus the page's visible interactive elements (or that there are none).
fn with_visible(mut m: String) -> String {
    let items = visible_interactive();
    if items.is_empty() {
        m.push_str(". The page shows no interactive elements; it may still be loading (try a wait step)");
    } else {
        m.push_str(". Visible elements: ");
        let shown: Vec<String> = items.iter().take(MAX_LIST).map(describe).collect();
        list(&mut m, shown.into_iter());
        if items.len() > MAX_LIST {
            m.push_str(" and ");
            push_number(&mut m, (items.len() - MAX_LIST) as u32);
            m.push_str(" more");
        }
    }
    m
}

/// What a lookup looked for, in the words of its errors.
pub(super) struct Lookup {
    /// In the several-match error: `button "Save"`, `text "Save"`, `label "Email"`.
    pub(super) what: String,
    /// In the hidden error: `"Save"`, `The field labelled "Email"`.
    pub(super) subject: String,
    /// The no-match error: `No field labelled "Email" found`.
    pub(super) none: String,
    /// Heading of the visible alternatives (`. Visible labels: `); empty: none are listed.
    pub(super) heading: String,
    /// The visible alternatives (quoted); empty: the page's interactive elements are listed.
    pub(super) shown: Vec<String>,
}

impl Lookup {
    /// A field found by its `label` or `placeholder`: `how` is `labelled ` or `with placeholder `,
    /// `kind` is `label ` or `placeholder `.
    pub(super) fn field(how: &str, kind: &str, quoted: &str, heading: &str, shown: Vec<String>) -> Lookup {
        Lookup {
            what: cat(&[kind, quoted]),
            subject: cat(&["The field ", how, quoted]),
            none: cat(&["No field ", how, quoted, " found"]),
            heading: heading.to_owned(),
            shown,
        }
    }

    /// The tail every lookup shares: one of `cands` (already ranked), or the error: nothing for a
    /// quiet `wait`, the hidden match's reason, `none` plus the visible alternatives, or `none`
    /// plus the page's interactive elements.
    pub(super) fn finish(
        self,
        step: &JsValue,
        teach: bool,
        cands: Vec<Cand>,
        hidden: Option<Element>,
    ) -> Result<Element, Miss> {
        if !cands.is_empty() {
            return choose(step, &self.what, cands);
        }
        if !teach {
            return Err(Miss::Nothing(String::new()));
        }
        if let Some(h) = hidden {
            return Err(Miss::Nothing(hidden_err(&self.subject, &h)));
        }
        if self.shown.is_empty() {
            return Err(Miss::Nothing(with_visible(self.none)));
        }
        let mut m = self.none;
        m.push_str(&self.heading);
        list(&mut m, self.shown.into_iter());
        Err(Miss::Nothing(m))
    }
}

#[cfg(test)]
mod tests {
    use super::{list, Lookup};

    #[test]
    fn field_lookups_say_what_was_looked_for() {
        let l = Lookup::field("labelled ", "label ", "\"Email\"", ". Visible labels: ", Vec::new());
        assert_eq!(l.what, "label \"Email\"");
        assert_eq!(l.subject, "The field labelled \"Email\"");
        assert_eq!(l.none, "No field labelled \"Email\" found");
        let p = Lookup::field(
            "with placeholder ",
            "placeholder ",
            "\"Search\"",
            ". Visible placeholders: ",
            Vec::new(),
        );
        assert_eq!(p.subject, "The field with placeholder \"Search\"");
        assert_eq!(p.none, "No field with placeholder \"Search\" found");
    }

    #[test]
    fn lists_at_most_ten() {
        let mut m = String::from("x: ");
        list(&mut m, (1..=3).map(|i| i.to_string()));
        assert_eq!(m, "x: 1, 2, 3");
        let mut m = String::new();
        list(&mut m, (1..=13).map(|i| i.to_string()));
        assert_eq!(m, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 3 more");
    }
}
