//! The wire contract between the injected page client and the host.
//!
//! This module is all that remains of core with `default-features = false`, so the wasm
//! client and the host share one definition of every path, header, parameter and shape.
//!
//! ```
//! use browser_agent_core::protocol;
//! assert_eq!(protocol::DEFAULT_PREFIX, "/__mindstudio_dev__");
//! assert_eq!(protocol::LOGS_PATH, "/logs");
//! ```

use serde::{Deserialize, Serialize};

/// Default prefix of our routes (the MindStudio browser agent's).
pub const DEFAULT_PREFIX: &str = "/__mindstudio_dev__";
/// dsh-agent-browser's heartbeat route; fixed for compatibility.
pub const PROBE_PATH: &str = "/browser/probe";
/// Everything under this path belongs to us (unknown paths get 404).
pub const PROBE_SCOPE: &str = "/browser/";

/// `POST {prefix}/logs`: a bare JSON array of log entries.
pub const LOGS_PATH: &str = "/logs";
/// `GET {prefix}/console`: the agent reads logs.
pub const CONSOLE_PATH: &str = "/console";
/// `GET {prefix}/page`: the agent reads the open pages.
pub const PAGE_PATH: &str = "/page";
/// `GET {prefix}/commands`: the page polls for a batch.
pub const COMMANDS_PATH: &str = "/commands";
/// `POST {prefix}/results`: the page answers a batch.
pub const RESULTS_PATH: &str = "/results";
/// `POST {prefix}/run`: the agent runs a batch.
pub const RUN_PATH: &str = "/run";
/// `GET {prefix}/snapshot`: the agent asks for a snapshot.
pub const SNAPSHOT_PATH: &str = "/snapshot";
/// `GET {prefix}/actions`: the agent reads a page's action log.
pub const ACTIONS_PATH: &str = "/actions";
/// `POST {prefix}/mcp`: the MCP endpoint (streamable HTTP, stateless, JSON answers; see [`mcp`]).
pub const MCP_PATH: &str = "/mcp";
/// `POST {prefix}/screenshots`: the page uploads a screenshot's encoded bytes (page key required);
/// `GET {prefix}/screenshots/{id}.{png|jpg}` serves one to the agent (see [`screenshot`]).
pub const SCREENSHOTS_PATH: &str = "/screenshots";
/// `GET {prefix}/proof`: the open proof session; `POST {prefix}/proof/start`, `/proof/stop`,
/// `/proof/compare`; `GET {prefix}/proof/{id}/summary`.
pub const PROOF_PATH: &str = "/proof";
/// `POST {prefix}/notes`: the page sends a confirmed note (page key required);
/// `GET {prefix}/notes?client=&since=` lists them for the agent, `DELETE {prefix}/notes/{id}` (or
/// `DELETE {prefix}/notes`, all) clears them (see [`notes`]).
pub const NOTES_PATH: &str = "/notes";
/// `sessionStorage` key of the per-tab id the client sends as `tab=` (heartbeats and polls), so a
/// batch survives a page load in the same tab.
pub const TAB_STORAGE_KEY: &str = "__browserAgentTab";

/// The commands a batch step may name (`{"command": …}`): the host refuses a batch naming any
/// other before it reaches a page, and the page's client runs these. Made from [`STEP_FIELDS`],
/// whose entries they name, in its order.
///
/// ```
/// use browser_agent_core::protocol::COMMANDS;
/// assert_eq!(COMMANDS.first(), Some(&"snapshot"));
/// assert!(COMMANDS.contains(&"press") && COMMANDS.contains(&"notes"));
/// ```
pub const COMMANDS: &[&str] = &{
    let mut names = [""; STEP_FIELDS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = STEP_FIELDS[i].command;
        i += 1;
    }
    names
};

/// What a step field holds, as the page reads it: the host checks every field of every step
/// against [`STEP_FIELDS`] before a batch runs, so a bad one is a 400, not a failure after the
/// earlier steps acted. A `null` field is not given, whatever its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// Text: a string, or a number the page reads as its digits; `""` is not given.
    Text,
    /// A string, `""` included (what `type` and `fill` enter: `""` empties a field).
    String,
    /// `true` or `false`.
    Flag,
    /// Milliseconds, 0 or more.
    Millis,
    /// CSS pixels, 0 or more.
    Pixels,
    /// A whole number, 0 or more.
    Index,
    /// One of these words, in any case.
    AnyCase(&'static [&'static str]),
    /// An `http`/`https` URL, or one relative to the page's (`/settings`); `""` is not given.
    Url,
    /// A ref from a snapshot ([`Ref::read`]; `""` is not given).
    Ref,
    /// A key chord ([`keys::parse_chord`]: `Enter`, `Control+a`); `""` is not given.
    Chord,
    /// Checked by the command's own rules in the host (the snapshot's view, the screenshot's
    /// options: ranges and fields that exclude each other; the notes mode).
    Own,
}

/// How a command takes a target element (the fields of [`TARGET_STEP_FIELDS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetUse {
    /// It takes none: the target fields are not its fields.
    No,
    /// It may name one (`press`: else the focused element; `screenshot`: else the viewport).
    Optional,
    /// It must name one.
    Required,
    /// It must name one with a field other than `text`, which is its own (`type`, `fill`: the
    /// text to enter; `select`: the option, beside `ref` or `name`).
    RequiredNotText,
    /// It needs a target or one of its [`StepFields::needs`] (`wait`: or `ms`; `scroll`: or
    /// `direction`).
    OrNeeds,
}

/// The fields one command's step takes (besides `command`), as the page client reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepFields {
    /// The command (one of [`COMMANDS`]).
    pub command: &'static str,
    /// Whether it takes a target ([`TARGET_STEP_FIELDS`]).
    pub target: TargetUse,
    /// Its own fields and what each holds (one of the same name as a target field replaces it).
    pub fields: &'static [(&'static str, FieldKind)],
    /// At least one of these must be given (aliases of one field: `key` or `keys`); empty: none.
    pub needs: &'static [&'static str],
    /// A typical step, for the texts that refuse one.
    pub example: &'static str,
}

/// The fields that name a target, and what each holds: [`TARGET_FIELDS`] in their order, then
/// `nth` (which of equally good matches, 0 = the first).
///
/// ```
/// use browser_agent_core::protocol::{FieldKind, TARGET_FIELDS, TARGET_STEP_FIELDS};
/// let names: Vec<&str> = TARGET_STEP_FIELDS.iter().map(|(name, _)| *name).collect();
/// assert_eq!(names[..TARGET_FIELDS.len()], TARGET_FIELDS);
/// assert_eq!(TARGET_STEP_FIELDS.last(), Some(&("nth", FieldKind::Index)));
/// ```
pub const TARGET_STEP_FIELDS: &[(&str, FieldKind)] = &[
    ("ref", FieldKind::Ref),
    ("role", FieldKind::Text),
    ("label", FieldKind::Text),
    ("placeholder", FieldKind::Text),
    ("selector", FieldKind::Text),
    ("name", FieldKind::Text),
    ("text", FieldKind::Text),
    ("nth", FieldKind::Index),
];

