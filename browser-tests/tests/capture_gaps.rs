//! What the capture left open before (issue 11 item 5), in real headless Chromium: the console
//! methods beyond log (assert, count, time, dir, table as its grid, trace), format substitution,
//! error cause chains, class names of logged instances, aborted requests told apart from network
//! errors, a failed fetch stamped when its response came (not after its body), a `pushState` to
//! the same URL that is no navigation, and the agent's routes that named an unknown
//! page (`GET /console?client=`) or ignored one (`POST /run?client=`).

use std::time::Duration;

use browser_tests::{
    agent, any_port, http_get, open, run, run_raw, shared_browser, wait_for, within, Server, PREFIX, SCENARIO_DEADLINE,
};
use serde_json::{json, Value};

/// The entries of `id` after `seq`, once `n` of them are there.
async fn entries_after(server: &Server, id: &str, seq: u64, n: usize) -> Vec<Value> {
    wait_for(&format!("{n} entries after {seq}"), Duration::from_secs(10), || {
        let logs: Vec<Value> = server
            .logs_of(id)
            .into_iter()
            .filter(|e| e["seq"].as_u64().is_some_and(|s| s > seq) && e["type"] != "interaction")
            .collect();
        (logs.len() >= n).then_some(logs)
    })
    .await
}

/// A server on its own port answering every request with a 500 whose headers come at once and
/// whose body ("slow failure") comes `delay` later (CORS open, so the page's fetch reads it). Its
/// address.
fn slow_error_server(delay: Duration) -> std::net::SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let head = "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n\
                    Access-Control-Allow-Origin: *\r\nContent-Length: 12\r\nConnection: close\r\n\r\n";
                let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.flush());
                std::thread::sleep(delay);
                let _ = stream.write_all(b"slow failure");
            });
        }
    });
    addr
}

/// Runs `script` in page `id` (an `evaluate` step) and returns the `n` or more entries it logged.
async fn logged_by(server: &Server, id: &str, script: &str, n: usize) -> Vec<Value> {
    let seq = last_seq(server, id);
    run(server, id, json!([{"command": "evaluate", "script": script}])).await;
    entries_after(server, id, seq, n).await
}

