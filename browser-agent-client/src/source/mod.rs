//! Source locations (`"source": true` on a step, [`browser_agent_protocol::source`]): which
//! component renders an element, and at which file and line. Reading a framework's internals is
//! dynamic JS work, so it lives in the module `source.js` ([`browser_agent_protocol::lazy::SOURCE`]),
//! loaded on the first step that asks; here its answers are put in the protocol's words: a
//! snapshot's legend, and an acting step's answer.

pub(crate) mod profile;

use crate::commands::step::Outcome;
use crate::js::get;
use crate::lazy;
use crate::snapshot::{refs, seen};
use crate::text::{cat, find_sub};
use browser_agent_protocol::lazy::SOURCE;
use browser_agent_protocol::source::{self as grammar, HEADING};
use js_sys::Array;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    /// The module, once a step asked for locations (its target is read when it is resolved).
    static MODULE: RefCell<Option<JsValue>> = const { RefCell::new(None) };
    /// What the module read of the running step's target when it was resolved (before the step
    /// acted: a click may remove it, and frameworks drop their keys from what they unmount).
    static TARGET: RefCell<Option<JsValue>> = const { RefCell::new(None) };
    /// Whether the running step asked for locations.
    static ASKED: Cell<bool> = const { Cell::new(false) };
}

/// Whether the step asks for source locations.
pub(crate) fn asked(step: &JsValue) -> bool {
    get(step, grammar::FIELD).is_truthy()
}

/// Before a step: when it asks for locations, loads the module (so its target can be read when
/// it is resolved, in [`noted`]).
pub(crate) async fn prepare(step: &JsValue) {
    TARGET.with(|t| t.borrow_mut().take());
    ASKED.with(|a| a.set(asked(step)));
    if asked(step) && MODULE.with(|m| m.borrow().is_none()) {
        if let Ok(module) = lazy::module(SOURCE).await {
            MODULE.with(|m| *m.borrow_mut() = Some(module));
        }
    }
}

/// A step's target was resolved (called where every target is recorded): what the module reads
/// of it now, when the running step asked for locations ([`prepare`] loaded the module).
pub(crate) fn noted(el: &JsValue) {
    let Some(module) = MODULE.with(|m| m.borrow().clone()) else {
        return;
    };
    if !ASKED.with(Cell::get) {
        return;
    }
    if let Ok(v) = crate::js::call(&module, "snap", &[el]) {
        TARGET.with(|t| *t.borrow_mut() = Some(v));
    }
}

/// What the module found: the frameworks, whether any build keeps locations, and each element's
/// location text.
struct Found {
    kind: String,
    dev: bool,
    locations: Vec<Option<String>>,
}

impl Found {
    /// Why nothing was found, said once.
    fn why(&self) -> String {
        grammar::why_none(&self.kind, self.dev)
    }
}

/// Asks the module about `elements` (null where an element is gone), or, `taken`, about what
/// it read of them before.
async fn locate(elements: &Array, taken: bool) -> Result<Found, String> {
    let module = lazy::module(SOURCE).await?;
    let v = lazy::call(&module, "locate", &[elements, &JsValue::from_bool(taken)]).await?;
    let list = get(&v, "locs").dyn_into::<Array>().unwrap_or_default();
    let locations = list
        .iter()
        .map(|l| {
            let l = l.dyn_into::<Array>().ok()?;
            let text = |i: u32| l.get(i).as_string().unwrap_or_default();
            let line = l.get(2).as_f64().filter(|n| *n >= 0.0).unwrap_or(0.0) as u32;
            Some(grammar::location(&text(0), &text(1), line))
        })
        .collect();
    Ok(Found {
        kind: get(&v, "kind").as_string().unwrap_or_default(),
        dev: get(&v, "dev").is_truthy(),
        locations,
    })
}

/// The refs a text names (`[ref=e4]`), each once, in order.
fn refs_in(text: &str, out: &mut Vec<String>) {
    let mut rest = text;
    while let Some(at) = find_sub(rest, "[ref=") {
        rest = rest.get(at + 5..).unwrap_or("");
        let r = rest.split(']').next().unwrap_or("");
        if !r.is_empty() && !out.iter().any(|o| o == r) {
            out.push(r.to_owned());
        }
    }
}

/// The legend of the snapshot just taken (`scope`: the ref it was taken of, whose own line shows
/// no ref): each location once, with the refs it renders.
pub(crate) async fn legend(scope: Option<String>) -> String {
    let mut found_refs: Vec<String> = scope.into_iter().collect();
    for line in seen::last_lines() {
        refs_in(&line, &mut found_refs);
    }
    legend_of(found_refs).await
}

/// The legend of `found_refs`.
async fn legend_of(found_refs: Vec<String>) -> String {
    let elements = Array::new();
    for r in &found_refs {
        elements.push(&refs::element_for_ref(r).map_or(JsValue::NULL, JsValue::from));
    }
    match locate(&elements, false).await {
        Ok(found) => {
            let pairs: Vec<(&str, Option<&str>)> = found_refs
                .iter()
                .enumerate()
                .map(|(i, r)| (r.as_str(), found.locations.get(i).and_then(|l| l.as_deref())))
                .collect();
            grammar::legend(&pairs, Some(&found.why()))
        }
        Err(e) => cat(&[HEADING, " none (", &e, ")"]),
    }
}

/// A step's outcome; an acting step's answer with its target's location (`; source: TodoItem
/// src/TodoItem.jsx:5`) when it asked for it and had a target (a snapshot's is its legend). The
/// target is forgotten either way.
/// An `audit` or `vitals` answer names elements by ref, not a target: it ends with their legend.
pub(crate) async fn answer(command: &str, step: &JsValue, outcome: Outcome) -> Outcome {
    let target = TARGET.with(|t| t.borrow_mut().take());
    let Ok(result) = outcome else { return outcome };
    let (true, Some(text)) = (asked(step) && command != "snapshot", result.as_string()) else {
        return Ok(result);
    };
    if matches!(command, "audit" | "vitals") {
        let mut named = Vec::new();
        refs_in(&text, &mut named);
        return Ok(JsValue::from_str(&cat(&[&text, "\n", &legend_of(named).await])));
    }
    let Some(el) = target else {
        return Ok(result);
    };
    let at = match locate(&Array::of1(&el), true).await {
        Ok(found) => match found.locations.into_iter().next().flatten() {
            Some(at) => at,
            None => cat(&["none (", &grammar::why_none(&found.kind, found.dev), ")"]),
        },
        Err(e) => cat(&["none (", &e, ")"]),
    };
    Ok(JsValue::from_str(&cat(&[&text, "; source: ", &at])))
}
