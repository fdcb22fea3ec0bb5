//! Standard base64 (RFC 4648) decoding, for the bytes both sides read: an `upload` step's inline
//! files (the host checks them, the page builds its `File`s from them) and MCP's images.

/// `text` decoded (padding optional); `None` on a character outside the alphabet.
///
/// ```
/// use browser_agent_protocol::base64::decode;
/// assert_eq!(decode("aGVsbG8=").unwrap(), b"hello");
/// assert_eq!(decode("aGVsbG8").unwrap(), b"hello");
/// assert!(decode("a b").is_none());
/// ```
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_with_and_without_padding() {
        assert_eq!(decode("SGVsbG8sIOS4lueVjA==").unwrap(), "Hello, 世界".as_bytes());
        assert_eq!(decode("YnJvd3Nlcl9ydW4").unwrap(), b"browser_run");
        assert_eq!(decode("").unwrap(), b"");
        assert!(decode("no spaces").is_none());
        let all: Vec<u8> = (0..=255).collect();
        // (Encoded with Python's base64.b64encode.)
        assert_eq!(decode("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==").unwrap(), all);
    }
}
