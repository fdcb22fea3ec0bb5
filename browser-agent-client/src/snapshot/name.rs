//! Accessible names, after accname 1.2 as browsers implement it (Playwright's reading of it):
//! aria-labelledby, embedded controls, aria-label, the host language's label (input values,
//! `<label>`s, alt, legend, caption, figcaption, SVG title), name from content with `::before`/
//! `::after` and browser spacing (an inline element is glued to its neighbours, every other
//! display is separated by a space), then title, then a text field's placeholder.

use super::flat::{for_each_child, pseudo_in_shadow, pseudo_skipped};
// The walker begins and ends its documents' pseudo-element reading by these paths.
use super::roles;
use super::style::Win;
use crate::js::{attribute, get, has_attribute};
use crate::text::join_words;
use wasm_bindgen::intern;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// Where in the computation a node is met.
#[derive(Clone, Copy)]
struct Flags {
    /// The element whose name is computed (not a descendant or a referenced node).
    root: bool,
    /// Inside an aria-labelledby traversal (no second hop).
    labelledby: bool,
    /// Inside a `<label>`'s text (labels are not looked up again).
    label: bool,
    /// Referenced hidden content counts.
    include_hidden: bool,
}

/// The attribute names of one element, read with one call: most elements have one or two
/// attributes, and the walker asks about twenty (every probe is a call into the page).
pub(crate) struct Attrs(Vec<String>);

impl Attrs {
    /// The attribute names of `el`.
    pub(crate) fn of(el: &Element) -> Attrs {
        if !el.has_attributes() {
            return Attrs(Vec::new());
        }
        Attrs(el.get_attribute_names().iter().filter_map(|n| n.as_string()).collect())
    }

    /// Whether `el` has the attribute `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.0.iter().any(|n| n == name)
    }

    /// The attribute's value, asked for only when the element has it.
    pub(crate) fn get(&self, el: &Element, name: &str) -> Option<String> {
        if self.has(name) {
            attribute(el, name)
        } else {
            None
        }
    }
}

/// The computed `display` and `visibility` of `el`, and whether it is hidden for ARIA.
pub(crate) struct Look {
    /// The computed `display`.
    pub(crate) display: String,
    /// The computed `visibility` is `visible`.
    pub(crate) visible: bool,
}

/// How `el` is rendered; `None` when its style cannot be read.
pub(crate) fn look(win: &Win, el: &Element) -> Option<Look> {
    let style = win.computed_style(el, None).ok()?;
    Some(Look {
        display: style.display(),
        visible: style.visibility() == "visible",
    })
}

/// The text of a `::before` / `::after` pseudo-element's `content` (quoted strings only; an
/// alternative text after `/` wins), unless the pseudo-element is hidden.
pub(crate) fn pseudo(win: &Win, el: &Element, which: &str) -> String {
    if pseudo_skipped() {
        // A shadow host's own pseudo-elements may take text from its shadow root's sheets
        // (`:host::before`), read before the walk enters that root. Both callers read
        // `::before` first, so the host is looked at once.
        if which == "::before" {
            let shadow = get(el, "shadowRoot");
            if shadow.is_object() {
                pseudo_in_shadow(&shadow);
            }
        }
        if pseudo_skipped() {
            return String::new();
        }
    }
    match win.computed_style(el, Some(intern(which))) {
        // Text a pseudo-element hides is no text (antd's `label::after { content: ":";
        // visibility: hidden }`), as in Chromium's names.
        Ok(style) if style.visibility() == "visible" && style.display() != "none" => parse_content(&style.content()),
        _ => String::new(),
    }
}

/// Parses a computed CSS `content` value: the concatenated quoted strings, or the alternative
/// text after `/` when there is one. `none`, `normal`, `url()`, counters give nothing.
pub(crate) fn parse_content(v: &str) -> String {
    if !v.contains('"') && !v.contains('\'') {
        return String::new();
    }
    let mut out = String::new();
    let mut depth = 0u32;
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                let quote = c;
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => s.extend(chars.next()),
                        c if c == quote => break,
                        c => s.push(c),
                    }
                }
                // A string inside url(), attribute(), counter() … is no text.
                if depth == 0 {
                    out.push_str(&s);
                }
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '/' if depth == 0 => out.clear(),
            _ => {}
        }
    }
    out
}

