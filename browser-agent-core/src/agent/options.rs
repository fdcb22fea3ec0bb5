//! The typed options of [`BrowserAgent::snapshot`](super::BrowserAgent::snapshot) and
//! [`Screenshots::take`](super::Screenshots::take): builders over the `snapshot` and `screenshot`
//! steps' fields. The step's JSON is built here; bad values are refused by the same checks as
//! `POST {prefix}/run` ([`RunError::BadRequest`](crate::RunError::BadRequest)), never a panic.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::commands::Batch;
use crate::protocol::screenshot::{self as shot, Format};

/// What [`BrowserAgent::snapshot`](super::BrowserAgent::snapshot) asks of a page: which page, and
/// which part of its tree. The default is the whole tree of the default page, within the host's
/// token budget.
///
/// ```
/// use browser_agent_core::SnapshotOptions;
/// let whole = SnapshotOptions::new();
/// let changes = SnapshotOptions::new().client("c1a2").diff(true);
/// let form = SnapshotOptions::new().scope("e12").filter("Save").limit(20);
/// # let _ = (whole, changes, form);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
#[must_use]
pub struct SnapshotOptions {
    client: Option<String>,
    fields: Map<String, Value>,
}

impl SnapshotOptions {
    /// The whole tree of the default page.
    ///
    /// ```
    /// assert_eq!(browser_agent_core::SnapshotOptions::new(), Default::default());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The page to snapshot (its client id, from `GET {prefix}/page` or
    /// [`ClientRegistry::all`](crate::ClientRegistry::all)); default: the most recently active
    /// visible page.
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().client("c1a2");
    /// # let _ = options;
    /// ```
    pub fn client(mut self, client: impl Into<String>) -> Self {
        self.client = Some(client.into());
        self
    }

    /// Only what changed since this page's previous snapshot.
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().diff(true);
    /// # let _ = options;
    /// ```
    pub fn diff(self, on: bool) -> Self {
        self.set("diff", on)
    }

    /// Only the subtree of this element (a ref from an earlier snapshot, `e12`).
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().scope("e12");
    /// # let _ = options;
    /// ```
    pub fn scope(self, element: impl Into<String>) -> Self {
        self.set("ref", element.into())
    }

    /// Only the lines that hold this text (and their ancestors).
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().filter("Save");
    /// # let _ = options;
    /// ```
    pub fn filter(self, text: impl Into<String>) -> Self {
        self.set("filter", text.into())
    }

    /// Skips the first `n` children of the scope (paging through a long list).
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().scope("e40").offset(40).limit(20);
    /// # let _ = options;
    /// ```
    pub fn offset(self, n: u32) -> Self {
        self.set("offset", n)
    }

    /// Shows at most `n` children of the scope.
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().limit(20);
    /// # let _ = options;
    /// ```
    pub fn limit(self, n: u32) -> Self {
        self.set("limit", n)
    }

    /// Only what is in the viewport.
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().viewport(true);
    /// # let _ = options;
    /// ```
    pub fn viewport(self, on: bool) -> Self {
        self.set("viewport", on)
    }

    /// The token budget of this snapshot, 1 or more (default: the host's
    /// [`snapshot_budget`](crate::BrowserAgentBuilder::snapshot_budget)).
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().budget(2000);
    /// # let _ = options;
    /// ```
    pub fn budget(self, tokens: u32) -> Self {
        self.set("budget", tokens)
    }

    /// The whole tree without a budget (contradicts [`budget`](Self::budget): the run refuses both).
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().full(true);
    /// # let _ = options;
    /// ```
    pub fn full(self, on: bool) -> Self {
        self.set("full", on)
    }

    /// Ends the snapshot with its refs' source locations, each location once with the refs it
    /// renders (`TodoItem src/TodoItem.jsx:5: e2 e3`), in development builds of React, Vue,
    /// Svelte, Preact and Angular (see `docs/source-locations.md`).
    ///
    /// ```
    /// let options = browser_agent_core::SnapshotOptions::new().source(true);
    /// # let _ = options;
    /// ```
    pub fn source(self, on: bool) -> Self {
        self.set(crate::protocol::source::FIELD, on)
    }

    fn set(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.fields.insert(name.to_owned(), value.into());
        self
    }

    /// The one-step batch that takes this snapshot.
    pub(crate) fn batch(&self) -> Batch {
        one_step(self.client.as_deref(), "snapshot", self.fields.clone())
    }
}

/// What [`Screenshots::take`](super::Screenshots::take) captures and how: the viewport by default,
/// as a PNG at most 1,568 px wide.
///
/// ```
/// use std::time::Duration;
/// use browser_agent_core::ScreenshotOptions;
/// let page = ScreenshotOptions::new().full_page(true);
/// let button = ScreenshotOptions::new().element("e3").padding(8);
/// let small = ScreenshotOptions::new().jpeg(0.7).max_width(320).budget(Duration::from_secs(3));
/// # let _ = (page, button, small);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
#[must_use]
pub struct ScreenshotOptions {
    client: Option<String>,
    fields: Map<String, Value>,
}

impl ScreenshotOptions {
    /// The viewport of the default page, as a PNG.
    ///
    /// ```
    /// assert_eq!(browser_agent_core::ScreenshotOptions::new(), Default::default());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The page to capture (its client id); default: the most recently active visible page.
    ///
    /// ```
    /// let options = browser_agent_core::ScreenshotOptions::new().client("c1a2");
    /// # let _ = options;
    /// ```
    pub fn client(mut self, client: impl Into<String>) -> Self {
        self.client = Some(client.into());
        self
    }