/// The own fields of `type` and `fill`: the text to enter (`""` empties the field), and whether
/// to clear it first.
const TEXT_ENTRY: &[(&str, FieldKind)] = &[
    ("text", FieldKind::String),
    ("value", FieldKind::String),
    ("clear", FieldKind::Flag),
];

/// Every command's step fields ([`COMMANDS`] is made from it): the one list the host checks steps
/// against (a field not listed is refused, naming what the command takes). Each entry is what the
/// page client reads (`browser-agent-client/src/commands/actions/*`, `resolve/*`, `screenshot.rs`
/// and the snapshot's view), so a step the host accepts is one the page understands.
///
/// ```
/// use browser_agent_core::protocol::{FieldKind, TargetUse, COMMANDS, STEP_FIELDS};
/// let commands: Vec<&str> = STEP_FIELDS.iter().map(|s| s.command).collect();
/// assert_eq!(commands, COMMANDS);
/// let wait = STEP_FIELDS.iter().find(|s| s.command == "wait").unwrap();
/// assert_eq!(wait.target, TargetUse::OrNeeds);
/// assert!(wait.fields.contains(&("timeout", FieldKind::Millis)));
/// assert!(!wait.fields.iter().any(|(name, _)| *name == "timeoutMs"));
/// ```
pub const STEP_FIELDS: &[StepFields] = &[
    StepFields {
        command: "snapshot",
        target: TargetUse::No,
        // `diff`, then SNAPSHOT_VIEW.
        fields: &[
            ("diff", FieldKind::Own),
            ("ref", FieldKind::Ref),
            ("offset", FieldKind::Own),
            ("limit", FieldKind::Own),
            ("filter", FieldKind::Own),
            ("viewport", FieldKind::Own),
            ("budget", FieldKind::Own),
            ("full", FieldKind::Own),
        ],
        needs: &[],
        example: r#"{"command":"snapshot"}"#,
    },
    StepFields {
        command: "click",
        target: TargetUse::Required,
        fields: &[],
        needs: &[],
        example: r#"{"command":"click","ref":"e7"}"#,
    },
    StepFields {
        command: "dblclick",
        target: TargetUse::Required,
        fields: &[],
        needs: &[],
        example: r#"{"command":"dblclick","text":"Item 1"}"#,
    },
    StepFields {
        command: "type",
        target: TargetUse::RequiredNotText,
        fields: TEXT_ENTRY,
        needs: &["text", "value"],
        example: r#"{"command":"type","label":"Email","text":"ada@example.com"}"#,
    },
    StepFields {
        command: "fill",
        target: TargetUse::RequiredNotText,
        fields: TEXT_ENTRY,
        needs: &["text", "value"],
        example: r#"{"command":"fill","label":"Email","text":"ada@example.com"}"#,
    },
    StepFields {
        command: "select",
        target: TargetUse::RequiredNotText,
        // `text` names the option only beside `ref` or `name` (else it is neither target nor option).
        fields: &[
            ("option", FieldKind::Text),
            ("value", FieldKind::Text),
            ("text", FieldKind::Text),
        ],
        needs: &["option", "value", "text"],
        example: r#"{"command":"select","label":"Color","option":"Red"}"#,
    },
    StepFields {
        command: "check",
        target: TargetUse::Required,
        fields: &[],
        needs: &[],
        example: r#"{"command":"check","label":"I agree"}"#,
    },
    StepFields {
        command: "uncheck",
        target: TargetUse::Required,
        fields: &[],
        needs: &[],
        example: r#"{"command":"uncheck","label":"Newsletter"}"#,
    },
    StepFields {
        command: "press",
        target: TargetUse::Optional,
        fields: &[("key", FieldKind::Chord), ("keys", FieldKind::Chord)],
        needs: &["key", "keys"],
        example: r#"{"command":"press","key":"Enter"}"#,
    },
    StepFields {
        command: "hover",
        target: TargetUse::Required,
        fields: &[],
        needs: &[],
        example: r#"{"command":"hover","text":"Products"}"#,
    },
    StepFields {
        command: "scroll",
        target: TargetUse::OrNeeds,
        fields: &[
            ("direction", FieldKind::AnyCase(&["up", "down", "left", "right"])),
            ("amount", FieldKind::Pixels),
        ],
        needs: &["direction"],
        example: r#"{"command":"scroll","direction":"down","amount":600}"#,
    },
    StepFields {
        command: "wait",
        target: TargetUse::OrNeeds,
        fields: &[
            ("timeout", FieldKind::Millis),
            ("gone", FieldKind::Flag),
            ("ms", FieldKind::Millis),
        ],
        needs: &["ms", "timeout"],
        example: r#"{"command":"wait","text":"Saved","timeout":5000}"#,
    },
    StepFields {
        command: "evaluate",
        target: TargetUse::No,
        fields: &[
            ("script", FieldKind::Text),
            ("expression", FieldKind::Text),
            ("code", FieldKind::Text),
            ("js", FieldKind::Text),
        ],
        needs: &["script", "expression", "code", "js"],
        example: r#"{"command":"evaluate","script":"document.title"}"#,
    },
    StepFields {
        command: "navigate",
        target: TargetUse::No,
        fields: &[("url", FieldKind::Url)],
        needs: &["url"],
        example: r#"{"command":"navigate","url":"/settings"}"#,
    },
    StepFields {
        command: "back",
        target: TargetUse::No,
        fields: &[],
        needs: &[],
        example: r#"{"command":"back"}"#,
    },
    StepFields {
        command: "forward",
        target: TargetUse::No,
        fields: &[],
        needs: &[],
        example: r#"{"command":"forward"}"#,
    },
    StepFields {
        command: "reload",
        target: TargetUse::No,
        fields: &[],
        needs: &[],
        example: r#"{"command":"reload"}"#,
    },
    StepFields {
        command: "screenshot",
        target: TargetUse::Optional,
        fields: &[
            (screenshot::FULL_PAGE, FieldKind::Own),
            (screenshot::PADDING, FieldKind::Own),
            (screenshot::FORMAT, FieldKind::Own),
            (screenshot::QUALITY, FieldKind::Own),
            (screenshot::MAX_WIDTH, FieldKind::Own),
            (screenshot::SCALE, FieldKind::Own),
            (screenshot::METHOD, FieldKind::Own),
            (screenshot::INLINE, FieldKind::Own),
            (screenshot::BUDGET_MS, FieldKind::Own),
        ],
        needs: &[],
        example: r#"{"command":"screenshot","fullPage":true}"#,
    },
    StepFields {
        command: "notes",
        target: TargetUse::No,
        fields: &[("mode", FieldKind::Own)],
        needs: &["mode"],
        example: r#"{"command":"notes","mode":"enter"}"#,
    },
];
/// Attribute on every element the client adds to a page (the agent cursor and its ripple): never
/// a target, never in a snapshot or a screenshot.
pub const UI_ATTR: &str = "data-browser-agent-ui";
/// The CSS selector of [`UI_ATTR`].
///
/// ```
/// use browser_agent_core::protocol::{UI_ATTR, UI_SELECTOR};
/// assert_eq!(UI_SELECTOR, format!("[{UI_ATTR}]"));
/// ```
pub const UI_SELECTOR: &str = "[data-browser-agent-ui]";
/// The step fields that name a target element, in the order the page tries them; `text` last
/// (for `type` and `fill` it is what is typed, not a target).
pub const TARGET_FIELDS: [&str; 7] = ["ref", "role", "label", "placeholder", "selector", "name", "text"];
/// What a password field's value is shown as: its snapshot line's `[value="•••"]`, and the text a
/// `type` or `fill` step into it answers (`typed "•••"`), so the action log and proofs never hold it.
pub const SECRET_VALUE: &str = "•••";
/// What a ref looks like, for the texts that refuse one that is not.
pub const REF_FORM: &str = "refs look like e12, or f1e12 inside a frame";