/// Whitespace collapsed to single spaces and trimmed; zero-width spaces and soft hyphens dropped.
pub(crate) fn squash(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(|c: char| c.is_whitespace() && c != '\u{a0}') {
        // An icon font's glyph (the Private Use Area: Glyphicons, Font Awesome 4) says nothing.
        let word = word.trim_matches(|c| c == '\u{200b}' || c == '\u{ad}' || ('\u{e000}'..='\u{f8ff}').contains(&c));
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        if word.contains(['\u{200b}', '\u{ad}']) {
            out.extend(word.chars().filter(|c| *c != '\u{200b}' && *c != '\u{ad}'));
        } else {
            out.push_str(word);
        }
    }
    out.trim_matches('\u{a0}').to_owned()
}

/// The accessible name of `el` (role `role`, lower-case tag `tag`) and whether it came from its
/// content.
// Also what the command resolver names elements with (it has no attribute list at hand).
pub(crate) fn name(win: &Win, el: &Element, tag: &str, role: &str) -> (String, bool) {
    name_with(win, el, tag, role, &Attrs::of(el))
}

/// [`name`] with the element's attribute names already read.
pub(crate) fn name_with(win: &Win, el: &Element, tag: &str, role: &str, known: &Attrs) -> (String, bool) {
    if roles::name_prohibited(role) {
        return (String::new(), false);
    }
    let flags = Flags {
        root: true,
        labelledby: false,
        label: false,
        include_hidden: false,
    };
    let mut from_content = false;
    let s = alternative(win, el, tag, role, flags, None, Some(known), &mut from_content);
    (squash(&s), from_content)
}

/// Whether `el` is hidden for accessible names (`aria-hidden`, `display:none`, `visibility`).
fn hidden(win: &Win, el: &Element) -> bool {
    if attribute(el, "aria-hidden").as_deref() == Some("true") {
        return true;
    }
    match look(win, el) {
        Some(l) => l.display == "none" || !l.visible,
        None => false,
    }
}

