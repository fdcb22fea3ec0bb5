//! [`BrowserAgent`]: the cheap-to-clone handle over the host's shared state, and its [`BrowserAgentBuilder`].

mod adapter;
mod builder;
mod dialogs;
mod notes;
mod options;
mod page_tools;
mod popups;
mod proof;
mod reloads;
mod screenshot;

use std::sync::Arc;

use bytes::Bytes;

use crate::assets::ClientAssets;
use crate::clients::ClientRegistry;
use crate::commands::{self, Batch, BatchResult, OpenPages, PageSummary, RunError};
use crate::config::Config;
use crate::logs::{self, LogBuffer};
use crate::protocol::TagConfig;
use crate::sinks::{ClientState, NdjsonSink};
use crate::util;

pub use adapter::AdapterExt;
pub use builder::BrowserAgentBuilder;
pub use notes::Notes;
pub use options::{ScreenshotOptions, SnapshotOptions};
pub use proof::Proof;
pub use screenshot::Screenshots;

/// The host's shared state: log ring, page registry, configuration, page key. Clone it freely
/// (one `Arc`); every clone sees the same state, so create it once and hand clones to the layer,
/// to your handlers and to your agent-facing code.
///
/// Its methods are the app author's: [`run`](Self::run) and [`snapshot`](Self::snapshot) in a
/// page, the [`logs`](Self::logs) and the [`clients`](Self::clients) (pages), the feature areas
/// [`screenshots`](Self::screenshots), [`notes`](Self::notes) and [`proof`](Self::proof), the
/// server-side capture ([`install_panic_hook`](Self::install_panic_hook),
/// [`tail_server_log`](Self::tail_server_log)) and the stdio bridges. What an adapter calls is in
/// [`adapter::AdapterExt`](crate::adapter::AdapterExt).
///
/// ```
/// use browser_agent_core::{BrowserAgent, LogQuery};
/// let agent = BrowserAgent::builder().max_logs(100).enabled(true).build();
/// let handle = agent.clone();
/// assert_eq!(handle.config().max_logs(), 100);
/// assert!(agent.logs().query(&LogQuery::all()).is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct BrowserAgent {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) config: Config,
    pub(crate) logs: LogBuffer,
    pub(crate) clients: ClientRegistry,
    pub(crate) commands: crate::commands::CommandQueue,
    /// When [`BrowserAgent::sweep_pages`] last ran (epoch ms).
    pub(crate) last_sweep: std::sync::atomic::AtomicU64,
    /// When an agent last called (epoch ms): pages then prefetch their hands while idle.
    pub(crate) agent_seen: std::sync::atomic::AtomicU64,
    /// The last log `seq` a batch's answer has looked at for the dialogs pages answered while no
    /// batch ran (`dialogs.rs`): each is reported once.
    pub(crate) dialogs_reported: std::sync::atomic::AtomicU64,
    /// Held from looking for a server error's partner (its 5xx, or the error of a 5xx) until the
    /// entry is stored: the two may be stored at the same moment from two threads, and each must
    /// see the other.
    pub(crate) server_pairing: parking_lot::Mutex<()>,
    pub(crate) screenshots: crate::screenshots::ScreenshotStore,
    pub(crate) notes: crate::notes::NotesStore,
    /// The pages that registered their own tools (WebMCP) and their lists.
    pub(crate) page_tools: crate::page_tools::PageTools,
    pub(crate) proofs: crate::proof::Proofs,
    pub(crate) key: String,
    pub(crate) assets: &'static ClientAssets,
    pub(crate) tag_config: TagConfig,
    pub(crate) plain_tag: Bytes,
    pub(crate) ndjson: Option<NdjsonSink>,
    pub(crate) restored: Option<ClientState>,
    pub(crate) probe_scope: String,
    pub(crate) prefix_slash: String,
    /// `{prefix}/mcp`: OAuth metadata requests for it (`/.well-known/…{prefix}/mcp`) are ours too.
    pub(crate) mcp_path: String,
}

// `new`, `builder` and `Default` are in `builder.rs`, beside what they build with.

impl BrowserAgent {
    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Whether the agent is active ([`Config::enabled`]).
    pub(crate) fn enabled(&self) -> bool {
        self.inner.config.enabled
    }

    /// The log ring.
    pub fn logs(&self) -> &LogBuffer {
        &self.inner.logs
    }

    /// The page registry.
    pub fn clients(&self) -> &ClientRegistry {
        &self.inner.clients
    }

    /// The page key the injected tag carries.
    pub fn page_key(&self) -> &str {
        &self.inner.key
    }

