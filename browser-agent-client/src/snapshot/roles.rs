//! Roles as data: the valid ARIA roles, the implicit HTML-AAM roles by tag and input type, and the
//! role classes the walker and the name computation ask about (interactive, landmark, name from
//! content, children presentational, left out of the output). Every table is sorted by key and
//! searched with `binary_search`, so a lookup is a handful of string compares.

use crate::js::{attribute, closest, has_attribute};
use wasm_bindgen::intern;
use web_sys::Element;

/// The non-abstract WAI-ARIA 1.2 roles (sorted). An explicit `role` takes its first token found here.
const VALID: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

/// Implicit roles that depend on the tag alone (sorted by tag). Tags with context rules (a, area,
/// footer, header, form, img, input, section, select, td, th, li) are decided in [`implicit`].
const BY_TAG: &[(&str, &str)] = &[
    ("article", "article"),
    ("aside", "complementary"),
    ("blockquote", "blockquote"),
    ("button", "button"),
    ("caption", "caption"),
    ("code", "code"),
    ("datalist", "listbox"),
    ("dd", "definition"),
    ("del", "deletion"),
    ("details", "group"),
    ("dfn", "term"),
    ("dialog", "dialog"),
    ("dt", "term"),
    ("em", "emphasis"),
    ("fieldset", "group"),
    ("figure", "figure"),
    ("h1", "heading"),
    ("h2", "heading"),
    ("h3", "heading"),
    ("h4", "heading"),
    ("h5", "heading"),
    ("h6", "heading"),
    ("hr", "separator"),
    ("iframe", "iframe"),
    ("ins", "insertion"),
    ("main", "main"),
    ("mark", "mark"),
    ("math", "math"),
    ("menu", "list"),
    ("meter", "meter"),
    ("nav", "navigation"),
    ("ol", "list"),
    ("optgroup", "group"),
    ("option", "option"),
    ("output", "status"),
    ("p", "paragraph"),
    ("progress", "progressbar"),
    ("search", "search"),
    ("strong", "strong"),
    ("sub", "subscript"),
    ("summary", "button"),
    ("sup", "superscript"),
    ("svg", "img"),
    ("table", "table"),
    ("tbody", "rowgroup"),
    ("textarea", "textbox"),
    ("tfoot", "rowgroup"),
    ("thead", "rowgroup"),
    ("time", "time"),
    ("tr", "row"),
    ("ul", "list"),
];

/// Custom elements that give themselves a role through `ElementInternals` (Material Web's
/// `this.internals.role`), which no attribute shows (sorted by tag). Their state is read from
/// their `checked` / `selected` properties (see the walker's states).
const INTERNALS: &[(&str, &str)] = &[
    ("md-primary-tab", "tab"),
    ("md-radio", "radio"),
    ("md-secondary-tab", "tab"),
    ("md-tabs", "tablist"),
];

/// `<input type=…>` roles (sorted by type); types not listed are text fields.
const BY_INPUT_TYPE: &[(&str, &str)] = &[
    ("button", "button"),
    ("checkbox", "checkbox"),
    ("file", "button"),
    ("hidden", ""),
    ("image", "button"),
    ("number", "spinbutton"),
    ("radio", "radio"),
    ("range", "slider"),
    ("reset", "button"),
    ("search", "searchbox"),
    ("submit", "button"),
];

/// Roles an agent acts on: their elements get refs (sorted).
const INTERACTIVE: &[&str] = &[
    "button",
    "checkbox",
    "clickable",
    "combobox",
    "link",
    "listbox",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "textbox",
    "treeitem",
];

/// Landmarks and containers that get a ref when they have a name (sorted).
const LANDMARK: &[&str] = &[
    "alertdialog",
    "banner",
    "complementary",
    "contentinfo",
    "dialog",
    "form",
    "main",
    "navigation",
    "region",
    "search",
];

/// Roles whose name comes from their content (accname 2F), sorted.
const NAME_FROM_CONTENT: &[&str] = &[
    "button",
    "cell",
    "checkbox",
    "clickable",
    "columnheader",
    "gridcell",
    "heading",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "row",
    "rowheader",
    "switch",
    "tab",
    "tooltip",
    "treeitem",
];

/// Roles that may not be named at all (accname step 1), sorted.
const NAME_PROHIBITED: &[&str] = &[
    "caption",
    "code",
    "definition",
    "deletion",
    "emphasis",
    "generic",
    "insertion",
    "mark",
    "none",
    "paragraph",
    "presentation",
    "strong",
    "subscript",
    "superscript",
    "term",
    "time",
];

/// Roles whose children are presentational (ARIA "Children Presentational: True"): the node is a
/// leaf of the snapshot, its content is only its name. Sorted.
const LEAF: &[&str] = &[
    "button",
    "checkbox",
    "img",
    "math",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "option",
    "progressbar",
    "radio",
    "scrollbar",
    "separator",
    "slider",
    "switch",
    "tab",
];

