//! Small helpers shared by the modules: clock, truncation, hashing, randomness.

/// Milliseconds since the Unix epoch, from `time` (std's clock panics on wasm, core's host part never runs there).
pub(crate) fn now_ms() -> u64 {
    let nanos = time::OffsetDateTime::now_utc().unix_timestamp_nanos();
    u64::try_from(nanos / 1_000_000).unwrap_or(0)
}

/// Cuts `s` to at most `max` chars, on a char boundary; returns whether it cut. A cut string
/// gives back the memory of what was cut: a kept value (a log entry's field) must hold no more
/// than the bytes the ring counts for it, not the 1 MiB it arrived with.
pub(crate) fn truncate_chars(s: &mut String, max: usize) -> bool {
    if s.len() <= max {
        // At most `max` bytes is at most `max` chars: nothing to count.
        return false;
    }
    match s.char_indices().nth(max) {
        Some((byte_index, _)) => {
            s.truncate(byte_index);
            s.shrink_to_fit();
            true
        }
        None => false,
    }
}

/// Like [`truncate_chars`] but marks the cut with `…`, keeping the total within `max` chars (and
/// the string's memory within its length).
pub(crate) fn truncate_marked(s: &mut String, max: usize) {
    if max == 0 || s.len() <= max {
        return;
    }
    // One pass: the boundary of the kept `max - 1` chars, and whether a char follows char `max`.
    let mut from_cut = s.char_indices().skip(max - 1);
    if let (Some((cut, _)), Some(_)) = (from_cut.next(), from_cut.next()) {
        s.truncate(cut);
        s.push('…');
        s.shrink_to_fit();
    }
}

/// FNV-1a, 64 bits: content hashes for cache-busting asset names (not a security boundary).
pub(crate) fn fnv1a64(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// `2 × bytes_wanted` hex chars of the OS's randomness (`getrandom`: `getrandom(2)` on Linux,
/// `getentropy` on macOS, `ProcessPrng` on Windows). No fallback: the page key must be
/// unguessable, so an OS that cannot give randomness is a panic with this reason, never a key from
/// the clock.
pub(crate) fn random_hex(bytes_wanted: usize) -> String {
    let mut buf = vec![0u8; bytes_wanted];
    if let Err(err) = getrandom::fill(&mut buf) {
        panic!("browser-agent: the operating system gave no randomness for a key ({err})");
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Decodes `%XX` and `+` of a query component; invalid escapes are kept as they are.
pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Iterates `name=value` pairs of a query string, decoded.
fn query_pairs(query: Option<&str>) -> impl Iterator<Item = (String, String)> + '_ {
    query.unwrap_or("").split('&').filter(|p| !p.is_empty()).map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(k), percent_decode(v))
    })
}

/// The decoded `name=value` pairs of a query string, in order: what every route reads its
/// parameters from. A name given twice: [`last`](Self::last) is what a loop over the pairs
/// would have kept; [`all`](Self::all) lets a caller check each.
#[derive(Debug, Default)]
pub(crate) struct Params(Vec<(String, String)>);

impl Params {
    /// The pairs of `query` (the part of a URI after `?`).
    pub(crate) fn parse(query: Option<&str>) -> Params {
        Params(query_pairs(query).collect())
    }

    /// Every pair, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Every value of `name`, in order.
    pub(crate) fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> {
        self.iter().filter(move |(k, _)| *k == name).map(|(_, v)| v)
    }

    /// The first value of `name`.
    pub(crate) fn first<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        self.all(name).next()
    }

    /// The last value of `name`.
    pub(crate) fn last<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        self.all(name).last()
    }
}

/// Standard base64 with padding (RFC 4648 §4): screenshots inline in a step result, MCP image content.
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `1`/`true` or `0`/`false` (ASCII case-insensitive); `None` for anything else.
pub(crate) fn parse_flag(value: &str) -> Option<bool> {
    match value.trim() {
        "1" => Some(true),
        "0" => Some(false),
        v if v.eq_ignore_ascii_case("true") => Some(true),
        v if v.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_encodes_every_tail_length() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
        ] {
            assert_eq!(base64_encode(plain.as_bytes()), coded);
            assert_eq!(crate::protocol::base64::decode(coded).unwrap(), plain.as_bytes());
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(crate::protocol::base64::decode(&base64_encode(&all)).unwrap(), all);
    }

    #[test]
    fn truncation_never_splits_a_char() {
        let mut s = "héllo wörld".to_string();
        assert!(truncate_chars(&mut s, 2));
        assert_eq!(s, "hé");
        let mut s = "日本語テキスト".to_string();
        truncate_chars(&mut s, 3);
        assert_eq!(s, "日本語");
        let mut s = "short".to_string();
        assert!(!truncate_chars(&mut s, 5));
        let mut s = "abcdef".to_string();
        truncate_marked(&mut s, 4);
        assert_eq!(s, "abc…");
        // Exactly `max` chars (multi-byte ones too) stay; one more is cut; the memory follows.
        let mut s = "日本語テ".to_string();
        truncate_marked(&mut s, 4);
        assert_eq!(s, "日本語テ");
        let mut s = String::with_capacity(1 << 20);
        s.push_str("日本語テキ");
        truncate_marked(&mut s, 4);
        assert_eq!(s, "日本語…");
        assert!(s.capacity() < 64, "{}", s.capacity());
    }

    #[test]
    fn query_decoding() {
        let pairs: Vec<_> = query_pairs(Some("a=1&page=http%3A%2F%2Fx%2F%3Fq&b=%zz&c=x+y&flag")).collect();
        assert_eq!(pairs[1].1, "http://x/?q");
        assert_eq!(pairs[2].1, "%zz");
        assert_eq!(pairs[3].1, "x y");
        assert_eq!(pairs[4], ("flag".to_string(), String::new()));
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%4"), "%4");
    }

    #[test]
    fn random_keys_differ() {
        let a = random_hex(16);
        assert_eq!(a.len(), 32);
        assert_ne!(a, random_hex(16));
    }
}
