//! The wasm client in real headless Chromium against the axum and the actix demo: capture of every kind of entry
//! exactly once and in order (from before the wasm loads to after), a host restart under a page
//! that keeps logging, a reload without double wrapping, and the cost figures.
//!
//! One browser serves every case (one test function runs them in sequence), which keeps the suite
//! at a few seconds of Chromium time on a 2-core machine.

use std::collections::BTreeSet;
use std::time::Duration;

use browser_tests::Framework::{Actix, Axum};
use browser_tests::{agent, any_port, chromium_test, client_id, exec, exec_async, wait_for, Server, COPY_BOOTSTRAP};
use fantoccini::{Client, Locator};
use serde_json::Value;

fn text(e: &Value) -> &str {
    e["text"].as_str().unwrap_or("")
}

fn summary(logs: &[Value]) -> String {
    logs.iter()
        .map(|e| format!("  {} {} {}", e["type"], e["level"], text(e)))
        .collect::<Vec<_>>()
        .join("\n")
}

// Each scenario is its own test, on the binary's shared browser, each with a fresh test app; the
// same cases run through both adapters: a difference between them is a failure.
chromium_test!(axum_captures_everything_once_in_order, Axum, |c, server| {
    capture_everything_once_in_order(c, &server).await
});
chromium_test!(actix_captures_everything_once_in_order, Actix, |c, server| {
    capture_everything_once_in_order(c, &server).await
});
chromium_test!(axum_reload_does_not_wrap_twice, Axum, |c, server| {
    reload_does_not_wrap_twice(c, &server).await
});
chromium_test!(actix_reload_does_not_wrap_twice, Actix, |c, server| {
    reload_does_not_wrap_twice(c, &server).await
});
chromium_test!(axum_host_restart_loses_and_doubles_nothing, Axum, |c, server| {
    host_restart_loses_and_doubles_nothing(c, server).await;
});
chromium_test!(actix_host_restart_loses_and_doubles_nothing, Actix, |c, server| {
    host_restart_loses_and_doubles_nothing(c, server).await;
});
chromium_test!(costs_of_capture, Axum, |c, server| costs(c, &server).await);

