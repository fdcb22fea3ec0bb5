//! Harness for the real-Chromium end-to-end tests, the one home of their helpers: a chromedriver +
//! headless Chromium pair that is always killed (process group) when the guard drops, the test
//! app served on loopback from its own runtime thread (so stopping it really drops every
//! connection, like a dev server restart), the agent API as the tests drive it ([`run`], [`ok`],
//! [`fails`], [`eval`], [`snapshot`], [`ref_of`]), and the WebDriver side ([`open`], [`exec`],
//! [`client_id`], [`COPY_BOOTSTRAP`]). HTTP goes through the test kit's client.
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms, unreachable_pub)]

pub mod image;

use std::net::{SocketAddr, TcpListener as StdListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use browser_agent_core::BrowserAgent;
pub use browser_agent_testkit::http::{get as http_get, post_json as http_post_json};
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};

/// Where Debian puts the browser and its driver (`scripts/install-tools` installs both).
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// See [`CHROMIUM`].
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The page key every test host uses, so a restarted host accepts the same page.
pub const PAGE_KEY: &str = "fixed-key-for-test";
/// The route prefix.
pub const PREFIX: &str = browser_agent_core::protocol::DEFAULT_PREFIX;

/// The fixture pages served with the agent injected.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A running chromedriver with one headless Chromium session; killed on drop.
pub struct Browser {
    /// The WebDriver session.
    pub client: Client,
    driver: Child,
    /// chromedriver's port on 127.0.0.1.
    port: u16,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium with a fresh profile under `scratch`.
    /// Panics (never skips) when Chromium or chromedriver is missing.
    pub async fn launch(scratch: &Path) -> Browser {
        Browser::launch_with(scratch, &[]).await
    }

    /// [`Browser::launch`] with `extra` Chromium switches after the usual ones (e.g.
    /// `--hide-scrollbars`, `--enable-blink-features=CanvasDrawElement`).
    pub async fn launch_with(scratch: &Path, extra: &[&str]) -> Browser {
        Browser::launch_excluding(scratch, extra, &[]).await
    }

    /// [`Browser::launch_with`] without the switches chromedriver adds by default that `excluded`
    /// names (`excludeSwitches`): `disable-popup-blocking` gives the popup blocker of a person's
    /// Chrome back (chromedriver, Playwright and Puppeteer all turn it off).
    pub async fn launch_excluding(scratch: &Path, extra: &[&str], excluded: &[&str]) -> Browser {
        for bin in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(bin).exists(),
                "{bin} is missing: the browser tests need Debian's chromium and chromium-driver; run scripts/install-tools"
            );
        }
        let port = free_port();
        let log = std::fs::File::create(scratch.join("chromedriver.log")).expect("driver log");
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .arg("--verbose")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log fd"))
            .stderr(log)
            // Its own process group: the guard kills the driver and every browser process at once.
            .process_group(0)
            .spawn()
            .expect("start chromedriver");
        let mut guard = DriverGuard(Some(driver));
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen on port {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = scratch.join(format!("profile-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).expect("profile dir");
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage",
                    format!("--user-data-dir={}", profile.display()),
                    // 127.0.0.2 is the tests' second site (another loopback origin).
                    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE 127.0.0.2",
                ],
            },
        });
        let mut caps = caps;
        if let Some(args) = caps["goog:chromeOptions"]["args"].as_array_mut() {
            args.extend(extra.iter().map(|a| json!(a)));
        }
        if !excluded.is_empty() {
            caps["goog:chromeOptions"]["excludeSwitches"] = json!(excluded);
        }
        let caps = caps.as_object().expect("object").clone().into_iter().collect();
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("open a Chromium session through chromedriver");
        let session = client
            .session_id()
            .await
            .expect("session id")
            .expect("a WebDriver session");
        let driver = guard.0.take().expect("driver");
        watch_for_exit(driver.id(), port, &session, scratch);
        Browser { client, driver, port }
    }

    /// One Chrome DevTools Protocol command on the page, through chromedriver's
    /// `goog/cdp/execute`; its result.
    pub async fn cdp(&self, cmd: &str, params: Value) -> Value {
        let (status, text) = self.cdp_unchecked(cmd, params).await;
        assert_eq!(status, 200, "{cmd}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{cmd} answer is JSON ({e}): {text}"));
        v["value"].clone()
    }

    /// [`Browser::cdp`] for a command that may end the page it runs on (`Page.crash`): whatever
    /// chromedriver answers (its status and body) is returned, not checked.
    pub async fn cdp_unchecked(&self, cmd: &str, params: Value) -> (u16, String) {
        let session = self
            .client
            .session_id()
            .await
            .expect("session id")
            .expect("a WebDriver session");
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        let path = format!("/session/{session}/goog/cdp/execute");
        let body = json!({ "cmd": cmd, "params": params }).to_string();
        tokio::task::spawn_blocking(move || http_post_json(addr, &path, &body))
            .await
            .expect("cdp thread")
    }

    /// Ends the session (Chromium quits), then the guard kills whatever is left.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        kill_group(&mut self.driver);
    }
}

