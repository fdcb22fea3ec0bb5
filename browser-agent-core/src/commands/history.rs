//! The agent's batches on the log's timeline: when each of the last [`KEPT`] batches started and
//! ended (host clock, epoch ms), numbered `b1`, `b2`, … in the order they started. A log entry is
//! placed against them (`during b7`, `after b7`, `before b1`) so an agent reads *when* something
//! happened without arithmetic on epoch milliseconds, and `batch=b7` / `sinceBatch=last` read the
//! log by them. A leaf: times, ids and JSON, nothing of the ring or the agent.

use std::collections::VecDeque;

use parking_lot::Mutex;
use serde_json::{Map, Value};

use crate::protocol::field;

/// Batches whose times are kept: older ones can no longer be named (`batch=`), and an entry older
/// than the oldest kept is placed `before` it.
pub(crate) const KEPT: usize = 64;

/// One batch: its number (`b{n}`), when it started and when its answer came (`None`: running).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) n: u64,
    pub(crate) start: u64,
    pub(crate) end: Option<u64>,
    /// The page that ran it (empty until known): among overlapping batches, an entry of that page
    /// is placed in its own.
    pub(crate) client: String,
}

/// The bounded record of batches (one per agent, held beside the log ring).
#[derive(Debug, Default)]
pub(crate) struct BatchHistory {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The number of the newest batch begun (0: none yet).
    last: u64,
    spans: VecDeque<Span>,
}

impl BatchHistory {
    /// A batch starts now: its number (`b{n}`). Starts never go back in time, so numbers and
    /// start times are in the same order.
    pub(crate) fn begin(&self, client: Option<&str>, now: u64) -> u64 {
        let mut state = self.state.lock();
        let start = state.spans.back().map_or(now, |s| s.start.max(now));
        state.last += 1;
        let n = state.last;
        state.spans.push_back(Span {
            n,
            start,
            end: None,
            client: client.unwrap_or_default().to_owned(),
        });
        while state.spans.len() > KEPT {
            state.spans.pop_front();
        }
        n
    }

    /// Batch `n` answered now, from page `client` (when it ran on one).
    pub(crate) fn end(&self, n: u64, client: Option<&str>, now: u64) {
        let mut state = self.state.lock();
        if let Some(span) = state.spans.iter_mut().find(|s| s.n == n) {
            span.end = Some(now.max(span.start));
            if let Some(c) = client.filter(|c| !c.is_empty()) {
                c.clone_into(&mut span.client);
            }
        }
    }

    /// Batch `n` was refused before it ran (no page, a bad step, a full queue): it is no batch of
    /// the timeline; its number is given again when no later batch took one.
    pub(crate) fn forget(&self, n: u64) {
        let mut state = self.state.lock();
        state.spans.retain(|s| s.n != n);
        if state.last == n {
            state.last -= 1;
        }
    }

    /// A copy of the record, to place many entries under one lock.
    pub(crate) fn timeline(&self) -> Timeline {
        let state = self.state.lock();
        Timeline {
            spans: state.spans.iter().cloned().collect(),
            last: state.last,
        }
    }
}

/// Where an entry is on the agent's timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Before batch `n` started, the oldest kept (`b1`: before the agent's first batch).
    Before(u64),
    /// While batch `n` ran.
    During(u64),
    /// After batch `n` ended, before the next one started.
    After(u64),
}

/// The batches kept, at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Timeline {
    spans: Vec<Span>,
    last: u64,
}

impl Timeline {
    /// Where an entry of page `client` at `t` is: during the batch running then (its page's own
    /// first, then the newest), else after the newest that had ended, else before the oldest kept.
    /// `None` while no batch is kept.
    pub(crate) fn place(&self, t: u64, client: &str) -> Option<Place> {
        let during = |s: &&Span| s.start <= t && s.end.is_none_or(|e| t <= e);
        let running: Vec<&Span> = self.spans.iter().filter(during).collect();
        if let Some(s) = running
            .iter()
            .rev()
            .find(|s| !client.is_empty() && s.client == client)
            .or_else(|| running.last())
        {
            return Some(Place::During(s.n));
        }
        let ended = self.spans.iter().filter_map(|s| Some((s.end.filter(|&e| e < t)?, s.n)));
        if let Some((_, n)) = ended.max() {
            return Some(Place::After(n));
        }
        self.spans.first().map(|s| Place::Before(s.n))
    }

    /// The page the newest answered batch ran on.
    pub(crate) fn last_client(&self) -> Option<&str> {
        self.spans
            .iter()
            .rev()
            .find(|s| s.end.is_some() && !s.client.is_empty())
            .map(|s| s.client.as_str())
    }

    /// Whether a kept batch ran on page `client`.
    pub(crate) fn ran_on(&self, client: &str) -> bool {
        self.spans.iter().any(|s| s.client == client)
    }

