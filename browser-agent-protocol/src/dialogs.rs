//! Native dialogs (`alert`, `confirm`, `prompt`, and `beforeunload`'s "Leave site?"): how a batch
//! or a step says they are answered, and the `dialog` log entry the page sends for each one it
//! answered.
//!
//! The policy is two fields, on the batch (for every step) or on one step (for the dialogs opened
//! while it runs): [`DIALOG`] (`accept`, the default, or `dismiss`) and [`PROMPT_TEXT`] (what a
//! `prompt` gets when accepted; without it, the prompt's own default).
//!
//! ```
//! use browser_agent_protocol::{dialogs, COMMON_STEP_FIELDS};
//! assert!(COMMON_STEP_FIELDS.iter().any(|(name, _)| *name == dialogs::DIALOG));
//! assert_eq!(dialogs::ANSWERS, ["accept", "dismiss"]);
//! ```

/// `dialog`: `accept` (OK: `confirm` true, `prompt` its text, `beforeunload` leaves) or `dismiss`
/// (Cancel: `confirm` false, `prompt` null, `beforeunload` stays on the page).
pub const DIALOG: &str = "dialog";
/// `promptText`: the text an accepted `prompt` answers (else the prompt's own default).
pub const PROMPT_TEXT: &str = "promptText";
/// The words [`DIALOG`] takes, the default first.
pub const ANSWERS: [&str; 2] = [ACCEPT, DISMISS];
/// See [`DIALOG`]: the default.
pub const ACCEPT: &str = "accept";
/// See [`DIALOG`].
pub const DISMISS: &str = "dismiss";

/// Fields of a `dialog` log entry ([`crate::entry_type::DIALOG`]): which dialog
/// (`alert`, `confirm`, `prompt`, `beforeunload`).
pub const KIND: &str = "kind";
/// The dialog's text (`beforeunload`: the `returnValue` the page set, often empty).
pub const MESSAGE: &str = "message";
/// What the dialog returned to the page: `confirm` true or false, `prompt` the text or null;
/// `beforeunload` true (left) or false (stayed); absent for `alert`.
pub const ANSWER: &str = "answer";
/// Set when the page opened it while no batch ran (answered by the default, [`ACCEPT`], because
/// an agent was attached and no person had acted).
pub const OUTSIDE: &str = "outside";
/// The index, within the agent's batch, of the step that was running when it opened.
pub const STEP: &str = "step";