/// A ref from a snapshot: `e12`, or `f1e12` for element 12 inside frame 1. Element numbers are
/// unique across a page load and its frames, so `e12` also finds `f1e12`; a frame number given
/// must be the element's own. The page and the host read refs with this one parser.
///
/// ```
/// use browser_agent_core::protocol::Ref;
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
    /// use browser_agent_core::protocol::Ref;
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

/// Content-hashed client assets are served as `{prefix}/assets/{name}`.
pub const ASSETS_DIR: &str = "/assets/";

/// Header carrying the page key on browser-facing writes.
pub const KEY_HEADER: &str = "x-browser-agent-key";
/// Query parameter carrying the page key where no header can be set (`sendBeacon`, GET heartbeat).
pub const KEY_PARAM: &str = "key";
/// Response header of the heartbeat naming the client revision the host serves now;
/// a page running another revision reloads itself (once per revision).
pub const REV_HEADER: &str = "x-browser-agent-rev";
/// Header of the heartbeat's answer while an agent is attached (it called within
/// [`AGENT_ATTACHED_MS`]): the page then fetches and compiles its hands while idle, so the agent's
/// first command never waits for them.
pub const AGENT_HEADER: &str = "x-browser-agent-attached";
/// How long after an agent's last call the host still counts it as attached, in milliseconds.
pub const AGENT_ATTACHED_MS: u64 = 300_000;
/// The sensor every page runs (`browser-agent-client/sensor/sensor.js`), served as
/// `{prefix}/assets/sensor-{rev}.js` and imported by the inline bootstrap after the first frame.
pub const SENSOR_ASSET: &str = "sensor";

/// Attribute of the injected `<script>` that holds [`TagConfig`] as JSON.
pub const CONFIG_ATTR: &str = "data-browser-agent";

/// Heartbeat interval of the page client, in milliseconds.
pub const HEARTBEAT_INTERVAL_MS: u64 = 10_000;
/// Log batch interval of the page client, in milliseconds.
pub const FLUSH_INTERVAL_MS: u64 = 2_000;
/// A client is alive when seen within this many milliseconds (closed interval). One constant, used everywhere.
pub const CLIENT_TTL_MS: u64 = 60_000;
/// How long a page's client may take to start: the bootstrap reports the page as
/// [`Phase::Failed`] when the wasm client has not hooked in this long after it began loading it,
/// and the host treats a page still at [`Phase::Hooked`] this long after it was first seen as failed too.
pub const CLIENT_START_TIMEOUT_MS: u64 = 30_000;

/// What a snapshot shows when neither the step nor the host says otherwise: at most about this
/// many (o200k) tokens; past it long runs of siblings are cut (`… N more role (snapshot {…})`).
/// A host sets its own with `BrowserAgentBuilder::snapshot_budget`, a step with `budget`.
pub const SNAPSHOT_BUDGET: u32 = 8_000;
/// The `snapshot` step's view fields besides `diff` (the README's table): `ref` (one node's
/// subtree), `offset`/`limit` (over its children, or the page's), `filter` (the branches whose text
/// matches), `viewport` (what is on screen), `budget` (tokens), `full` (no budget).
pub const SNAPSHOT_VIEW: &[&str] = &["ref", "offset", "limit", "filter", "viewport", "budget", "full"];
/// Smallest snapshot budget a host may set (a smaller one would cut every page to its head).
pub const SNAPSHOT_BUDGET_MIN: u32 = 500;

/// Longest hold of a command long-poll (`GET {prefix}/commands?wait=`), in milliseconds: the host
/// caps `wait` to it and the page client asks for exactly this.
pub const POLL_WAIT_MS: u64 = 25_000;
/// Longest client id or tab id accepted on the wire (ids are random hex; longer ones are refused
/// or, in a heartbeat, cut).
pub const MAX_ID_LEN: usize = 64;
/// Pages one command poll covers besides its own ([`param::CLIENTS`]) on a host with the default
/// page bound (`max_clients`, 256): every page such a host keeps a record of. A host built with a
/// larger `max_clients` covers that many minus one; names past the bound are ignored, not refused
/// (the pages named first are covered).
///
/// A browser's tabs of one origin share one poll, held by one of them, which names every page it
/// hears of (see the README, "What the page calls"). Why one poll for all and not one per so many
/// pages, or lone polls for the rest: each held poll keeps one of the browser's six HTTP/1.1
/// connections per host, and six held polls stall every page load of the dev server. A page the
/// host keeps no record of cannot be targeted anyway, so the host's own page bound is the one
/// bound a poll needs.
pub const MAX_POLL_CLIENTS: usize = 255;

/// Query parameter names of the browser-facing routes (heartbeat, command poll, `gone` beacon).
pub mod param {
    /// The page key, where no header can be set (see [`super::KEY_PARAM`]).
    pub const KEY: &str = super::KEY_PARAM;
    /// The page's client id (one per page load).
    pub const CLIENT: &str = "client";
    /// The tab id (from `sessionStorage`, see [`super::TAB_STORAGE_KEY`]).
    pub const TAB: &str = "tab";
    /// Long-poll hold in milliseconds (capped to [`super::POLL_WAIT_MS`]).
    pub const WAIT: &str = "wait";
    /// The other pages a command poll covers: `clients=ID:TAB,ID:TAB` (`:TAB` optional; the first
    /// [`super::MAX_POLL_CLIENTS`] are covered, or the host's `max_clients` − 1 when it keeps more
    /// pages); the host then answers the first batch for any of them
    /// with its page in [`super::field::CLIENT`], and counts each as polling.
    pub const CLIENTS: &str = "clients";
    /// `gone=1` on the `pagehide` beacon: the page left.
    pub const GONE: &str = "gone";
    /// Heartbeat: the page's URL.
    pub const PAGE: &str = "page";
    /// Heartbeat: the document title.
    pub const TITLE: &str = "title";
    /// Heartbeat: the life-cycle phase ([`super::Phase`]).
    pub const PHASE: &str = "phase";
    /// Heartbeat: `1` when the document is visible.
    pub const VISIBLE: &str = "visible";
    /// Heartbeat: `1` when the document has focus.
    pub const FOCUSED: &str = "focused";
    /// Heartbeat: `1` when the page runs in an iframe.
    pub const IFRAME: &str = "iframe";
    /// Heartbeat: the client revision the page runs.
    pub const REV: &str = "rev";
    /// Heartbeat of a page in an iframe: the origin of the page that frames it (`null` when the
    /// browser does not say).
    pub const PARENT: &str = "parent";
    /// Heartbeat of a page whose client failed to start ([`super::Phase::Failed`]): why (`Name: message`).
    pub const ERROR: &str = "error";
    /// Heartbeat of a page whose client failed to start: the error's stack.
    pub const STACK: &str = "stack";
}