    /// The tag injected into pages without a CSP nonce.
    pub fn tag(&self) -> &Bytes {
        &self.inner.plain_tag
    }

    pub(crate) fn limits(&self) -> logs::Limits {
        let c = &self.inner.config;
        logs::Limits {
            max_text: c.max_text,
            max_field: c.max_field,
            max_page: crate::config::PAGE_MAX,
        }
    }

    /// Runs a batch of steps in a page and waits for its result: the default page (the most
    /// recently active visible one that polls for commands) or `batch.client`. Batches for one page
    /// run one at a time, in order; a batch that times out is removed and never runs later.
    ///
    /// ```
    /// use browser_agent_core::{Batch, BrowserAgent, RunError};
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let err = agent.run(Batch::new(vec![serde_json::json!({"command": "snapshot"})])).await.unwrap_err();
    /// assert!(matches!(err, RunError::NoBrowser(_)));
    /// assert!(err.to_string().starts_with("No browser connected: open"));
    /// # });
    /// ```
    pub async fn run(&self, batch: Batch) -> Result<BatchResult, RunError> {
        self.agent_called();
        // On the batches' timeline (`b{n}`), as `POST /run` and MCP's are: the log places
        // entries against it.
        self.run_placed(batch, None).await.1
    }

    /// Takes a snapshot of a page: the default page's whole tree, or what `options` asks for (a
    /// page, a subtree, a filter, what changed since the last one). The text is the step's result,
    /// `result.steps[0].result_str()`; a bad option is [`RunError::BadRequest`].
    ///
    /// ```
    /// use browser_agent_core::{BrowserAgent, RunError, SnapshotOptions};
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let agent = BrowserAgent::builder().enabled(true).build();
    /// let err = agent.snapshot(SnapshotOptions::new().diff(true)).await.unwrap_err();
    /// assert!(matches!(err, RunError::NoBrowser(_)), "no page is open here");
    /// let err = agent.snapshot(SnapshotOptions::new().full(true).budget(100)).await.unwrap_err();
    /// assert!(matches!(err, RunError::BadRequest(_)), "{err}");
    /// # });
    /// ```
    pub async fn snapshot(&self, options: SnapshotOptions) -> Result<BatchResult, RunError> {
        // A look, not a batch: as `GET /snapshot`, it is not on the batches' timeline.
        self.agent_called();
        let mut result = self.run_with_hint(options.batch(), None).await?;
        self.add_dialogs(&mut result);
        Ok(result)
    }

    pub(crate) async fn run_with_hint(
        &self,
        mut batch: Batch,
        origin: Option<String>,
    ) -> Result<BatchResult, RunError> {
        let diff_steps = commands::validate_steps(&mut batch.steps)?;
        commands::waits_fit(&batch.steps, batch.timeout)?;
        // An `upload` step's files, read or decoded now (a refusal before anything runs): the page
        // gets their bytes, `batch.steps` (what a proof records) their names and sizes.
        let uploads = commands::upload::prepare(&mut batch.steps, &self.inner.config)?;
        // A batch is what makes per-page state grow: free that of pages gone for good first.
        self.sweep_pages();
        let now = util::now_ms();
        let clients = &self.inner.clients;
        let client = match &batch.client {
            Some(id) => match clients.get(id) {
                Some(r) if r.gone => {
                    return Err(RunError::PageClosed {
                        client: id.clone(),
                        open: self.open_pages(now),
                    })
                }
                Some(r) if clients.is_alive(&r, now) => match r.start_failure(now) {
                    Some(message) => return Err(RunError::ClientFailed { page: r.page, message }),
                    None => r.client_id,
                },
                _ => {
                    return Err(RunError::UnknownPage {
                        client: id.clone(),
                        open: self.open_pages(now),
                    })
                }
            },
            None => match clients.default_target(now) {
                Some(r) => r.client_id,
                None => {
                    if let Some((r, message)) = clients.failed_page(now) {
                        return Err(RunError::ClientFailed { page: r.page, message });
                    }
                    return Err(RunError::NoBrowser(
                        self.app_url(origin).unwrap_or_else(|| "your app".into()),
                    ));
                }
            },
        };
        // Refs of a page load the agent saw do not name this one's elements.
        self.refuse_refs_of_an_earlier_load(&client, &batch.steps, now)?;
        // A `network` step names a log entry; the page knows it by its own number.
        commands::network::resolve(&mut batch.steps, &self.inner.logs, &client)?;
        let queue = &self.inner.commands;
        // While a proof session is open the page runs the batch with a screenshot after each
        // acting step; the answer is split again below.
        let with_files = uploads.as_ref().map(|u| u.page_steps(&batch.steps));
        let page_steps = with_files.as_ref().unwrap_or(&batch.steps);
        let plan = self.proof_plan(page_steps);
        let (steps, diff_steps) = match &plan {
            Some(plan) => (&plan.steps, diff_steps.iter().map(|&i| plan.page_index(i)).collect()),
            None => (page_steps, diff_steps),
        };
        // Entries stored from here on: the server's among them join the answer's logs below.
        let first_seq = self.inner.logs.last_seq();
        let ticket = queue.enqueue(&client, steps, diff_steps, batch.timeout)?;
        // The page may have said it left between the look-up above and the enqueue.
        if clients.is_gone(&client) {
            self.fail_batches_of_gone_page(&client);
        }
        let mut outcome = ticket.wait(queue, batch.timeout).await;
        // Before a proof records it: the steps are the page's (a proof's screenshots included).
        if let Ok(result) = &mut outcome {
            commands::tidy_evaluate_errors(steps, result, &self.inner.config.prefix);
            self.redact_evaluations(result);
        }
        if let Some(plan) = &plan {
            outcome = self.proof_record(plan, &batch.steps, outcome);
        }
        let mut result = outcome?;
        self.inline_screenshots(&batch.steps, &mut result);
        self.add_server_entries(first_seq, &mut result);
        Ok(result)
    }

