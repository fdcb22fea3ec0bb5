//! `agent.notes()`: what developers pointed at in notes mode, for Rust callers.

use std::time::Duration;

use crate::notes::NotesStore;
use crate::protocol::notes::Note;
use crate::BrowserAgent;

impl BrowserAgent {
    /// The notes pages sent (`list`, `get`, `delete`, `clear`, `subscribe`).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.notes().list(None, None).is_empty());
    /// ```
    pub fn notes(&self) -> &NotesStore {
        &self.inner.notes
    }

    /// Waits up to `timeout` for notes with a `seq` after `since` (of `client`, when given) and
    /// returns them (empty when none arrived in time).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// let notes = agent.wait_notes(None, 0, std::time::Duration::from_millis(10)).await;
    /// assert!(notes.is_empty());
    /// # });
    /// ```
    pub async fn wait_notes(&self, client: Option<&str>, since: u64, timeout: Duration) -> Vec<Note> {
        let mut rx = self.inner.notes.subscribe();
        let wait = async {
            loop {
                let fresh = self.inner.notes.list(client, Some(since));
                if !fresh.is_empty() {
                    return fresh;
                }
                if rx.changed().await.is_err() {
                    return Vec::new();
                }
            }
        };
        tokio::time::timeout(timeout, wait).await.unwrap_or_default()
    }
}
