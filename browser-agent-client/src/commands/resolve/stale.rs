//! Refs from a snapshot: the element a ref names, and when it is gone, the element that took its
//! place in the same row, or what the agent saw there and what looks like it now.

use super::candidates::{all_elements, list};
use super::describe::{describe, describe_no_ref, name_of, push_in_row, role_of};
use super::outcome::Miss;
use super::visibility::{hidden_reason, visible};
use crate::snapshot::refs::{element_for_ref, former_element, pass_on, row_text, RefError};
use crate::snapshot::seen;
use crate::text::{cat, find_sub};
use web_sys::Element;

/// Keeps the last snapshot's ref lines (a batch starts: the agent saw the previous one).
pub(crate) fn remember() {
    seen::remember();
}

/// The element of a `ref` field, when it is still there and visible. The host hands every step's
/// ref over as the snapshot writes it (`e3` for `@ref=e03` or `[ref=E3]`), so the messages repeat
/// it as given.
pub(super) fn by_ref(clean: &str, teach: bool) -> Result<Element, Miss> {
    match element_for_ref(clean) {
        Ok(el) => match hidden_reason(&el) {
            None => Ok(el),
            Some(why) => Err(Miss::Nothing(cat(&[
                "Element [ref=",
                clean,
                "] ",
                &describe_no_ref(&el),
                " exists but is hidden (",
                &why,
                ")",
            ]))),
        },
        // The page re-rendered it (a list redrawn after each change): the element of the same role
        // and name in a row with the same text is the one the agent meant.
        Err(RefError::Gone(_)) => match former_element(clean).and_then(|old| successor(&old)) {
            Some(el) => {
                pass_on(clean, &el);
                Ok(el)
            }
            None if !teach => Err(Miss::Nothing(String::new())),
            None => Err(Miss::Nothing(gone(clean))),
        },
        Err(e) => Err(Miss::Nothing(e.message())),
    }
}

/// The element that took the place of `old`, which left the page: the one visible element of its
/// role and name in a row (or card) with the same text. Nothing outside them: a lone button of the
/// same name elsewhere may be another one (the row's own was deleted).
pub(crate) fn successor(old: &Element) -> Option<Element> {
    let role = role_of(old);
    let row = row_text(old)?;
    let name = name_of(old, role);
    let mut alike = all_elements().into_iter().filter(|e| {
        role_of(e) == role && name_of(e, role) == name && row_text(e).as_deref() == Some(row.as_str()) && visible(e)
    });
    let first = alike.next()?;
    alike.next().is_none().then_some(first)
}

/// [`describe`], and the row it sits in when it has one: `checkbox "✔" [ref=e13] in "milk ✖"`.
fn describe_in_row(el: &Element) -> String {
    let mut out = describe(el);
    if let Some(row) = row_text(el) {
        push_in_row(&mut out, &row);
    }
    out
}

/// `Element [ref=e9] is gone (the page changed). Take a new snapshot; similar now: …`.
fn gone(r: &str) -> String {
    let mut m = cat(&["Element [ref=", r, "] is gone (the page changed). Take a new snapshot"]);
    // What a snapshot said it was: `role "name"`.
    seen::remember();
    let Some(line) = seen::line_of(r) else {
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
        same_role.iter().map(describe_in_row).collect()
    } else {
        named.into_iter().map(describe_in_row).collect()
    };
    if similar.is_empty() {
        m.push_str("; it was ");
        m.push_str(find_sub(line, " [ref=").and_then(|i| line.get(..i)).unwrap_or(line));
        m.push_str(" and nothing like it is visible now.");
    } else {
        m.push_str("; similar now: ");
        list(&mut m, similar.into_iter());
    }
    m
}
