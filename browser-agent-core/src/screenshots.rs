//! The screenshot store: the images pages uploaded for `screenshot` steps, bounded in count and
//! bytes (oldest evicted first), optionally also written to a folder.
//!
//! A page uploads the encoded bytes once ([`SCREENSHOTS_PATH`](crate::protocol::SCREENSHOTS_PATH));
//! the agent reads them at `GET {prefix}/screenshots/{id}.{png|jpg}`, inline in a step result, or
//! through [`BrowserAgent::screenshot`](crate::BrowserAgent::screenshot).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use parking_lot::Mutex;

#[cfg(test)]
use crate::protocol::screenshot::Format;
use crate::protocol::screenshot::ScreenshotInfo;

/// How many screenshots the store keeps by default.
pub(crate) const DEFAULT_MAX_SCREENSHOTS: usize = 64;
/// How many bytes of screenshots the store keeps by default (64 MiB).
pub(crate) const DEFAULT_MAX_SCREENSHOT_BYTES: usize = 64 * 1024 * 1024;
/// The largest upload accepted by default (16 MiB: a 1,568 × 16,384 px PNG of a long page fits).
pub(crate) const DEFAULT_SCREENSHOT_UPLOAD_LIMIT: usize = 16 * 1024 * 1024;

/// One stored screenshot: what it is and its encoded bytes. Taken with
/// [`Screenshots::take`](crate::Screenshots::take), read again with
/// [`Screenshots::get`](crate::Screenshots::get).
///
/// ```
/// use browser_agent_core::{BrowserAgent, Screenshot};
/// let agent = BrowserAgent::builder().enabled(true).build();
/// let shot: Option<Screenshot> = agent.screenshots().get("s1");
/// assert!(shot.is_none(), "no page uploaded one");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Screenshot {
    /// Its description (the `screenshot` step's result).
    pub info: ScreenshotInfo,
    /// The encoded image.
    pub bytes: Bytes,
}

impl Screenshot {
    /// A 1 × 1 PNG, for tests.
    #[cfg(test)]
    pub(crate) fn new_png_for_docs() -> Screenshot {
        const PIXEL: &[u8] = &[
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
            0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00,
            0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF,
            0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ];
        Screenshot {
            info: ScreenshotInfo {
                id: String::new(),
                url: String::new(),
                width: 1,
                height: 1,
                bytes: PIXEL.len(),
                ms: 0,
                method: "foreignobject".into(),
                format: Format::Png,
                warnings: Vec::new(),
                client: String::new(),
                page: String::new(),
                data: None,
            },
            bytes: Bytes::from_static(PIXEL),
        }
    }
}

/// The bounded store (see the module docs).
#[derive(Debug)]
pub(crate) struct ScreenshotStore {
    max_count: usize,
    max_bytes: usize,
    dir: Option<PathBuf>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    bytes: usize,
    items: VecDeque<Screenshot>,
}

/// Why a screenshot was not stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum StoreError {
    /// Bigger than the whole store.
    #[error("the screenshot is {bytes} bytes, more than the store holds ({max} bytes)")]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The store's byte bound.
        max: usize,
    },
}

impl ScreenshotStore {
    /// A store of at most `max_count` screenshots and `max_bytes` bytes; with `dir`, each is also
    /// written there (as `{id}-{epoch ms}.{png|jpg}`, through a temporary name, so a reader never
    /// sees half a file).
    pub(crate) fn new(max_count: usize, max_bytes: usize, dir: Option<PathBuf>) -> ScreenshotStore {
        ScreenshotStore {
            max_count: max_count.max(1),
            max_bytes: max_bytes.max(1),
            dir,
            state: Mutex::new(State::default()),
        }
    }

