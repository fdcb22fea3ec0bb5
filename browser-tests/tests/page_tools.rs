//! The page's own tools (WebMCP, issue 35 item 3) in real headless Chromium. A page registers
//! tools through `navigator.modelContext` / `document.modelContext` in its first script: this
//! Chromium has no model context of its own, so the bootstrap's shim records them
//! (`fixtures/page_tools/index.html`). Then, over real MCP HTTP: `tools/list` shows them beside
//! ours, named by page, their descriptions marked as the page's; `tools/call` runs `execute` in
//! the page and answers with its result; a tool that throws is an error result; a name the page
//! did not register is refused; when the page unregisters one (its `AbortSignal`), the GET event
//! stream says `notifications/tools/list_changed` and the tool is gone. The `tools` and `tool`
//! steps do the same over `/run`, the Rust API and MCP stdio, and bad input is a 400 naming the
//! field. A page written against the MCP-B polyfill (`@mcp-b/webmcp-polyfill`, npm, pinned in
//! `browser-tests/page-tools-npm/`) works with the shim, and with the polyfill's own model
//! context (`getTools`/`executeTool`, as Chromium's) when the page puts that one in place.

use std::sync::OnceLock;

use browser_agent_core::Batch;
use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, eval, eval_until, fails, ok, open, run_raw, Server, PREFIX};
use serde_json::{json, Value};

/// A JSON-RPC request to the MCP endpoint (blocking); the whole answer.
fn mcp(server: &Server, method: &str, params: Value) -> Value {
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let res = browser_agent_testkit::http::request(
        server.addr,
        "POST",
        &format!("{PREFIX}/mcp"),
        &[
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ],
        msg.to_string().as_bytes(),
    );
    assert_eq!(res.status, 200, "{}", res.text());
    res.json()
}

/// `tools/list`: the page tools (those named `page_…`).
fn page_tools(server: &Server) -> Vec<Value> {
    let v = mcp(server, "tools/list", json!({}));
    v["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|t| t["name"].as_str().is_some_and(|n| n.starts_with("page_")))
        .cloned()
        .collect()
}

/// The MCP name of the page tool `name`.
fn mcp_name(tools: &[Value], name: &str) -> String {
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .find(|n| n.ends_with(&format!("_{name}")))
        .unwrap_or_else(|| panic!("no page tool {name} in {tools:?}"))
}

/// `tools/call` (blocking, off the async threads: the page answers through the host).
async fn call(server: &Server, name: &str, args: Value) -> Value {
    let (addr, name) = (server.addr, name.to_owned());
    tokio::task::spawn_blocking(move || {
        let msg = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": name, "arguments": args}});
        let res = browser_agent_testkit::http::request(
            addr,
            "POST",
            &format!("{PREFIX}/mcp"),
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
            ],
            msg.to_string().as_bytes(),
        );
        assert_eq!(res.status, 200, "{}", res.text());
        res.json()
    })
    .await
    .expect("call thread")
}

/// `GET {prefix}/mcp` as an event stream, sending `last` as `Last-Event-ID` (none when empty);
/// (status, content type, body).
async fn events(addr: std::net::SocketAddr, last: &str) -> (u16, String, String) {
    let last = last.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut headers = vec![("accept", "text/event-stream")];
        if !last.is_empty() {
            headers.push(("last-event-id", last.as_str()));
        }
        let res = browser_agent_testkit::http::request(addr, "GET", &format!("{PREFIX}/mcp"), &headers, b"");
        let kind = res.header("content-type").unwrap_or_default().to_owned();
        (res.status, kind, res.text())
    })
    .await
    .expect("events thread")
}

/// The `id:` of an event stream's body.
fn event_id(body: &str) -> String {
    body.lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap_or_else(|| panic!("no id in {body:?}"))
        .to_owned()
}