/// The elements `ids` (space separated) name, looked up in `el`'s document or shadow root.
fn by_ids(el: &Element, ids: &str) -> Vec<Element> {
    let root = el.get_root_node();
    let mut out: Vec<Element> = Vec::new();
    for id in ids.split_ascii_whitespace() {
        // Node types, not `instanceof`: a frame's nodes come from another realm.
        let found = match root.node_type() {
            Node::DOCUMENT_NODE => root.unchecked_ref::<web_sys::Document>().get_element_by_id(id),
            Node::DOCUMENT_FRAGMENT_NODE => root.unchecked_ref::<web_sys::DocumentFragment>().get_element_by_id(id),
            _ => None,
        };
        if let Some(e) = found {
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    out
}

/// Text field types whose placeholder can name them.
fn placeholder_names(tag: &str, el: &Element) -> bool {
    if tag == "textarea" {
        return true;
    }
    let ty = attribute(el, "type").unwrap_or_default().to_ascii_lowercase();
    matches!(
        ty.as_str(),
        "" | "text" | "password" | "number" | "search" | "tel" | "email" | "url"
    )
}

/// accname's "compute the text alternative" for one node.
#[allow(clippy::too_many_arguments)]
fn alternative(
    win: &Win,
    el: &Element,
    tag: &str,
    role: &str,
    f: Flags,
    skip: Option<&Element>,
    known: Option<&Attrs>,
    from_content: &mut bool,
) -> String {
    let at = |n: &str| match known {
        Some(a) => a.get(el, n),
        None => attribute(el, n),
    };
    // 2A: hidden and not referenced.
    if !f.root && !f.include_hidden && hidden(win, el) {
        return String::new();
    }
    // The control being named, met inside its own label, adds nothing (a textarea's text or a
    // select's options are not part of its name: `<label>Bio <textarea>…</textarea></label>` is "Bio").
    if !f.root && skip == Some(el) {
        return String::new();
    }
    // 2B: aria-labelledby.
    if !f.labelledby {
        if let Some(ids) = at("aria-labelledby") {
            let refs = by_ids(el, &ids);
            if !refs.is_empty() {
                let parts: Vec<String> = refs
                    .iter()
                    .map(|r| {
                        let t = r.local_name().to_ascii_lowercase();
                        let rr = roles::role(r, &t);
                        let flags = Flags {
                            root: false,
                            labelledby: true,
                            label: f.label,
                            include_hidden: f.include_hidden || hidden(win, r),
                        };
                        squash(&alternative(win, r, &t, rr, flags, skip, None, &mut false))
                    })
                    .filter(|s| !s.is_empty())
                    .collect();
                let joined = join_words(&parts);
                if !joined.is_empty() {
                    return joined;
                }
            }
        }
    }
    // 2C: an embedded control contributes its value.
    if !f.root && skip != Some(el) {
        match role {
            "textbox" | "searchbox" => {
                return match get(el, "value").as_string() {
                    Some(v) if tag == "input" || tag == "textarea" => v,
                    _ => el.text_content().unwrap_or_default(),
                };
            }
            "combobox" | "listbox" => return selected_text(el),
            "slider" | "spinbutton" | "progressbar" | "meter" | "scrollbar" => {
                return attribute(el, "aria-valuetext")
                    .or_else(|| attribute(el, "aria-valuenow"))
                    .or_else(|| get(el, "value").as_string())
                    .unwrap_or_default();
            }
            _ => {}
        }
    }
    // 2D: aria-label.
    if let Some(label) = at("aria-label") {
        if !label.trim().is_empty() {
            return label;
        }
    }
    // 2E: the host language.
    if role != "presentation" && role != "none" {
        if let Some(s) = host_language(win, el, tag, f, skip) {
            if !s.trim().is_empty() {
                return s;
            }
        }
    }
    // 2F: name from content.
    if roles::name_from_content(role) || !f.root || f.label || f.labelledby || tag == "summary" {
        let s = content(win, el, f, skip);
        if !squash(&s).is_empty() {
            if f.root {
                *from_content = true;
            }
            return s;
        }
    }
    // 2I: tooltip.
    if let Some(t) = at("title") {
        if !t.trim().is_empty() {
            return t;
        }
    }
    // Last: a text field's placeholder.
    if f.root && (tag == "input" || tag == "textarea") && placeholder_names(tag, el) {
        if let Some(p) = at("placeholder") {
            return p;
        }
    }
    String::new()
}

/// The text of a select's selected options (the first option when none is selected).
pub(crate) fn selected_text(el: &Element) -> String {
    if el.local_name() == "select" {
        let opts = get(el, "selectedOptions");
        let n = get(&opts, "length").as_f64().unwrap_or(0.0) as u32;
        let mut parts = Vec::new();
        for i in 0..n {
            if let Ok(o) = js_sys::Reflect::get_u32(&opts, i) {
                if o.is_object() {
                    parts.push(option_text(o.unchecked_ref()));
                }
            }
        }
        return join_words(&parts);
    }
    if el.local_name() == "input" {
        return get(el, "value").as_string().unwrap_or_default();
    }
    let mut parts = Vec::new();
    if let Ok(list) = el.query_selector_all(intern("[aria-selected=true]")) {
        for i in 0..list.length() {
            if let Some(n) = list.item(i) {
                parts.push(squash(&n.text_content().unwrap_or_default()));
            }
        }
    }
    join_words(&parts)
}

/// An `<option>`'s label: its `label` attribute or its text.
pub(crate) fn option_text(o: &Element) -> String {
    match attribute(o, "label") {
        Some(l) if !l.trim().is_empty() => squash(&l),
        _ => squash(&o.text_content().unwrap_or_default()),
    }
}

/// The name HTML gives `el` by its tag (accname step 2D: labels, `alt`, `caption`, `legend`,
/// the `<title>` of an `<svg>`, …).
fn host_language(win: &Win, el: &Element, tag: &str, f: Flags, skip: Option<&Element>) -> Option<String> {
    let first_child = |child_tag: &str| {
        let mut c = el.first_element_child();
        while let Some(e) = c {
            if e.local_name() == child_tag {
                return Some(e);
            }
            c = e.next_element_sibling();
        }
        None
    };
    let text_of = |e: &Element| {
        let flags = Flags {
            root: false,
            labelledby: f.labelledby,
            label: true,
            include_hidden: f.include_hidden,
        };
        squash(&content(win, e, flags, skip))
    };
    match tag {
        "input" => {
            let ty = attribute(el, "type").unwrap_or_default().to_ascii_lowercase();
            match ty.as_str() {
                "button" | "submit" | "reset" => {
                    let v = attribute(el, "value").unwrap_or_default();
                    if !v.trim().is_empty() {
                        return Some(v);
                    }
                    Some(match ty.as_str() {
                        "submit" => "Submit".into(),
                        "reset" => "Reset".into(),
                        _ => attribute(el, "title").unwrap_or_default(),
                    })
                }
                "image" => {
                    let labels = labels(win, el, f);
                    if !labels.is_empty() {
                        return Some(labels);
                    }
                    attribute(el, "alt")
                        .filter(|a| !a.trim().is_empty())
                        .or_else(|| attribute(el, "title"))
                        .or_else(|| Some("Submit".into()))
                }
                _ => {
                    if f.label || has_attribute(el, "aria-labelledby") {
                        return None;
                    }
                    Some(labels(win, el, f))
                }
            }
        }
        "textarea" | "select" | "meter" | "output" | "progress" | "button" => {
            if f.label || has_attribute(el, "aria-labelledby") {
                return None;
            }
            Some(labels(win, el, f))
        }
        "fieldset" => first_child("legend").map(|l| text_of(&l)),
        "figure" => first_child("figcaption").map(|l| text_of(&l)),
        "table" => first_child("caption")
            .map(|l| text_of(&l))
            .filter(|s| !s.is_empty())
            .or_else(|| attribute(el, "summary")),
        "img" | "area" => attribute(el, "alt"),
        "svg" => first_child("title").and_then(|t| t.text_content()),
        // A form-associated custom element is labelable: a `<label>` around it or naming its id.
        _ if tag.contains('-') && !f.label && !has_attribute(el, "aria-labelledby") => {
            Some(labels(win, el, f)).filter(|s| !s.is_empty())
        }
        _ => None,
    }
}

/// The text of the `<label>`s of a form control (the control itself left out).
fn labels(win: &Win, el: &Element, f: Flags) -> String {
    let mut parts = Vec::new();
    for label in super::labels::label_elements(el) {
        let flags = Flags {
            root: false,
            labelledby: f.labelledby,
            label: true,
            include_hidden: f.include_hidden,
        };
        let s = squash(&content(win, &label, flags, Some(el)));
        if !s.is_empty() {
            parts.push(s);
        }
    }
    join_words(&parts)
}

/// Name from content: `::before`, the children (the shadow root's, or a slot's assigned nodes),
/// `::after`; an element that is not `display: inline` (and `<br>`) is set off by spaces.
fn content(win: &Win, el: &Element, f: Flags, skip: Option<&Element>) -> String {
    let mut out = pseudo(win, el, "::before");
    let child_flags = Flags { root: false, ..f };
    let mut visit = |node: Node| match node.node_type() {
        Node::TEXT_NODE => out.push_str(&node.node_value().unwrap_or_default()),
        Node::ELEMENT_NODE => {
            let child: Element = node.unchecked_into();
            let tag = child.local_name().to_ascii_lowercase();
            if matches!(tag.as_str(), "script" | "style" | "template" | "noscript") {
                return;
            }
            if tag == "br" {
                out.push(' ');
                return;
            }
            let inline = look(win, &child).is_none_or(|l| l.display == "inline");
            let role = roles::role(&child, &tag);
            let s = alternative(win, &child, &tag, role, child_flags, skip, None, &mut false);
            if inline {
                out.push_str(&s);
            } else {
                out.push(' ');
                out.push_str(&s);
                out.push(' ');
            }
        }
        _ => {}
    };
    for_each_child(el, &el.local_name(), &mut visit);
    out.push_str(&pseudo(win, el, "::after"));
    out
}

#[cfg(test)]
mod tests {
    use super::{parse_content, squash};

    #[test]
    fn css_content_values() {
        assert_eq!(parse_content("none"), "");
        assert_eq!(parse_content("normal"), "");
        assert_eq!(parse_content("\"New\""), "New");
        assert_eq!(parse_content("\"a\" \"b\""), "ab");
        assert_eq!(parse_content("\"\\\"q\\\"\""), "\"q\"");
        assert_eq!(parse_content("\"×\" / \"Close\""), "Close");
        assert_eq!(parse_content("url(\"x.png\")"), "");
        assert_eq!(parse_content("counter(item) \". \""), ". ");
    }

    #[test]
    fn squash_spacing() {
        assert_eq!(squash("  Hello \n\t world  "), "Hello world");
        assert_eq!(squash("a\u{200b}b soft\u{ad}ware"), "ab software");
        assert_eq!(squash("\u{200b}"), "");
    }
}
