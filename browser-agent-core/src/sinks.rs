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

/// The `(clientId, clientSeq)` of the entries the NDJSON file at `path` holds, oldest first: what a
/// restarted host seeds its de-duplication with, so that a batch the previous process stored but
/// never answered (killed just after writing it) still counts once when the page retries it. Reads
/// at most the last `2 × max_bytes` of the file (it is rotated at `max_bytes`); a missing or
/// unreadable file gives nothing, and lines that are not entries of a page are skipped.
pub(crate) fn delivered_in(path: &Path, max_bytes: u64) -> Vec<(String, u64)> {
    use std::io::{Read, Seek, SeekFrom};
    #[derive(serde::Deserialize)]
    struct Origin {
        #[serde(rename = "clientId")]
        client_id: String,
        #[serde(rename = "clientSeq")]
        client_seq: u64,
    }
    let Ok(mut file) = File::open(path) else {
        return Vec::new();
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let start = len.saturating_sub(max_bytes.saturating_mul(2));
    let mut data = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err() || file.read_to_end(&mut data).is_err() {
        return Vec::new();
    }
    let mut lines = data.split(|b| *b == b'\n');
    if start > 0 {
        // The first line read is cut.
        lines.next();
    }
    lines
        .filter_map(|line| serde_json::from_slice::<Origin>(line).ok())
        .filter(|o| !o.client_id.is_empty())
        .map(|o| (o.client_id, o.client_seq))
        .collect()
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

/// Where the page key lives by default: `$XDG_RUNTIME_DIR/browser-agent` when the user has a
/// runtime dir (private, and emptied at logout), else `<temp>/browser-agent-<uid>`: a folder of
/// this user's, never one shared by every user of the machine.
pub(crate) fn default_key_dir(runtime_dir: Option<std::ffi::OsString>, temp: &Path, uid: Option<u32>) -> PathBuf {
    match runtime_dir.map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir.join("browser-agent"),
        _ => match uid {
            Some(uid) => temp.join(format!("browser-agent-{uid}")),
            None => temp.join("browser-agent"),
        },
    }
}

/// This process's user id (`None` off Unix, or where it cannot be learned).
#[cfg(unix)]
pub(crate) fn current_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    if let Ok(meta) = fs::metadata("/proc/self") {
        return Some(meta.uid());
    }
    // Elsewhere: the owner of a file this process creates.
    let probe = std::env::temp_dir().join(format!(
        ".browser-agent-uid-{}-{}",
        std::process::id(),
        crate::util::random_hex(4)
    ));
    let file = OpenOptions::new().write(true).create_new(true).open(&probe).ok()?;
    let uid = file.metadata().ok().map(|m| m.uid());
    let _ = fs::remove_file(&probe);
    uid
}
#[cfg(not(unix))]
pub(crate) fn current_uid() -> Option<u32> {
    None
}

/// Why a key file (or its folder) is not used.
fn unsafe_reason(meta: &fs::Metadata, uid: Option<u32>) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.file_type().is_symlink() {
            return Some("it is a symbolic link".to_owned());
        }
        if let Some(uid) = uid {
            if meta.uid() != uid {
                return Some(format!("it is owned by uid {}, not this user (uid {uid})", meta.uid()));
            }
        }
        let mode = meta.mode() & 0o777;
        if mode & 0o077 != 0 {
            return Some(format!("other users can access it (mode {mode:o})"));
        }
    }
    #[cfg(not(unix))]
    let _ = (meta, uid);
    None
}

/// Creates `dir` (and its parents) for the key, the last level with mode 0700; `Err` says why an
/// existing folder is not this user's private one.
fn key_dir(dir: &Path, uid: Option<u32>, check_existing: bool) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        if let Some(parent) = dir.parent() {
            let _ = fs::create_dir_all(parent);
        }
        match fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
    #[cfg(not(unix))]
    let _ = fs::create_dir_all(dir);
    if check_existing {
        let meta = fs::symlink_metadata(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        if let Some(why) = unsafe_reason(&meta, uid) {
            return Err(format!("folder {}: {why}", dir.display()));
        }
    }
    Ok(())
}