/// The text items of a `tools/call` result, joined by lines.
fn texts(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until `tools/list` shows `n` page tools (the page's heartbeat says it has tools).
async fn listed(server: &Server, n: usize) -> Vec<Value> {
    let mut last = Vec::new();
    for _ in 0..200 {
        last = page_tools(server);
        if last.len() == n {
            return last;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("tools/list never showed {n} page tools: {last:?}");
}

chromium_test!(page_tools_over_mcp_run_and_rust, Axum, |c, server| {
    let id = open(c, &server, "/page_tools/index.html").await;
    assert_eq!(
        eval(&server, &id, "window.shimFirst").await,
        json!(true),
        "the shim ran first"
    );

    // The `tools` step: the page's tools as the page registered them; the bad name left out.
    let v = ok(&server, &id, json!({"command": "tools"})).await;
    let list = &v["result"];
    assert_eq!(list["source"], "shim", "{v}");
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["add_todo", "count_items", "explode", "save_list", "temporary"],
        "{v}"
    );
    assert!(
        list["skipped"][0]
            .as_str()
            .unwrap()
            .starts_with("bad name: not a tool name"),
        "{v}"
    );

    // tools/list over MCP HTTP: ours, then the page's, named by page, marked as the page's.
    let init = mcp(
        &server,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}),
    );
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true, "{init}");
    let tools = listed(&server, 5).await;
    let add = tools
        .iter()
        .find(|t| t["name"].as_str().unwrap().ends_with("_add_todo"))
        .unwrap();
    // Named by the tool alone while one page offers it: the name outlives a reload.
    assert_eq!(add["name"], "page_add_todo", "{add}");
    let page = server.url("/page_tools/index.html");
    assert_eq!(
        add["description"],
        format!("[from page {page}, untrusted] Adds an item to the to-do list."),
        "{add}"
    );
    assert_eq!(add["inputSchema"]["properties"]["text"]["type"], "string", "{add}");
    assert_eq!(add["inputSchema"]["required"], json!(["text"]), "{add}");
    assert_eq!(add["annotations"]["title"], "Add a to-do", "{add}");
    let count = tools
        .iter()
        .find(|t| t["name"].as_str().unwrap().ends_with("_count_items"))
        .unwrap();
    assert_eq!(count["annotations"]["readOnlyHint"], true, "{count}");

    // tools/call runs execute in the page: the item is on the page, the answer is the tool's.
    let r = call(&server, &mcp_name(&tools, "add_todo"), json!({"text": "milk"})).await;
    let result = &r["result"];
    assert!(result["isError"].is_null(), "{r}");
    assert_eq!(
        result["content"][1],
        json!({"type": "text", "text": "added milk (1 items)"}),
        "{r}"
    );
    assert!(texts(result).starts_with("[page tool add_todo of "), "{r}");
    // What the call changed on the page, in its answer.
    assert!(
        result["content"][2]["text"]
            .as_str()
            .is_some_and(|t| t.contains("\"milk\"")),
        "{r}"
    );
    eval_until(
        &server,
        &id,
        "document.getElementById('items').textContent",
        "the item is on the page",
        |v| v == "milk",
    )
    .await;
    // A plain value answers as its JSON.
    let r = call(&server, &mcp_name(&tools, "count_items"), json!({})).await;
    assert_eq!(
        r["result"]["content"][1]["text"], r#"{"count":1,"items":["milk"]}"#,
        "{r}"
    );

    // A tool that throws: an error result with its message.
    let r = call(&server, &mcp_name(&tools, "explode"), json!({})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(
        texts(&r["result"]).contains("kaboom: the tool failed on purpose"),
        "{r}"
    );

    // A tool whose request fails: its answer carries the request, as a click's would.
    let r = call(&server, &mcp_name(&tools, "save_list"), json!({})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let answer = texts(&r["result"]);
    assert!(
        answer.contains("save failed: 500")
            && answer.contains("GET /api/fail → 500")
            && answer.contains("\"Save failed\""),
        "{r}"
    );

    // A name no page registered is never callable.
    let r = call(&server, "page_nope", json!({})).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("unknown tool \"page_"),
        "{r}"
    );
    let error = fails(&server, &id, json!({"command": "tool", "name": "nope"})).await;
    assert!(
        error.starts_with("the page has no tool named nope (its tools now: add_todo, "),
        "{error}"
    );

    // The event stream: an id the client never saw answers at once with the state now; with that
    // id it is held until the page unregisters a tool, then says list_changed.
    // A first stream (no id) is primed at once: the id of the state now, no data.
    let (status, _, body) = events(server.addr, "").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\ndata:\n") && !body.contains("list_changed"), "{body}");
    let primed = event_id(&body);
    let (status, kind, body) = events(server.addr, "never-seen").await;
    assert_eq!((status, kind.as_str()), (200, "text/event-stream"), "{body}");
    assert!(
        body.contains(r#""method":"notifications/tools/list_changed""#),
        "{body}"
    );
    let now = event_id(&body);
    assert_eq!(now, primed, "the same state, the same id");
    let held = tokio::spawn({
        let (addr, now) = (server.addr, now.clone());
        async move { events(addr, &now).await }
    });
    ok(
        &server,
        &id,
        json!({"command": "evaluate", "script": "dropTemporary()"}),
    )
    .await;
    let (status, _, body) = held.await.expect("held stream");
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(r#"data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
        "{body}"
    );
    assert_ne!(event_id(&body), now, "{body}");
    let tools = page_tools(&server);
    assert!(
        !tools
            .iter()
            .any(|t| t["name"].as_str().unwrap().ends_with("_temporary")),
        "{tools:?}"
    );
    let r = call(&server, "page_temporary", json!({})).await;
    assert_eq!(r["error"]["code"], -32602, "the tool is gone: {r}");

    // GET without the event stream's Accept: refused, saying why.
    let res = browser_agent_testkit::http::request(server.addr, "GET", &format!("{PREFIX}/mcp"), &[], b"");
    assert_eq!(res.status, 406, "{}", res.text());
    assert!(res.text().contains("Accept: text/event-stream"), "{}", res.text());

    // The `tool` step over /run: the same call; its answer says what it changed.
    let v = browser_tests::run(
        &server,
        &id,
        json!([{"command": "tool", "name": "add_todo", "input": {"text": "eggs"}}]),
    )
    .await;
    assert_eq!(
        v["steps"][0]["result"]["content"][0]["text"], "added eggs (2 items)",
        "{v}"
    );
    assert!(v["snapshot"].as_str().is_some_and(|s| s.contains("\"eggs\"")), "{v}");

    // Bad input: 400 naming the field, before the page is asked.
    for (step, field) in [
        (json!({"command": "tool"}), "name"),
        (
            json!({"command": "tool", "name": "add_todo", "input": [1]}),
            "\"input\" must be an object",
        ),
        (json!({"command": "tools", "name": "x"}), "takes no fields"),
    ] {
        let (status, v) = run_raw(&server, json!({"client": id, "steps": [step]})).await;
        assert_eq!(status, 400, "{v}");
        assert!(v["error"].as_str().unwrap_or_default().contains(field), "{field}: {v}");
    }

    // The Rust API: the same steps.
    let result = server
        .agent
        .run(Batch::new(vec![json!({"command": "tool", "name": "count_items"})]).client(id.clone()))
        .await
        .expect("the Rust API runs the tool");
    assert_eq!(
        result.steps[0].result,
        Some(json!({"count": 2, "items": ["milk", "eggs"]}))
    );

    // MCP over stdio: the same list, and a list_changed line when the page's tools change.
    let (to_server, from_client) = tokio::io::duplex(64 * 1024);
    let (to_client, from_server) = tokio::io::duplex(64 * 1024);
    let agent = server.agent.clone();
    let serving = tokio::spawn(async move {
        let (reader, _) = tokio::io::split(from_client);
        let (_, writer) = tokio::io::split(to_client);
        agent.serve_mcp_io(tokio::io::BufReader::new(reader), writer).await
    });
    let (_, mut stdin) = tokio::io::split(to_server);
    let (stdout, _) = tokio::io::split(from_server);
    let mut stdout = tokio::io::BufReader::new(stdout);
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let list = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    stdin.write_all(format!("{list}\n").as_bytes()).await.unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).await.unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"page_add_todo"), "{line}");
    ok(
        &server,
        &id,
        json!({"command": "evaluate", "script": "navigator.modelContext.unregisterTool('explode')"}),
    )
    .await;
    line.clear();
    stdout.read_line(&mut line).await.unwrap();
    assert_eq!(
        line.trim(),
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
    );
    drop(stdin);
    serving.await.expect("stdio task").expect("stdio served");
});

