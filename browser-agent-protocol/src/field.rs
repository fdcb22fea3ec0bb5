//! Field names of the JSON shapes the page and the host exchange (delivered batch, step result,
//! results post, handover, log entry). The host reads and writes them through the typed shapes;
//! the wasm client, which carries no serde_json, through these names.

/// Batch id (delivered batch, results post).
pub const ID: &str = "id";
/// The steps of a batch, or the step results of a results post.
pub const STEPS: &str = "steps";
/// Index of the batch's first step within the agent's whole batch (after a handover).
pub const OFFSET: &str = "offset";
/// Milliseconds the batch has left when it is delivered.
pub const TIMEOUT_MS: &str = "timeoutMs";
/// The page a delivered batch is for, when the poll covered several ([`crate::param::CLIENTS`]).
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
/// Results post: `true` when that snapshot shows an open modal dialog alone (the page behind it
/// is inert): the host answers it whole and keeps the page before it as the next diff's baseline.
pub const MODAL: &str = "modal";
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
/// Log entry: its type ([`crate::entry_type`]).
pub const TYPE: &str = "type";
/// Log entry: its level ([`crate::Level`]).
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
/// Interaction entry: what was done (`click`, `dblclick`, `fill`, `select`, `upload`, `press`).
pub const EVENT: &str = "event";
/// Interaction entry: the value a `fill`, `select` or `upload` left in the field (a password's is
/// never sent).
pub const VALUE: &str = "value";
/// Interaction entry: the keys of a `press` (`Enter`, `Control+s`).
pub const KEY: &str = "key";
/// `dropped` entry: how many entries the page's queue dropped.
pub const COUNT: &str = "count";
/// Log entry in an answer: how long before the answer it happened, in ms.
pub const AGO: &str = "ago";
/// Log entry in an answer: the agent's batch it happened during (`b7`); a `POST /run` answer:
/// the batch's own id.
pub const BATCH: &str = "batch";
/// Log entry in an answer: the batch it happened after (ended, and the next not started).
pub const AFTER: &str = "after";
/// Log entry in an answer: the batch it happened before (`b1`: before the agent's first).
pub const BEFORE: &str = "before";
