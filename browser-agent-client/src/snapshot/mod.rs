//! The accessibility snapshot: a compact tree of what an agent can see and act on, in the shared
//! grammar of `browser_agent_protocol::snapshot` (`role "name" [attr]… [ref=eN]`, two spaces per depth).
//!
//! - [`walker`] walks the page (open shadow roots with their slots, same-origin frames) and builds
//!   the nodes; [`roles`] holds the role tables; [`name`] computes accessible names.
//! - [`refs`] numbers elements for the page load; [`seen`] keeps the ref lines the agent saw.
//! - Before walking, [`idle::wait_network_idle`] waits until the page's requests settle.
//! - [`modal`] finds the open modal dialog, outside which nothing is reachable.
//! - [`budget`] leaves out what does not fit ([`View`]: the budget, `ref`, `offset`/`limit`,
//!   `filter`, `viewport`), each run left out as one line saying how to get it.

pub(crate) mod budget;
pub(crate) mod flat;
pub(crate) mod idle;
pub(crate) mod labels;
pub(crate) mod modal;
pub(crate) mod name;
mod options;
pub(crate) mod refs;
pub(crate) mod roles;
pub(crate) mod seen;
pub(crate) mod style;
pub(crate) mod walker;

use crate::bootstrap;
use crate::js::{get, now_ms};
use crate::text::cat;
use browser_agent_protocol::snapshot::{render, SnapshotNode};
use std::cell::Cell;
use wasm_bindgen::prelude::*;

/// What a snapshot shows when the step does not say: at most about this many tokens (o200k), the
/// host's `budget` in the tag config, else the protocol's default.
fn default_budget() -> usize {
    let host = get(&get(&bootstrap::agent(), bootstrap::CFG), bootstrap::cfg::BUDGET);
    host.as_f64()
        .filter(|n| *n >= 1.0)
        .map_or(browser_agent_protocol::SNAPSHOT_BUDGET as usize, |n| n as usize)
}

/// What a `snapshot` step asks for: `ref` (one node's subtree), `offset`/`limit` (over the
/// children of that node, or of the page), `filter` (the branches whose text matches),
/// `viewport` (what is on screen), `budget` (tokens) or `full` (no budget).
pub(crate) struct View {
    reference: Option<String>,
    offset: usize,
    limit: Option<usize>,
    filter: Option<String>,
    viewport: bool,
    /// In tokens; `None`: everything (`full`).
    budget: Option<usize>,
    /// The budget the step gave (its cut lines repeat it).
    given_budget: Option<usize>,
    /// Anything but the page's default view (never a diff's baseline).
    scoped: bool,
}

impl View {
    /// The whole page within the default budget: the view diffs compare.
    pub(crate) fn page() -> View {
        View {
            reference: None,
            offset: 0,
            limit: None,
            filter: None,
            viewport: false,
            budget: Some(default_budget()),
            given_budget: None,
            scoped: false,
        }
    }

    /// The view a `snapshot` step asks for (a count that is not a number ≥ 0 counts as not given).
    pub(crate) fn of(step: &JsValue) -> View {
        let count = |name: &str| get(step, name).as_f64().filter(|n| *n >= 0.0).map(|n| n as usize);
        let text = |name: &str| get(step, name).as_string().filter(|s| !s.is_empty());
        let mut v = View::page();
        let default = v.budget;
        v.reference = text("ref");
        v.offset = count("offset").unwrap_or(0);
        v.limit = count("limit");
        v.filter = text("filter");
        v.viewport = get(step, "viewport").is_truthy();
        v.given_budget = count("budget");
        if v.given_budget.is_some() {
            v.budget = v.given_budget;
        }
        if get(step, "full").is_truthy() {
            v.budget = None;
        }
        v.scoped = v.reference.is_some()
            || v.offset > 0
            || v.limit.is_some()
            || v.filter.is_some()
            || v.viewport
            || v.budget != default;
        v
    }

    /// Whether this is not the page's default view.
    pub(crate) fn scoped(&self) -> bool {
        self.scoped
    }
}

thread_local! {
    /// How many nodes the last snapshot left out for its budget.
    static LEFT_OUT: Cell<usize> = const { Cell::new(0) };
}

