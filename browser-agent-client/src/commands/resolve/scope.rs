//! What one lookup computes once: the snapshot's `label[for]` index (names read it) and the page
//! document's open modal dialog (a lookup asks about the visibility of every candidate, and the
//! DOM does not change meanwhile).

use crate::js::get;
use crate::snapshot::{labels, modal::Modal};
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    /// The snapshot's `label[for]` index is built for the document (during a lookup).
    static INDEXED: Cell<bool> = const { Cell::new(false) };
    /// The page document's open modal dialog (with its popups), looked up once per lookup.
    static MODAL: RefCell<Option<(web_sys::Document, Option<Modal>)>> = const { RefCell::new(None) };
}

/// Runs `f` with the label index built for the page and its open modal dialog looked up (once,
/// however deep the calls nest).
pub(super) fn with_labels<R>(f: impl FnOnce() -> R) -> R {
    if INDEXED.with(Cell::get) {
        return f();
    }
    let Some(doc) = page_window_document() else { return f() };
    let saved = labels::index_labels(&doc);
    INDEXED.with(|i| i.set(true));
    MODAL.with(|m| *m.borrow_mut() = Some((doc.clone(), Modal::of(&doc))));
    let r = f();
    MODAL.with(|m| m.borrow_mut().take());
    INDEXED.with(|i| i.set(false));
    labels::set_label_index(saved);
    r
}

/// The open modal dialog of `doc` (an element's `ownerDocument`): the one looked up for this
/// lookup when `doc` is the page's document, else looked up now.
pub(super) fn modal_of(doc: &JsValue) -> Option<Modal> {
    let cached = MODAL.with(|m| {
        m.borrow()
            .as_ref()
            .filter(|(d, _)| JsValue::from(d.clone()) == *doc)
            .map(|(_, modal)| modal.clone())
    });
    match cached {
        Some(modal) => modal,
        None => doc
            .is_object()
            .then(|| wasm_bindgen::JsCast::unchecked_ref::<web_sys::Document>(doc).clone())
            .and_then(|d| Modal::of(&d)),
    }
}

/// The page's document.
pub(crate) fn page_window_document() -> Option<web_sys::Document> {
    let d = get(&js_sys::global(), "document");
    d.is_object().then(|| d.unchecked_into())
}
