//! [`ClientRegistry`]: one record per page load, heartbeats, liveness, the default target, and
//! the `(clientId, seq)` window that makes retried log batches count once.

use std::collections::{BTreeMap, HashMap, HashSet};

use parking_lot::Mutex;
use serde::Serialize;

use crate::protocol::Phase;
use crate::util::truncate_chars;

/// Runs of seqs remembered above the contiguous prefix, per client, for de-duplication (16 B
/// each: a client's window is at most 2 KiB however many entries it sends or drops).
const SEEN_RUNS: usize = 128;
/// The id dsh-style clients (no `client` parameter) are recorded under.
pub(crate) const ANONYMOUS_CLIENT: &str = "";

/// Whether a page last seen at `last_seen` is alive at `now`: seen within `ttl`, closed interval.
/// Fails closed: never seen (≤ 0) or seen in the future is not alive.
pub(crate) fn is_fresh(last_seen: u64, now: u64, ttl: u64) -> bool {
    last_seen > 0 && now >= last_seen && now - last_seen <= ttl
}

pub(crate) use crate::protocol::Heartbeat;

/// The record of one page load, as [`ClientRegistry`] and `GET {prefix}/page` show it.
///
/// ```
/// use browser_agent_core::adapter::AdapterExt;
/// use browser_agent_core::BrowserAgent;
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let agent = BrowserAgent::builder().enabled(true).page_key("k3y-for-docs").build();
/// let heartbeat = http::Request::get("/browser/probe?key=k3y-for-docs&client=c1&title=Home&visible=1&phase=ready")
///     .header("host", "127.0.0.1:3000")
///     .body(bytes::Bytes::new())
///     .unwrap();
/// agent.handle(heartbeat).await.unwrap();
/// let record = agent.clients().get("c1").unwrap();
/// assert_eq!((record.title.as_str(), record.visible, record.gone), ("Home", true, false));
/// assert_eq!(record.last_poll_at, 0, "it never polled, so it cannot run batches yet");
/// # });
/// ```
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientRecord {
    /// Page load id.
    pub client_id: String,
    /// Page URL (≤ 300 chars).
    pub page: String,
    /// Page title (≤ 300 chars).
    pub title: String,
    /// Life-cycle phase.
    pub phase: Phase,
    /// Why the page's client failed to start (≤ 300 chars; only with [`Phase::Failed`]).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub error: String,
    /// First heartbeat or log, epoch ms.
    pub first_seen_at: u64,
    /// Last heartbeat or log, epoch ms.
    pub last_seen_at: u64,
    /// The tab is visible.
    pub visible: bool,
    /// The page has focus.
    pub focused: bool,
    /// The page runs in an iframe.
    pub in_iframe: bool,
    /// For a page in an iframe: the origin of the page that frames it, as the page's client saw
    /// it (`null` when the browser does not say); empty for a top-level page.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub parent_origin: String,
    /// For a page an agent's step opened (a popup, a new tab): the client id of the page that
    /// opened it, as the new page's client learned it (`docs/popups.md`); empty otherwise.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub opener: String,
    /// The client revision the page runs.
    pub rev: String,
    /// The browser tab's id: page loads in one tab share it.
    pub tab: String,
    /// Last time the page polled for commands, epoch ms (0: it never did, so it cannot run batches).
    pub last_poll_at: u64,
    /// The page said it left (closed, or navigated away: the `gone=1` beacon on `pagehide`). It is
    /// not alive and never a default target until it heartbeats or polls again (the back/forward cache).
    pub gone: bool,
    /// When it said it left (epoch ms; 0 while it has not).
    #[serde(skip)]
    gone_at: u64,
    #[serde(skip)]
    seen: SeenSeqs,
}

impl ClientRecord {
    /// Why this page's client failed to start, if it did: the error its bootstrap reported
    /// ([`Phase::Failed`]), or that it has stayed at [`Phase::Hooked`] for longer than
    /// [`CLIENT_START_TIMEOUT_MS`](crate::protocol::CLIENT_START_TIMEOUT_MS) since it was first seen.
    pub(crate) fn start_failure(&self, now: u64) -> Option<String> {
        match self.phase {
            Phase::Failed => Some(self.error.clone()),
            Phase::Hooked if now.saturating_sub(self.first_seen_at) > crate::protocol::CLIENT_START_TIMEOUT_MS => {
                Some(format!(
                    "it has stayed at phase hooked for {} s and never became ready (the limit is {} s)",
                    now.saturating_sub(self.first_seen_at) / 1000,
                    crate::protocol::CLIENT_START_TIMEOUT_MS / 1000
                ))
            }
            _ => None,
        }
    }
}

