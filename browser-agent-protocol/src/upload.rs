//! The `upload` step: files into an `<input type=file>` or dropped onto a drop zone, given as
//! paths the host reads (under the project root) or as inline bytes; the bounds the host checks
//! them by, and the file fields the page gets.
//!
//! The agent sends `{"command":"upload", <target>, "files":[…]}`, each file one of:
//! - `"docs/a.png"`, or `{"path":"docs/a.png","type"?,"name"?}`: read by the host, relative to the
//!   project root;
//! - `{"name":"a.txt","data":"<base64>","type"?,"lastModified"?}`: the bytes themselves.
//!
//! The page gets each file as `{"name","type","size","lastModified","data"}` (`data` standard
//! base64), whatever the agent sent.

/// The step's command.
///
/// ```
/// use browser_agent_protocol::{upload, COMMANDS};
/// assert!(COMMANDS.contains(&upload::COMMAND));
/// ```
pub const COMMAND: &str = "upload";
/// `files`: the list of files (at least one, at most [`MAX_FILES`]).
pub const FILES: &str = "files";
/// `drop`: `true` drops the files onto the target (`dragenter`, `dragover`, `drop`) even where the
/// target is, holds or labels a file input.
pub const DROP: &str = "drop";
/// A file's path, read by the host relative to its project root.
pub const PATH: &str = "path";
/// A file's bytes, standard base64 (RFC 4648, padding optional).
pub const DATA: &str = "data";
/// A file's name as the page sees it (`File.name`): a path's own name when not given.
pub const NAME: &str = "name";
/// A file's MIME type (`File.type`): from the name's extension when not given ([`mime_for`]).
pub const TYPE: &str = "type";
/// A file's `lastModified`, ms since the epoch: a path's modification time, or now.
pub const LAST_MODIFIED: &str = "lastModified";
/// The page-side size of a file (what the host read or decoded), in bytes.
pub const SIZE: &str = "size";

/// The fields a file object of the agent's step may hold.
pub const FILE_FIELDS: &[&str] = &[PATH, DATA, NAME, TYPE, LAST_MODIFIED];

/// Most files in one step.
pub const MAX_FILES: usize = 32;
/// Largest file, in bytes (8 MiB): a path or inline bytes past it is refused (413).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// Most bytes of files in one step, and in one batch (16 MiB): past it the batch is refused (413).
/// The page gets them as base64 inside the batch, a third more.
pub const MAX_STEP_BYTES: u64 = 16 * 1024 * 1024;
/// Most bytes of uploads held by one host at once, across the batches that wait or run (64 MiB):
/// past it a batch is refused (413) until others finish.
pub const MAX_HELD_BYTES: u64 = 64 * 1024 * 1024;
/// Longest file name, in bytes.
pub const MAX_NAME_LEN: usize = 255;

/// MIME types by extension (lower case, without the dot): the common files of web apps. A file
/// whose extension is not here is `application/octet-stream`, as browsers give such a file no
/// type (`""`) and servers read that as bytes.
const MIME_TYPES: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("avif", "image/avif"),
    ("svg", "image/svg+xml"),
    ("ico", "image/vnd.microsoft.icon"),
    ("bmp", "image/bmp"),
    ("tif", "image/tiff"),
    ("tiff", "image/tiff"),
    ("heic", "image/heic"),
    ("txt", "text/plain"),
    ("md", "text/markdown"),
    ("csv", "text/csv"),
    ("tsv", "text/tab-separated-values"),
    ("html", "text/html"),
    ("htm", "text/html"),
    ("css", "text/css"),
    ("js", "text/javascript"),
    ("mjs", "text/javascript"),
    ("json", "application/json"),
    ("xml", "application/xml"),
    ("yaml", "application/yaml"),
    ("yml", "application/yaml"),
    ("pdf", "application/pdf"),
    ("zip", "application/zip"),
    ("gz", "application/gzip"),
    ("tar", "application/x-tar"),
    ("doc", "application/msword"),
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ("xls", "application/vnd.ms-excel"),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("ppt", "application/vnd.ms-powerpoint"),
    (
        "pptx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ),
    ("odt", "application/vnd.oasis.opendocument.text"),
    ("rtf", "application/rtf"),
    ("mp3", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("ogg", "audio/ogg"),
    ("m4a", "audio/mp4"),
    ("mp4", "video/mp4"),
    ("webm", "video/webm"),
    ("mov", "video/quicktime"),
    ("woff", "font/woff"),
    ("woff2", "font/woff2"),
    ("ttf", "font/ttf"),
    ("otf", "font/otf"),
    ("wasm", "application/wasm"),
];

/// The MIME type a file named `name` gets when the step gives none: by its extension, in any case
/// (a table of common ones), else `application/octet-stream`.
///
/// ```
/// use browser_agent_protocol::upload::mime_for;
/// assert_eq!(mime_for("photo.JPG"), "image/jpeg");
/// assert_eq!(mime_for("notes.txt"), "text/plain");
/// assert_eq!(mime_for("Makefile"), "application/octet-stream");
/// ```
pub fn mime_for(name: &str) -> &'static str {
    let ext = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext,
        _ => return "application/octet-stream",
    };
    MIME_TYPES
        .iter()
        .find(|(e, _)| e.eq_ignore_ascii_case(ext))
        .map_or("application/octet-stream", |(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_extension_is_lower_case_and_listed_once() {
        for (i, (ext, _)) in MIME_TYPES.iter().enumerate() {
            assert_eq!(*ext, ext.to_ascii_lowercase());
            assert!(!MIME_TYPES[..i].iter().any(|(e, _)| e == ext), "{ext} twice");
        }
        assert_eq!(
            mime_for(".png"),
            "application/octet-stream",
            "a dot file has no extension"
        );
    }
}