    /// The batch `value` names for parameter `name`: `b7`, `7` or `last`; the error names the
    /// parameter and what it takes.
    pub(crate) fn find(&self, name: &str, value: &str) -> Result<&Span, String> {
        let v = value.trim();
        let n = if v.eq_ignore_ascii_case("last") {
            None
        } else {
            let digits = v.strip_prefix(['b', 'B']).unwrap_or(v);
            match digits.parse::<u64>() {
                Ok(n) if n > 0 => Some(n),
                _ => {
                    return Err(format!(
                        "invalid {name} {value:?}: use a batch id as a batch's answer names it (b7, or 7), or last"
                    ))
                }
            }
        };
        if self.last == 0 {
            return Err(format!("{name} {value:?}: no batch has run yet"));
        }
        let Some(n) = n else {
            return self
                .spans
                .last()
                .ok_or_else(|| format!("{name} {value:?}: no batch is kept"));
        };
        if n > self.last {
            return Err(format!(
                "{name} {value:?}: no such batch yet; the last is b{}",
                self.last
            ));
        }
        self.spans.iter().find(|s| s.n == n).ok_or_else(|| {
            let held = match (self.spans.first(), self.spans.last()) {
                (Some(a), Some(b)) => format!(" (b{} to b{})", a.n, b.n),
                _ => String::new(),
            };
            format!(
                "{name} {value:?}: not held; the last {KEPT} batches are kept{held}, not those refused before they ran"
            )
        })
    }
}

/// `b7`.
pub(crate) fn batch_id(n: u64) -> String {
    format!("b{n}")
}

/// Adds to a log entry (a JSON object, as `GET /console` shows it) when it happened relative to
/// `now`, the answer's time: `ago` (ms, never negative), and its place among the batches: `batch`
/// (during it), `after` or `before` (the batch id). Fields of those names the page sent are replaced.
pub(crate) fn annotate(entry: &mut Map<String, Value>, timeline: &Timeline, now: u64) {
    let t = entry.get(field::T).and_then(Value::as_u64).unwrap_or(now);
    entry.insert(field::AGO.into(), now.saturating_sub(t).into());
    for key in [field::BATCH, field::AFTER, field::BEFORE] {
        entry.remove(key);
    }
    let client = entry.get(field::CLIENT_ID).and_then(Value::as_str).unwrap_or("");
    let (key, n) = match timeline.place(t, client) {
        None => return,
        Some(Place::During(n)) => (field::BATCH, n),
        Some(Place::After(n)) => (field::AFTER, n),
        Some(Place::Before(n)) => (field::BEFORE, n),
    };
    entry.insert(key.into(), batch_id(n).into());
}

/// Log entries (JSON) in the order they happened: by `t`, then by the host's `seq` (stable).
pub(crate) fn in_order(logs: &mut [Value]) {
    let key = |e: &Value| {
        let n = |k: &str| e.get(k).and_then(Value::as_u64).unwrap_or(0);
        (n(field::T), n(field::SEQ))
    };
    logs.sort_by_key(key);
}