/// How many nodes the last snapshot left out for its budget (0: none).
pub(crate) fn left_out() -> usize {
    LEFT_OUT.with(Cell::get)
}

/// Walks the page (or the part `view` asks for) now and renders the snapshot text; records the
/// walk time on `window.__browserAgent.walkMs`.
pub(crate) fn take_now(view: &View) -> Result<String, String> {
    let t0 = now_ms();
    refs::prune();
    refs::begin_walk();
    // A token is counted as 2.75 characters: o200k averages 2.8 to 3.3 characters a token on
    // snapshot text (the README's characters / 4 would let a budget of 8,000 be 11,000).
    let max_chars = view.budget.map(|tokens| tokens.saturating_mul(11) / 4);
    // Only the budget cuts the page's own view, so its walk may stop where the cut will be.
    let plain = view.reference.is_none() && view.offset == 0 && view.limit.is_none() && view.filter.is_none();
    walker::begin(view.viewport, max_chars.filter(|_| plain && !view.viewport));
    // The ref as the page snapshot writes it (`e48` given for frame 2's element is `f2e48`), so
    // the subtree's refs and its cut lines carry the frame's prefix however it was asked for.
    let (mut nodes, canonical) = match &view.reference {
        Some(r) => {
            let el = refs::element_for_ref(r).map_err(|e| e.message())?;
            let at = refs::ref_of(&el);
            let prefix = at.split_once('e').map_or("", |(p, _)| p);
            if view.filter.is_none() && !view.viewport && (view.offset > 0 || view.limit.is_some()) {
                walker::page(&el, view.offset, view.limit);
            }
            let mut nodes = walker::walk_element(&el, prefix.to_owned());
            if let [only] = nodes.as_mut_slice() {
                only.ref_id = Some(at.clone());
            }
            (nodes, Some(at))
        }
        None => (walker::walk_page(), None),
    };
    let reference = canonical.as_deref();
    let fields = &budget::view_fields(view.filter.as_deref(), view.viewport, view.given_budget);
    // Filtered first: `offset` and `limit` count the matching children, as the filtered view's
    // cut lines do.
    if let Some(f) = &view.filter {
        nodes = budget::filter(nodes, f);
    }
    if (view.offset > 0 || view.limit.is_some()) && !nodes.is_empty() {
        let scope: &mut Vec<SnapshotNode> = match nodes.as_mut_slice() {
            [only] if reference.is_some() => &mut only.children,
            _ => &mut nodes,
        };
        budget::window(scope, view.offset, view.limit, reference, fields);
    }
    let mut left = 0;
    if let Some(max_chars) = max_chars {
        let root = match (reference, nodes.len()) {
            (Some(_), 1) => None,
            _ => Some(budget::Place {
                reference: reference.map(str::to_owned),
                base: view.offset,
                fields,
            }),
        };
        left = budget::fit(&mut nodes, max_chars, root, &mut |n| {
            let base = if n.ref_id.as_deref() == reference {
                view.offset
            } else {
                0
            };
            budget::Place {
                reference: walker::settle_ref(n),
                base,
                fields,
            }
        });
    }
    let mut ref_lines = Vec::new();
    for n in &mut nodes {
        walker::settle(n, &mut ref_lines);
    }
    LEFT_OUT.with(|c| c.set(left));
    seen::record(ref_lines);
    let text = render(&nodes);
    // Nothing to show: say why, so an agent does not take a view with nothing in it for a page
    // that failed to load.
    let text = match (text.is_empty(), &view.filter) {
        (false, _) => text,
        (true, Some(f)) => cat(&["(nothing matches \"", f, "\")"]),
        // (`full` or a `budget` of its own on a page with nothing to show is still an empty page.)
        (true, None) if !plain || view.viewport => "(nothing in this view)".to_owned(),
        (true, None) => "(empty page)".to_owned(),
    };
    bootstrap::set_field(bootstrap::WALK_MS, &JsValue::from_f64(now_ms() - t0));
    Ok(text)
}

/// Waits for network idle, then walks the page.
pub(crate) async fn take(view: &View) -> Result<String, String> {
    idle::wait_network_idle().await;
    take_now(view)
}