/// The seqs of a client stored so far: every seq up to `contiguous`, and disjoint, non-adjacent
/// runs `start..=end` above it (a batch in flight, a retry that overtook another, entries the
/// client dropped).
#[derive(Debug, Clone, Default, PartialEq)]
struct SeenSeqs {
    contiguous: u64,
    above: BTreeMap<u64, u64>,
}

impl SeenSeqs {
    /// Records `seq`; false when it was seen before.
    fn insert(&mut self, seq: u64) -> bool {
        if seq <= self.contiguous {
            return false;
        }
        let before = self.above.range(..=seq).next_back().map(|(&s, &e)| (s, e));
        if before.is_some_and(|(_, end)| seq <= end) {
            return false;
        }
        let mut start = seq;
        if let Some((s, _)) = before.filter(|&(_, e)| e + 1 == seq) {
            self.above.remove(&s);
            start = s;
        }
        let end = self.above.remove(&(seq + 1)).unwrap_or(seq);
        if start == self.contiguous + 1 {
            self.contiguous = end;
        } else {
            self.above.insert(start, end);
        }
        while self.above.len() > SEEN_RUNS {
            // Too many gaps: treat the oldest gap as lost for good.
            if let Some((_, end)) = self.above.pop_first() {
                self.contiguous = end;
            }
        }
        true
    }
}

/// Pages that talked to the host.
///
/// Read it through [`BrowserAgent::clients`](crate::BrowserAgent::clients); pages update it
/// through our routes (heartbeats, polls, log batches).
///
/// ```
/// use browser_agent_core::adapter::AdapterExt;
/// use browser_agent_core::BrowserAgent;
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let agent = BrowserAgent::builder().enabled(true).page_key("k3y-for-docs").build();
/// // The heartbeat the injected client sends every 10 s:
/// let heartbeat = http::Request::get("/browser/probe?key=k3y-for-docs&client=c1&page=http%3A%2F%2F127.0.0.1%3A3000%2F")
///     .header("host", "127.0.0.1:3000")
///     .body(bytes::Bytes::new())
///     .unwrap();
/// agent.handle(heartbeat).await.unwrap();
/// let pages = agent.clients();
/// assert_eq!(pages.get("c1").unwrap().page, "http://127.0.0.1:3000/");
/// assert_eq!(pages.all().len(), 1);
/// # });
/// ```
#[derive(Debug)]
pub struct ClientRegistry {
    inner: Mutex<HashMap<String, ClientRecord>>,
    /// What a previous process of this host stored per client (read back from its NDJSON file):
    /// a client's record starts with it, so that its retried batches still count once.
    carried: Mutex<HashMap<String, SeenSeqs>>,
    max_clients: usize,
    /// Origins whose frames may be default targets (lower case, no trailing `/`).
    frame_parents: Vec<String>,
    /// Applied to each page's URL as it is stored: `/page`, `/console`, MCP and the proof show it,
    /// and `?access_token=…` must not reach them when the log entries hide it.
    redaction: crate::logs::Redaction,
    ttl_ms: u64,
}

impl ClientRegistry {
    /// A registry of at most `max_clients` records with the given liveness TTL.
    pub(crate) fn new(max_clients: usize, ttl_ms: u64) -> Self {
        ClientRegistry {
            inner: Mutex::new(HashMap::new()),
            carried: Mutex::new(HashMap::new()),
            max_clients: max_clients.max(1),
            frame_parents: Vec::new(),
            redaction: crate::logs::Redaction::default(),
            ttl_ms,
        }
    }

    /// The liveness TTL in milliseconds.
    pub(crate) fn ttl_ms(&self) -> u64 {
        self.ttl_ms
    }

