//! Refs: how a snapshot names an element and how both sides read one back.

/// What a ref looks like, for the texts that refuse one that is not.
pub const REF_FORM: &str = "refs look like e12, or f1e12 inside a frame";

/// A ref from a snapshot: `e12`, or `f1e12` for element 12 inside frame 1. Element numbers are
/// unique across a page load and its frames, so `e12` also finds `f1e12`; a frame number given
/// must be the element's own. The page and the host read refs with this one parser.
///
/// ```
/// use browser_agent_protocol::Ref;
/// assert_eq!(Ref::parse("e12"), Some(Ref { frame: None, number: 12 }));
/// // As agents write them: `@e3`, `ref=e3`, spaces around, leading zeros.
/// assert_eq!(Ref::parse(" @ref=f2e048 "), Some(Ref { frame: Some(2), number: 48 }));
/// assert_eq!(Ref::parse("5"), None);
/// assert_eq!(Ref::parse("e1234567890"), None); // at most 9 digits
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ref {
    /// The frame's number (`f1`), when the ref names an element inside a frame.
    pub frame: Option<u32>,
    /// The element's number (`e12`).
    pub number: u32,
}

impl Ref {
    /// Reads a ref; `None` when `s` is not one.
    #[inline]
    pub fn parse(s: &str) -> Option<Ref> {
        // 1 to 9 digits (no sign, no `_`): a plain loop, as small as the page's code can be.
        fn number(s: &str) -> Option<u32> {
            if s.is_empty() || s.len() > 9 {
                return None;
            }
            let mut n = 0;
            for b in s.bytes() {
                if !b.is_ascii_digit() {
                    return None;
                }
                n = n * 10 + u32::from(b - b'0');
            }
            Some(n)
        }
        let s = s.trim();
        let s = s.strip_prefix('@').unwrap_or(s);
        let s = s.strip_prefix("ref=").unwrap_or(s);
        let (frame, element) = match s.strip_prefix('f') {
            Some(rest) => {
                let (frame, element) = rest.split_once('e')?;
                (Some(number(frame)?), element)
            }
            None => (None, s.strip_prefix('e')?),
        };
        Some(Ref {
            frame,
            number: number(element)?,
        })
    }

    /// Reads a ref as an agent may have copied it from a snapshot line, in brackets and any case
    /// (`[ref=e21]`, `E21`) besides every form [`parse`](Self::parse) takes. The host reads each
    /// step's `ref` with this and hands the page the ref as the snapshot writes it
    /// ([`Display`](std::fmt::Display)), so the page's own parser stays small.
    ///
    /// ```
    /// use browser_agent_protocol::Ref;
    /// assert_eq!(Ref::read("[ref=e21]"), Some(Ref { frame: None, number: 21 }));
    /// assert_eq!(Ref::read(" E21 ").map(|r| r.to_string()), Some("e21".to_owned()));
    /// assert_eq!(Ref::read("[@F1E040]").map(|r| r.to_string()), Some("f1e40".to_owned()));
    /// assert_eq!(Ref::read("[e21"), None);
    /// ```
    pub fn read(s: &str) -> Option<Ref> {
        let s = s.trim();
        let s = s.strip_prefix('[').and_then(|s| s.strip_suffix(']')).unwrap_or(s);
        Ref::parse(&s.to_ascii_lowercase())
    }
}

/// The ref as a snapshot writes it: `e12`, or `f1e12` inside a frame.
impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(frame) = self.frame {
            write!(f, "f{frame}")?;
        }
        write!(f, "e{}", self.number)
    }
}