fn last_seq(server: &Server, id: &str) -> u64 {
    server
        .logs_of(id)
        .iter()
        .filter_map(|e| e["seq"].as_u64())
        .max()
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_gaps() {
    let browser = shared_browser().await;
    let server = Server::start(agent(), any_port());
    within("capture_gaps", SCENARIO_DEADLINE, async {
        let id = open(&browser.client, &server, "/hostile/gaps.html").await;

        // The console.
        let logs = logged_by(
            &server,
            &id,
            r#"
            console.log('order', new Order(1), [new Order(2)]);
            console.log('%s has %d items at %f %o%c!', 'cart', 3.7, '2.5', {a: 1}, 'color: red', 'extra');
            console.log('100%% sure');
            console.assert(true, 'fine');
            console.assert(false, 'broken', 2);
            console.count(); console.count(); console.count('x');
            console.time('t'); console.timeEnd('t'); console.timeEnd('t');
            console.dir({d: 1});
            console.table([{a: 1}]);
            console.trace('here');
            console.error('failed', new Error('outer', {cause: new Error('inner')}));
            return 1"#,
            13,
        )
        .await;
        let args: Vec<&Value> = logs.iter().map(|e| &e["args"]).collect();
        assert_eq!(
            args[0],
            &json!(["order", r#"Order {"id":1}"#, r#"[{"id":2}]"#]),
            "{logs:?}"
        );
        assert_eq!(args[1], &json!([r#"cart has 3 items at 2.5 {"a":1}!"#, "extra"]));
        assert_eq!(args[2], &json!(["100% sure"]));
        assert_eq!(
            (args[3], &logs[3]["level"]),
            (&json!(["Assertion failed:", "broken", "2"]), &json!("error"))
        );
        assert_eq!(
            (args[4], args[5], args[6]),
            (&json!(["default: 1"]), &json!(["default: 2"]), &json!(["x: 1"]))
        );
        let timed = args[7][0].as_str().unwrap();
        assert!(timed.starts_with("t: ") && timed.ends_with(" ms"), "{timed}");
        assert_eq!(args[8], &json!(["Timer 't' does not exist"]));
        assert_eq!(args[9], &json!([r#"{"d":1}"#]));
        assert_eq!(args[10], &json!(["(index) | a\n0       | 1"]));
        assert_eq!((&args[11][0], &args[11][1]), (&json!("console.trace"), &json!("here")));
        assert!(args[11][2].as_str().unwrap().contains("    at "), "{}", args[11]);
        let error = args[12][1].as_str().unwrap();
        assert!(
            error.starts_with("Error: outer\n") && error.contains("\nCaused by: Error: inner\n"),
            "{error}"
        );

        // console.table as the grid the console draws: (index), the items' keys in first-seen order
        // (or the columns asked for), Value for items that are no objects; accessors never run;
        // at most 30 rows; data that is no object logged as log logs it.
        let logs = logged_by(
            &server,
            &id,
            r#"
            console.table([{a: 1, b: 'x'}, {a: 22, c: {d: [1]}}, 7]);
            console.table({first: {n: 1, m: 2}, second: {n: 3, get m() { throw new Error('ran'); }}}, ['m']);
            console.table(Array.from({length: 32}, (_, i) => i));
            console.table('plain', 2);
            return 1"#,
            4,
        )
        .await;
        let args: Vec<&Value> = logs.iter().map(|e| &e["args"]).collect();
        assert_eq!(
            args[0],
            &json!([concat!(
                "(index) | a  | b   | c         | Value\n",
                "0       | 1  | 'x' |           |\n",
                "1       | 22 |     | {\"d\":[1]} |\n",
                "2       |    |     |           | 7",
            )]),
            "{logs:?}"
        );
        assert_eq!(args[1], &json!(["(index) | m\nfirst   | 2\nsecond  | (...)"]));
        let long = args[2][0].as_str().unwrap();
        let lines: Vec<&str> = long.lines().collect();
        assert_eq!(lines.len(), 32, "{long}");
        assert_eq!(
            (lines[0], lines[1], lines[30], lines[31]),
            ("(index) | Value", "0       | 0", "29      | 29", "\u{2026} 2 more")
        );
        assert_eq!((args[3], &logs[3]["level"]), (&json!(["plain", "2"]), &json!("log")));

        // A failed fetch is stamped when its response arrives: its seq and duration do not include
        // reading the error body (which a server of ours sends two seconds after the headers); the
        // body is still recorded.
        let slow = slow_error_server(Duration::from_secs(2));
        let logs = logged_by(
            &server,
            &id,
            &format!(
                r#"
            const r = await fetch('http://{slow}/slow');
            console.log('response came', r.status);
            return 1"#
            ),
            2,
        )
        .await;
        let fetched = logs
            .iter()
            .find(|e| e["via"] == "fetch")
            .unwrap_or_else(|| panic!("the fetch entry in {logs:?}"));
        let came = logs
            .iter()
            .find(|e| e["type"] == "console")
            .unwrap_or_else(|| panic!("the console entry in {logs:?}"));
        assert_eq!(
            (&fetched["status"], &fetched["body"], &came["args"]),
            (&json!(500), &json!("slow failure"), &json!(["response came", "500"]))
        );
        assert!(
            fetched["clientSeq"].as_u64() < came["clientSeq"].as_u64(),
            "stamped before the page's next entry: {fetched} {came}"
        );
        let duration = fetched["duration"].as_f64().unwrap();
        assert!(duration < 2000.0, "the duration does not include the body: {fetched}");

        // Requests: aborted (fetch, XHR) against a network error; pushState to the same URL.
        let logs = logged_by(
            &server,
            &id,
            r#"
            const ac = new AbortController();
            const aborted = fetch('/plain.html?fetch', {signal: ac.signal});
            ac.abort();
            await aborted.catch(() => {});
            await fetch('http://127.0.0.1:1/').catch(() => {});
            const x = new XMLHttpRequest();
            x.open('GET', '/plain.html?xhr');
            x.send();
            x.abort();
            history.pushState({n: 1}, '', location.href);
            history.replaceState({n: 2}, '', location.href);
            history.pushState({n: 3}, '', location.pathname + '?moved');
            return 1"#,
            4,
        )
        .await;
        let of = |via: &str, url: &str| {
            logs.iter()
                .find(|e| e["via"] == via && e["url"].as_str().is_some_and(|u| u.contains(url)))
                .unwrap_or_else(|| panic!("no {via} entry for {url} in {logs:?}"))
        };
        let f = of("fetch", "?fetch");
        assert_eq!((&f["error"], &f["aborted"]), (&json!("aborted"), &json!(true)));
        let down = of("fetch", "127.0.0.1:1");
        assert_eq!(
            (&down["error"], &down["aborted"]),
            (&json!("Failed to fetch"), &Value::Null)
        );
        let x = of("xhr", "?xhr");
        assert_eq!((&x["error"], &x["aborted"]), (&json!("aborted"), &json!(true)));
        let navigations: Vec<&Value> = logs.iter().filter(|e| e["type"] == "navigation").collect();
        assert_eq!(navigations.len(), 1, "only the pushState that moved: {navigations:?}");
        assert!(navigations[0]["url"].as_str().unwrap().ends_with("?moved"));

        // The agent's routes: an unknown client is a 404 naming the open pages; ?client= is honoured.
        let (status, body) = http_get(server.addr, &format!("{PREFIX}/console?client=nope"));
        let v: Value = serde_json::from_str(&body).unwrap();
        let page = server.url("/hostile/gaps.html?moved");
        assert_eq!(status, 404, "{body}");
        assert_eq!(
            v["error"],
            format!("No page with client id \"nope\" is connected. Open pages: \"{id}\" ({page})")
        );
        let steps = json!([{"command": "evaluate", "script": "return 2"}]);
        let body = json!({"steps": steps}).to_string();
        let addr = server.addr;
        let answer = |path: String, body: String| {
            tokio::task::spawn_blocking(move || browser_tests::http_post_json(addr, &path, &body))
        };
        let (status, text) = answer(format!("{PREFIX}/run?client={id}"), body.clone()).await.unwrap();
        assert_eq!(status, 200, "{text}");
        let (status, text) = answer(format!("{PREFIX}/run?client=nope"), body).await.unwrap();
        assert_eq!(status, 503, "{text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .starts_with("No page with client id \"nope\" is connected."),
            "{v}"
        );
        let (status, v) = run_raw(&server, json!({"client": id, "steps": steps})).await;
        assert_eq!(status, 200, "{v}");
        let both = json!({"client": "other", "steps": steps}).to_string();
        let (status, text) = answer(format!("{PREFIX}/run?client={id}"), both).await.unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(status, 400, "{text}");
        assert_eq!(
            v["message"],
            format!("the query names client \"{id}\" and the body client \"other\": name one page")
        );
    })
    .await;
}
