//! The one Rust home of the bootstrap's names: the fields of `window.__browserAgent` that the wasm
//! reads or writes, and the kind bits of its capture handler.
//!
//! The bootstrap is the inline script the host injects before anything of the page runs; its
//! readable source is `browser-agent-client/bootstrap/bootstrap.js` (minified into
//! `browser-agent-core/assets/bootstrap.js`). It creates the global [`GLOBAL`], queues captures
//! until the client runs and hands every later one to the client's handler [`HANDLER`]. Its own
//! counters `s` (the last sequence number given) and `b` (set while it serializes, so console
//! calls made meanwhile are not captured) are never touched from Rust.

use crate::js::{get, set};
use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Name of the window global the bootstrap creates.
pub(crate) const GLOBAL: &str = "__browserAgent";
/// `cfg`: the injected tag's configuration (`TagConfig` as JSON, see [`cfg`]).
pub(crate) const CFG: &str = "cfg";
/// `clientId`: this page load's client id, made by the bootstrap (it stamps it on every entry).
pub(crate) const CLIENT_ID: &str = "clientId";
/// `q`: the captures made before the client ran, as `[entry, kind]` pairs, oldest first.
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const QUEUE: &str = "q";
/// `d`: how many early captures the bootstrap dropped from [`QUEUE`] (it holds 500 at most).
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const DROPPED: &str = "d";
/// `o`: the page's originals the bootstrap wrapped (see [`original`]).
pub(crate) const ORIGINALS: &str = "o";
/// `p`: the built-ins the wasm glue calls, taken before the page's scripts ran (the bootstrap's
/// `KEPT` list; `scripts/rename-glue.mjs` makes the glue read them from here). Read by the glue only.
#[allow(dead_code)]
pub(crate) const PRISTINE: &str = "p";
/// `h`: the handler `h(entry, kind)` the bootstrap calls for every capture; set by the client.
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const HANDLER: &str = "h";
/// `e`: the bootstrap's stamp `e(entry, kind)`: adds `t`, `page`, `url`, `clientId` and the next
/// `seq`, then hands the entry to [`HANDLER`] (or queues it).
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const STAMP: &str = "e";
/// `inflight`: the page's fetch and XHR requests now in flight (the bootstrap's wrappers count).
pub(crate) const INFLIGHT: &str = "inflight";
/// `la`: when the in-flight count last changed, ms since the epoch (absent until it does).
pub(crate) const LAST_ACTIVITY: &str = "la";
/// `td`: when the last timer the page set for at most [`SETTLE_MS`] is due, ms since the epoch
/// (the bootstrap's `setTimeout` wrapper keeps it); an action waits for it ([`crate::commands`]).
#[allow(dead_code)]
pub(crate) const TIMERS_DUE: &str = "td";
/// `fr`: how many animation frames the page has asked for (the bootstrap's
/// `requestAnimationFrame` wrapper counts); an action waits for a frame the page asked for.
pub(crate) const FRAMES: &str = "fr";
/// Longest an action waits for what the page set to run soon after it (its short timers, a
/// frame), in ms: the fixed pause every action took before.
#[allow(dead_code)]
pub(crate) const SETTLE_MS: u32 = 20;
/// Longest an action waits for the first frame the page asked for after it, in ms (a browser
/// busy or just starting its frames may take longer than one frame).
#[allow(dead_code)]
pub(crate) const SETTLE_FRAME_MS: u32 = 100;
/// Longest an action waits, after what it set off has settled, for a fade, slide or collapse it
/// started to end (a running CSS transition of `opacity`, `transform`, `visibility`, `height` or
/// `max-height`, a finite CSS animation, a jQuery animation), in ms: a Bootstrap modal's fade is
/// 150–450 ms, and the answer should show it open, and a click should not land mid-fade (where
/// Bootstrap drops it). Colour transitions (a button's hover) are not waited for.
#[allow(dead_code)]
pub(crate) const SETTLE_ANIMATION_MS: u32 = 600;
/// Longest a `hover` waits for a timer the page set to open something on hover (hover intent:
/// Radix's submenus 100 ms, antd's dropdowns 150 ms), in ms: the answer shows the menu open, and
/// the next step finds its items; so does a click whose pointer's arrival set such a timer
/// ([`HOVER_DUE`]), and `type` and `fill` for an autocomplete's delayed search (jQuery UI's
/// 300 ms). Other actions wait for [`SETTLE_MS`] only.
#[allow(dead_code)]
pub(crate) const HOVER_INTENT_MS: u32 = 300;
/// `hd`: when the last timer the page set for at most [`HOVER_INTENT_MS`] is due, ms since the
/// epoch; a click whose pointer's arrival set one (a menu that opens when the pointer stays)
/// waits for it as a `hover` does.
pub(crate) const HOVER_DUE: &str = "hd";
/// `w(frames, atLeast, intent)`: a promise that resolves once what the page set to run soon after
/// an action has run (its timers due within [`SETTLE_MS`], [`HOVER_INTENT_MS`] with `intent`, a
/// frame it asked for since `frames`, the [`FRAMES`] count before the action); that long at most.
pub(crate) const SETTLE: &str = "w";
/// `ab`: set while this page runs an agent's batch; the bootstrap then answers the native dialogs
/// (`alert`, `confirm`, `prompt`) the page opens on its own (after a slow request, a timer), which
/// would block it and every later step until a person answered.
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const BUSY: &str = "ab";
/// `at`: set by the sensor while its host says an agent is attached (the heartbeat's answer), and
/// when a batch runs; the bootstrap then answers a dialog the page opens on its own outside a
/// batch (no person's event, no person's input in the last seconds) instead of letting it block.
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const ATTACHED: &str = "at";
/// `dh(kind, message, default)`: set by the hands ([`crate::commands::dialogs`]); the bootstrap's
/// `alert`/`confirm`/`prompt` call it while a batch runs, and it answers by the step's policy.
pub(crate) const DIALOG_HANDLER: &str = "dh";
/// `dl`: the `dialog` entries the bootstrap answered while no batch ran (at most 10), taken by the
/// next batch of the page, whose answer reports them.
pub(crate) const DIALOGS_OUTSIDE: &str = "dl";
/// `bu`: set by the hands while a navigation they checked leaves the page (its `beforeunload`
/// handlers ran once, for the check); the bootstrap's first `beforeunload` listener then keeps
/// them from running again, and from asking a person (a page with sticky user activation).
pub(crate) const SKIP_BEFOREUNLOAD: &str = "bu";
/// `oc(el)`: whether `el`'s `onclick` property is a handler that does something (not React's empty
/// one on its root and portal containers); see [`crate::snapshot::roles::onclick_handler`].
pub(crate) const ONCLICK: &str = "oc";
/// `pc(root)`: whether the style sheets of `root` (a document or a shadow root) may give a
/// `::before` or `::after` text (`content`); 1 when it cannot tell. The walk skips reading
/// pseudo-elements where they cannot.
pub(crate) const PSEUDO: &str = "pc";
/// `started`: set by the sensor when it starts, so a second copy of it does nothing (read by the
/// bootstrap's parent-frame `healthcheck`, filled in at build time).
#[allow(dead_code)]
pub(crate) const STARTED: &str = "started";
/// `x(error)`: the bootstrap's failure report: the page registers as `failed` with the error
/// (through an `<img>` where its CSP refuses connections); the sensor calls it when it cannot reach
/// the host at all (read by the sensor, filled in at build time).
#[allow(dead_code)]
pub(crate) const FAIL: &str = "x";
/// `hs`: set by the hands when they start, so a second copy of them does nothing.
pub(crate) const HANDS_STARTED: &str = "hs";
/// `H()`: the sensor's loader of the hands, a promise of their module (loaded once; notes mode
/// loads them before it names elements).
#[allow(dead_code)]
pub(crate) const HANDS: &str = "H";
/// `tp(entry)`: set by the hands; the sensor calls it with every entry it records, so the running
/// batch keeps those of its own time.
pub(crate) const TAP: &str = "tp";
/// `cw()`: set by the hands when the page called `window.close()` during an agent's step; the
/// sensor calls it once the batch's results are posted (`commands::popups`).
pub(crate) const CLOSE: &str = "cw";
/// `pollMs`: when a page sets it, the command channel polls every that many ms without `wait`.
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const POLL_MS: &str = "pollMs";
/// `walkMs`: how long the last snapshot walk took (ms), written by the client for benchmarks.
pub(crate) const WALK_MS: &str = "walkMs";
/// `ev`: the promise an `evaluate` run through a nonce'd `<script>` leaves behind; 0 while the
/// script is inserted, so the bootstrap does not log a form that did not parse (read by
/// `evaluate.js` and the bootstrap, filled in at build time).
#[allow(dead_code)]
pub(crate) const EVAL: &str = "ev";
/// `l(url)`: the bootstrap's `import()` of a module the client loads on first use (the screenshot
/// capture); wasm cannot import, and the bootstrap's `import()` runs under the page's nonce.
pub(crate) const LOAD: &str = "l";
/// `n(command, message?)`: the bootstrap's way into notes mode (`enter`, `exit`, `toggle`, or a
/// parent frame's `notes-…` message); loads the notes module on first use, a promise of its answer.
pub(crate) const NOTES_FN: &str = "n";
/// `g(event)`: set by the notes module while notes mode is on; the bootstrap's capture-phase
/// input listeners (installed before any of the page's) hand it the developer's input first.
#[allow(dead_code)]
pub(crate) const GUARD: &str = "g";
/// `describe(element)`: hook set by the client, the element (or the interactive element it is
/// in) as the snapshot writes it: `button "Save" [ref=e7]` (the notes module names what a note
/// points at with it).
pub(crate) const DESCRIBE_HOOK: &str = "describe";
/// `f(command, data)`: posts `{channel, command, …data}` to the parent frame (the IDE that frames
/// the app), when there is one: the client's `command-started` and `command-completed`.
pub(crate) const TO_PARENT: &str = "f";
/// `cm`: the cursor as the parent frame set it (`show`, `hide`, or `auto`: the default rule).
pub(crate) const CURSOR_MODE: &str = "cm";
/// `snapshot()`: debug hook set by the client, a promise of the snapshot text.
pub(crate) const SNAPSHOT_HOOK: &str = "snapshot";
/// `ref("e3")`: debug hook set by the client, the element a ref names (throws what is there instead).
pub(crate) const REF_HOOK: &str = "ref";

