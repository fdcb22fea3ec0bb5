//! Panics as `server` entries: one process-wide panic hook, installed once and chained to the hook
//! that was there before, records every panic (message, location, thread) in each agent that asked
//! for it ([`BrowserAgent::install_panic_hook`]).

use std::panic::PanicHookInfo;
use std::sync::{Once, Weak};

use parking_lot::Mutex;
use serde_json::Value;

use super::server::source;
use crate::agent::Inner;
use crate::protocol::Level;
use crate::BrowserAgent;

/// The agents that record panics; an agent whose last handle is gone is skipped and forgotten.
static AGENTS: Mutex<Vec<Weak<Inner>>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();

impl BrowserAgent {
    /// Records every panic of the process (a handler's, any thread's) as a `server` entry at level
    /// `error`: `thread 'tokio-runtime-worker' panicked at src/main.rs:42:9: boom`, with the fields
    /// `message`, `location` and `thread`. Read them with `GET {prefix}/console?type=server`.
    ///
    /// The hook is installed once per process, on the first call, around the hook that was set then
    /// (Rust's default prints the message to stderr): ours records, then calls it, so nothing the
    /// previous hook did is lost. Calling it again, for this agent or another, only adds the agent
    /// to those that record (each once). Does nothing for a disabled agent. A panic hook set after
    /// this call replaces ours unless it chains it (`std::panic::take_hook`).
    ///
    /// A panic still unwinds as before: whether the client gets a 500 depends on the framework (see
    /// the demos' `/demo/panic`), and the 500 is then recorded too
    /// ([`AdapterExt::record_response`](crate::adapter::AdapterExt::record_response)).
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, LogQuery};
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// agent.install_panic_hook();
    /// agent.install_panic_hook(); // idempotent
    /// let _ = std::thread::Builder::new()
    ///     .name("worker".into())
    ///     .spawn(|| panic!("boom"))
    ///     .unwrap()
    ///     .join();
    /// let panics = agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap());
    /// assert_eq!(panics.len(), 1);
    /// assert!(panics[0].text.starts_with("thread 'worker' panicked at "), "{}", panics[0].text);
    /// assert!(panics[0].text.ends_with(": boom"));
    /// assert_eq!(panics[0].field_str("message"), Some("boom"));
    /// ```
    pub fn install_panic_hook(&self) {
        if !self.enabled() {
            return;
        }
        {
            let mut agents = AGENTS.lock();
            agents.retain(|a| a.strong_count() > 0);
            let me = std::sync::Arc::downgrade(&self.inner);
            if !agents.iter().any(|a| a.ptr_eq(&me)) {
                agents.push(me);
            }
        }
        INSTALL.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                record(info);
                previous(info);
            }));
        });
    }

    /// The panic as an entry (what the hook stores).
    fn panic_entry(&self, info: &PanicHookInfo<'_>, thread: &str) -> super::LogEntry {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("Box<dyn Any>");
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        // Rust's own first line, so the `thread '…' panicked at` pattern finds it in any log.
        let text = format!("thread '{thread}' panicked at {location}: {message}");
        self.server_entry(
            Level::Error,
            source::PANIC,
            &text,
            [
                ("message", Value::from(message)),
                ("location", Value::from(location)),
                ("thread", Value::from(thread)),
            ],
        )
    }
}

/// What the hook does before the previous one: one entry in each recording agent. It must not
/// panic (a panic in a panic hook aborts): it takes only `parking_lot` locks and formats strings.
fn record(info: &PanicHookInfo<'_>) {
    let agents: Vec<BrowserAgent> = AGENTS
        .lock()
        .iter()
        .filter_map(Weak::upgrade)
        .map(|inner| BrowserAgent { inner })
        .collect();
    if agents.is_empty() {
        return;
    }
    let current = std::thread::current();
    let thread = current.name().unwrap_or("<unnamed>");
    for agent in agents {
        let entry = agent.panic_entry(info, thread);
        agent.store(vec![entry]);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use crate::{BrowserAgent, LogQuery};

    fn panics(agent: &BrowserAgent, thread: &str) -> Vec<Arc<crate::LogEntry>> {
        let mut all = agent.logs().query(&LogQuery::parse(Some("type=server")).unwrap());
        all.retain(|e| e.field_str("thread") == Some(thread));
        all
    }

    /// One test for the hook's whole life: the process has one hook, and the test harness runs
    /// tests on threads of its own, so the steps must not interleave with another hook test.
    #[test]
    fn a_panicking_thread_is_recorded_and_the_previous_hook_still_runs() {
        static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() == Some("hook-test") {
                PREVIOUS.fetch_add(1, Ordering::SeqCst);
            }
            default(info);
        }));
        let agent = BrowserAgent::builder().enabled(true).max_text(60).build();
        let other = BrowserAgent::builder().enabled(true).build();
        let off = BrowserAgent::builder().enabled(false).build();
        agent.install_panic_hook();
        agent.install_panic_hook();
        other.install_panic_hook();
        off.install_panic_hook();
        let line = line!() + 3;
        let joined = std::thread::Builder::new()
            .name("hook-test".into())
            .spawn(|| panic!("{} went wrong", "it"))
            .unwrap()
            .join();
        assert!(joined.is_err(), "the panic unwinds as before");
        assert_eq!(PREVIOUS.load(Ordering::SeqCst), 1, "the previous hook ran once");
        let entries = panics(&agent, "hook-test");
        assert_eq!(entries.len(), 1, "recorded once although installed twice: {entries:?}");
        let e = &entries[0];
        assert_eq!((e.kind.as_str(), e.level), ("server", crate::protocol::Level::Error));
        assert_eq!(e.field_str("source"), Some("panic"));
        assert_eq!(e.field_str("message"), Some("it went wrong"));
        let location = e.field_str("location").unwrap();
        assert!(location.contains(&format!("panic.rs:{line}:")), "{location}");
        assert!(e.text.starts_with("thread 'hook-test' panicked at "), "{}", e.text);
        assert!(e.text.chars().count() <= 60, "cut at max_text: {}", e.text);
        assert_eq!(panics(&other, "hook-test").len(), 1, "every agent that asked records");
        assert!(panics(&off, "hook-test").is_empty(), "a disabled agent records nothing");
        // An agent that is gone is skipped; the others still record.
        drop(other);
        let _ = std::thread::Builder::new()
            .name("hook-test".into())
            .spawn(|| std::panic::panic_any(7_u8))
            .unwrap()
            .join();
        let entries = panics(&agent, "hook-test");
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].field_str("message"), Some("Box<dyn Any>"));
        assert_eq!(PREVIOUS.load(Ordering::SeqCst), 2);
    }
}