/// The `key` of a `press` step: a chord of modifiers and one key (`Control+a`, `Shift+Tab`,
/// `Enter`), read by the host, which refuses what is none before the page sees it, and by the page,
/// which presses it.
pub mod keys {
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
    /// use browser_agent_core::protocol::keys::{parse_chord, Mods};
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
}

/// The modules the client loads on first use, each served as `{prefix}/assets/{name}-{rev}.js`
/// (`rev`: the first 12 digits of the client revision): features most pages never use cost them
/// nothing.
pub mod lazy {
    /// The screenshot capture (`browser-agent-client/screenshot/screenshot.js`), on the first `screenshot` step.
    pub const SCREENSHOT: &str = "screenshot";
    /// The visible agent cursor (`browser-agent-client/src/cursor/cursor.js`), on the first action where it shows.
    pub const CURSOR: &str = "cursor";
    /// Notes mode (`browser-agent-client/src/notes/notes.js`), when it is first entered.
    pub const NOTES: &str = "notes";
    /// The `evaluate` step (`browser-agent-client/src/commands/actions/evaluate.js`): compiling and
    /// running the agent's script and copying its result, on the first `evaluate` step.
    pub const EVALUATE: &str = "evaluate";
    /// The `scroll` step by a direction (`browser-agent-client/src/commands/actions/scroll.js`), on
    /// the first such `scroll` step.
    pub const SCROLL: &str = "scroll";
    /// What Tab and Escape do beyond their key events (`browser-agent-client/src/commands/actions/keys.js`:
    /// Tab's order, closing the top dialog or popover), on the first such `press`.
    pub const KEYS: &str = "keys";
}

/// Notes mode's contract: the parent frame's messages, the shortcut, and the note a page sends
/// (`POST {prefix}/notes`) and the host lists (`GET {prefix}/notes`).
///
/// ```
/// use browser_agent_core::protocol::notes::{self, NoteInput, NoteKind};
/// assert_eq!(notes::CHANNEL, "mindstudio-browser-agent");
/// let n: NoteInput = serde_json::from_str(r#"{"kind":"pin","text":"too small","point":{"x":10,"y":20},
///     "element":"button \"Save\" [ref=e7]","viewport":{"w":800,"h":600}}"#).unwrap();
/// assert_eq!((n.kind, n.point.unwrap().x), (Some(NoteKind::Pin), 10.0));
/// ```
pub mod notes {
    use serde::{Deserialize, Serialize};

    /// The `channel` of every postMessage between the parent frame (the IDE) and the page.
    pub const CHANNEL: &str = "mindstudio-browser-agent";
    /// Parent → page: enter notes mode.
    pub const ENTER: &str = "notes-enter";
    /// Parent → page: leave notes mode, removing every note from the page.
    pub const EXIT: &str = "notes-exit";
    /// Parent → page: a screenshot of the viewport with the notes drawn on it, answered with
    /// [`SCREENSHOT_RESULT`].
    pub const SCREENSHOT: &str = "notes-screenshot";
    /// Parent → page: hide the notes cursor (the mouse left the iframe).
    pub const CURSOR_HIDE: &str = "notes-cursor-hide";
    /// Page → parent: `{image: "data:image/png;base64,…"}` or `{error}`.
    pub const SCREENSHOT_RESULT: &str = "screenshot-result";
    /// The default shortcut, as [`TagConfig::notes_key`](super::TagConfig::notes_key) writes it:
    /// modifiers in the order `Control+Alt+Shift+Meta`, then the key's `KeyboardEvent.code`.
    pub const DEFAULT_KEY: &str = "Alt+Shift+KeyN";
    /// A note's text is cut at this many chars.
    pub const MAX_TEXT: usize = 2000;
    /// An area note lists at most this many elements.
    pub const MAX_ELEMENTS: usize = 20;
    /// How many notes the host keeps by default (the oldest go first).
    pub const DEFAULT_MAX_NOTES: usize = 200;

    /// What a note points at.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum NoteKind {
        /// A click: a point.
        Pin,
        /// A drag: a box.
        Area,
    }

    /// A point in CSS pixels of the viewport.
    #[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
    pub struct Point {
        /// From the left edge.
        pub x: f64,
        /// From the top edge.
        pub y: f64,
    }

    /// A box in CSS pixels of the viewport.
    #[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
    pub struct Rect {
        /// Left edge.
        pub x: f64,
        /// Top edge.
        pub y: f64,
        /// Width.
        pub w: f64,
        /// Height.
        pub h: f64,
    }

    /// The viewport when the note was confirmed: size and scroll offsets (a point's page position
    /// is `x + scrollX`, `y + scrollY`).
    #[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
    pub struct Viewport {
        /// Width in CSS pixels.
        pub w: f64,
        /// Height in CSS pixels.
        pub h: f64,
        /// Horizontal scroll offset.
        #[serde(default, rename = "scrollX")]
        pub scroll_x: f64,
        /// Vertical scroll offset.
        #[serde(default, rename = "scrollY")]
        pub scroll_y: f64,
    }

    /// What a page posts to `POST {prefix}/notes?client=`: one note the developer confirmed, or
    /// (`deleted: true`) the retraction of one it sent before (same `nid`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[serde(default)]
    pub struct NoteInput {
        /// The page's own id of the note: a later post with the same one replaces it.
        pub nid: String,
        /// `pin` or `area` (required unless `deleted`).
        pub kind: Option<NoteKind>,
        /// What the developer wrote.
        pub text: String,
        /// A pin's point.
        pub point: Option<Point>,
        /// An area's box.
        #[serde(rename = "box")]
        pub rect: Option<Rect>,
        /// The page's URL.
        pub url: String,
        /// The viewport.
        pub viewport: Viewport,
        /// The element under a pin (or at an area's centre), as the snapshot writes it.
        pub element: String,
        /// An area's elements, as the snapshot writes them.
        pub elements: Vec<String>,
        /// The id of the screenshot with the annotations the page uploaded (`POST {prefix}/screenshots`).
        pub screenshot: String,
        /// The developer deleted the note (`nid`) after sending it.
        pub deleted: bool,
    }

    /// A note as the host keeps and lists it.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Note {
        /// The host's id (`n1`, `n2`, …).
        pub id: String,
        /// The host's sequence number, raised when the note is replaced (`GET /notes?since=`).
        pub seq: u64,
        /// When it arrived, epoch ms.
        pub t: u64,
        /// The page's client id.
        pub client: String,
        /// `pin` or `area`.
        pub kind: NoteKind,
        /// What the developer wrote.
        pub text: String,
        /// A pin's point (viewport CSS px).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub point: Option<Point>,
        /// An area's box (viewport CSS px).
        #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
        pub rect: Option<Rect>,
        /// The page's URL.
        pub url: String,
        /// The viewport.
        pub viewport: Viewport,
        /// The element it points at: `button "Save" [ref=e7]` (a ref works in `/run`).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub element: String,
        /// An area's elements.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub elements: Vec<String>,
        /// The screenshot with the annotations, when the page sent one the store holds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub screenshot: Option<super::screenshot::ScreenshotInfo>,
        /// The page's own id of the note.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub nid: String,
    }
}

