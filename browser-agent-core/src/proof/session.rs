//! A session's course on the agent: start (the folder checked before anything opens), status, stop
//! (the folder written), the summary and folder of a stopped session, the logs collected meanwhile.

use std::path::{Path, PathBuf};

use super::{
    artifacts, relative_dir, rfc3339, slug, stamp, ProofError, ProofOptions, ProofReport, ProofStatus, Session,
    ShotMode, MAX_SESSION_LOGS,
};
use crate::BrowserAgent;

impl BrowserAgent {
    fn proof_root(&self) -> PathBuf {
        self.inner.config.proof_dir().to_path_buf()
    }

    /// Starts a proof session: every batch from now on is recorded until `proof_stop`.
    pub(crate) fn proof_start(&self, options: ProofOptions) -> Result<ProofStatus, ProofError> {
        let proofs = &self.inner.proofs;
        if let Some(open) = proofs.open.lock().as_ref() {
            if !options.force {
                return Err(ProofError::Running {
                    id: open.id.clone(),
                    description: open.description.clone(),
                    started: rfc3339(open.started),
                });
            }
        }
        let now = crate::util::now_ms();
        let root = self.proof_root();
        let dir = match &options.dir {
            Some(d) => {
                let rel = relative_dir(d)?;
                root.parent().map_or(rel.clone(), |p| p.join(&rel))
            }
            None => {
                let s = slug(&options.description);
                let name = if s.is_empty() {
                    stamp(now)
                } else {
                    format!("{}_{s}", stamp(now))
                };
                root.join(name)
            }
        };
        let parent = dir.parent().map(Path::to_path_buf).unwrap_or_default();
        // A `dir` without `..` can still leave the project through a symbolic link in it: checked
        // on the deepest folder of it that exists, before anything is created there.
        if let Some(d) = &options.dir {
            let base = root
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let _ = std::fs::create_dir_all(base);
            let mut existing = parent.as_path();
            while !existing.exists() {
                match existing.parent() {
                    Some(up) if !up.as_os_str().is_empty() => existing = up,
                    _ => break,
                }
            }
            let inside = match (existing.canonicalize(), base.canonicalize()) {
                (Ok(e), Ok(b)) => e.starts_with(b),
                _ => false,
            };
            if !inside {
                return Err(ProofError::BadRequest(format!(
                    "invalid dir {d:?}: it leads outside the project through a symbolic link (sessions stay inside it)"
                )));
            }
        }
        // Refused now rather than at stop: the parent must be writable.
        let probe = parent.join(format!(".browser-agent-probe-{}", crate::util::random_hex(4)));
        let writable = std::fs::create_dir_all(&parent)
            .and_then(|()| std::fs::write(&probe, b""))
            .and_then(|()| std::fs::remove_file(&probe));
        if let Err(e) = writable {
            return Err(ProofError::Unwritable {
                dir: dir.display().to_string(),
                why: e.to_string(),
            });
        }
        // Only now, with the request found good: a refused start never ends the running session.
        if options.force {
            let _ = self.proof_stop();
        }
        let n = proofs.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let session = Session {
            id: format!("p{n}"),
            description: options.description,
            // The folder stop will write: a name already taken gets its suffix now, so the
            // answer names it (stop suffixes again only if one appears meanwhile).
            dir: artifacts::free_dir(&dir),
            mode: options.screenshots.unwrap_or(ShotMode::Actions),
            started: now,
            steps: Vec::new(),
            dropped_steps: 0,
            faults: Vec::new(),
            logs: Vec::new(),
            last_seq: self.inner.logs.last_seq(),
        };
        let status = status_of(&session);
        *proofs.open.lock() = Some(session);
        Ok(status)
    }

    /// The open session, if any.
    pub(crate) fn proof_status(&self) -> Option<ProofStatus> {
        self.inner.proofs.open.lock().as_ref().map(status_of)
    }

    /// Stops the open session and writes its folder (see the module docs).
    pub(crate) fn proof_stop(&self) -> Result<ProofReport, ProofError> {
        let mut session = self.inner.proofs.open.lock().take().ok_or(ProofError::NotRunning)?;
        self.collect_logs(&mut session);
        let report = artifacts::write(&session, &self.inner.config.prefix)?;
        let mut done = self.inner.proofs.done.lock();
        done.push((session.id.clone(), session.dir.clone()));
        if done.len() > 100 {
            done.remove(0);
        }
        Ok(report)
    }

    /// The `SUMMARY.md` of a stopped session (its id, or its folder), for pasting into a PR.
    pub(crate) fn proof_summary(&self, id: &str) -> Result<String, ProofError> {
        let dir = self.proof_dir_of(id)?;
        std::fs::read_to_string(dir.join("SUMMARY.md")).map_err(|_| ProofError::Unknown(id.to_owned()))
    }

    /// The folder of a stopped session: its id, or a folder (relative to the project) holding a
    /// `session-log.json`.
    pub(crate) fn proof_dir_of(&self, id: &str) -> Result<PathBuf, ProofError> {
        if let Some((_, dir)) = self.inner.proofs.done.lock().iter().find(|(i, _)| i == id) {
            return Ok(dir.clone());
        }
        let rel = relative_dir(id).map_err(|_| ProofError::Unknown(id.to_owned()))?;
        let root = self.proof_root();
        let dir = root.parent().map_or(rel.clone(), |p| p.join(&rel));
        [dir, root.join(&rel)]
            .into_iter()
            .find(|d| d.join("session-log.json").is_file())
            .ok_or_else(|| ProofError::Unknown(id.to_owned()))
    }

    /// Copies the log entries stored since the last look into the session (bounded), but those
    /// from before it started (a page sends its entries in batches, after they happened).
    pub(crate) fn collect_logs(&self, session: &mut Session) {
        let fresh = self.inner.logs.since_seq(session.last_seq);
        if let Some(last) = fresh.last() {
            session.last_seq = last.seq;
        }
        let room = MAX_SESSION_LOGS.saturating_sub(session.logs.len());
        let started = session.started;
        session
            .logs
            .extend(fresh.into_iter().filter(|e| e.t >= started).take(room));
    }
}

fn status_of(s: &Session) -> ProofStatus {
    ProofStatus {
        id: s.id.clone(),
        description: s.description.clone(),
        dir: s.dir.display().to_string(),
        started: rfc3339(s.started),
        steps: s.steps.len(),
        screenshots: s.steps.iter().filter(|r| r.shot.is_some()).count(),
        mode: s.mode,
    }
}
