//! The `upload` step on the host: the shape of its `files` ([`check_files`], with the other step
//! checks), then each file read or decoded before the batch is queued ([`prepare`]). The page gets
//! the bytes inside its step; the agent's own copy of the step, which proof sessions record, keeps
//! each file's name, type, size and path only, so megabytes never reach a record or a log.
//!
//! Paths are read under the project root only ([`Config::project_root`]): one that leaves it (by
//! `..`, an absolute path, or a symlink) is a 403, a missing file or a folder a 400, one past the
//! bounds ([`upload::MAX_FILE_BYTES`], [`upload::MAX_STEP_BYTES`]) a 413, each naming the file.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use super::RunError;
use crate::config::Config;
use crate::protocol::{field, upload};

/// The shape of an `upload` step's `files` (no file is read here): a list of 1 to
/// [`upload::MAX_FILES`], each a path string, or an object with `path` or `data` (not both) and
/// only [`upload::FILE_FIELDS`], each of its type; inline files need a `name`.
pub(crate) fn check_files(step: &Value) -> Result<(), String> {
    let example = r#"e.g. "files":["fixtures/cat.png"] or "files":[{"name":"a.txt","data":"aGVsbG8="}]"#;
    let files = match step.get(upload::FILES) {
        // A step without files is refused by its `needs`, with the step's example.
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(files)) => files,
        Some(v) => return Err(format!("invalid files {v}: expected a list of files; {example}")),
    };
    if files.is_empty() || files.len() > upload::MAX_FILES {
        return Err(format!(
            "invalid files: a list of 1 to {} files, got {}; {example}",
            upload::MAX_FILES,
            files.len()
        ));
    }
    for (i, file) in files.iter().enumerate() {
        let at = |why: &str| format!("invalid files[{i}]: {why}; {example}");
        let obj = match file {
            Value::String(path) if !path.is_empty() => continue,
            Value::Object(obj) => obj,
            _ => return Err(at(&format!("{file} is neither a path string nor a file object"))),
        };
        if let Some(other) = obj.keys().find(|k| !upload::FILE_FIELDS.contains(&k.as_str())) {
            return Err(at(&format!(
                "a file takes {}; not {other:?}",
                upload::FILE_FIELDS.join(", ")
            )));
        }
        let text = |name: &str| match obj.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.as_str())),
            Some(v) => Err(at(&format!("{name} {v}: expected a non-empty string"))),
        };
        let (path, data, name) = (text(upload::PATH)?, text(upload::DATA)?, text(upload::NAME)?);
        text(upload::TYPE)?;
        match (path, data) {
            (Some(_), Some(_)) => return Err(at("path and data both say where the bytes are: send one")),
            (None, None) => return Err(at("a file needs \"path\" (read by the host) or \"data\" (base64)")),
            (None, Some(_)) if name.is_none() => return Err(at("inline data needs a \"name\"")),
            _ => {}
        }
        if name.is_some_and(|n| n.len() > upload::MAX_NAME_LEN) {
            return Err(at(&format!("name longer than {} bytes", upload::MAX_NAME_LEN)));
        }
        match obj.get(upload::LAST_MODIFIED) {
            None | Some(Value::Null) => {}
            Some(v) if v.as_f64().is_some_and(|n| n >= 0.0) => {}
            Some(v) => return Err(at(&format!("lastModified {v}: expected ms since the epoch, 0 or more"))),
        }
    }
    Ok(())
}

/// A file ready for the page.
struct File {
    name: String,
    mime: String,
    last_modified: u64,
    bytes: Vec<u8>,
    /// The path as the agent gave it (for the record), when the host read one.
    path: Option<String>,
}

/// Upload bytes held by this process's batches that wait or run, against [`upload::MAX_HELD_BYTES`].
static HELD: AtomicU64 = AtomicU64::new(0);

/// Upload bytes a batch holds until it ends (released when dropped).
#[derive(Debug)]
pub(crate) struct Held(u64);

impl Drop for Held {
    fn drop(&mut self) {
        HELD.fetch_sub(self.0, Ordering::Relaxed);
    }
}

/// A batch's uploads, read: each upload step's files as the page gets them.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The index of each upload step and its files with their bytes.
    files: Vec<(usize, Value)>,
    /// The bytes this batch holds, released when it ends.
    _held: Held,
}