/// The `screenshot` step's contract: its options, the upload's query, the result the host answers.
///
/// The page captures with a module it loads on first use
/// ([`lazy::SCREENSHOT`]), uploads the encoded bytes with
/// `POST {prefix}/screenshots?client=&width=&height=&method=&ms=&warn=` (body `image/png` or
/// `image/jpeg`), and the host's answer, a [`ScreenshotInfo`](screenshot::ScreenshotInfo), is the
/// step's result.
///
/// ```
/// use browser_agent_core::protocol::screenshot;
/// assert_eq!(screenshot::DEFAULT_MAX_WIDTH, 1568);
/// assert_eq!(screenshot::Format::parse("jpg"), Some(screenshot::Format::Jpeg));
/// assert_eq!(screenshot::Format::Png.extension(), "png");
/// ```
pub mod screenshot {
    use serde::{Deserialize, Serialize};

    /// Step option: `true` for the whole document instead of the viewport.
    pub const FULL_PAGE: &str = "fullPage";
    /// Step option: CSS pixels around an element target.
    pub const PADDING: &str = "padding";
    /// Step option: `png` (default) or `jpeg`.
    pub const FORMAT: &str = "format";
    /// Step option: JPEG quality, 0 to 1 (default [`DEFAULT_QUALITY`]).
    pub const QUALITY: &str = "quality";
    /// Step option: the widest output in pixels (default [`DEFAULT_MAX_WIDTH`]); wider captures are scaled down.
    pub const MAX_WIDTH: &str = "maxWidth";
    /// Step option: output pixels per CSS pixel (default 1, never the device pixel ratio unless asked).
    pub const SCALE: &str = "scale";
    /// Step option: `auto` (default), `html-in-canvas` or `foreignobject`.
    pub const METHOD: &str = "method";
    /// Step option: `true` puts the image as base64 in the step result ([`ScreenshotInfo::data`]).
    pub const INLINE: &str = "inline";
    /// Step option: the capture's time budget in milliseconds (default [`DEFAULT_BUDGET_MS`]).
    pub const BUDGET_MS: &str = "budgetMs";

    /// The size vision models take without scaling (Anthropic's guidance: 1,568 px on the long side).
    pub const DEFAULT_MAX_WIDTH: u32 = 1568;
    /// JPEG quality when the step names none.
    pub const DEFAULT_QUALITY: f64 = 0.8;
    /// The capture's time budget when the step names none, in milliseconds.
    pub const DEFAULT_BUDGET_MS: u32 = 1500;
    /// The largest side a browser canvas takes: taller or wider captures are scaled down to it.
    pub const MAX_SIDE: u32 = 16_384;
    /// The capture methods, as the result names them.
    pub const METHODS: &[&str] = &["auto", "html-in-canvas", "foreignobject"];

    /// Upload query parameters (besides `client`).
    pub mod param {
        /// Output width in pixels.
        pub const WIDTH: &str = "width";
        /// Output height in pixels.
        pub const HEIGHT: &str = "height";
        /// The method that captured it.
        pub const METHOD: &str = "method";
        /// Capture time in milliseconds.
        pub const MS: &str = "ms";
        /// One warning (repeated: one parameter per warning).
        pub const WARN: &str = "warn";
        /// The page's URL when it captured.
        pub const PAGE: &str = "page";
    }

    /// An image format.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Format {
        /// `image/png`, the default.
        Png,
        /// `image/jpeg`.
        Jpeg,
    }

    impl Format {
        /// `png`, or `jpeg` / `jpg`; anything else is `None`.
        pub fn parse(s: &str) -> Option<Format> {
            match s {
                "png" => Some(Format::Png),
                "jpeg" | "jpg" => Some(Format::Jpeg),
                _ => None,
            }
        }

        /// The format of a `Content-Type` (parameters ignored).
        pub fn from_content_type(ct: &str) -> Option<Format> {
            match ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase().as_str() {
                "image/png" => Some(Format::Png),
                "image/jpeg" => Some(Format::Jpeg),
                _ => None,
            }
        }

        /// The MIME type.
        pub fn content_type(self) -> &'static str {
            match self {
                Format::Png => "image/png",
                Format::Jpeg => "image/jpeg",
            }
        }

        /// The file extension the image is served under (`png`, `jpg`).
        pub fn extension(self) -> &'static str {
            match self {
                Format::Png => "png",
                Format::Jpeg => "jpg",
            }
        }

        /// Whether `bytes` start as an image of this format does.
        pub fn sniff(self, bytes: &[u8]) -> bool {
            match self {
                Format::Png => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
                Format::Jpeg => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
            }
        }
    }

    /// What a screenshot is: the `screenshot` step's result and the upload's answer.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct ScreenshotInfo {
        /// The store's id (`s1`, `s2`, …).
        pub id: String,
        /// Where the agent gets it: `{prefix}/screenshots/{id}.{png|jpg}` (absolute when the
        /// host knew its address).
        pub url: String,
        /// Output width in pixels.
        pub width: u32,
        /// Output height in pixels.
        pub height: u32,
        /// Encoded size in bytes.
        pub bytes: usize,
        /// Capture time in the page, in milliseconds.
        pub ms: u64,
        /// `html-in-canvas` or `foreignobject`.
        pub method: String,
        /// The format.
        pub format: Format,
        /// What the capture left out or changed ("2 cross-origin images as placeholders").
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub warnings: Vec<String>,
        /// The page's client id.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub client: String,
        /// The page's URL when it captured.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub page: String,
        /// The image as base64, when the step asked for `inline`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub data: Option<String>,
    }
}

/// The MCP endpoint's contract ([`MCP_PATH`]): the protocol revisions it serves, its headers and
/// the `_meta` keys of the 2026-07-28 revision.
///
/// ```
/// use browser_agent_core::protocol::mcp;
/// assert!(mcp::LEGACY_VERSIONS.contains(&mcp::DEFAULT_VERSION));
/// assert_eq!(mcp::LATEST_LEGACY, "2025-11-25");
/// assert_eq!(mcp::MODERN_VERSIONS, ["2026-07-28"]);
/// ```
pub mod mcp {
    /// Revisions negotiated with `initialize` (oldest first).
    pub const LEGACY_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
    /// The newest of [`LEGACY_VERSIONS`]: what `initialize` answers when the client asks for a
    /// revision the server does not serve.
    pub const LATEST_LEGACY: &str = "2025-11-25";
    /// Revisions served statelessly, with the version in every request's `_meta`.
    pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];
    /// What a request without [`VERSION_HEADER`] speaks (the spec's rule for clients older than 2025-06-18).
    pub const DEFAULT_VERSION: &str = "2025-03-26";
    /// The only revision that allows JSON-RPC batches (arrays of messages).
    pub const BATCH_VERSION: &str = "2025-03-26";
    /// `MCP-Protocol-Version`: the revision a request speaks.
    pub const VERSION_HEADER: &str = "mcp-protocol-version";
    /// `Mcp-Method` (2026-07-28): mirrors the body's `method`.
    pub const METHOD_HEADER: &str = "mcp-method";
    /// `Mcp-Name` (2026-07-28): mirrors `params.name` of `tools/call`.
    pub const NAME_HEADER: &str = "mcp-name";
    /// `_meta` key of a modern request's revision.
    pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// `_meta` key of the server's name and version in a `server/discover` answer.
    pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Where OAuth clients look for metadata (RFC 8414, RFC 9728); answered 404 for our endpoint.
    pub const WELL_KNOWN: &str = "/.well-known/";
}

