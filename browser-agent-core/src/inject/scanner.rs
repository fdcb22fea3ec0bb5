//! A streaming scanner that inserts the tag once: right after `<head…>` (after a `<meta charset>`
//! that opens the head, so the charset declaration stays within the browser's 1024-byte prescan);
//! with no `<head>`, before the first content after the doctype, comments and `<html>`; at the end
//! when the page has none.
//! It works on bytes (any ASCII-compatible charset survives untouched), finds tags across chunk
//! boundaries, and holds back only the undecided prefix of the document.

use bytes::{Bytes, BytesMut};

/// Above this many undecided bytes (a giant leading comment), the tag goes at the end instead.
const MAX_HELD: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between top-level items; `start` tracks nothing.
    Text,
    /// Saw `<` at `tag_start`.
    Open,
    /// Saw `<!`.
    Bang,
    /// Saw `<!-`.
    BangDash,
    /// Inside `<!-- … -->`; counts trailing dashes.
    Comment(u8),
    /// Inside `<!…>` or `<?…>` or `</…>`: skip to `>`.
    Skip,
    /// Reading a start tag's name.
    Name,
    /// Inside a start tag's attributes (quote char when in a quoted value).
    Attrs(Option<u8>),
}

/// Bytes to send for one input chunk: up to three pieces (before, tag, after).
#[derive(Debug, Default)]
pub struct Output {
    parts: [Option<Bytes>; 3],
}

impl Output {
    fn push(&mut self, b: Bytes) {
        if b.is_empty() {
            return;
        }
        if let Some(slot) = self.parts.iter_mut().find(|p| p.is_none()) {
            *slot = Some(b);
        }
    }
}

impl Iterator for Output {
    type Item = Bytes;
    fn next(&mut self) -> Option<Bytes> {
        self.parts.iter_mut().find_map(Option::take)
    }
}

/// Places a tag into an HTML byte stream, chunk by chunk.
///
/// ```
/// use browser_agent_core::adapter::Injector;
/// use bytes::Bytes;
/// let mut inj = Injector::new(Bytes::from_static(b"<script>x</script>"));
/// let mut out = Vec::new();
/// for chunk in ["<!doctype html><ht", "ml><he", "ad lang=x><title>t</title>"] {
///     out.extend(inj.push(Bytes::from(chunk)).flat_map(|b| b.to_vec()));
/// }
/// out.extend(inj.finish().flat_map(|b| b.to_vec()));
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "<!doctype html><html><head lang=x><script>x</script><title>t</title>"
/// );
/// ```
#[derive(Debug)]
pub struct Injector {
    tag: Option<Bytes>,
    held: BytesMut,
    pos: usize,
    state: State,
    tag_start: usize,
    name: [u8; 8],
    name_len: usize,
    /// Inside `<head>`: the position right after it, while only `<meta>` tags have followed.
    head_end: Option<usize>,
    /// Progress matching `charset` inside the current tag's attributes, and whether it matched.
    charset_progress: usize,
    saw_charset: bool,
    /// Gave up placing early: the tag goes at the end.
    at_end: bool,
}

enum Decision {
    Before(usize),
    After(usize),
}

impl Injector {
    /// An injector that will place `tag` exactly once.
    pub fn new(tag: Bytes) -> Self {
        Injector {
            tag: Some(tag),
            held: BytesMut::new(),
            pos: 0,
            state: State::Text,
            tag_start: 0,
            name: [0; 8],
            name_len: 0,
            head_end: None,
            charset_progress: 0,
            saw_charset: false,
            at_end: false,
        }
    }

    /// Whether the tag has been placed (everything from now on passes through unchanged).
    pub fn is_done(&self) -> bool {
        self.tag.is_none()
    }

    /// Bytes held back or still to be emitted (held prefix plus the tag if not yet placed).
    pub fn pending_len(&self) -> usize {
        self.held.len() + self.tag.as_ref().map_or(0, Bytes::len)
    }

    /// Feeds one chunk; returns what to send now.
    pub fn push(&mut self, chunk: Bytes) -> Output {
        let mut out = Output::default();
        if self.tag.is_none() || self.at_end {
            out.push(chunk);
            return out;
        }
        // Most pages decide within their first chunk: scan it in place and split it without copying.
        // Only an undecided prefix is copied into `held` (positions stay valid: it starts there).
        let (decision, buf) = if self.held.is_empty() {
            let decision = self.scan(&chunk);
            if decision.is_none() {
                self.held = BytesMut::from(&chunk[..]);
            }
            (decision, chunk)
        } else {
            self.held.extend_from_slice(&chunk);
            let held = std::mem::take(&mut self.held);
            let decision = self.scan(&held);
            self.held = held;
            match decision {
                Some(d) => (Some(d), std::mem::take(&mut self.held).freeze()),
                None => (None, Bytes::new()),
            }
        };
        match decision {
            Some(Decision::Before(at) | Decision::After(at)) => {
                self.held.clear();
                out.push(buf.slice(..at));
                out.push(self.tag.take().expect("tag present"));
                out.push(buf.slice(at..));
            }
            None if self.held.len() > MAX_HELD => {
                self.at_end = true;
                out.push(std::mem::take(&mut self.held).freeze());
            }
            None => {}
        }
        out
    }

