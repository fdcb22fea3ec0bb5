//! Screenshots through the Rust API, and `inline` screenshots in step results.

use serde_json::Value;

use super::BrowserAgent;
use crate::commands::{BatchResult, RunError};
use crate::protocol::screenshot::{ScreenshotInfo, INLINE};
use crate::screenshots::Screenshot;
use crate::util;

impl BrowserAgent {
    /// Takes a screenshot of a page with the `screenshot` step's options (`{}` for the viewport,
    /// `{"fullPage":true}`, `{"ref":"e3","padding":8}`, `{"format":"jpeg","quality":0.7}`, …; see
    /// the README) and returns it with its bytes. A step that fails (a target that does not
    /// resolve, a page that cannot be captured) is [`RunError::StepFailed`] with the page's message.
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, RunError};
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// // No page is open here; with one, `shot.bytes` is the PNG and `shot.info` says what it is.
    /// let err = agent.screenshot(None, serde_json::json!({"fullPage": true})).await.unwrap_err();
    /// assert!(matches!(err, RunError::NoBrowser(_)));
    /// # });
    /// ```
    pub async fn screenshot(&self, client: Option<&str>, options: Value) -> Result<Screenshot, RunError> {
        let result = self
            .run(super::one_step(client, "screenshot", options, &[INLINE]))
            .await?;
        let step = result.steps.into_iter().next();
        if let Some(error) = step.as_ref().and_then(|s| s.error.clone()).or(result.error) {
            return Err(RunError::StepFailed(error));
        }
        let info: Option<ScreenshotInfo> = step.and_then(|s| s.result).and_then(|v| serde_json::from_value(v).ok());
        info.and_then(|info| self.inner.screenshots.get(&info.id))
            .ok_or_else(|| RunError::StepFailed("the page sent no screenshot (or the store evicted it already)".into()))
    }

    /// The stored screenshot with this id (`s3`), while the store holds it.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.screenshot_by_id("s1").is_none());
    /// ```
    pub fn screenshot_by_id(&self, id: &str) -> Option<Screenshot> {
        self.inner.screenshots.get(id)
    }

    /// What the screenshot store holds, oldest first.
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert!(agent.screenshots().is_empty());
    /// ```
    pub fn screenshots(&self) -> Vec<ScreenshotInfo> {
        self.inner.screenshots.list()
    }

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