impl Prepared {
    /// The steps the page gets: `steps` (the agent's record, with what the host added to other
    /// steps since) with each upload's files and their bytes.
    pub(crate) fn page_steps(&self, steps: &[Value]) -> Vec<Value> {
        let mut page = steps.to_vec();
        for (i, files) in &self.files {
            if let Some(step) = page.get_mut(*i) {
                step[upload::FILES] = files.clone();
            }
        }
        page
    }
}

/// Reads and decodes the files of each `upload` step of a checked batch. `steps` becomes the
/// agent's record of the batch (each file's name, type, size and path, no bytes); the page's steps
/// carry the bytes. `None` when the batch uploads nothing.
pub(crate) fn prepare(steps: &mut [Value], config: &Config) -> Result<Option<Prepared>, RunError> {
    let uploads: Vec<usize> = (0..steps.len())
        .filter(|&i| steps[i].get(field::COMMAND).and_then(Value::as_str) == Some(upload::COMMAND))
        .collect();
    if uploads.is_empty() {
        return Ok(None);
    }
    let root = config.project_root();
    let mut page_files = Vec::with_capacity(uploads.len());
    let mut total = 0u64;
    for i in uploads {
        let files = read_files(&steps[i], root, i)?;
        let step_bytes: u64 = files.iter().map(|f| f.bytes.len() as u64).sum();
        total += step_bytes;
        if total > upload::MAX_STEP_BYTES {
            return Err(too_large(
                i,
                &format!(
                    "the batch's files come to {total} bytes, more than the {} a step or batch may upload; send fewer or smaller files",
                    upload::MAX_STEP_BYTES
                ),
            ));
        }
        let described = |f: &File, data: bool| {
            let mut o = Map::new();
            o.insert(upload::NAME.into(), f.name.clone().into());
            o.insert(upload::TYPE.into(), f.mime.clone().into());
            o.insert(upload::SIZE.into(), (f.bytes.len() as u64).into());
            o.insert(upload::LAST_MODIFIED.into(), f.last_modified.into());
            if data {
                o.insert(upload::DATA.into(), crate::util::base64_encode(&f.bytes).into());
            } else if let Some(path) = &f.path {
                o.insert(upload::PATH.into(), path.clone().into());
            }
            Value::Object(o)
        };
        page_files.push((i, files.iter().map(|f| described(f, true)).collect()));
        steps[i][upload::FILES] = files.iter().map(|f| described(f, false)).collect();
    }
    let held = HELD.fetch_add(total, Ordering::Relaxed) + total;
    let guard = Held(total);
    if held > upload::MAX_HELD_BYTES {
        return Err(RunError::TooLarge(format!(
            "this host already holds {} bytes of uploads for batches that wait or run (at most {}): try again when they end",
            held - total,
            upload::MAX_HELD_BYTES
        )));
    }
    Ok(Some(Prepared {
        files: page_files,
        _held: guard,
    }))
}

/// The step's files, read (paths) or decoded (inline), each within [`upload::MAX_FILE_BYTES`].
fn read_files(step: &Value, root: &Path, i: usize) -> Result<Vec<File>, RunError> {
    let Some(Value::Array(list)) = step.get(upload::FILES) else {
        return Ok(Vec::new());
    };
    let now = crate::util::now_ms();
    let mut files = Vec::with_capacity(list.len());
    let mut root_canon: Option<PathBuf> = None;
    for (n, entry) in list.iter().enumerate() {
        let get = |name: &str| match entry {
            Value::String(path) if name == upload::PATH => Some(path.as_str()),
            Value::Object(o) => o.get(name).and_then(Value::as_str).filter(|s| !s.is_empty()),
            _ => None,
        };
        let last_modified = entry
            .get(upload::LAST_MODIFIED)
            .and_then(Value::as_f64)
            .map(|ms| ms as u64);
        let mut file = if let Some(path) = get(upload::PATH) {
            let root = match &root_canon {
                Some(r) => r.clone(),
                None => {
                    let r = std::fs::canonicalize(root).map_err(|e| {
                        bad(
                            i,
                            &format!(
                                "the project root {} cannot be read ({e}), so no path can be uploaded; send the bytes as \"data\"",
                                root.display()
                            ),
                        )
                    })?;
                    root_canon = Some(r.clone());
                    r
                }
            };
            read_path(&root, path, i, n)?
        } else {
            let data = get(upload::DATA).unwrap_or_default();
            let bytes = crate::protocol::base64::decode(data.trim())
                .ok_or_else(|| bad(i, &format!("files[{n}].data is not base64 (RFC 4648: A-Z a-z 0-9 + /)")))?;
            if bytes.len() as u64 > upload::MAX_FILE_BYTES {
                return Err(too_large(
                    i,
                    &format!(
                        "files[{n}] ({:?}) is {} bytes, more than the {} a file may have",
                        get(upload::NAME).unwrap_or_default(),
                        bytes.len(),
                        upload::MAX_FILE_BYTES
                    ),
                ));
            }
            File {
                name: String::new(),
                mime: String::new(),
                last_modified: now,
                bytes,
                path: None,
            }
        };
        if let Some(name) = get(upload::NAME) {
            name.clone_into(&mut file.name);
        }
        file.mime = get(upload::TYPE).map_or_else(|| upload::mime_for(&file.name).to_owned(), str::to_owned);
        if let Some(ms) = last_modified {
            file.last_modified = ms;
        }
        files.push(file);
    }
    Ok(files)
}

