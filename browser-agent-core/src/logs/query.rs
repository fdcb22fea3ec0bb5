//! [`LogQuery`]: which entries `GET {prefix}/console` (or Rust code) reads, parsed from the query.

use std::sync::Arc;

use super::entry::{HOST_TYPES, TYPES};
use super::LogEntry;
use crate::error::QueryError;
use crate::protocol::Level;

/// Entries returned when a query names no `limit`.
pub(crate) const DEFAULT_LIMIT: usize = 50;

/// Which entries to read. Filters apply in this order: `level`, `type`, client and `after_seq`,
/// then `since_ms` (t ≥ since_ms) and the batch filters (`batch`, `since_batch`), then the last
/// `limit` stored (default 50; `0` returns no entries, only the counters; there is no "unlimited"
/// value: name at least the ring size). What is returned is listed in the order it happened: by
/// `t`, then by `seq` (the order of arrival, which a page's late delivery can put after a later
/// server error).
///
/// ```
/// use browser_agent_core::{LogQuery, protocol::Level};
/// let q = LogQuery::parse(Some("level=warn,error&sinceMs=1700000000000&limit=10&sinceBatch=last")).unwrap();
/// assert_eq!(q.levels, vec![Level::Warn, Level::Error]);
/// assert_eq!(q.limit, Some(10));
/// assert_eq!(q.since_batch.as_deref(), Some("last"));
/// assert!(LogQuery::parse(Some("limit=ten")).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LogQuery {
    /// Keep only these levels (empty: all).
    pub levels: Vec<Level>,
    /// Keep entries with `t ≥ since_ms`: `t` is when the entry happened, epoch milliseconds on
    /// the page's clock (the host's for its own `server` entries and for entries sent without
    /// one). An absolute time, not a duration ("the last N ms") and not a `seq`; a fraction is
    /// cut to the millisecond. `since` is the same parameter.
    pub since_ms: Option<u64>,
    /// Keep the last `limit` (None: the last 50; `usize::MAX`: all).
    pub limit: Option<usize>,
    /// Keep only this entry type.
    pub kind: Option<String>,
    /// Keep only this page load.
    pub client: Option<String>,
    /// Keep entries with `seq > after_seq`.
    pub after_seq: Option<u64>,
    /// Keep entries that happened while this batch of the agent ran, from its start to its
    /// answer: `b7` (as a batch's answer names it), `7`, or `last` (the newest batch). The host
    /// holds the last 64 batches; one it does not hold keeps nothing (and is a 400 on
    /// `GET /console`, naming the parameter).
    pub batch: Option<String>,
    /// Keep entries from this batch's start on (`last`: since the agent's last batch began, so
    /// what it caused and everything after).
    pub since_batch: Option<String>,
}

impl LogQuery {
    /// A query returning everything held.
    pub fn all() -> Self {
        LogQuery {
            limit: Some(usize::MAX),
            ..LogQuery::default()
        }
    }

    /// Parses `level=&sinceMs=&limit=&type=&client=&afterSeq=&batch=&sinceBatch=` (empty values are not given; `level`
    /// given twice adds up). The error names the parameter and what it accepts; a parameter it
    /// does not take, or one given twice, is an error too (a typo would answer the whole log).
    ///
    /// ```
    /// use browser_agent_core::LogQuery;
    /// assert!(LogQuery::parse(Some("levels=error")).is_err());
    /// assert!(LogQuery::parse(Some("type=error&type=console")).is_err());
    /// assert_eq!(LogQuery::parse(Some("level=error&level=warn")).unwrap().levels.len(), 2);
    /// ```
    pub fn parse(query: Option<&str>) -> Result<Self, QueryError> {
        LogQuery::from_pairs(crate::util::Params::parse(query).iter())
    }

