//! What a page's answer does: a handover gives the rest of the batch to the next page of the
//! tab; a final answer merges the steps earlier pages ran, diffs the snapshots, and wakes the caller.

use std::time::Instant;

use serde_json::Value;

use super::queue::{
    bound_actions, bound_baselines, log_actions, page_mut, CommandQueue, Early, EarlyEnd, Queued, State, Waiting,
};
use super::{BatchResult, HANDOVER_WAIT};
use crate::protocol::{field, Handover, Results, StepResult};
use crate::snapshot;

impl CommandQueue {
    /// Delivers a page's answer, with its log entries as stored; false when nobody waits for `id`
    /// (unknown, or timed out).
    pub(crate) fn complete(&self, id: &str, result: Results, logs: Vec<Value>) -> bool {
        let mut state = self.state.lock();
        let Some(mut w) = state.waiting.remove(id) else {
            return false;
        };
        let page = page_mut(&mut state, &w.client);
        if page.running.as_deref() == Some(id) {
            page.running = None;
        }
        page.wake.notify_waiters();
        let Results {
            mut steps,
            snapshot: full,
            duration,
            error,
            handover,
            modal,
            ..
        } = result;
        log_actions(page, id, &steps);
        let client = w.client.clone();
        bound_actions(&mut state, &client);
        if let Some(handover) = handover.filter(Handover::is_valid) {
            hand_over(&mut state, id, w, handover, steps, logs);
            return true;
        }
        // This page's steps are diffed against this page's snapshots alone: pages the batch left
        // earlier were diffed as they handed over (a new page load numbers its refs afresh, so a
        // diff across two loads would pair unrelated nodes that happen to share a ref).
        let page = page_mut(&mut state, &w.client);
        let shown = diff_snapshots(
            &mut page.last_snapshot,
            &w.diff_steps,
            w.done_steps.len(),
            &mut steps,
            &full,
            modal,
        );
        bound_baselines(&mut state, &w.client);
        let duration = whole_batch_time(&w, &mut steps, duration);
        let (steps, logs) = merge_done(&mut w, steps, logs);
        // The batch's error is its first failed step that was not optional: an optional step's
        // failure is reported in its own result, and the batch went on (issue 33 item 6).
        let optional = |s: &StepResult| s.other.get("optional").and_then(Value::as_bool) == Some(true);
        let error = steps
            .iter()
            .filter(|s| !optional(s))
            .find_map(|s| s.error.clone())
            .or(error);
        let out = BatchResult {
            event: "browser-completed",
            client_id: w.client,
            steps,
            snapshot: shown,
            logs,
            duration,
            error,
            // Filled from the logs by the caller (`dialogs.rs`).
            dialogs: Vec::new(),
            full_snapshot: full,
        };
        // The caller may have given up in the same instant: nothing else to do then.
        let _ = w.tx.send(Ok(out));
        true
    }
}

/// The page is navigating: keep what ran, and give the rest to the next page load in its tab,
/// which must connect soon, or the agent hears why it did not.
fn hand_over(
    state: &mut State,
    id: &str,
    mut w: Waiting,
    handover: Handover,
    mut steps: Vec<StepResult>,
    mut logs: Vec<Value>,
) {
    // The leaving page's own snapshots: diffed now, against its own baseline (see `complete`).
    let page = page_mut(state, &w.client);
    diff_snapshots(
        &mut page.last_snapshot,
        &w.diff_steps,
        w.done_steps.len(),
        &mut steps,
        "",
        false,
    );
    bound_baselines(state, &w.client);
    let Handover {
        tab,
        remaining,
        offset,
        url,
        ..
    } = handover;
    let url = url.map(|mut u| {
        crate::util::truncate_marked(&mut u, crate::config::PAGE_MAX);
        u
    });
    let offset = offset.unwrap_or((w.done_steps.len() + steps.len()) as u64);
    state.handovers.insert(
        tab,
        Queued {
            id: id.to_owned(),
            steps: remaining.unwrap_or_default(),
            offset: Some(offset),
            from: w.client.clone(),
        },
    );
    // The tab's next page may be polling already: the old page posts its handover as it unloads,
    // and the new page's first poll can reach the host before it. Wake the held polls, so that page
    // looks again and takes it now instead of when its 25 s hold ends (after the 10 s handover wait
    // has failed the batch).
    super::queue::wake_all_polls(state);
    w.done_steps.append(&mut steps);
    w.done_logs.append(&mut logs);
    w.client = String::new();
    let since = Instant::now();
    w.early = Some(Early {
        at: since + HANDOVER_WAIT,
        why: EarlyEnd::Handover { url, since },
    });
    w.changed.notify_one();
    state.waiting.insert(id.to_owned(), w);
}

