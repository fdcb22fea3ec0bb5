//! The notes store: what developers pointed at in notes mode, as the pages sent them
//! ([`NOTES_PATH`](crate::protocol::NOTES_PATH)), bounded in count (oldest evicted first) and text
//! length, with a change signal the stdio bridge (and any Rust caller) waits on.

use std::collections::VecDeque;

use parking_lot::Mutex;
use tokio::sync::watch;

use crate::protocol::notes::{Note, NoteInput, NoteKind, MAX_ELEMENTS, MAX_TEXT};
use crate::protocol::screenshot::ScreenshotInfo;
use crate::util::truncate_chars;

/// Longest element description kept, in chars.
const MAX_ELEMENT_CHARS: usize = 300;
/// Longest URL kept, in chars.
const MAX_URL_CHARS: usize = crate::config::PAGE_MAX;
/// Longest page note id accepted.
const MAX_NID: usize = 64;

/// Why a posted note is refused (always a 400; the text names the field).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum NoteError {
    /// No `kind`.
    #[error("field \"kind\" must be \"pin\" (a point) or \"area\" (a box)")]
    Kind,
    /// A pin without `point`, or an area without `box`.
    #[error("a {0} note needs {1}")]
    Shape(&'static str, &'static str),
    /// A coordinate that is not a finite number.
    #[error("field \"{0}\" must hold finite numbers")]
    NotFinite(&'static str),
    /// Blank text.
    #[error("field \"text\" must say something (what the developer wrote)")]
    NoText,
    /// `nid` too long.
    #[error("field \"nid\" must be at most {MAX_NID} chars")]
    Nid,
}

/// The bounded store (see the module docs).
#[derive(Debug)]
pub(crate) struct NotesStore {
    max: usize,
    state: Mutex<State>,
    changed: watch::Sender<u64>,
}

#[derive(Debug, Default)]
struct State {
    next_id: u64,
    seq: u64,
    items: VecDeque<Note>,
}

impl NotesStore {
    /// A store of at most `max` notes (at least one).
    pub(crate) fn new(max: usize) -> NotesStore {
        NotesStore {
            max: max.max(1),
            state: Mutex::new(State::default()),
            changed: watch::channel(0).0,
        }
    }

    /// Stores the note `client` posted (text cut at [`MAX_TEXT`] chars, at most
    /// [`MAX_ELEMENTS`] elements), replacing the one with the same `nid` from the same page, or
    /// removes it when `deleted`; `shot` is the screenshot it names, looked up by the caller.
    /// `Ok(None)`: a retraction (or nothing to retract).
    pub(crate) fn insert(
        &self,
        client: &str,
        input: NoteInput,
        shot: Option<ScreenshotInfo>,
    ) -> Result<Option<Note>, NoteError> {
        if input.nid.chars().count() > MAX_NID {
            return Err(NoteError::Nid);
        }
        if input.deleted {
            if !input.nid.is_empty() {
                let mut state = self.state.lock();
                let before = state.items.len();
                state.items.retain(|n| !(n.client == client && n.nid == input.nid));
                if state.items.len() != before {
                    state.seq += 1;
                    let seq = state.seq;
                    drop(state);
                    self.changed.send_replace(seq);
                }
            }
            return Ok(None);
        }
        let kind = input.kind.ok_or(NoteError::Kind)?;
        match kind {
            NoteKind::Pin => {
                let p = input
                    .point
                    .ok_or(NoteError::Shape("pin", "\"point\": {\"x\", \"y\"}"))?;
                if !(p.x.is_finite() && p.y.is_finite()) {
                    return Err(NoteError::NotFinite("point"));
                }
            }
            NoteKind::Area => {
                let r = input
                    .rect
                    .ok_or(NoteError::Shape("area", "\"box\": {\"x\", \"y\", \"w\", \"h\"}"))?;
                if ![r.x, r.y, r.w, r.h].iter().all(|v| v.is_finite()) {
                    return Err(NoteError::NotFinite("box"));
                }
            }
        }
        let v = input.viewport;
        if ![v.w, v.h, v.scroll_x, v.scroll_y].iter().all(|n| n.is_finite()) {
            return Err(NoteError::NotFinite("viewport"));
        }
        let mut text = input.text.trim().to_owned();
        if text.is_empty() {
            return Err(NoteError::NoText);
        }
        truncate_chars(&mut text, MAX_TEXT);
        let mut url = input.url;
        truncate_chars(&mut url, MAX_URL_CHARS);
        let cut = |mut s: String| {
            truncate_chars(&mut s, MAX_ELEMENT_CHARS);
            s
        };
        let mut note = Note {
            id: String::new(),
            seq: 0,
            t: crate::util::now_ms(),
            client: client.to_owned(),
            kind,
            text,
            point: if kind == NoteKind::Pin { input.point } else { None },
            rect: if kind == NoteKind::Area { input.rect } else { None },
            url,
            viewport: v,
            element: cut(input.element),
            elements: input
                .elements
                .into_iter()
                .filter(|e| !e.is_empty())
                .take(MAX_ELEMENTS)
                .map(cut)
                .collect(),
            source: cut(input.source),
            screenshot: shot,
            nid: input.nid,
        };
        let mut state = self.state.lock();
        state.seq += 1;
        note.seq = state.seq;
        let same = |n: &Note| !note.nid.is_empty() && n.client == note.client && n.nid == note.nid;
        if let Some(at) = state.items.iter().position(same) {
            let old = state.items.remove(at).expect("found");
            note.id = old.id;
        } else {
            state.next_id += 1;
            note.id = format!("n{}", state.next_id);
        }
        while state.items.len() >= self.max {
            state.items.pop_front();
        }
        state.items.push_back(note.clone());
        let seq = state.seq;
        drop(state);
        self.changed.send_replace(seq);
        Ok(Some(note))
    }