    /// The same as [`parse`](Self::parse), from `(name, value)` pairs already split (the MCP
    /// `browser_logs` tool's arguments), so both readers share every rule and error text.
    pub(crate) fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, QueryError> {
        let mut q = LogQuery::default();
        // A parameter given twice (`client` and `clientId` are one) finds its slot filled.
        fn once<T>(slot: &mut Option<T>, name: &str, value: T) -> Result<(), QueryError> {
            if slot.is_some() {
                return Err(QueryError::Twice(name.to_owned()));
            }
            *slot = Some(value);
            Ok(())
        }
        for (name, value) in pairs {
            if value.is_empty() {
                continue;
            }
            match name {
                "level" => {
                    for part in value.split(',').filter(|p| !p.trim().is_empty()) {
                        let level = Level::parse(part).ok_or_else(|| QueryError::Level(part.to_owned()))?;
                        q.levels.push(level);
                    }
                }
                "sinceMs" | "since" => once(&mut q.since_ms, name, parse_number(name, value)?)?,
                "limit" => once(&mut q.limit, name, parse_count(name, value)? as usize)?,
                "afterSeq" => once(&mut q.after_seq, name, parse_count(name, value)?)?,
                "type" => {
                    let kind = TYPES
                        .iter()
                        .chain(HOST_TYPES.iter())
                        .find(|t| value.trim().eq_ignore_ascii_case(t))
                        .ok_or_else(|| QueryError::Type(value.to_owned()))?;
                    once(&mut q.kind, name, (*kind).to_owned())?;
                }
                "client" | "clientId" => once(&mut q.client, name, value.to_owned())?,
                // Checked against the batches held when read (`LogBuffer::check_batches`).
                "batch" => once(&mut q.batch, name, value.trim().to_owned())?,
                "sinceBatch" => once(&mut q.since_batch, name, value.trim().to_owned())?,
                _ => return Err(QueryError::Unknown(name.to_owned())),
            }
        }
        Ok(q)
    }

    fn matches(&self, e: &LogEntry, window: Window) -> bool {
        (self.levels.is_empty() || self.levels.contains(&e.level))
            && self.kind.as_deref().is_none_or(|k| e.kind == k)
            && self.client.as_deref().is_none_or(|c| e.client_id == c)
            && self.after_seq.is_none_or(|s| e.seq > s)
            && self.since_ms.is_none_or(|s| e.t >= s)
            && e.t >= window.from
            && e.t <= window.to
    }

    /// The last `limit` entries that match, within `window` (the batch filters, resolved), in the
    /// order they happened.
    pub(crate) fn select<'a>(
        &self,
        entries: impl DoubleEndedIterator<Item = &'a Arc<LogEntry>>,
        window: Window,
    ) -> Vec<Arc<LogEntry>> {
        let limit = self.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 || window.from > window.to {
            return Vec::new();
        }
        // Walk from the newest and stop at `limit`: a query costs what it returns, not the ring size.
        let mut picked: Vec<Arc<LogEntry>> = entries
            .rev()
            .filter(|e| self.matches(e, window))
            .take(limit)
            .cloned()
            .collect();
        picked.reverse();
        // Stable: entries of one millisecond stay in the order they were stored.
        picked.sort_by_key(|e| e.t);
        picked
    }
}

/// The times (`t`, inclusive) the batch filters keep; [`Window::ALL`] without them, and an empty
/// one (`from > to`) for a batch not held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) from: u64,
    pub(crate) to: u64,
}

impl Window {
    pub(crate) const ALL: Window = Window { from: 0, to: u64::MAX };
    pub(crate) const NONE: Window = Window { from: 1, to: 0 };
}

/// A count or a sequence number: a whole number (`2`, `2.0`), never a fraction truncated (`1.5`
/// is refused).
fn parse_count(name: &str, value: &str) -> Result<u64, QueryError> {
    match parse_number(name, value) {
        Ok(n) if value.trim().parse::<f64>().is_ok_and(|f| f.fract() == 0.0) => Ok(n),
        _ => Err(QueryError::Count {
            name: name.to_owned(),
            value: value.trim().to_owned(),
        }),
    }
}