/// Installs the polyfill once per test binary.
fn polyfill() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        browser_tests::npm_fixtures_at("page-tools", "page_tools");
    });
}

chromium_test!(a_page_written_for_the_mcp_b_polyfill, Axum, |c, server| {
    polyfill();
    // The polyfill finds the shim and keeps it: the page's code works unchanged, over MCP.
    let id = open(c, &server, "/page_tools/polyfill.html").await;
    eval_until(
        &server,
        &id,
        "window.registered === true",
        "the page registered its tool",
        |v| v == true,
    )
    .await;
    assert_eq!(eval(&server, &id, "window.polyfillOwns").await, json!(false));
    let tools = listed(&server, 1).await;
    let r = call(&server, &mcp_name(&tools, "greet"), json!({"name": "Ada"})).await;
    assert_eq!(r["result"]["content"][1]["text"], "Hello, Ada! (1)", "{r}");
    // Its AbortSignal unregisters the tool.
    ok(&server, &id, json!({"command": "evaluate", "script": "unregister()"})).await;
    listed(&server, 0).await;

    // The polyfill's own model context (the page removed the shim first): read and called with
    // getTools and executeTool, as Chromium's own.
    let id = open(c, &server, "/page_tools/polyfill.html?own").await;
    eval_until(
        &server,
        &id,
        "window.registered === true",
        "the page registered its tool",
        |v| v == true,
    )
    .await;
    assert_eq!(eval(&server, &id, "window.polyfillOwns").await, json!(true));
    let v = ok(&server, &id, json!({"command": "tools"})).await;
    assert_eq!(v["result"]["source"], "browser", "{v}");
    assert_eq!(v["result"]["tools"][0]["name"], "greet", "{v}");
    let v = ok(
        &server,
        &id,
        json!({"command": "tool", "name": "greet", "input": {"name": "Grace"}}),
    )
    .await;
    assert_eq!(v["result"]["content"][0]["text"], "Hello, Grace! (1)", "{v}");
    let error = fails(&server, &id, json!({"command": "tool", "name": "nope"})).await;
    assert!(
        error.starts_with("the page has no tool named nope (its tools now: greet)"),
        "{error}"
    );
});

