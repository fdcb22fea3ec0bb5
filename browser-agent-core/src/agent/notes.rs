//! `agent.notes()`: what developers pointed at in notes mode, for Rust callers.

use std::time::Duration;

use crate::protocol::notes::Note;
use crate::BrowserAgent;

/// The notes pages sent (developers pointing at elements in notes mode): read, wait for, delete.
/// From [`BrowserAgent::notes`].
///
/// ```
/// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
/// let notes = agent.notes();
/// assert!(notes.list(None, None).is_empty());
/// assert_eq!(notes.last_seq(), 0);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Notes<'a> {
    agent: &'a BrowserAgent,
}

impl BrowserAgent {
    /// The notes pages sent: [`list`](Notes::list), [`wait`](Notes::wait), [`delete`](Notes::delete).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.notes().list(None, None).is_empty());
    /// ```
    pub fn notes(&self) -> Notes<'_> {
        Notes { agent: self }
    }
}

impl Notes<'_> {
    /// The notes, oldest first: of `client` only, when given, and with `seq` after `since`.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.notes().list(Some("c1a2"), Some(3)).is_empty());
    /// ```
    pub fn list(&self, client: Option<&str>, since: Option<u64>) -> Vec<Note> {
        self.agent.inner.notes.list(client, since)
    }

    /// The note with this id (`n1`).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.notes().get("n1").is_none());
    /// ```
    pub fn get(&self, id: &str) -> Option<Note> {
        self.agent.inner.notes.get(id)
    }

    /// Removes the note with this id (the agent handled it); whether it was there.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(!agent.notes().delete("n1"));
    /// ```
    pub fn delete(&self, id: &str) -> bool {
        self.agent.inner.notes.delete(id)
    }

    /// Removes every note; how many there were.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert_eq!(agent.notes().clear(), 0);
    /// ```
    pub fn clear(&self) -> usize {
        self.agent.inner.notes.clear()
    }

    /// The sequence number of the latest change (0 before the first note): pass it to
    /// [`wait`](Self::wait) to wait for what comes after.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert_eq!(agent.notes().last_seq(), 0);
    /// ```
    pub fn last_seq(&self) -> u64 {
        self.agent.inner.notes.last_seq()
    }

    /// Waits up to `timeout` for notes with a `seq` after `since` (of `client`, when given) and
    /// returns them (empty when none arrived in time).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// let notes = agent.notes().wait(None, 0, std::time::Duration::from_millis(10)).await;
    /// assert!(notes.is_empty());
    /// # });
    /// ```
    pub async fn wait(&self, client: Option<&str>, since: u64, timeout: Duration) -> Vec<Note> {
        let store = &self.agent.inner.notes;
        let mut rx = store.subscribe();
        let wait = async {
            loop {
                let fresh = store.list(client, Some(since));
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