/// The file at `given` (relative to `root`, or absolute), when it is a regular file under `root`
/// (`root` canonical) within the bound.
fn read_path(root: &Path, given: &str, i: usize, n: usize) -> Result<File, RunError> {
    let what = format!("files[{n}] {given:?}");
    let outside = |why: &str| {
        RunError::Forbidden(format!(
            "step {} (nothing ran): {what} {why} the project root {}: the host uploads files under it only (BrowserAgentBuilder::project_root, the CLI's --project-root); send other bytes as \"data\"",
            i + 1,
            root.display()
        ))
    };
    let joined = root.join(given);
    // Refused by its text first, so a path outside says nothing of what is there.
    if !lexically_inside(root, &joined) {
        return Err(outside("is outside"));
    }
    let canon = std::fs::canonicalize(&joined).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => bad(
            i,
            &format!("{what}: no such file under the project root {}", root.display()),
        ),
        _ => bad(i, &format!("{what} cannot be read: {e}")),
    })?;
    if !canon.starts_with(root) {
        return Err(outside("is a symlink that leads outside"));
    }
    let meta = std::fs::metadata(&canon).map_err(|e| bad(i, &format!("{what} cannot be read: {e}")))?;
    if meta.is_dir() {
        return Err(bad(i, &format!("{what} is a folder; name the files in it")));
    }
    if !meta.is_file() {
        return Err(bad(i, &format!("{what} is not a regular file")));
    }
    let over = |len: u64| {
        too_large(
            i,
            &format!(
                "{what} is {len} bytes, more than the {} a file may have",
                upload::MAX_FILE_BYTES
            ),
        )
    };
    if meta.len() > upload::MAX_FILE_BYTES {
        return Err(over(meta.len()));
    }
    // Read up to one byte past the bound: a file that grew since it was looked at is refused too.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(&canon)
        .and_then(|f| f.take(upload::MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| bad(i, &format!("{what} cannot be read: {e}")))?;
    if bytes.len() as u64 > upload::MAX_FILE_BYTES {
        return Err(over(bytes.len() as u64));
    }
    let last_modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or_else(crate::util::now_ms, |d| d.as_millis() as u64);
    let name = Path::new(given)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(File {
        name,
        mime: String::new(),
        last_modified,
        bytes,
        path: Some(given.to_owned()),
    })
}

/// Whether `path`, read without the file system (`..` takes one folder off), stays under `root`.
fn lexically_inside(root: &Path, path: &Path) -> bool {
    let mut parts: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return false;
                }
            }
            c => parts.push(c),
        }
    }
    parts.iter().collect::<PathBuf>().starts_with(root)
}

/// A 400 naming the step.
fn bad(i: usize, why: &str) -> RunError {
    super::refused_step(i, why)
}

/// A 413 naming the step.
fn too_large(i: usize, why: &str) -> RunError {
    RunError::TooLarge(format!("step {} (nothing ran): {why}", i + 1))
}