struct DriverGuard(Option<Child>);

impl Drop for DriverGuard {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            kill_group(child);
        }
    }
}

fn kill_group(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

/// A browser kept for the whole test binary (see [`shared_browser`]) is never dropped: a small
/// watcher in a process group of its own waits until this process has ended, however it ended,
/// then ends the WebDriver session (Chromium quits, its crash handlers too), kills what is left of
/// the driver's group and removes `scratch`.
fn watch_for_exit(driver_group: u32, port: u16, session: &str, scratch: &Path) {
    let script = format!(
        "while kill -0 {me} 2>/dev/null; do sleep 1; done; \
         {{ exec 3<>/dev/tcp/127.0.0.1/{port} && \
           printf 'DELETE /session/{session} HTTP/1.1\\r\\nHost: 127.0.0.1:{port}\\r\\nConnection: close\\r\\n\\r\\n' >&3 && \
           timeout 10 cat <&3 >/dev/null; }} 2>/dev/null; \
         /bin/kill -KILL -- -{driver_group} 2>/dev/null; rm -rf '{dir}'",
        me = std::process::id(),
        dir = scratch.display()
    );
    let _ = Command::new("bash")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
}

fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// The agent every test host uses: enabled explicitly (so `cargo test --release` tests it too),
/// with a fixed page key.
pub fn agent() -> BrowserAgent {
    BrowserAgent::builder().enabled(true).page_key(PAGE_KEY).build()
}

/// Which demo serves the page: the browser end-to-end tests run against both adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framework {
    /// `browser_agent_testkit::axum_app` (the tower layer).
    Axum,
    /// `browser_agent_testkit::actix_app` (the actix middleware).
    Actix,
}

/// The test app with the agent, serving the fixtures, on its own runtime thread.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The agent it serves (a shared handle: its memory outlives the server).
    pub agent: BrowserAgent,
    /// Which demo it is.
    pub framework: Framework,
    running: Option<browser_agent_testkit::RunningServer>,
}