    /// Ends the stream: returns whatever is held and the tag if it was not placed yet.
    pub fn finish(&mut self) -> Output {
        let mut out = Output::default();
        out.push(std::mem::take(&mut self.held).freeze());
        if let Some(tag) = self.tag.take() {
            out.push(tag);
        }
        out
    }

    /// Where the tag goes when the element starting at `tag_start` (or text at `at`) comes next.
    fn content_starts(&self, at: usize) -> Decision {
        match self.head_end {
            Some(after_head) => Decision::After(after_head),
            None => Decision::Before(at),
        }
    }

    /// A start tag's name ended (at byte `b`, index `i`): decide, or keep scanning its attributes.
    fn name_ended(&mut self, b: u8, i: usize) -> Result<State, Decision> {
        let name = &self.name[..self.name_len.min(self.name.len())];
        let known = self.name_len <= self.name.len();
        let skippable = known && (name == b"html" || name == b"head" || (name == b"meta" && self.head_end.is_some()));
        if !skippable {
            return Err(self.content_starts(self.tag_start));
        }
        self.charset_progress = 0;
        self.saw_charset = false;
        if b == b'>' {
            self.tag_closed(i)
        } else {
            Ok(State::Attrs(None))
        }
    }

    /// The `>` at `i` closed an `html`, `head` or `meta` start tag.
    fn tag_closed(&mut self, i: usize) -> Result<State, Decision> {
        match &self.name[..self.name_len] {
            b"head" if self.head_end.is_none() => self.head_end = Some(i + 1),
            b"meta" if self.saw_charset => return Err(Decision::After(i + 1)),
            _ => {}
        }
        Ok(State::Text)
    }

