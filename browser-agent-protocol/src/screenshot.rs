//! The `screenshot` step's contract: its options, the upload's query, the result the host answers.
//!
//! The page captures with a module it loads on first use
//! ([`lazy::SCREENSHOT`](crate::lazy::SCREENSHOT)), uploads the encoded bytes with
//! `POST {prefix}/screenshots?client=&width=&height=&method=&ms=&warn=` (body `image/png` or
//! `image/jpeg`), and the host's answer, a [`ScreenshotInfo`], is the
//! step's result.
//!
//! ```
//! use browser_agent_protocol::screenshot;
//! assert_eq!(screenshot::DEFAULT_MAX_WIDTH, 1568);
//! assert_eq!(screenshot::Format::parse("jpg"), Some(screenshot::Format::Jpeg));
//! assert_eq!(screenshot::Format::Png.extension(), "png");
//! ```

use serde::{Deserialize, Serialize};

/// Step option: `true` for the whole document instead of the viewport.
pub const FULL_PAGE: &str = "fullPage";
/// Step option: CSS pixels around an element target.
pub const PADDING: &str = "padding";
/// Step option: `png` (default) or `jpeg`.
pub const FORMAT: &str = "format";
/// Step option: JPEG quality, 0 to 1 (default [`DEFAULT_QUALITY`]).
pub const QUALITY: &str = "quality";
/// Step option: the widest output in pixels (default [`DEFAULT_MAX_WIDTH`]); wider captures are scaled down.
pub const MAX_WIDTH: &str = "maxWidth";
/// Step option: output pixels per CSS pixel (default 1, never the device pixel ratio unless asked).
pub const SCALE: &str = "scale";
/// Step option: `auto` (default), `html-in-canvas` or `foreignobject`.
pub const METHOD: &str = "method";
/// Step option: `true` puts the image as base64 in the step result ([`ScreenshotInfo::data`]).
pub const INLINE: &str = "inline";
/// Step option: the capture's time budget in milliseconds (default [`DEFAULT_BUDGET_MS`]).
pub const BUDGET_MS: &str = "budgetMs";

/// The size vision models take without scaling (Anthropic's guidance: 1,568 px on the long side).
pub const DEFAULT_MAX_WIDTH: u32 = 1568;
/// JPEG quality when the step names none.
pub const DEFAULT_QUALITY: f64 = 0.8;
/// The capture's time budget when the step names none, in milliseconds.
pub const DEFAULT_BUDGET_MS: u32 = 1500;
/// The largest side a browser canvas takes: taller or wider captures are scaled down to it.
pub const MAX_SIDE: u32 = 16_384;
/// The capture methods, as the result names them.
pub const METHODS: &[&str] = &["auto", "html-in-canvas", "foreignobject"];

/// Upload query parameters (besides `client`).
pub mod param {
    /// Output width in pixels.
    pub const WIDTH: &str = "width";
    /// Output height in pixels.
    pub const HEIGHT: &str = "height";
    /// The method that captured it.
    pub const METHOD: &str = "method";
    /// Capture time in milliseconds.
    pub const MS: &str = "ms";
    /// One warning (repeated: one parameter per warning).
    pub const WARN: &str = "warn";
    /// The page's URL when it captured.
    pub const PAGE: &str = "page";
}

/// An image format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// `image/png`, the default.
    Png,
    /// `image/jpeg`.
    Jpeg,
}

impl Format {
    /// `png`, or `jpeg` / `jpg`; anything else is `None`.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "png" => Some(Format::Png),
            "jpeg" | "jpg" => Some(Format::Jpeg),
            _ => None,
        }
    }

    /// The format of a `Content-Type` (parameters ignored).
    pub fn from_content_type(ct: &str) -> Option<Format> {
        match ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase().as_str() {
            "image/png" => Some(Format::Png),
            "image/jpeg" => Some(Format::Jpeg),
            _ => None,
        }
    }

    /// The MIME type.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
        }
    }

    /// The file extension the image is served under (`png`, `jpg`).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Jpeg => "jpg",
        }
    }

    /// Whether `bytes` start as an image of this format does.
    pub fn sniff(self, bytes: &[u8]) -> bool {
        match self {
            Format::Png => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            Format::Jpeg => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
        }
    }
}

/// What a screenshot is: the `screenshot` step's result and the upload's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenshotInfo {
    /// The store's id (`s1`, `s2`, …).
    pub id: String,
    /// Where the agent gets it: `{prefix}/screenshots/{id}.{png|jpg}` (absolute when the
    /// host knew its address).
    pub url: String,
    /// Output width in pixels.
    pub width: u32,
    /// Output height in pixels.
    pub height: u32,
    /// Encoded size in bytes.
    pub bytes: usize,
    /// Capture time in the page, in milliseconds.
    pub ms: u64,
    /// `html-in-canvas` or `foreignobject`.
    pub method: String,
    /// The format.
    pub format: Format,
    /// What the capture left out or changed ("2 cross-origin images as placeholders").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The page's client id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub client: String,
    /// The page's URL when it captured.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub page: String,
    /// The image as base64, when the step asked for `inline`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}
