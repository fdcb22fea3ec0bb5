//! The open modal dialog of a document, which makes the rest of the page unreachable for the
//! snapshot and for commands alike.

use crate::js::{attribute, check_visibility};
use wasm_bindgen::JsCast;
use web_sys::Element;

/// An open modal dialog, and the popups its controls own outside it: what stays reachable
/// beside it. Looked up once per walk and per target lookup.
#[derive(Clone)]
pub(crate) struct Modal {
    /// The dialog.
    pub(crate) dialog: Element,
    /// The popups its controls own outside it ([`owned_popups`]).
    popups: Vec<Element>,
}

impl Modal {
    /// The open modal dialog of `doc` ([`open_modal`]) with its popups.
    pub(crate) fn of(doc: &web_sys::Document) -> Option<Modal> {
        let dialog = open_modal(doc)?;
        Some(Modal {
            popups: owned_popups(&dialog),
            dialog,
        })
    }

    /// Whether `el` can be reached beside the dialog: it is inside it or around it, or inside (or
    /// around) one of its popups.
    pub(crate) fn reaches(&self, el: &Element) -> bool {
        let beside = |d: &Element| el.contains(Some(d)) || d.contains(Some(el));
        beside(&self.dialog) || self.popups.iter().any(beside)
    }
}

/// The open modal dialog of `doc`, if any: a `showModal()` dialog, else a rendered
/// `role=dialog`/`alertdialog` with `aria-modal=true` that holds the focus (the last, which is
/// usually on top). As in Chromium's accessibility tree, `aria-modal` alone blocks nothing: a
/// cookie bar marked so while focus stays on the page leaves the page usable, and a click behind
/// a dialog that does cover it is refused by the hit test.
fn open_modal(doc: &web_sys::Document) -> Option<Element> {
    if let Some(d) = doc.query_selector("dialog:modal").ok().flatten() {
        return Some(d);
    }
    let focus = doc.active_element()?;
    let list = doc
        .query_selector_all("[role=dialog][aria-modal=true],[role=alertdialog][aria-modal=true]")
        .ok()?;
    (0..list.length())
        .rev()
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into::<Element>())
        .find(|d| {
            d.contains(Some(&focus))
                && check_visibility(d).unwrap_or_else(|| d.get_bounding_client_rect().width() > 0.0)
        })
}

/// The popups that controls inside `modal` control or own (`aria-controls`, `aria-owns`) outside
/// it: a select's list that Element Plus, PrimeVue and Mantine move to `<body>`.
fn owned_popups(modal: &Element) -> Vec<Element> {
    let mut popups = Vec::new();
    let (Some(doc), Ok(list)) = (
        modal.owner_document(),
        modal.query_selector_all("[aria-controls],[aria-owns]"),
    ) else {
        return popups;
    };
    for i in 0..list.length() {
        let Some(owner) = list.item(i).map(|n| n.unchecked_into::<Element>()) else {
            continue;
        };
        for name in ["aria-controls", "aria-owns"] {
            for id in attribute(&owner, name).unwrap_or_default().split_ascii_whitespace() {
                if let Some(p) = doc.get_element_by_id(id).filter(|p| !modal.contains(Some(p))) {
                    popups.push(p);
                }
            }
        }
    }
    popups
}