    /// The notes, oldest first: of `client` only, when given, and with `seq` after `since`.
    pub(crate) fn list(&self, client: Option<&str>, since: Option<u64>) -> Vec<Note> {
        let mut notes: Vec<Note> = self
            .state
            .lock()
            .items
            .iter()
            .filter(|n| client.is_none_or(|c| n.client == c) && since.is_none_or(|s| n.seq > s))
            .cloned()
            .collect();
        notes.sort_by_key(|n| n.seq);
        notes
    }

    /// The note with this id.
    pub(crate) fn get(&self, id: &str) -> Option<Note> {
        self.state.lock().items.iter().find(|n| n.id == id).cloned()
    }

    /// Removes the note with this id (the agent handled it); whether it was there.
    pub(crate) fn delete(&self, id: &str) -> bool {
        let mut state = self.state.lock();
        let before = state.items.len();
        state.items.retain(|n| n.id != id);
        before != state.items.len()
    }

    /// Removes every note; how many there were.
    pub(crate) fn clear(&self) -> usize {
        let mut state = self.state.lock();
        let n = state.items.len();
        state.items.clear();
        n
    }

    /// The sequence number of the latest change (0 before the first note).
    pub(crate) fn last_seq(&self) -> u64 {
        self.state.lock().seq
    }

    /// A receiver that sees the latest sequence number each time notes arrive (or a page retracts
    /// one): `rx.changed().await`, then [`list`](Self::list) with the `since` seen before.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::notes::Point;

    fn pin(nid: &str, text: &str) -> NoteInput {
        NoteInput {
            nid: nid.into(),
            kind: Some(NoteKind::Pin),
            text: text.into(),
            point: Some(Point { x: 1.0, y: 2.0 }),
            ..Default::default()
        }
    }

    #[test]
    fn bounded_in_count_and_text() {
        let store = NotesStore::new(3);
        for i in 0..5 {
            store
                .insert("c", pin(&format!("p{i}"), &"x".repeat(MAX_TEXT + 50)), None)
                .unwrap();
        }
        let notes = store.list(None, None);
        let ids: Vec<_> = notes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["n3", "n4", "n5"]);
        assert_eq!(notes[0].text.chars().count(), MAX_TEXT);
        assert_eq!(store.list(None, Some(4)).len(), 1);
        assert_eq!(store.list(Some("other"), None).len(), 0);
    }

    #[test]
    fn refuses_bad_shapes() {
        let store = NotesStore::new(3);
        let mut no_point = pin("", "x");
        no_point.point = None;
        assert!(matches!(
            store.insert("c", no_point, None),
            Err(NoteError::Shape("pin", _))
        ));
        assert_eq!(store.insert("c", pin("", "  "), None), Err(NoteError::NoText));
        let mut nan = pin("", "x");
        nan.point = Some(Point { x: f64::NAN, y: 0.0 });
        assert_eq!(store.insert("c", nan, None), Err(NoteError::NotFinite("point")));
        let no_kind = NoteInput {
            text: "x".into(),
            ..Default::default()
        };
        assert_eq!(store.insert("c", no_kind, None), Err(NoteError::Kind));
        assert!(store.list(None, None).is_empty(), "a refused note stores nothing");
    }

    #[test]
    fn signals_changes() {
        let store = NotesStore::new(3);
        let mut rx = store.subscribe();
        store.insert("c", pin("a", "one"), None).unwrap();
        assert!(rx.has_changed().unwrap());
        assert_eq!(*rx.borrow_and_update(), 1);
        // Another page's note with the same nid is another note.
        store.insert("d", pin("a", "two"), None).unwrap();
        assert_eq!(store.list(None, None).len(), 2);
    }
}
