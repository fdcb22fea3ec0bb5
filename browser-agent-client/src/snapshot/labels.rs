//! The `label[for]` index of the document being walked or searched, and the `<label>`s of a form
//! control.

use crate::js::{attribute, closest, get};
use std::cell::RefCell;
use wasm_bindgen::intern;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

thread_local! {
    /// `label[for]` elements of the document being walked, sorted by their `for` id.
    static LABELS_FOR: RefCell<Vec<(String, Element)>> = const { RefCell::new(Vec::new()) };
}

/// Indexes the `label[for]` elements of `doc` for accessible names (the live `control.labels` list
/// scans the whole document on first use: quadratic on a long form). Returns the index it replaces
/// (the walker restores it after a frame).
pub(crate) fn index_labels(doc: &web_sys::Document) -> Vec<(String, Element)> {
    let mut index: Vec<(String, Element)> = Vec::new();
    if let Ok(list) = doc.query_selector_all(intern("label[for]")) {
        for i in 0..list.length() {
            let Some(n) = list.item(i) else { continue };
            let label: Element = n.unchecked_into();
            let id = attribute(&label, "for").unwrap_or_default();
            // Stable: labels with the same id stay in document order.
            let at = index.partition_point(|(k, _)| k.as_str() <= id.as_str());
            index.insert(at, (id, label));
        }
    }
    set_label_index(index)
}

/// Replaces the label index; returns the one it replaces.
pub(crate) fn set_label_index(index: Vec<(String, Element)>) -> Vec<(String, Element)> {
    LABELS_FOR.with(|l| std::mem::replace(&mut *l.borrow_mut(), index))
}

/// The `<label>`s of a form control: those whose `for` names its id, then the one it is inside.
pub(super) fn label_elements(el: &Element) -> Vec<Element> {
    let mut out: Vec<Element> = Vec::new();
    let id = attribute(el, "id").unwrap_or_default();
    if !id.is_empty() {
        let root = el.get_root_node();
        if root.node_type() == Node::DOCUMENT_NODE {
            LABELS_FOR.with(|l| {
                let l = l.borrow();
                let from = l.partition_point(|(k, _)| k.as_str() < id.as_str());
                out.extend(l[from..].iter().take_while(|(k, _)| *k == id).map(|(_, e)| e.clone()));
            });
        } else if let Ok(list) = root
            .unchecked_ref::<web_sys::DocumentFragment>()
            .query_selector_all(intern("label[for]"))
        {
            for i in 0..list.length() {
                if let Some(n) = list.item(i) {
                    let label: Element = n.unchecked_into();
                    if attribute(&label, "for").as_deref() == Some(id.as_str()) {
                        out.push(label);
                    }
                }
            }
        }
    }
    if let Some(wrapping) = closest(el, "label") {
        let me: &wasm_bindgen::JsValue = el.as_ref();
        if !out.contains(&wrapping) && get(&wrapping, "control") == *me {
            out.push(wrapping);
        }
    }
    out
}
