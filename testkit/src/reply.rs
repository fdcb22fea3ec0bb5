//! [`Reply`]: the framework-free response the test apps and the fixtures build.

/// A framework-free response: the test apps translate it into axum's or actix's.
#[derive(Debug, Clone)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// Headers, in order.
    pub headers: Vec<(&'static str, String)>,
    /// Body chunks; `streamed` says whether they go out as a stream (no length) or as one sized body.
    pub chunks: Vec<bytes::Bytes>,
    /// Send the chunks as a stream of unknown length.
    pub streamed: bool,
}

impl Reply {
    /// A sized reply.
    pub fn new(status: u16, content_type: &str, body: impl Into<bytes::Bytes>) -> Reply {
        Reply {
            status,
            headers: vec![("content-type", content_type.to_owned())],
            chunks: vec![body.into()],
            streamed: false,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }

    /// The whole body.
    pub fn body(&self) -> Vec<u8> {
        self.chunks.concat()
    }
}
