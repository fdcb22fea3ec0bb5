//! What the tools answer: plain text an agent reads directly, short enough to keep in context.
//! Log entries are `#seq level type text`; a batch is one line per step (`1. click button "Add"
//! [ref=e7]: clicked`), then what changed on the page, then the logs captured meanwhile.

use std::fmt::Write as _;

use serde_json::Value;

use crate::commands::{BatchResult, RunError};
use crate::protocol::{entry_type, StepResult};
use crate::snapshot;

/// Log lines a batch answer shows before pointing to `browser_logs` (a run of alike entries is one).
const BATCH_LOGS: usize = 20;

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// One entry: `#12 4.2s ago [b7] error network GET /api/fail → 500 Internal Server Error (3 ms)`:
/// when, from its `ago` and its place among the agent's batches (`[b7]` during it, `[after b7]`,
/// `[before b1]`: before the first), each only when the entry carries it.
///
/// (The tests' name for [`entry_with`] showing what was sent.)
#[cfg(test)]
fn entry(out: &mut String, e: &Value) {
    entry_with(out, e, true, None);
}

/// The entries in order; a request an agent's batch sent again to the same URL (a list saved after
/// each change) shows what it sent on its last line only.
fn entries<'a>(out: &mut String, list: impl Iterator<Item = &'a Value> + Clone) {
    entries_up_to(out, list, usize::MAX);
}

/// [`entries`], in at most `lines` lines, a run of alike entries on one line (see [`alike`]):
/// `#9 error error ResizeObserver loop completed… · ×8 to #16`. Returns how many entries the
/// lines show and the seq of the last.
fn entries_up_to<'a>(out: &mut String, list: impl Iterator<Item = &'a Value> + Clone, lines: usize) -> (usize, u64) {
    let seq_of = |e: &Value| e.get("seq").and_then(Value::as_u64).unwrap_or(0);
    let key = |e: &Value| (str_of(e, "method").to_owned(), str_of(e, "url").to_owned());
    let mut last: std::collections::HashMap<(String, String), u64> = std::collections::HashMap::new();
    for e in list.clone().filter(|e| !str_of(e, "reqBody").is_empty()) {
        last.insert(key(e), seq_of(e));
    }
    // Runs of alike entries: the first of each, how many, the seq of the last.
    let mut runs: Vec<(&Value, usize, u64)> = Vec::new();
    for e in list {
        match runs.last_mut() {
            Some(run) if alike(run.0, e) => {
                run.1 += 1;
                run.2 = seq_of(e);
            }
            _ => runs.push((e, 1, seq_of(e))),
        }
    }
    let (mut shown, mut last_seq) = (0, 0);
    for &(e, count, to) in runs.iter().take(lines) {
        let sent = last.get(&key(e)).is_none_or(|&s| s == seq_of(e));
        entry_with(out, e, sent, (count > 1).then_some((count, to)));
        shown += count;
        last_seq = to;
    }
    (shown, last_seq)
}

/// Whether `b` repeats `a` (same level, type and text; not a request, whose lines differ in what
/// they carry): a page that throws the same error on every frame (`ResizeObserver loop completed
/// with undelivered notifications`) or logs one line in a loop.
fn alike(a: &Value, b: &Value) -> bool {
    let text = str_of(a, "text");
    !text.is_empty()
        && str_of(a, "type") != entry_type::NETWORK
        && str_of(a, "type") == str_of(b, "type")
        && str_of(a, "level") == str_of(b, "level")
        && str_of(b, "text") == text
}

