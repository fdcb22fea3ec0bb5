//! The commands a batch step may name and the fields each takes ([`STEP_FIELDS`]): the one table
//! the host checks steps against and the page client reads.

use crate::screenshot;

/// The commands a batch step may name (`{"command": …}`): the host refuses a batch naming any
/// other before it reaches a page, and the page's client runs these. Made from [`STEP_FIELDS`],
/// whose entries they name, in its order.
///
/// ```
/// use browser_agent_protocol::COMMANDS;
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
    /// A ref from a snapshot ([`Ref::read`](crate::Ref::read); `""` is not given).
    Ref,
    /// A key chord ([`keys::parse_chord`](crate::keys::parse_chord): `Enter`, `Control+a`); `""` is not given.
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
    /// It must name one with a field other than `text`, which is its own (`fill`: the text to
    /// enter; `select`: the option, beside `ref` or `name`).
    RequiredNotText,
    /// It may name one with a field other than `text`, which is its own (`type`: else the focused
    /// element, as a person types after clicking into a field).
    OptionalNotText,
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
/// use browser_agent_protocol::{FieldKind, TARGET_FIELDS, TARGET_STEP_FIELDS};
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

/// The fields every step takes, whatever its command: `optional` (a failed optional step is
/// reported, marked `"optional": true` in its result, and the batch goes on with the next step);
/// `dialog` and `promptText`, how the native dialogs opened while the step runs are answered
/// ([`crate::dialogs`]); `source`, the source locations of what the step names
/// ([`crate::source`]: a snapshot ends with its refs', an acting step's answer names its target's).
///
/// ```
/// use browser_agent_protocol::{FieldKind, COMMON_STEP_FIELDS};
/// assert_eq!(COMMON_STEP_FIELDS[0], ("optional", FieldKind::Flag));
/// assert_eq!(COMMON_STEP_FIELDS[2], ("promptText", FieldKind::String));
/// ```
pub const COMMON_STEP_FIELDS: &[(&str, FieldKind)] = &[
    (OPTIONAL, FieldKind::Flag),
    (crate::dialogs::DIALOG, FieldKind::AnyCase(&crate::dialogs::ANSWERS)),
    (crate::dialogs::PROMPT_TEXT, FieldKind::String),
    (crate::source::FIELD, FieldKind::Flag),
];

/// `optional`: a step whose failure does not stop its batch ([`COMMON_STEP_FIELDS`]); the page
/// also marks such a failed step's result with it.
pub const OPTIONAL: &str = "optional";

/// `waitNetwork`: an acting step (a click, typing, `evaluate`, …) then waits until the page's
/// requests it started have finished (no more in flight than before the step, for a moment),
/// bounded; its result says how long that took.
pub const WAIT_NETWORK: &str = "waitNetwork";

/// The own field of a step that acts: [`WAIT_NETWORK`].
const ACTING: &[(&str, FieldKind)] = &[(WAIT_NETWORK, FieldKind::Flag)];

/// The own fields of `type` and `fill`: the text to enter (`""` empties the field), and whether
/// to clear it first; [`WAIT_NETWORK`].
const TEXT_ENTRY: &[(&str, FieldKind)] = &[
    ("text", FieldKind::String),
    ("value", FieldKind::String),
    ("clear", FieldKind::Flag),
    (WAIT_NETWORK, FieldKind::Flag),
];

/// The own fields of `dblclick` and `hover`: `x`, `y`, where in the target the pointer goes, in
/// CSS px from its box's top-left corner (else its centre; the page refuses a point outside the
/// box, naming its size; the host checks each is a number, 0 or more; in `scroll` they are the
/// position to scroll to); [`WAIT_NETWORK`].
const POINTER_AT: &[(&str, FieldKind)] = &[
    ("x", FieldKind::Own),
    ("y", FieldKind::Own),
    (WAIT_NETWORK, FieldKind::Flag),
];

/// `button`: which mouse button presses (`right` fires `contextmenu`, not `click`).
const BUTTONS: &[&str] = &["left", "right", "middle"];

/// The own fields of `click`, `down` and `up`: [`BUTTONS`], then those of [`POINTER_AT`].
const POINTER_PRESS: &[(&str, FieldKind)] = &[
    ("button", FieldKind::AnyCase(BUTTONS)),
    ("x", FieldKind::Own),
    ("y", FieldKind::Own),
    (WAIT_NETWORK, FieldKind::Flag),
];

