//! Notes mode's contract: the parent frame's messages, the shortcut, and the note a page sends
//! (`POST {prefix}/notes`) and the host lists (`GET {prefix}/notes`).
//!
//! ```
//! use browser_agent_protocol::notes::{self, NoteInput, NoteKind};
//! assert_eq!(notes::CHANNEL, "mindstudio-browser-agent");
//! let n: NoteInput = serde_json::from_str(r#"{"kind":"pin","text":"too small","point":{"x":10,"y":20},
//!     "element":"button \"Save\" [ref=e7]","viewport":{"w":800,"h":600}}"#).unwrap();
//! assert_eq!((n.kind, n.point.unwrap().x), (Some(NoteKind::Pin), 10.0));
//! ```

use serde::{Deserialize, Serialize};

/// The `channel` of every postMessage between the parent frame (the IDE) and the page.
pub const CHANNEL: &str = "mindstudio-browser-agent";
/// Parent → page: enter notes mode.
pub const ENTER: &str = "notes-enter";
/// Parent → page: leave notes mode, removing every note from the page.
pub const EXIT: &str = "notes-exit";
/// Parent → page: a screenshot of the viewport with the notes drawn on it, answered with
/// [`SCREENSHOT_RESULT`].
pub const SCREENSHOT: &str = "notes-screenshot";
/// Parent → page: hide the notes cursor (the mouse left the iframe).
pub const CURSOR_HIDE: &str = "notes-cursor-hide";
/// Page → parent: `{image: "data:image/png;base64,…"}` or `{error}`.
pub const SCREENSHOT_RESULT: &str = "screenshot-result";
/// The default shortcut, as [`TagConfig::notes_key`](crate::TagConfig::notes_key) writes it:
/// modifiers in the order `Control+Alt+Shift+Meta`, then the key's `KeyboardEvent.code`.
pub const DEFAULT_KEY: &str = "Alt+Shift+KeyN";
/// A note's text is cut at this many chars.
pub const MAX_TEXT: usize = 2000;
/// An area note lists at most this many elements.
pub const MAX_ELEMENTS: usize = 20;
/// How many notes the host keeps by default (the oldest go first).
pub const DEFAULT_MAX_NOTES: usize = 200;

/// What a note points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoteKind {
    /// A click: a point.
    Pin,
    /// A drag: a box.
    Area,
}

/// A point in CSS pixels of the viewport.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Point {
    /// From the left edge.
    pub x: f64,
    /// From the top edge.
    pub y: f64,
}

/// A box in CSS pixels of the viewport.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// The viewport when the note was confirmed: size and scroll offsets (a point's page position
/// is `x + scrollX`, `y + scrollY`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Viewport {
    /// Width in CSS pixels.
    pub w: f64,
    /// Height in CSS pixels.
    pub h: f64,
    /// Horizontal scroll offset.
    #[serde(default, rename = "scrollX")]
    pub scroll_x: f64,
    /// Vertical scroll offset.
    #[serde(default, rename = "scrollY")]
    pub scroll_y: f64,
}

/// What a page posts to `POST {prefix}/notes?client=`: one note the developer confirmed, or
/// (`deleted: true`) the retraction of one it sent before (same `nid`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NoteInput {
    /// The page's own id of the note: a later post with the same one replaces it.
    pub nid: String,
    /// `pin` or `area` (required unless `deleted`).
    pub kind: Option<NoteKind>,
    /// What the developer wrote.
    pub text: String,
    /// A pin's point.
    pub point: Option<Point>,
    /// An area's box.
    #[serde(rename = "box")]
    pub rect: Option<Rect>,
    /// The page's URL.
    pub url: String,
    /// The viewport.
    pub viewport: Viewport,
    /// The element under a pin (or at an area's centre), as the snapshot writes it.
    pub element: String,
    /// An area's elements, as the snapshot writes them.
    pub elements: Vec<String>,
    /// Where its elements are rendered, in a development build ([`crate::source`]): each location
    /// once (`TodoItem src/TodoItem.jsx:6`, `; ` between them), or `none (why)`.
    pub source: String,
    /// The id of the screenshot with the annotations the page uploaded (`POST {prefix}/screenshots`).
    pub screenshot: String,
    /// The developer deleted the note (`nid`) after sending it.
    pub deleted: bool,
}

/// A note as the host keeps and lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    /// The host's id (`n1`, `n2`, …).
    pub id: String,
    /// The host's sequence number, raised when the note is replaced (`GET /notes?since=`).
    pub seq: u64,
    /// When it arrived, epoch ms.
    pub t: u64,
    /// The page's client id.
    pub client: String,
    /// `pin` or `area`.
    pub kind: NoteKind,
    /// What the developer wrote.
    pub text: String,
    /// A pin's point (viewport CSS px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<Point>,
    /// An area's box (viewport CSS px).
    #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
    pub rect: Option<Rect>,
    /// The page's URL.
    pub url: String,
    /// The viewport.
    pub viewport: Viewport,
    /// The element it points at: `button "Save" [ref=e7]` (a ref works in `/run`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub element: String,
    /// An area's elements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<String>,
    /// Where its elements are rendered (`TodoItem src/TodoItem.jsx:6`), or `none (why)`: see
    /// [`crate::source`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// The screenshot with the annotations, when the page sent one the store holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<crate::screenshot::ScreenshotInfo>,
    /// The page's own id of the note.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub nid: String,
}