/// The shape the page gets, for the tests: what one inline file becomes.
#[cfg(test)]
fn page_file(step: &Value) -> Value {
    step[upload::FILES][0].clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(root: &Path) -> Config {
        crate::BrowserAgent::builder()
            .enabled(true)
            .project_root(root)
            .build()
            .config()
            .clone()
    }

    fn temp_root() -> PathBuf {
        let root = std::env::temp_dir().join(format!("ba-upload-{}", crate::util::random_hex(6)));
        std::fs::create_dir_all(root.join("inside")).unwrap();
        std::fs::write(root.join("inside/a.png"), b"\x89PNG").unwrap();
        root
    }

    #[test]
    fn the_shape_of_files_is_checked_before_anything_is_read() {
        let ok = json!({"command": "upload", "files": ["a.png", {"path": "b"}, {"name": "c", "data": "aGk="}]});
        assert!(check_files(&ok).is_ok());
        for (files, says) in [
            (json!([]), "a list of 1 to 32 files, got 0"),
            (json!("a.png"), "expected a list of files"),
            (json!([3]), "neither a path string nor a file object"),
            (json!([{"path": "a", "data": "aGk="}]), "send one"),
            (json!([{"data": "aGk="}]), "inline data needs a \"name\""),
            (json!([{"name": "x"}]), "a file needs \"path\""),
            (json!([{"path": "a", "size": 3}]), "not \"size\""),
            (json!([{"path": "a", "lastModified": -1}]), "lastModified -1"),
        ] {
            let e = check_files(&json!({"command": "upload", "files": files})).unwrap_err();
            assert!(e.contains(says), "{files}: {e}");
        }
    }

    #[test]
    fn paths_are_read_under_the_root_and_the_record_keeps_no_bytes() {
        let root = temp_root();
        let mut steps = vec![json!({"command": "upload", "ref": "e1", "files": [
            "inside/a.png",
            {"name": "note.txt", "data": "aGVsbG8="}
        ]})];
        let prepared = prepare(&mut steps, &config(&root)).unwrap().unwrap();
        let page = &prepared.page_steps(&steps)[0];
        assert_eq!(page_file(page)["data"], "iVBORw==");
        assert_eq!(page_file(page)["type"], "image/png");
        assert_eq!(page[upload::FILES][1]["size"], 5);
        assert_eq!(page[upload::FILES][1]["type"], "text/plain");
        assert_eq!(
            steps[0][upload::FILES],
            json!([
                {"name": "a.png", "type": "image/png", "size": 4, "path": "inside/a.png",
                 "lastModified": page[upload::FILES][0]["lastModified"]},
                {"name": "note.txt", "type": "text/plain", "size": 5,
                 "lastModified": page[upload::FILES][1]["lastModified"]}
            ])
        );
        drop(prepared);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_path_outside_the_root_missing_or_a_folder_is_refused_naming_it() {
        let root = temp_root();
        std::fs::write(root.with_extension("secret"), b"x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.with_extension("secret"), root.join("inside/link")).unwrap();
        let run = |path: &str| {
            let mut steps = vec![json!({"command": "upload", "ref": "e1", "files": [path]})];
            prepare(&mut steps, &config(&root)).unwrap_err()
        };
        let secret = format!(
            "../{}",
            root.with_extension("secret").file_name().unwrap().to_string_lossy()
        );
        for (path, status, says) in [
            (secret.as_str(), 403, "is outside the project root"),
            ("/etc/passwd", 403, "is outside the project root"),
            ("inside/../../x", 403, "is outside"),
            ("inside/missing.png", 400, "no such file under the project root"),
            ("inside", 400, "is a folder"),
            #[cfg(unix)]
            ("inside/link", 403, "is a symlink that leads outside"),
        ] {
            let e = run(path);
            assert_eq!(e.status().as_u16(), status, "{path}: {e}");
            assert!(
                e.to_string().contains(says) && e.to_string().contains(path),
                "{path}: {e}"
            );
        }
        std::fs::remove_file(root.with_extension("secret")).unwrap();
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn files_past_the_bounds_are_413() {
        let root = temp_root();
        let big = vec![0u8; upload::MAX_FILE_BYTES as usize + 1];
        std::fs::write(root.join("inside/big.bin"), &big).unwrap();
        let mut steps = vec![json!({"command": "upload", "ref": "e1", "files": ["inside/big.bin"]})];
        let e = prepare(&mut steps, &config(&root)).unwrap_err();
        assert_eq!(e.status().as_u16(), 413, "{e}");
        assert!(e.to_string().contains("big.bin"), "{e}");
        let half = crate::util::base64_encode(&big[..upload::MAX_FILE_BYTES as usize / 2 + 1]);
        let file = json!({"name": "h.bin", "data": half});
        let mut steps = vec![json!({"command": "upload", "ref": "e1", "files": [file, file, file, file]})];
        let e = prepare(&mut steps, &config(&root)).unwrap_err();
        assert_eq!(e.status().as_u16(), 413, "{e}");
        assert!(e.to_string().contains("the batch's files come to"), "{e}");
        let mut steps = vec![json!({"command": "upload", "ref": "e1", "files": [{"name": "x", "data": "@@"}]})];
        assert_eq!(prepare(&mut steps, &config(&root)).unwrap_err().status().as_u16(), 400);
        std::fs::remove_dir_all(root).unwrap();
    }
}