/// The batch's `duration` when it crossed a navigation: the host's time since it was queued (the
/// last page timed only its own part), and the last page's steps' `at` counted from the batch's
/// start too, so they stay in order after the earlier pages'. Otherwise the page's `duration`.
fn whole_batch_time(w: &Waiting, steps: &mut [StepResult], duration: u64) -> u64 {
    let ms = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let Some(resumed) = w.resumed else {
        return duration;
    };
    let shift = ms(resumed.duration_since(w.queued));
    for step in steps.iter_mut() {
        if let Some(at) = step.other.get(field::AT).and_then(Value::as_u64) {
            step.other
                .insert(field::AT.into(), Value::from(at.saturating_add(shift)));
        }
    }
    duration.max(ms(w.queued.elapsed()))
}

/// The steps and logs of the whole batch: those of the pages it left first, then the last page's.
fn merge_done(w: &mut Waiting, mut steps: Vec<StepResult>, mut logs: Vec<Value>) -> (Vec<StepResult>, Vec<Value>) {
    if !w.done_steps.is_empty() {
        w.done_steps.append(&mut steps);
        steps = std::mem::take(&mut w.done_steps);
    }
    if !w.done_logs.is_empty() {
        w.done_logs.append(&mut logs);
        logs = std::mem::take(&mut w.done_logs);
    }
    (steps, logs)
}

/// Replaces the result of each `diff` snapshot step of one page (its steps start at batch index
/// `first`) by what changed since that page's snapshot before it, and remembers the page's last
/// full snapshot; returns the final snapshot as the agent sees it: what changed from the page
/// *before the batch* to the page after it (a snapshot step inside the batch never moves that
/// baseline, so a `[click, snapshot]` batch still says what the click changed). Without a
/// baseline (the page's first snapshot), the whole snapshot; or, when the batch's last full
/// snapshot step already showed exactly this page whole, [`same_as_step`] naming that step
/// instead of repeating it. Empty when the page handed over without a final snapshot. A final
/// snapshot of an open `modal` dialog alone is shown whole after [`snapshot::MODAL_OPEN`], and
/// the page before it stays the baseline (the page behind the dialog did not go away).
fn diff_snapshots(
    last: &mut Option<String>,
    diff_steps: &[usize],
    first: usize,
    steps: &mut [StepResult],
    full: &str,
    modal: bool,
) -> String {
    let before = last.clone();
    let mut previous = last.clone();
    // The batch index of the last step that showed the page whole, and what it showed.
    let mut shown_whole: Option<(usize, String)> = None;
    for (i, step) in steps.iter_mut().enumerate() {
        // (Its place in the batch as the page says it, else counted: pages send one result a step.)
        let i = step.index.map_or(first + i, |at| at as usize);
        // A scoped snapshot (a `ref`, `offset`/`limit`, `filter`, `viewport`, its own `budget` or
        // `full`; the page marks it `scoped`) is answered as taken: never diffed, never the
        // baseline of the page's next diff.
        if step.command != "snapshot" || step.other.get(field::SCOPED).and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(full) = step.result_str().map(str::to_owned) {
            shown_whole = Some((i, full.clone()));
            if diff_steps.contains(&i) {
                if let Some(prev) = &previous {
                    step.result = Some(Value::String(snapshot::diff(prev, &full)));
                    shown_whole = None;
                }
            }
            previous = Some(full);
        }
    }
    // The page whole, or the step that already showed exactly this.
    let whole = || match &shown_whole {
        Some((i, shown)) if shown.trim_end() == full.trim_end() => same_as_step(*i),
        _ => full.to_owned(),
    };
    let shown = match (&before, full.is_empty()) {
        (_, true) => String::new(),
        (Some(_), false) if modal => format!("{}\n{}", snapshot::MODAL_OPEN, whole().trim_end()),
        (Some(before), false) => snapshot::diff(before, full),
        (None, false) => whole(),
    };
    if !full.is_empty() {
        if !modal {
            *last = Some(full.to_owned());
        }
    } else if previous.is_some() {
        *last = previous;
    }
    shown
}

