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
//! - [`by`]: one lookup per kind of field; [`stale`]: refs, and what a gone ref was.
//! - [`candidates`]: the elements searched, the ranking, and the errors for none or several.
//! - [`describe`]: roles, names and descriptions, as the snapshot shows them
//!   (`button "Save" [ref=e7]`); [`visibility`]: why an element cannot be used.
//! - [`scope`]: what one lookup computes once (the label index, the open modal dialog).
//! - [`outcome`]: what a lookup gives, the [`Target`] or the [`Miss`].

mod by;
mod candidates;
pub(crate) mod describe;
mod outcome;
mod scope;
mod stale;
mod visibility;

pub(crate) use describe::{describe, role_of, short};
pub(crate) use outcome::{Miss, Target};
pub(crate) use scope::page_window_document;
pub(crate) use stale::remember;
pub(crate) use stale::successor as successor_of;
pub(crate) use visibility::hidden_reason;

use super::step::{bad_field, field};
use browser_agent_protocol::TARGET_FIELDS;
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// Roles of what a list or popup offers to pick: `option`s, and the radios, menu items and
/// buttons of a popover, an action sheet or an alert (Ionic's selects draw those).
const CHOICE_ROLES: &[&str] = &[
    "button",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "treeitem",
];

/// The visible elements with a [`CHOICE_ROLES`] role, in document order (shadow trees included).
pub(crate) fn choices() -> Vec<Element> {
    candidates::all_elements()
        .into_iter()
        .filter(|e| {
            let tag = e.local_name().to_ascii_lowercase();
            CHOICE_ROLES.contains(&crate::snapshot::roles::role(e, &tag)) && visibility::visible(e)
        })
        .collect()
}

/// Whether `el` can be seen and used (see [`hidden_reason`]).
pub(crate) fn is_visible(el: &Element) -> bool {
    visibility::visible(el)
}

/// Whether the step names a target at all (for `type` and `fill`, `text` does not count).
pub(crate) fn has_target(step: &JsValue, typing: bool) -> bool {
    names_target(|f| field(step, f).is_some(), typing)
}

/// Whether a step with the fields `present` names a target.
fn names_target(present: impl Fn(&str) -> bool, typing: bool) -> bool {
    let n = if typing { 6 } else { 7 };
    TARGET_FIELDS.iter().take(n).any(|f| present(f))
}

/// Resolves the step's target. `typing`: `text` is the text to type, not a target. `teach`: build
/// the full error message (a `wait` polls quietly and asks for it once at the end).
pub(crate) fn resolve(step: &JsValue, typing: bool, teach: bool) -> Result<Target, Miss> {
    scope::with_labels(|| {
        let el = find(step, typing, teach)?;
        let label = describe::describe_with_row(&el);
        Ok(Target { el, label })
    })
}

/// The element the step's first target field names.
fn find(step: &JsValue, typing: bool, teach: bool) -> Result<Element, Miss> {
    if let Some(r) = field(step, "ref") {
        return stale::by_ref(&r, teach);
    }
    let text = field(step, "name").or_else(|| if typing { None } else { field(step, "text") });
    let role = field(step, "role").map(|r| r.trim().to_ascii_lowercase());
    if let Some(role) = role.as_deref() {
        return by::role(step, role, text.as_deref(), teach);
    }
    if let Some(t) = text {
        return by::text(step, &t, teach);
    }
    if let Some(l) = field(step, "label") {
        return by::label(step, &l, typing, teach);
    }
    if let Some(p) = field(step, "placeholder") {
        return by::placeholder(step, &p, teach);
    }
    if let Some(s) = field(step, "selector") {
        return by::selector(step, &s);
    }
    // The host refuses a step without a target before the page sees it (core's `STEP_FIELDS`),
    // with the text that teaches the target fields: this is only a guard.
    Err(Miss::Nothing(bad_field("ref")))
}

#[cfg(test)]
mod tests {
    use super::names_target;

    fn with(fields: &'static [&'static str]) -> impl Fn(&str) -> bool {
        move |f| fields.contains(&f)
    }

    #[test]
    fn targets() {
        assert!(names_target(with(&["ref"]), false));
        assert!(names_target(with(&["ref"]), true));
        assert!(names_target(with(&["text"]), false));
        // In type and fill, `text` is what is typed.
        assert!(!names_target(with(&["text"]), true));
        assert!(names_target(with(&["text", "label"]), true));
        for f in ["role", "label", "placeholder", "selector", "name"] {
            assert!(names_target(move |x| x == f, true), "{f}");
        }
        assert!(!names_target(with(&["url", "ms", "key"]), false));
    }
}
