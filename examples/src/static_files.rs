//! `--dir PATH`: serve a folder's files (read-only, no listing, no escaping the folder).

use std::path::{Component, Path, PathBuf};

/// The file for URL path `path` under `dir` (`index.html` for a folder): its content type and
/// bytes, or `None` (missing, outside, unreadable).
///
/// ```
/// use browser_agent_examples::static_files::serve;
/// let dir = std::env::temp_dir();
/// assert!(serve(&dir, "/../etc/passwd").is_none());
/// ```
pub fn serve(dir: &Path, path: &str) -> Option<(&'static str, Vec<u8>)> {
    let path = path.split(['?', '#']).next().unwrap_or("");
    let mut file = PathBuf::from(dir);
    for part in Path::new(path.trim_start_matches('/')).components() {
        match part {
            Component::Normal(p) => file.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    let body = std::fs::read(&file).ok()?;
    Some((content_type(&file), body))
}

fn content_type(file: &Path) -> &'static str {
    match file
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("wasm") => "application/wasm",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