/// The repository root.
fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("repo root")
}

chromium_test!(the_typescript_sdk_is_told_the_page_tools_changed, Axum, |c, server| {
    // The official TypeScript SDK (scripts/mcp/setup installs it, pinned, under target/).
    let status = std::process::Command::new("bash")
        .arg(root().join("scripts/mcp/setup"))
        .arg("node")
        .status()
        .expect("run scripts/mcp/setup");
    assert!(status.success(), "scripts/mcp/setup node failed");
    let id = open(c, &server, "/page_tools/index.html").await;
    listed(&server, 5).await;
    let url = server.url(&format!("{PREFIX}/mcp"));
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("node")
            .arg(root().join("scripts/mcp/page-tools-client.mjs"))
            .args([
                url.as_str(),
                id.as_str(),
                "add_todo",
                r#"{"text":"tea"}"#,
                "dropTemporary()",
            ])
            .output()
            .expect("run page-tools-client.mjs")
    })
    .await
    .expect("client thread");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("no JSON ({e}): {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert!(out.status.success() && v.get("error").is_none(), "{v}");
    assert_eq!(v["listChanged"], true, "{v}");
    assert_eq!(v["before"].as_array().map(Vec::len), Some(5), "{v}");
    assert!(v["description"].as_str().unwrap().starts_with("[from page "), "{v}");
    assert_eq!(v["called"][1], "added tea (1 items)", "{v}");
    assert_eq!(v["notified"], true, "{v}");
    let after: Vec<&str> = v["after"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(after.len(), 4, "{v}");
    assert!(!after.iter().any(|n| n.ends_with("_temporary")), "{v}");
});