/// One expected entry: its type, level, and a piece of its text.
struct Expect(&'static str, &'static str, &'static str);

async fn capture_everything_once_in_order(client: &Client, server: &Server) {
    client.goto(&server.url("/capture.html")).await.unwrap();
    let id = client_id(client, server).await;
    let tags = exec(
        client,
        "return document.querySelectorAll('script[data-browser-agent]').length",
    )
    .await;
    assert_eq!(tags, 1, "exactly one injected tag");

    let outcome = exec_async(
        client,
        &[COPY_BOOTSTRAP, r#"
        const done = arguments[arguments.length - 1];
        const tick = (ms) => new Promise(r => setTimeout(r, ms));
        (async () => {
          const o = {name: 'obj', n: 1, nested: {deep: [1, 2, {x: 'y'}]}};
          o.self = o;
          Object.defineProperty(o, 'bad', {enumerable: true, get() { throw new Error('getter boom'); }});
          const revocable = Proxy.revocable({}, {});
          revocable.revoke();
          // A getter that would log: never run by the serializer (shown as [Getter]).
          const noisy = {};
          Object.defineProperty(noisy, 'noisy', {enumerable: true, get() { console.log('from a getter'); return 1; }});
          console.log('late log', o, document.getElementById('save'), Symbol('sym'), function namedFn() {}, 42, null, undefined,
            Array.from({length: 35}, (_, i) => i), new Map([[1, 2]]), new Set([1]), new Date(0), revocable.proxy, noisy);
          console.info('late info');
          console.warn('late warn');
          console.error('late error', new Error('late boom'));
          console.debug('late debug');
          window.throwLater();
          await tick(50);
          window.rejectLater();
          await tick(50);
          // A failed fetch is logged once its body (first 1000 chars) has been read: let each
          // settle before the next so that the expected order is well defined.
          const r1 = await fetch('/missing-fetch');
          await tick(50);
          const r2 = await fetch(new Request('/missing-request', {method: 'POST', body: 'x'}));
          await tick(50);
          let rejected = '';
          try { await fetch('http://unreachable.invalid/x'); } catch (e) { rejected = e.name; }
          // A fetch that throws synchronously (a polyfill or an earlier wrapper): in a fresh
          // same-origin iframe whose fetch throws, run a copy of the bootstrap (no client).
          const frame = document.createElement('iframe');
          document.body.appendChild(frame);
          const fw = frame.contentWindow;
          const thrown = new TypeError('sync throw');
          fw.fetch = function () { throw thrown; };
          copyBootstrap(fw);
          let syncThrow = '';
          try { fw.fetch('/sync-throw'); } catch (e) { syncThrow = e === thrown ? 'same' : 'other'; }
          syncThrow += fw.__browserAgent.inflight === 0 && fw.fetch !== fw.__browserAgent.o.fetch ? '' : ' leaked';
          frame.remove();
          const xhr = await new Promise(res => {
            const x = new XMLHttpRequest();
            x.open('get', '/missing-xhr');
            x.onloadend = () => res(x.status);
            x.send();
          });
          await tick(50);
          // A rejection with a plain object: its JSON, not [object Object].
          window.rejectObject();
          await tick(50);
          // The page's own request whose path merely contains one of ours is still the page's.
          await fetch('/api/browser/probe-status');
          await tick(100);
          done({r1: r1.status, r2: r2.status, rejected, syncThrow, xhr, inflight: window.__browserAgent.inflight});
        })().catch(e => done({error: String(e && e.stack || e)}));
        "#].concat(),
    )
    .await;
    assert_eq!(outcome["error"], Value::Null, "page script: {outcome}");
    assert_eq!(outcome["r1"], 404, "{outcome}");
    assert_eq!(outcome["r2"], 404, "{outcome}");
    assert_eq!(
        outcome["rejected"], "TypeError",
        "a failing fetch still rejects as before"
    );
    assert_eq!(
        outcome["syncThrow"], "same",
        "a synchronous throw from fetch is rethrown unchanged"
    );
    assert_eq!(outcome["xhr"], 404);
    assert_eq!(outcome["inflight"], 0, "the in-flight counter never leaks");

    client
        .find(Locator::Css("#save span"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    exec(client, "history.pushState({}, '', '/capture.html?step=2')").await;

    let expected = [
        Expect("console", "log", "early log 1 {\"a\":1}"),
        Expect("console", "info", "early info"),
        Expect("console", "warn", "early warn"),
        Expect("console", "error", "early error Error: early boom"),
        Expect("console", "debug", "early debug"),
        Expect("console", "log", "late log"),
        Expect("console", "info", "late info"),
        Expect("console", "warn", "late warn"),
        Expect("console", "error", "late error Error: late boom"),
        Expect("console", "debug", "late debug"),
        Expect("error", "error", "uncaught late"),
        Expect("error", "error", "rejected late"),
        Expect("network", "", "/missing-fetch"),
        Expect("network", "", "/missing-request"),
        Expect("network", "", "unreachable.invalid"),
        Expect("network", "", "/missing-xhr"),
        Expect("error", "error", "{\"code\":42}"),
        Expect("network", "", "/api/browser/probe-status"),
        Expect("interaction", "", "Save"),
        Expect("navigation", "", "step=2"),
    ];
    wait_for("every entry of the capture page", Duration::from_secs(15), || {
        let logs = server.logs_of(&id);
        logs.iter().any(|e| e["type"] == "navigation").then_some(())
    })
    .await;
    // Give a late duplicate (a retry gone wrong) the chance to show up before counting.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let logs = server.logs_of(&id);
    assert_eq!(
        logs.len(),
        expected.len(),
        "every event exactly once, and none of our own requests:\n{}",
        summary(&logs)
    );
    for (i, (got, want)) in logs.iter().zip(&expected).enumerate() {
        assert_eq!(got["type"], want.0, "entry {i} type:\n{}", summary(&logs));
        if !want.1.is_empty() {
            assert_eq!(got["level"], want.1, "entry {i} level:\n{}", summary(&logs));
        }
        assert!(
            text(got).contains(want.2),
            "entry {i}: {:?} should contain {:?}\n{}",
            text(got),
            want.2,
            summary(&logs)
        );
        assert!(got["t"].as_u64().unwrap_or(0) > 1_600_000_000_000, "entry {i} has t");
        assert!(
            got["page"].as_str().unwrap_or("").contains("/capture.html"),
            "entry {i} page: {got}"
        );
    }

    // Serialized arguments: bounded JSON, cycles, throwing getter, DOM node, symbol, function.
    let args: Vec<&str> = logs[5]["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().unwrap_or(""))
        .collect();
    assert_eq!(args[0], "late log");
    for piece in [
        "\"self\":\"[Circular]\"",
        // Getters are shown, never run (running them could change the page).
        "\"bad\":\"[Getter]\"",
        "\"deep\":[1,2,{\"x\":\"y\"}]",
    ] {
        assert!(args[1].contains(piece), "{piece} in {}", args[1]);
    }
    assert_eq!(
        &args[2..],
        [
            "<button#save.primary>",
            "Symbol(sym)",
            "[Function: namedFn]",
            "42",
            "null",
            "undefined",
            "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,\"… 5 more\"]",
            "[Map(1)]",
            "[Set(1)]",
            "1970-01-01T00:00:00.000Z",
            "\"[Object]\"",
            "{\"noisy\":\"[Getter]\"}"
        ]
    );
    let early_error = logs[3]["args"][1].as_str().unwrap_or("");
    assert!(
        early_error.contains("early boom") && early_error.contains("capture.html"),
        "stack: {early_error}"
    );

    let uncaught = &logs[10];
    assert_eq!(uncaught["message"], "Uncaught Error: uncaught late");
    assert!(uncaught["stack"].as_str().unwrap_or("").contains("uncaught late"));
    assert!(uncaught["line"].as_u64().unwrap_or(0) > 0, "{uncaught}");
    assert!(uncaught["column"].as_u64().unwrap_or(0) > 0, "{uncaught}");
    let rejection = &logs[11];
    assert_eq!(rejection["kind"], "unhandledrejection");
    assert_eq!(rejection["message"], "rejected late");
    assert!(rejection["stack"].as_str().unwrap_or("").contains("rejected late"));

    let fetch404 = &logs[12];
    assert_eq!(fetch404["method"], "GET");
    assert_eq!(fetch404["status"], 404);
    assert_eq!(fetch404["ok"], false);
    assert_eq!(fetch404["via"], "fetch");
    assert!(fetch404["duration"].as_f64().is_some());
    assert!(fetch404["statusText"].is_string());
    assert_eq!(logs[13]["method"], "POST", "method of a Request object");
    assert!(
        logs[14]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{}",
        logs[14]
    );
    assert_eq!(logs[14]["ok"], false);
    assert_eq!(logs[15]["via"], "xhr");
    assert_eq!(logs[15]["method"], "GET");
    assert_eq!(logs[15]["status"], 404);
    assert_eq!(logs[16]["kind"], "unhandledrejection");
    assert_eq!(logs[16]["message"], "{\"code\":42}");
    assert_eq!(logs[17]["status"], 404);
    assert_eq!(logs[18]["event"], "click");
    assert_eq!(logs[18]["target"], "button \"Save\"");
    // (The client's own `text` field of an interaction is replaced by the host's readable line.)
    assert_eq!(logs[19]["via"], "pushState");
    assert!(logs[19]["url"].as_str().unwrap_or("").ends_with("/capture.html?step=2"));

    // The heartbeat told the host about the page.
    let console = server.console(&format!("limit=1&client={id}"));
    assert_eq!(console["clientPhase"], "ready", "{console}");
    assert_eq!(console["clientAlive"], true, "{console}");
}

async fn reload_does_not_wrap_twice(client: &Client, server: &Server) {
    client.goto(&server.url("/plain.html")).await.unwrap();
    let first = client_id(client, server).await;
    client.refresh().await.unwrap();
    let id = client_id(client, server).await;
    assert_ne!(first, id, "a reload is a new page load with a new clientId");
    let same = exec(
        client,
        r#"
        const tag = document.querySelector('script[data-browser-agent]');
        const before = [console.log, window.fetch, XMLHttpRequest.prototype.open, XMLHttpRequest.prototype.send, history.pushState];
        // A second copy of the injected tag (re-injection, HMR) must not wrap anything again.
        const copy = document.createElement('script');
        copy.setAttribute('data-browser-agent', tag.getAttribute('data-browser-agent'));
        copy.textContent = tag.textContent;
        document.head.appendChild(copy);
        const after = [console.log, window.fetch, XMLHttpRequest.prototype.open, XMLHttpRequest.prototype.send, history.pushState];
        console.log('once after reload');
        return before.every((f, i) => f === after[i]) && document.querySelectorAll('script[data-browser-agent]').length === 2;
        "#,
    )
    .await;
    assert_eq!(same, true, "the second copy changed a patch");
    wait_for("the log after reload", Duration::from_secs(10), || {
        let logs = server.logs_of(&id);
        (!logs.is_empty()).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let logs = server.logs_of(&id);
    assert_eq!(logs.len(), 1, "one console.log, one entry:\n{}", summary(&logs));
    assert_eq!(text(&logs[0]), "once after reload");
}

async fn host_restart_loses_and_doubles_nothing(client: &Client, server: Server) -> Server {
    client.goto(&server.url("/plain.html")).await.unwrap();
    let id = client_id(client, &server).await;
    exec(
        client,
        "window.__marker = 'same page'; window.__n = 0; window.__iv = setInterval(() => console.log('tick ' + (++window.__n)), 50);",
    )
    .await;
    // Long enough for at least one batch (every 2 s) to reach the first host.
    tokio::time::sleep(Duration::from_millis(2600)).await;

    let addr = server.addr;
    let server_framework = server.framework;
    let old_agent = agent_of(&server);
    server.stop();
    // The page keeps logging while the dev server is down (its sends fail and are kept).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let server = Server::start_on(server_framework, agent(), addr);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let state = exec(
        client,
        "clearInterval(window.__iv); return [window.__n, window.__marker, window.__browserAgent.clientId];",
    )
    .await;
    let n = state[0].as_u64().expect("tick count");
    assert_eq!(state[1], "same page", "the page was not reloaded");
    assert_eq!(state[2], id.as_str(), "same client identity");

    let ticks = |logs: &[Value]| -> Vec<u64> {
        logs.iter()
            .filter_map(|e| text(e).strip_prefix("tick ").and_then(|s| s.parse().ok()))
            .collect()
    };
    let after = wait_for("the ticks after the restart", Duration::from_secs(25), || {
        let t = ticks(&server.logs_of(&id));
        t.last().is_some_and(|&last| last >= n).then_some(t)
    })
    .await;
    // What the old host stored, read over HTTP from its state through a reader on another port.
    let reader = Server::start(old_agent, any_port());
    let before = ticks(&reader.logs_of(&id));
    drop(reader);

    let unique_before: BTreeSet<u64> = before.iter().copied().collect();
    let unique_after: BTreeSet<u64> = after.iter().copied().collect();
    assert_eq!(
        unique_before.len(),
        before.len(),
        "doubled before the restart: {before:?}"
    );
    assert_eq!(unique_after.len(), after.len(), "doubled after the restart: {after:?}");
    assert!(
        unique_before.is_disjoint(&unique_after),
        "an entry reached both hosts: {:?}",
        unique_before.intersection(&unique_after).collect::<Vec<_>>()
    );
    let all: BTreeSet<u64> = unique_before.union(&unique_after).copied().collect();
    assert_eq!(all, (1..=n).collect(), "lost ticks; before {before:?} after {after:?}");
    assert!(
        !after.is_empty() && !before.is_empty(),
        "both hosts got ticks: before {before:?} after {after:?}"
    );
    println!(
        "host restart: {} ticks before, {} after, none lost or doubled",
        before.len(),
        after.len()
    );
    server
}

/// The agent handle of a running server, kept by the test so the old host's memory can be read.
fn agent_of(server: &Server) -> browser_agent_core::BrowserAgent {
    server.agent.clone()
}

async fn costs(client: &Client, server: &Server) {
    client.goto(&server.url("/bench.html")).await.unwrap();
    client_id(client, server).await;
    // chromedriver forwards every console call over DevTools, which costs far more than the agent
    // (~150 µs per call), and loopback fetches vary by milliseconds. So the overhead is measured in
    // a same-origin iframe whose console and fetch are no-op stand-ins, wrapped by a copy of the
    // bootstrap whose handler is the running wasm client's: bootstrap wrapper + wasm handler +
    // queueing, against the bare stand-in.
    let figures = exec_async(
        client,
        &[COPY_BOOTSTRAP, r#"
        const done = arguments[arguments.length - 1];
        const frame = document.createElement('iframe');
        document.body.appendChild(frame);
        const fw = frame.contentWindow;
        const noop = function () {};
        fw.console = {log: noop, info: noop, warn: noop, error: noop, debug: noop};
        const fakeFetch = function () { return Promise.resolve(new fw.Response('ok')); };
        fw.fetch = fakeFetch;
        copyBootstrap(fw);
        fw.__browserAgent.h = window.__browserAgent.h;
        // The machine may be shared and noisy: each figure is the best of several rounds.
        const N = 20000, ROUNDS = 5;
        function per(f) {
          for (let i = 0; i < 1000; i++) f(i);
          let best = Infinity;
          for (let r = 0; r < ROUNDS; r++) {
            const t0 = performance.now();
            for (let i = 0; i < N; i++) f(i);
            best = Math.min(best, (performance.now() - t0) * 1e6 / N);
          }
          return best;
        }
        const c = fw.console;
        const logWithout = per(i => noop('bench', i));
        fw.__browserAgent.h = function () {};
        const logBootstrap = per(i => c.log('bench', i));
        fw.__browserAgent.h = window.__browserAgent.h;
        const logWith = per(i => c.log('bench', i));
        const objWithout = per(i => noop('bench', {i, a: [1, 2, 3], s: 'x'}));
        const objWith = per(i => c.log('bench', {i, a: [1, 2, 3], s: 'x'}));
        (async () => {
          const F = 2000;
          async function perFetch(f) {
            for (let i = 0; i < 200; i++) await f('/x');
            let best = Infinity;
            for (let r = 0; r < ROUNDS; r++) {
              const t0 = performance.now();
              for (let i = 0; i < F; i++) await f('/x');
              best = Math.min(best, (performance.now() - t0) * 1e6 / F);
            }
            return best;
          }
          const fetchWithout = await perFetch(fakeFetch);
          const fetchWith = await perFetch(u => fw.fetch(u));
          // Requests of an idle page: resource timing entries of our own routes over 12 s.
          frame.remove();
          // The bench's batches may have filled the resource timing buffer (250 entries).
          performance.clearResourceTimings();
          const ours = () => performance.getEntriesByType('resource').filter(e => /\/browser\/probe|__mindstudio_dev__\/logs/.test(e.name)).length;
          await new Promise(r => setTimeout(r, 2500));
          const r0 = ours();
          await new Promise(r => setTimeout(r, 12000));
          const idle = (ours() - r0) / 12;
          done({logBootstrap, logWith, logWithout, objWith, objWithout, fetchWith, fetchWithout, idle});
        })().catch(e => done({error: String(e && e.stack || e)}));
        "#].concat(),
    )
    .await;
    assert_eq!(figures["error"], Value::Null, "{figures}");
    let f = |k: &str| figures[k].as_f64().unwrap_or(f64::NAN);
    let report = format!(
        "browser-agent overhead in headless Chromium (ns per call, best of 5 rounds, against no-op stand-ins):\n\
         console.log('bench', i): {:.0} with the agent ({:.0} in the bootstrap wrapper alone), {:.0} without, +{:.0}\n\
         console.log('bench', {{i, a:[1,2,3], s}}): {:.0} with, {:.0} without, +{:.0}\n\
         await fetch(u) (resolved stand-in, 200): {:.0} with, {:.0} without, +{:.0}\n\
         idle page: {:.2} requests per second\n",
        f("logWith"),
        f("logBootstrap"),
        f("logWithout"),
        f("logWith") - f("logWithout"),
        f("objWith"),
        f("objWithout"),
        f("objWith") - f("objWithout"),
        f("fetchWith"),
        f("fetchWithout"),
        f("fetchWith") - f("fetchWithout"),
        f("idle"),
    );
    println!("{report}");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-costs.txt");
    let _ = std::fs::write(&out, &report);
}
