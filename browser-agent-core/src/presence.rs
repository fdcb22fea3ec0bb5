//! Whether an agent is attached: it called in the last [`AGENT_ATTACHED_MS`]. The pages learn it
//! from their heartbeat's answer ([`AGENT_HEADER`]) and then fetch and compile their hands while
//! idle, so an agent's first command on a page never waits for that.

use std::sync::atomic::Ordering;

use crate::protocol::{AGENT_ATTACHED_MS, AGENT_HEADER, HANDOVER_HEADER};
use crate::util::now_ms;
use crate::BrowserAgent;

impl BrowserAgent {
    /// An agent called (an agent route, MCP, or a batch through the Rust API).
    pub(crate) fn agent_called(&self) {
        self.inner.agent_seen.store(now_ms(), Ordering::Relaxed);
    }

    /// Whether an agent called within [`AGENT_ATTACHED_MS`] of `now`.
    pub(crate) fn agent_attached(&self, now: u64) -> bool {
        let seen = self.inner.agent_seen.load(Ordering::Relaxed);
        seen != 0 && now.saturating_sub(seen) <= AGENT_ATTACHED_MS
    }

    /// Marks a heartbeat's or a poll's answer with [`AGENT_HEADER`] while an agent is attached,
    /// and with [`HANDOVER_HEADER`] while a navigating batch waits for the next page of its tab.
    pub(crate) fn tell_presence(&self, headers: &mut http::HeaderMap) {
        if self.agent_attached(now_ms()) {
            headers.insert(AGENT_HEADER, http::HeaderValue::from_static("1"));
        }
        if self.inner.commands.handover_waiting() {
            headers.insert(HANDOVER_HEADER, http::HeaderValue::from_static("1"));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::util::now_ms;
    use crate::BrowserAgent;

    #[test]
    fn attached_for_a_while_after_a_call() {
        let agent = BrowserAgent::builder().enabled(true).build();
        let now = now_ms();
        assert!(!agent.agent_attached(now), "no agent has called yet");
        agent.agent_called();
        assert!(agent.agent_attached(now_ms()));
        let later = now_ms() + crate::protocol::AGENT_ATTACHED_MS + 1_000;
        assert!(!agent.agent_attached(later), "gone quiet for longer than the window");
        let mut headers = http::HeaderMap::new();
        agent.tell_presence(&mut headers);
        assert_eq!(headers.get(crate::protocol::AGENT_HEADER).unwrap(), "1");
    }
}