/// Fields of `cfg`, the tag configuration (`browser_agent_protocol::TagConfig`).
pub(crate) mod cfg {
    /// The page key.
    pub(crate) const KEY: &str = "key";
    /// The route prefix.
    pub(crate) const PREFIX: &str = "prefix";
    /// The client revision the host served.
    pub(crate) const REV: &str = "rev";
    /// The hands' JS glue, a path (read by the sensor, filled in at build time).
    #[allow(dead_code)]
    pub(crate) const CLIENT: &str = "client";
    /// The hands' wasm, a path (read by the sensor, filled in at build time).
    #[allow(dead_code)]
    pub(crate) const WASM: &str = "wasm";
    /// Show the cursor (`true`, or the name it shows).
    pub(crate) const CURSOR: &str = "cursor";
    /// The name the cursor shows (read by `cursor.js`, filled in at build time).
    #[allow(dead_code)]
    pub(crate) const CURSOR_NAME: &str = "cursorName";
    /// `false` when notes mode is off (read by the bootstrap and `notes.js`).
    #[allow(dead_code)]
    pub(crate) const NOTES: &str = "notes";
    /// The notes shortcut when it is not the default (read by the bootstrap).
    #[allow(dead_code)]
    pub(crate) const NOTES_KEY: &str = "notesKey";
    /// The only parent origin whose notes messages count (read by the bootstrap and `notes.js`).
    #[allow(dead_code)]
    pub(crate) const NOTES_ORIGIN: &str = "notesOrigin";
    /// The host's default snapshot budget in tokens, when it is not the protocol's.
    pub(crate) const BUDGET: &str = "budget";
}

