//! The open modal dialog of a document, which makes the rest of the page unreachable for the
//! snapshot and for commands alike.

use crate::js::{attribute, check_visibility, get, matches};
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// Whether `outer` is `inner` or one of its ancestors in the flat tree (a slotted node's slot, a
/// shadow root's host).
pub(crate) fn flat_contains(outer: &Element, inner: &Element) -> bool {
    let mut cur = Some(inner.clone());
    while let Some(e) = cur {
        if e == *outer {
            return true;
        }
        cur = flat_parent(&e);
    }
    false
}

/// `el`'s parent in the flat tree: its slot, its parent element, or its shadow root's host.
fn flat_parent(el: &Element) -> Option<Element> {
    if let Some(slot) = el.assigned_slot() {
        return Some(slot.into());
    }
    if let Some(p) = el.parent_element() {
        return Some(p);
    }
    let root = el.get_root_node();
    (root.node_type() == Node::DOCUMENT_FRAGMENT_NODE)
        .then(|| get(&root, "host").dyn_into::<Element>().ok())
        .flatten()
}

/// Selector of a modal dialog.
const MODAL: &str = "dialog:modal,[role=dialog][aria-modal=true],[role=alertdialog][aria-modal=true]";

/// The modal dialog around the focus where it is in shadow trees (a web component's dialog):
/// the flat-tree ancestors of the innermost focused element.
fn modal_around_focus(doc: &web_sys::Document) -> Option<Element> {
    let mut focus = doc.active_element()?;
    for _ in 0..32 {
        let root = get(&focus, "shadowRoot");
        let inner = get(&root, "activeElement");
        match inner.dyn_into::<Element>() {
            Ok(e) if root.is_object() => focus = e,
            _ => break,
        }
    }
    modal_around(focus)
}

/// The nearest modal dialog around `el` in the flat tree.
fn modal_around(el: Element) -> Option<Element> {
    let mut cur = Some(el);
    while let Some(e) = cur {
        if matches(&e, MODAL) && check_visibility(&e).unwrap_or(true) {
            return Some(e);
        }
        cur = flat_parent(&e);
    }
    None
}

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
        if beside(&self.dialog) || self.popups.iter().any(beside) {
            return true;
        }
        // Across shadow trees, in the flat tree: a web component's dialog drawn in its shadow
        // root (Shoelace's panel, FAST's control) holds the light-DOM content it slots, and a
        // dialog holds the controls drawn in its components' shadow roots.
        let shadowed =
            |e: &Element| e.get_root_node().node_type() == Node::DOCUMENT_FRAGMENT_NODE || e.assigned_slot().is_some();
        (shadowed(el) || shadowed(&self.dialog) || el.local_name().contains('-'))
            && (flat_contains(&self.dialog, el) || flat_contains(el, &self.dialog))
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
    let dialogs: Vec<Element> = (0..list.length())
        .rev()
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into::<Element>())
        .collect();
    let shown = |d: &Element| check_visibility(d).unwrap_or_else(|| d.get_bounding_client_rect().width() > 0.0);
    let light = dialogs.iter().find(|d| d.contains(Some(&focus)) && shown(d)).cloned();
    // (Only when the focus is in a shadow tree or slotted into one does the flat tree say more.)
    let deep =
        get(&focus, "shadowRoot").is_object() || focus.assigned_slot().is_some() || focus.local_name().contains('-');
    light
        .or_else(|| deep.then(|| modal_around_focus(doc)).flatten())
        .or_else(|| {
            // A web component's modal that leaves the focus where it was (Ionic's `ion-modal`,
            // whose `role=dialog` is in its shadow tree): modal when it is what the middle of
            // the window shows.
            let win = get(doc, "defaultView");
            let (w, h) = (get(&win, "innerWidth").as_f64()?, get(&win, "innerHeight").as_f64()?);
            let mid = doc.element_from_point((w / 2.0) as f32, (h / 2.0) as f32)?;
            dialogs
                .into_iter()
                .find(|d| d.local_name().contains('-') && d.contains(Some(&mid)) && shown(d))
                .or_else(|| {
                    let d = modal_around(mid)?;
                    let in_component = d.get_root_node().node_type() == Node::DOCUMENT_FRAGMENT_NODE;
                    in_component.then_some(d)
                })
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