/// Field names of the JSON shapes the page and the host exchange (delivered batch, step result,
/// results post, handover, log entry). The host reads and writes them through the typed shapes;
/// the wasm client, which carries no serde_json, through these names.
pub mod field {
    /// Batch id (delivered batch, results post).
    pub const ID: &str = "id";
    /// The steps of a batch, or the step results of a results post.
    pub const STEPS: &str = "steps";
    /// Index of the batch's first step within the agent's whole batch (after a handover).
    pub const OFFSET: &str = "offset";
    /// Milliseconds the batch has left when it is delivered.
    pub const TIMEOUT_MS: &str = "timeoutMs";
    /// The page a delivered batch is for, when the poll covered several ([`super::param::CLIENTS`]).
    pub const CLIENT: &str = "client";
    /// A step's command name.
    pub const COMMAND: &str = "command";
    /// A step result's index within the agent's batch.
    pub const INDEX: &str = "index";
    /// A step result's value.
    pub const RESULT: &str = "result";
    /// A step result's (or an event's) error text.
    pub const ERROR: &str = "error";
    /// A step result's run time in milliseconds.
    pub const ELAPSED: &str = "elapsed";
    /// Results post: the snapshot text taken after the batch.
    pub const SNAPSHOT: &str = "snapshot";
    /// Results post: the log entries captured while the batch ran.
    pub const LOGS: &str = "logs";
    /// Results post: the batch's run time in milliseconds.
    pub const DURATION: &str = "duration";
    /// Results post: the rest of the batch, handed to the next page of the tab.
    pub const HANDOVER: &str = "handover";
    /// Handover: the tab id that takes the rest.
    pub const TAB: &str = "tab";
    /// Handover: the steps not yet run.
    pub const REMAINING: &str = "remaining";
    /// Handover: where the navigation went (also a network or navigation entry's URL).
    pub const URL: &str = "url";
    /// Log entry: its type ([`super::entry_type`]).
    pub const TYPE: &str = "type";
    /// Log entry: its level ([`super::Level`]).
    pub const LEVEL: &str = "level";
    /// Log entry: the page's client id.
    pub const CLIENT_ID: &str = "clientId";
    /// Log entry: the page's own sequence number.
    pub const SEQ: &str = "seq";
    /// Log entry: epoch milliseconds.
    pub const T: &str = "t";
    /// Log entry: the page's URL.
    pub const PAGE: &str = "page";
    /// Log entry: its one-line text (the host's; what the page sent as `text` is kept apart).
    pub const TEXT: &str = "text";
    /// Step result: ms from the batch's start to this step's start.
    pub const AT: &str = "at";
    /// Step result: the label of the element the step acted on.
    pub const MATCHED: &str = "matched";
    /// Step result: `{label, box}` of the element the step acted on; interaction entry: the
    /// clicked element's description.
    pub const TARGET: &str = "target";
    /// Step result: the viewport `{w, h}` when the step ran.
    pub const VIEWPORT: &str = "viewport";
    /// `snapshot` step result: how many nodes the budget left out (absent: none).
    pub const CUT: &str = "cut";
    /// `snapshot` step result: `true` when the view is not the page's default one (a `ref`,
    /// `offset`/`limit`, `filter`, `viewport`, its own `budget` or `full`): never diffed, never the
    /// next diff's baseline.
    pub const SCOPED: &str = "scoped";
    /// Step result's `target`: the element's label.
    pub const LABEL: &str = "label";
    /// Step result's `target`: the element's box `{x, y, w, h}` in CSS pixels.
    pub const BOX: &str = "box";
    /// Interaction entry: the DOM event (`click`).
    pub const EVENT: &str = "event";
    /// `dropped` entry: how many entries the page's queue dropped.
    pub const COUNT: &str = "count";
}

/// What a heartbeat says about a page: the query of `GET /browser/probe` (parameters
/// [`param::CLIENT`], [`param::PAGE`], [`param::TITLE`], [`param::PHASE`], [`param::VISIBLE`],
/// [`param::FOCUSED`], [`param::IFRAME`], [`param::REV`], [`param::TAB`], [`param::PARENT`]).
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
    /// The browser tab's id (kept across page loads in `sessionStorage`).
    pub tab: Option<String>,
    /// For a page in an iframe: the origin of the page that frames it.
    pub parent: Option<String>,
    /// Why the client failed to start (with [`Phase::Failed`]).
    pub error: Option<String>,
    /// The stack of that error.
    pub stack: Option<String>,
}

#[cfg(feature = "host")]
impl Heartbeat {
    /// Reads a heartbeat's query by the names in [`param`] (unknown names are ignored; a flag is
    /// `1` or `true`; the client id is cut at [`MAX_ID_LEN`]).
    pub(crate) fn from_query(query: Option<&str>) -> Heartbeat {
        let params = crate::util::Params::parse(query);
        let text = |name| params.last(name).map(str::to_owned);
        let flag = |name| params.last(name).map(|v| v == "1" || v.eq_ignore_ascii_case("true"));
        let mut hb = Heartbeat {
            client: text(param::CLIENT).unwrap_or_default(),
            page: text(param::PAGE).unwrap_or_default(),
            title: text(param::TITLE).unwrap_or_default(),
            phase: params.last(param::PHASE).and_then(Phase::parse),
            visible: flag(param::VISIBLE),
            focused: flag(param::FOCUSED),
            in_iframe: flag(param::IFRAME),
            rev: text(param::REV),
            tab: text(param::TAB),
            parent: text(param::PARENT),
            error: text(param::ERROR),
            stack: text(param::STACK),
        };
        crate::util::truncate_chars(&mut hb.client, MAX_ID_LEN);
        hb
    }
}

#[cfg(feature = "host")]
pub use wire::{CommandError, Delivery, Handover, Results, StepResult, COMMAND_ERROR};

/// The JSON shapes of the command channel, typed for the host and the tests (they hold
/// `serde_json::Value`s, so they need the `host` feature; the wasm client reads the same names
/// through [`field`]).
#[cfg(feature = "host")]
mod wire {
    use serde::{Deserialize, Serialize};
    use serde_json::{Map, Value};

    /// The `event` of a failed request's answer.
    pub const COMMAND_ERROR: &str = "command-error";

    /// A batch as `GET {prefix}/commands` delivers it to the page:
    /// `{"timeoutMs","id","steps"[,"offset"]}`.
    ///
    /// ```
    /// use browser_agent_core::protocol::Delivery;
    /// let d: Delivery = serde_json::from_str(r#"{"timeoutMs":900,"id":"ab12","steps":[{"command":"snapshot"}]}"#).unwrap();
    /// assert_eq!((d.timeout_ms, d.id.as_str(), d.steps.len(), d.offset), (900, "ab12", 1, None));
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Delivery {
        /// What is left of the batch's time, in milliseconds ([`super::field::TIMEOUT_MS`]).
        #[serde(rename = "timeoutMs")]
        pub timeout_ms: u64,
        /// The batch id ([`super::field::ID`]).
        pub id: String,
        /// The steps to run ([`super::field::STEPS`]).
        pub steps: Vec<Value>,
        /// Index of the first step within the agent's batch, after a handover ([`super::field::OFFSET`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub offset: Option<u64>,
        /// The page to run it, when the poll covered several ([`super::field::CLIENT`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub client: Option<String>,
    }

