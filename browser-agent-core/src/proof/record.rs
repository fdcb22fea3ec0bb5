//! How a batch is recorded while a session is open: a `screenshot` step (marked `proof`) goes
//! after each step that needs one, the page runs the longer batch, and its answer is split again:
//! the agent gets its own steps with their own indices, the session gets the steps and their
//! pictures. A proof screenshot never fails the batch (the capture module answers its failure as a
//! result), so recording cannot change what the agent's batch does.

use serde_json::{json, Value};

use super::{Recorded, ShotMode, MAX_RECORDED_STEPS};
use crate::commands::{BatchResult, RunError};
use crate::protocol::{field, StepResult};
use crate::BrowserAgent;

/// The step field that marks a screenshot the session added.
pub(crate) const PROOF_FIELD: &str = "proof";

/// Steps that change the page: a screenshot follows each in `actions` mode.
const ACTING: &[&str] = &[
    "click", "dblclick", "type", "fill", "select", "check", "uncheck", "press", "navigate", "scroll", "back", "drag",
    "forward", "reload", "hover", "upload", "down", "up", "tool",
];

/// A batch as the page runs it: where each of its steps came from.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The steps the page gets.
    pub(crate) steps: Vec<Value>,
    /// For each of them: the agent's step it is (`Ok`), or the screenshot after one (`Err`).
    slots: Vec<Result<usize, usize>>,
    /// When the batch was queued (epoch ms).
    started: u64,
    /// The session open then: the batch is recorded there or nowhere (a session stopped or
    /// replaced while it ran must not pass its steps to the next one).
    session: String,
}

impl Plan {
    /// Where the agent's step `i` is in the page's batch.
    pub(crate) fn page_index(&self, i: usize) -> usize {
        self.slots.iter().position(|s| *s == Ok(i)).unwrap_or(i)
    }
}

impl BrowserAgent {
    /// The batch the page runs while a session is open; `None` without one.
    pub(crate) fn proof_plan(&self, steps: &[Value]) -> Option<Plan> {
        let (mode, session) = {
            let open = self.inner.proofs.open.lock();
            let s = open.as_ref()?;
            (s.mode, s.id.clone())
        };
        let mut plan = Plan {
            steps: Vec::with_capacity(steps.len() * 2),
            slots: Vec::with_capacity(steps.len() * 2),
            started: crate::util::now_ms(),
            session,
        };
        for (i, step) in steps.iter().enumerate() {
            plan.steps.push(step.clone());
            plan.slots.push(Ok(i));
            let command = step.get(field::COMMAND).and_then(Value::as_str).unwrap_or("");
            let wants = match mode {
                ShotMode::None => false,
                ShotMode::All => command != "screenshot",
                ShotMode::Actions => ACTING.contains(&command),
            };
            if wants {
                plan.steps.push(json!({"command": "screenshot", PROOF_FIELD: true}));
                plan.slots.push(Err(i));
            }
        }
        Some(plan)
    }

    /// Splits the page's answer: records the steps in the session, returns the agent's answer.
    pub(crate) fn proof_record(
        &self,
        plan: &Plan,
        asked: &[Value],
        result: Result<BatchResult, RunError>,
    ) -> Result<BatchResult, RunError> {
        match result {
            Ok(mut r) => {
                r.steps = self.split(plan, asked, std::mem::take(&mut r.steps), None);
                Ok(r)
            }
            Err(RunError::PageLeft { message, steps }) => {
                let steps = self.split(plan, asked, steps, Some(&message));
                Err(RunError::PageLeft { message, steps })
            }
            Err(other) => {
                if let Some(s) = self.inner.proofs.open.lock().as_mut().filter(|s| s.id == plan.session) {
                    s.faults.push(format!("a batch did not run: {other}"));
                }
                Err(other)
            }
        }
    }

    /// A proof goes into a PR: what the page typed into a password field (it answered
    /// `typed "•••"`) is `•••` in the step too, and URLs and texts are redacted as log entries are.
    fn keep_secrets(&self, rec: &mut Recorded) {
        let secret = format!("\"{}\"", crate::protocol::SECRET_VALUE);
        let typed_secret = matches!(rec.command.as_str(), "type" | "fill")
            && rec
                .result
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(|r| r.split_once(' ').is_some_and(|(_, rest)| rest.starts_with(&secret)));
        if typed_secret {
            if let Some(text) = rec.step.get_mut("text") {
                *text = Value::String(crate::protocol::SECRET_VALUE.to_owned());
            }
        }
        let redaction = &self.inner.config.redaction;
        redaction.json(&mut rec.step);
        if let Some(result) = &mut rec.result {
            redaction.json(result);
        }
        for text in [&mut rec.error, &mut rec.matched].into_iter().flatten() {
            *text = redaction.text(text).into_owned();
        }
    }

    /// The image a `screenshot` step's answer names (`{"id"}`), from the host's store.
    fn stored_shot(&self, step: &StepResult) -> Option<(crate::protocol::screenshot::Format, bytes::Bytes)> {
        let id = step.result.as_ref()?.get("id")?.as_str()?;
        let shot = self.inner.screenshots.get(id)?;
        Some((shot.info.format, shot.bytes))
    }

