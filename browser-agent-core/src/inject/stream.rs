//! What every adapter's injecting body shares: the app's chunks go in, the chunks to send come out
//! (with the tag placed once), and the bytes still to come are known exactly.

use std::collections::VecDeque;

use bytes::Bytes;

use super::Injector;

/// The state of one injected response body, framework-free. An adapter's body type polls its inner
/// body, feeds what it gets here, and sends [`next`](Self::next) until it is `None`.
///
/// ```
/// use browser_agent_core::adapter::InjectingStream;
/// use bytes::Bytes;
/// let mut s = InjectingStream::new(Bytes::from_static(b"<i>"));
/// s.push(Bytes::from_static(b"<html><he"));
/// s.push(Bytes::from_static(b"ad><title>"));
/// s.end();
/// let mut out = Vec::new();
/// while let Some(chunk) = s.next() {
///     out.extend_from_slice(&chunk);
/// }
/// assert_eq!(out, b"<html><head><i><title>");
/// assert!(s.is_finished());
/// ```
#[derive(Debug)]
pub struct InjectingStream {
    injector: Injector,
    ready: VecDeque<Bytes>,
    inner_done: bool,
}

impl InjectingStream {
    /// A stream that will place `tag` once.
    pub fn new(tag: Bytes) -> Self {
        InjectingStream {
            injector: Injector::new(tag),
            ready: VecDeque::new(),
            inner_done: false,
        }
    }

    /// Feeds one chunk of the app's body.
    pub fn push(&mut self, chunk: Bytes) {
        self.ready.extend(self.injector.push(chunk));
    }

    /// The app's body ended (or its trailers came): whatever is held goes out, the tag too if the
    /// page never had a place for it.
    pub fn end(&mut self) {
        self.ready.extend(self.injector.finish());
        self.inner_done = true;
    }

    /// The next chunk to send, if one is ready.
    #[allow(clippy::should_implement_trait)] // not an Iterator: `None` now may be `Some` after a push
    pub fn next(&mut self) -> Option<Bytes> {
        self.ready.pop_front()
    }

    /// Whether the app's body has ended.
    pub fn inner_done(&self) -> bool {
        self.inner_done
    }

    /// Whether everything has been sent.
    pub fn is_finished(&self) -> bool {
        self.inner_done && self.ready.is_empty() && self.injector.is_done()
    }

    /// Bytes this stream will still send beyond what the app's body has yet to yield: held prefix,
    /// ready chunks and the tag if not placed. Add it to the inner body's remaining size.
    pub fn extra_len(&self) -> u64 {
        (self.injector.pending_len() + self.ready.iter().map(Bytes::len).sum::<usize>()) as u64
    }
}