/// The batch's final snapshot when it is the page's first and step `index` (0-based) showed it
/// whole already: `(as step N showed it)`, N counted from 1 as the answers number steps. One
/// line in parentheses, like [`snapshot::NO_CHANGES`], and never said of a page that changed
/// since that step.
pub(crate) fn same_as_step(index: usize) -> String {
    format!("(as step {} showed it)", index + 1)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::super::queue::Ticket;
    use super::*;
    use crate::commands::validate_steps;

    /// Runs `steps` on page `p`, which answers `answer`: the batch's final snapshot as shown.
    fn run(q: &CommandQueue, steps: &[Value], answer: Value) -> String {
        let mut steps = steps.to_vec();
        let diff_steps = validate_steps(&mut steps).unwrap();
        let Ticket { id, mut rx, .. } = q.enqueue("p", &steps, diff_steps, Duration::from_secs(30)).unwrap();
        q.take("p", None).unwrap();
        assert!(q.complete(&id, Results::from_value(answer), vec![]));
        rx.try_recv().unwrap().unwrap().snapshot
    }

    /// A batch that ends with a modal open shows the dialog whole; the page before it stays the
    /// baseline, so the batch that closes it lists only what changed behind it.
    #[test]
    fn a_modal_is_shown_whole_and_the_page_behind_it_stays_the_baseline() {
        let q = CommandQueue::default();
        let page = "main\n  list\n    listitem \"CI\"\n  button \"New key\" [ref=e1]";
        let dialog = "dialog \"New API key\"\n  textbox \"Key name\" [ref=e2]";
        let click = [json!({"command": "click", "ref": "e1"})];
        run(
            &q,
            &click,
            json!({"id": "?", "steps": [], "snapshot": page, "duration": 1}),
        );
        let answer = |snap: &str, modal: bool| json!({"id": "?", "steps": [{"index": 0, "command": "click", "result": "clicked"}], "snapshot": snap, "modal": modal, "duration": 1});
        let shown = run(&q, &click, answer(dialog, true));
        assert_eq!(shown, format!("{}\n{dialog}", snapshot::MODAL_OPEN));
        let after = "main\n  list\n    listitem \"CI\"\n    listitem \"Deploy bot\"\n  button \"New key\" [ref=e1]";
        let shown = run(&q, &click, answer(after, false));
        assert_eq!(shown, snapshot::diff(page, after), "against the page before the modal");
        assert!(!shown.contains("main"), "{shown}");
        // A batch whose last snapshot step showed the modal whole does not repeat it.
        let click_snapshot = [json!({"command": "click", "ref": "e1"}), json!({"command": "snapshot"})];
        let steps = json!([{"index": 0, "command": "click", "result": "clicked"},
            {"index": 1, "command": "snapshot", "result": dialog}]);
        let shown = run(
            &q,
            &click_snapshot,
            json!({"id": "?", "steps": steps, "snapshot": dialog, "modal": true, "duration": 1}),
        );
        assert_eq!(shown, format!("{}\n{}", snapshot::MODAL_OPEN, same_as_step(1)));
    }

    /// The case: a batch `[click, snapshot]` after a click that changed the page answered
    /// "(no changes)", the step's snapshot having become the diff's baseline.
    #[test]
    fn a_snapshot_step_inside_a_batch_never_hides_what_the_batch_changed() {
        let q = CommandQueue::default();
        let before = "list\n  listitem: checkbox \"Milk\" [ref=e1]";
        let after = "list\n  listitem: checkbox \"Milk\" [checked] [ref=e1]";
        // The page's first snapshot: whole.
        assert_eq!(
            run(
                &q,
                &[json!({"command": "snapshot"})],
                json!({"steps": [], "snapshot": before})
            ),
            before
        );
        let click_then_snapshot = [json!({"command": "click", "ref": "e1"}), json!({"command": "snapshot"})];
        let answer = json!({"steps": [
            {"index": 0, "command": "click", "result": "clicked"},
            {"index": 1, "command": "snapshot", "result": after},
        ], "snapshot": after});
        let shown = run(&q, &click_then_snapshot, answer);
        assert_ne!(shown, snapshot::NO_CHANGES);
        assert_eq!(
            shown,
            snapshot::diff(before, after),
            "from before the batch to after it"
        );
        assert!(shown.contains("[checked]"), "{shown}");
        // Nothing changed by the next such batch: that is what it says.
        let answer = json!({"steps": [
            {"index": 0, "command": "click", "result": "clicked"},
            {"index": 1, "command": "snapshot", "result": after},
        ], "snapshot": after});
        assert_eq!(run(&q, &click_then_snapshot, answer), snapshot::NO_CHANGES);
    }

    #[test]
    fn a_first_snapshot_shown_whole_by_a_step_is_named_not_repeated_nor_called_unchanged() {
        let q = CommandQueue::default();
        let page = "button \"A\" [ref=e1]";
        let answer = json!({"steps": [
            {"index": 0, "command": "click", "result": "clicked"},
            {"index": 1, "command": "snapshot", "result": page},
        ], "snapshot": page});
        let steps = [json!({"command": "click", "ref": "e1"}), json!({"command": "snapshot"})];
        assert_eq!(run(&q, &steps, answer), same_as_step(1));
        assert_eq!(same_as_step(1), "(as step 2 showed it)");
        // It changed after the step (a late render): whole, never "(no changes)".
        let q = CommandQueue::default();
        let later = "button \"A\" [ref=e1]\nbutton \"B\" [ref=e2]";
        let answer = json!({"steps": [
            {"index": 0, "command": "snapshot", "result": page},
        ], "snapshot": later});
        assert_eq!(run(&q, &[json!({"command": "snapshot"})], answer), later);
    }
}
