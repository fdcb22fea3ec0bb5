//! One lookup per kind of field: `role` (with a name), `text`, `label`, `placeholder`,
//! `selector`. Each collects the visible candidates (and the first hidden match, to explain a
//! miss), then [`Lookup::finish`] picks one or says what is there instead.

use super::candidates::{all_elements, best, own_text, promote, Cand, Lookup};
use super::describe::{interactive, name_of, plural, q, role_of};
use super::outcome::Miss;
use super::scope::page_window_document;
use super::visibility::visible;
use crate::js::{attribute, get, has_attribute};
use crate::snapshot::name::squash;
use crate::text::{cat, ci_contains};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Elements of `role`, named `name` when given (`button "Save"`).
pub(super) fn role(step: &JsValue, role: &str, name: Option<&str>, teach: bool) -> Result<Element, Miss> {
    let mut cands = Vec::new();
    let mut hidden: Option<Element> = None;
    let mut hidden_exact: Option<Element> = None;
    let mut shown: Vec<String> = Vec::new();
    for el in all_elements() {
        if role_of(&el) != role {
            continue;
        }
        let n = name_of(&el, role);
        let vis = visible(&el);
        if vis && teach {
            shown.push(n.clone());
        }
        let hit = match name {
            Some(want) => ci_contains(&n, want),
            None => true,
        };
        if !hit {
            continue;
        }
        if !vis {
            if name.is_some_and(|w| n.eq_ignore_ascii_case(w)) {
                hidden_exact.get_or_insert(el.clone());
            }
            hidden.get_or_insert(el);
            continue;
        }
        let exact = name.is_some_and(|w| n.eq_ignore_ascii_case(w));
        cands.push(Cand {
            el,
            interactive: true,
            exact,
        });
    }
    let what = match name {
        Some(n) => cat(&[role, " ", &q(n)]),
        None => role.to_owned(),
    };
    if !cands.iter().any(|c| c.exact) && hidden_exact.is_some() {
        cands.clear();
        hidden = hidden_exact;
    }
    let subject = match name {
        Some(n) => q(n),
        None => cat(&["The ", role]),
    };
    let lookup = Lookup {
        none: cat(&["No ", &what, " found"]),
        what,
        subject,
        heading: cat(&[". Visible ", &plural(role), ": "]),
        shown: shown.iter().filter(|s| !s.is_empty()).map(|s| q(s)).collect(),
    };
    lookup.finish(step, teach, best(cands), hidden)
}

/// The element whose own text (or accessible name) contains `text`, promoted to what acts on it.
pub(super) fn text(step: &JsValue, text: &str, teach: bool) -> Result<Element, Miss> {
    let mut cands: Vec<Cand> = Vec::new();
    let mut hidden: Option<Element> = None;
    let mut hidden_exact: Option<Element> = None;
    let needle = text.trim();
    for el in all_elements() {
        let own = own_text(&el);
        let holder = ci_contains(&own, needle);
        let named = !holder
            && (has_attribute(&el, "aria-label")
                || has_attribute(&el, "aria-labelledby")
                || has_attribute(&el, "title")
                || has_attribute(&el, "alt")
                || matches!(el.local_name().as_str(), "input" | "textarea" | "select"))
            && ci_contains(&name_of(&el, role_of(&el)), needle);
        if !holder && !named {
            continue;
        }
        let target = promote(&el);
        if cands.iter().any(|c| c.el == target) {
            continue;
        }
        if !visible(&target) {
            if own.eq_ignore_ascii_case(needle) {
                hidden_exact.get_or_insert(target.clone());
            }
            hidden.get_or_insert(target);
            continue;
        }
        let r = role_of(&target);
        let exact = own.eq_ignore_ascii_case(needle) || name_of(&target, r).eq_ignore_ascii_case(needle);
        cands.push(Cand {
            interactive: interactive(r),
            el: target,
            exact,
        });
    }
    // A hidden element named exactly so beats visible ones that merely contain the text.
    if !cands.iter().any(|c| c.exact) && hidden_exact.is_some() {
        cands.clear();
        hidden = hidden_exact;
    }
    let quoted = q(needle);
    let lookup = Lookup {
        what: cat(&["text ", &quoted]),
        none: cat(&["No element with text ", &quoted, " found"]),
        subject: quoted,
        heading: String::new(),
        shown: Vec::new(),
    };
    lookup.finish(step, teach, best(cands), hidden)
}

