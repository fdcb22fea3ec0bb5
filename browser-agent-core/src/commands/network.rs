//! The `network` step names an entry by the host's `seq` (what the agent reads in the log, `#12`);
//! the page keeps its requests by its own sequence number. Before a batch goes to its page, each
//! such step gets the page's number and page load ([`network::PAGE_SEQ`],
//! [`network::PAGE_CLIENT`]), and an entry that is not there, is no request or socket, or belongs
//! to another page is refused with a 400 that says which entry and why.

use serde_json::Value;

use super::RunError;
use crate::logs::LogBuffer;
use crate::protocol::{entry_type, field, network};

/// Fills in the page's numbers of the entries the batch's `network` steps name (page `client`
/// runs the batch); a step whose entry cannot answer is a [`RunError::BadRequest`].
pub(crate) fn resolve(steps: &mut [Value], logs: &LogBuffer, client: &str) -> Result<(), RunError> {
    for (i, step) in steps.iter_mut().enumerate() {
        if step.get(field::COMMAND).and_then(Value::as_str) != Some(network::COMMAND) {
            continue;
        }
        // The step was validated: `seq` is a whole number.
        let Some(seq) = step.get(network::SEQ).and_then(Value::as_u64) else {
            continue;
        };
        let bad = |why: String| RunError::BadRequest(format!("step {i}: {why}"));
        let entry = logs
            .since_seq(seq.saturating_sub(1))
            .into_iter()
            .next()
            .filter(|e| e.seq == seq);
        let Some(entry) = entry else {
            let last = logs.last_seq();
            return Err(bad(if seq > last {
                format!("there is no entry #{seq} yet (the last is #{last})")
            } else {
                format!("entry #{seq} is no longer in the log (it keeps the newest entries; read them with browser_logs or GET /console)")
            }));
        };
        if entry.kind != entry_type::NETWORK && entry.kind != entry_type::WEBSOCKET {
            return Err(bad(format!(
                "entry #{seq} is a {} entry; network answers fetch/XHR (network) and websocket entries",
                entry.kind
            )));
        }
        let page_seq = match entry.client_seq {
            Some(s) if !entry.client_id.is_empty() => s,
            _ => {
                return Err(bad(format!(
                    "entry #{seq} did not come from our page client, which alone keeps bodies"
                )))
            }
        };
        if entry.client_id != client {
            return Err(bad(format!(
                "entry #{seq} is from page load {} and this batch runs in {client}: the page keeps the bodies of its own requests only (a reload drops them); give \"client\": \"{}\" if that page is still open",
                entry.client_id, entry.client_id
            )));
        }
        if let Value::Object(map) = step {
            map.insert(network::PAGE_SEQ.into(), page_seq.into());
            map.insert(network::PAGE_CLIENT.into(), entry.client_id.clone().into());
        }
    }
    Ok(())
}
