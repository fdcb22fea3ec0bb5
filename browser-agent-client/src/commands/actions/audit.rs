//! `audit`: axe-core's accessibility rules on the page, or on a target's subtree (`ref`, or any
//! target field), run by the module [`browser_agent_protocol::lazy::AUDIT`] (`browser-agent-client/audit/audit.js`: axe-core as
//! npm ships it, pinned, plus a small adapter), which loads on the first audit: pages never
//! audited never fetch it. The answer is text, violations grouped by rule, most severe first:
//!
//! ```text
//! audit of the page (axe-core 4.14.1, 58 rules): 2 rules violated on 3 elements
//! critical image-alt: Images must have alternative text (1)
//!   fix any of: Element does not have an alt attribute | aria-label attribute does not exist or is empty
//!   - img#logo [ref=e3]
//! serious color-contrast: Elements must meet minimum color contrast ratio thresholds (2)
//!   fix: Element has insufficient color contrast of 2.3 (…). Expected contrast ratio of 4.5:1
//!   - paragraph [ref=e9]
//!   - link "More" [ref=e10]: Element has insufficient color contrast of 3.1 (…)
//! ```
//!
//! Each element is described as the snapshot and the other steps describe it, always with its ref
//! (given now if the snapshot gave it none), so the agent can act on it or audit inside it. At
//! most `limit` elements per rule (default [`PER_RULE`]); the whole answer stays within
//! [`MAX_CHARS`] (about 4,000 tokens), later rules then only named.

use super::super::step::Outcome;
use crate::js::{as_element, get, js_number, js_string};
use crate::lazy;
use crate::text::{cat, num, push_number};
use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};

/// Elements listed per rule unless the step's `limit` says otherwise.
const PER_RULE: u32 = 5;
/// The answer's length bound in characters (~4 per token).
const MAX_CHARS: usize = 16_000;

/// `{"command":"audit", target?, "limit"?}`: the violations axe finds, as text.
pub(super) async fn audit(step: &JsValue) -> Outcome {
    let scoped = super::super::resolve::has_target(step, false);
    let root: JsValue = if scoped {
        super::super::target::target(step, false)?.el.into()
    } else {
        JsValue::NULL
    };
    let limit = get(step, "limit")
        .as_f64()
        .map_or(PER_RULE, |n| n.clamp(0.0, 1000.0) as u32);
    let module = lazy::module(browser_agent_protocol::lazy::AUDIT).await?;
    let r = lazy::call(&module, "run", &[&root, &js_number(f64::from(limit))]).await?;
    let scope = if scoped {
        as_element(root).map_or_else(|| "the target".into(), |el| element(&el))
    } else {
        "the page".into()
    };
    Ok(js_string(&render(&r, &scope, limit)))
}

/// The element's description as the snapshot gives it, with its ref even where the snapshot
/// prints none (an image, a paragraph): the agent can act on it, or audit inside it. One without
/// a name (what most violations are about) also gets its `tag#id` or `tag.class`, where it has
/// one, for finding it in the source: `img [ref=e6] (img#logo)`.
fn element(el: &web_sys::Element) -> String {
    use super::super::resolve::{describe, short};
    // What page-level rules report is the root, whose text is the whole page's: its tag says it.
    let root = matches!(el.local_name().as_str(), "html" | "body");
    let mut d = if root { short(el) } else { describe(el) };
    if !crate::text::has_sub(&d, "[ref=") {
        d.push_str(" [ref=");
        d.push_str(&crate::snapshot::refs::ref_of(el));
        d.push(']');
    }
    let hint = short(el);
    if !d.contains('"') && hint.len() > el.local_name().len() && !d.starts_with(&hint) {
        d.push_str(" (");
        d.push_str(&hint);
        d.push(')');
    }
    d
}