    /// Where the app is, for the texts that say to open it: where the agent's request came
    /// (`origin`), the host's `app_url`, or the origin of the last page that connected.
    pub(crate) fn app_url(&self, origin: Option<String>) -> Option<String> {
        origin
            .or_else(|| self.inner.config.app_url.clone())
            .or_else(|| self.clients().most_recent().and_then(|r| page_origin(&r.page)))
    }

    /// An `evaluate` step's result and error follow the logs' redaction rules: they go into the
    /// answer, MCP's text and proof files as the page's console entries do (a value without a
    /// secret-looking name or shape, a field's `.value`, stays). So does a `network` step's: the
    /// request and response bodies the page kept as they were are redacted here, by the rules and
    /// names of this host, before anything shows them.
    fn redact_evaluations(&self, result: &mut BatchResult) {
        let redaction = &self.inner.config.redaction;
        for step in result
            .steps
            .iter_mut()
            .filter(|s| s.command == "evaluate" || s.command == crate::protocol::network::COMMAND)
        {
            if let Some(value) = step.result.as_mut() {
                redaction.json(value);
            }
            if let Some(error) = step.error.as_mut() {
                if let std::borrow::Cow::Owned(redacted) = redaction.text(error) {
                    // The batch's error quotes its failed step's.
                    if result.error.as_deref() == Some(error.as_str()) {
                        result.error = Some(redacted.clone());
                    }
                    *error = redacted;
                }
            }
        }
    }

    /// The server's entries stored while a batch ran (after `first_seq`; at most the default 50),
    /// into its answer's logs in their order: a 500's panic message and error lines belong in the
    /// same timeline as the page's failed fetch.
    fn add_server_entries(&self, first_seq: u64, result: &mut BatchResult) {
        let query = logs::LogQuery {
            kind: Some(crate::protocol::entry_type::SERVER.to_owned()),
            after_seq: Some(first_seq),
            ..logs::LogQuery::default()
        };
        let server = self.inner.logs.query(&query);
        if server.is_empty() {
            return;
        }
        result.logs.extend(server.iter().map(|e| e.to_json()));
        result.logs.sort_by_key(|e| e["seq"].as_u64());
    }

    /// Page `client` said it left (`POST {prefix}/logs?gone=1`): it is no longer alive nor a default
    /// target, and the batches queued for it fail now.
    pub(crate) fn page_gone(&self, client: &str) {
        self.inner.clients.mark_gone(client, util::now_ms());
        self.inner.page_tools.forget(client);
        self.fail_batches_of_gone_page(client);
        self.sweep_pages();
    }