    /// Scans `buf` (the held prefix, or the first chunk itself) from where the last scan stopped.
    fn scan(&mut self, buf: &[u8]) -> Option<Decision> {
        const CHARSET: &[u8] = b"charset";
        while self.pos < buf.len() {
            let i = self.pos;
            let b = buf[i];
            self.pos += 1;
            let next = match self.state {
                State::Text => match b {
                    b'<' => {
                        self.tag_start = i;
                        Ok(State::Open)
                    }
                    b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => Ok(State::Text),
                    // A UTF-8 byte order mark at the very start is not content.
                    0xEF | 0xBB | 0xBF if i < 3 => Ok(State::Text),
                    _ => Err(self.content_starts(i)),
                },
                State::Open => match b {
                    b'!' => Ok(State::Bang),
                    b'?' => Ok(State::Skip),
                    // An end tag inside the head (`</head>`, `</title>`) ends our look-ahead.
                    b'/' if self.head_end.is_some() => Err(self.content_starts(self.tag_start)),
                    b'/' => Ok(State::Skip),
                    b if b.is_ascii_alphabetic() => {
                        self.name_len = 1;
                        self.name[0] = b.to_ascii_lowercase();
                        Ok(State::Name)
                    }
                    // `<` followed by anything else is text content.
                    _ => Err(self.content_starts(self.tag_start)),
                },
                State::Bang => match b {
                    b'-' => Ok(State::BangDash),
                    b'>' => Ok(State::Text),
                    _ => Ok(State::Skip),
                },
                State::BangDash => match b {
                    b'-' => Ok(State::Comment(0)),
                    b'>' => Ok(State::Text),
                    _ => Ok(State::Skip),
                },
                State::Comment(dashes) => match b {
                    b'-' => Ok(State::Comment(dashes.saturating_add(1))),
                    b'>' if dashes >= 2 => Ok(State::Text),
                    _ => Ok(State::Comment(0)),
                },
                State::Skip => match b {
                    b'>' => Ok(State::Text),
                    _ => Ok(State::Skip),
                },
                State::Name => match b {
                    b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>' => self.name_ended(b, i),
                    _ => {
                        if self.name_len < self.name.len() {
                            self.name[self.name_len] = b.to_ascii_lowercase();
                        }
                        self.name_len += 1;
                        Ok(State::Name)
                    }
                },
                State::Attrs(quote) => {
                    if self.charset_progress < CHARSET.len() && b.to_ascii_lowercase() == CHARSET[self.charset_progress]
                    {
                        self.charset_progress += 1;
                        self.saw_charset |= self.charset_progress == CHARSET.len();
                    } else {
                        self.charset_progress = usize::from(b.eq_ignore_ascii_case(&b'c'));
                    }
                    match (quote, b) {
                        (None, b'"' | b'\'') => Ok(State::Attrs(Some(b))),
                        (Some(q), _) if b == q => Ok(State::Attrs(None)),
                        (None, b'>') => self.tag_closed(i),
                        _ => Ok(State::Attrs(quote)),
                    }
                }
            };
            match next {
                Ok(state) => self.state = state,
                Err(decision) => return Some(decision),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TAG: &str = "<!--T-->";

    fn run(chunks: &[&[u8]]) -> Vec<u8> {
        let mut inj = Injector::new(Bytes::from_static(TAG.as_bytes()));
        let mut out = Vec::new();
        for c in chunks {
            out.extend(inj.push(Bytes::copy_from_slice(c)).flat_map(|b| b.to_vec()));
        }
        out.extend(inj.finish().flat_map(|b| b.to_vec()));
        out
    }

    fn inject(html: &str) -> String {
        String::from_utf8(run(&[html.as_bytes()])).unwrap()
    }

    #[test]
    fn placement_rules() {
        let cases = [
            ("<!DOCTYPE html><html><head><title>x</title></head>", "<!DOCTYPE html><html><head><!--T--><title>x</title></head>"),
            ("<!doctype html>\n<HTML lang=\"en\">\n<HEAD data-x=\"a>b\">\n<title>t</title>", "<!doctype html>\n<HTML lang=\"en\">\n<HEAD data-x=\"a>b\"><!--T-->\n<title>t</title>"),
            ("<head>\n<meta charset=\"utf-8\">\n<title>", "<head>\n<meta charset=\"utf-8\"><!--T-->\n<title>"),
            ("<head><meta name=viewport content=x><META HTTP-EQUIV=content-type CONTENT='text/html; CHARSET=latin1'><title>", "<head><meta name=viewport content=x><META HTTP-EQUIV=content-type CONTENT='text/html; CHARSET=latin1'><!--T--><title>"),
            ("<head><meta name=\"chars\"><link rel=x>", "<head><!--T--><meta name=\"chars\"><link rel=x>"),
            ("<head></head><meta charset=x>", "<head><!--T--></head><meta charset=x>"),
            ("<head>text", "<head><!--T-->text"),
            ("<!doctype html><title>no head</title><p>x", "<!doctype html><!--T--><title>no head</title><p>x"),
            ("<html><body><p>hi</p></body></html>", "<html><!--T--><body><p>hi</p></body></html>"),
            ("<!-- <head> in a comment --><head></head>", "<!-- <head> in a comment --><head><!--T--></head>"),
            ("<!doctype html>Hello", "<!doctype html><!--T-->Hello"),
            ("<header>x</header>", "<!--T--><header>x</header>"),
            ("<headx>", "<!--T--><headx>"),
            ("<html><head/><body>", "<html><head/><!--T--><body>"),
            ("<meta charset=utf-8><title>x", "<!--T--><meta charset=utf-8><title>x"),
            ("", "<!--T-->"),
            ("<!doctype html>", "<!doctype html><!--T-->"),
            ("\u{feff}<head>", "\u{feff}<head><!--T-->"),
            ("<?xml version=\"1.0\"?><html><head>", "<?xml version=\"1.0\"?><html><head><!--T-->"),
            ("a < b", "<!--T-->a < b"),
        ];
        for (input, want) in cases {
            assert_eq!(inject(input), want, "input {input:?}");
        }
    }

    #[test]
    fn injects_once_with_two_heads() {
        assert_eq!(
            inject("<head></head><head></head>"),
            "<head><!--T--></head><head></head>"
        );
    }

    #[test]
    fn non_utf8_bytes_survive() {
        let page: &[u8] = b"<html><head><title>caf\xe9</title></head><body>\xff\xfe</body>";
        let out = run(&[page]);
        assert_eq!(
            out,
            b"<html><head><!--T--><title>caf\xe9</title></head><body>\xff\xfe</body>".to_vec()
        );
    }

    #[test]
    fn giant_leading_comment_falls_back_to_the_end() {
        let page = format!("<!--{}--><head>", "x".repeat(MAX_HELD + 10));
        let out = String::from_utf8(run(&[page.as_bytes()])).unwrap();
        assert_eq!(out, format!("{page}{TAG}"));
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_output(
            html in prop::sample::select(vec![
                "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>T</title></head><body><p>x</p></body></html>",
                "<!-- c --> <!doctype html><html><body>no head</body></html>",
                "<html><head data-a=\"x > y\" data-b='<head>'><script>1</script></head></html>",
                "<html><head>\n  <meta name=\"viewport\" content=\"w\">\n  <meta charset=\"utf-8\">\n</head></html>",
                "<html><head><meta cha rset=x><!-- c --><meta charSET=y></head>",
                "plain text page",
                "<!doctype html>",
            ]),
            cuts in prop::collection::vec(0usize..200, 0..8),
        ) {
            let bytes = html.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut last = 0;
            for c in cuts {
                chunks.push(&bytes[last..c]);
                last = c;
            }
            chunks.push(&bytes[last..]);
            let whole = run(&[bytes]);
            prop_assert_eq!(run(&chunks), whole.clone());
            prop_assert_eq!(whole.len(), bytes.len() + TAG.len());
        }
    }
}
