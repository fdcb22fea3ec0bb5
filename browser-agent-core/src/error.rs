//! Error types.

/// A configuration the builder refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The prefix must look like `/name` (ASCII letters, digits, `_ - . /`, no trailing slash, not under `/browser/`).
    #[error("invalid route prefix {0:?}: it must start with '/', must not end with '/', may only hold ASCII letters, digits, '_', '-', '.', '/', and must not be /browser")]
    Prefix(String),
    /// A limit of zero would drop everything.
    #[error("{0} must be greater than zero")]
    Zero(&'static str),
    /// The page key is embedded in HTML attributes and URLs.
    #[error("the page key must be at least 8 chars of ASCII letters, digits, '-' or '_'")]
    PageKey,
}
