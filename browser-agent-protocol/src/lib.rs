#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// One concern per file; each private one's items are re-exported at the root, where the host and
// the client have always named them (`browser_agent_core::protocol::LOGS_PATH`).
mod dom;
mod headers;
mod heartbeat;
mod level;
mod limits;
mod refs;
mod routes;
mod steps;
mod tag;

pub mod base64;
pub mod dialogs;
pub mod entry_type;
pub mod field;
pub mod keys;
pub mod lazy;
pub mod mcp;
pub mod network;
pub mod notes;
pub mod page_tools;
pub mod param;
pub mod screenshot;
pub mod snapshot;
pub mod source;
pub mod upload;

pub use dom::*;
pub use headers::*;
pub use heartbeat::{Heartbeat, Phase};
pub use level::Level;
pub use limits::*;
pub use refs::{Ref, REF_FORM};
pub use routes::*;
pub use steps::{
    FieldKind, StepFields, TargetUse, COMMANDS, COMMON_STEP_FIELDS, OPTIONAL, STEP_FIELDS, TARGET_FIELDS,
    TARGET_STEP_FIELDS, WAIT_NETWORK,
};
pub use steps::{DRAG_DX, DRAG_DY, DRAG_TO};
pub use tag::{TagConfig, CONFIG_ATTR};

// The JSON shapes of the command channel, typed for the host and the tests: they hold
// `serde_json::Value`s, so they come with the `json` feature (the wasm client reads the same
// names through `field`).
#[cfg(feature = "json")]
mod command_error;
#[cfg(feature = "json")]
mod delivery;
#[cfg(feature = "json")]
mod results;

#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub use command_error::{CommandError, COMMAND_ERROR};
#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub use delivery::Delivery;
#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub use results::{Handover, Results, StepResult};
