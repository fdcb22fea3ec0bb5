//! The injected tag: one `<script>` carrying its config as JSON in an attribute and the tiny
//! bootstrap inline (it starts capturing before the page's own scripts, then loads the client).

use bytes::Bytes;

use crate::protocol::{TagConfig, CONFIG_ATTR};

/// The bootstrap: small, ASCII-only JS that captures from the first millisecond into a bounded
/// queue (500 entries, oldest dropped and counted) and loads the wasm client, which drains it.
///
/// It serializes console arguments at call time, in JS (one boundary crossing per entry instead of
/// one per property): strings cut at 4,000 UTF-16 units; objects and arrays as JSON up to depth 4,
/// 30 items each (then `"… N more"`), ~2,000 characters (then `…`), inner strings cut at 300,
/// cycles as `"[Circular]"`, accessors as `"[Getter]"` (never run: that could change the page),
/// unreadable items as `"[Throws]"`; errors as their stack (nested: `Name:
/// message`); DOM nodes as `<tag#id.class>`; functions as `[Function: name]`; dates in ISO form.
/// While it serializes (page getters may log), captures are dropped as artifacts of ours.
pub const BOOTSTRAP_JS: &str = include_str!("../../assets/bootstrap.js");

/// Builds the tag for `config`, with `nonce` copied from the page's CSP when it has one.
///
/// ```
/// use browser_agent_core::adapter::tag::build_tag;
/// use browser_agent_core::protocol::TagConfig;
/// let cfg = TagConfig { key: "k3y".into(), prefix: "/__mindstudio_dev__".into(), rev: "r1".into(), client: String::new(), wasm: String::new(), cursor: false };
/// let tag = build_tag(&cfg, Some("n0nce"));
/// let html = std::str::from_utf8(&tag).unwrap();
/// assert!(html.starts_with(r#"<script data-browser-agent='{"key":"k3y","prefix":"/__mindstudio_dev__","rev":"r1""#));
/// assert!(html.contains(r#" nonce="n0nce">"#) && html.ends_with("</script>"));
/// ```
pub fn build_tag(config: &TagConfig, nonce: Option<&str>) -> Bytes {
    let mut tag = format!("<script {CONFIG_ATTR}='{}'", config.to_attribute());
    if let Some(nonce) = nonce {
        tag.push_str(&format!(" nonce=\"{nonce}\""));
    }
    tag.push('>');
    tag.push_str(BOOTSTRAP_JS.trim_end());
    tag.push_str("</script>");
    Bytes::from(tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bootstrap_is_safe_to_inline() {
        assert!(BOOTSTRAP_JS.is_ascii(), "any page charset must read it the same");
        let lower = BOOTSTRAP_JS.to_ascii_lowercase();
        assert!(
            !lower.contains("</script") && !lower.contains("<!--"),
            "would break the inline script"
        );
    }

    #[test]
    fn config_is_readable_back_from_the_attribute() {
        let cfg = TagConfig {
            key: "abc".into(),
            prefix: "/p".into(),
            rev: "it's<&>".into(),
            client: "/p/a.js".into(),
            wasm: String::new(),
            cursor: true,
        };
        let tag = build_tag(&cfg, None);
        let html = std::str::from_utf8(&tag).unwrap();
        assert_eq!(TagConfig::from_html(html), Some(cfg));
    }
}
