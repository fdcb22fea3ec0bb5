//! The session folder: every file is written into a temporary folder beside it, which is renamed
//! to the session's name only when all of them are there, so a folder under its final name is
//! always complete.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{rfc3339, Counts, ProofError, ProofReport, Recorded, Session};
use crate::logs::LogEntry;
use crate::protocol::{entry_type, Level};

/// The viewer: one self-contained page; `__PROOF_DATA__` becomes the session as JSON.
const VIEWER: &str = include_str!("viewer.html");
/// First errors of each kind listed in SUMMARY.md.
const SUMMARY_ERRORS: usize = 10;

/// `m:ss` of `ms` after the start.
fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

/// Whether an entry is a browser error (what the console badge counts).
fn browser_error(e: &LogEntry) -> bool {
    e.kind != entry_type::SERVER && e.level == Level::Error
}

/// Whether an entry is a server error.
fn server_error(e: &LogEntry) -> bool {
    e.kind == entry_type::SERVER && matches!(e.level, Level::Error | Level::Warn)
}

/// What the step did, as a reviewer reads it: `click button "Save" [ref=e3]`, `navigate /login`.
fn action(r: &Recorded) -> String {
    let arg = |k: &str| r.step.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut out = r.command.clone();
    if let Some(m) = &r.matched {
        let _ = write!(out, " {m}");
    } else if let Some((k, v)) = crate::protocol::TARGET_FIELDS.iter().find_map(|k| {
        Some((
            *k,
            arg(k).filter(|_| !matches!(r.command.as_str(), "type" | "fill") || *k != "text")?,
        ))
    }) {
        // Not resolved (the step failed): the target as the agent named it.
        let _ = write!(out, " {k}={v:?}");
    } else if let Some(url) = arg("url") {
        let _ = write!(out, " {url}");
    } else if let Some(key) = arg("key") {
        let _ = write!(out, " {key}");
    }
    if matches!(r.command.as_str(), "type" | "fill") {
        if let Some(text) = arg("text") {
            let _ = write!(out, " {text:?}");
        }
    }
    out
}

/// One result as a line: `ok`, the first line of a text result, or `FAILED: why`.
fn outcome(r: &Recorded) -> String {
    if let Some(e) = &r.error {
        return format!("FAILED: {e}");
    }
    match &r.result {
        Some(Value::String(s)) if r.command != "snapshot" => {
            s.lines().next().unwrap_or("ok").chars().take(120).collect()
        }
        Some(Value::Object(o)) if r.command == "screenshot" => {
            format!(
                "{}x{}",
                o.get("width").unwrap_or(&Value::Null),
                o.get("height").unwrap_or(&Value::Null)
            )
        }
        _ => "ok".into(),
    }
}

/// A log line: `+0:04 12:00:03.120 [error] text`.
fn log_line(e: &LogEntry, started: u64) -> String {
    let at = clock(e.t.saturating_sub(started));
    let wall = rfc3339(e.t);
    let kind = if e.kind == entry_type::CONSOLE || e.kind == entry_type::SERVER || e.kind == e.level.as_str() {
        e.level.as_str().to_owned()
    } else {
        format!("{} {}", e.kind, e.level.as_str())
    };
    format!("+{at} {wall} [{kind}] {}", e.text.replace('\n', " "))
}

/// What a server error is paired with, for the summary's line: ` (answered GET /x → 500 …)` for an
/// error that caused a 5xx, ` (caused by: TypeError: …)` for a 5xx whose error is known; else
/// nothing. The pair is one error in the counts ([`LogEntry::counted_with_its_cause`]).
fn paired(e: &LogEntry, logs: &[std::sync::Arc<LogEntry>]) -> String {
    if let Some(cause) = e.field_str("cause") {
        return format!(" (caused by: {cause})");
    }
    if let Some(answer) = e.field_str("answer") {
        return format!(" (answered {answer})");
    }
    let answer = logs
        .iter()
        .find(|o| o.fields.get("causeSeq").and_then(Value::as_u64) == Some(e.seq) && e.seq != 0);
    answer.map_or_else(String::new, |a| format!(" (answered {})", a.text))
}

