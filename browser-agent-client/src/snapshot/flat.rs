//! The flat tree: the children of an element as the page renders them (shadow roots, slots), and,
//! as a walk enters documents and shadow roots, whether their pseudo-elements may carry text.

use crate::bootstrap;
use crate::js::{call, get};
use std::cell::Cell;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::{Element, Node};

/// Calls `f` for each child of `el` in the flat tree: a shadow host's shadow-root children, a
/// slot's assigned nodes (or its fallback content), otherwise its child nodes.
pub(crate) fn for_each_child(el: &Element, tag: &str, f: &mut impl FnMut(Node)) {
    let shadow = get(el, "shadowRoot");
    let parent: Node = if shadow.is_object() {
        pseudo_in_shadow(&shadow);
        shadow.unchecked_into()
    } else if tag == "slot" {
        let opts = js_sys::Object::new();
        crate::js::set(&opts, "flatten", &wasm_bindgen::JsValue::TRUE);
        let nodes = el
            .unchecked_ref::<web_sys::HtmlSlotElement>()
            .assigned_nodes_with_options(opts.unchecked_ref());
        if nodes.length() > 0 {
            for n in nodes.iter() {
                f(n.unchecked_into());
            }
            return;
        }
        el.clone().into()
    } else {
        el.clone().into()
    };
    let mut c = first_child(&parent);
    while let Some(n) = c {
        c = next_sibling(&n);
        f(n);
    }
}

thread_local! {
    /// `Node.prototype`'s own `firstChild` and `nextSibling` getters, read once.
    static NATIVE: (Option<js_sys::Function>, Option<js_sys::Function>) = (getter("firstChild"), getter("nextSibling"));
}

/// The getter of `Node.prototype[name]`, as the browser defines it.
fn getter(name: &str) -> Option<js_sys::Function> {
    let node = get(&js_sys::global(), "Node");
    let proto = get(&node, "prototype");
    if !proto.is_object() {
        return None;
    }
    let d =
        js_sys::Object::get_own_property_descriptor(proto.unchecked_ref::<js_sys::Object>(), &JsValue::from_str(name));
    get(&d, "get").dyn_into::<js_sys::Function>().ok()
}

/// Reads a child link with the browser's own getter: Stencil's scoped components (Ionic's
/// `ion-input`, `ion-textarea`) redefine `childNodes`, `firstChild` and `nextSibling` on their
/// hosts to show only the light-DOM children they slot, which would hide the field they render.
fn native(which: bool, n: &Node) -> Option<Node> {
    let f = NATIVE.with(|g| if which { g.0.clone() } else { g.1.clone() });
    match f {
        Some(f) => f.call0(n).ok().filter(|v| v.is_object()).map(JsCast::unchecked_into),
        None if which => n.first_child(),
        None => n.next_sibling(),
    }
}

/// `n.firstChild` as the browser defines it (see [`native`]).
pub(crate) fn first_child(n: &Node) -> Option<Node> {
    native(true, n)
}

/// `n.nextSibling` as the browser defines it (see [`native`]).
pub(crate) fn next_sibling(n: &Node) -> Option<Node> {
    native(false, n)
}

thread_local! {
    /// In a walk of a document whose style sheets give no `::before`/`::after` a `content`: their
    /// pseudo-elements say nothing and are not read (outside walks they always are).
    static NO_PSEUDO: Cell<bool> = const { Cell::new(false) };
}

/// Whether the style sheets of `root` (a document or shadow root) may give pseudo-elements text.
fn styled(root: &JsValue) -> bool {
    call(&bootstrap::agent(), bootstrap::PSEUDO, &[root]).map_or(true, |v| v.as_f64() != Some(0.0))
}

/// A walk of the document `doc` begins: when `skip`, its pseudo-elements are read only where its
/// style sheets may give them text. Returns the setting before, to [`restore_pseudo`] after.
pub(crate) fn pseudo_in_document(doc: &JsValue, skip: bool) -> bool {
    NO_PSEUDO.with(|c| c.replace(skip && !styled(doc)))
}

/// The walk enters the shadow root `root`: from now on pseudo-elements are read when its sheets
/// may give them text (never un-read: the outer sheets' `::part()` rules reach in, too).
pub(crate) fn pseudo_in_shadow(root: &JsValue) {
    if NO_PSEUDO.with(Cell::get) && styled(root) {
        NO_PSEUDO.with(|c| c.set(false));
    }
}

/// A walk ends: pseudo-elements are read as before it.
pub(crate) fn restore_pseudo(before: bool) {
    NO_PSEUDO.with(|c| c.set(before));
}

/// Whether pseudo-elements go unread here (a walk of a document whose sheets give them no text).
pub(crate) fn pseudo_skipped() -> bool {
    NO_PSEUDO.with(Cell::get)
}
