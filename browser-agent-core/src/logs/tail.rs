//! A dev server's log file, followed like `tail -F`: each new line goes through
//! [`BrowserAgent::server_log_line`] ([`BrowserAgent::tail_server_log`],
//! [`BrowserAgentBuilder::server_log_file`](crate::BrowserAgentBuilder::server_log_file)).
//!
//! A std thread polls the file (no async runtime needed, so any host can use it), holding only a
//! weak reference to the agent: it ends within one poll once the agent's last handle is dropped.

use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use super::server::ServerLines;
use super::ServerStream;
use crate::agent::Inner;
use crate::BrowserAgent;

/// How often a tailed file is looked at: a line written now is a `server` entry within this.
pub(crate) const TAIL_POLL: Duration = Duration::from_millis(200);
/// The longest line kept whole, in bytes: a longer one is cut here (its rest up to the newline is
/// dropped), so a file without line breaks cannot grow the buffer.
pub(crate) const TAIL_MAX_LINE: usize = 64 * 1024;
/// What one poll reads at most; the rest waits for the next poll.
const READ_PER_POLL: u64 = 4 * 1024 * 1024;

impl BrowserAgent {
    /// Follows a log file the dev server writes: from its current end (what is there already is
    /// not read), every complete new line is fed to [`AdapterExt::server_log_line`](crate::adapter::AdapterExt::server_log_line)
    /// with the stream `file`, so lines matching an error pattern become `server` entries.
    ///
    /// - A file that does not exist yet is read from its start once it appears.
    /// - Truncated in place (the file got shorter): read again from its start.
    /// - Rotated (renamed away and created again; on Unix, another inode at the path): the old
    ///   file's last lines are read, then the new file from its start.
    /// - A line without its newline yet waits for it; lines longer than 64 KiB
    ///   are cut there. Bytes that are not UTF-8 are replaced.
    ///
    /// A background thread polls every 200 ms; it holds no strong handle, and ends within
    /// one poll after the agent's last handle is dropped (the returned handle joins it). Does
    /// nothing (and returns `None`) for a disabled agent or when no thread can be started.
    ///
    /// ```
    /// use std::io::Write;
    /// use browser_agent_core::{BrowserAgent, LogQuery};
    /// let path = std::env::temp_dir().join(format!("tail-doc-{}.log", std::process::id()));
    /// std::fs::write(&path, "Error: before the tail started (not read)\n").unwrap();
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let thread = agent.tail_server_log(&path).unwrap();
    /// let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    /// writeln!(file, "Compiled in 12 ms").unwrap();
    /// writeln!(file, "TypeError: Cannot read properties of undefined (reading 'id')").unwrap();
    /// let q = LogQuery::parse(Some("type=server")).unwrap();
    /// let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    /// while agent.logs().query(&q).is_empty() && std::time::Instant::now() < deadline {
    ///     std::thread::sleep(std::time::Duration::from_millis(20));
    /// }
    /// let entries = agent.logs().query(&q);
    /// assert_eq!(entries.len(), 1);
    /// assert_eq!(entries[0].field_str("stream"), Some("file"));
    /// drop(agent);
    /// thread.join().unwrap(); // ends with the agent
    /// # std::fs::remove_file(&path).ok();
    /// ```
    pub fn tail_server_log(&self, path: impl AsRef<Path>) -> Option<JoinHandle<()>> {
        if !self.enabled() {
            return None;
        }
        let mut tail = Tail::start(path.as_ref().to_path_buf());
        let agent: Weak<Inner> = Arc::downgrade(&self.inner);
        std::thread::Builder::new()
            .name("browser-agent-tail".into())
            .spawn(move || loop {
                // An error held for its next line is stored once the file has been quiet that long.
                let wait = tail.lines.errors.due().map_or(TAIL_POLL, |due| {
                    due.saturating_duration_since(std::time::Instant::now()).min(TAIL_POLL)
                });
                std::thread::sleep(wait);
                let Some(inner) = agent.upgrade() else { return };
                let agent = BrowserAgent { inner };
                tail.poll(&agent);
                tail.lines.errors.flush_if_quiet(&agent);
            })
            .ok()
    }
}