impl Server {
    /// Serves the test app of `framework` on `addr` (port 0 for any free port); a restarted host
    /// retries the port the old one just released.
    pub fn start_on(framework: Framework, agent: BrowserAgent, addr: SocketAddr) -> Server {
        let spawn = match framework {
            Framework::Axum => browser_agent_testkit::axum_app::spawn,
            Framework::Actix => browser_agent_testkit::actix_app::spawn,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        let running = loop {
            match spawn(agent.clone(), Some(fixtures_dir()), addr) {
                Ok(r) => break r,
                Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
                Err(e) => panic!("bind {addr}: {e}"),
            }
        };
        Server {
            addr: running.addr,
            agent,
            framework,
            running: Some(running),
        }
    }

    /// A test app of the test's own (e.g. `browser_agent_testkit::axum_app::serve` of a router
    /// with the layer for `agent`) as a [`Server`] of the axum kind.
    pub fn from_running(agent: BrowserAgent, running: browser_agent_testkit::RunningServer) -> Server {
        Server {
            addr: running.addr,
            agent,
            framework: Framework::Axum,
            running: Some(running),
        }
    }

    /// Serves the axum test app on `addr` (port 0 for any free port).
    pub fn start(agent: BrowserAgent, addr: SocketAddr) -> Server {
        Server::start_on(Framework::Axum, agent, addr)
    }

    /// Stops the server and drops all its connections.
    pub fn stop(mut self) {
        self.running.take();
    }

    /// `http://127.0.0.1:port{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// GET `{prefix}/console?…` as JSON.
    pub fn console(&self, query: &str) -> Value {
        let (status, body) = http_get(self.addr, &format!("{PREFIX}/console?{query}"));
        assert_eq!(status, 200, "GET console: {body}");
        serde_json::from_str(&body).expect("console JSON")
    }

    /// `GET {prefix}/page` as JSON.
    pub fn pages(&self) -> Value {
        let (status, body) = http_get(self.addr, &format!("{PREFIX}/page"));
        assert_eq!(status, 200, "GET page: {body}");
        serde_json::from_str(&body).expect("page JSON")
    }

    /// Waits (up to 15 s) until `GET {prefix}/page` lists `client` as alive.
    pub async fn wait_listed(&self, client: &str) {
        wait_for(
            &format!("the host to list page {client}"),
            Duration::from_secs(15),
            || {
                let pages = self.pages();
                let listed = pages["pages"]
                    .as_array()
                    .is_some_and(|ps| ps.iter().any(|p| p["clientId"] == client && p["alive"] == true));
                listed.then_some(())
            },
        )
        .await;
    }

    /// The logs of one client, oldest first.
    pub fn logs_of(&self, client: &str) -> Vec<Value> {
        let v = self.console(&format!("limit=500&client={client}"));
        v["logs"]
            .as_array()
            .expect("logs array")
            .iter()
            .filter(|e| e["clientId"] == client)
            .cloned()
            .collect()
    }
}

/// The pinned npm packages of `browser-tests/{name}-npm/` (third-party pages and libraries the
/// tests load): `npm ci` into `target/{name}-npm` when the lock there differs, then linked into the
/// fixtures as `fixtures/{name}/npm`. Returns the installed `node_modules`. Call it once per test
/// binary (behind a `OnceLock`).
pub fn npm_fixtures(name: &str) -> PathBuf {
    npm_fixtures_at(name, name)
}

/// [`npm_fixtures`] for a set whose fixtures folder has another name: `browser-tests/{name}-npm/`
/// installed into `target/{name}-npm`, linked as `fixtures/{fixtures}/npm`.
pub fn npm_fixtures_at(name: &str, fixtures: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("{name}-npm"));
    let dest = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../target/{name}-npm"));
    std::fs::create_dir_all(&dest).unwrap_or_else(|e| panic!("target/{name}-npm: {e}"));
    let lock = src.join("package-lock.json");
    let installed = dest.join("package-lock.json");
    let fresh = std::fs::read(&lock).ok() == std::fs::read(&installed).ok() && dest.join("node_modules").is_dir();
    if !fresh {
        let _ = std::fs::remove_dir_all(dest.join("node_modules"));
        for f in [".npmrc", "package.json", "package-lock.json"] {
            if !src.join(f).exists() {
                continue;
            }
            std::fs::copy(src.join(f), dest.join(f)).unwrap_or_else(|e| panic!("copy {f}: {e}"));
        }
        let status = Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"])
            .current_dir(&dest)
            .status()
            .unwrap_or_else(|e| panic!("run npm (the {name} tests need node and npm): {e}"));
        assert!(status.success(), "npm ci in {} failed: {status}", dest.display());
    }
    let modules: PathBuf = dest.join("node_modules").canonicalize().expect("node_modules");
    let link = fixtures_dir().join(format!("{fixtures}/npm"));
    if std::fs::read_link(&link).ok().as_deref() != Some(modules.as_path()) {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&modules, &link).unwrap_or_else(|e| panic!("link fixtures/{fixtures}/npm: {e}"));
    }
    modules
}

/// Any free port on 127.0.0.1.
pub fn any_port() -> SocketAddr {
    "127.0.0.1:0".parse().expect("loopback address")
}

/// Polls `f` every 100 ms until it returns `Some`, or panics with `what` after `timeout`.
pub async fn wait_for<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the wasm client runs in the current page and the host lists it as an alive page
/// (its first heartbeat arrived, so a `POST {prefix}/run` for it is not a 503); its `clientId`.
pub async fn client_id(client: &Client, server: &Server) -> String {
    let id = started_client(
        client,
        "var g = window.__browserAgent; return g && g.h ? g.clientId : null;",
        "the page",
    )
    .await;
    server.wait_listed(&id).await;
    id
}

