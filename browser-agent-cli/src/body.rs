//! [`ProxyBody`]: one of our answers, the upstream's body untouched, or its HTML with the tag
//! streamed in: the tower adapter's [`ResponseBody`](browser_agent_tower::ResponseBody) over
//! [`UpstreamBody`], so the proxy and the layer stream the tag through the same code.
//!
//! [`UpstreamBody`] is the dev server's body as it came or, for a page compressed although we
//! asked for `identity`, decoded as it streams ([`UpstreamBody::decoded`]): core says which
//! coding to undo ([`take_decodable_coding`](browser_agent_core::adapter::gate::take_decodable_coding)),
//! async-compression's decoders undo it. Decoding is pulled by the browser's reads, 16 KiB at a
//! time, so neither the compressed nor the decoded page is ever held whole.
//!
//! A body that does not decode (corrupt, truncated, not the coding it claims) ends with an error
//! where the decoder finds it: what was decoded before has gone out, then hyper closes the
//! connection without the chunked body's last chunk, so the browser sees a cut page, never one
//! that looks complete. Trailers of a compressed body are dropped.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use async_compression::tokio::bufread::{BrotliDecoder, GzipDecoder, ZlibDecoder};
use browser_agent_core::adapter::gate::Coding;
use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};

/// The body of every response the proxy sends.
pub type ProxyBody = browser_agent_tower::ResponseBody<UpstreamBody>;

/// The error of an [`UpstreamBody`]: hyper's, or the decoder's.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Decoded bytes handed on at most at once.
const DECODED_CHUNK: usize = 16 * 1024;

/// The dev server's body: as it came, or decoded.
pub struct UpstreamBody {
    kind: Kind,
}

enum Kind {
    Plain(Incoming),
    Decoded(Box<Decoded>),
}

struct Decoded {
    reader: Pin<Box<dyn AsyncRead + Send>>,
    buf: Box<[u8]>,
    done: bool,
}

impl std::fmt::Debug for UpstreamBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.kind {
            Kind::Plain(_) => "Plain",
            Kind::Decoded(_) => "Decoded",
        };
        f.debug_struct("UpstreamBody").field("kind", &kind).finish()
    }
}

impl From<Incoming> for UpstreamBody {
    fn from(body: Incoming) -> Self {
        UpstreamBody {
            kind: Kind::Plain(body),
        }
    }
}

impl UpstreamBody {
    /// `body`, compressed with `coding`, decoded as it streams.
    pub fn decoded(body: Incoming, coding: Coding) -> Self {
        UpstreamBody {
            kind: Kind::Decoded(Box::new(Decoded {
                reader: decoder(body, coding),
                buf: vec![0; DECODED_CHUNK].into_boxed_slice(),
                done: false,
            })),
        }
    }
}

/// A reader of `body`'s bytes with `coding` undone.
fn decoder<B>(body: B, coding: Coding) -> Pin<Box<dyn AsyncRead + Send>>
where
    B: Body<Data = Bytes> + Unpin + Send + 'static,
    B::Error: Into<BoxError>,
{
    let compressed = BodyReader {
        body,
        chunk: Bytes::new(),
        ended: false,
    };
    match coding {
        Coding::Gzip => {
            let mut gzip = GzipDecoder::new(compressed);
            // Concatenated members are one gzip stream (RFC 1952 §2.2), as browsers read it.
            gzip.multiple_members(true);
            Box::pin(gzip)
        }
        Coding::Deflate => Box::pin(ZlibDecoder::new(compressed)),
        Coding::Brotli => Box::pin(BrotliDecoder::new(compressed)),
        // A coding core learns later, before this proxy does: its headers are gone already, so
        // the body must not pass as it is; it ends with this error instead.
        _ => Box::pin(Failing(format!("no decoder for {coding:?}"))),
    }
}

impl Body for UpstreamBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match &mut self.get_mut().kind {
            Kind::Plain(body) => Pin::new(body).poll_frame(cx).map_err(Into::into),
            Kind::Decoded(decoded) => {
                let Decoded { reader, buf, done } = &mut **decoded;
                if *done {
                    return Poll::Ready(None);
                }
                let mut out = ReadBuf::new(buf);
                let result = ready!(reader.as_mut().poll_read(cx, &mut out));
                let filled = out.filled();
                match result {
                    Ok(()) if filled.is_empty() => {
                        *done = true;
                        Poll::Ready(None)
                    }
                    Ok(()) => Poll::Ready(Some(Ok(Frame::data(Bytes::copy_from_slice(filled))))),
                    Err(err) => {
                        *done = true;
                        Poll::Ready(Some(Err(err.into())))
                    }
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Plain(body) => body.is_end_stream(),
            Kind::Decoded(decoded) => decoded.done,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Plain(body) => body.size_hint(),
            // The decoded length is known only at its end.
            Kind::Decoded(_) => SizeHint::new(),
        }
    }
}

