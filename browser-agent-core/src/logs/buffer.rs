//! [`LogBuffer`]: the bounded ring the stored entries live in, and its reads.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;

use super::query::Window;
use super::{LogEntry, LogQuery};
use crate::commands::history::{BatchHistory, Timeline};

/// A bounded ring of [`LogEntry`]s: bounded by count and by bytes, O(1) push, monotonic `seq`,
/// non-destructive reads.
///
/// Read it through [`BrowserAgent::logs`](crate::BrowserAgent::logs); entries come in through
/// the agent, which also feeds the NDJSON file.
///
/// ```
/// use browser_agent_core::adapter::AdapterExt;
/// use browser_agent_core::{BrowserAgent, LogQuery};
/// let agent = BrowserAgent::builder().enabled(true).max_logs(2).build();
/// for text in ["a", "b", "c"] {
///     agent.ingest_plain(&serde_json::json!({ "text": text }), "");
/// }
/// let ring = agent.logs();
/// let texts: Vec<_> = ring.query(&LogQuery::default()).iter().map(|e| e.text.clone()).collect();
/// assert_eq!(texts, ["b", "c"]); // the newest are kept
/// assert_eq!(ring.last_seq(), 3);
/// ```
#[derive(Debug)]
pub struct LogBuffer {
    ring: Mutex<Ring>,
    /// The agent's last batches, which place the entries in time (`batch=b7`, `during b7`).
    batches: BatchHistory,
}

#[derive(Debug)]
struct Ring {
    entries: VecDeque<Arc<LogEntry>>,
    bytes: usize,
    last_seq: u64,
    evicted: u64,
    max_count: usize,
    max_bytes: usize,
}

impl LogBuffer {
    /// A ring keeping at most `max_count` entries and about `max_bytes` of their content.
    #[doc(hidden)] // For the benches; an app reads the agent's ring.
    pub fn new(max_count: usize, max_bytes: usize) -> Self {
        LogBuffer {
            ring: Mutex::new(Ring {
                entries: VecDeque::with_capacity(max_count.min(4096)),
                bytes: 0,
                last_seq: 0,
                evicted: 0,
                max_count: max_count.max(1),
                max_bytes: max_bytes.max(1),
            }),
            batches: BatchHistory::default(),
        }
    }

    /// [`push`](Self::push) for the benches (`benches/benches/log_buffer.rs`), which measure the
    /// ring alone; apps store entries through the agent.
    #[doc(hidden)]
    pub fn bench_push(&self, entry: LogEntry) -> u64 {
        self.push(entry)
    }

    /// Stores `entry`, assigning it the next `seq` (returned); evicts the oldest beyond the bounds.
    pub(crate) fn push(&self, mut entry: LogEntry) -> u64 {
        let mut ring = self.ring.lock();
        ring.last_seq += 1;
        entry.seq = ring.last_seq;
        ring.bytes += entry.approx_bytes;
        ring.entries.push_back(Arc::new(entry));
        ring.evict();
        ring.last_seq
    }

    /// Stores `entries` in order under one lock; returns the `seq` of the first.
    pub(crate) fn push_many(&self, entries: Vec<LogEntry>) -> u64 {
        let mut ring = self.ring.lock();
        let first = ring.last_seq + 1;
        for mut entry in entries {
            ring.last_seq += 1;
            entry.seq = ring.last_seq;
            ring.bytes += entry.approx_bytes;
            ring.entries.push_back(Arc::new(entry));
        }
        ring.evict();
        first
    }

    /// [`push_many`](Self::push_many) that also gives back the stored entries (with their `seq`).
    pub(crate) fn push_many_shared(&self, entries: Vec<LogEntry>) -> Vec<Arc<LogEntry>> {
        let mut ring = self.ring.lock();
        let mut stored = Vec::with_capacity(entries.len());
        for mut entry in entries {
            ring.last_seq += 1;
            entry.seq = ring.last_seq;
            ring.bytes += entry.approx_bytes;
            let entry = Arc::new(entry);
            ring.entries.push_back(entry.clone());
            stored.push(entry);
        }
        ring.evict();
        stored
    }

    /// The stored entries sent as `(clientId, clientSeq)`, per origin (`None`: not held, or never
    /// stored). One walk from the newest, which ends once all are found.
    pub(crate) fn find_origins(&self, origins: &[(&str, u64)]) -> Vec<Option<Arc<LogEntry>>> {
        let mut found = vec![None; origins.len()];
        let mut missing = origins.len();
        if missing == 0 {
            return found;
        }
        let ring = self.ring.lock();
        for entry in ring.entries.iter().rev() {
            let Some(seq) = entry.client_seq else { continue };
            for (slot, (client, s)) in found.iter_mut().zip(origins) {
                if slot.is_none() && *s == seq && entry.client_id == *client {
                    *slot = Some(entry.clone());
                    missing -= 1;
                }
            }
            if missing == 0 {
                break;
            }
        }
        found
    }

    #[cfg(test)]
    /// Stores a plain info line (for tests, examples and host-side notes).
    pub(crate) fn push_text(&self, text: &str) -> u64 {
        let entry = LogEntry::new(
            crate::protocol::entry_type::CONSOLE,
            crate::protocol::Level::Info,
            text,
            crate::util::now_ms(),
        );
        self.push(entry)
    }

    /// The entries matching `query`, in the order they happened (by `t`, then `seq`). Never
    /// removes anything.
    pub fn query(&self, query: &LogQuery) -> Vec<Arc<LogEntry>> {
        let window = self.window(query).unwrap_or(Window::NONE);
        let ring = self.ring.lock();
        query.select(ring.entries.iter(), window)
    }

