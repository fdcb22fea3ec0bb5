//! Entries in, ring plus sink out: the one path by which log entries are stored (the ring and
//! the NDJSON file), with the de-duplication of typed entries by `(clientId, seq)`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{normalize_typed, LogEntry, RawEntry};
use crate::error::IngestError;
use crate::util::now_ms;
use crate::BrowserAgent;

impl BrowserAgent {
    /// The ingest path of typed entries (`POST {prefix}/logs`, and the `logs` of `POST {prefix}/results`):
    /// validates every entry first (`Err` names the first bad one; nothing is stored then), then
    /// stores each `(clientId, seq)` once. With `answer`, returns the stored entries, each once, in
    /// host `seq` order as `GET /console` lists them: the ones stored now, and those an earlier
    /// delivery stored, looked up (one the ring has evicted since is returned as sent, with `seq` 0).
    pub(crate) fn ingest_typed(&self, items: Vec<RawEntry>, answer: bool) -> Result<Vec<Arc<LogEntry>>, IngestError> {
        let now = now_ms();
        let limits = self.limits();
        let clients = &self.inner.clients;
        let mut normalized = Vec::with_capacity(items.len());
        // Pages named earlier in this batch, for entries (network, dropped) that name none.
        let mut batch_pages: HashMap<String, String> = Default::default();
        for (index, item) in items.into_iter().enumerate() {
            let page_of = |c: &str| batch_pages.get(c).cloned().or_else(|| clients.page_of(c));
            match normalize_typed(item, limits, page_of, now) {
                Ok(Some(n)) => {
                    let (client, page) = (&n.entry.client_id, &n.entry.page);
                    if !client.is_empty() && !page.is_empty() && batch_pages.get(client) != Some(page) {
                        batch_pages.insert(client.clone(), page.clone());
                    }
                    normalized.push(n);
                }
                Ok(None) => {}
                Err(why) => return Err(IngestError { index, why }),
            }
        }
        // One registry lock for the batch: proof of life and each (clientId, seq) stored once.
        let origins: Vec<_> = normalized
            .iter()
            .map(|n| n.origin.as_ref().map(|(c, s)| (c.as_str(), *s, n.entry.page.as_str())))
            .collect();
        let first = clients.deliveries(&origins, now);
        if !answer {
            let fresh = normalized
                .into_iter()
                .zip(first)
                .filter(|(_, first)| *first)
                .map(|(n, _)| n.entry)
                .collect();
            self.store(fresh);
            return Ok(Vec::new());
        }
        let (fresh, known): (Vec<_>, Vec<_>) = normalized.into_iter().zip(first).partition(|(_, first)| *first);
        let stored = self.store_shared(fresh.into_iter().map(|(n, _)| n.entry).collect());
        let known_origins: Vec<(&str, u64)> = known
            .iter()
            .filter_map(|(n, _)| n.origin.as_ref().map(|(c, s)| (c.as_str(), *s)))
            .collect();
        let mut looked_up = self.inner.logs.find_origins(&known_origins).into_iter();
        let mut known_entries: Vec<Arc<LogEntry>> = Vec::with_capacity(known.len());
        for (n, _) in known {
            let found = if n.origin.is_some() {
                looked_up.next().flatten()
            } else {
                None
            };
            known_entries.push(found.unwrap_or_else(|| {
                let mut entry = vec![LogEntry { seq: 0, ..n.entry }];
                self.redact(&mut entry);
                Arc::new(entry.remove(0))
            }));
        }
        let mut all: Vec<Arc<LogEntry>> = stored.into_iter().chain(known_entries).collect();
        all.sort_by_key(|e| e.seq);
        let mut seen = HashSet::new();
        all.retain(|e| match e.client_seq {
            Some(s) if !e.client_id.is_empty() => seen.insert((e.client_id.clone(), s)),
            _ => true,
        });
        Ok(all)
    }

    /// Stores entries (already normalized and de-duplicated) in the ring and the sinks.
    pub(crate) fn store(&self, mut entries: Vec<LogEntry>) -> usize {
        let n = entries.len();
        if n == 0 {
            return 0;
        }
        self.redact(&mut entries);
        match &self.inner.ndjson {
            None => {
                self.inner.logs.push_many(entries);
            }
            Some(sink) => {
                let first = self.inner.logs.push_many(entries.clone());
                let stored: Vec<_> = entries
                    .into_iter()
                    .zip(first..)
                    .map(|(mut e, seq)| {
                        e.seq = seq;
                        e
                    })
                    .collect();
                sink.write(&stored);
            }
        }
        n
    }

    /// [`store`](Self::store) that gives back the stored entries (with their `seq`).
    pub(crate) fn store_shared(&self, mut entries: Vec<LogEntry>) -> Vec<Arc<LogEntry>> {
        if entries.is_empty() {
            return Vec::new();
        }
        self.redact(&mut entries);
        let stored = self.inner.logs.push_many_shared(entries);
        if let Some(sink) = &self.inner.ndjson {
            let copies: Vec<LogEntry> = stored.iter().map(|e| (**e).clone()).collect();
            sink.write(&copies);
        }
        stored
    }

    /// Replaces secrets in entries about to be stored (see [`Redaction`](super::Redaction)).
    fn redact(&self, entries: &mut [LogEntry]) {
        let redaction = &self.inner.config.redaction;
        if redaction.on {
            entries.iter_mut().for_each(|e| redaction.entry(e));
        }
    }
}
