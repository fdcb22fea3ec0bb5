#![doc = include_str!("../README.md")]
//!
//! ## The library
//!
//! This crate is a third adapter: a reverse proxy (hyper, streaming both ways, WebSocket upgrades
//! passed through, TLS to an `https://` dev server) that answers the agent's routes through
//! `browser-agent-core` and streams the page client's tag into the dev server's HTML with core's
//! injection code, as the tower and actix adapters do. With `--run "CMD"` it also starts the dev
//! server, feeds its output to core's server-error patterns, and stops its process group on exit.
//! The modules are public for the crate's own tests and benchmarks; the interface is the binary.
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

pub mod app;
pub mod args;
pub mod body;
pub mod init;
pub mod proxy;
pub mod run;
pub mod target;
pub mod term;
mod tls;

/// The exit codes of `browser-agent`.
pub mod exit {
    /// Stopped normally (the dev server exited successfully, or the stdio peer closed).
    pub const OK: i32 = 0;
    /// The dev server (`--run`) could not start, exited before it answered, or failed later.
    pub const FAILURE: i32 = 1;
    /// Bad arguments (clap's code too).
    pub const USAGE: i32 = 2;
    /// Cannot listen on `--port` (in use, or not allowed).
    pub const LISTEN: i32 = 3;
    /// Nothing accepted connections at `--target` within `--startup-timeout`.
    pub const UNREACHABLE: i32 = 4;
    /// Stopped by Ctrl-C (128 + SIGINT).
    pub const INTERRUPTED: i32 = 130;
    /// Stopped by SIGTERM (128 + SIGTERM).
    pub const TERMINATED: i32 = 143;
}
