//! What an acting step opened or closed: dialogs and popups (`role=dialog` or `alertdialog`, an
//! open `<dialog>`, `aria-modal`). A batch's diff compares the page before and after the batch, so
//! a popup that one step opened and a later one closed (a click outside it) never shows there;
//! the step's own answer says it: `clicked button "Change plan" [ref=e46]: clicked; it opened
//! dialog "Plan"`.

use super::resolve::{describe, is_visible};
use crate::text::cat;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// A live region: an announcement, not a part of the page a dialog covers.
const LIVE: &str = "[aria-live],[role=status],[role=alert],[role=log]";

/// What counts as a dialog or popup.
const DIALOGS: &str = "[role=dialog],[role=alertdialog],dialog[open],[aria-modal=true]";

/// The dialogs and popups shown now in the page's document.
fn visible_dialogs() -> Vec<Element> {
    let Some(doc) = super::resolve::page_window_document() else {
        return Vec::new();
    };
    let Ok(list) = doc.query_selector_all(DIALOGS) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(JsCast::unchecked_into::<Element>)
        .filter(is_visible)
        .collect()
}

/// The dialogs and popups shown now, each with its description as it is now (a closed one is often
/// gone from the page, and with it its name).
pub(crate) fn shown() -> Vec<(Element, String)> {
    visible_dialogs()
        .into_iter()
        .map(|e| {
            let said = describe(&e);
            (e, said)
        })
        .collect()
}

/// What a step did to them: `; it opened dialog "Plan"`, `; it closed alertdialog "Revoke key?"`,
/// or "" (the outermost of nested ones: a dialog inside another opened with it is not named).
pub(crate) fn change(before: &[(Element, String)], after: &[(Element, String)]) -> String {
    let mut out = String::new();
    for (verb, list, other) in [("opened", after, before), ("closed", before, after)] {
        let moved: Vec<&(Element, String)> = list
            .iter()
            .filter(|(e, _)| !other.iter().any(|(o, _)| o == e))
            .collect();
        for (e, said) in &moved {
            if moved.iter().any(|(o, _)| o != e && o.contains(Some(e))) {
                continue;
            }
            out.push_str(&cat(&["; it ", verb, " ", said]));
        }
    }
    out
}

/// The longest wait for a fade (ms): a press for what covers its target to fade out, an answer
/// for a dialog to fade in or out.
pub(crate) const FADE_WAIT_MS: f64 = 1_500.0;

/// Waits (at most [`FADE_WAIT_MS`]) while a dialog shown now is fading in or out: an animation
/// that ends runs on it, inside it, or beside it in its component's shadow root (Shoelace's
/// dialog fades its panel and overlay out after `hide()`; read mid-fade, a dialog the batch
/// closed still looked open and modal). Animations elsewhere in the page are not waited for.
pub(crate) async fn dialogs_still() {
    let start = crate::js::now_ms();
    while crate::js::now_ms() - start < FADE_WAIT_MS && dialogs_fading() {
        crate::js::sleep(30).await;
    }
}

/// Whether an animation that ends runs on a dialog shown now or within its reach (see
/// [`dialogs_still`]).
fn dialogs_fading() -> bool {
    let mut dialogs = visible_dialogs();
    if let Some(m) = super::resolve::page_window_document().and_then(|d| crate::snapshot::modal::Modal::of(&d)) {
        dialogs.push(m.dialog);
    }
    dialogs.iter().any(|dialog| {
        let root = dialog.get_root_node();
        let in_shadow = root.node_type() == web_sys::Node::DOCUMENT_FRAGMENT_NODE;
        crate::js::ending_animations(&root).iter().any(|a| {
            let target = crate::js::get(&crate::js::get(a, "effect"), "target");
            target
                .dyn_into::<Element>()
                .is_ok_and(|t| in_shadow || dialog.contains(Some(&t)))
        })
    })
}

/// Whether a modal dialog is open: one the browser or ARIA calls modal, or a dialog beside which
/// the page hid everything else (`aria-hidden` or `inert` on the body's other children: Radix's
/// and React Aria's way). The snapshot then shows the dialog alone.
pub(crate) fn modal_open() -> bool {
    let Some(doc) = super::resolve::page_window_document() else {
        return false;
    };
    if crate::snapshot::modal::Modal::of(&doc).is_some() {
        return true;
    }
    let Some(body) = doc.body() else {
        return false;
    };
    visible_dialogs().iter().any(|dialog| {
        let mut others = 0;
        let mut child = body.first_element_child();
        while let Some(c) = child {
            child = c.next_element_sibling();
            // (The agent's own elements, the cursor, are no part of the page; nor is a live
            // region added after the dialog opened, such as the announcement of a toast.)
            if c.contains(Some(dialog))
                || matches!(c.local_name().as_str(), "script" | "style" | "template" | "link")
                || crate::js::matches(&c, browser_agent_protocol::UI_SELECTOR)
                || crate::js::matches(&c, LIVE)
            {
                continue;
            }
            others += 1;
            let hidden = crate::js::attribute(&c, "aria-hidden").as_deref() == Some("true") || c.has_attribute("inert");
            if !hidden {
                return false;
            }
        }
        others > 0
    })
}