    fn split(&self, plan: &Plan, asked: &[Value], steps: Vec<StepResult>, left: Option<&str>) -> Vec<StepResult> {
        let mut mine = Vec::with_capacity(steps.len());
        let mut recorded: Vec<Recorded> = Vec::new();
        for mut step in steps {
            let slot = step
                .index
                .and_then(|i| plan.slots.get(i as usize).copied())
                .unwrap_or(Ok(usize::MAX));
            match slot {
                Ok(i) => {
                    if i != usize::MAX {
                        step.index = Some(i as u64);
                    }
                    let at = step.other.get(field::AT).and_then(Value::as_u64).unwrap_or(0);
                    let mut rec = Recorded {
                        index: i,
                        command: step.command.clone(),
                        step: asked.get(i).cloned().unwrap_or(Value::Null),
                        t: plan.started + at,
                        result: step.result.clone(),
                        error: step.error.clone(),
                        matched: step
                            .other
                            .get(field::MATCHED)
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        target: step.other.get(field::TARGET).cloned(),
                        viewport: step.other.get(field::VIEWPORT).cloned(),
                        // The agent's own screenshot is the step's picture (no proof one follows it).
                        shot: (step.command == "screenshot")
                            .then(|| self.stored_shot(&step))
                            .flatten(),
                        shot_error: None,
                    };
                    self.keep_secrets(&mut rec);
                    recorded.push(rec);
                    mine.push(step);
                }
                Err(of) => {
                    let Some(rec) = recorded.iter_mut().rev().find(|r| r.index == of) else {
                        continue;
                    };
                    match self.stored_shot(&step) {
                        Some(shot) => rec.shot = Some(shot),
                        None => {
                            let why = step
                                .error
                                .clone()
                                .or_else(|| step.result.as_ref()?.get("proofError")?.as_str().map(str::to_owned))
                                .unwrap_or_else(|| "the page sent no image".into());
                            rec.shot_error = Some(why);
                        }
                    }
                }
            }
        }
        let mut open = self.inner.proofs.open.lock();
        if let Some(session) = open.as_mut().filter(|s| s.id != plan.session) {
            session.faults.push(format!(
                "a batch started before this session (in {}) ended during it: its {} step(s) are not recorded",
                plan.session,
                recorded.len()
            ));
            return mine;
        }
        if let Some(session) = open.as_mut() {
            for rec in recorded {
                if let Some(why) = &rec.shot_error {
                    session.faults.push(format!(
                        "step {}: the screenshot after it failed: {why}",
                        session.steps.len() + 1
                    ));
                }
                if session.steps.len() < MAX_RECORDED_STEPS {
                    session.steps.push(rec);
                } else {
                    session.dropped_steps += 1;
                }
            }
            if let Some(message) = left {
                session.faults.push(format!("the page left mid-batch: {message}"));
            }
            self.collect_logs(session);
        }
        mine
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::LogEntry;
    use crate::protocol::Level;
    use crate::ProofOptions;

    #[test]
    fn a_batch_belongs_to_the_session_it_started_in() {
        // QA8: a session stopped while a batch ran passed the batch's steps, and an error from
        // before it started, to the session started next.
        let root = std::env::temp_dir().join(format!("ba-proof-race-{}", crate::util::random_hex(6)));
        let agent = BrowserAgent::builder().enabled(true).proof_dir(&root).build();
        let options = |d: &str| ProofOptions {
            description: d.into(),
            ..Default::default()
        };
        agent.proof_start(options("first")).unwrap();
        let asked = [json!({"command": "click", "text": "Load"})];
        let plan = agent.proof_plan(&asked).unwrap();
        agent.proof_stop().unwrap();
        let second = agent.proof_start(options("second")).unwrap();
        // The page's error from before the second session, sent to the host after it started.
        let before = crate::util::now_ms() - 5_000;
        agent.store(vec![LogEntry::new(
            "error",
            Level::Error,
            "TypeError: from before",
            before,
        )]);
        let answer = BatchResult {
            event: "browser-completed",
            client_id: "p".into(),
            steps: vec![StepResult::from_value(
                json!({"index": 0, "command": "click", "result": "clicked"}),
            )],
            snapshot: String::new(),
            logs: vec![],
            duration: 5,
            error: None,
            dialogs: vec![],
            full_snapshot: String::new(),
        };
        let agents = agent.proof_record(&plan, &asked, Ok(answer)).unwrap();
        assert_eq!(agents.steps.len(), 1, "the agent's answer is whole");
        let report = agent.proof_stop().unwrap();
        assert_eq!(report.counts.steps, 0, "{report:?}");
        assert_eq!(report.counts.console_errors, 0, "{report:?}");
        let summary = std::fs::read_to_string(&report.summary).unwrap();
        assert!(
            summary.contains("a batch started before this session (in p1) ended during it"),
            "{summary}"
        );
        assert!(second.id != "p1");
        std::fs::remove_dir_all(root).unwrap();
    }
}