    /// Stores `shot` under the next id (`s1`, `s2`, …), evicting the oldest until it fits; the
    /// stored copy's `info` carries its id and size (and no URL: the route that stores an upload
    /// gives it the address it was reached at).
    ///
    /// ```
    /// use browser_agent_core::{Screenshot, ScreenshotStore};
    /// let store = ScreenshotStore::new(2, 1 << 20, None);
    /// for _ in 0..3 {
    ///     store.insert(Screenshot::new_png_for_docs()).unwrap();
    /// }
    /// let ids: Vec<_> = store.list().into_iter().map(|i| i.id).collect();
    /// assert_eq!(ids, ["s2", "s3"]); // the oldest was evicted
    /// ```
    #[cfg(test)]
    pub(crate) fn insert(&self, shot: Screenshot) -> Result<Screenshot, StoreError> {
        self.insert_with_url(shot, |_| String::new())
    }

    /// [`insert`](Self::insert), with the URL it is served at made from its description (its id).
    pub(crate) fn insert_with_url(
        &self,
        mut shot: Screenshot,
        url: impl FnOnce(&ScreenshotInfo) -> String,
    ) -> Result<Screenshot, StoreError> {
        let size = shot.bytes.len();
        if size > self.max_bytes {
            return Err(StoreError::TooLarge {
                bytes: size,
                max: self.max_bytes,
            });
        }
        shot.info.bytes = size;
        shot.info.data = None;
        let mut state = self.state.lock();
        state.next += 1;
        shot.info.id = format!("s{}", state.next);
        shot.info.url = url(&shot.info);
        while state.items.len() >= self.max_count || state.bytes + size > self.max_bytes {
            let Some(old) = state.items.pop_front() else { break };
            state.bytes -= old.bytes.len();
        }
        state.bytes += size;
        state.items.push_back(shot.clone());
        drop(state);
        if let Some(dir) = &self.dir {
            write_file(dir, &shot);
        }
        Ok(shot)
    }

    /// The screenshot with this id, while the store still holds it.
    pub(crate) fn get(&self, id: &str) -> Option<Screenshot> {
        self.state.lock().items.iter().find(|s| s.info.id == id).cloned()
    }

    /// What the store holds, oldest first.
    pub(crate) fn list(&self) -> Vec<ScreenshotInfo> {
        self.state.lock().items.iter().map(|s| s.info.clone()).collect()
    }
}

/// Writes a screenshot into `dir` through a temporary name; a failure is reported once on stderr
/// and never loses the stored copy.
fn write_file(dir: &Path, shot: &Screenshot) {
    let name = format!(
        "{}-{}.{}",
        shot.info.id,
        crate::util::now_ms(),
        shot.info.format.extension()
    );
    let tmp = dir.join(format!(".{name}.tmp"));
    let result = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, &shot.bytes))
        .and_then(|()| std::fs::rename(&tmp, dir.join(&name)));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| eprintln!("browser-agent: cannot write screenshots to {}: {e}", dir.display()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shot(len: usize) -> Screenshot {
        let mut s = Screenshot::new_png_for_docs();
        let mut b = s.bytes.to_vec();
        b.resize(len.max(b.len()), 0);
        s.bytes = Bytes::from(b);
        s
    }

    #[test]
    fn bounded_by_bytes_and_count() {
        let store = ScreenshotStore::new(10, 300, None);
        for _ in 0..5 {
            store.insert(shot(100)).unwrap();
        }
        let ids: Vec<_> = store.list().into_iter().map(|i| i.id).collect();
        assert_eq!(ids, ["s3", "s4", "s5"]);
        assert_eq!(
            store.insert(shot(301)).unwrap_err(),
            StoreError::TooLarge { bytes: 301, max: 300 }
        );
        // A refused one evicts nothing.
        assert_eq!(store.list().len(), 3);
    }

    #[test]
    fn written_to_the_folder_whole() {
        let dir = std::env::temp_dir().join(format!("ba-shots-{}", crate::util::random_hex(6)));
        let store = ScreenshotStore::new(2, 1 << 20, Some(dir.clone()));
        let stored = store.insert(shot(10)).unwrap();
        let files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        let name = files[0].to_string_lossy().into_owned();
        assert!(name.starts_with("s1-") && name.ends_with(".png"), "{name}");
        assert_eq!(std::fs::read(dir.join(&name)).unwrap(), stored.bytes);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