/// Writes the session folder and says what is in it.
pub(crate) fn write(session: &Session, prefix: &str) -> Result<ProofReport, ProofError> {
    let unwritable = |e: std::io::Error| ProofError::Unwritable {
        dir: session.dir.display().to_string(),
        why: e.to_string(),
    };
    let parent = session.dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = session
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| session.id.clone());
    let tmp = parent.join(format!(".{name}.tmp-{}", crate::util::random_hex(4)));
    std::fs::create_dir_all(&tmp).map_err(unwritable)?;
    let written = fill(session, &tmp, prefix);
    let report = match written {
        Ok(counts) => counts,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(unwritable(e));
        }
    };
    // A folder of that name already there (a second session in the same second): a suffix.
    let dir = free_dir(&session.dir);
    if let Err(e) = std::fs::rename(&tmp, &dir) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(unwritable(e));
    }
    let shown = |f: &str| dir.join(f).display().to_string();
    Ok(ProofReport {
        id: session.id.clone(),
        dir: dir.display().to_string(),
        viewer: shown("viewer.html"),
        summary: shown("SUMMARY.md"),
        counts: report,
    })
}

/// Writes every file into `dir`; the counts.
fn fill(s: &Session, dir: &Path, prefix: &str) -> std::io::Result<Counts> {
    let ended = crate::util::now_ms().max(s.started);
    let mut files: Vec<Option<String>> = Vec::with_capacity(s.steps.len());
    let mut shots = 0;
    for (i, r) in s.steps.iter().enumerate() {
        files.push(match &r.shot {
            Some((format, bytes)) => {
                shots += 1;
                let file = format!("step-{:02}.{}", i + 1, format.extension());
                std::fs::write(dir.join(&file), bytes)?;
                Some(file)
            }
            None => None,
        });
    }
    let console: Vec<&LogEntry> = s
        .logs
        .iter()
        .map(|e| &**e)
        .filter(|e| e.kind != entry_type::SERVER)
        .collect();
    let server: Vec<&LogEntry> = s
        .logs
        .iter()
        .map(|e| &**e)
        .filter(|e| e.kind == entry_type::SERVER)
        .collect();
    let console_errors: Vec<&LogEntry> = console.iter().copied().filter(|e| browser_error(e)).collect();
    // Counts count errors: a stack trace is one entry already, and a 5xx paired with the error
    // that caused it is that error's (listed with it).
    let server_errors: Vec<&LogEntry> = server
        .iter()
        .copied()
        .filter(|e| server_error(e) && !e.counted_with_its_cause(&server))
        .collect();
    let lines = |entries: &[&LogEntry]| {
        let mut out = String::new();
        for e in entries {
            out.push_str(&log_line(e, s.started));
            out.push('\n');
            // An error's frames, under it: where it happened, to file:line.
            for frame in e.field_str("stack").unwrap_or("").lines() {
                out.push_str("    ");
                out.push_str(frame.trim_start());
                out.push('\n');
            }
        }
        out
    };
    std::fs::write(dir.join("console.log"), lines(&console))?;
    std::fs::write(dir.join("server.log"), lines(&server))?;

    // session-log.json: ProofShot's entries, plus ours.
    let mut log = Vec::with_capacity(s.steps.len());
    let mut prev = s.started;
    for (i, r) in s.steps.iter().enumerate() {
        let errors: Vec<String> = s
            .logs
            .iter()
            .filter(|e| e.t > prev && e.t <= r.t.max(prev) && (browser_error(e) || server_error(e)))
            .filter(|e| !e.counted_with_its_cause(&server))
            .map(|e| log_line(e, s.started))
            .collect();
        prev = r.t.max(prev);
        let mut entry = json!({
            "action": action(r),
            "relativeTimeSec": (r.t.saturating_sub(s.started) as f64 / 100.0).round() / 10.0,
            "timestamp": rfc3339(r.t),
            "step": i + 1,
            "command": r.command,
        });
        if let (Some(target), Some(viewport)) = (&r.target, &r.viewport) {
            let b = &target["box"];
            entry["element"] = json!({
                "label": target.get("label").cloned().unwrap_or(Value::Null),
                "bbox": {"x": b["x"], "y": b["y"], "width": b["w"], "height": b["h"]},
                "viewport": {"width": viewport["w"], "height": viewport["h"]},
            });
        } else if let Some(viewport) = &r.viewport {
            entry["viewport"] = json!({"width": viewport["w"], "height": viewport["h"]});
        }
        match &r.error {
            Some(e) => entry["error"] = e.clone().into(),
            None => entry["result"] = outcome(r).into(),
        }
        if let Some(f) = &files[i] {
            entry["screenshot"] = f.clone().into();
        }
        if let Some(why) = &r.shot_error {
            entry["screenshotError"] = why.clone().into();
        }
        if !errors.is_empty() {
            entry["errors"] = errors.into();
        }
        log.push(entry);
    }
    let mut json = serde_json::to_string_pretty(&log).expect("serializes");
    json.push('\n');
    std::fs::write(dir.join("session-log.json"), &json)?;

    let counts = Counts {
        steps: s.steps.len() + s.dropped_steps,
        screenshots: shots,
        console_errors: console_errors.len(),
        server_errors: server_errors.len(),
        faults: s.faults.len() + usize::from(s.dropped_steps > 0),
    };
    let mut faults = s.faults.clone();
    if s.dropped_steps > 0 {
        faults.push(format!(
            "{} steps past the first {} were counted, not recorded",
            s.dropped_steps,
            super::MAX_RECORDED_STEPS
        ));
    }
    let summary = summary(s, ended, &counts, &files, &console_errors, &server_errors, &faults);
    std::fs::write(dir.join("SUMMARY.md"), summary)?;

    let data = json!({
        "description": s.description,
        "started": rfc3339(s.started),
        "durationMs": ended - s.started,
        "steps": log,
        "console": console.iter().map(|e| json!({"at": e.t.saturating_sub(s.started), "line": log_line(e, s.started), "error": browser_error(e)})).collect::<Vec<_>>(),
        "server": server.iter().map(|e| json!({"at": e.t.saturating_sub(s.started), "line": log_line(e, s.started), "error": server_error(e)})).collect::<Vec<_>>(),
        "counts": counts,
        "faults": faults,
        "prefix": prefix,
    });
    // Inside a <script>: no `</` may end it early.
    let embedded = data.to_string().replace("</", "<\\/");
    std::fs::write(dir.join("viewer.html"), VIEWER.replace("__PROOF_DATA__", &embedded))?;
    Ok(counts)
}

