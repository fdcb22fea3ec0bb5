//! What a lookup gives: the [`Target`] found, or the [`Miss`] that says why none was.

use web_sys::Element;

/// A resolved target: the element and how it is described (`button "Save" [ref=e7]`).
pub(crate) struct Target {
    /// The element acted on.
    pub(crate) el: Element,
    /// Its description, as the snapshot shows it.
    pub(crate) label: String,
}

/// Why a step's target was not resolved; each carries the text for the agent.
pub(crate) enum Miss {
    /// Several elements match equally well (the text lists them).
    Several(String),
    /// Nothing usable matches (the text says what is there instead; empty for a quiet lookup).
    Nothing(String),
}

impl Miss {
    /// The text for the agent.
    pub(crate) fn into_text(self) -> String {
        match self {
            Miss::Several(m) | Miss::Nothing(m) => m,
        }
    }
}

impl From<Miss> for String {
    fn from(m: Miss) -> String {
        m.into_text()
    }
}