    /// Frees the per-page command state (action log, snapshot baseline, empty queue) of idle pages
    /// that said they left more than [`LEFT_PAGE_GRACE`](commands::LEFT_PAGE_GRACE) ago, that were
    /// silent for longer than the TTL and that grace, or that the registry evicted; the records of
    /// the pages that left go too (they are no longer listed). At most once a second (it walks
    /// every page); returns how many pages' command state it freed.
    pub(crate) fn sweep_pages(&self) -> usize {
        use std::sync::atomic::Ordering;
        let now = util::now_ms();
        let last = self.inner.last_sweep.load(Ordering::Relaxed);
        if now.saturating_sub(last) < 1_000
            || self
                .inner
                .last_sweep
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return 0;
        }
        self.sweep_pages_at(now)
    }

    /// [`sweep_pages`](Self::sweep_pages) at `now`, unthrottled.
    pub(crate) fn sweep_pages_at(&self, now: u64) -> usize {
        let grace = commands::LEFT_PAGE_GRACE.as_millis() as u64;
        let wanted = self.inner.clients.state_wanted(now, grace);
        self.inner.clients.forget_left(now, grace);
        self.inner.commands.retain_pages(|id| wanted.contains(id))
    }

    fn fail_batches_of_gone_page(&self, client: &str) {
        let now = util::now_ms();
        let page = self.inner.clients.page_of(client).unwrap_or_default();
        let named = if page.is_empty() {
            format!("{client:?}")
        } else {
            format!("{client:?} ({page})")
        };
        let queued = format!(
            "The page with client id {named} was closed or navigated away before this batch ran. {}",
            self.open_pages(now)
        );
        let running = format!(
            "The page with client id {named} was closed or navigated away while it ran this batch, and sent no results within {} s. {}",
            commands::GONE_GRACE.as_secs(),
            self.open_pages(now)
        );
        self.inner
            .commands
            .page_gone(client, &queued, &running, commands::GONE_GRACE);
    }

    /// A heartbeat or a poll from `client`, which said it left before: it is back (the
    /// back/forward cache restored it), so the batch it was running waits for its results again.
    pub(crate) fn page_back(&self, client: &str) {
        self.inner.commands.page_back(client);
    }

    pub(crate) fn open_pages(&self, now: u64) -> OpenPages {
        let clients = &self.inner.clients;
        let open = clients
            .all()
            .into_iter()
            .filter(|r| clients.is_alive(r, now))
            .take(10)
            .map(|r| PageSummary {
                client_id: r.client_id,
                page: r.page,
            })
            .collect();
        OpenPages(open)
    }
}

