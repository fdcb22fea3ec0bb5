//! Element targeting for the acting commands. The fields of a step are tried in this order:
//! `ref` (from the snapshot), `text` (with `role` if given), `role` alone, `label`, `placeholder`,
//! `selector`. `name` is accepted everywhere as the target's name; in `type` and `fill` the step's
//! `text` is what is typed, so their target comes from the other fields.
//!
//! Matching prefers visible, interactive, innermost elements and never returns `html`/`body` or a
//! wrapper that merely contains the match; several equally good matches are an error that lists
//! them (`nth` picks one). Every failure says what is on the page instead (at most 10 items), and a
//! ref whose element is gone never acts on another element (the snapshot's refs are kept in a
//! `WeakMap`; a number is never given out twice).
//!
//! Roles and names come from the snapshot module ([`roles::role`], [`name::name`]), so a target is
//! described exactly as the snapshot shows it: `button "Save" [ref=e7]`.

use crate::snapshot::name::{self, attr, squash};
use crate::snapshot::{self, cat, page_window, push_number, ref_number, roles};
use crate::{as_element, get};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Most items an error lists.
const MAX_LIST: usize = 10;
/// Names longer than this are cut in descriptions.
const MAX_NAME: usize = 60;

/// Tags never taken as targets, nor searched for text.
const NEVER: &[&str] = &[
    "body", "head", "html", "link", "meta", "noscript", "script", "style", "template", "title",
];

/// A resolved target: the element and how it is described (`button "Save" [ref=e7]`).
pub(crate) struct Target {
    pub(crate) el: Element,
    pub(crate) label: String,
}

/// The string field `name` of a step, when present and non-empty.
pub(crate) fn field(step: &JsValue, name: &str) -> Option<String> {
    let v = get(step, name);
    let s = match v.as_string() {
        Some(s) => s,
        None if v.as_f64().is_some() => String::from(js_sys::JSON::stringify(&v).ok()?),
        None => return None,
    };
    (!s.is_empty()).then_some(s)
}

/// Whether the step names a target at all (for `type` and `fill`, `text` does not count).
pub(crate) fn has_target(step: &JsValue, typing: bool) -> bool {
    let fields = ["ref", "role", "label", "placeholder", "selector", "name", "text"];
    let n = if typing { 6 } else { 7 };
    fields.iter().take(n).any(|f| field(step, f).is_some())
}

