//! `agent.screenshots()`: screenshots through the Rust API, and `inline` screenshots in step results.

use serde_json::Value;

use super::{BrowserAgent, ScreenshotOptions};
use crate::commands::{BatchResult, RunError};
use crate::protocol::screenshot::{ScreenshotInfo, INLINE};
use crate::screenshots::Screenshot;
use crate::util;

/// The screenshots of a [`BrowserAgent`]: take one in a page, read the stored ones. From
/// [`BrowserAgent::screenshots`].
///
/// ```
/// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
/// let screenshots = agent.screenshots();
/// assert!(screenshots.list().is_empty());
/// assert!(screenshots.get("s1").is_none());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Screenshots<'a> {
    agent: &'a BrowserAgent,
}

impl BrowserAgent {
    /// The screenshots: [`take`](Screenshots::take) one in a page, [`get`](Screenshots::get) or
    /// [`list`](Screenshots::list) the stored ones.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.screenshots().list().is_empty());
    /// ```
    pub fn screenshots(&self) -> Screenshots<'_> {
        Screenshots { agent: self }
    }
}

impl Screenshots<'_> {
    /// Takes a screenshot of a page and returns it with its bytes. A step that fails (a target
    /// that does not resolve, a page that cannot be captured) is [`RunError::StepFailed`] with the
    /// page's message; an option out of range is [`RunError::BadRequest`].
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, RunError, ScreenshotOptions};
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// // No page is open here; with one, `shot.bytes` is the PNG and `shot.info` says what it is.
    /// let err = agent.screenshots().take(ScreenshotOptions::new().full_page(true)).await.unwrap_err();
    /// assert!(matches!(err, RunError::NoBrowser(_)));
    /// # });
    /// ```
    pub async fn take(&self, options: ScreenshotOptions) -> Result<Screenshot, RunError> {
        let result = self.agent.run(options.batch()).await?;
        let step = result.steps.into_iter().next();
        if let Some(error) = step.as_ref().and_then(|s| s.error.clone()).or(result.error) {
            return Err(RunError::StepFailed(error));
        }
        let info: Option<ScreenshotInfo> = step.and_then(|s| s.result).and_then(|v| serde_json::from_value(v).ok());
        info.and_then(|info| self.agent.inner.screenshots.get(&info.id))
            .ok_or_else(|| RunError::StepFailed("the page sent no screenshot (or the store evicted it already)".into()))
    }

    /// The stored screenshot with this id (`s3`), while the store holds it.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.screenshots().get("s1").is_none());
    /// ```
    pub fn get(&self, id: &str) -> Option<Screenshot> {
        self.agent.inner.screenshots.get(id)
    }

    /// What the store holds, oldest first.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.screenshots().list().is_empty());
    /// ```
    pub fn list(&self) -> Vec<ScreenshotInfo> {
        self.agent.inner.screenshots.list()
    }
}

impl BrowserAgent {
    /// Puts the image, as base64, into the result of every `screenshot` step that asked for
    /// `"inline": true` (for callers that cannot fetch its URL).
    pub(super) fn inline_screenshots(&self, steps: &[Value], result: &mut BatchResult) {
        for step in &mut result.steps {
            let Some(asked) = step.index.and_then(|i| steps.get(i as usize)) else {
                continue;
            };
            if step.command != "screenshot" || asked.get(INLINE).and_then(Value::as_bool) != Some(true) {
                continue;
            }
            let Some(Value::Object(info)) = &mut step.result else {
                continue;
            };
            let shot = info
                .get("id")
                .and_then(Value::as_str)
                .and_then(|id| self.inner.screenshots.get(id));
            if let Some(shot) = shot {
                info.insert("data".into(), Value::String(util::base64_encode(&shot.bytes)));
            }
        }
    }
}