/// A key as the file holds it: at least 16 hex digits.
fn valid_key(raw: &str) -> Option<String> {
    let key = raw.trim();
    (key.len() >= 16 && key.bytes().all(|b| b.is_ascii_hexdigit())).then(|| key.to_owned())
}

/// The page key of the file at `path`: read when it is this user's and private (owner only),
/// else created exclusively with mode 0600 holding `fresh`. A file owned by someone else or
/// readable by others, or a folder that is not private, is refused with a warning on stderr, and
/// `fresh` is used for this run only. `check_dir` checks the folder too (the default location).
pub(crate) fn load_or_create_key(path: &Path, fresh: String, uid: Option<u32>, check_dir: bool) -> String {
    let warn = |why: &str| {
        eprintln!(
            "browser-agent: not using the key file {}: {why}; this run uses a fresh page key (pages reload once to get it)",
            path.display()
        );
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(why) = key_dir(dir, uid, check_dir) {
            warn(&why);
            return fresh;
        }
    }
    for _ in 0..20 {
        match fs::symlink_metadata(path) {
            Ok(meta) => {
                if let Some(why) = unsafe_reason(&meta, uid) {
                    warn(&why);
                    return fresh;
                }
                match fs::read_to_string(path).ok().as_deref().and_then(valid_key) {
                    Some(key) => return key,
                    // Being written by another process that created it a moment ago.
                    None if meta.len() == 0 => std::thread::sleep(std::time::Duration::from_millis(5)),
                    None => {
                        warn("it does not hold a key (16+ hex digits)");
                        return fresh;
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let mut options = OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                {
                    use std::os::unix::fs::OpenOptionsExt;
                    options.mode(0o600);
                }
                match options.open(path) {
                    Ok(mut file) => {
                        if let Err(e) = file.write_all(fresh.as_bytes()).and_then(|_| file.sync_all()) {
                            warn(&format!("cannot write it: {e}"));
                        }
                        return fresh;
                    }
                    // Another process created it first: read its key.
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => {
                        warn(&format!("cannot create it: {e}"));
                        return fresh;
                    }
                }
            }
            Err(e) => {
                warn(&format!("cannot read it: {e}"));
                return fresh;
            }
        }
    }
    warn("it stays empty");
    fresh
}

#[cfg(test)]
mod tests {
    use crate::adapter::AdapterExt;

    #[test]
    fn the_key_dir_is_the_users() {
        let tmp = Path::new("/tmp");
        assert_eq!(
            default_key_dir(Some("/run/user/1000".into()), tmp, Some(1000)),
            Path::new("/run/user/1000/browser-agent")
        );
        assert_eq!(
            default_key_dir(None, tmp, Some(1000)),
            Path::new("/tmp/browser-agent-1000")
        );
        assert_eq!(
            default_key_dir(Some("relative".into()), tmp, Some(7)),
            Path::new("/tmp/browser-agent-7")
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_key_file_is_private_and_a_planted_one_is_refused() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let root = std::env::temp_dir().join(format!(
            "ba-keyfile-{}-{}",
            std::process::id(),
            crate::util::random_hex(4)
        ));
        let uid = current_uid();
        assert!(uid.is_some());
        let dir = root.join("browser-agent-test");
        let path = dir.join("a.key");
        let first = load_or_create_key(&path, "0123456789abcdef0123".into(), uid, true);
        assert_eq!(first, "0123456789abcdef0123");
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        // The next run reads it.
        assert_eq!(
            load_or_create_key(&path, "ffffffffffffffffffff".into(), uid, true),
            first
        );

        // Readable by others: refused, left as it is, a fresh key for this run.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            load_or_create_key(&path, "eeeeeeeeeeeeeeeeeeee".into(), uid, true),
            "eeeeeeeeeeeeeeeeeeee"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), first);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();

        // Owned by another user (as if planted): refused. Only the uid check differs from a
        // real planted file, whose owner this test cannot set without root.
        let other = uid.map(|u| u + 1);
        assert_eq!(
            load_or_create_key(&path, "dddddddddddddddddddd".into(), other, false),
            "dddddddddddddddddddd"
        );

        // Run as root, the test plants a real one: owned by nobody, mode 0600.
        if uid == Some(0) {
            let planted = dir.join("planted.key");
            fs::write(&planted, "9999999999999999999999").unwrap();
            fs::set_permissions(&planted, fs::Permissions::from_mode(0o600)).unwrap();
            std::os::unix::fs::chown(&planted, Some(65534), Some(65534)).unwrap();
            assert_eq!(
                load_or_create_key(&planted, "aaaaaaaaaaaaaaaaaaaa".into(), uid, true),
                "aaaaaaaaaaaaaaaaaaaa"
            );
        }

        // A folder others can enter: refused.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            load_or_create_key(&path, "cccccccccccccccccccc".into(), uid, true),
            "cccccccccccccccccccc"
        );
        // A symbolic link planted as the key: refused.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
        let link = dir.join("b.key");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert_eq!(
            load_or_create_key(&link, "bbbbbbbbbbbbbbbbbbbb".into(), uid, true),
            "bbbbbbbbbbbbbbbbbbbb"
        );
        let _ = fs::remove_dir_all(&root);
    }
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

    /// POSTs `batch` to `/logs` as the page with key `k` would.
    async fn post_logs(agent: &crate::BrowserAgent, batch: &Value) -> u16 {
        let req = http::Request::post("/__mindstudio_dev__/logs")
            .header("host", "127.0.0.1:3000")
            .header("x-browser-agent-key", "k3y-for-restarts")
            .header("content-type", "application/json")
            .body(bytes::Bytes::from(batch.to_string()))
            .unwrap();
        agent.handle(req).await.unwrap().status().as_u16()
    }

    #[tokio::test]
    async fn a_restarted_host_counts_a_batch_the_previous_process_stored_once() {
        let dir = temp_dir("restart");
        let path = dir.join("browser.ndjson");
        let build = || {
            crate::BrowserAgent::builder()
                .enabled(true)
                .page_key("k3y-for-restarts")
                .ndjson_file(&path)
                .build()
        };
        let entry = |seq: u64| serde_json::json!({"type": "console", "level": "log", "args": [format!("n{seq}")], "clientId": "c", "seq": seq});
        let batch = |seqs: std::ops::RangeInclusive<u64>| Value::Array(seqs.map(entry).collect());
        let first = build();
        assert_eq!(post_logs(&first, &batch(1..=5)).await, 204);
        // Killed after writing, before answering: the page retries the batch, with more, at the
        // next process, which knows the first five from the file.
        drop(first);
        let second = build();
        assert_eq!(post_logs(&second, &batch(1..=8)).await, 204);
        assert_eq!(post_logs(&second, &batch(6..=8)).await, 204);
        let lines: Vec<Value> = fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let seqs: Vec<u64> = lines.iter().map(|l| l["clientSeq"].as_u64().unwrap()).collect();
        assert_eq!(seqs, [1, 2, 3, 4, 5, 6, 7, 8], "each entry once in the file");
        let console = second.logs().query(&crate::LogQuery::all());
        assert_eq!(console.len(), 3, "the new process stored only the new ones");
        // What the file holds, read back: only entries of pages, a cut first line skipped.
        fs::write(&path, "{\"clientId\":\"x\",\"clientSeq\":1}\nnot json\n{\"text\":\"no origin\"}\n{\"clientId\":\"y\",\"clientSeq\":2}\n").unwrap();
        assert_eq!(delivered_in(&path, 1024), [("x".to_owned(), 1), ("y".to_owned(), 2)]);
        assert_eq!(
            delivered_in(&path, 20),
            [("y".to_owned(), 2)],
            "the tail only, from a whole line"
        );
        assert!(delivered_in(&dir.join("missing.ndjson"), 1024).is_empty());
        fs::remove_dir_all(dir).unwrap();
    }
}