/// Waits until `script` (returning the `clientId` of a started client, or null) gives an id.
pub async fn started_client(client: &Client, script: &str, where_: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let v = client.execute(script, vec![]).await.expect("execute");
        if let Some(id) = v.as_str() {
            return id.to_owned();
        }
        assert!(Instant::now() < deadline, "the wasm client did not start in {where_}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The median of benchmark samples (the mean of the two middle ones when their count is even;
/// NaN when there are none); sorts `v`.
///
/// ```
/// assert_eq!(browser_tests::median(&mut [3.0, 1.0, 2.0]), 2.0);
/// assert_eq!(browser_tests::median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
/// assert!(browser_tests::median(&mut []).is_nan());
/// ```
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The scratch folder for profiles and logs (under target/).
pub fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../target/browser-tests")
        .join(format!("run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.canonicalize().expect("scratch dir path")
}

/// `POST {prefix}/run` with `body` (off the async threads: it may wait up to 60 s); the status and
/// the parsed answer.
pub async fn run_raw(server: &Server, body: Value) -> (u16, Value) {
    let addr = server.addr;
    let (status, text) =
        tokio::task::spawn_blocking(move || http_post_json(addr, &format!("{PREFIX}/run"), &body.to_string()))
            .await
            .expect("run thread");
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("run answer is JSON ({e}): {text}"));
    (status, v)
}

/// `POST {prefix}/run` with `steps` (for `client`, if given) that must complete; the answer and how
/// long it took. A failure shows what the page logged, which says why it did not answer.
pub async fn run_timed(server: &Server, client: Option<&str>, steps: Value) -> (Value, Duration) {
    let mut body = json!({ "steps": &steps });
    if let Some(c) = client {
        body["client"] = json!(c);
    }
    let t0 = Instant::now();
    let (status, v) = run_raw(server, body).await;
    let took = t0.elapsed();
    if status != 200 {
        panic!(
            "POST /run {steps}: {status} {v}\npage logs: {}",
            server.console("limit=30")
        );
    }
    assert_eq!(v["event"], "browser-completed", "{v}");
    (v, took)
}

/// [`run_timed`] for `client`, without the time.
pub async fn run(server: &Server, client: &str, steps: Value) -> Value {
    run_timed(server, Some(client), steps).await.0
}

/// Runs one step that must succeed; its result.
pub async fn ok(server: &Server, client: &str, step: Value) -> Value {
    let v = run(server, client, json!([step])).await;
    let s = &v["steps"][0];
    assert!(s["error"].is_null(), "step {step} failed: {}", s["error"]);
    s.clone()
}

/// Runs one step that must fail; its error message.
pub async fn fails(server: &Server, client: &str, step: Value) -> String {
    let v = run(server, client, json!([step])).await;
    let s = &v["steps"][0];
    s["error"]
        .as_str()
        .unwrap_or_else(|| panic!("step {step} should fail: {s}"))
        .to_owned()
}

/// The page's value of a JS expression, read with an `evaluate` step.
pub async fn eval(server: &Server, client: &str, expr: &str) -> Value {
    ok(server, client, json!({"command": "evaluate", "script": expr})).await["result"].clone()
}

/// Reads the page's value of `expr` (with [`eval`]) until `check` accepts it, for apps that update
/// asynchronously; the value. Fails after 10 s naming `what` and the last value.
pub async fn eval_until(
    server: &Server,
    client: &str,
    expr: &str,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let v = eval(server, client, expr).await;
        if check(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: the page has {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// An MCP `tools/call` of `tool` with `args` on the server's endpoint (blocking); the JSON-RPC
/// `result` (`content`, `isError`).
pub fn mcp_tool(server: &Server, tool: &str, args: Value) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": args}});
    let res = browser_agent_testkit::http::request(
        server.addr,
        "POST",
        &format!("{PREFIX}/mcp"),
        &[
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ],
        call.to_string().as_bytes(),
    );
    assert_eq!(res.status, 200, "{}", res.text());
    res.json()["result"].clone()
}

/// A full snapshot of `client`'s page through `POST /run` (one `snapshot` step).
pub async fn snapshot(server: &Server, client: &str) -> String {
    let v = run(server, client, json!([{ "command": "snapshot" }])).await;
    v["steps"][0]["result"]
        .as_str()
        .unwrap_or_else(|| panic!("snapshot step has a text result: {v}"))
        .to_owned()
}

/// The ref on the first line of a snapshot `text` that contains `needle`.
pub fn ref_in(text: &str, needle: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"));
    let start = line.rfind("[ref=").unwrap_or_else(|| panic!("no ref on {line:?}")) + 5;
    line[start..].split(']').next().expect("a ref").to_owned()
}

/// The ref of the first line containing `needle` in a fresh snapshot of `client`'s page.
pub async fn ref_of(server: &Server, client: &str, needle: &str) -> String {
    ref_in(&snapshot(server, client).await, needle)
}

/// Runs `script` in the page (WebDriver); its value.
pub async fn exec(client: &Client, script: &str) -> Value {
    client
        .execute(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

/// Runs `script` in the page with a callback (`arguments[arguments.length - 1]`); what it passed.
pub async fn exec_async(client: &Client, script: &str) -> Value {
    client
        .execute_async(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("async script failed: {e}\n{script}"))
}

/// Opens `path` of `server` and waits for its client (see [`client_id`]); the client id.
pub async fn open(client: &Client, server: &Server, path: &str) -> String {
    client.goto(&server.url(path)).await.unwrap();
    client_id(client, server).await
}

/// A JS function for scripts run in the page: `copyBootstrap(fw)` runs a copy of the page's
/// injected bootstrap (without a client: `client` emptied) in the same-origin frame window `fw`.
pub const COPY_BOOTSTRAP: &str = r#"
function copyBootstrap(fw) {
  const tag = document.querySelector('script[data-browser-agent]');
  const cfg = JSON.parse(tag.getAttribute('data-browser-agent'));
  cfg.client = '';
  const copy = fw.document.createElement('script');
  copy.setAttribute('data-browser-agent', JSON.stringify(cfg));
  copy.textContent = tag.textContent;
  fw.document.head.appendChild(copy);
}
"#;

/// The browser the tests of one test binary share, launched by the first test that asks, with a
/// turn: each test holds it while it runs (tests of a binary may run on parallel threads), so one
/// scenario drives the tab at a time. The session lives on a runtime of its own, which outlives
/// every test's runtime; the process group is killed when the binary ends (see `watch_for_exit`).
pub struct SharedBrowser {
    _turn: tokio::sync::MutexGuard<'static, ()>,
    browser: &'static Browser,
}

impl std::ops::Deref for SharedBrowser {
    type Target = Browser;
    fn deref(&self) -> &Browser {
        self.browser
    }
}

static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
static SHARED: std::sync::OnceLock<Browser> = std::sync::OnceLock::new();
static SESSION_RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();

/// Waits for its turn and returns the shared browser (see [`SharedBrowser`]).
pub async fn shared_browser() -> SharedBrowser {
    let turn = TURN.lock().await;
    if SHARED.get().is_none() {
        // Launched on the session runtime, from a thread of its own (this one runs a test's
        // runtime, which cannot block on another).
        let browser = std::thread::spawn(|| {
            let rt = SESSION_RUNTIME.get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build()
                    .expect("session runtime")
            });
            rt.block_on(Browser::launch(&scratch()))
        })
        .join()
        // Its panic (Chromium missing, no session) is this test's, with its message.
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let _ = SHARED.set(browser);
    }
    SharedBrowser {
        _turn: turn,
        browser: SHARED.get().expect("the shared browser"),
    }
}

/// How long one Chromium scenario may take before it fails (by name) instead of blocking the run.
pub const SCENARIO_DEADLINE: Duration = Duration::from_secs(120);

/// Runs `scenario`, failing with `name` if it takes longer than `deadline`.
pub async fn within<T>(name: &str, deadline: Duration, scenario: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(deadline, scenario).await {
        Ok(v) => v,
        Err(_) => panic!("{name} did not finish within {deadline:?} (a hang, not a slow machine, at this bound)"),
    }
}

/// One Chromium scenario as its own test: the shared browser (its turn), a fresh test app of
/// `framework` on a free port, and the body with a deadline ([`SCENARIO_DEADLINE`]):
/// `chromium_test!(name, Framework::Axum, |client, server| body);` (the body owns `server`).
#[macro_export]
macro_rules! chromium_test {
    ($name:ident, $framework:expr, |$client:ident, $server:ident| $body:expr) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let browser = $crate::shared_browser().await;
            let $server = $crate::Server::start_on($framework, $crate::agent(), $crate::any_port());
            let $client = &browser.client;
            $crate::within(stringify!($name), $crate::SCENARIO_DEADLINE, async move { $body }).await;
        }
    };
}