/// An HTTP body read as bytes (trailers skipped): what the decoders read from.
struct BodyReader<B> {
    body: B,
    /// What is left of the last data frame.
    chunk: Bytes,
    ended: bool,
}

impl<B> AsyncBufRead for BodyReader<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let this = self.get_mut();
        while this.chunk.is_empty() && !this.ended {
            match ready!(Pin::new(&mut this.body).poll_frame(cx)) {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        this.chunk = data;
                    }
                }
                Some(Err(err)) => return Poll::Ready(Err(io::Error::other(err.into()))),
                None => this.ended = true,
            }
        }
        Poll::Ready(Ok(&this.chunk))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.get_mut().chunk.advance(amt);
    }
}

impl<B> AsyncRead for BodyReader<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, out: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let available = ready!(self.as_mut().poll_fill_buf(cx))?;
        let n = available.len().min(out.remaining());
        out.put_slice(&available[..n]);
        self.consume(n);
        Poll::Ready(Ok(()))
    }
}

/// A reader that fails at once.
struct Failing(String);

impl AsyncRead for Failing {
    fn poll_read(self: Pin<&mut Self>, _: &mut Context<'_>, _: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Err(io::Error::new(io::ErrorKind::Unsupported, self.0.clone())))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::convert::Infallible;
    use std::io::Write;
    use std::time::Duration;

    use async_compression::tokio::bufread::BrotliEncoder;
    use tokio::io::AsyncReadExt;

    use super::*;

    /// A body of the given frames, one at a time.
    struct Frames(VecDeque<Bytes>);

    impl Body for Frames {
        type Data = Bytes;
        type Error = Infallible;
        fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Ready(self.0.pop_front().map(|b| Ok(Frame::data(b))))
        }
    }

    /// `data` cut into frames of `size` bytes.
    fn frames(data: &[u8], size: usize) -> Frames {
        Frames(data.chunks(size).map(Bytes::copy_from_slice).collect())
    }

    fn page() -> Vec<u8> {
        let mut page = b"<!doctype html><html><head><title>t</title></head><body>".to_vec();
        for n in 0..5000 {
            page.extend_from_slice(format!("<p>line {n}</p>").as_bytes());
        }
        page.extend_from_slice(b"</body></html>");
        page
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    async fn brotli(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        BrotliEncoder::new(data).read_to_end(&mut out).await.unwrap();
        out
    }

    async fn decode(body: Frames, coding: Coding) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        decoder(body, coding).read_to_end(&mut out).await?;
        Ok(out)
    }

    #[tokio::test]
    async fn each_coding_decodes_whatever_the_frames() {
        let page = page();
        let cases = [
            (Coding::Gzip, gzip(&page)),
            (Coding::Deflate, zlib(&page)),
            (Coding::Brotli, brotli(&page).await),
        ];
        for (coding, compressed) in cases {
            assert!(compressed.len() < page.len() / 4, "{coding:?} compresses");
            for size in [1, 7, 4096, compressed.len()] {
                let decoded = decode(frames(&compressed, size), coding).await.unwrap();
                assert!(decoded == page, "{coding:?} in frames of {size}");
            }
        }
    }

    #[tokio::test]
    async fn concatenated_gzip_members_are_one_page() {
        let both = [gzip(b"<html><head>"), gzip(b"</head></html>")].concat();
        let decoded = decode(frames(&both, 5), Coding::Gzip).await.unwrap();
        assert_eq!(decoded, b"<html><head></head></html>");
    }

    #[tokio::test]
    async fn corrupt_and_cut_bodies_end_with_an_error() {
        let compressed = gzip(&page());
        let cut = &compressed[..compressed.len() / 2];
        let mut flipped = compressed.clone();
        flipped[compressed.len() / 2] ^= 0xff;
        for (what, body, coding) in [
            ("not gzip at all", b"<html>plain</html>".to_vec(), Coding::Gzip),
            ("cut in the middle", cut.to_vec(), Coding::Gzip),
            ("a byte flipped", flipped, Coding::Gzip),
            ("gzip called deflate", compressed.clone(), Coding::Deflate),
            ("gzip called br", compressed.clone(), Coding::Brotli),
        ] {
            let decoded = tokio::time::timeout(Duration::from_secs(10), decode(frames(&body, 100), coding))
                .await
                .unwrap_or_else(|_| panic!("{what}: hangs"));
            assert!(decoded.is_err(), "{what}: an error, not a page");
        }
    }
}
