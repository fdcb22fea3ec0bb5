//! Benchmarks live in `benches/benches/`; run them with `cargo bench -p browser-agent-benches`.
