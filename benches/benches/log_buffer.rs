//! `LogBuffer` push and query against two baselines in the same run: the dsh host's
//! copy-on-append array (every append builds a new array of the newest 500) and a bare `VecDeque`.

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::Arc;

use browser_agent_core::protocol::Level;
use browser_agent_core::{LogBuffer, LogEntry, LogQuery};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

const MAX: usize = 500;

fn entries() -> Vec<LogEntry> {
    (0..1000)
        .map(|i| {
            let level = [Level::Log, Level::Warn, Level::Error][i % 3];
            LogEntry::new(
                "console",
                level,
                format!("message number {i} with some text"),
                1_700_000_000_000 + i as u64,
            )
        })
        .collect()
}

/// dsh's `appendLogs`: a new array holding the newest `MAX` of old + new (entries shared, as JS spreads objects).
fn copy_on_append(existing: &[Arc<LogEntry>], incoming: Arc<LogEntry>) -> Vec<Arc<LogEntry>> {
    let keep = (existing.len() + 1).saturating_sub(MAX);
    let mut next = Vec::with_capacity(MAX);
    next.extend(existing[keep.min(existing.len())..].iter().cloned());
    next.push(incoming);
    next
}

fn push(c: &mut Criterion) {
    let source = entries();
    let mut group = c.benchmark_group("push");
    group.throughput(Throughput::Elements(source.len() as u64));
    group.bench_function("LogBuffer", |b| {
        b.iter_batched(
            || (LogBuffer::new(MAX, usize::MAX), source.clone()),
            |(ring, batch)| {
                for e in batch {
                    black_box(ring.bench_push(e));
                }
                ring
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("copy_on_append (dsh baseline)", |b| {
        b.iter_batched(
            || source.iter().cloned().map(Arc::new).collect::<Vec<_>>(),
            |batch| {
                let mut logs: Vec<Arc<LogEntry>> = Vec::new();
                for e in batch {
                    logs = copy_on_append(&logs, e);
                }
                logs
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("VecDeque (bare baseline)", |b| {
        b.iter_batched(
            || source.clone(),
            |batch| {
                let mut q = VecDeque::with_capacity(MAX);
                for e in batch {
                    if q.len() == MAX {
                        q.pop_front();
                    }
                    q.push_back(Arc::new(e));
                }
                q
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn query(c: &mut Criterion) {
    let ring = LogBuffer::new(MAX, usize::MAX);
    let mut array: Vec<Arc<LogEntry>> = Vec::new();
    for e in entries() {
        ring.bench_push(e.clone());
        array = copy_on_append(&array, Arc::new(e));
    }
    let q = LogQuery::parse(Some("level=error&sinceMs=1700000000100&limit=50")).unwrap();
    let mut group = c.benchmark_group("query");
    group.bench_function("LogBuffer", |b| b.iter(|| black_box(ring.query(black_box(&q)))));
    group.bench_function("filter+slice (dsh baseline)", |b| {
        b.iter(|| {
            // dsh's browser_console: take the buffer, filter level, filter since, slice(-limit).
            let filtered: Vec<Arc<LogEntry>> = array
                .iter()
                .filter(|e| e.level == Level::Error)
                .filter(|e| e.t >= 1_700_000_000_100)
                .cloned()
                .collect();
            let start = filtered.len().saturating_sub(50);
            black_box(filtered[start..].to_vec())
        })
    });
    group.finish();
}

criterion_group!(benches, push, query);
criterion_main!(benches);