    /// How long a page counts as alive after its last heartbeat
    /// ([`client_ttl`](crate::BrowserAgentBuilder::client_ttl), default 60 s).
    ///
    /// ```
    /// let agent = browser_agent_core::BrowserAgent::builder().enabled(true).build();
    /// assert_eq!(agent.clients().ttl().as_secs(), 60);
    /// ```
    pub fn ttl(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.ttl_ms)
    }

    /// Records a (keyed) heartbeat at `now`; returns the updated record. A heartbeat brings a page
    /// that said it left back to life (restored from the back/forward cache), unless it says the page
    /// is hidden: a page sends that one as it unloads, and it may arrive after the `gone` beacon.
    pub(crate) fn heartbeat(&self, hb: &Heartbeat, now: u64) -> ClientRecord {
        let mut map = self.inner.lock();
        let record = self.entry(&mut map, &hb.client, now);
        if hb.visible != Some(false) {
            record.gone = false;
        }
        if !hb.page.is_empty() {
            record.page = self.page_url(&hb.page);
        }
        if !hb.title.is_empty() {
            record.title = bounded(&hb.title);
        }
        if let Some(phase) = hb.phase {
            record.phase = phase;
            if phase == Phase::Failed {
                let why = hb.error.as_deref().map(str::trim).filter(|w| !w.is_empty());
                record.error = bounded(why.unwrap_or("it did not say why"));
            } else {
                record.error.clear();
            }
        }
        if let Some(v) = hb.visible {
            record.visible = v;
        }
        if let Some(f) = hb.focused {
            record.focused = f;
        }
        if let Some(i) = hb.in_iframe {
            record.in_iframe = i;
            if !i {
                record.parent_origin.clear();
            }
        }
        if let Some(parent) = hb.parent.as_deref().filter(|_| record.in_iframe) {
            record.parent_origin = bounded(&parent.trim().to_ascii_lowercase());
        }
        if let Some(opener) = hb.opener.as_deref().filter(|o| !o.is_empty()) {
            record.opener = bounded(opener);
        }
        if let Some(rev) = &hb.rev {
            record.rev = bounded(rev);
        }
        if let Some(tab) = &hb.tab {
            record.tab = bounded(tab);
        }
        record.clone()
    }

    #[cfg(test)]
    /// Marks `client` as seen at `now` (a keyed log batch is proof of life too), setting its page if unknown.
    pub(crate) fn touch(&self, client: &str, page: &str, now: u64) {
        let mut map = self.inner.lock();
        let record = self.entry(&mut map, client, now);
        if record.page.is_empty() && !page.is_empty() {
            record.page = self.page_url(page);
        }
    }

    /// Marks `client` as polling for commands at `now`: a new poll is proof of life, also of a page
    /// that said it left (restored from the back/forward cache).
    pub(crate) fn touch_poll(&self, client: &str, now: u64) {
        let mut map = self.inner.lock();
        let record = self.entry(&mut map, client, now);
        record.last_poll_at = now;
        record.gone = false;
    }

    /// A poll held open ended at `now` with nothing to run: the page was still polling, unless it
    /// said meanwhile that it left (then nothing changes).
    pub(crate) fn poll_ended(&self, client: &str, now: u64) {
        let mut map = self.inner.lock();
        if let Some(record) = map.get_mut(client).filter(|r| !r.gone) {
            record.last_seen_at = record.last_seen_at.max(now);
            record.last_poll_at = now;
        }
    }

    /// Records that `client` left (its `gone` beacon): not alive, never a default target, until a
    /// heartbeat or a new poll from it. Returns the record.
    pub(crate) fn mark_gone(&self, client: &str, now: u64) -> ClientRecord {
        let mut map = self.inner.lock();
        let record = self.entry(&mut map, client, now);
        if !record.gone {
            record.gone_at = now;
        }
        record.gone = true;
        record.clone()
    }

    /// Whether `client` said it left and has not come back.
    pub fn is_gone(&self, client: &str) -> bool {
        self.inner.lock().get(client).is_some_and(|r| r.gone)
    }

    /// For a batch of entries' `(client, seq, page)` (or `None` for entries without both): marks each
    /// client seen, and says per entry whether it is its first delivery. One lock for the batch.
    pub(crate) fn deliveries(&self, origins: &[Option<(&str, u64, &str)>], now: u64) -> Vec<bool> {
        let mut map = self.inner.lock();
        let mut out = Vec::with_capacity(origins.len());
        let mut i = 0;
        while i < origins.len() {
            let Some((client, _, page)) = origins[i] else {
                out.push(true);
                i += 1;
                continue;
            };
            // A batch is nearly always one page's: look its record up once per run of entries.
            let record = self.entry(&mut map, client, now);
            if record.page.is_empty() && !page.is_empty() {
                record.page = self.page_url(page);
            }
            while let Some(Some((c, seq, _))) = origins.get(i) {
                if *c != client {
                    break;
                }
                out.push(record.seen.insert(*seq));
                i += 1;
            }
        }
        out
    }

    #[cfg(test)]
    /// Records that `(client, seq)` was stored; false when it already was (a retried batch).
    pub(crate) fn first_delivery(&self, client: &str, seq: u64, now: u64) -> bool {
        let mut map = self.inner.lock();
        self.entry(&mut map, client, now).seen.insert(seq)
    }

    /// The pages whose per-page state (command queue, action log, snapshot baseline) is still
    /// wanted at `now`: those listed, except the ones that said they left more than `grace_ms`
    /// ago and those silent for longer than the TTL and `grace_ms`. Evicted pages are not listed.
    pub(crate) fn state_wanted(&self, now: u64, grace_ms: u64) -> HashSet<String> {
        let ttl = self.ttl_ms;
        self.inner
            .lock()
            .values()
            .filter(|r| {
                if r.gone {
                    now.saturating_sub(r.gone_at) <= grace_ms
                } else {
                    now.saturating_sub(r.last_seen_at) <= ttl.saturating_add(grace_ms)
                }
            })
            .map(|r| r.client_id.clone())
            .collect()
    }

    /// Forgets the pages that said they left more than `grace_ms` before `now` (they are no longer
    /// listed); returns how many.
    pub(crate) fn forget_left(&self, now: u64, grace_ms: u64) -> usize {
        let mut map = self.inner.lock();
        let before = map.len();
        map.retain(|_, r| !r.gone || now.saturating_sub(r.gone_at) <= grace_ms);
        before - map.len()
    }

    /// The record of `client`.
    pub fn get(&self, client: &str) -> Option<ClientRecord> {
        self.inner.lock().get(client).cloned()
    }

    /// Whether the host keeps a record of `client` (without copying it out, as [`get`](Self::get)
    /// does).
    pub(crate) fn knows(&self, client: &str) -> bool {
        self.inner.lock().contains_key(client)
    }

    /// The page URL of `client`, if known.
    pub fn page_of(&self, client: &str) -> Option<String> {
        self.inner
            .lock()
            .get(client)
            .map(|r| r.page.clone())
            .filter(|p| !p.is_empty())
    }

    /// Every record, most recently seen first.
    pub fn all(&self) -> Vec<ClientRecord> {
        let mut all: Vec<_> = self.inner.lock().values().cloned().collect();
        all.sort_by(|a, b| {
            b.last_seen_at
                .cmp(&a.last_seen_at)
                .then_with(|| a.client_id.cmp(&b.client_id))
        });
        all
    }

    /// Whether `record` is alive at `now`: seen within the TTL, and it has not said it left.
    pub(crate) fn is_alive(&self, record: &ClientRecord, now: u64) -> bool {
        !record.gone && is_fresh(record.last_seen_at, now, self.ttl_ms)
    }

    /// The page commands go to by default: among live pages (not gone), those that poll for commands
    /// first, then visible before hidden, then top-level pages before pages in iframes (a click in a
    /// same-origin iframe makes it the most recently active page, yet the agent means the page around
    /// it), then focused before not, then the most recently seen.
    ///
    /// A visible page in an iframe still beats a hidden top-level page: an app previewed in an
    /// iframe whose parent runs no client is the page the agent means, not a tab left in the background.
    ///
    /// A page framed by another origin (an app embedded by a foreign page) is never the default
    /// target, unless its parent's origin is allowed ([`BrowserAgentBuilder::allow_frame_parent`](crate::BrowserAgentBuilder::allow_frame_parent)):
    /// the agent names it with `client` if it means it.
    pub(crate) fn default_target(&self, now: u64) -> Option<ClientRecord> {
        let rank = |r: &ClientRecord| (r.last_poll_at > 0, r.visible, !r.in_iframe, r.focused, r.last_seen_at);
        self.inner
            .lock()
            .values()
            .filter(|r| self.is_alive(r, now) && !self.foreign_frame(r) && r.start_failure(now).is_none())
            .max_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| b.client_id.cmp(&a.client_id)))
            .cloned()
    }

    /// The most recently seen live page whose client failed to start, and why (see
    /// [`ClientRecord::start_failure`]): what the agent is told when no page can run its batch.
    pub(crate) fn failed_page(&self, now: u64) -> Option<(ClientRecord, String)> {
        self.inner
            .lock()
            .values()
            .filter(|r| self.is_alive(r, now) && !self.foreign_frame(r))
            .filter_map(|r| r.start_failure(now).map(|why| (r, why)))
            .max_by(|(a, _), (b, _)| {
                a.last_seen_at
                    .cmp(&b.last_seen_at)
                    .then_with(|| b.client_id.cmp(&a.client_id))
            })
            .map(|(r, why)| (r.clone(), why))
    }

    /// Seeds the de-duplication with the `(client, seq)` pairs a previous process stored, oldest
    /// first (see [`crate::sinks::delivered_in`]); only the `max_clients` clients seen last are kept.
    pub(crate) fn with_delivered(self, delivered: Vec<(String, u64)>) -> Self {
        let mut last_seen: HashMap<&str, usize> = HashMap::new();
        for (i, (client, _)) in delivered.iter().enumerate() {
            last_seen.insert(client, i);
        }
        let mut recent: Vec<(usize, &str)> = last_seen.into_iter().map(|(c, i)| (i, c)).collect();
        recent.sort_unstable_by(|a, b| b.cmp(a));
        let kept: HashSet<&str> = recent.into_iter().take(self.max_clients).map(|(_, c)| c).collect();
        let mut carried: HashMap<String, SeenSeqs> = HashMap::new();
        for (client, seq) in &delivered {
            if kept.contains(client.as_str()) {
                carried.entry(client.clone()).or_default().insert(*seq);
            }
        }
        *self.carried.lock() = carried;
        self
    }

    /// The redaction applied to the pages' URLs (the host's, as for its log entries).
    pub(crate) fn with_redaction(mut self, redaction: &crate::logs::Redaction) -> Self {
        self.redaction = redaction.clone();
        self
    }

    /// A page URL as stored: secrets redacted, bounded.
    fn page_url(&self, page: &str) -> String {
        bounded(&self.redaction.text(page))
    }

    /// Lets pages framed by these origins be default targets.
    pub(crate) fn with_frame_parents(mut self, origins: &[String]) -> Self {
        self.frame_parents = origins.iter().map(|o| normalize_origin(o)).collect();
        self
    }

    /// Whether `r` runs in a frame of another origin than its own, not allowed as a parent.
    fn foreign_frame(&self, r: &ClientRecord) -> bool {
        if !r.in_iframe || r.parent_origin.is_empty() {
            return false;
        }
        let own = origin_of(&r.page);
        r.parent_origin != own && !self.frame_parents.contains(&r.parent_origin)
    }

    /// The most recently seen page, alive or not.
    pub fn most_recent(&self) -> Option<ClientRecord> {
        self.all().into_iter().next()
    }

    fn entry<'a>(&self, map: &'a mut HashMap<String, ClientRecord>, client: &str, now: u64) -> &'a mut ClientRecord {
        if !map.contains_key(client) && map.len() >= self.max_clients {
            // Evict the page silent the longest.
            if let Some(oldest) = map.values().min_by_key(|r| r.last_seen_at).map(|r| r.client_id.clone()) {
                map.remove(&oldest);
            }
        }
        let record = map.entry(client.to_owned()).or_insert_with(|| ClientRecord {
            client_id: client.to_owned(),
            page: String::new(),
            title: String::new(),
            phase: Phase::Loading,
            error: String::new(),
            first_seen_at: now,
            last_seen_at: now,
            visible: true,
            focused: false,
            in_iframe: false,
            parent_origin: String::new(),
            opener: String::new(),
            rev: String::new(),
            tab: String::new(),
            last_poll_at: 0,
            gone: false,
            gone_at: 0,
            seen: self.carried.lock().remove(client).unwrap_or_default(),
        });
        record.last_seen_at = record.last_seen_at.max(now);
        record
    }
}