/// Every command's step fields ([`COMMANDS`] is made from it): the one list the host checks steps
/// against (a field not listed is refused, naming what the command takes). Each entry is what the
/// page client reads (`browser-agent-client/src/commands/actions/*`, `resolve/*`, `screenshot.rs`
/// and the snapshot's view), so a step the host accepts is one the page understands.
///
/// ```
/// use browser_agent_protocol::{FieldKind, TargetUse, COMMANDS, STEP_FIELDS};
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
            // The subtree of the element a CSS selector names (as `ref` does).
            ("selector", FieldKind::Text),
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
        fields: POINTER_PRESS,
        needs: &[],
        example: r#"{"command":"click","ref":"e7"}"#,
    },
    StepFields {
        command: "dblclick",
        target: TargetUse::Required,
        fields: POINTER_AT,
        needs: &[],
        example: r#"{"command":"dblclick","text":"Item 1"}"#,
    },
    StepFields {
        command: "type",
        target: TargetUse::OptionalNotText,
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
            (WAIT_NETWORK, FieldKind::Flag),
        ],
        needs: &["option", "value", "text"],
        example: r#"{"command":"select","label":"Color","option":"Red"}"#,
    },
    StepFields {
        command: "check",
        target: TargetUse::Required,
        fields: ACTING,
        needs: &[],
        example: r#"{"command":"check","label":"I agree"}"#,
    },
    StepFields {
        command: "uncheck",
        target: TargetUse::Required,
        fields: ACTING,
        needs: &[],
        example: r#"{"command":"uncheck","label":"Newsletter"}"#,
    },
    StepFields {
        command: "press",
        target: TargetUse::Optional,
        fields: &[
            ("key", FieldKind::Chord),
            ("keys", FieldKind::Chord),
            (WAIT_NETWORK, FieldKind::Flag),
        ],
        needs: &["key", "keys"],
        example: r#"{"command":"press","key":"Enter"}"#,
    },
    StepFields {
        command: "hover",
        target: TargetUse::Required,
        fields: POINTER_AT,
        needs: &[],
        example: r#"{"command":"hover","text":"Products"}"#,
    },
    StepFields {
        // The target is what is dragged; `to` (a ref, or an object of target fields) where it
        // is dropped, or `dx`/`dy` (CSS pixels, negative: left/up) from where it is pressed.
        // Checked by core's drag rules (one destination, a ref or target object, bounded offsets).
        command: "drag",
        target: TargetUse::Required,
        fields: &[
            (DRAG_TO, FieldKind::Own),
            (DRAG_DX, FieldKind::Own),
            (DRAG_DY, FieldKind::Own),
            (WAIT_NETWORK, FieldKind::Flag),
        ],
        needs: &[DRAG_TO, DRAG_DX, DRAG_DY],
        example: r#"{"command":"drag","text":"Write docs","to":{"text":"Done"}}"#,
    },
    StepFields {
        // Presses a button on the target and holds it (pointerdown, mousedown) for the steps
        // after it, until `up` (or the batch's end, which releases it).
        command: "down",
        target: TargetUse::Required,
        fields: POINTER_PRESS,
        needs: &[],
        example: r#"{"command":"down","ref":"e7"}"#,
    },
    StepFields {
        // Releases the held button where the pointer is, or on the target (moved there held).
        command: "up",
        target: TargetUse::Optional,
        fields: POINTER_PRESS,
        needs: &[],
        example: r#"{"command":"up","ref":"e9"}"#,
    },
    StepFields {
        command: "scroll",
        target: TargetUse::OrNeeds,
        // `to` (top, bottom, left, right) or `x`/`y` (px): the target's scroller (or the page) to
        // that position; `direction` and `amount`: by that much.
        fields: &[
            ("direction", FieldKind::AnyCase(&["up", "down", "left", "right"])),
            ("amount", FieldKind::Pixels),
            ("to", FieldKind::AnyCase(&["top", "bottom", "left", "right"])),
            ("x", FieldKind::Own),
            ("y", FieldKind::Own),
            (WAIT_NETWORK, FieldKind::Flag),
        ],
        needs: &["direction", "to", "x", "y"],
        example: r#"{"command":"scroll","direction":"down","amount":600}"#,
    },
    StepFields {
        command: "wait",
        target: TargetUse::OrNeeds,
        // `text` (a string or a list of them) and `pattern` (a regular expression or a list): text
        // to wait for, in the page or in the element of `ref`; the first alternative to appear
        // answers. Text already there when the wait begins does not count (a new occurrence
        // must come) unless `already`; `exact`: a whole line of the page's text equals it.
        fields: &[
            ("timeout", FieldKind::Millis),
            ("gone", FieldKind::Flag),
            ("ms", FieldKind::Millis),
            ("text", FieldKind::Own),
            ("pattern", FieldKind::Own),
            ("exact", FieldKind::Flag),
            ("already", FieldKind::Flag),
        ],
        needs: &["ms", "timeout", "pattern"],
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
            (WAIT_NETWORK, FieldKind::Flag),
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
        command: crate::network::COMMAND,
        target: TargetUse::No,
        fields: &[(crate::network::SEQ, FieldKind::Index)],
        needs: &[crate::network::SEQ],
        example: r#"{"command":"network","seq":12}"#,
    },
    StepFields {
        // LCP, CLS, INP, long tasks and frames, slow resources, each element with its ref.
        command: "vitals",
        target: TargetUse::No,
        fields: &[],
        needs: &[],
        example: r#"{"command":"vitals"}"#,
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
        command: "audit",
        // axe-core's accessibility rules on the page, or inside the target; `limit`: elements
        // listed per rule (default 5).
        target: TargetUse::Optional,
        fields: &[("limit", FieldKind::Index)],
        needs: &[],
        example: r#"{"command":"audit","ref":"e12"}"#,
    },
    StepFields {
        // Files into a file input (the target, its label, what holds it, or a button that opens
        // it) or dropped onto a drop zone; `files` is checked by the host's own rules
        // (`crate::upload`), which read the paths and put the bytes in the step.
        command: crate::upload::COMMAND,
        target: TargetUse::Required,
        fields: &[
            (crate::upload::FILES, FieldKind::Own),
            (crate::upload::DROP, FieldKind::Flag),
            (WAIT_NETWORK, FieldKind::Flag),
        ],
        needs: &[crate::upload::FILES],
        example: r#"{"command":"upload","label":"Avatar","files":["fixtures/cat.png"]}"#,
    },
    StepFields {
        command: "notes",
        target: TargetUse::No,
        fields: &[("mode", FieldKind::Own)],
        needs: &["mode"],
        example: r#"{"command":"notes","mode":"enter"}"#,
    },
    StepFields {
        // The page's own tools (WebMCP): their names, descriptions and input schemas.
        command: "tools",
        target: TargetUse::No,
        fields: &[],
        needs: &[],
        example: r#"{"command":"tools"}"#,
    },
    StepFields {
        // Calls one tool the page registered with `input` (an object, checked by the host).
        command: "tool",
        target: TargetUse::No,
        fields: &[("name", FieldKind::Text), ("input", FieldKind::Own)],
        needs: &["name"],
        example: r#"{"command":"tool","name":"add_todo","input":{"text":"milk"}}"#,
    },
];

/// The step fields that name a target element, in the order the page tries them; `text` last
/// (for `type` and `fill` it is what is typed, not a target).
pub const TARGET_FIELDS: [&str; 7] = ["ref", "role", "label", "placeholder", "selector", "name", "text"];

/// `to`: a `drag` step's destination, a ref (`"e12"`) or an object of target fields
/// (`{"text":"Done"}`, `{"role":"listitem","name":"C"}`); the host writes a ref as `{"ref":"e12"}`,
/// so the page reads one form.
///
/// ```
/// use browser_agent_protocol::{DRAG_DX, DRAG_DY, DRAG_TO, STEP_FIELDS};
/// let drag = STEP_FIELDS.iter().find(|s| s.command == "drag").unwrap();
/// assert_eq!(drag.needs, &[DRAG_TO, DRAG_DX, DRAG_DY]);
/// ```
pub const DRAG_TO: &str = "to";
/// `dx`: a `drag` step's offset to the right (CSS pixels; negative: to the left), instead of `to`.
pub const DRAG_DX: &str = "dx";
/// `dy`: a `drag` step's offset down (CSS pixels; negative: up), instead of `to`.
pub const DRAG_DY: &str = "dy";