/// Roles that say nothing an agent needs: left out like a generic wrapper, their content floats up
/// (their text joins the surrounding text). Sorted.
const DROPPED: &[&str] = &[
    "blockquote",
    "caption",
    "code",
    "definition",
    "deletion",
    "emphasis",
    "generic",
    "insertion",
    "mark",
    "none",
    "paragraph",
    "presentation",
    "rowgroup",
    "separator",
    "strong",
    "subscript",
    "superscript",
    "term",
    "time",
];

/// Whether the sorted `table` holds `role`.
fn has(table: &[&str], role: &str) -> bool {
    table.binary_search(&role).is_ok()
}

/// The value of `key` in the sorted `table`.
fn lookup(table: &[(&'static str, &'static str)], key: &str) -> Option<&'static str> {
    table.binary_search_by(|(k, _)| (*k).cmp(key)).ok().map(|i| table[i].1)
}

/// Elements an agent acts on get refs.
pub(crate) fn is_interactive(role: &str) -> bool {
    has(INTERACTIVE, role)
}

/// Named landmarks get refs.
pub(crate) fn is_landmark(role: &str) -> bool {
    has(LANDMARK, role)
}

/// Whether `role` takes its name from its content.
pub(crate) fn name_from_content(role: &str) -> bool {
    has(NAME_FROM_CONTENT, role)
}

/// Whether `role` may not be named.
pub(crate) fn name_prohibited(role: &str) -> bool {
    has(NAME_PROHIBITED, role)
}

/// Whether `role`'s children are presentational (a leaf of the snapshot).
pub(crate) fn is_leaf(role: &str) -> bool {
    has(LEAF, role)
}

/// The one rule for an element that is clickable without a role (it appears as `clickable`, and
/// targeting treats it as interactive): not a `<label>`, and the outermost element of a
/// `cursor:pointer` subtree (`own_pointer`: its cursor is pointer and its parent's is not), or an
/// `onclick` attribute, or `tabindex` ≥ 0 on an element with content or a name (an empty one is
/// a focus guard: Radix's and MUI's sentinels around dialogs and popups), or an `onclick`
/// property (checked last: it crosses into JS).
pub(crate) fn clickable(
    el: &Element,
    tag: &str,
    own_pointer: bool,
    onclick_attr: bool,
    tabindex: Option<&str>,
    onclick_prop: impl FnOnce() -> bool,
) -> bool {
    let focusable = || {
        tabindex
            .and_then(|t| crate::text::parse_number(t.trim()))
            .is_some_and(|t| t >= 0)
            && (el.has_child_nodes() || NAMING_ATTRS.iter().any(|a| has_attribute(el, a)))
    };
    tag != "label" && (own_pointer || onclick_attr || focusable() || onclick_prop())
}

/// What names an element without content: with one, an empty focusable element is a control.
const NAMING_ATTRS: [&str; 3] = ["aria-label", "aria-labelledby", "title"];

/// Whether `el`'s `onclick` property is a handler: a function that does something (the
/// bootstrap's [`ONCLICK`](crate::bootstrap::ONCLICK) reads its source). React sets an empty one
/// (`onclick = noop`) on its root and every portal container: not a control.
pub(crate) fn onclick_handler(el: &Element) -> bool {
    // Most elements have none: one property read decides for them (the walk asks of every
    // element without a role); only a function is handed to the bootstrap.
    crate::js::get(el, "onclick").is_function()
        && crate::js::call(&crate::bootstrap::agent(), crate::bootstrap::ONCLICK, &[el]).is_ok_and(|v| v.is_truthy())
}

/// Whether the snapshot leaves `role` out (its content floats up).
pub(crate) fn is_dropped(role: &str) -> bool {
    role.is_empty() || has(DROPPED, role)
}

/// Attributes that make `role="none"` / `role="presentation"` void (ARIA conflict resolution).
const GLOBAL_ARIA: &[&str] = &[
    "aria-describedby",
    "aria-details",
    "aria-keyshortcuts",
    "aria-label",
    "aria-labelledby",
    "aria-live",
    "aria-owns",
    "aria-roledescription",
];

/// Tags that can take focus without a tabindex.
fn natively_focusable(el: &Element, tag: &str) -> bool {
    match tag {
        "button" | "input" | "select" | "textarea" | "iframe" | "summary" => !has_attribute(el, "disabled"),
        "a" | "area" => has_attribute(el, "href"),
        _ => false,
    }
}

/// The role of `el` (`tag` is its lower-case local name): the first valid token of `role`
/// (`none`/`presentation` ignored on focusable elements or ones with global ARIA attributes),
/// else the implicit role. `""` when it has none.
pub(crate) fn role(el: &Element, tag: &str) -> &'static str {
    role_of(el, tag, attribute(el, "role"))
}