/// `dir`, or the first of `dir-2`, `dir-3`, … that does not exist yet.
pub(crate) fn free_dir(dir: &Path) -> PathBuf {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return dir.to_path_buf();
    };
    let name = name.to_string_lossy();
    let mut free = dir.to_path_buf();
    let mut n = 2;
    while free.exists() {
        free = parent.join(format!("{name}-{n}"));
        n += 1;
    }
    free
}

/// SUMMARY.md: what a PR description needs.
pub(crate) fn summary(
    s: &Session,
    ended: u64,
    counts: &Counts,
    files: &[Option<String>],
    console_errors: &[&LogEntry],
    server_errors: &[&LogEntry],
    faults: &[String],
) -> String {
    let badge = |n: usize| {
        if n == 0 {
            "clean".to_owned()
        } else {
            format!("{n} error(s)")
        }
    };
    // The agent's text, as Markdown that shows it as written: one line (a line break would start
    // a heading or a list of its own), and a `<` that no PR renders as a tag (GitHub drops tags).
    let plain = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ").replace('<', "\\<");
    let title = if s.description.trim().is_empty() {
        "browser session".to_owned()
    } else {
        plain(&s.description)
    };
    let mut out = format!("# Proof: {title}\n\n");
    let _ = writeln!(
        out,
        "{} · {} s · {} steps · {} screenshots · console: {} · server: {}\n",
        rfc3339(s.started),
        (ended - s.started).div_ceil(1000),
        counts.steps,
        counts.screenshots,
        badge(counts.console_errors),
        badge(counts.server_errors)
    );
    out.push_str("Open `viewer.html` (in this folder) in a browser for the step-by-step timeline with each screenshot, the element acted on, and the console and server logs.\n\n");
    out.push_str("## Steps\n\n| # | time | action | result | screenshot |\n|---|---|---|---|---|\n");
    let cell = |t: &str| plain(t).replace('|', "\\|");
    for (i, r) in s.steps.iter().enumerate() {
        let shot = files[i].as_ref().map_or(String::new(), |f| format!("[{f}]({f})"));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            i + 1,
            clock(r.t.saturating_sub(s.started)),
            cell(&action(r)),
            cell(&outcome(r)),
            shot
        );
    }
    if s.steps.is_empty() {
        out.push_str("| – | – | no batch ran during the session | – | – |\n");
    }
    let pictures: Vec<(usize, &String)> = files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((i, f.as_ref()?)))
        .collect();
    if !pictures.is_empty() {
        out.push_str("\n## Screenshots\n\n");
        for (i, f) in pictures {
            let _ = writeln!(
                out,
                "**Step {}: {}**\n\n![step {}]({f})\n",
                i + 1,
                cell(&action(&s.steps[i])),
                i + 1
            );
        }
    }
    for (title, errors) in [("Console errors", console_errors), ("Server errors", server_errors)] {
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        let _ = writeln!(out, "## {title} ({})\n", errors.len());
        if errors.is_empty() {
            out.push_str("None.\n");
            continue;
        }
        out.push_str("```text\n");
        for e in errors.iter().take(SUMMARY_ERRORS) {
            let _ = writeln!(out, "{}{}", log_line(e, s.started), paired(e, &s.logs));
        }
        out.push_str("```\n");
        if errors.len() > SUMMARY_ERRORS {
            let _ = writeln!(
                out,
                "\n… and {} more (see the logs in `viewer.html`).",
                errors.len() - SUMMARY_ERRORS
            );
        }
    }
    if !faults.is_empty() {
        out.push_str("\n## What the recording missed\n\n");
        for f in faults {
            let _ = writeln!(out, "- {f}");
        }
    }
    out
}