fn bounded(s: &str) -> String {
    let mut s = s.to_owned();
    truncate_chars(&mut s, crate::config::PAGE_MAX);
    s
}

/// `HTTP://Host:1/` → `http://host:1`.
pub(crate) fn normalize_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// The origin (`scheme://authority`, lower case) of a URL; empty when it has none.
fn origin_of(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return String::new();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    format!("{scheme}://{authority}").to_ascii_lowercase()
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_page_framed_by_another_origin_is_listed_with_it_and_never_the_default_target() {
        let framed = |client: &str, parent: &str| Heartbeat {
            client: client.into(),
            page: "http://127.0.0.1:3000/app".into(),
            visible: Some(true),
            in_iframe: Some(true),
            parent: Some(parent.into()),
            ..Default::default()
        };
        let reg = ClientRegistry::new(8, 60_000);
        reg.heartbeat(&framed("f", "HTTP://evil.example"), 1_000);
        reg.touch_poll("f", 1_000);
        assert_eq!(reg.get("f").unwrap().parent_origin, "http://evil.example");
        assert!(
            reg.default_target(2_000).is_none(),
            "alone, it is still not the default target"
        );
        // A same-origin frame and an unknown parent (a browser that does not say) stay as before.
        reg.heartbeat(&framed("same", "http://127.0.0.1:3000"), 1_500);
        assert_eq!(reg.default_target(2_000).unwrap().client_id, "same");
        // Allowed parents' frames may be targets.
        let allowed = ClientRegistry::new(8, 60_000).with_frame_parents(&["http://evil.example/".into()]);
        allowed.heartbeat(&framed("f", "http://evil.example"), 1_000);
        assert_eq!(allowed.default_target(2_000).unwrap().client_id, "f");
        // A page that leaves the frame (top-level again) loses its parent.
        let top = Heartbeat {
            client: "f".into(),
            in_iframe: Some(false),
            ..Default::default()
        };
        reg.heartbeat(&top, 1_600);
        assert_eq!(reg.get("f").unwrap().parent_origin, "");
    }
    use super::*;

    #[test]
    fn a_page_an_agent_opened_is_listed_with_its_opener_which_later_heartbeats_keep() {
        let reg = ClientRegistry::new(8, 60_000);
        let popup = Heartbeat {
            client: "p".into(),
            page: "http://127.0.0.1:3000/authorize".into(),
            opener: Some("c1".into()),
            ..Default::default()
        };
        reg.heartbeat(&popup, 1_000);
        assert_eq!(reg.get("p").unwrap().opener, "c1");
        // Its later heartbeats need not say it again; an empty one changes nothing.
        let later = Heartbeat {
            opener: Some(String::new()),
            ..popup.clone()
        };
        reg.heartbeat(&later, 2_000);
        assert_eq!(reg.get("p").unwrap().opener, "c1");
        let json = serde_json::to_value(reg.get("p").unwrap()).unwrap();
        assert_eq!(json["opener"], "c1");
        // A page nobody opened says nothing of it.
        reg.heartbeat(
            &Heartbeat {
                client: "c1".into(),
                ..Default::default()
            },
            1_000,
        );
        assert!(serde_json::to_value(reg.get("c1").unwrap())
            .unwrap()
            .get("opener")
            .is_none());
    }

    #[test]
    fn ttl_is_a_closed_interval_and_fails_closed() {
        assert!(is_fresh(100, 100, 60_000));
        assert!(is_fresh(1_000, 61_000, 60_000)); // exactly the TTL: alive
        assert!(!is_fresh(1_000, 61_001, 60_000));
        assert!(!is_fresh(5_000, 4_000, 60_000)); // a future timestamp is never alive
        assert!(!is_fresh(0, 10, 60_000));
        assert!(is_fresh(100, 60_100, 60_000));
        assert!(!is_fresh(100, 60_101, 60_000));
        assert!(!is_fresh(0, 1, 60_000));
        assert!(!is_fresh(200, 100, 60_000));
    }

    #[test]
    fn default_target_prefers_visible_then_recent() {
        let reg = ClientRegistry::new(8, 60_000);
        let hb = |client: &str, visible: bool| Heartbeat {
            client: client.into(),
            visible: Some(visible),
            ..Default::default()
        };
        reg.heartbeat(&hb("a", true), 1_000);
        reg.heartbeat(&hb("b", false), 2_000);
        assert_eq!(reg.default_target(3_000).unwrap().client_id, "a");
        reg.heartbeat(&hb("c", true), 2_500);
        assert_eq!(reg.default_target(3_000).unwrap().client_id, "c");
        assert_eq!(reg.most_recent().unwrap().client_id, "c");
        reg.touch_poll("b", 2_600);
        assert_eq!(
            reg.default_target(3_000).unwrap().client_id,
            "b",
            "a page that can run commands wins"
        );
        assert!(reg.default_target(70_000).is_none());
    }

    #[test]
    fn default_target_prefers_top_level_pages_over_iframes() {
        let reg = ClientRegistry::new(8, 60_000);
        let hb = |client: &str, visible: bool, focused: bool, in_iframe: bool| Heartbeat {
            client: client.into(),
            visible: Some(visible),
            focused: Some(focused),
            in_iframe: Some(in_iframe),
            ..Default::default()
        };
        reg.heartbeat(&hb("top", true, false, false), 1_000);
        reg.touch_poll("top", 1_000);
        // A click in a same-origin iframe: it is focused and the most recently active page.
        reg.heartbeat(&hb("frame", true, true, true), 2_000);
        reg.touch_poll("frame", 2_000);
        assert_eq!(reg.default_target(3_000).unwrap().client_id, "top");
        // Among top-level pages, the existing preferences decide.
        reg.heartbeat(&hb("top2", true, true, false), 2_500);
        reg.touch_poll("top2", 2_500);
        assert_eq!(reg.default_target(3_000).unwrap().client_id, "top2");
        // Polling and visibility still come first: a visible iframe page beats a hidden tab.
        let reg = ClientRegistry::new(8, 60_000);
        reg.heartbeat(&hb("background-tab", false, false, false), 2_000);
        reg.touch_poll("background-tab", 2_000);
        reg.heartbeat(&hb("preview", true, true, true), 1_000);
        reg.touch_poll("preview", 1_000);
        assert_eq!(reg.default_target(3_000).unwrap().client_id, "preview");
        reg.heartbeat(&hb("not-polling", true, true, false), 2_500);
        assert_eq!(reg.default_target(3_000).unwrap().client_id, "preview");
    }

    #[test]
    fn a_page_that_left_is_not_alive_until_it_heartbeats_or_polls_again() {
        let reg = ClientRegistry::new(8, 60_000);
        let hb = |client: &str, visible: Option<bool>| Heartbeat {
            client: client.into(),
            visible,
            ..Default::default()
        };
        reg.heartbeat(&hb("old", Some(true)), 1_000);
        reg.touch_poll("old", 1_000);
        reg.heartbeat(&hb("other", Some(true)), 500);
        reg.touch_poll("other", 500);
        assert_eq!(reg.default_target(2_000).unwrap().client_id, "old");
        let record = reg.mark_gone("old", 2_000);
        assert!(record.gone && !reg.is_alive(&record, 2_000));
        assert_eq!(
            reg.default_target(2_000).unwrap().client_id,
            "other",
            "a page that left is never the default target, though it was seen last"
        );
        // Neither its late log batches, nor a poll held open from before, nor the hidden heartbeat
        // it sends as it unloads bring it back.
        assert_eq!(reg.deliveries(&[Some(("old", 1, ""))], 2_100), [true]);
        reg.touch("old", "", 2_100);
        reg.poll_ended("old", 2_100);
        reg.heartbeat(&hb("old", Some(false)), 2_100);
        assert!(reg.is_gone("old"));
        assert_eq!(reg.default_target(2_200).unwrap().client_id, "other");
        // Restored from the back/forward cache: a visible heartbeat, or a new poll, revives it.
        reg.heartbeat(&hb("old", Some(true)), 3_000);
        assert!(!reg.is_gone("old"));
        assert_eq!(reg.default_target(3_000).unwrap().client_id, "old");
        reg.mark_gone("old", 3_100);
        reg.touch_poll("old", 3_200);
        assert!(reg.is_alive(&reg.get("old").unwrap(), 3_200));
        reg.mark_gone("old", 3_300);
        reg.heartbeat(&hb("old", None), 3_400);
        assert!(
            !reg.is_gone("old"),
            "a heartbeat that says nothing about visibility revives too"
        );
    }

    #[test]
    fn a_page_whose_client_failed_or_hangs_at_hooked_is_never_the_default_target() {
        let reg = ClientRegistry::new(8, 60_000);
        let hb = |client: &str, phase: Phase, error: Option<&str>| Heartbeat {
            client: client.into(),
            page: format!("http://127.0.0.1:3000/{client}"),
            phase: Some(phase),
            error: error.map(str::to_owned),
            visible: Some(true),
            ..Default::default()
        };
        reg.heartbeat(&hb("bad", Phase::Failed, Some("CompileError: refused")), 1_000);
        assert!(reg.default_target(2_000).is_none());
        let (record, why) = reg.failed_page(2_000).unwrap();
        assert_eq!(
            (record.client_id.as_str(), why.as_str()),
            ("bad", "CompileError: refused")
        );
        reg.heartbeat(&hb("bad", Phase::Failed, None), 1_500);
        assert_eq!(reg.get("bad").unwrap().error, "it did not say why");
        // Hooked is fine until the start timeout has passed since the page was first seen.
        reg.heartbeat(&hb("slow", Phase::Hooked, None), 2_000);
        assert_eq!(reg.default_target(3_000).unwrap().client_id, "slow");
        let late = 2_000 + crate::protocol::CLIENT_START_TIMEOUT_MS + 1_000;
        reg.heartbeat(&hb("slow", Phase::Hooked, None), late);
        assert!(reg.default_target(late).is_none());
        let (record, why) = reg.failed_page(late).unwrap();
        assert_eq!(record.client_id, "slow");
        assert_eq!(
            why,
            "it has stayed at phase hooked for 31 s and never became ready (the limit is 30 s)"
        );
        // Becoming ready clears the failure.
        reg.heartbeat(&hb("bad", Phase::Ready, None), late);
        assert_eq!(reg.get("bad").unwrap().error, "");
        assert_eq!(reg.default_target(late).unwrap().client_id, "bad");
    }

    #[test]
    fn dedup_window() {
        let reg = ClientRegistry::new(8, 60_000);
        assert!(reg.first_delivery("c", 1, 1));
        assert!(reg.first_delivery("c", 3, 1));
        assert!(!reg.first_delivery("c", 1, 1));
        assert!(!reg.first_delivery("c", 3, 1));
        assert!(reg.first_delivery("c", 2, 1));
        assert!(!reg.first_delivery("c", 2, 1));
        assert!(reg.first_delivery("d", 1, 1), "per client");
        let mut seen = SeenSeqs::default();
        for s in (2..=(SEEN_RUNS as u64 + 10) * 2).step_by(2) {
            assert!(seen.insert(s));
        }
        assert!(seen.above.len() <= SEEN_RUNS);
        assert!(!seen.insert(2));
        // Runs merge: filling the gaps leaves one contiguous prefix and nothing above it.
        let mut seen = SeenSeqs::default();
        let order = [5, 3, 9, 4, 1, 8, 2, 7, 6, 6, 1, 10, 9];
        let first: Vec<bool> = order.iter().map(|&s| seen.insert(s)).collect();
        let mut expected = [true; 13];
        (expected[9], expected[10], expected[12]) = (false, false, false);
        assert_eq!(first, expected);
        assert_eq!((seen.contiguous, seen.above.len()), (10, 0));
        // Against a set, in a shuffled order with retries: the same answers while gaps are few.
        let mut seen = SeenSeqs::default();
        let mut model = HashSet::new();
        let mut x: u64 = 12345;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 33
        };
        for block in 0..100u64 {
            // Each block of 100 seqs arrives shuffled, each one followed by a retry of an earlier one.
            let mut seqs: Vec<u64> = (block * 100 + 1..=block * 100 + 100).collect();
            for i in (1..seqs.len()).rev() {
                seqs.swap(i, next() as usize % (i + 1));
            }
            for seq in seqs {
                assert_eq!(seen.insert(seq), model.insert(seq), "{seq}");
                let retry = 1 + next() % seq;
                assert_eq!(seen.insert(retry), model.insert(retry), "retry {retry}");
            }
        }
        assert_eq!((seen.contiguous, seen.above.len()), (10_000, 0));
        assert!(seen.above.len() <= SEEN_RUNS);
    }

    #[test]
    fn batch_deliveries_mix_clients_and_entries_without_origin() {
        let reg = ClientRegistry::new(8, 60_000);
        let origins = [
            Some(("a", 1, "http://a/")),
            Some(("a", 2, "")),
            None,
            Some(("b", 1, "http://b/")),
            Some(("a", 2, "")),
            Some(("a", 3, "")),
            Some(("a", 3, "")),
        ];
        assert_eq!(
            reg.deliveries(&origins, 5),
            [true, true, true, true, false, true, false]
        );
        assert_eq!(reg.get("a").unwrap().page, "http://a/");
        assert_eq!(reg.get("b").unwrap().page, "http://b/");
    }

    #[test]
    fn registry_is_bounded_and_pages_are_cut() {
        let reg = ClientRegistry::new(2, 60_000);
        for (i, c) in ["a", "b", "c"].iter().enumerate() {
            reg.heartbeat(
                &Heartbeat {
                    client: (*c).into(),
                    page: "x".repeat(400),
                    ..Default::default()
                },
                10 + i as u64,
            );
        }
        assert_eq!(reg.all().len(), 2);
        assert!(reg.get("a").is_none());
        assert_eq!(reg.get("c").unwrap().page.len(), 300);
    }
}
