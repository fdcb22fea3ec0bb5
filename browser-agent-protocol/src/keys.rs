//! The `key` of a `press` step: a chord of modifiers and one key (`Control+a`, `Shift+Tab`,
//! `Enter`), read by the host, which refuses what is none before the page sees it, and by the page,
//! which presses it.

use std::fmt;

/// The modifier keys held during a press.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mods {
    /// Control (or Playwright's `ControlOrMeta`: pages here run anywhere, so Control).
    pub ctrl: bool,
    /// Shift.
    pub shift: bool,
    /// Alt (Option).
    pub alt: bool,
    /// Meta (Command, Super).
    pub meta: bool,
}

/// Why a chord is none (borrowing from it); its text says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChordError<'a> {
    /// A modifier that is none (`Hyper+a`).
    Modifier {
        /// The modifier as written.
        modifier: &'a str,
        /// The whole chord.
        chord: &'a str,
    },
    /// A key that is neither one character nor a key name (`Control+Foo`).
    Key(&'a str),
}

impl fmt::Display for ChordError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChordError::Modifier { modifier, chord } => write!(
                f,
                "unknown modifier \"{modifier}\" in \"{chord}\" (use Control, Shift, Alt or Meta)"
            ),
            ChordError::Key(key) => write!(
                f,
                "unknown key \"{key}\" (use a character, or Enter, Tab, Escape, Backspace, Delete, Space, \
                 ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, F1–F12, with Control+, Shift+, Alt+, Meta+)"
            ),
        }
    }
}

/// `Control+a` → the modifiers and the key as the DOM names it (`a`; aliases such as `esc`,
/// `up`, `space` become `Escape`, `ArrowUp`, `" "`).
///
/// ```
/// use browser_agent_protocol::keys::{parse_chord, Mods};
/// let (mods, key) = parse_chord("ctrl+Enter").unwrap();
/// assert_eq!((mods, key.as_str()), (Mods { ctrl: true, ..Mods::default() }, "Enter"));
/// assert_eq!(parse_chord("Control++").unwrap().1, "+");
/// assert!(parse_chord("Hyper+a").unwrap_err().to_string().starts_with("unknown modifier \"Hyper\""));
/// ```
// `#[inline]`: called across crates from the wasm client, whose build would otherwise keep a
// generic copy of it far larger than the inlined one (as for `Ref::parse`).
#[inline]
pub fn parse_chord(chord: &str) -> Result<(Mods, String), ChordError<'_>> {
    let mut mods = Mods::default();
    let mut parts: Vec<&str> = chord.split('+').collect();
    // `Control++`: the last key is `+`.
    if chord.ends_with("++") || chord == "+" {
        parts.retain(|p| !p.is_empty());
        parts.push("+");
    }
    let key = parts.pop().unwrap_or("");
    for m in parts {
        match m.trim().to_ascii_lowercase().as_str() {
            "control" | "ctrl" | "controlormeta" => mods.ctrl = true,
            "shift" => mods.shift = true,
            "alt" | "option" => mods.alt = true,
            "meta" | "cmd" | "command" | "super" => mods.meta = true,
            _ => return Err(ChordError::Modifier { modifier: m, chord }),
        }
    }
    let named = match key.to_ascii_lowercase().as_str() {
        "enter" | "return" => "Enter",
        "tab" => "Tab",
        "esc" | "escape" => "Escape",
        "space" | " " => " ",
        "backspace" => "Backspace",
        "delete" | "del" => "Delete",
        "up" | "arrowup" => "ArrowUp",
        "down" | "arrowdown" => "ArrowDown",
        "left" | "arrowleft" => "ArrowLeft",
        "right" | "arrowright" => "ArrowRight",
        "home" => "Home",
        "end" => "End",
        "pageup" => "PageUp",
        "pagedown" => "PageDown",
        _ if key.chars().count() == 1 => key,
        _ if key.len() > 1 && key.starts_with('F') && key.bytes().skip(1).all(|b| b.is_ascii_digit()) => key,
        _ => return Err(ChordError::Key(key)),
    };
    Ok((mods, named.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::{parse_chord, ChordError, Mods};

    fn chord(c: &str) -> (Mods, String) {
        parse_chord(c).unwrap_or_else(|e| panic!("{c}: {e}"))
    }

    #[test]
    fn chords() {
        let ctrl = Mods {
            ctrl: true,
            ..Mods::default()
        };
        assert_eq!(chord("Control+a"), (ctrl, "a".to_owned()));
        assert_eq!(chord("ctrl+A"), (ctrl, "A".to_owned()));
        assert_eq!(chord("ControlOrMeta+c"), (ctrl, "c".to_owned()));
        assert_eq!(chord("Control++"), (ctrl, "+".to_owned()));
        assert_eq!(chord("+"), (Mods::default(), "+".to_owned()));
        let (m, k) = chord("Shift+Alt+Meta+Tab");
        assert!(m.shift && m.alt && m.meta && !m.ctrl);
        assert_eq!(k, "Tab");
        for (alias, key) in [
            ("enter", "Enter"),
            ("Return", "Enter"),
            ("esc", "Escape"),
            ("space", " "),
            (" ", " "),
            ("del", "Delete"),
            ("up", "ArrowUp"),
            ("ArrowLeft", "ArrowLeft"),
            ("pagedown", "PageDown"),
            ("F5", "F5"),
            ("F12", "F12"),
            ("é", "é"),
        ] {
            assert_eq!(chord(alias).1, key, "{alias}");
        }
    }

    #[test]
    fn chord_errors() {
        assert_eq!(
            parse_chord("Hyper+a").unwrap_err().to_string(),
            "unknown modifier \"Hyper\" in \"Hyper+a\" (use Control, Shift, Alt or Meta)"
        );
        assert_eq!(parse_chord("Control+Foo"), Err(ChordError::Key("Foo")));
        assert!(parse_chord("Fx").is_err());
        assert!(parse_chord("").is_err());
    }
}
