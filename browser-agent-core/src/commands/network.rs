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
        let bad = |why: String| super::refused_step(i, why);
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
            // A server entry of a request (`POST /api/pay → 500 …`): the page's entry of it.
            let page_entry = (entry.kind == entry_type::SERVER)
                .then(|| request_of(logs, &entry))
                .flatten()
                .map(|(n, other)| match other {
                    Some(c) if c != client => format!(
                        " (the page's entry of that request is #{n}, from page load {c}: give \"client\": \"{c}\")"
                    ),
                    _ => format!(" (the page's entry of that request is #{n})"),
                })
                .unwrap_or_default();
            return Err(bad(format!(
                "entry #{seq} is a {} entry; network answers fetch/XHR (network) and websocket entries{page_entry}",
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

/// How far around a server entry the page's entry of the same request is looked for (entries;
/// the page's arrives up to a flush later).
const NEAR: u64 = 200;

/// For a server entry that logs a request (`POST /api/pay → 500 …`): the nearest `network` entry
/// of a page with the same method and path, and that page.
fn request_of(logs: &LogBuffer, server: &crate::logs::LogEntry) -> Option<(u64, Option<String>)> {
    let request = |text: &str| text.split(" → ").next().filter(|r| r.contains(' ')).map(str::to_owned);
    let wanted = request(&server.text)?;
    logs.since_seq(server.seq.saturating_sub(NEAR))
        .into_iter()
        .take(2 * NEAR as usize)
        .filter(|e| e.kind == entry_type::NETWORK && request(&e.text).as_deref() == Some(wanted.as_str()))
        .min_by_key(|e| e.seq.abs_diff(server.seq))
        .map(|e| (e.seq, (!e.client_id.is_empty()).then(|| e.client_id.clone())))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::logs::LogEntry;
    use crate::protocol::Level;

    fn stored(logs: &LogBuffer, kind: &str, client: &str, page_seq: Option<u64>) -> u64 {
        let mut e = LogEntry::new(kind, Level::Info, "x", 1);
        e.client_id = client.into();
        e.client_seq = page_seq;
        logs.push(e)
    }

    fn refused(steps: &mut [Value], logs: &LogBuffer) -> String {
        match resolve(steps, logs, "c1") {
            Err(RunError::BadRequest(m)) => m,
            other => panic!("refused: {other:?}"),
        }
    }

    #[test]
    fn a_step_gets_the_page_s_number_and_bad_ones_say_why() {
        let logs = LogBuffer::new(100, 1 << 20);
        let request = stored(&logs, entry_type::NETWORK, "c1", Some(7));
        let socket = stored(&logs, entry_type::WEBSOCKET, "c1", Some(8));
        let console = stored(&logs, entry_type::CONSOLE, "c1", Some(9));
        let other_page = stored(&logs, entry_type::NETWORK, "c2", Some(1));
        let plain = stored(&logs, entry_type::NETWORK, "", None);

        let mut steps = vec![
            json!({"command": "click", "ref": "e1"}),
            json!({"command": "network", "seq": request}),
            json!({"command": "network", "seq": socket}),
        ];
        resolve(&mut steps, &logs, "c1").unwrap();
        assert_eq!(steps[0], json!({"command": "click", "ref": "e1"}));
        assert_eq!(
            steps[1],
            json!({"command": "network", "seq": request, "clientSeq": 7, "clientId": "c1"})
        );
        assert_eq!(steps[2]["clientSeq"], 8);

        let m = refused(&mut [json!({"command": "network", "seq": 99})], &logs);
        assert_eq!(m, "step 1 (nothing ran): there is no entry #99 yet (the last is #5)");
        let m = refused(&mut [json!({"command": "network", "seq": console})], &logs);
        assert!(
            m.starts_with("step 1 (nothing ran): entry #3 is a console entry; network answers"),
            "{m}"
        );
        let m = refused(&mut [json!({"command": "network", "seq": other_page})], &logs);
        assert!(
            m.contains("entry #4 is from page load c2 and this batch runs in c1") && m.contains("\"client\": \"c2\""),
            "{m}"
        );
        let m = refused(&mut [json!({"command": "network", "seq": plain})], &logs);
        assert!(m.contains("entry #5 did not come from our page client"), "{m}");

        // A server entry of a request names the page's entry of it (a frame's, here: its page).
        let text_entry = |kind: &str, client: &str, text: &str| {
            let mut e = LogEntry::new(kind, Level::Error, text, 1);
            e.client_id = client.into();
            e.client_seq = Some(3);
            logs.push(e)
        };
        let frames = text_entry(
            entry_type::NETWORK,
            "f1",
            "POST /api/pay → 500 Internal Server Error (4 ms)",
        );
        text_entry(
            entry_type::NETWORK,
            "c1",
            "POST /api/other → 500 Internal Server Error (1 ms)",
        );
        let server = text_entry(
            entry_type::SERVER,
            "",
            "POST /api/pay → 500 Internal Server Error (3 ms)",
        );
        let m = refused(&mut [json!({"command": "network", "seq": server})], &logs);
        assert!(
            m.ends_with(&format!(
                "entry #{server} is a server entry; network answers fetch/XHR (network) and websocket entries (the page's entry of that request is #{frames}, from page load f1: give \"client\": \"f1\")"
            )),
            "{m}"
        );

        // Evicted from the ring (it keeps 2 here).
        let small = LogBuffer::new(2, 1 << 20);
        for _ in 0..3 {
            stored(&small, entry_type::NETWORK, "c1", Some(1));
        }
        let m = refused(&mut [json!({"command": "network", "seq": 1})], &small);
        assert!(
            m.starts_with("step 1 (nothing ran): entry #1 is no longer in the log"),
            "{m}"
        );
    }
}