/// Fields of `o`, the page's originals saved before the bootstrap wrapped them.
pub(crate) mod original {
    /// The page's `fetch` before any wrapper: the client's own requests go through it.
    pub(crate) const FETCH: &str = "fetch";
    /// The page's `console.warn`: the client's own warnings are never captured.
    #[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
    pub(crate) const WARN: &str = "warn";
}

/// Kind bit of `h(entry, kind)`: send at once (errors).
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const URGENT: u32 = 1;
/// Kind bit of `h(entry, kind)`: a navigation; the heartbeat reports the new URL at once.
#[allow(dead_code)] // the bootstrap's and the sensor's (filled in at build time)
pub(crate) const NAV: u32 = 8;

/// `window.__browserAgent` (undefined when no bootstrap ran).
pub(crate) fn agent() -> JsValue {
    get(&js_sys::global(), GLOBAL)
}

/// A field of `window.__browserAgent`.
pub(crate) fn field(name: &str) -> JsValue {
    get(&agent(), name)
}

/// Sets a field of `window.__browserAgent`.
pub(crate) fn set_field(name: &str, v: &JsValue) {
    set(&agent(), name, v);
}

/// One of the page's originals (`o.fetch`, `o.warn`).
pub(crate) fn original(name: &str) -> JsValue {
    get(&field(ORIGINALS), name)
}

/// Tells the parent frame `command` with `data`'s fields (nothing when the page is not framed).
pub(crate) fn to_parent(command: &str, data: &[(&str, &JsValue)]) {
    let agent = agent();
    if let Ok(f) = get(&agent, TO_PARENT).dyn_into::<Function>() {
        let o = js_sys::Object::new();
        for (k, v) in data {
            set(&o, k, v);
        }
        let _ = f.call2(&agent, &JsValue::from_str(command), &o);
    }
}
