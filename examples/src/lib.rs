//! What both demos (`cargo run --example axum_demo`, `cargo run --example actix_demo`) share,
//! framework-free, so each demo is only its framework's routes plus the one line that adds the
//! agent:
//! - [`cli`]: `PORT`, `--dir PATH`, `--stdio`, the agent the demos use and their banner;
//! - [`demo`]: the demo page (a form, buttons, a list, a fetch that fails on purpose, console
//!   output) and its small JSON API;
//! - [`static_files`]: `--dir PATH` serves a folder, so any page can be tried with the agent.
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

pub mod cli;
pub mod demo;
pub mod static_files;