    /// The agent's batches: their record, to begin, end and place entries by.
    pub(crate) fn batches(&self) -> &BatchHistory {
        &self.batches
    }

    /// Whether the batches `query` names (`batch`, `sinceBatch`) are held; the error names the
    /// parameter and what it takes (a 400 on `GET /console`).
    pub(crate) fn check_batches(&self, query: &LogQuery) -> Result<(), String> {
        self.window(query).map(|_| ())
    }

    /// The times the batch filters keep.
    fn window(&self, query: &LogQuery) -> Result<Window, String> {
        if query.batch.is_none() && query.since_batch.is_none() {
            return Ok(Window::ALL);
        }
        let timeline: Timeline = self.batches.timeline();
        let mut window = Window::ALL;
        if let Some(value) = &query.batch {
            let span = timeline.find("batch", value)?;
            window.from = span.start;
            window.to = span.end.unwrap_or(u64::MAX);
        }
        if let Some(value) = &query.since_batch {
            window.from = window.from.max(timeline.find("sinceBatch", value)?.start);
        }
        Ok(window)
    }

    /// Every entry after `seq`, oldest first.
    pub fn since_seq(&self, seq: u64) -> Vec<Arc<LogEntry>> {
        let ring = self.ring.lock();
        // Entries are in seq order: find the first newer one by binary search.
        let start = ring.entries.partition_point(|e| e.seq <= seq);
        ring.entries.range(start..).cloned().collect()
    }

    /// Number of entries held.
    pub fn len(&self) -> usize {
        self.ring.lock().entries.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `seq` of the newest entry ever stored (0 before the first).
    pub fn last_seq(&self) -> u64 {
        self.ring.lock().last_seq
    }

    /// How many entries the bounds have evicted so far.
    pub fn evicted(&self) -> u64 {
        self.ring.lock().evicted
    }

    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        self.ring.lock().bytes
    }
}

impl Ring {
    /// Drops the oldest entries beyond the bounds; the newest always stays, even when it alone is
    /// over the byte budget.
    fn evict(&mut self) {
        while self.entries.len() > self.max_count || (self.bytes > self.max_bytes && self.entries.len() > 1) {
            if let Some(old) = self.entries.pop_front() {
                self.bytes -= old.approx_bytes;
                self.evicted += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_bound_keeps_newest_and_seq_is_monotonic() {
        let ring = LogBuffer::new(3, usize::MAX);
        for i in 0..10 {
            assert_eq!(ring.push_text(&format!("m{i}")), i + 1);
        }
        let all = ring.query(&LogQuery::all());
        assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), [8, 9, 10]);
        assert_eq!(ring.evicted(), 7);
        assert_eq!(ring.len(), 3);
    }

    #[test]
    fn byte_bound_evicts_oldest_but_keeps_one() {
        let ring = LogBuffer::new(100, 300);
        ring.push_text(&"a".repeat(100));
        ring.push_text(&"b".repeat(100));
        ring.push_text(&"c".repeat(100));
        assert!(ring.bytes() <= 300);
        assert_eq!(ring.query(&LogQuery::all()).last().unwrap().text.len(), 100);
        ring.push_text(&"d".repeat(1000));
        assert_eq!(ring.len(), 1);
        assert!(ring.query(&LogQuery::all())[0].text.starts_with('d'));
    }

    #[test]
    fn push_many_assigns_consecutive_seqs_and_bounds() {
        let ring = LogBuffer::new(3, usize::MAX);
        ring.push_text("a");
        let batch = (0..4)
            .map(|i| LogEntry::new("console", crate::protocol::Level::Info, i.to_string(), 0))
            .collect();
        assert_eq!(ring.push_many(batch), 2);
        let all = ring.query(&LogQuery::all());
        assert_eq!(
            all.iter().map(|e| (e.seq, e.text.as_str())).collect::<Vec<_>>(),
            [(3, "1"), (4, "2"), (5, "3")]
        );
    }

    #[test]
    fn stored_entries_are_found_by_their_origin() {
        let ring = LogBuffer::new(3, usize::MAX);
        let sent = |client: &str, seq: u64| {
            let mut e = LogEntry::new("console", crate::protocol::Level::Info, format!("{client}{seq}"), 0);
            e.client_id = client.into();
            e.client_seq = Some(seq);
            e
        };
        let stored = ring.push_many_shared(vec![sent("a", 1), sent("b", 1), sent("a", 2)]);
        assert_eq!(stored.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
        ring.push_many_shared(vec![sent("a", 3)]);
        let found = ring.find_origins(&[("a", 2), ("a", 1), ("b", 1), ("c", 1), ("a", 3)]);
        let seqs: Vec<Option<u64>> = found.iter().map(|e| e.as_ref().map(|e| e.seq)).collect();
        assert_eq!(
            seqs,
            [Some(3), None, Some(2), None, Some(4)],
            "a1 was evicted, c1 never stored"
        );
        assert!(ring.find_origins(&[]).is_empty());
    }

    #[test]
    fn reads_are_non_destructive_and_since_seq_works() {
        let ring = LogBuffer::new(10, usize::MAX);
        for i in 0..5 {
            ring.push_text(&i.to_string());
        }
        assert_eq!(ring.query(&LogQuery::all()).len(), 5);
        assert_eq!(ring.query(&LogQuery::all()).len(), 5);
        assert_eq!(ring.since_seq(3).iter().map(|e| e.seq).collect::<Vec<_>>(), [4, 5]);
        assert!(ring.since_seq(5).is_empty());
    }
}
