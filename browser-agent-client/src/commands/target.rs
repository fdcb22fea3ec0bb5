//! The target of an acting step: resolved ([`super::resolve`]) and recorded as the running step's
//! ([`super::batch`]).

use super::batch;
use super::resolve::{self, Target};
use wasm_bindgen::prelude::*;

/// Resolves the step's target and records it as the running step's (for `matched` and the action log).
pub(crate) fn target(step: &JsValue, typing: bool) -> Result<Target, String> {
    let t = resolve::resolve(step, typing, true)?;
    batch::note(&t);
    Ok(t)
}