/// An entry's `ago` as MCP's text shows it: `0.4s`, `4.2s`, `42s`, `3m12s`, `1h05m`, `2d3h`.
pub(crate) fn ago_text(ms: u64) -> String {
    let s = ms / 1000;
    match ms {
        0..=9_949 => format!("{:.1}s", ms as f64 / 1000.0),
        9_950..=59_999 => format!("{}s", (ms + 500) / 1000),
        60_000..=3_599_999 => format!("{}m{:02}s", s / 60, s % 60),
        3_600_000..=86_399_999 => format!("{}h{:02}m", s / 3600, s / 60 % 60),
        _ => format!("{}d{}h", s / 86_400, s / 3600 % 24),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn history(spans: &[(u64, Option<u64>, &str)]) -> BatchHistory {
        let h = BatchHistory::default();
        for &(start, end, client) in spans {
            let n = h.begin(Some(client), start);
            if let Some(end) = end {
                h.end(n, None, end);
            }
        }
        h
    }

    #[test]
    fn entries_are_placed_before_during_and_after_batches() {
        let tl = history(&[(100, Some(200), "a"), (300, None, "a")]).timeline();
        assert_eq!(tl.place(50, "a"), Some(Place::Before(1)), "before the first action");
        assert_eq!(tl.place(100, "a"), Some(Place::During(1)));
        assert_eq!(tl.place(200, ""), Some(Place::During(1)), "the end is inside");
        assert_eq!(tl.place(250, "a"), Some(Place::After(1)));
        assert_eq!(tl.place(300, "a"), Some(Place::During(2)));
        assert_eq!(tl.place(9_000, "b"), Some(Place::During(2)), "b2 still runs");
        assert_eq!(BatchHistory::default().timeline().place(5, "a"), None);
    }

    #[test]
    fn overlapping_batches_place_an_entry_in_its_own_page_s() {
        let tl = history(&[(100, Some(400), "a"), (200, Some(300), "b")]).timeline();
        assert_eq!(tl.place(250, "a"), Some(Place::During(1)));
        assert_eq!(tl.place(250, "b"), Some(Place::During(2)));
        assert_eq!(tl.place(250, ""), Some(Place::During(2)), "a server entry: the newest");
        assert_eq!(tl.place(350, "b"), Some(Place::During(1)));
        assert_eq!(tl.place(500, "b"), Some(Place::After(1)), "b1 ended last");
    }

    #[test]
    fn the_record_is_bounded_and_refused_batches_leave_no_trace() {
        let h = BatchHistory::default();
        for i in 0..(KEPT as u64 + 6) {
            let n = h.begin(None, i * 10);
            h.end(n, Some("a"), i * 10 + 5);
        }
        let tl = h.timeline();
        assert_eq!(tl.spans.len(), KEPT);
        assert_eq!(tl.place(0, "a"), Some(Place::Before(7)), "older than the record");
        assert!(tl.find("batch", "b3").unwrap_err().contains("not held"));
        assert_eq!(tl.find("batch", "last").unwrap().n, KEPT as u64 + 6);
        let n = h.begin(None, 10_000);
        h.forget(n);
        assert_eq!(h.begin(None, 10_001), n, "the refused batch's number is given again");
        // Starts never go back: the numbers' order is the starts' order.
        let later = h.begin(None, 5);
        assert_eq!(h.timeline().spans.last().unwrap().start, 10_001);
        assert_eq!(later, n + 1);
    }

    #[test]
    fn batches_are_named_b7_7_or_last_and_bad_names_say_what_to_use() {
        let tl = history(&[(100, Some(200), "a"), (300, Some(400), "a")]).timeline();
        assert_eq!(tl.find("batch", "b2").unwrap().n, 2);
        assert_eq!(tl.find("batch", "B1").unwrap().n, 1);
        assert_eq!(tl.find("batch", " 1 ").unwrap().n, 1);
        assert_eq!(tl.find("sinceBatch", "last").unwrap().n, 2);
        assert_eq!(
            tl.find("batch", "seven").unwrap_err(),
            "invalid batch \"seven\": use a batch id as a batch's answer names it (b7, or 7), or last"
        );
        assert!(tl.find("batch", "b0").is_err());
        assert_eq!(
            tl.find("sinceBatch", "b3").unwrap_err(),
            "sinceBatch \"b3\": no such batch yet; the last is b2"
        );
        assert_eq!(
            Timeline::default().find("sinceBatch", "last").unwrap_err(),
            "sinceBatch \"last\": no batch has run yet"
        );
    }

    #[test]
    fn annotation_says_how_long_ago_and_where() {
        let tl = history(&[(1_000, Some(2_000), "c1")]).timeline();
        let mut e = json!({"seq": 4, "t": 1_500, "clientId": "c1", "batch": "page's own"});
        annotate(e.as_object_mut().unwrap(), &tl, 5_700);
        assert_eq!(e["ago"], 4_200);
        assert_eq!(e["batch"], "b1");
        let mut e = json!({"seq": 5, "t": 2_500});
        annotate(e.as_object_mut().unwrap(), &tl, 2_400);
        assert_eq!(
            (e["ago"].as_u64(), e["after"].as_str()),
            (Some(0), Some("b1")),
            "a page clock ahead is 0 ago"
        );
        assert!(e.get("batch").is_none());
        let mut e = json!({"seq": 1, "t": 10});
        annotate(e.as_object_mut().unwrap(), &tl, 20);
        assert_eq!(e["before"], "b1");
    }

    #[test]
    fn entries_are_ordered_by_time_then_seq() {
        let mut logs = vec![
            json!({"seq": 3, "t": 50}),
            json!({"seq": 1, "t": 60}),
            json!({"seq": 2, "t": 50}),
            json!({"seq": 4, "t": 10}),
        ];
        in_order(&mut logs);
        let seqs: Vec<u64> = logs.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
        assert_eq!(seqs, [4, 2, 3, 1]);
    }

    #[test]
    fn ago_is_short() {
        assert_eq!(ago_text(0), "0.0s");
        assert_eq!(ago_text(4_249), "4.2s");
        assert_eq!(ago_text(9_960), "10s");
        assert_eq!(ago_text(42_400), "42s");
        assert_eq!(ago_text(192_000), "3m12s");
        assert_eq!(ago_text(3_900_000), "1h05m");
        assert_eq!(ago_text(3 * 86_400_000 + 7_200_000), "3d2h");
    }
}