    /// One step's outcome in a results post: `{index, command, result?, error?, elapsed?, …}`.
    /// The page's other fields (`at`, `target`, `viewport`, `matched`) are kept in `other`, and so
    /// is a known field of an unexpected type: nothing the page sent is lost.
    ///
    /// ```
    /// use browser_agent_core::protocol::StepResult;
    /// let s: StepResult = serde_json::from_str(r#"{"index":0,"command":"click","error":"No button","at":3}"#).unwrap();
    /// assert_eq!((s.command.as_str(), s.error.as_deref()), ("click", Some("No button")));
    /// assert_eq!(s.other["at"], 3);
    /// ```
    #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
    pub struct StepResult {
        /// The step's index within the agent's batch ([`super::field::INDEX`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub index: Option<u64>,
        /// The step's command ([`super::field::COMMAND`]; empty when the page sent none).
        #[serde(skip_serializing_if = "String::is_empty")]
        pub command: String,
        /// Its value (a snapshot's text, an evaluation's result, …) ([`super::field::RESULT`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub result: Option<Value>,
        /// Why it failed ([`super::field::ERROR`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub error: Option<String>,
        /// Its run time in milliseconds ([`super::field::ELAPSED`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub elapsed: Option<Value>,
        /// Every other field the page sent (`at`, `target`, `viewport`, `matched`, …).
        #[serde(flatten)]
        pub other: Map<String, Value>,
    }

    impl StepResult {
        /// The result as text, when it is a string.
        pub fn result_str(&self) -> Option<&str> {
            self.result.as_ref().and_then(Value::as_str)
        }

        /// Takes a step result apart; a value that is not an object gives an empty one.
        pub fn from_value(v: Value) -> StepResult {
            let Value::Object(mut other) = v else {
                return StepResult::default();
            };
            let mut take = |name: &str, keep: fn(&Value) -> bool| match other.get(name) {
                Some(v) if keep(v) => other.remove(name),
                _ => None,
            };
            let index = take(super::field::INDEX, Value::is_u64).and_then(|v| v.as_u64());
            let command = match take(super::field::COMMAND, Value::is_string) {
                Some(Value::String(c)) => c,
                _ => String::new(),
            };
            let error = match take(super::field::ERROR, Value::is_string) {
                Some(Value::String(e)) => Some(e),
                _ => None,
            };
            let elapsed = take(super::field::ELAPSED, Value::is_number);
            let result = take(super::field::RESULT, |_| true);
            StepResult {
                index,
                command,
                result,
                error,
                elapsed,
                other,
            }
        }
    }

    impl<'de> Deserialize<'de> for StepResult {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            Value::deserialize(d).map(StepResult::from_value)
        }
    }

    /// The rest of a batch a navigating page hands to the next page of its tab:
    /// `{tab, remaining, offset, url?}`.
    #[derive(Debug, Clone, Default, PartialEq, Serialize)]
    pub struct Handover {
        /// The tab whose next page takes the rest ([`super::field::TAB`]); empty: no handover.
        pub tab: String,
        /// The steps not yet run ([`super::field::REMAINING`]; missing is none; `None` when it is
        /// not an array, which makes the whole handover void).
        pub remaining: Option<Vec<Value>>,
        /// Index of the first remaining step within the agent's batch ([`super::field::OFFSET`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub offset: Option<u64>,
        /// Where the navigation went ([`super::field::URL`]; `None` when missing or empty).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub url: Option<String>,
    }

    impl Handover {
        /// Takes a handover apart, leniently: a field of the wrong type counts as missing.
        pub fn from_value(v: &Value) -> Handover {
            let field = |name: &str| v.get(name);
            Handover {
                tab: field(super::field::TAB)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                remaining: match field(super::field::REMAINING) {
                    None => Some(Vec::new()),
                    Some(Value::Array(steps)) => Some(steps.clone()),
                    Some(_) => None,
                },
                offset: field(super::field::OFFSET).and_then(Value::as_u64),
                url: field(super::field::URL)
                    .and_then(Value::as_str)
                    .filter(|u| !u.is_empty())
                    .map(str::to_owned),
            }
        }

        /// Whether it hands anything over: a tab, and the remaining steps as an array.
        pub fn is_valid(&self) -> bool {
            !self.tab.is_empty() && self.remaining.is_some()
        }
    }

    impl<'de> Deserialize<'de> for Handover {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            Value::deserialize(d).map(|v| Handover::from_value(&v))
        }
    }

    /// What a page posts to `POST {prefix}/results`: `{id, steps, snapshot, logs, duration, handover?}`.
    /// Read leniently, as the host always has: a field of the wrong type counts as missing (the
    /// route refuses a missing `id` and `logs` that are not an array).
    ///
    /// ```
    /// use browser_agent_core::protocol::Results;
    /// let r: Results = serde_json::from_str(r#"{"id":"ab12","steps":[],"snapshot":"main","duration":4,
    ///     "handover":{"tab":"t1","remaining":[{"command":"snapshot"}],"offset":1}}"#).unwrap();
    /// assert_eq!((r.id.as_deref(), r.duration), (Some("ab12"), 4));
    /// assert_eq!(r.handover.unwrap().tab, "t1");
    /// ```
    #[derive(Debug, Clone, Default, PartialEq, Serialize)]
    pub struct Results {
        /// The batch id ([`super::field::ID`]).
        pub id: Option<String>,
        /// One result per executed step ([`super::field::STEPS`]).
        pub steps: Vec<StepResult>,
        /// The snapshot after the batch ([`super::field::SNAPSHOT`]).
        pub snapshot: String,
        /// The log entries captured while it ran, as sent ([`super::field::LOGS`]).
        pub logs: Option<Value>,
        /// Its run time in milliseconds ([`super::field::DURATION`]).
        pub duration: u64,
        /// A batch-level error ([`super::field::ERROR`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub error: Option<String>,
        /// Present when the page navigates: the rest of the batch ([`super::field::HANDOVER`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub handover: Option<Handover>,
    }

    impl Results {
        /// Takes a results post apart (see the type's documentation for how leniently).
        pub fn from_value(mut v: Value) -> Results {
            let mut take = |name: &str| v.get_mut(name).map(Value::take);
            let string = |v: Option<Value>| match v {
                Some(Value::String(s)) => Some(s),
                _ => None,
            };
            let id = string(take(super::field::ID));
            let steps = match take(super::field::STEPS) {
                Some(Value::Array(steps)) => steps.into_iter().map(StepResult::from_value).collect(),
                _ => Vec::new(),
            };
            let snapshot = string(take(super::field::SNAPSHOT)).unwrap_or_default();
            let logs = take(super::field::LOGS);
            let duration = take(super::field::DURATION)
                .and_then(|d| d.as_f64())
                .map_or(0, |d| d.max(0.0) as u64);
            let error = string(take(super::field::ERROR));
            let handover = take(super::field::HANDOVER).map(|h| Handover::from_value(&h));
            Results {
                id,
                steps,
                snapshot,
                logs,
                duration,
                error,
                handover,
            }
        }
    }

    impl<'de> Deserialize<'de> for Results {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            Value::deserialize(d).map(Results::from_value)
        }
    }

    /// The `command-error` event, one shape for HTTP and stdio:
    /// `{"event":"command-error","message","error"[,"steps"]}` (`error` repeats `message`, so the
    /// body also reads as a plain `{"error"}`; `steps` holds the results of the steps that ran).
    ///
    /// ```
    /// use browser_agent_core::protocol::CommandError;
    /// let e = serde_json::to_value(CommandError::new("boom", Vec::new())).unwrap();
    /// assert_eq!(e, serde_json::json!({"event": "command-error", "message": "boom", "error": "boom"}));
    /// ```
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    pub struct CommandError {
        /// Always [`COMMAND_ERROR`].
        pub event: String,
        /// What went wrong and what to do.
        pub message: String,
        /// The same text as `message`.
        pub error: String,
        /// The results of the steps that ran before the batch failed.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub steps: Vec<StepResult>,
    }

    impl CommandError {
        /// The event for `message`, with the results of the steps that ran.
        pub fn new(message: impl Into<String>, steps: Vec<StepResult>) -> Self {
            let message = message.into();
            CommandError {
                event: COMMAND_ERROR.to_owned(),
                error: message.clone(),
                message,
                steps,
            }
        }
    }
}