    /// The whole document instead of the viewport (not with an element).
    ///
    /// ```
    /// let options = browser_agent_core::ScreenshotOptions::new().full_page(true);
    /// # let _ = options;
    /// ```
    pub fn full_page(self, on: bool) -> Self {
        self.set(shot::FULL_PAGE, on)
    }

    /// Only this element (a ref from a snapshot, `e3`).
    ///
    /// ```
    /// let options = browser_agent_core::ScreenshotOptions::new().element("e3");
    /// # let _ = options;
    /// ```
    pub fn element(self, element: impl Into<String>) -> Self {
        self.set("ref", element.into())
    }

    /// Only the first element this CSS selector matches.
    ///
    /// ```
    /// let options = browser_agent_core::ScreenshotOptions::new().selector("#chart");
    /// # let _ = options;
    /// ```
    pub fn selector(self, css: impl Into<String>) -> Self {
        self.set("selector", css.into())
    }

    /// CSS pixels around the element, 0 to 1000.
    ///
    /// ```
    /// let options = browser_agent_core::ScreenshotOptions::new().element("e3").padding(8);
    /// # let _ = options;
    /// ```
    pub fn padding(self, css_px: u32) -> Self {
        self.set(shot::PADDING, css_px)
    }

    /// A JPEG of this quality, 0 to 1, instead of a PNG.
    ///
    /// ```
    /// let options = browser_agent_core::ScreenshotOptions::new().jpeg(0.7);
    /// # let _ = options;
    /// ```
    pub fn jpeg(self, quality: f64) -> Self {
        self.set(shot::FORMAT, format_name(Format::Jpeg))
            .set(shot::QUALITY, number(quality))
    }

    /// The widest output in pixels, 1 to 16,384 (default 1,568); wider captures are scaled down.
    ///
    /// ```
    /// let options = browser_agent_core::ScreenshotOptions::new().max_width(800);
    /// # let _ = options;
    /// ```
    pub fn max_width(self, px: u32) -> Self {
        self.set(shot::MAX_WIDTH, px)
    }

    /// Output pixels per CSS pixel, 0.05 to 4 (default 1, never the device pixel ratio unless asked).
    ///
    /// ```
    /// let options = browser_agent_core::ScreenshotOptions::new().scale(2.0);
    /// # let _ = options;
    /// ```
    pub fn scale(self, factor: f64) -> Self {
        self.set(shot::SCALE, number(factor))
    }

    /// The capture's time budget in the page (default 1.5 s).
    ///
    /// ```
    /// let options = browser_agent_core::ScreenshotOptions::new().budget(std::time::Duration::from_secs(3));
    /// # let _ = options;
    /// ```
    pub fn budget(self, budget: Duration) -> Self {
        self.set(shot::BUDGET_MS, u64::try_from(budget.as_millis()).unwrap_or(u64::MAX))
    }

    fn set(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.fields.insert(name.to_owned(), value.into());
        self
    }

    /// The one-step batch that takes this screenshot.
    pub(crate) fn batch(&self) -> Batch {
        one_step(self.client.as_deref(), "screenshot", self.fields.clone())
    }
}

/// A JSON number, or (NaN, infinities) a string the step's checks refuse with their message.
fn number(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or_else(|| Value::String(x.to_string()), Value::Number)
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Png => "png",
        Format::Jpeg => "jpeg",
    }
}

/// A batch of one `command` step with `fields`, for `client` (or the default page).
fn one_step(client: Option<&str>, command: &str, fields: Map<String, Value>) -> Batch {
    let mut step = Map::new();
    step.insert("command".into(), command.into());
    step.extend(fields);
    let batch = Batch::new(vec![Value::Object(step)]);
    match client {
        Some(client) => batch.client(client),
        None => batch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_are_the_steps_fields() {
        let b = SnapshotOptions::new()
            .client("c1")
            .diff(true)
            .scope("e3")
            .offset(4)
            .limit(2)
            .filter("Save")
            .budget(900)
            .batch();
        assert_eq!(b.client.as_deref(), Some("c1"));
        assert_eq!(
            b.steps[0],
            json!({"command": "snapshot", "diff": true, "ref": "e3", "offset": 4, "limit": 2, "filter": "Save", "budget": 900})
        );
        let b = ScreenshotOptions::new()
            .element("e3")
            .padding(8)
            .jpeg(0.5)
            .max_width(320)
            .budget(Duration::from_millis(2500))
            .batch();
        assert_eq!(b.client, None);
        assert_eq!(
            b.steps[0],
            json!({"command": "screenshot", "ref": "e3", "padding": 8, "format": "jpeg", "quality": 0.5, "maxWidth": 320, "budgetMs": 2500})
        );
    }

    #[test]
    fn a_number_json_cannot_hold_is_refused_by_the_checks_not_a_panic() {
        let mut b = ScreenshotOptions::new().jpeg(f64::NAN).batch();
        let err = crate::commands::validate_steps(&mut b.steps).unwrap_err();
        assert!(err.to_string().contains("invalid quality \"NaN\""), "{err}");
        let mut b = ScreenshotOptions::new().scale(f64::INFINITY).batch();
        assert!(crate::commands::validate_steps(&mut b.steps).is_err());
    }
}
