//! The `label[for]` index of the document being walked or searched, and the `<label>`s of a form
//! control.

use crate::js::{attribute, closest, get};
use std::cell::RefCell;
use wasm_bindgen::intern;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// The `label[for]` elements of one document, sorted by their `for` id.
#[derive(Default)]
pub(crate) struct LabelIndex {
    /// The document indexed: a control in another (a frame's) looks its labels up itself.
    doc: Option<web_sys::Document>,
    by_for: Vec<(String, Element)>,
}

thread_local! {
    /// The index of the document being walked or searched.
    static LABELS_FOR: RefCell<LabelIndex> = RefCell::new(LabelIndex::default());
}

/// Indexes the `label[for]` elements of `doc` for accessible names (the live `control.labels` list
/// scans the whole document on first use: quadratic on a long form). Returns the index it replaces
/// (the walker restores it after a frame).
pub(crate) fn index_labels(doc: &web_sys::Document) -> LabelIndex {
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
    set_label_index(LabelIndex {
        doc: Some(doc.clone()),
        by_for: index,
    })
}

/// Replaces the label index; returns the one it replaces.
pub(crate) fn set_label_index(index: LabelIndex) -> LabelIndex {
    LABELS_FOR.with(|l| std::mem::replace(&mut *l.borrow_mut(), index))
}

/// The `<label>`s of a form control: those whose `for` names its id, then the one it is inside.
pub(super) fn label_elements(el: &Element) -> Vec<Element> {
    let mut out: Vec<Element> = Vec::new();
    let id = attribute(el, "id").unwrap_or_default();
    if !id.is_empty() {
        let root = el.get_root_node();
        let indexed = root.node_type() == Node::DOCUMENT_NODE
            && LABELS_FOR.with(|l| {
                let l = l.borrow();
                let root: &wasm_bindgen::JsValue = root.as_ref();
                if l.doc.as_ref().is_none_or(|d| {
                    let d: &wasm_bindgen::JsValue = d.as_ref();
                    d != root
                }) {
                    return false;
                }
                let from = l.by_for.partition_point(|(k, _)| k.as_str() < id.as_str());
                out.extend(
                    l.by_for[from..]
                        .iter()
                        .take_while(|(k, _)| *k == id)
                        .map(|(_, e)| e.clone()),
                );
                true
            });
        // A shadow root, or a document not indexed (a frame's control named while the page's
        // document is indexed): its own labels, not the page's that share an id.
        let list = match root.node_type() {
            _ if indexed => None,
            Node::DOCUMENT_NODE => root
                .unchecked_ref::<web_sys::Document>()
                .query_selector_all(intern("label[for]"))
                .ok(),
            _ => root
                .unchecked_ref::<web_sys::DocumentFragment>()
                .query_selector_all(intern("label[for]"))
                .ok(),
        };
        for label in list.iter().flat_map(|l| (0..l.length()).filter_map(|i| l.item(i))) {
            let label: Element = label.unchecked_into();
            if attribute(&label, "for").as_deref() == Some(id.as_str()) {
                out.push(label);
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