/// [`role`] with the `role` attribute already read.
pub(crate) fn role_of(el: &Element, tag: &str, explicit: Option<String>) -> &'static str {
    if let Some(explicit) = explicit {
        let explicit = explicit.to_ascii_lowercase();
        for token in explicit.split_ascii_whitespace() {
            if let Ok(i) = VALID.binary_search(&token) {
                let r = VALID[i];
                if r == "none" || r == "presentation" {
                    let conflict = natively_focusable(el, tag)
                        || has_attribute(el, "tabindex")
                        || GLOBAL_ARIA.iter().any(|a| has_attribute(el, a));
                    if conflict {
                        break;
                    }
                }
                return r;
            }
        }
    }
    implicit(el, tag)
}

/// Ancestors that make `<header>`/`<footer>` plain wrappers instead of banner/contentinfo.
const SECTIONING: &str =
    "article,aside,main,nav,section,[role=article],[role=complementary],[role=main],[role=navigation],[role=region]";

/// The implicit (HTML-AAM) role of `el`, `""` when it has none.
pub(crate) fn implicit(el: &Element, tag: &str) -> &'static str {
    if let Some(r) = lookup(BY_TAG, tag) {
        return r;
    }
    let named = || has_attribute(el, "aria-label") || has_attribute(el, "aria-labelledby");
    match tag {
        "a" | "area" if has_attribute(el, "href") => "link",
        "header" | "footer" => {
            let scoped = el.parent_element().and_then(|p| closest(&p, SECTIONING));
            match (scoped.is_some(), tag) {
                (true, _) => "",
                (false, "header") => "banner",
                (false, _) => "contentinfo",
            }
        }
        "section" if named() => "region",
        "form" if named() => "form",
        "img" => {
            let alt = attribute(el, "alt");
            let decorative =
                alt.as_deref() == Some("") && !has_attribute(el, "title") && !has_attribute(el, "tabindex") && !named();
            if decorative {
                "presentation"
            } else {
                "img"
            }
        }
        "input" => {
            let ty = attribute(el, "type").unwrap_or_default().to_ascii_lowercase();
            match lookup(BY_INPUT_TYPE, &ty) {
                Some(r) => r,
                None if has_attribute(el, "list") => "combobox",
                None => "textbox",
            }
        }
        "select" => {
            let size = attribute(el, "size")
                .and_then(|s| crate::text::parse_number(s.trim()))
                .unwrap_or(0);
            if has_attribute(el, "multiple") || size > 1 {
                "listbox"
            } else {
                "combobox"
            }
        }
        "li" => "listitem",
        "td" => "cell",
        "th" => header_cell(el),
        _ => {
            if let Some(r) = lookup(INTERNALS, tag) {
                return r;
            }
            let editable = attribute(el, "contenteditable").map(|v| v.to_ascii_lowercase());
            match editable.as_deref() {
                Some("" | "true" | "plaintext-only") => "textbox",
                _ => "",
            }
        }
    }
}

/// `<th>`: `scope` decides; otherwise a header in `<thead>` or in a row without data cells is a
/// column header, one beside data cells a row header (Chromium's heuristic, simplified).
fn header_cell(el: &Element) -> &'static str {
    match attribute(el, "scope").map(|s| s.to_ascii_lowercase()).as_deref() {
        Some("row" | "rowgroup") => return "rowheader",
        Some("col" | "colgroup") => return "columnheader",
        _ => {}
    }
    let Some(row) = el.parent_element() else {
        return "columnheader";
    };
    let in_head = row.parent_element().is_some_and(|p| p.local_name() == "thead");
    if !in_head && row.query_selector(intern(":scope > td")).ok().flatten().is_some() {
        "rowheader"
    } else {
        "columnheader"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_for_binary_search() {
        for t in [
            VALID,
            INTERACTIVE,
            LANDMARK,
            NAME_FROM_CONTENT,
            NAME_PROHIBITED,
            LEAF,
            DROPPED,
            GLOBAL_ARIA,
        ] {
            assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        }
        for t in [BY_TAG, BY_INPUT_TYPE, INTERNALS] {
            assert!(t.windows(2).all(|w| w[0].0 < w[1].0), "{t:?}");
        }
    }

    #[test]
    fn class_lookups() {
        assert!(is_interactive("clickable") && is_interactive("textbox") && !is_interactive("heading"));
        assert!(is_dropped("") && is_dropped("generic") && is_dropped("paragraph") && !is_dropped("list"));
        assert_eq!(lookup(BY_INPUT_TYPE, "range"), Some("slider"));
        assert_eq!(lookup(BY_TAG, "h3"), Some("heading"));
        assert_eq!(lookup(BY_TAG, "div"), None);
    }
}