/// The answer's text from the module's `{version, ran, incomplete, rules}`.
fn render(r: &JsValue, scope: &str, limit: u32) -> String {
    let rules: Array = get(r, "rules").unchecked_into();
    let total_nodes: f64 = rules.iter().map(|v| get(&v, "total").as_f64().unwrap_or(0.0)).sum();
    let mut out = cat(&[
        "audit of ",
        scope,
        " (axe-core ",
        &get(r, "version").as_string().unwrap_or_default(),
        ", ",
        &num(get(r, "ran").as_f64().unwrap_or(0.0)),
        " rules): ",
    ]);
    if rules.length() == 0 {
        out.push_str("no violations");
    } else {
        push_number(&mut out, rules.length());
        out.push_str(if rules.length() == 1 {
            " rule violated on "
        } else {
            " rules violated on "
        });
        out.push_str(&num(total_nodes));
        out.push_str(if total_nodes == 1.0 { " element" } else { " elements" });
    }
    let mut left_out: Vec<String> = Vec::new();
    for rule in rules.iter() {
        let id = get(&rule, "id").as_string().unwrap_or_default();
        let block = rule_block(&rule, &id, limit);
        if !left_out.is_empty() || out.len() + block.len() > MAX_CHARS {
            left_out.push(id);
            continue;
        }
        out.push_str(&block);
    }
    if !left_out.is_empty() {
        out.push_str("\n… ");
        out.push_str(&num(left_out.len() as f64));
        out.push_str(" more rules past the answer's budget: ");
        let ids: Vec<&str> = left_out.iter().map(String::as_str).collect();
        crate::text::push_joined(&mut out, &ids, ", ");
        out.push_str(" (audit a part of the page with ref, or a lower limit)");
    }
    // Each rule axe could not decide, with the elements it could not decide on (text over an
    // image, a colour under a gradient): which ones a person should look at.
    let incomplete: Array = get(r, "incomplete").unchecked_into();
    if incomplete.length() > 0 {
        out.push_str("\nneeds a person to check (axe could not decide):");
        for rule in incomplete.iter() {
            out.push_str("\n  ");
            out.push_str(&get(&rule, "id").as_string().unwrap_or_default());
            let nodes: Array = get(&rule, "nodes").dyn_into().unwrap_or_default();
            let named: Vec<String> = nodes.iter().filter_map(as_element).map(|el| element(&el)).collect();
            if !named.is_empty() {
                out.push_str(": ");
                let named: Vec<&str> = named.iter().map(String::as_str).collect();
                crate::text::push_joined(&mut out, &named, ", ");
            }
            let total = get(&rule, "total").as_f64().unwrap_or(0.0);
            let more = total - named.len() as f64;
            if named.is_empty() {
                out.push_str(" (");
                out.push_str(&num(total));
                out.push(')');
            } else if more > 0.0 {
                out.push_str(" … ");
                out.push_str(&num(more));
                out.push_str(" more");
            }
        }
    }
    out
}

/// One rule's lines: `impact id: help (count)`, its fix, its elements (each with its own fix
/// where it differs from the rule's), and how many more there are.
fn rule_block(rule: &JsValue, id: &str, limit: u32) -> String {
    let text = |name: &str| get(rule, name).as_string().unwrap_or_default();
    let total = get(rule, "total").as_f64().unwrap_or(0.0);
    let fix = text("fix");
    let mut out = cat(&[
        "\n",
        &text("impact"),
        " ",
        id,
        ": ",
        &text("help"),
        " (",
        &num(total),
        ")",
    ]);
    if !fix.is_empty() {
        out.push_str("\n  fix");
        let kind = fix.starts_with("any of: ") || fix.starts_with("all of: ");
        out.push_str(if kind { " " } else { ": " });
        out.push_str(&fix);
    }
    let nodes: Array = get(rule, "nodes").unchecked_into();
    for node in nodes.iter() {
        out.push_str("\n  - ");
        match as_element(get(&node, "el")) {
            Some(el) => out.push_str(&element(&el)),
            // An element axe reports outside the DOM we see (none is expected).
            None => out.push_str("(an element axe could not hand back)"),
        }
        let own = get(&node, "fix").as_string().unwrap_or_default();
        if !own.is_empty() && own != fix {
            out.push_str(": ");
            out.push_str(&own);
        }
    }
    let more = total - f64::from(nodes.length());
    if more > 0.0 {
        out.push_str("\n  … ");
        out.push_str(&num(more));
        out.push_str(" more");
        if limit < 1000 {
            out.push_str(" (a higher \"limit\" lists them)");
        }
    }
    out
}