/// A `<label>`'s control (or what its `for` names), or a control whose accessible name
/// (`aria-label`, `aria-labelledby`) contains the text.
/// For `type` and `fill` (`typing`) a field beats whatever else has the label (a sortable column
/// header named like the field).
pub(super) fn label(step: &JsValue, label: &str, typing: bool, teach: bool) -> Result<Element, Miss> {
    let needle = label.trim();
    let mut cands: Vec<Cand> = Vec::new();
    let mut hidden: Option<Element> = None;
    let mut labels: Vec<String> = Vec::new();
    for el in all_elements() {
        let tag = el.local_name();
        let (control, text) = if tag == "label" {
            let t = squash(&el.text_content().unwrap_or_default());
            (super::describe::label_control(&el), t)
        } else if has_attribute(&el, "aria-label") || has_attribute(&el, "aria-labelledby") {
            let r = role_of(&el);
            (Some(el.clone()), name_of(&el, r))
        } else {
            continue;
        };
        if teach && visible(&el) && !text.is_empty() {
            labels.push(q(&text));
        }
        let Some(control) = control else { continue };
        if !ci_contains(&text, needle) || cands.iter().any(|c| c.el == control) {
            continue;
        }
        if !visible(&control) {
            hidden.get_or_insert(control);
            continue;
        }
        let interactive = !typing || matches!(role_of(&control), "textbox" | "searchbox" | "combobox" | "spinbutton");
        cands.push(Cand {
            exact: text.eq_ignore_ascii_case(needle),
            el: control,
            interactive,
        });
    }
    let lookup = Lookup::field("labelled ", "label ", &q(needle), ". Visible labels: ", labels);
    lookup.finish(step, teach, best(cands), hidden)
}

/// A field whose `placeholder` (or `aria-placeholder`) contains the text.
pub(super) fn placeholder(step: &JsValue, p: &str, teach: bool) -> Result<Element, Miss> {
    let needle = p.trim();
    let mut cands = Vec::new();
    let mut hidden: Option<Element> = None;
    let mut shown = Vec::new();
    for el in all_elements() {
        let Some(ph) = attribute(&el, "placeholder").or_else(|| attribute(&el, "aria-placeholder")) else {
            continue;
        };
        let vis = visible(&el);
        if vis && teach {
            shown.push(q(&ph));
        }
        if !ci_contains(&ph, needle) {
            continue;
        }
        if !vis {
            hidden.get_or_insert(el);
            continue;
        }
        cands.push(Cand {
            exact: ph.trim().eq_ignore_ascii_case(needle),
            el,
            interactive: true,
        });
    }
    let lookup = Lookup::field(
        "with placeholder ",
        "placeholder ",
        &q(needle),
        ". Visible placeholders: ",
        shown,
    );
    lookup.finish(step, teach, best(cands), hidden)
}

/// The visible elements a CSS selector matches (always explained: a selector is exact).
pub(super) fn selector(step: &JsValue, sel: &str) -> Result<Element, Miss> {
    let Some(doc) = page_window_document() else {
        return Err(Miss::Nothing("No document".to_owned()));
    };
    let list = doc.query_selector_all(sel).map_err(|e| {
        let msg = get(&e, "message").as_string().unwrap_or_default();
        Miss::Nothing(cat(&["Invalid selector ", &q(sel), ": ", &msg]))
    })?;
    let mut cands = Vec::new();
    let mut hidden: Option<Element> = None;
    for i in 0..list.length() {
        let Some(n) = list.item(i) else { continue };
        let el: Element = n.unchecked_into();
        if visible(&el) {
            cands.push(Cand {
                interactive: true,
                exact: true,
                el,
            });
        } else {
            hidden.get_or_insert(el);
        }
    }
    let quoted = q(sel);
    let lookup = Lookup {
        what: cat(&["selector ", &quoted]),
        subject: cat(&["The element matching selector ", &quoted]),
        none: cat(&["No element matches selector ", &quoted]),
        heading: String::new(),
        shown: Vec::new(),
    };
    lookup.finish(step, true, cands, hidden)
}
