// The build-time placeholders of the client's JavaScript, for `tsc --noEmit` (scripts/js-check).
//
// scripts/build-bootstrap.mjs fills them from the Rust constants that own them:
//   `__NAME__`   becomes the value as a JS literal: declared below as a `const` of its type;
//   `__F_NAME__` becomes a bare property name: the sources are checked with the placeholder as the
//                property's name, so the global's shape below is written with the same names.
// tsc checks the readable sources as they are (errors point at their own lines, and an editor
// opening browser-agent-client/ checks them live through jsconfig.json), not the filled copies.
// What that costs: two placeholders filled with the same name would be one field at run time but
// two here (the names come from distinct Rust constants), and a field the bootstrap writes by its
// literal name (`config.prefix`) is declared under both names.
//
// Values are not repeated here (they live in Rust): only their types. `__GLOBAL__`, the name of
// the window global, is typed as its own placeholder so `window[__GLOBAL__]` has the shape below.

// ---- `__NAME__`: literals --------------------------------------------------------------------

/** The window global the bootstrap creates (`window[__GLOBAL__]`); a string at run time. */
declare const __GLOBAL__: '__GLOBAL__';
/** The kind bits of `h(entry, kind)`: deliver now; a navigation entry. */
declare const __KIND_URGENT__: number;
declare const __KIND_NAV__: number;
/** The injected tag's config attribute (`data-browser-agent`) and the UI marker attribute. */
declare const __CONFIG_ATTR__: string;
declare const __UI_ATTR__: string;
/** Entry types. */
declare const __CONSOLE__: string;
declare const __ERROR__: string;
declare const __NETWORK__: string;
declare const __WEBSOCKET__: string;
declare const __DIALOG__: string;
declare const __NAVIGATION__: string;
declare const __INTERACTION__: string;
declare const __DROPPED__: string;
/** Routes, assets and headers. */
declare const __PROBE_PATH__: string;
declare const __LOGS_PATH__: string;
declare const __COMMANDS_PATH__: string;
declare const __RESULTS_PATH__: string;
declare const __SCREENSHOTS_PATH__: string;
declare const __NOTES_PATH__: string;
declare const __ASSETS_DIR__: string;
declare const __SENSOR_ASSET__: string;
declare const __LAZY_NOTES__: string;
declare const __LAZY_SCREENSHOT__: string;
declare const __LAZY_SOURCE__: string;
declare const __KEY_HEADER__: string;
declare const __AGENT_HEADER__: string;
declare const __HANDOVER_HEADER__: string;
declare const __REV_HEADER__: string;
declare const __TAB_STORAGE_KEY__: string;
declare const __ROWS__: string;
/** Times, in ms. */
declare const __SETTLE_MS__: number;
declare const __SETTLE_FRAME_MS__: number;
declare const __SETTLE_ANIMATION_MS__: number;
declare const __HOVER_INTENT_MS__: number;
declare const __HEARTBEAT_INTERVAL_MS__: number;
declare const __START_TIMEOUT_MS__: number;
declare const __FLUSH_INTERVAL_MS__: number;
declare const __POLL_WAIT_MS__: number;
declare const __HANDOVER_WAIT_MS__: number;
/** Query parameters. */
declare const __P_KEY__: string;
declare const __P_CLIENT__: string;
declare const __P_PAGE__: string;
declare const __P_TITLE__: string;
declare const __P_PHASE__: string;
declare const __P_VISIBLE__: string;
declare const __P_REV__: string;
declare const __P_ERROR__: string;
declare const __P_STACK__: string;
declare const __P_TAB__: string;
declare const __P_FOCUSED__: string;
declare const __P_IFRAME__: string;
declare const __P_PARENT__: string;
declare const __P_OPENER__: string;
declare const __OPENER_STORAGE_KEY__: string;
declare const __P_WAIT__: string;
declare const __P_CLIENTS__: string;
declare const __P_GONE__: string;
declare const __P_TOOLS__: string;
declare const __CLIENT_PARAM__: string;
/** The screenshot upload's query parameters. */
declare const __WIDTH__: string;
declare const __HEIGHT__: string;
declare const __MS__: string;
declare const __METHOD__: string;
declare const __WARN__: string;
declare const __PAGE__: string;
/** Notes: the shortcut, the parent-frame channel and its commands, the bounds. */
declare const __NOTES_DEFAULT_KEY__: string;
declare const __NOTES_CHANNEL__: string;
declare const __NOTES_ENTER__: string;
declare const __NOTES_EXIT__: string;
declare const __NOTES_SCREENSHOT__: string;
declare const __NOTES_CURSOR_HIDE__: string;
declare const __NOTES_SCREENSHOT_RESULT__: string;
declare const __MAX_NOTE_TEXT__: number;
declare const __MAX_NOTE_ELEMENTS__: number;
/** JSON field names of the delivery and results bodies. */
declare const __FIELD_TYPE__: string;
declare const __FIELD_COUNT__: string;
declare const __FIELD_EVENT__: string;
declare const __FIELD_TARGET__: string;
declare const __FIELD_TEXT__: string;
declare const __FIELD_VALUE__: string;
declare const __FIELD_KEY__: string;
declare const __FIELD_CLIENT__: string;
declare const __FIELD_ID__: string;
declare const __FIELD_STEPS__: string;
declare const __FIELD_INDEX__: string;
declare const __FIELD_OFFSET__: string;
declare const __FIELD_COMMAND__: string;
declare const __FIELD_ERROR__: string;
declare const __FIELD_SNAPSHOT__: string;
declare const __FIELD_LOGS__: string;
declare const __FIELD_DURATION__: string;