/// Which file a path names: on Unix its device and inode, elsewhere only "a file" (a rotation is
/// then seen when the file gets shorter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId(u64, u64);

#[cfg(unix)]
fn file_id(meta: &Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId(meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn file_id(_: &Metadata) -> FileId {
    FileId(0, 0)
}

/// One followed file: the open file, how far it was read, the line begun but not ended.
#[derive(Debug)]
struct Tail {
    path: PathBuf,
    file: Option<(File, FileId)>,
    pos: u64,
    lines: Lines,
}

/// The line begun but not ended, and the error being grouped.
#[derive(Debug)]
struct Lines {
    partial: Vec<u8>,
    /// The current line was cut at [`TAIL_MAX_LINE`]: drop bytes up to its newline.
    skipping: bool,
    /// The complete lines, grouped into errors (a stack trace is one entry).
    errors: ServerLines,
}

impl Default for Lines {
    fn default() -> Lines {
        Lines {
            partial: Vec::new(),
            skipping: false,
            errors: ServerLines::new(ServerStream::File),
        }
    }
}

impl Lines {
    /// A fresh start (truncation, a new file): the error held is stored first.
    fn restart(&mut self, agent: &BrowserAgent) {
        self.errors.flush(agent);
        *self = Lines::default();
    }
}

impl Tail {
    /// From the end of the file there now, or (none there yet) from the start of the one that comes.
    fn start(path: PathBuf) -> Tail {
        let mut tail = Tail {
            path,
            file: None,
            pos: 0,
            lines: Lines::default(),
        };
        if let Ok(file) = File::open(&tail.path) {
            if let Ok(meta) = file.metadata() {
                tail.pos = meta.len();
                tail.file = Some((file, file_id(&meta)));
            }
        }
        tail
    }

    fn poll(&mut self, agent: &BrowserAgent) {
        let meta = match std::fs::metadata(&self.path) {
            Ok(meta) => meta,
            // Gone (rotated, not created again yet): what the old file still gets is read.
            Err(_) => {
                self.read_new(agent);
                return;
            }
        };
        let id = file_id(&meta);
        match &self.file {
            Some((_, open)) if *open == id => {
                if meta.len() < self.pos {
                    // Truncated in place (`copytruncate`, `> file`): from the start.
                    self.pos = 0;
                    self.lines.restart(agent);
                }
            }
            _ => {
                // Another file at the path: finish the old one, then the new one from its start.
                if self.file.is_some() {
                    self.read_new(agent);
                    self.lines.flush(agent);
                }
                match File::open(&self.path) {
                    Ok(file) => self.file = Some((file, id)),
                    Err(_) => return,
                }
                self.pos = 0;
                self.lines.restart(agent);
            }
        }
        self.read_new(agent);
    }

    /// Reads from `pos` to the end (at most [`READ_PER_POLL`]), feeding every complete line.
    fn read_new(&mut self, agent: &BrowserAgent) {
        let Some((file, _)) = &mut self.file else { return };
        if file.seek(SeekFrom::Start(self.pos)).is_err() {
            return;
        }
        let mut chunk = vec![0u8; 64 * 1024];
        let mut budget = READ_PER_POLL;
        while budget > 0 {
            let n = match file.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            self.pos += n as u64;
            budget = budget.saturating_sub(n as u64);
            self.lines.feed(&chunk[..n], agent);
        }
    }
}

impl Lines {
    /// Splits bytes into lines: complete ones are fed, the last (unended) one is kept.
    fn feed(&mut self, mut bytes: &[u8], agent: &BrowserAgent) {
        while !bytes.is_empty() {
            let newline = memchr::memchr(b'\n', bytes);
            let part = &bytes[..newline.unwrap_or(bytes.len())];
            if !self.skipping {
                let room = TAIL_MAX_LINE - self.partial.len();
                if part.len() > room {
                    // Too long: what fits is the line, the rest up to the newline is dropped.
                    self.partial.extend_from_slice(&part[..room]);
                    self.flush(agent);
                    self.skipping = true;
                } else {
                    self.partial.extend_from_slice(part);
                }
            }
            let Some(i) = newline else { break };
            if !self.skipping {
                self.flush(agent);
            }
            self.skipping = false;
            bytes = &bytes[i + 1..];
        }
    }

    /// Feeds the line held (if any) and empties it.
    fn flush(&mut self, agent: &BrowserAgent) {
        if self.partial.is_empty() {
            return;
        }
        let line = String::from_utf8_lossy(&self.partial);
        self.errors.line(agent, &line);
        self.partial.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::time::Instant;

    use super::*;
    use crate::LogQuery;

    fn texts(agent: &BrowserAgent) -> Vec<String> {
        let q = LogQuery::parse(Some("type=server&limit=500")).unwrap();
        agent.logs().query(&q).iter().map(|e| e.text.clone()).collect()
    }

    fn dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ba-tail-{}-{}", std::process::id(), crate::util::random_hex(4)));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn append(path: &Path, text: &str) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    /// One poll, then what the thread does once the file is quiet: the error held is stored.
    fn poll(tail: &mut Tail, agent: &BrowserAgent) {
        tail.poll(agent);
        tail.lines.errors.flush(agent);
    }

    /// The lines fed directly (no thread): every rule of the file's life, one poll at a time.
    #[test]
    fn end_of_file_partial_lines_truncation_and_rotation() {
        let dir = dir();
        let path = dir.join("server.log");
        std::fs::write(&path, "Error: old, before the tail\n").unwrap();
        let agent = BrowserAgent::builder().enabled(true).build();
        let mut tail = Tail::start(path.clone());
        poll(&mut tail, &agent);
        assert!(texts(&agent).is_empty(), "starts at the end");

        append(&path, "GET / 200\nTypeError: half");
        poll(&mut tail, &agent);
        assert!(texts(&agent).is_empty(), "a line without its newline waits");
        append(&path, " a line\r\n");
        poll(&mut tail, &agent);
        assert_eq!(texts(&agent), ["TypeError: half a line"]);

        // Truncated in place, then shorter than before: read from the start.
        std::fs::write(&path, "panic: cut\n").unwrap();
        poll(&mut tail, &agent);
        assert_eq!(texts(&agent).last().unwrap(), "panic: cut");

        // Rotated: the old file's last line, then the new file from its start.
        append(&path, "KeyError: 'late'\n");
        std::fs::rename(&path, dir.join("server.log.1")).unwrap();
        poll(&mut tail, &agent);
        append(&dir.join("server.log.1"), "ValueError: after rename\n");
        std::fs::write(&path, "FATAL: new file\n").unwrap();
        poll(&mut tail, &agent);
        let all = texts(&agent);
        assert_eq!(
            &all[all.len() - 3..],
            ["KeyError: 'late'", "ValueError: after rename", "FATAL: new file"]
        );

        // A line longer than the bound is cut there and its rest dropped; the next line is whole.
        let long = format!("Error: {}", "x".repeat(TAIL_MAX_LINE * 2));
        append(&path, &format!("{long}\nRuntimeError: next\n"));
        poll(&mut tail, &agent);
        assert!(tail.lines.partial.is_empty() && tail.lines.partial.capacity() <= TAIL_MAX_LINE * 2);
        let all = texts(&agent);
        assert!(all[all.len() - 2].starts_with("Error: xxx") && all[all.len() - 2].ends_with('…'));
        assert_eq!(all.last().unwrap(), "RuntimeError: next");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_file_that_appears_later_is_read_from_its_start_and_the_thread_ends_with_the_agent() {
        let dir = dir();
        let path = dir.join("later.log");
        let agent = BrowserAgent::builder().enabled(true).build();
        let thread = agent.tail_server_log(&path).expect("a thread");
        std::thread::sleep(TAIL_POLL * 2);
        append(&path, "Traceback (most recent call last):\n  all good\n");
        let deadline = Instant::now() + Duration::from_secs(10);
        while texts(&agent).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(texts(&agent), ["Traceback (most recent call last):"]);
        let started = Instant::now();
        drop(agent);
        thread.join().unwrap();
        assert!(started.elapsed() < TAIL_POLL * 5, "ended within a poll or so");
        assert!(BrowserAgent::builder()
            .enabled(false)
            .build()
            .tail_server_log(&path)
            .is_none());
        std::fs::remove_dir_all(&dir).ok();
    }
}
