//! Opt-in sinks: an NDJSON file of every stored entry (rotated by size) and the heartbeat state
//! file `{lastSeenAt, page}` (atomic writes; a corrupt file is ignored and never overwrites memory).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use serde_json::Value;

use crate::logs::LogEntry;

/// Appends entries to an NDJSON file, one a line, as `{"ts":ms,"timestamp":"ISO-8601",…entry}`.
/// When the file outgrows `max_bytes` it keeps its newest lines within half of that (always at least one).
#[derive(Debug)]
pub(crate) struct NdjsonSink {
    path: PathBuf,
    max_bytes: u64,
    file: Mutex<Option<(File, u64)>>,
}

impl NdjsonSink {
    pub(crate) fn new(path: PathBuf, max_bytes: u64) -> Self {
        NdjsonSink {
            path,
            max_bytes: max_bytes.max(1024),
            file: Mutex::new(None),
        }
    }

    /// Writes `entries`; I/O errors are reported to stderr once per batch and never reach the page.
    pub(crate) fn write(&self, entries: &[LogEntry]) {
        if entries.is_empty() {
            return;
        }
        if let Err(err) = self.try_write(entries) {
            eprintln!("browser-agent: cannot write {}: {err}", self.path.display());
        }
    }

    fn try_write(&self, entries: &[LogEntry]) -> io::Result<()> {
        let mut buf = Vec::with_capacity(entries.len() * 256);
        for entry in entries {
            let mut line = serde_json::to_value(entry).map_err(io::Error::other)?;
            if let Value::Object(map) = &mut line {
                let ts = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(entry.t) * 1_000_000)
                    .ok()
                    .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
                    .unwrap_or_default();
                map.insert("ts".into(), Value::from(entry.t));
                map.insert("timestamp".into(), Value::from(ts));
            }
            serde_json::to_writer(&mut buf, &line).map_err(io::Error::other)?;
            buf.push(b'\n');
        }
        let mut guard = self.file.lock();
        if guard.is_none() {
            if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
                fs::create_dir_all(dir)?;
            }
            let file = OpenOptions::new().create(true).append(true).open(&self.path)?;
            let len = file.metadata()?.len();
            *guard = Some((file, len));
        }
        let (file, len) = guard.as_mut().expect("opened above");
        file.write_all(&buf)?;
        *len += buf.len() as u64;
        if *len > self.max_bytes {
            let kept = rotate(&self.path, self.max_bytes / 2)?;
            let file = OpenOptions::new().create(true).append(true).open(&self.path)?;
            *guard = Some((file, kept));
        }
        Ok(())
    }
}

/// Keeps the newest whole lines of `path` within `budget` bytes (at least one line); returns the new size.
fn rotate(path: &Path, budget: u64) -> io::Result<u64> {
    let data = fs::read(path)?;
    let lines: Vec<&[u8]> = data.split_inclusive(|b| *b == b'\n').collect();
    let mut start = lines.len();
    let mut size = 0u64;
    while start > 0 {
        let next = lines[start - 1].len() as u64;
        if size + next > budget && start < lines.len() {
            break;
        }
        size += next;
        start -= 1;
    }
    let kept: Vec<u8> = lines[start..].concat();
    write_atomic(path, &kept)?;
    Ok(kept.len() as u64)
}

/// Writes `data` to a temp file beside `path`, then renames it over `path`.
pub(crate) fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    fs::write(&tmp, data)?;
    fs::rename(&tmp, path)
}

/// The persisted heartbeat state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientState {
    /// Last heartbeat, epoch ms.
    pub(crate) last_seen_at: u64,
    /// The page it came from (≤ 300 chars).
    pub(crate) page: String,
}

/// Parses a state file's content with the dsh rules: anything but an object with a finite
/// numeric `lastSeenAt` and a string `page` is `None` (extra keys are ignored).
pub(crate) fn parse_client_state(raw: &str) -> Option<ClientState> {
    if raw.trim().is_empty() {
        return None;
    }
    let value: Value = serde_json::from_str(raw).ok()?;
    let obj = value.as_object()?;
    let last = obj.get("lastSeenAt")?.as_f64().filter(|f| f.is_finite() && *f >= 0.0)?;
    let mut page = obj.get("page")?.as_str()?.to_owned();
    crate::util::truncate_chars(&mut page, crate::config::PAGE_MAX);
    Some(ClientState {
        last_seen_at: last as u64,
        page,
    })
}

/// Reads the state file; a missing, unreadable or malformed file gives `None`.
pub(crate) fn load_client_state(path: &Path) -> Option<ClientState> {
    fs::read_to_string(path).ok().as_deref().and_then(parse_client_state)
}

/// Writes the state file atomically; errors are reported to stderr and otherwise ignored.
pub(crate) fn store_client_state(path: &Path, state: &ClientState) {
    let body = serde_json::json!({"lastSeenAt": state.last_seen_at, "page": state.page}).to_string();
    if let Err(err) = write_atomic(path, body.as_bytes()) {
        eprintln!("browser-agent: cannot write {}: {err}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_files_follow_the_dsh_rules() {
        assert!(parse_client_state(r#"{"lastSeenAt":"x"}"#).is_none());
        assert_eq!(
            parse_client_state(r#"{"lastSeenAt":5,"page":"p","x":1}"#)
                .unwrap()
                .last_seen_at,
            5
        );
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("browser-agent-test-{name}-{}", crate::util::random_hex(4)));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn state_file_corruption_cases() {
        for bad in [
            "",
            "   ",
            "{",
            "null",
            "[1,2]",
            "5",
            r#"{"lastSeenAt":"x","page":"p"}"#,
            r#"{"lastSeenAt":1}"#,
            r#"{"lastSeenAt":1,"page":3}"#,
            r#"{"page":"p"}"#,
        ] {
            assert!(parse_client_state(bad).is_none(), "{bad:?}");
        }
        let ok = parse_client_state(&format!(r#"{{"lastSeenAt":12.0,"page":"{}"}}"#, "p".repeat(400))).unwrap();
        assert_eq!((ok.last_seen_at, ok.page.len()), (12, 300));

        let dir = temp_dir("state");
        let path = dir.join("state.json");
        assert!(load_client_state(&path).is_none(), "missing file");
        store_client_state(
            &path,
            &ClientState {
                last_seen_at: 99,
                page: "http://x/".into(),
            },
        );
        assert_eq!(load_client_state(&path).unwrap().last_seen_at, 99);
        fs::write(&path, "garbage").unwrap();
        assert!(load_client_state(&path).is_none());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn ndjson_rotates_by_size_keeping_newest_lines() {
        let dir = temp_dir("ndjson");
        let path = dir.join(".logs/browser.ndjson");
        let sink = NdjsonSink::new(path.clone(), 4096);
        let ring = crate::logs::LogBuffer::new(10_000, usize::MAX);
        for i in 0..200 {
            ring.push_text(&format!("line {i:04} {}", "x".repeat(50)));
        }
        let entries: Vec<LogEntry> = ring
            .query(&crate::LogQuery::all())
            .iter()
            .map(|e| (**e).clone())
            .collect();
        for chunk in entries.chunks(7) {
            sink.write(chunk);
        }
        let content = fs::read_to_string(&path).unwrap();
        assert!(content.len() as u64 <= 4096 + 200, "bounded: {}", content.len());
        let last = content.lines().last().unwrap();
        assert!(last.contains("line 0199"), "{last}");
        for line in content.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            assert!(v["ts"].is_u64() && v["timestamp"].as_str().unwrap().contains('T'));
        }
        fs::remove_dir_all(dir).unwrap();
    }
}