// ---- `__F_NAME__`: the global's fields (browser-agent-client/src/bootstrap.rs) -------------------

/** One captured log entry as the bootstrap and the sensor build it (fields vary by type). */
type AgentEntry = { [field: string]: any };

/** The injected tag's config (`TagConfig`), read from the tag's JSON attribute. */
interface AgentConfig {
    key?: string;
    prefix: string;
    rev: string;
    [field: string]: any;
    __F_CFG_KEY__?: string;
    __F_CFG_PREFIX__?: string;
    __F_CFG_REV__?: string;
    __F_CFG_CLIENT__?: string;
    __F_CFG_WASM__?: string;
    __F_CFG_CURSOR__?: boolean | string;
    __F_CFG_CURSOR_NAME__?: string;
    __F_CFG_NOTES__?: boolean;
    __F_CFG_NOTES_KEY__?: string;
    __F_CFG_NOTES_ORIGIN__?: string;
}

/** `window[__GLOBAL__]`: the bootstrap's global, its contract with the sensor, modules and hands. */
interface BrowserAgent {
    /** The tag's config. */
    __F_CFG__: AgentConfig;
    /** This page load's random id. */
    __F_CLIENT_ID__: string;
    /** Entries captured before the sensor ran: `[entry, kind]` pairs. */
    __F_QUEUE__: Array<[AgentEntry, number]>;
    /** Entries dropped from the queue when it was full. */
    __F_DROPPED__: number;
    /** The last sequence number given (the bootstrap's own). */
    s: number;
    /** 1 while the bootstrap runs page code of its own (the bootstrap's own). */
    b: number;
    /** The page's fetch/XHR requests in flight, and when that count last changed. */
    __F_INFLIGHT__: number;
    __F_LAST_ACTIVITY__?: number;
    /** The page's originals the bootstrap wrapped (console methods, fetch, XHR). */
    __F_ORIGINALS__: { [name: string]: any; __F_ORIGINAL_FETCH__?: typeof fetch; __F_ORIGINAL_WARN__?: (...data: any[]) => void };
    /** The built-ins as they were before the page's scripts ran, by path (`Reflect.apply`). */
    __F_PRISTINE__: { [path: string]: any };
    /** The sensor's handler of every capture; 0 until it runs. */
    __F_HANDLER__: 0 | ((entry: AgentEntry, kind: number) => void);
    /** Stamps and records an entry. */
    __F_STAMP__: (entry: AgentEntry, kind?: number) => void;
    /** The settle wait's counters: short timers due, hover-intent timers due, frames asked for. */
    __F_TIMERS_DUE__?: number;
    __F_HOVER_DUE__?: number;
    __F_FRAMES__?: number;
    /** The settle wait: resolves once what the page set to run soon after an action has run. */
    __F_SETTLE__?: (frames: number, atLeast?: number, intent?: boolean) => Promise<unknown>;
    /** Set while the page runs an agent's batch. */
    __F_BUSY__?: number | boolean;
    /** Native dialogs: an agent attached; the hands' answer by the step's policy; those answered
     *  while no batch ran; `beforeunload` handlers skipped (commands/dialogs.rs). */
    __F_ATTACHED__?: number | boolean;
    __F_DIALOG_HANDLER__?: (entry: AgentEntry) => any;
    __F_DIALOGS_OUTSIDE__?: AgentEntry[];
    __F_SKIP_BEFOREUNLOAD__?: number | boolean;
    /** `import()` of a module loaded on first use. */
    __F_LOAD__?: (path: string) => Promise<any>;
    /** Notes mode: `n(command, message?)`. */
    __F_NOTES__?: (command: string, message?: any) => Promise<any>;
    /** Set by the notes module while notes mode is on: gets the developer's input first. */
    __F_GUARD__?: ((event: Event) => void) | 0 | null;
    /** The promise an `evaluate` through a nonce'd `<script>` leaves; 0 while it is inserted. */
    __F_EVAL__?: any;
    /** The failure report. */
    __F_FAIL__?: (error: any) => void;
    /** The page's own tools (WebMCP): `r` changes counted, `m` the shim's tools by name, `c` the
     *  shim (absent where the browser has a model context of its own). */
    __F_TOOLS__?: { r: number; m: { [name: string]: any }; c?: any };
    /** Set by the sensor: a heartbeat soon, when the page's tools changed. */
    __F_TOOLS_BEAT__?: () => void;
    /** Set by the sensor when it starts. */
    __F_STARTED__?: number | boolean;
    /** The sensor's loader of the hands. */
    __F_HANDS__?: () => Promise<any>;
    /** The hands' tap: every entry the sensor records. */
    __F_TAP__?: ((entry: AgentEntry) => void) | 0;
    /** The page's `window.close`, deferred by the hands until the batch's answer is posted. */
    __F_CLOSE__?: (() => void) | 0;
    /** Polls every that many ms without `wait` (set by a page). */
    __F_POLL_MS__?: number;
    /** The hands' hooks: the snapshot, a ref's element, an element as the snapshot names it. */
    __F_SNAPSHOT_HOOK__?: (...args: any[]) => Promise<string>;
    __F_REF_HOOK__?: (ref: string) => Element;
    __F_DESCRIBE__?: (element: Element, interactive?: boolean) => string;
    /** Whether an element's `onclick` does something; whether a root's sheets may give pseudo text
     *  (the sensor's; the hands read either answer as truthy or not). */
    __F_ONCLICK__?: (element: Element) => boolean | number;
    __F_PSEUDO__?: (root: Document | ShadowRoot) => boolean | number;
    /** The sensor's kept performance records, for the hands' `vitals` step. */
    __F_VITALS__?: () => { [kind: string]: any };
    /** The hands' latest acting steps, `[start, end]` in `performance.now()` time (source/profile.rs). */
    __F_INPUTS__?: number[][];
    /** Posts to the parent frame; the cursor as the parent frame set it. */
    __F_TO_PARENT__?: (command: string, data?: object) => void;
    __F_CURSOR_MODE__?: string;
}

interface Window {
    __GLOBAL__?: BrowserAgent;
}

// WebMCP's model context (not in lib.dom yet): the browser's, a polyfill's or the bootstrap's shim.
interface Document {
    modelContext?: any;
}
interface Navigator {
    modelContext?: any;
    modelContextTesting?: any;
}