fn parse_number(name: &str, value: &str) -> Result<u64, QueryError> {
    let value = value.trim();
    if let Ok(n) = value.parse::<u64>() {
        return Ok(n);
    }
    // Accept finite non-negative floats (JS clients send `Date.now()` and sometimes `performance` times).
    match value.parse::<f64>() {
        Ok(f) if f.is_finite() && f >= 0.0 => Ok(f as u64),
        _ => Err(QueryError::Number {
            name: name.to_owned(),
            value: value.to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::LogBuffer;

    fn ring_with(entries: &[(Level, u64, &str, &str)]) -> LogBuffer {
        let ring = LogBuffer::new(100, usize::MAX);
        for (level, t, kind, client) in entries {
            ring.push(LogEntry {
                seq: 0,
                t: *t,
                client_id: client.to_string(),
                client_seq: None,
                kind: kind.to_string(),
                level: *level,
                text: format!("{kind}@{t}"),
                page: String::new(),
                fields: Default::default(),
                approx_bytes: 10,
            });
        }
        ring
    }

    #[test]
    fn filter_order_is_level_then_since_then_limit() {
        use Level::*;
        let ring = ring_with(&[
            (Error, 10, "error", "a"),
            (Info, 20, "console", "a"),
            (Error, 30, "error", "b"),
            (Error, 40, "network", "a"),
            (Warn, 50, "network", "b"),
        ]);
        let q = |s: &str| {
            ring.query(&LogQuery::parse(Some(s)).unwrap())
                .iter()
                .map(|e| e.t)
                .collect::<Vec<_>>()
        };
        assert_eq!(q("level=error"), [10, 30, 40]);
        assert_eq!(q("level=error&sinceMs=30"), [30, 40]);
        assert_eq!(q("level=error&limit=1"), [40]);
        assert_eq!(q("level=error&sinceMs=10&limit=2"), [30, 40]);
        assert_eq!(q("sinceMs=50"), [50]);
        assert_eq!(q("sinceMs=51"), Vec::<u64>::new());
        assert_eq!(q("limit=0"), Vec::<u64>::new());
        assert_eq!(q("type=network"), [40, 50]);
        assert_eq!(q("client=b"), [30, 50]);
        assert_eq!(q("afterSeq=3"), [40, 50]);
        assert_eq!(q("level=warn,error&type=network"), [40, 50]);
        assert_eq!(q(""), [10, 20, 30, 40, 50]);
    }

    #[test]
    fn entries_are_listed_as_they_happened_not_as_they_arrived() {
        use Level::*;
        // Arrival order: a click's server error, then the page's load entries delivered late.
        let ring = ring_with(&[
            (Error, 300, "server", ""),
            (Info, 100, "console", "a"),
            (Info, 300, "console", "a"),
            (Info, 200, "navigation", "a"),
        ]);
        let got = ring.query(&LogQuery::all());
        let order: Vec<(u64, u64)> = got.iter().map(|e| (e.t, e.seq)).collect();
        assert_eq!(order, [(100, 2), (200, 4), (300, 1), (300, 3)], "by t, then seq");
        // `limit` keeps the last stored, listed by when.
        let q = LogQuery::parse(Some("limit=2")).unwrap();
        let last_two: Vec<u64> = ring.query(&q).iter().map(|e| e.seq).collect();
        assert_eq!(last_two, [4, 3]);
    }

    #[test]
    fn batch_filters_parse_once_and_keep_nothing_unheld() {
        let q = LogQuery::parse(Some("batch=b7&sinceBatch=last")).unwrap();
        assert_eq!(
            (q.batch.as_deref(), q.since_batch.as_deref()),
            (Some("b7"), Some("last"))
        );
        assert!(LogQuery::parse(Some("sinceBatch=1&sinceBatch=2")).is_err());
        let ring = ring_with(&[(Level::Info, 10, "console", "a")]);
        assert!(ring.query(&q).is_empty(), "no batch is held");
        assert_eq!(
            ring.check_batches(&q).unwrap_err(),
            "batch \"b7\": no batch has run yet"
        );
        let n = ring.batches().begin(None, 5);
        ring.batches().end(n, None, 20);
        let q = LogQuery::parse(Some("batch=last")).unwrap();
        assert_eq!(ring.query(&q).len(), 1);
        assert!(ring.check_batches(&q).is_ok());
    }

    #[test]
    fn default_limit_is_fifty_newest() {
        let ring = LogBuffer::new(500, usize::MAX);
        for i in 0..120 {
            ring.push_text(&i.to_string());
        }
        let got = ring.query(&LogQuery::default());
        assert_eq!(got.len(), DEFAULT_LIMIT);
        assert_eq!(got[0].text, "70");
        assert_eq!(got[49].text, "119");
    }

    #[test]
    fn bad_parameters_name_themselves() {
        assert!(LogQuery::parse(Some("level=fatal"))
            .unwrap_err()
            .to_string()
            .contains("level"));
        assert!(LogQuery::parse(Some("sinceMs=-5"))
            .unwrap_err()
            .to_string()
            .contains("sinceMs"));
        assert!(LogQuery::parse(Some("afterSeq=x"))
            .unwrap_err()
            .to_string()
            .contains("afterSeq"));
        assert_eq!(
            LogQuery::parse(Some("type=bogus")).unwrap_err().to_string(),
            "invalid type \"bogus\": use console, error, network, websocket, dialog, interaction, navigation, dropped or server"
        );
        assert_eq!(
            LogQuery::parse(Some("type=Network")).unwrap().kind.as_deref(),
            Some("network")
        );
        assert_eq!(LogQuery::parse(Some("limit=2.0")).unwrap().limit, Some(2));
        // Empty values are not given; an unknown name is refused (a typo would read the whole log).
        assert_eq!(LogQuery::parse(Some("level=&type=")).unwrap(), LogQuery::default());
        assert_eq!(
            LogQuery::parse(Some("unknown=1")).unwrap_err().to_string(),
            "unknown parameter \"unknown\": the log query takes level, type, sinceMs, afterSeq, batch, sinceBatch, limit and client"
        );
    }
}