/// `http://host:port/` of a page URL.
fn page_origin(page: &str) -> Option<String> {
    let (scheme, rest) = page.split_once("://")?;
    let host = rest.split(['/', '?', '#', ' ']).next()?;
    (!host.is_empty()).then(|| format!("{scheme}://{host}/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::Heartbeat;
    use serde_json::json;
    use serde_json::Value;
    use std::time::Duration;

    fn agent_with_page(client: &str) -> BrowserAgent {
        let agent = BrowserAgent::builder().enabled(true).page_key("agent-test-key").build();
        let now = util::now_ms();
        let hb = Heartbeat {
            client: client.into(),
            page: format!("http://127.0.0.1/{client}"),
            visible: Some(true),
            ..Default::default()
        };
        agent.clients().heartbeat(&hb, now);
        agent.clients().touch_poll(client, now);
        agent
    }

    #[tokio::test]
    async fn batches_for_a_page_that_left_fail_without_waiting_for_their_timeout() {
        let agent = agent_with_page("p");
        let batch = || Batch::new(vec![json!({"command": "snapshot"})]).timeout(Duration::from_secs(300));
        let queue_of_p = |n: usize| {
            let agent = agent.clone();
            async move {
                let queued = async {
                    while agent.inner.commands.queued_len("p") != n {
                        tokio::task::yield_now().await;
                    }
                };
                tokio::time::timeout(Duration::from_secs(10), queued)
                    .await
                    .unwrap_or_else(|_| panic!("{n} batch(es) never queued for page p"));
            }
        };
        let running = tokio::spawn({
            let agent = agent.clone();
            async move { agent.run(batch()).await }
        });
        queue_of_p(1).await;
        assert!(
            agent.inner.commands.take("p", None).is_some(),
            "the page runs the first batch"
        );
        let queued = tokio::spawn({
            let agent = agent.clone();
            async move { agent.run(batch()).await }
        });
        queue_of_p(1).await;
        agent.page_gone("p");
        let err = queued.await.unwrap().unwrap_err();
        assert!(
            matches!(&err, RunError::PageLeft { message, .. } if message.contains("\"p\" (http://127.0.0.1/p) was closed or navigated away before this batch ran")),
            "{err}"
        );
        // The running one gets the grace in which the page's results may still arrive, then fails
        // with what happened instead of the 300 s timeout.
        let err = running.await.unwrap().unwrap_err();
        assert!(err.to_string().contains("while it ran this batch"), "{err}");
        // Named explicitly, the page fails at once and is not listed as open.
        let err = agent.run(batch().client("p")).await.unwrap_err();
        assert_eq!(
            err,
            RunError::PageClosed {
                client: "p".into(),
                open: Default::default()
            }
        );
        assert!(
            err.to_string()
                .ends_with("closed or navigated away. No page is connected."),
            "{err}"
        );
        assert!(matches!(agent.run(batch()).await, Err(RunError::NoBrowser(_))));
    }

    /// Runs one snapshot batch on `client` straight through the queue, as a page would.
    fn one_batch(agent: &BrowserAgent, client: &str) {
        let q = &agent.inner.commands;
        let ticket = q
            .enqueue(
                client,
                &[json!({"command": "snapshot"})],
                vec![],
                Duration::from_secs(30),
            )
            .unwrap();
        let id = q.take(client, None).unwrap().id;
        let answer =
            json!({"id": id, "steps": [{"index": 0, "command": "snapshot", "result": "main"}], "snapshot": "main"});
        assert!(q.complete(&id, crate::protocol::Results::from_value(answer), vec![]));
        drop(ticket);
    }

    #[test]
    fn the_state_of_a_page_that_left_is_kept_for_the_grace_then_freed() {
        let agent = agent_with_page("old");
        let now = util::now_ms();
        one_batch(&agent, "old");
        agent.clients().heartbeat(
            &Heartbeat {
                client: "live".into(),
                ..Default::default()
            },
            now,
        );
        one_batch(&agent, "live");
        agent.inner.clients.mark_gone("old", now);
        let grace = commands::LEFT_PAGE_GRACE.as_millis() as u64;
        // Just after the navigation its action log is still there (`GET /actions?client=old`).
        assert_eq!(agent.sweep_pages_at(now + grace), 0);
        assert_eq!(agent.inner.commands.actions("old").len(), 1);
        assert!(agent.clients().get("old").is_some(), "listed as gone meanwhile");
        assert_eq!(agent.sweep_pages_at(now + grace + 1), 1);
        assert!(agent.inner.commands.actions("old").is_empty());
        assert!(agent.clients().get("old").is_none(), "no longer listed");
        assert_eq!(
            agent.inner.commands.actions("live").len(),
            1,
            "a live page keeps its own"
        );
        // A page silent past the TTL and the grace is freed too; one the registry evicted at once.
        let ttl = agent.clients().ttl_ms();
        assert_eq!(agent.sweep_pages_at(now + ttl + grace + 1), 1);
        assert_eq!(agent.inner.commands.footprint().0, 0);
        one_batch(&agent, "unlisted");
        assert_eq!(agent.sweep_pages_at(now), 1);
        // A page busy with a batch is never freed, whatever the registry says.
        let _busy = agent
            .inner
            .commands
            .enqueue(
                "old",
                &[json!({"command": "snapshot"})],
                vec![],
                Duration::from_secs(30),
            )
            .unwrap();
        assert_eq!(agent.sweep_pages_at(now + 10 * ttl), 0);
        assert_eq!(agent.inner.commands.footprint().0, 1);
    }

    #[test]
    fn action_logs_are_bounded_in_bytes_across_pages() {
        let agent = agent_with_page("p");
        let q = &agent.inner.commands;
        let step = json!({"command": "evaluate", "script": "1"});
        for n in 0..100 {
            let client = format!("page{n}");
            let _ticket = q
                .enqueue(&client, &vec![step.clone(); 100], vec![], Duration::from_secs(30))
                .unwrap();
            let id = q.take(&client, None).unwrap().id;
            let steps: Vec<Value> = (0..100)
                .map(|i| json!({"index": i, "command": "evaluate", "result": "x".repeat(300)}))
                .collect();
            let answer = json!({"id": id, "steps": steps, "snapshot": ""});
            assert!(q.complete(&id, crate::protocol::Results::from_value(answer), vec![]));
        }
        let (_, _, bytes) = q.footprint();
        assert!(
            bytes <= commands::MAX_ACTION_BYTES && bytes > commands::MAX_ACTION_BYTES / 2,
            "{bytes}"
        );
        assert_eq!(q.actions("page99").len(), 100, "the newest page keeps its log");
        assert!(q.actions("page0").is_empty(), "the oldest one's was dropped");
        assert!(q.actions("page99")[0]["result"].as_str().unwrap().chars().count() <= 200);
    }

    #[test]
    fn sweeps_are_throttled_to_one_a_second() {
        let agent = agent_with_page("p");
        one_batch(&agent, "unlisted");
        assert_eq!(agent.sweep_pages(), 1);
        one_batch(&agent, "unlisted");
        assert_eq!(agent.sweep_pages(), 0, "within the second");
    }
}
