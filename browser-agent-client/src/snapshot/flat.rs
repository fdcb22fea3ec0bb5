//! The flat tree: the children of an element as the page renders them (shadow roots, slots).

use crate::js::get;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// Calls `f` for each child of `el` in the flat tree: a shadow host's shadow-root children, a
/// slot's assigned nodes (or its fallback content), otherwise its child nodes.
pub(crate) fn for_each_child(el: &Element, tag: &str, f: &mut impl FnMut(Node)) {
    let shadow = get(el, "shadowRoot");
    let parent: Node = if shadow.is_object() {
        super::name::pseudo_in_shadow(&shadow);
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
    let mut c = parent.first_child();
    while let Some(n) = c {
        c = n.next_sibling();
        f(n);
    }
}