/// ASCII case-insensitive substring test.
pub(crate) fn ci_contains(hay: &str, needle: &str) -> bool {
    let n = needle.as_bytes();
    n.is_empty() || hay.as_bytes().windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

fn quoted(out: &mut String, s: &str) {
    out.push('"');
    let long = snapshot::char_count(s) > MAX_NAME;
    for (i, c) in s.chars().enumerate() {
        if long && i == MAX_NAME - 3 {
            out.push_str("...");
            break;
        }
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// The snapshot role of `el`, with `clickable` for role-less elements that look clickable.
pub(crate) fn role_of(el: &Element) -> &'static str {
    let tag = el.local_name().to_ascii_lowercase();
    let r = roles::role(el, &tag);
    if !roles::is_dropped(r) {
        return r;
    }
    let pointer = |e: &Element| {
        page_window()
            .computed_style(e, None)
            .map(|s| s.cursor() == "pointer")
            .unwrap_or(false)
    };
    let own_pointer = pointer(el) && !el.parent_element().is_some_and(|p| pointer(&p));
    let tabindex = attr(el, "tabindex");
    if roles::clickable(
        &tag,
        own_pointer,
        el.has_attribute("onclick"),
        tabindex.as_deref(),
        || get(el, "onclick").is_function(),
    ) {
        return "clickable";
    }
    ""
}

/// Elements an agent acts on.
fn interactive(role: &str) -> bool {
    role == "clickable" || roles::is_interactive(role)
}

thread_local! {
    /// The snapshot's `label[for]` index is built for the document (during a resolve).
    static INDEXED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The page document's open modal dialog, looked up once per resolve: a resolve asks
    /// [`hidden_reason`] about every candidate, and the DOM does not change meanwhile.
    static MODAL: RefCell<Option<(web_sys::Document, Option<Element>)>> = const { RefCell::new(None) };
}

/// Runs `f` with the snapshot's `label[for]` index built for the page (names read it).
fn with_labels<R>(f: impl FnOnce() -> R) -> R {
    if INDEXED.with(std::cell::Cell::get) {
        return f();
    }
    let Some(doc) = page_window_document() else { return f() };
    let saved = name::index_labels(&doc);
    INDEXED.with(|i| i.set(true));
    MODAL.with(|m| *m.borrow_mut() = Some((doc.clone(), snapshot::open_modal(&doc))));
    let r = f();
    MODAL.with(|m| m.borrow_mut().take());
    INDEXED.with(|i| i.set(false));
    name::set_label_index(saved);
    r
}

/// The accessible name of `el` for `role`.
pub(crate) fn name_of(el: &Element, role: &str) -> String {
    with_labels(|| name_inner(el, role))
}

fn name_inner(el: &Element, role: &str) -> String {
    let tag = el.local_name().to_ascii_lowercase();
    if role.is_empty() || role == "clickable" {
        let mut t = squash(&el.text_content().unwrap_or_default());
        if t.is_empty() {
            t = attr(el, "aria-label").or_else(|| attr(el, "title")).unwrap_or_default();
        }
        return t;
    }
    name::name(&page_window(), el, &tag, role).0
}

/// `button "Save" [ref=e7]`, as the snapshot shows it; `tag#id` or `tag.class` for elements
/// without role or name.
pub(crate) fn describe(el: &Element) -> String {
    let role = role_of(el);
    let name = name_of(el, role);
    let mut out = String::new();
    if !role.is_empty() {
        out.push_str(role);
    }
    if !name.is_empty() {
        if !out.is_empty() {
            out.push(' ');
        }
        quoted(&mut out, &name);
    }
    if out.is_empty() {
        return short(el);
    }
    if interactive(role) || (roles::is_landmark(role) && !name.is_empty()) {
        out.push_str(" [ref=");
        out.push_str(&ref_of(el));
        out.push(']');
    }
    out
}

/// The ref of an element (given now if it has none yet; the snapshot keeps the same number), with
/// its frame's prefix (`f1e3`) when it lives in a frame's document, as the snapshot writes it.
pub(crate) fn ref_of(el: &Element) -> String {
    let mut r = String::new();
    let doc = get(el, "ownerDocument");
    if doc != get(&js_sys::global(), "document") {
        if let Some(frame) = as_element(get(&get(&doc, "defaultView"), "frameElement")) {
            r.push('f');
            push_number(&mut r, snapshot::frame_number(&frame));
        }
    }
    r.push('e');
    push_number(&mut r, ref_number(el));
    r
}

/// `tag#id`, `tag.class` or `tag`.
pub(crate) fn short(el: &Element) -> String {
    let mut out = el.local_name().to_ascii_lowercase();
    if let Some(id) = attr(el, "id").filter(|i| !i.is_empty()) {
        out.push('#');
        out.push_str(&id);
    } else if let Some(class) = attr(el, "class") {
        if let Some(c) = class.split_ascii_whitespace().next() {
            out.push('.');
            out.push_str(c);
        }
    }
    out
}

/// Why `el` cannot be seen (`display:none on section#billing`), or `None` when it can.
pub(crate) fn hidden_reason(el: &Element) -> Option<String> {
    if !el.is_connected() {
        return Some("it is no longer in the document".to_owned());
    }
    // Inert content takes no clicks, focus or input (and the snapshot leaves it out); so is all
    // but the open modal dialog.
    if let Some(i) = el.closest("[inert]").ok().flatten() {
        return Some(cat(&["inert on ", &short(&i)]));
    }
    let doc = get(el, "ownerDocument");
    let cached = MODAL.with(|m| {
        m.borrow()
            .as_ref()
            .filter(|(d, _)| JsValue::from(d.clone()) == doc)
            .map(|(_, modal)| modal.clone())
    });
    let modal = match cached {
        Some(modal) => modal,
        None => doc
            .is_object()
            .then(|| doc.unchecked_into::<web_sys::Document>())
            .and_then(|d| snapshot::open_modal(&d)),
    };
    if let Some(d) = modal.filter(|d| !d.contains(Some(el))) {
        let mut why = String::from("behind the open modal dialog");
        let name = name_of(&d, "dialog");
        if !name.is_empty() {
            why.push(' ');
            quoted(&mut why, &name);
        }
        return Some(why);
    }
    let win = page_window();
    let mut cur = Some(el.clone());
    let mut first = true;
    while let Some(e) = cur {
        if let Ok(style) = win.computed_style(&e, None) {
            if style.display() == "none" {
                return Some(cat(&["display:none on ", &short(&e)]));
            }
            if first && style.visibility() != "visible" {
                // Inherited: name the outermost element that sets it.
                let mut from = e.clone();
                let mut p = e.parent_element();
                while let Some(pe) = p {
                    match win.computed_style(&pe, None) {
                        Ok(s) if s.visibility() != "visible" => from = pe.clone(),
                        _ => break,
                    }
                    p = pe.parent_element();
                }
                return Some(cat(&["visibility:hidden on ", &short(&from)]));
            }
        }
        first = false;
        cur = e
            .parent_element()
            .or_else(|| as_element(get(&e.get_root_node(), "host")));
    }
    let r = el.get_bounding_client_rect();
    if r.width() == 0.0 && r.height() == 0.0 && el.local_name() != "option" {
        return Some("it has zero size".to_owned());
    }
    None
}

/// `<subject> exists but is hidden (<why>)`, or `… cannot be used (<why>)` when it is inert.
fn hidden_err(subject: &str, h: &Element) -> String {
    let why = hidden_reason(h).unwrap_or_default();
    let state = if why.starts_with("inert") || why.starts_with("behind") {
        " exists but cannot be used ("
    } else {
        " exists but is hidden ("
    };
    cat(&[subject, state, &why, ")"])
}

fn visible(el: &Element) -> bool {
    hidden_reason(el).is_none()
}

/// The agent's own elements (cursor, overlays).
fn own(el: &Element) -> bool {
    el.closest("[data-browser-agent-ui]").ok().flatten().is_some()
}

/// Every element under `document.body` that could be a target, in document order, open shadow
/// roots and same-origin frames included (their elements right after their host or frame, as the
/// snapshot walks them).
fn all_elements() -> Vec<Element> {
    let mut out = Vec::new();
    let Some(doc) = page_window_document() else {
        return out;
    };
    let Some(body) = doc.body() else { return out };
    collect(body.query_selector_all("*").ok(), &mut out);
    out.retain(|e| !own(e));
    out
}

fn collect(list: Option<web_sys::NodeList>, out: &mut Vec<Element>) {
    let Some(list) = list else { return };
    for i in 0..list.length() {
        let Some(n) = list.item(i) else { continue };
        let el: Element = n.unchecked_into();
        let tag = el.local_name().to_ascii_lowercase();
        if NEVER.contains(&tag.as_str()) || el.closest("svg").ok().flatten().is_some_and(|s| s != el) {
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

pub(crate) fn page_window_document() -> Option<web_sys::Document> {
    let d = get(&js_sys::global(), "document");
    d.is_object().then(|| d.unchecked_into())
}

/// The text of `el`'s own text-node children, squashed.
fn own_text(el: &Element) -> String {
    let mut t = String::new();
    let mut c = el.first_child();
    while let Some(n) = c {
        if n.node_type() == web_sys::Node::TEXT_NODE {
            t.push_str(&n.node_value().unwrap_or_default());
        }
        c = n.next_sibling();
    }
    squash(&t)
}

/// One match and how good it is.
struct Cand {
    el: Element,
    interactive: bool,
    exact: bool,
}

/// Keeps the best tier of visible candidates; drops wrappers that contain another candidate.
fn best(mut cands: Vec<Cand>) -> Vec<Cand> {
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

fn is_interactive_el(el: &Element) -> bool {
    interactive(role_of(el))
}

/// The nearest ancestor-or-self an agent would act on (a `<span>` in a button → the button).
fn promote(el: &Element) -> Element {
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
        hops += 1;
        cur = e.parent_element();
    }
    el.clone()
}

/// Picks one of several equally good matches (`nth`), or says which there are.
fn choose(step: &JsValue, what: &str, mut cands: Vec<Cand>) -> Result<Element, String> {
    if cands.len() == 1 {
        return Ok(cands.remove(0).el);
    }
    let nth = get(step, "nth").as_f64();
    if let Some(n) = nth {
        let i = n as usize;
        if n >= 0.0 && i < cands.len() {
            return Ok(cands.swap_remove(i).el);
        }
    }
    let mut m = String::new();
    push_number(&mut m, cands.len() as u32);
    m.push_str(" elements match ");
    m.push_str(what);
    m.push_str(": ");
    list(&mut m, cands.iter().map(|c| describe(&c.el)));
    m.push_str(". Use a ref, or \"nth\" (0 = the first)");
    if nth.is_some() {
        m.push_str("; nth is out of range");
    }
    Err(m)
}

/// Appends up to [`MAX_LIST`] items separated by `, `, then `and N more`.
fn list(out: &mut String, items: impl Iterator<Item = String>) {
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

fn q(s: &str) -> String {
    let mut out = String::new();
    quoted(&mut out, s);
    out
}

fn plural(role: &str) -> String {
    let mut p = role.to_owned();
    p.push_str(if role.ends_with('x') { "es" } else { "s" });
    p
}

/// Interactive elements on the page now, described (for errors).
/// The visible interactive elements, as the snapshot lists them (a `<select>`'s options are part of
/// it, not nodes of their own). Only the ones shown get described, so only they get refs.
fn visible_interactive() -> Vec<Element> {
    all_elements()
        .into_iter()
        .filter(|e| e.local_name() != "option" && is_interactive_el(e) && visible(e))
        .collect()
}

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

/// Resolves the step's target. `typing`: `text` is the text to type, not a target. `teach`: build
/// the full error message (a `wait` polls quietly and asks for it once at the end).
pub(crate) fn resolve(step: &JsValue, typing: bool, teach: bool) -> Result<Target, String> {
    with_labels(|| {
        let el = find(step, typing, teach)?;
        let label = describe(&el);
        Ok(Target { el, label })
    })
}

fn find(step: &JsValue, typing: bool, teach: bool) -> Result<Element, String> {
    if let Some(r) = field(step, "ref") {
        return by_ref(&r, teach);
    }
    let text = field(step, "name").or_else(|| if typing { None } else { field(step, "text") });
    let role = field(step, "role").map(|r| r.trim().to_ascii_lowercase());
    if let Some(role) = role.as_deref() {
        return by_role(step, role, text.as_deref(), teach);
    }
    if let Some(t) = text {
        return by_text(step, &t, teach);
    }
    if let Some(l) = field(step, "label") {
        return by_label(step, &l, teach);
    }
    if let Some(p) = field(step, "placeholder") {
        return by_placeholder(step, &p, teach);
    }
    if let Some(s) = field(step, "selector") {
        return by_selector(step, &s);
    }
    Err(if typing {
        "No target given: name the field with ref, label, placeholder, role (with name) or selector (in type and fill, \"text\" is what is typed)".to_owned()
    } else {
        "No target given: use ref, text, role (with name), label, placeholder or selector".to_owned()
    })
}

fn by_ref(r: &str, teach: bool) -> Result<Element, String> {
    let mut clean = r.trim().trim_start_matches('@');
    while let Some(rest) = clean.strip_prefix("ref=") {
        clean = rest;
    }
    match snapshot::element_for_ref(clean) {
        Ok(el) => match hidden_reason(&el) {
            None => Ok(el),
            Some(why) => Err(cat(&[
                "Element [ref=",
                clean,
                "] ",
                &describe_no_ref(&el),
                " exists but is hidden (",
                &why,
                ")",
            ])),
        },
        Err(e) if !e.starts_with("Element [ref=") => Err(e),
        Err(_) if !teach => Err(String::new()),
        Err(_) => Err(gone(clean)),
    }
}

fn describe_no_ref(el: &Element) -> String {
    let d = describe(el);
    match snapshot::find_sub(&d, " [ref=").and_then(|i| d.get(..i)) {
        Some(head) => head.to_owned(),
        None => d,
    }
}

/// Most snapshot lines kept to explain stale refs.
const SEEN_MAX: usize = 2000;

thread_local! {
    /// Snapshot lines with refs the agent may have seen, by ref (sorted).
    static SEEN: std::cell::RefCell<Vec<(String, String)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Keeps the last snapshot's ref lines (a batch starts: the agent saw the previous one).
pub(crate) fn remember() {
    let lines = snapshot::last_lines();
    SEEN.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() + lines.len() > SEEN_MAX {
            s.clear();
        }
        for l in lines {
            let l = l.trim();
            let Some(at) = snapshot::find_sub(l, "[ref=") else {
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

/// `Element [ref=e9] is gone (the page changed). Take a new snapshot; similar now: …`.
fn gone(r: &str) -> String {
    let mut m = cat(&["Element [ref=", r, "] is gone (the page changed). Take a new snapshot"]);
    // What a snapshot said it was: `role "name"`.
    remember();
    let line = SEEN.with(|s| {
        let s = s.borrow();
        s.binary_search_by(|(k, _)| k.as_str().cmp(r))
            .ok()
            .map(|i| s[i].1.clone())
    });
    let Some(line) = line else {
        m.push('.');
        return m;
    };
    let line = line.trim();
    let role = line.split(' ').next().unwrap_or("");
    let old_name = line
        .find('"')
        .and_then(|s| line.get(s + 1..))
        .and_then(|rest| rest.find('"').and_then(|e| rest.get(..e)))
        .unwrap_or("");
    let same_role: Vec<Element> = all_elements()
        .into_iter()
        .filter(|e| role_of(e) == role && visible(e))
        .collect();
    let named: Vec<&Element> = same_role
        .iter()
        .filter(|e| !old_name.is_empty() && name_of(e, role) == old_name)
        .collect();
    let similar: Vec<String> = if named.is_empty() {
        same_role.iter().map(describe).collect()
    } else {
        named.into_iter().map(describe).collect()
    };
    if similar.is_empty() {
        m.push_str("; it was ");
        m.push_str(
            snapshot::find_sub(line, " [ref=")
                .and_then(|i| line.get(..i))
                .unwrap_or(line),
        );
        m.push_str(" and nothing like it is visible now.");
    } else {
        m.push_str("; similar now: ");
        list(&mut m, similar.into_iter());
    }
    m
}

/// The tail every lookup shares: one of `cands` (already ranked), or the error: nothing for a quiet
/// `wait`, the hidden match's reason, `none` plus the visible alternatives (`label` then `shown`),
/// or `none` plus the page's interactive elements.
#[allow(clippy::too_many_arguments)]
fn finish(
    step: &JsValue,
    teach: bool,
    cands: Vec<Cand>,
    hidden: Option<Element>,
    what: &str,
    subject: &str,
    none: String,
    label: &str,
    shown: Vec<String>,
) -> Result<Element, String> {
    if cands.is_empty() {
        if !teach {
            return Err(String::new());
        }
        if let Some(h) = hidden {
            return Err(hidden_err(subject, &h));
        }
        if shown.is_empty() {
            return Err(with_visible(none));
        }
        let mut m = none;
        m.push_str(label);
        list(&mut m, shown.into_iter());
        return Err(m);
    }
    choose(step, what, cands)
}

fn by_role(step: &JsValue, role: &str, name: Option<&str>, teach: bool) -> Result<Element, String> {
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
    let shown: Vec<String> = shown.iter().filter(|s| !s.is_empty()).map(|s| q(s)).collect();
    let label = cat(&[". Visible ", &plural(role), ": "]);
    let none = cat(&["No ", &what, " found"]);
    finish(step, teach, best(cands), hidden, &what, &subject, none, &label, shown)
}

fn by_text(step: &JsValue, text: &str, teach: bool) -> Result<Element, String> {
    let mut cands: Vec<Cand> = Vec::new();
    let mut hidden: Option<Element> = None;
    let mut hidden_exact: Option<Element> = None;
    let needle = text.trim();
    for el in all_elements() {
        let own = own_text(&el);
        let holder = ci_contains(&own, needle);
        let named = !holder
            && (el.has_attribute("aria-label")
                || el.has_attribute("aria-labelledby")
                || el.has_attribute("title")
                || el.has_attribute("alt")
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
    let none = cat(&["No element with text ", &quoted, " found"]);
    let what = cat(&["text ", &quoted]);
    finish(step, teach, best(cands), hidden, &what, &quoted, none, "", Vec::new())
}

/// A `<label>`'s control, or a control whose accessible name (`aria-label`, `aria-labelledby`)
/// contains the text.
fn by_label(step: &JsValue, label: &str, teach: bool) -> Result<Element, String> {
    let needle = label.trim();
    let mut cands: Vec<Cand> = Vec::new();
    let mut hidden: Option<Element> = None;
    let mut labels: Vec<String> = Vec::new();
    for el in all_elements() {
        let tag = el.local_name();
        let (control, text) = if tag == "label" {
            let t = squash(&el.text_content().unwrap_or_default());
            (as_element(get(&el, "control")), t)
        } else if el.has_attribute("aria-label") || el.has_attribute("aria-labelledby") {
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
        cands.push(Cand {
            exact: text.eq_ignore_ascii_case(needle),
            el: control,
            interactive: true,
        });
    }
    let quoted = q(needle);
    let subject = cat(&["The field labelled ", &quoted]);
    let none = cat(&["No field labelled ", &quoted, " found"]);
    let what = cat(&["label ", &quoted]);
    finish(
        step,
        teach,
        best(cands),
        hidden,
        &what,
        &subject,
        none,
        ". Visible labels: ",
        labels,
    )
}

fn by_placeholder(step: &JsValue, p: &str, teach: bool) -> Result<Element, String> {
    let needle = p.trim();
    let mut cands = Vec::new();
    let mut hidden: Option<Element> = None;
    let mut shown = Vec::new();
    for el in all_elements() {
        let Some(ph) = attr(&el, "placeholder").or_else(|| attr(&el, "aria-placeholder")) else {
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
    let quoted = q(needle);
    let subject = cat(&["The field with placeholder ", &quoted]);
    let none = cat(&["No field with placeholder ", &quoted, " found"]);
    let what = cat(&["placeholder ", &quoted]);
    finish(
        step,
        teach,
        best(cands),
        hidden,
        &what,
        &subject,
        none,
        ". Visible placeholders: ",
        shown,
    )
}

fn by_selector(step: &JsValue, sel: &str) -> Result<Element, String> {
    let Some(doc) = page_window_document() else {
        return Err("No document".to_owned());
    };
    let list = doc.query_selector_all(sel).map_err(|e| {
        let msg = get(&e, "message").as_string().unwrap_or_default();
        cat(&["Invalid selector ", &q(sel), ": ", &msg])
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
    let subject = cat(&["The element matching selector ", &quoted]);
    let none = cat(&["No element matches selector ", &quoted]);
    let what = cat(&["selector ", &quoted]);
    finish(step, true, cands, hidden, &what, &subject, none, "", Vec::new())
}
