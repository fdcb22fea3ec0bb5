//! What a heartbeat says about a page, and the page's life-cycle phase.

use serde::{Deserialize, Serialize};

use crate::{param, MAX_ID_LEN};

/// What a heartbeat says about a page: the query of `GET /browser/probe` (parameters
/// [`param::CLIENT`], [`param::PAGE`], [`param::TITLE`], [`param::PHASE`], [`param::VISIBLE`],
/// [`param::FOCUSED`], [`param::IFRAME`], [`param::REV`], [`param::TAB`], [`param::PARENT`], [`param::TOOLS`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heartbeat {
    /// Page load id (empty for dsh clients).
    pub client: String,
    /// `location.href` (dsh sends `href | title`).
    pub page: String,
    /// `document.title`.
    pub title: String,
    /// Life-cycle phase, when sent.
    pub phase: Option<Phase>,
    /// `document.visibilityState == "visible"`.
    pub visible: Option<bool>,
    /// `document.hasFocus()`.
    pub focused: Option<bool>,
    /// The page runs in an iframe.
    pub in_iframe: Option<bool>,
    /// The client revision the page runs.
    pub rev: Option<String>,
    /// How many times the page's own tools changed ([`param::TOOLS`]); `None` (or 0): it has none.
    pub tools: Option<u64>,
    /// The browser tab's id (kept across page loads in `sessionStorage`).
    pub tab: Option<String>,
    /// For a page in an iframe: the origin of the page that frames it.
    pub parent: Option<String>,
    /// For a page an agent's step opened: its opener's client id ([`param::OPENER`]).
    pub opener: Option<String>,
    /// Why the client failed to start (with [`Phase::Failed`]).
    pub error: Option<String>,
    /// The stack of that error.
    pub stack: Option<String>,
}

impl Heartbeat {
    /// Reads a heartbeat from its query's decoded `name=value` pairs, by the names in [`param`]:
    /// unknown names are ignored, a name given twice counts by its last value, a flag is `1` or
    /// `true`, and the client id is cut at [`MAX_ID_LEN`] chars.
    ///
    /// ```
    /// use browser_agent_protocol::{Heartbeat, Phase};
    /// let hb = Heartbeat::from_pairs([("client", "c1"), ("phase", "hooked"), ("visible", "1"), ("phase", "ready")]);
    /// assert_eq!((hb.client.as_str(), hb.phase, hb.visible, hb.focused), ("c1", Some(Phase::Ready), Some(true), None));
    /// ```
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Heartbeat {
        let mut hb = Heartbeat::default();
        let flag = |v: &str| Some(v == "1" || v.eq_ignore_ascii_case("true"));
        for (name, value) in pairs {
            let text = || Some(value.to_owned());
            match name {
                param::CLIENT => hb.client = value.chars().take(MAX_ID_LEN).collect(),
                param::PAGE => hb.page = value.to_owned(),
                param::TITLE => hb.title = value.to_owned(),
                param::PHASE => hb.phase = Phase::parse(value),
                param::VISIBLE => hb.visible = flag(value),
                param::FOCUSED => hb.focused = flag(value),
                param::IFRAME => hb.in_iframe = flag(value),
                param::REV => hb.rev = text(),
                param::TOOLS => hb.tools = value.parse().ok(),
                param::TAB => hb.tab = text(),
                param::PARENT => hb.parent = text(),
                param::OPENER => hb.opener = Some(value.chars().take(MAX_ID_LEN).collect()),
                param::ERROR => hb.error = text(),
                param::STACK => hb.stack = text(),
                _ => {}
            }
        }
        hb
    }
}

/// Page life-cycle phase reported by the heartbeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// The tag ran; nothing is hooked yet.
    #[default]
    Loading,
    /// Capture patches are installed.
    Hooked,
    /// The client is fully running (also accepts dsh's `mounted`).
    #[serde(alias = "mounted")]
    Ready,
    /// The bootstrap ran but the wasm client failed to load or start (the heartbeat's `error` says
    /// why). Only the bootstrap reports it, and the host reads it.
    Failed,
}

impl Phase {
    /// Parses a phase name; unknown names give `None`.
    pub fn parse(s: &str) -> Option<Phase> {
        match s {
            "loading" => Some(Phase::Loading),
            "hooked" => Some(Phase::Hooked),
            "ready" | "mounted" => Some(Phase::Ready),
            "failed" => Some(Phase::Failed),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Loading => "loading",
            Phase::Hooked => "hooked",
            Phase::Ready => "ready",
            Phase::Failed => "failed",
        }
    }
}