/// The folder's steps and screenshots, for [`super::compare`].
pub(crate) fn read_steps(dir: &Path) -> Option<Vec<(usize, Option<PathBuf>)>> {
    let text = std::fs::read_to_string(dir.join("session-log.json")).ok()?;
    let log: Vec<Value> = serde_json::from_str(&text).ok()?;
    Some(
        log.iter()
            .enumerate()
            .map(|(i, e)| (i + 1, e.get("screenshot").and_then(Value::as_str).map(|f| dir.join(f))))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bytes::Bytes;
    use serde_json::json;

    use super::*;
    use crate::proof::ShotMode;
    use crate::protocol::screenshot::Format;

    const T0: u64 = 1_764_590_400_000; // 2025-12-01T12:00:00Z

    fn step(index: usize, command: &str, at: u64, step: Value) -> Recorded {
        Recorded {
            index,
            command: command.into(),
            step,
            t: T0 + at,
            result: Some(json!("ok")),
            error: None,
            matched: None,
            target: None,
            viewport: Some(json!({"w": 1280, "h": 720})),
            shot: None,
            shot_error: None,
        }
    }

    fn session() -> Session {
        let mut click = step(1, "click", 2_400, json!({"command": "click", "text": "Sign in"}));
        click.matched = Some("button \"Sign in\" [ref=e7]".into());
        click.target = Some(json!({"label": "button \"Sign in\"", "box": {"x": 40, "y": 200, "w": 90, "h": 32}}));
        click.shot = Some((Format::Png, Bytes::from_static(b"\x89PNG\r\n\x1a\n")));
        let mut fill = step(
            0,
            "fill",
            1_000,
            json!({"command": "fill", "label": "Email", "text": "ada@example.com"}),
        );
        fill.matched = Some("textbox \"Email\" [ref=e3]".into());
        fill.shot = Some((Format::Png, Bytes::from_static(b"\x89PNG\r\n\x1a\n")));
        let mut broken = step(2, "click", 65_000, json!({"command": "click", "text": "Pay"}));
        broken.result = None;
        broken.error = Some("No button \"Pay\" found. Visible buttons: \"Sign out\"".into());
        broken.shot_error = Some("the page left".into());
        let entry = |kind: &str, level, text: &str, at| Arc::new(LogEntry::new(kind, level, text, T0 + at));
        Session {
            id: "p1".into(),
            description: "Verify the login flow".into(),
            dir: PathBuf::from("proof/x"),
            mode: ShotMode::Actions,
            started: T0,
            steps: vec![fill, click, broken],
            dropped_steps: 0,
            faults: vec!["step 3: the screenshot after it failed: the page left".into()],
            logs: vec![
                entry("console", Level::Log, "signing in", 1_500),
                entry("error", Level::Error, "TypeError: user is undefined", 2_000),
                entry(
                    "server",
                    Level::Error,
                    "GET /api/session → 500 Internal Server Error (3 ms)",
                    2_100,
                ),
            ],
            last_seq: 0,
        }
    }

    #[test]
    fn summary_md_is_golden() {
        let s = session();
        let files = vec![Some("step-01.png".to_owned()), Some("step-02.png".to_owned()), None];
        let console: Vec<&LogEntry> = s.logs.iter().map(|e| &**e).filter(|e| browser_error(e)).collect();
        let server: Vec<&LogEntry> = s.logs.iter().map(|e| &**e).filter(|e| server_error(e)).collect();
        let counts = Counts {
            steps: 3,
            screenshots: 2,
            console_errors: console.len(),
            server_errors: server.len(),
            faults: 1,
        };
        let md = summary(&s, T0 + 66_000, &counts, &files, &console, &server, &s.faults);
        let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/proof/SUMMARY.golden.md");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&golden, &md).unwrap();
        }
        let want = std::fs::read_to_string(&golden).expect("golden file (UPDATE_GOLDEN=1 writes it)");
        assert_eq!(
            md, want,
            "SUMMARY.md changed: review it as a change of the format (UPDATE_GOLDEN=1)"
        );
    }

    #[test]
    fn the_agents_text_cannot_make_markdown_of_its_own() {
        // QA8: a line break in the description made a heading of its own, and a `<tag>` was
        // dropped from the PR description as HTML.
        let mut s = session();
        s.description = "Verify the <sign-up> form\n# fake heading".into();
        s.steps[2].error = Some("No <button> \"Pay\"\n| found".into());
        let counts = Counts::default();
        let md = summary(&s, T0 + 1_000, &counts, &[None, None, None], &[], &[], &[]);
        assert!(
            md.starts_with("# Proof: Verify the \\<sign-up> form # fake heading\n"),
            "{md}"
        );
        assert!(md.contains("FAILED: No \\<button> \"Pay\" \\| found |"), "{md}");
    }

    #[test]
    fn the_folder_is_whole_or_absent() {
        let root = std::env::temp_dir().join(format!("ba-proof-{}", crate::util::random_hex(6)));
        let mut s = session();
        s.dir = root.join("session");
        let report = write(&s, "/__mindstudio_dev__").unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&report.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "SUMMARY.md",
                "console.log",
                "server.log",
                "session-log.json",
                "step-01.png",
                "step-02.png",
                "viewer.html"
            ]
        );
        let log: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(root.join("session/session-log.json")).unwrap()).unwrap();
        assert_eq!(log[1]["action"], "click button \"Sign in\" [ref=e7]");
        assert_eq!(log[1]["relativeTimeSec"], 2.4);
        assert_eq!(
            log[1]["element"]["bbox"],
            json!({"x": 40, "y": 200, "width": 90, "height": 32})
        );
        assert_eq!(log[1]["element"]["viewport"], json!({"width": 1280, "height": 720}));
        assert_eq!(log[1]["screenshot"], "step-02.png");
        assert_eq!(log[1]["errors"].as_array().unwrap().len(), 2, "{}", log[1]);
        assert_eq!(log[2]["screenshotError"], "the page left");
        assert_eq!(report.counts.console_errors, 1);
        assert_eq!(report.counts.server_errors, 1);
        // A second session of the same name gets a suffix; nothing is left under a temporary name.
        let again = write(&s, "/p").unwrap();
        assert!(again.dir.ends_with("session-2"), "{}", again.dir);
        let left: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::remove_dir_all(root).unwrap();
    }

    /// One error is one count: a Node stack is one entry (grouped as it arrives), and the proxy's
    /// 5xx it caused is listed with it, not counted again; its frames are in `server.log`.
    #[test]
    fn a_stack_trace_and_its_5xx_are_one_server_error() {
        let root = std::env::temp_dir().join(format!("ba-proof-{}", crate::util::random_hex(6)));
        let agent = crate::BrowserAgent::builder().enabled(true).build();
        let mut lines = agent.server_output(crate::adapter::ServerStream::Stderr);
        let started = std::time::Instant::now();
        lines.line(&agent, "TypeError: Cannot read properties of undefined (reading 'map')");
        use crate::adapter::AdapterExt;
        agent.record_response("GET", "/api/items", 500, started);
        for frame in [
            "    at listItems (/app/src/routes/items.js:14:23)",
            "    at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)",
            "    at next (/app/node_modules/express/lib/router/route.js:149:13)",
        ] {
            lines.line(&agent, frame);
        }
        lines.flush(&agent);
        let mut s = session();
        s.dir = root.join("session");
        s.logs = agent.logs().since_seq(0);
        for e in &mut s.logs {
            Arc::make_mut(e).t = T0 + 2_000;
        }
        let report = write(&s, "/p").unwrap();
        assert_eq!(report.counts.server_errors, 1);
        let md = std::fs::read_to_string(root.join("session/SUMMARY.md")).unwrap();
        assert!(md.contains("server: 1 error(s)"), "{md}");
        assert!(md.contains("## Server errors (1)"), "{md}");
        assert!(
            md.contains(
                "TypeError: Cannot read properties of undefined (reading 'map') (answered GET /api/items → 500"
            ),
            "{md}"
        );
        let log = std::fs::read_to_string(root.join("session/server.log")).unwrap();
        assert!(
            log.contains("\n    at listItems (/app/src/routes/items.js:14:23)\n"),
            "{log}"
        );
        std::fs::remove_dir_all(root).unwrap();
    }
}