/// One entry (as above); `sent`: whether a request's line shows what was sent; `repeated`: how
/// many alike entries the line stands for, and the last one's seq.
fn entry_with(out: &mut String, e: &Value, sent: bool, repeated: Option<(usize, u64)>) {
    use crate::commands::history::ago_text;
    use crate::protocol::field;
    let seq = e.get("seq").and_then(Value::as_u64).unwrap_or(0);
    let _ = write!(out, "#{seq} ");
    if let Some(ago) = e.get(field::AGO).and_then(Value::as_u64) {
        let _ = write!(out, "{} ago ", ago_text(ago));
    }
    for (key, word) in [(field::BATCH, ""), (field::AFTER, "after "), (field::BEFORE, "before ")] {
        if let Some(id) = e.get(key).and_then(Value::as_str) {
            let _ = write!(out, "[{word}{id}] ");
        }
    }
    let _ = write!(
        out,
        "{} {} {}",
        str_of(e, "level"),
        str_of(e, "type"),
        str_of(e, "text")
    );
    if str_of(e, "type") == entry_type::NETWORK {
        // What an agent's batch sent (the page keeps it only then), and a failed answer.
        if sent {
            let (req, res) = (str_of(e, "reqBody"), str_of(e, "resBody"));
            shown_body(out, " · sent: ", req);
            // The answer to a change the batch made; an echo of what was sent is said in a word.
            if !res.is_empty() && squashed(res) == squashed(req) {
                out.push_str(" · got: the same");
            } else {
                shown_body(out, " · got: ", res);
            }
        }
        shown_body(out, " · body: ", str_of(e, "body"));
    }
    if let Some((count, to)) = repeated {
        let _ = write!(out, " · ×{count} to #{to}");
    }
    server_error_parts(out, e);
}

/// `s` with its whitespace removed (a JSON echo pretty-printed is the same answer).
fn squashed(s: &str) -> String {
    s.split_whitespace().collect()
}

/// Characters of a request's or a failed answer's body shown on its entry's line (the entry holds
/// 300 and 1,000; the `network` step gives the whole).
const BODY_SHOWN: usize = 200;

/// A body on its line, whitespace collapsed, cut: ` · body: {"error":"out of stock"}`. (The page
/// keeps an answer's body on its entry only when the answer is an error, and a request's only
/// when an agent's batch sent it.)
fn shown_body(out: &mut String, label: &str, body: &str) {
    if body.trim().is_empty() {
        return;
    }
    out.push_str(label);
    let mut shown = 0;
    for (i, word) in body.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        for c in word.chars() {
            if shown == BODY_SHOWN {
                out.push('…');
                return;
            }
            out.push(c);
            shown += 1;
        }
    }
}

/// Frames shown under a server error in a text answer; the rest are counted (`GET /console` has them all).
const STACK_LINES_SHOWN: usize = 12;

/// What completes a server entry's line: the 5xx and the error that caused it name each other
/// (` (caused #41)`, ` (answered #40)`), then the error's frames, indented, ending the line.
fn server_error_parts(out: &mut String, e: &Value) {
    for (key, word) in [("causeSeq", "caused by"), ("answerSeq", "answered")] {
        if let Some(seq) = e.get(key).and_then(Value::as_u64) {
            let _ = write!(out, " ({word} #{seq})");
        }
    }
    out.push('\n');
    let stack = str_of(e, "stack");
    let lines: Vec<&str> = stack.lines().collect();
    for line in lines.iter().take(STACK_LINES_SHOWN) {
        let _ = writeln!(out, "    {}", line.trim_start());
    }
    if lines.len() > STACK_LINES_SHOWN {
        let _ = writeln!(out, "    … {} more lines", lines.len() - STACK_LINES_SHOWN);
    }
}

/// `browser_logs`: a header (how many, the last seq, the page), then one line per entry.
///
/// The header: `2 entries (lastSeq 17) · page http://127.0.0.1:3000/ (client c1, alive)`.
/// `app`: where the app is served, for the line that says to open it.
pub(crate) fn logs(console: &Value, app: Option<&str>) -> String {
    let entries = console["logs"].as_array().map_or(&[][..], Vec::as_slice);
    let mut out = String::new();
    let last = console["lastSeq"].as_u64().unwrap_or(0);
    let noun = if entries.len() == 1 { "entry" } else { "entries" };
    let _ = write!(out, "{} {noun} (lastSeq {last}", entries.len());
    match console["evicted"].as_u64() {
        Some(n) if n > 0 => {
            let _ = write!(out, ", {n} older evicted");
        }
        _ => {}
    }
    out.push(')');
    match console["clientId"].as_str() {
        Some(client) => {
            let alive = if console["clientAlive"] == true {
                "alive"
            } else {
                "not alive"
            };
            let _ = write!(out, " · page {} (client {client}, {alive})", str_of(console, "page"));
        }
        None => {
            let _ = write!(
                out,
                " · no page has connected yet: open {} in a browser",
                app.unwrap_or("the app")
            );
        }
    }
    out.push('\n');
    self::entries(&mut out, entries.iter());
    out
}

