//! The options of a `<select>` as snapshot nodes.

use super::name::{option_text, squash};
use crate::js::{attribute, get, has_attribute};
use crate::text::push_number;
use browser_agent_protocol::snapshot::{Attr, SnapshotNode};
use web_sys::Element;

/// Most options listed under a `<select>`.
const MAX_OPTIONS: usize = 50;

/// The options of a `<select>` (groups as `group` nodes); `[selected]` only in a list box (a
/// combobox shows its value). At most [`MAX_OPTIONS`], then a note of how many more.
pub(super) fn options(select: &Element, listbox: bool) -> Vec<SnapshotNode> {
    let mut out = Vec::new();
    let mut count = 0usize;
    let mut more = 0usize;
    let mut add = |o: &Element, into: &mut Vec<SnapshotNode>| {
        if count >= MAX_OPTIONS {
            more += 1;
            return;
        }
        count += 1;
        let mut n = SnapshotNode::new("option", option_text(o));
        if has_attribute(o, "disabled") {
            n.attrs.push(Attr::Disabled);
        }
        if listbox && get(o, "selected").is_truthy() {
            n.attrs.push(Attr::Selected);
        }
        into.push(n);
    };
    let mut c = select.first_element_child();
    while let Some(e) = c {
        c = e.next_element_sibling();
        match e.local_name().as_str() {
            "option" => add(&e, &mut out),
            "optgroup" => {
                let mut group =
                    SnapshotNode::new("group", attribute(&e, "label").map(|l| squash(&l)).unwrap_or_default());
                let mut o = e.first_element_child();
                while let Some(opt) = o {
                    o = opt.next_element_sibling();
                    if opt.local_name() == "option" {
                        add(&opt, &mut group.children);
                    }
                }
                out.push(group);
            }
            _ => {}
        }
    }
    if more > 0 {
        let mut t = String::from("… ");
        push_number(&mut t, more as u32);
        t.push_str(" more options");
        out.push(SnapshotNode::text(t));
    }
    out
}