/// The configuration the injected tag exposes to the page client (and to tests and tools,
/// which can read it from the HTML: `<script data-browser-agent='{…}'>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagConfig {
    /// The per-process page key (survives host restarts when a key file is used).
    pub key: String,
    /// Route prefix, e.g. `/__mindstudio_dev__`.
    pub prefix: String,
    /// Client revision: the content hash of the embedded client assets.
    pub rev: String,
    /// URL of the client's JS glue (content-hashed); empty when no client is embedded.
    #[serde(default)]
    pub client: String,
    /// URL of the client's wasm module (content-hashed); empty when no client is embedded.
    #[serde(default)]
    pub wasm: String,
    /// Show the agent cursor even outside an iframe.
    #[serde(default)]
    pub cursor: bool,
    /// Notes mode is available (the shortcut, the parent frame's messages, the `notes` step);
    /// written only when off.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub notes: bool,
    /// The notes shortcut (`Control+Alt+Shift+Meta` order, then a `KeyboardEvent.code`:
    /// `Alt+Shift+KeyN`); written only when it is not [`notes::DEFAULT_KEY`].
    #[serde(default, rename = "notesKey", skip_serializing_if = "Option::is_none")]
    pub notes_key: Option<String>,
    /// The only origin whose parent-frame messages notes mode takes (any parent's when `None`).
    #[serde(default, rename = "notesOrigin", skip_serializing_if = "Option::is_none")]
    pub notes_origin: Option<String>,
    /// The page's default snapshot budget in tokens; written only when it is not
    /// [`SNAPSHOT_BUDGET`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u32>,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

#[cfg(feature = "host")]
impl TagConfig {
    /// The config as the value of the tag's single-quoted [`CONFIG_ATTR`] attribute: JSON with
    /// what could end the attribute or start an entity escaped.
    pub(crate) fn to_attribute(&self) -> String {
        let json = serde_json::to_string(self).expect("TagConfig always serializes");
        json.replace('&', "&amp;").replace('\'', "&#39;").replace('<', "&lt;")
    }

    /// Reads the config back from an injected page, as a tool or a test would (the first tag's).
    ///
    /// ```
    /// use browser_agent_core::protocol::TagConfig;
    /// let html = r#"<head><script data-browser-agent='{"key":"k3y","prefix":"/p","rev":"it&#39;s"}'>…</script>"#;
    /// let cfg = TagConfig::from_html(html).unwrap();
    /// assert_eq!((cfg.key.as_str(), cfg.rev.as_str(), cfg.cursor), ("k3y", "it's", false));
    /// assert!(TagConfig::from_html("<head></head>").is_none());
    /// ```
    pub fn from_html(html: &str) -> Option<TagConfig> {
        let open = format!("{CONFIG_ATTR}='");
        let start = html.find(&open)? + open.len();
        let end = start + html[start..].find('\'')?;
        let json = html[start..end]
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&amp;", "&");
        serde_json::from_str(&json).ok()
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
    /// why). Only the bootstrap and the host know it: the wasm client, which never reports it, is
    /// built without it (so its code stays as it was).
    #[cfg(feature = "host")]
    Failed,
}

impl Phase {
    /// Parses a phase name; unknown names give `None`.
    pub fn parse(s: &str) -> Option<Phase> {
        match s {
            "loading" => Some(Phase::Loading),
            "hooked" => Some(Phase::Hooked),
            "ready" | "mounted" => Some(Phase::Ready),
            #[cfg(feature = "host")]
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
            #[cfg(feature = "host")]
            Phase::Failed => "failed",
        }
    }
}

/// Log level. The names of both clients (MindStudio's, dsh-agent-browser's) are accepted (`log` is MindStudio's console level).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// `console.debug`.
    Debug,
    /// `console.log`.
    Log,
    /// `console.info` and everything without a level.
    #[default]
    Info,
    /// `console.warn`, HTTP 4xx.
    Warn,
    /// `console.error`, uncaught errors, rejections, failed requests, HTTP 5xx.
    Error,
}

impl Level {
    /// Parses a level name (ASCII case-insensitive); unknown names give `None`.
    pub fn parse(s: &str) -> Option<Level> {
        let s = s.trim();
        [
            ("debug", Level::Debug),
            ("log", Level::Log),
            ("info", Level::Info),
            ("warn", Level::Warn),
            ("warning", Level::Warn),
            ("error", Level::Error),
        ]
        .into_iter()
        .find(|(name, _)| s.eq_ignore_ascii_case(name))
        .map(|(_, level)| level)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Log => "log",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// Log entry types the page client sends in `POST {prefix}/logs` (the `type` field).
pub mod entry_type {
    /// `console.*` call: `level`, `args: [string]`.
    pub const CONSOLE: &str = "console";
    /// Uncaught error or unhandled rejection: `message`, `stack`, `source`, `line`, `column`.
    pub const ERROR: &str = "error";
    /// fetch or XHR: `method`, `url`, `status`, `statusText`, `duration`, `ok`, `body`, `error`, `via`.
    pub const NETWORK: &str = "network";
    /// A click: `event`, `target`, `text`.
    pub const INTERACTION: &str = "interaction";
    /// Navigation inside the page (pushState, replaceState, popstate, hashchange): `url`, `via`.
    pub const NAVIGATION: &str = "navigation";
    /// The page's local queue dropped entries: `count`.
    pub const DROPPED: &str = "dropped";
    /// A dev server's output line that matched an error pattern (host-side, never from a page):
    /// `stream` (`stdout`/`stderr`), `pattern` (the one that matched).
    pub const SERVER: &str = "server";
}