/// After an empty `type=server` answer: what would have been there, so "0 entries" is not read as
/// "the server is not watched" or as "the failing request was fine".
pub(crate) const NO_SERVER_ENTRIES: &str = "Server entries are the dev server's 5xx answers and, where the host reads it \
(browser-agent --run, server_log_file, TracingLayer), its error output; a 4xx answer is a network entry of the page that sent it.\n";

/// `browser_pages`: one line per page, `c1 alive visible focused "Title" http://… (default target)`;
/// without one, where to open the app (`app`, when the host knows it).
pub(crate) fn pages(page: &Value, app: Option<&str>) -> String {
    let pages = page["pages"].as_array().map_or(&[][..], Vec::as_slice);
    if pages.is_empty() {
        return format!(
            "No page is connected: open {} in a browser (every page it serves gets the client).\n",
            app.unwrap_or("the app")
        );
    }
    // Pages that are gone (closed, or loaded again: each load is a page of its own) are counted
    // on one line, the latest named: a dev server's every reload would otherwise add a line.
    let (gone, open): (Vec<&Value>, Vec<&Value>) = pages.iter().partition(|p| p["gone"] == true);
    let mut out = format!("{} page(s)\n", open.len());
    for p in open {
        let mut line = str_of(p, "clientId").to_owned();
        let state = if p["alive"] == true { "alive" } else { "not alive" };
        let _ = write!(line, " {state}");
        for flag in ["visible", "focused"] {
            if p[flag] == true {
                let _ = write!(line, " {flag}");
            }
        }
        if p["inIframe"] == true {
            line.push_str(" iframe");
        }
        let _ = write!(line, " {:?} {}", str_of(p, "title"), str_of(p, "page"));
        if let Some(opener) = p["opener"].as_str().filter(|o| !o.is_empty()) {
            let _ = write!(line, " (popup of {opener})");
        }
        if p["target"] == true {
            line.push_str(" (default target)");
        }
        if p["currentRev"] == false {
            line.push_str(" (old client: reload the page)");
        }
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(latest) = gone.last() {
        let _ = writeln!(
            out,
            "{} gone (closed, or loaded again as a new page), the latest {} {}",
            gone.len(),
            str_of(latest, "clientId"),
            str_of(latest, "page")
        );
    }
    out
}

/// `browser_snapshot`: which page, then the snapshot.
pub(crate) fn snapshot(client: &str, text: &str) -> String {
    format!("page {client}:\n{}\n", text.trim_end())
}

/// One step: `1. click button "Add" [ref=e7]: clicked`, a multi-line result under it.
fn step(out: &mut String, s: &crate::protocol::StepResult) {
    let n = s.index.map_or(String::from("-"), |i| (i + 1).to_string());
    let _ = write!(out, "{n}. {}", s.command);
    if let Some(matched) = s.other.get("matched").and_then(Value::as_str) {
        let _ = write!(out, " {matched}");
    }
    let said = match (&s.error, &s.result) {
        (Some(error), _) => format!("FAILED: {error}"),
        (None, Some(Value::String(text))) => text.clone(),
        // A script's value is data: nothing returned is said as no value (the page leaves the
        // result out), never a word that reads like one.
        (None, None) if s.command == "evaluate" => "no value (the script returned undefined)".into(),
        (None, Some(Value::Null)) if s.command == "evaluate" => "null".into(),
        (None, Some(Value::Null) | None) => "ok".into(),
        (None, Some(shot @ Value::Object(_))) if s.command == "screenshot" => screenshot(shot),
        (None, Some(other)) => other.to_string(),
    };
    if said.contains('\n') {
        let _ = writeln!(out, ":\n{}", said.trim_end());
    } else {
        let _ = writeln!(out, ": {said}");
    }
}

/// A screenshot step's result: `1280x720 jpeg, 84213 B, foreignobject, 212 ms (image below) URL`.
fn screenshot(shot: &Value) -> String {
    let n = |k: &str| shot.get(k).and_then(Value::as_u64).unwrap_or(0);
    let mut line = format!(
        "{}x{} {}, {} B, {}, {} ms (image below) {}",
        n("width"),
        n("height"),
        str_of(shot, "format"),
        n("bytes"),
        str_of(shot, "method"),
        n("ms"),
        str_of(shot, "url")
    );
    if let Some(Value::Array(warnings)) = shot.get("warnings") {
        for w in warnings.iter().filter_map(Value::as_str) {
            let _ = write!(line, "; {w}");
        }
    }
    line
}

/// `browser_run`: the steps, what changed (or the snapshot, the first time), the logs the page
/// captured meanwhile (at most 20; its `interaction` entries left out, as the steps say them).
pub(crate) fn batch(result: &BatchResult) -> String {
    let mut out = format!(
        "page {}: {} step(s) in {} ms\n",
        result.client_id,
        result.steps.len(),
        result.duration
    );
    for s in &result.steps {
        step(&mut out, s);
    }
    if let Some(hint) = opened_then_failed(&result.steps, &result.client_id) {
        let _ = writeln!(out, "{hint}");
    }
    // Each native dialog answered, on its own line (its log entry is left out of `logs:` below).
    for d in &result.dialogs {
        let _ = writeln!(out, "dialog: {}", d.text);
    }
    out.push_str(&batch_tail(result));
    out
}

/// `now at <url> (redirected from <path>)` when the batch's last navigation (a step's `navigating
/// to …`, followed by nothing but steps that only look) ended on another URL than it named, as a
/// form's POST answered with a redirect does; else `None`. A fragment is no other page.
pub(crate) fn arrived_elsewhere(steps: &[StepResult], now_at: &str) -> Option<String> {
    use crate::protocol::NAVIGATING_TO as NAVIGATING;
    const LOOKS: [&str; 3] = ["snapshot", "wait", "screenshot"];
    let last = steps.iter().rposition(|s| !LOOKS.contains(&s.command.as_str()))?;
    let result = steps[last].result_str()?;
    let named = result[result.rfind(NAVIGATING)? + NAVIGATING.len()..]
        .split("; ")
        .next()
        .unwrap_or_default()
        .trim();
    let page = |u: &str| u.split('#').next().unwrap_or_default().to_owned();
    if named.is_empty() || page(named) == page(now_at) {
        return None;
    }
    // The path alone when the origin is the same (it mostly is).
    let origin_end = |u: &str| u.find("://").and_then(|i| u[i + 3..].find('/').map(|j| i + 3 + j));
    let from = match (origin_end(named), origin_end(now_at)) {
        (Some(a), Some(b)) if named[..a] == now_at[..b] => &named[a..],
        _ => named,
    };
    Some(format!("now at {now_at} (redirected from {from})"))
}

/// When a step opened a page (a link with `target=_blank`, `window.open`), a later step of the
/// batch failed, and the batch did not go on in that page (it does when it can): that the later
/// steps ran on this page, and how to reach the new one.
fn opened_then_failed(steps: &[StepResult], here: &str) -> Option<String> {
    use crate::protocol::OPENED_PAGE as OPENED;
    let failed = steps.iter().position(|s| s.error.is_some())?;
    let (n, id) = steps[..failed].iter().enumerate().rev().find_map(|(i, s)| {
        let r = s.result_str()?;
        let id = r[r.find(OPENED)? + OPENED.len()..].split(':').next()?;
        Some((i + 1, id))
    })?;
    if id == here {
        return None;
    }
    Some(format!(
        "(step {n} opened page {id}; the steps after it ran here, on {here}: send them to the new page with \"client\": \"{id}\")"
    ))
}

/// What a batch changed and logged: `changes:` (or `page: (no changes)`) and `logs:`, as
/// `browser_run` ends; a page tool's call ends so too.
pub(crate) fn batch_tail(result: &BatchResult) -> String {
    let mut out = String::new();
    let shown = result.snapshot.trim_end();
    // "(no changes)" since before the batch, or "(as step N showed it)": the page's first
    // snapshot, which that step of this answer shows whole.
    let named = shown.starts_with("(as step ") && shown.ends_with(" showed it)") && !shown.contains('\n');
    if shown == snapshot::NO_CHANGES || named {
        let _ = writeln!(out, "page: {shown}");
    } else if !shown.is_empty() {
        let label = if shown == result.full_snapshot.trim_end() {
            "snapshot"
        } else {
            "changes"
        };
        let _ = writeln!(out, "{label}:\n{shown}");
    }
    // The page's `interaction` entries echo the batch's own clicks, which the steps already say.
    let logs: Vec<&Value> = result
        .logs
        .iter()
        .filter(|e| str_of(e, "type") != entry_type::INTERACTION && str_of(e, "type") != entry_type::DIALOG)
        .collect();
    if !logs.is_empty() {
        out.push_str("logs:\n");
        let (shown, last) = self::entries_up_to(&mut out, logs.iter().copied(), BATCH_LOGS);
        if logs.len() > shown {
            let _ = writeln!(out, "… {} more: browser_logs afterSeq={last}", logs.len() - shown);
        }
    }
    out
}

/// A batch that did not run, or did not finish: why, and the steps that ran.
pub(crate) fn run_error(err: &RunError) -> String {
    let mut out = format!("{err}\n");
    for s in err.steps() {
        step(&mut out, s);
    }
    out
}

/// `browser_actions`: the page, then one line per executed step with its target's label and box.
pub(crate) fn actions(log: &Value) -> String {
    let Some(client) = log["clientId"].as_str() else {
        return "No page is connected, so there is no action log.\n".into();
    };
    let actions = log["actions"].as_array().map_or(&[][..], Vec::as_slice);
    let mut out = format!(
        "{} action(s) on page {client} ({})\n",
        actions.len(),
        str_of(log, "page")
    );
    for a in actions {
        let _ = write!(out, "{}", str_of(a, "command"));
        let label = a["target"]["label"].as_str().or_else(|| a["matched"].as_str());
        if let Some(label) = label {
            let _ = write!(out, " {label}");
        }
        let b = &a["target"]["box"];
        if b.is_object() {
            let _ = write!(out, " box {},{} {}x{}", b["x"], b["y"], b["w"], b["h"]);
        }
        if let Some(at) = a["at"].as_u64() {
            let _ = write!(out, " at +{at} ms");
        }
        let v = &a["viewport"];
        if v.is_object() {
            let _ = write!(out, " viewport {}x{}", v["w"], v["h"]);
        }
        match (a["error"].as_str(), a["result"].as_str()) {
            (Some(error), _) => {
                let _ = write!(out, ": FAILED: {error}");
            }
            (None, Some(result)) if !result.contains('\n') => {
                let _ = write!(out, ": {result}");
            }
            _ => {}
        }
        out.push('\n');
    }
    out
}

/// `browser_actions` with `proof` `start` or `status`: the open session.
pub(crate) fn proof_started(s: &crate::proof::ProofStatus) -> String {
    format!(
        "Proof session {} recording since {} ({} steps, {} screenshots so far); it will be written to {}. Work in the page, then browser_actions {{\"proof\":\"stop\"}}.\n",
        s.id, s.started, s.steps, s.screenshots, s.dir
    )
}

/// A refused proof call, saying what to call instead in this tool (the HTTP texts name routes).
pub(crate) fn proof_error(e: &crate::proof::ProofError) -> String {
    use crate::proof::ProofError;
    match e {
        ProofError::Running { id, description, started } => format!(
            "a proof session is already running: {id} ({description:?}, since {started}); stop it with browser_actions {{\"proof\":\"stop\"}}, or start with \"force\": true to replace it"
        ),
        ProofError::NotRunning => {
            "no proof session is running; start one with browser_actions {\"proof\":\"start\",\"description\":\"…\"}".into()
        }
        other => other.to_string(),
    }
}

/// `browser_actions` with `proof` `stop`: what was written.
pub(crate) fn proof_stopped(r: &crate::proof::ProofReport) -> String {
    let c = &r.counts;
    format!(
        "Wrote {}: {} steps, {} screenshots, {} console errors, {} server errors.\nviewer: {}\nsummary (paste into the PR): {}\n",
        r.dir, c.steps, c.screenshots, c.console_errors, c.server_errors, r.viewer, r.summary
    )
}

/// `browser_logs` with `type: notes`: one note a line, with what it points at and its screenshot.
pub(crate) fn notes(notes: &[crate::protocol::notes::Note], last_seq: u64) -> String {
    use crate::protocol::notes::NoteKind;
    if notes.is_empty() {
        return format!(
            "No notes (lastSeq {last_seq}). The developer adds them in notes mode (Alt+Shift+N in the page, or the step {{\"command\":\"notes\",\"mode\":\"enter\"}}).\n"
        );
    }
    let mut out = format!(
        "{} note(s), lastSeq {last_seq} (afterSeq polls for newer):\n",
        notes.len()
    );
    for n in notes {
        let at = match (n.kind, n.point, n.rect) {
            (NoteKind::Pin, Some(p), _) => format!("pin at ({:.0}, {:.0})", p.x, p.y),
            (_, _, Some(r)) => format!("area ({:.0}, {:.0}) {:.0}x{:.0}", r.x, r.y, r.w, r.h),
            _ => "note".into(),
        };
        out.push_str(&format!("{} [{at}] {:?}", n.id, n.text));
        if !n.element.is_empty() {
            out.push_str(&format!(" on {}", n.element));
        }
        if !n.elements.is_empty() {
            out.push_str(&format!(" covering {}", n.elements.join(", ")));
        }
        if !n.source.is_empty() {
            out.push_str(&format!(" (source: {})", n.source));
        }
        out.push_str(&format!(" in {}", n.url));
        if let Some(s) = &n.screenshot {
            out.push_str(&format!(" (screenshot {})", s.url));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A change's answer is on its line; an echo of what was sent is said in a word.
    #[test]
    fn a_changes_answer_is_shown_or_called_the_same() {
        let mut out = String::new();
        let e = json!({"seq": 4, "type": "network", "level": "info", "method": "POST", "url": "/api/keys",
            "text": "POST /api/keys → 201 Created (2 ms)", "reqBody": "{\"name\":\"CI\"}", "resBody": "{\"id\":\"k9\"}"});
        super::entry(&mut out, &e);
        assert!(
            out.trim_end()
                .ends_with(" · sent: {\"name\":\"CI\"} · got: {\"id\":\"k9\"}"),
            "{out}"
        );
        let mut out = String::new();
        let e = json!({"seq": 5, "type": "network", "level": "info", "method": "PUT", "url": "/api/p",
            "text": "PUT /api/p → 200 OK (2 ms)", "reqBody": "{\"a\": 1}", "resBody": "{\"a\":1}"});
        super::entry(&mut out, &e);
        assert!(out.trim_end().ends_with(" · got: the same"), "{out}");
    }

    /// A run of alike entries is one line that says how many and the last seq; a request is never
    /// folded, and the batch's line limit counts lines.
    #[test]
    fn alike_entries_are_one_line() {
        let noise = |seq: u64| {
            json!({"seq": seq, "type": "error", "level": "error",
                "text": "ResizeObserver loop completed with undelivered notifications."})
        };
        let get = |seq: u64| {
            json!({"seq": seq, "type": "network", "level": "info", "method": "GET", "url": "/api/x",
                "text": "GET /api/x → 200 OK (3 ms)"})
        };
        let list = [noise(9), noise(10), noise(11), get(12), get(13), noise(14)];
        let mut out = String::new();
        super::entries(&mut out, list.iter());
        assert_eq!(
            out,
            "#9 error error ResizeObserver loop completed with undelivered notifications. · ×3 to #11\n\
             #12 info network GET /api/x → 200 OK (3 ms)\n\
             #13 info network GET /api/x → 200 OK (3 ms)\n\
             #14 error error ResizeObserver loop completed with undelivered notifications.\n"
        );
        let mut out = String::new();
        assert_eq!(super::entries_up_to(&mut out, list.iter(), 2), (4, 12));
        assert_eq!(out.lines().count(), 2, "{out}");
    }

    /// A request sent again to the same URL shows what it sent on its last line only.
    #[test]
    fn a_request_sent_again_shows_its_body_once() {
        let mut out = String::new();
        let put = |seq: u64, body: &str| {
            json!({"seq": seq, "type": "network", "level": "info", "method": "PUT", "url": "/api/todos",
                "text": "PUT /api/todos → 200 OK (3 ms)", "reqBody": body})
        };
        let list = [put(1, "[1]"), put(2, "[1,2]"), put(3, "[1,2,3]")];
        super::entries(&mut out, list.iter());
        assert_eq!(out.matches(" · sent: ").count(), 1, "{out}");
        assert!(out.contains(" · sent: [1,2,3]\n"), "{out}");
    }

    /// A server error reads as one entry with its frames under it, naming the 5xx it caused.
    #[test]
    fn a_server_error_shows_its_frames_and_its_5xx() {
        let mut out = String::new();
        let frames: Vec<String> = (1..=14)
            .map(|i| format!("    at f{i} (/app/server.js:{i}:1)"))
            .collect();
        super::entry(
            &mut out,
            &json!({"seq": 41, "type": "server", "level": "error", "text": "TypeError: x is not a function",
                "stack": frames.join("\n"), "answer": "GET /api → 500 Internal Server Error (3 ms)", "answerSeq": 40}),
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "#41 error server TypeError: x is not a function (answered #40)"
        );
        assert_eq!(lines[1], "    at f1 (/app/server.js:1:1)");
        assert_eq!(lines[12], "    at f12 (/app/server.js:12:1)");
        assert_eq!(lines[13], "    … 2 more lines");
        assert_eq!(lines.len(), 14);
        let mut out = String::new();
        super::entry(
            &mut out,
            &json!({"seq": 42, "type": "server", "level": "error", "text": "GET /x → 502 Bad Gateway (9 ms)", "causeSeq": 39}),
        );
        assert_eq!(
            out,
            "#42 error server GET /x → 502 Bad Gateway (9 ms) (caused by #39)\n"
        );
    }

    #[test]
    fn a_failed_request_shows_its_body_on_its_line() {
        let mut out = String::new();
        let body = format!("{{\"error\":  \"out\n of stock\"}} {}", "x".repeat(300));
        super::entry(
            &mut out,
            &serde_json::json!({"seq": 7, "level": "error", "type": "network",
                "text": "POST /api/order → 500 Internal Server Error (3 ms)", "body": body}),
        );
        assert!(
            out.starts_with("#7 error network POST /api/order → 500 Internal Server Error (3 ms) · body: {\"error\": \"out of stock\"} xxx"),
            "{out}"
        );
        assert!(out.trim_end().ends_with('…'), "cut at 200 characters: {out}");
        let mut ok = String::new();
        super::entry(
            &mut ok,
            &serde_json::json!({"seq": 8, "level": "info", "type": "console", "text": "hi", "body": "x"}),
        );
        assert!(!ok.contains("body"), "{ok}");
    }

    #[test]
    fn pages_gone_are_one_line() {
        let page = |id: &str, gone: bool| {
            serde_json::json!({"clientId": id, "alive": !gone, "gone": gone, "visible": true, "focused": true,
                "title": "Trips", "page": "http://127.0.0.1:5173/"})
        };
        let list = serde_json::json!({"pages": [page("a1", true), page("b2", true), page("c3", false)]});
        assert_eq!(
            super::pages(&list, None),
            "1 page(s)\nc3 alive visible focused \"Trips\" http://127.0.0.1:5173/\n\
             2 gone (closed, or loaded again as a new page), the latest b2 http://127.0.0.1:5173/\n"
        );
    }
}
