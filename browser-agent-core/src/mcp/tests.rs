//! The MCP endpoint in process, through [`BrowserAgent::handle`] as the adapters call it: every
//! method and error, version negotiation in both eras, notifications, each refusal, the tool list,
//! and tool calls answered by a simulated page (polling `GET {prefix}/commands` with the page key
//! and posting `POST {prefix}/results`, as the wasm client does).

use crate::adapter::AdapterExt;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request};
use serde_json::{json, Value};

use crate::protocol::{mcp, COMMANDS};
use crate::BrowserAgent;

const KEY: &str = "mcp-test-key";
const P: &str = "/__mindstudio_dev__";
const URL: &str = "/__mindstudio_dev__/mcp";
const HOST: &str = "127.0.0.1:3000";
const JSON: (&str, &str) = ("content-type", "application/json");
const MODERN: &str = "2026-07-28";

fn agent() -> BrowserAgent {
    BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .body_limit(65_536)
        .build()
}

struct Res {
    status: u16,
    headers: HeaderMap,
    body: Bytes,
}

impl Res {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    /// `(code, message)` of a JSON-RPC error answer.
    fn rpc_error(&self) -> (i64, String) {
        let v = self.json();
        let e = &v["error"];
        let code = e["code"].as_i64().unwrap_or_else(|| panic!("no error: {v}"));
        (code, e["message"].as_str().unwrap_or("").to_owned())
    }
    /// The text of a `tools/call` result and its `isError`.
    fn tool_text(&self) -> (String, bool) {
        let v = self.json();
        let r = &v["result"];
        let text = r["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text content: {v}"))
            .to_owned();
        assert_eq!(r["content"][0]["type"], "text", "{v}");
        (text, r["isError"] == true)
    }
}

/// Sends to `Host: 127.0.0.1:3000` unless `headers` names another (an empty value leaves it out).
async fn send(agent: &BrowserAgent, method: &str, uri: &str, headers: &[(&str, &str)], body: &[u8]) -> Res {
    let mut req = Request::builder().method(method).uri(uri);
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req = req.header("host", HOST);
    }
    for (k, v) in headers.iter().filter(|(_, v)| !v.is_empty()) {
        req = req.header(*k, *v);
    }
    let req = req.body(Bytes::copy_from_slice(body)).unwrap();
    let res = tokio::time::timeout(Duration::from_secs(20), agent.handle(req))
        .await
        .expect("the endpoint answers")
        .unwrap();
    let (parts, body) = res.into_parts();
    Res {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body,
    }
}

/// POSTs a JSON-RPC body with `Content-Type: application/json` and `extra` headers.
async fn post(agent: &BrowserAgent, extra: &[(&str, &str)], body: &Value) -> Res {
    let mut headers = vec![JSON, ("accept", "application/json, text/event-stream")];
    headers.extend_from_slice(extra);
    send(agent, "POST", URL, &headers, body.to_string().as_bytes()).await
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    request(id, "tools/call", json!({"name": tool, "arguments": arguments}))
}

/// A legacy `tools/call`, answered 200.
async fn call_tool(agent: &BrowserAgent, tool: &str, arguments: Value) -> (String, bool) {
    let r = post(agent, &[(mcp::VERSION_HEADER, "2025-11-25")], &call(7, tool, arguments)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["id"], 7);
    r.tool_text()
}

fn modern_meta() -> Value {
    json!({(mcp::META_VERSION): MODERN, "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}})
}

#[tokio::test]
async fn initialize_negotiates_the_revision_and_mints_no_session() {
    let agent = agent();
    for (asked, answered) in [
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let params = json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        let r = post(&agent, &[], &request(1, "initialize", params)).await;
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.header("content-encoding"), Some("identity"));
        assert!(r.header("mcp-session-id").is_none(), "stateless");
        assert!(
            !r.headers.keys().any(|k| k.as_str().starts_with("access-control-")),
            "no CORS headers"
        );
        let v = r.json();
        assert_eq!((v["jsonrpc"].as_str(), v["id"].as_u64()), (Some("2.0"), Some(1)));
        let result = &v["result"];
        assert_eq!(result["protocolVersion"], answered, "asked {asked}");
        assert_eq!(result["capabilities"], json!({"tools": {"listChanged": true}}));
        assert_eq!(result["serverInfo"]["name"], "browser-agent");
        assert!(result["instructions"].as_str().unwrap().contains("browser_snapshot"));
        assert!(result.get("resultType").is_none(), "legacy results carry no resultType");
    }
}

#[tokio::test]
async fn notifications_and_responses_get_202_without_a_body() {
    let agent = agent();
    for msg in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}),
        json!({"jsonrpc": "2.0", "id": 9, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -1, "message": "no"}}),
    ] {
        let r = post(&agent, &[(mcp::VERSION_HEADER, "2025-11-25")], &msg).await;
        assert_eq!((r.status, r.body.len()), (202, 0), "{msg}");
    }
}

#[tokio::test]
async fn ping_and_every_json_rpc_error_name_the_problem() {
    let agent = agent();
    let r = post(&agent, &[], &request(1, "ping", json!({}))).await;
    assert_eq!((r.status, r.json()["result"].clone()), (200, json!({})));

    let r = send(&agent, "POST", URL, &[JSON], b"{not json").await;
    let (code, message) = r.rpc_error();
    assert_eq!((r.status, code), (400, -32700));
    assert!(
        message.starts_with("parse error: the body is not valid JSON ("),
        "{message}"
    );
    assert_eq!(r.json()["id"], Value::Null);

    for (body, needle) in [
        (json!({"id": 1, "method": "ping"}), "\"jsonrpc\" must be \"2.0\""),
        (
            json!({"jsonrpc": "2.0", "id": true, "method": "ping"}),
            "\"id\" must be a string or a number",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": 5}),
            "\"method\" must be a string",
        ),
        (json!({"jsonrpc": "2.0", "id": 1}), "the message has no \"method\""),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": 3}),
            "\"params\" must be an object",
        ),
        (json!("ping"), "a message must be a JSON object"),
    ] {
        let r = post(&agent, &[], &body).await;
        let (code, message) = r.rpc_error();
        assert_eq!((r.status, code), (400, -32600), "{body}");
        assert!(message.contains(needle), "{body}: {message}");
    }

    let r = post(&agent, &[], &request(4, "resources/list", json!({}))).await;
    let (code, message) = r.rpc_error();
    assert_eq!((r.status, code, r.json()["id"].as_u64()), (200, -32601, Some(4)));
    assert_eq!(message, "method not found: \"resources/list\"; this server answers initialize, ping, server/discover, tools/list, tools/call");

    for (params, message) in [
        (json!({}), "invalid params: tools/call needs params.name, one of browser_logs, browser_pages, browser_snapshot, browser_run, browser_actions"),
        (json!({"name": "browser_click"}), "invalid params: unknown tool \"browser_click\"; the tools are browser_logs, browser_pages, browser_snapshot, browser_run, browser_actions"),
    ] {
        let r = post(&agent, &[], &request(5, "tools/call", params)).await;
        assert_eq!((r.status, r.rpc_error()), (200, (-32602, message.to_owned())));
    }
}

#[tokio::test]
async fn a_bad_argument_is_a_tool_error_that_teaches() {
    let agent = agent();
    for (tool, args, text) in [
        (
            "browser_logs",
            json!({"limit": "ten"}),
            "browser_logs: invalid limit \"ten\": expected a whole number",
        ),
        (
            "browser_logs",
            json!({"level": ["fatal"]}),
            "browser_logs: invalid level \"fatal\": use debug, log, info, warn or error (comma-separated for several)",
        ),
        (
            "browser_logs",
            json!({"type": "bogus"}),
            "browser_logs: invalid type \"bogus\": use console, error, network, websocket, dialog, interaction, navigation, dropped or server",
        ),
        (
            "browser_logs",
            json!({"limit": true}),
            "browser_logs: \"limit\" must be a non-negative integer, not true",
        ),
        (
            "browser_snapshot",
            json!({"diff": "yes"}),
            "step 1 (nothing ran): invalid diff \"yes\": use true or false\n",
        ),
        (
            "browser_run",
            json!({"steps": []}),
            "browser_run: browser action requires a non-empty \"steps\" array",
        ),
        (
            "browser_run",
            json!({"steps": [{"command": "snapshot"}], "timeoutMs": 5}),
            "browser_run: field \"timeoutMs\" must be a number of milliseconds between 100 and 300000",
        ),
        (
            "browser_actions",
            json!({"client": 5}),
            "browser_actions: \"client\" must be a string, not 5",
        ),
    ] {
        assert_eq!(call_tool(&agent, tool, args).await, (text.to_owned(), true));
    }
    let r = post(
        &agent,
        &[],
        &request(2, "tools/call", json!({"name": "browser_pages", "arguments": [1]})),
    )
    .await;
    assert_eq!(
        r.tool_text(),
        (
            "browser_pages: \"arguments\" must be an object, not [1]".to_owned(),
            true
        )
    );
    // No page: the agent hears what to do, as a tool error.
    let (text, failed) = call_tool(
        &agent,
        "browser_run",
        json!({"steps": [{"command": "click", "text": "Add"}]}),
    )
    .await;
    assert!(failed);
    assert_eq!(text, "No browser connected: open http://127.0.0.1:3000/ in a browser\n");
    let (text, failed) = call_tool(&agent, "browser_run", json!({"steps": [{"command": "fly"}]})).await;
    assert!(failed && text.contains("fly"), "{text}");
}

#[tokio::test]
async fn tools_list_is_small_and_covers_every_command() {
    let agent = agent();
    let r = post(
        &agent,
        &[(mcp::VERSION_HEADER, "2025-06-18")],
        &request(3, "tools/list", json!({})),
    )
    .await;
    assert_eq!(r.status, 200);
    let v = r.json();
    let tools = v["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "browser_logs",
            "browser_pages",
            "browser_snapshot",
            "browser_run",
            "browser_actions"
        ]
    );
    for t in tools {
        assert!(
            t["description"]
                .as_str()
                .is_some_and(|d| !d.is_empty() && d.len() < 400),
            "{t}"
        );
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }
    let run = &tools[3]["inputSchema"];
    assert_eq!(run["required"], json!(["steps"]));
    assert_eq!(
        run["properties"]["steps"]["items"]["properties"]["command"]["enum"],
        json!(COMMANDS),
        "the step schema names every command the host accepts, no other"
    );
    let compact = serde_json::to_string(&v["result"]).unwrap();
    // o200k averages ~4.3 chars a token on this JSON (scripts/mcp/count-tokens.mjs counts it
    // exactly): 6,000 chars keep the list under a 1,400-token budget, about a third of
    // Playwright MCP's. (It was 1,000 until the network, vitals and audit steps and the target
    // fields an agent could not see in the schema; 1,100 until drag, upload, dialogs, the pointer
    // steps and the page's own tools.)
    assert!(compact.len() < 6_000, "{} chars", compact.len());
    dump("tools-list.json", &compact);
}

/// Writes what `scripts/mcp/count-tokens.mjs` counts to `target/mcp/`.
fn dump(name: &str, text: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp");
    std::fs::create_dir_all(&dir).expect("target/mcp");
    std::fs::write(dir.join(name), text).expect("dump");
}

#[tokio::test]
async fn the_version_header_is_checked_and_batches_follow_the_revision() {
    let agent = agent();
    for bad in ["2024-11-05", "2030-01-01", "latest"] {
        let r = post(&agent, &[(mcp::VERSION_HEADER, bad)], &request(1, "ping", json!({}))).await;
        let (code, message) = r.rpc_error();
        assert_eq!((r.status, code), (400, -32022), "{bad}");
        assert_eq!(message, format!("unsupported protocol version {bad:?}: this server speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26"));
        assert_eq!(
            r.json()["error"]["data"],
            json!({"supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"], "requested": bad})
        );
    }
    let batch = json!([request(1, "ping", json!({})), {"jsonrpc": "2.0", "method": "notifications/initialized"}, request(2, "nope", json!({}))]);
    for header in ["", "2025-03-26"] {
        let r = post(&agent, &[(mcp::VERSION_HEADER, header)], &batch).await;
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        let answers = v.as_array().unwrap();
        assert_eq!(answers.len(), 2, "the notification gets no answer: {v}");
        assert_eq!(
            (answers[0]["id"].as_u64(), answers[0]["result"].clone()),
            (Some(1), json!({}))
        );
        assert_eq!(answers[1]["error"]["code"], -32601);
    }
    let only_notes = json!([{"jsonrpc": "2.0", "method": "notifications/initialized"}]);
    let r = post(&agent, &[], &only_notes).await;
    assert_eq!((r.status, r.body.len()), (202, 0));
    let r = post(&agent, &[], &json!([])).await;
    assert_eq!(
        (r.status, r.rpc_error()),
        (400, (-32600, "invalid request: the batch is empty".to_owned()))
    );
    for header in ["2025-06-18", "2025-11-25", MODERN] {
        let r = post(&agent, &[(mcp::VERSION_HEADER, header)], &batch).await;
        assert_eq!(r.status, 400);
        assert_eq!(r.rpc_error(), (-32600, format!("invalid request: JSON-RPC batches are allowed only with MCP-Protocol-Version 2025-03-26 (this request speaks {header}); send one message per POST")));
    }
}

#[tokio::test]
async fn modern_requests_are_stateless_and_their_headers_must_mirror_the_body() {
    let agent = agent();
    let headers = |method: &'static str| vec![(mcp::VERSION_HEADER, MODERN), (mcp::METHOD_HEADER, method)];
    let discover = request(1, "server/discover", json!({"_meta": modern_meta()}));
    let r = post(&agent, &headers("server/discover"), &discover).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let result = r.json()["result"].clone();
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    assert_eq!(
        (result["resultType"].as_str(), result["cacheScope"].as_str()),
        (Some("complete"), Some("private"))
    );
    assert_eq!(result["_meta"][mcp::META_SERVER_INFO]["name"], "browser-agent");
    assert_eq!(result["capabilities"]["tools"], json!({"listChanged": true}));

    let list = request(2, "tools/list", json!({"_meta": modern_meta()}));
    let r = post(&agent, &headers("tools/list"), &list).await;
    let result = r.json()["result"].clone();
    assert_eq!(result["tools"].as_array().map(Vec::len), Some(5));
    assert_eq!(
        (result["resultType"].as_str(), result["ttlMs"].as_u64()),
        (Some("complete"), Some(60_000))
    );

    let pages = request(
        3,
        "tools/call",
        json!({"name": "browser_pages", "_meta": modern_meta()}),
    );
    let mut h = headers("tools/call");
    h.push((mcp::NAME_HEADER, "browser_pages"));
    let r = post(&agent, &h, &pages).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["result"]["resultType"], "complete");
    let (text, failed) = r.tool_text();
    assert!(!failed && text.starts_with("No page is connected"), "{text}");
    // The base64 sentinel form of Mcp-Name is decoded before it is compared.
    h.pop();
    h.push((mcp::NAME_HEADER, "=?base64?YnJvd3Nlcl9wYWdlcw==?="));
    assert_eq!(post(&agent, &h, &pages).await.status, 200);

    let r = post(
        &agent,
        &headers("prompts/list"),
        &request(4, "prompts/list", json!({"_meta": modern_meta()})),
    )
    .await;
    assert_eq!(
        (r.status, r.rpc_error().0),
        (404, -32601),
        "an unknown modern method is a 404"
    );

    for (sent, body, message) in [
        (vec![(mcp::METHOD_HEADER, "tools/list")], list.clone(), "header mismatch: the MCP-Protocol-Version header is missing; it must be \"2026-07-28\""),
        (vec![(mcp::VERSION_HEADER, MODERN)], list.clone(), "header mismatch: the Mcp-Method header is missing; it must be \"tools/list\""),
        (headers("tools/call"), list.clone(), "header mismatch: Mcp-Method header value \"tools/call\" does not match body value \"tools/list\""),
        (
            vec![(mcp::VERSION_HEADER, MODERN), (mcp::METHOD_HEADER, "tools/call"), (mcp::NAME_HEADER, "browser_logs")],
            pages.clone(),
            "header mismatch: Mcp-Name header value \"browser_logs\" does not match body value \"browser_pages\"",
        ),
        (headers("tools/list"), request(5, "tools/list", json!({})), "header mismatch: MCP-Protocol-Version 2026-07-28 needs params._meta[\"io.modelcontextprotocol/protocolVersion\"] = \"2026-07-28\" in the body"),
        (
            vec![(mcp::VERSION_HEADER, "2025-11-25"), (mcp::METHOD_HEADER, "tools/list")],
            list.clone(),
            "header mismatch: MCP-Protocol-Version header value \"2025-11-25\" does not match body value \"2026-07-28\"",
        ),
    ] {
        let r = post(&agent, &sent, &body).await;
        assert_eq!((r.status, r.rpc_error()), (400, (-32020, message.to_owned())));
    }
    let future = request(6, "tools/list", json!({"_meta": {(mcp::META_VERSION): "2027-01-01"}}));
    let r = post(&agent, &headers("tools/list"), &future).await;
    assert_eq!((r.status, r.rpc_error().0), (400, -32022));
}

#[tokio::test]
async fn refusals_origin_type_size_token_method_host_and_oauth() {
    let agent = agent();
    let ping = request(1, "ping", json!({})).to_string();
    for method in ["DELETE", "PUT"] {
        let r = send(&agent, method, URL, &[], b"").await;
        assert_eq!((r.status, r.header("allow")), (405, Some("GET, POST")), "{method}");
        assert_eq!(
            r.rpc_error(),
            (
                -32600,
                format!("method {method} is not allowed on {URL}; allowed: GET, POST")
            )
        );
        assert_eq!(r.json()["id"], Value::Null);
    }
    // GET opens the event stream (the pages' own tools changing): only with its Accept.
    let r = send(&agent, "GET", URL, &[], b"").await;
    assert_eq!(r.status, 406);
    assert_eq!(r.rpc_error().0, -32600);
    assert!(
        r.rpc_error().1.contains("Accept: text/event-stream"),
        "{:?}",
        r.rpc_error()
    );
    for origin in ["http://evil.example", "http://127.0.0.1:3000", "null"] {
        let r = send(&agent, "POST", URL, &[JSON, ("origin", origin)], ping.as_bytes()).await;
        assert_eq!(r.status, 403, "{origin}");
        let (code, message) = r.rpc_error();
        assert_eq!(code, -32600);
        assert_eq!(message, format!("refused: the MCP endpoint does not accept requests with an Origin header (Origin {origin:?}); MCP clients are not browsers and send none. Allow one with BrowserAgent::builder().mcp_allow_origin(\"{origin}\") (the CLI: --mcp-allow-origin {origin}) (this check blocks DNS rebinding and cross-site requests)"));
    }
    let r = send(&agent, "GET", URL, &[("origin", "http://evil.example")], b"").await;
    assert_eq!(r.status, 403, "a browser is refused whatever it asks");
    let inspector = BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .mcp_allow_origin("http://localhost:6274")
        .build();
    let r = send(
        &inspector,
        "POST",
        URL,
        &[JSON, ("origin", "http://localhost:6274")],
        ping.as_bytes(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        r.header("access-control-allow-origin").is_none(),
        "no CORS, even when allowed"
    );

    for ct in ["", "text/plain", "application/x-www-form-urlencoded"] {
        let r = send(&agent, "POST", URL, &[("content-type", ct)], ping.as_bytes()).await;
        assert_eq!(r.status, 415, "{ct:?}");
        assert_eq!(r.rpc_error().1, format!("POST {URL} needs Content-Type: application/json (one JSON-RPC message, or a batch where the revision allows it)"));
    }
    assert_eq!(
        send(
            &agent,
            "POST",
            URL,
            &[("content-type", "application/json; charset=utf-8")],
            ping.as_bytes()
        )
        .await
        .status,
        200
    );

    let too_large = (
        -32600,
        "request body is larger than the limit of 65536 bytes".to_owned(),
    );
    let r = send(&agent, "POST", URL, &[JSON, ("content-length", "70000")], b"{}").await;
    assert_eq!(
        (r.status, r.rpc_error()),
        (413, too_large.clone()),
        "refused on the declared length"
    );
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"pad\":\"{}\"}}",
        "x".repeat(65_536)
    );
    let r = send(&agent, "POST", URL, &[JSON], big.as_bytes()).await;
    assert_eq!((r.status, r.rpc_error()), (413, too_large));

    for host in ["evil.example", "192.168.0.10:3000", ""] {
        let r = send(&agent, "POST", URL, &[JSON, ("host", host)], ping.as_bytes()).await;
        assert_eq!(r.status, 403, "{host:?}");
        assert!(r.rpc_error().1.starts_with("refused: "), "{}", r.text());
    }

    let guarded = BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .bearer_token("t0ken")
        .build();
    let r = send(&guarded, "POST", URL, &[JSON], ping.as_bytes()).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.rpc_error().1, "refused: this agent route needs the header Authorization: Bearer <token> configured with BrowserAgent::builder().bearer_token(…) (the CLI: --token)");
    let r = send(
        &guarded,
        "POST",
        URL,
        &[JSON, ("authorization", "Bearer t0ken")],
        ping.as_bytes(),
    )
    .await;
    assert_eq!(r.status, 200);

    // OAuth discovery for our endpoint is ours, and finds nothing; the app's own paths stay the app's.
    for path in [
        "/.well-known/oauth-protected-resource/__mindstudio_dev__/mcp",
        "/.well-known/oauth-authorization-server/__mindstudio_dev__/mcp",
        "/.well-known/openid-configuration/__mindstudio_dev__/mcp",
    ] {
        assert!(agent.is_ours(path), "{path}");
        let r = send(&agent, "GET", path, &[], b"").await;
        assert_eq!(
            (r.status, r.json()["error"].as_str().map(str::to_owned)),
            (404, Some(format!("no browser-agent route GET {path}")))
        );
    }
    for path in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-protected-resource",
    ] {
        assert!(!agent.is_ours(path), "{path}");
    }
    let off = BrowserAgent::builder().enabled(false).page_key(KEY).build();
    assert!(!off.is_ours(URL), "off (release builds) like every other route");
}

/// A page `client` that heartbeats (alive, visible, polling).
async fn open_page(agent: &BrowserAgent, client: &str) {
    let url = format!("/browser/probe?key={KEY}&client={client}&page=http%3A%2F%2F127.0.0.1%3A3000%2F&title=Demo&phase=ready&visible=1&focused=1");
    assert_eq!(send(agent, "GET", &url, &[], b"").await.status, 200);
    let poll = format!("{P}/commands?client={client}&wait=0");
    assert_eq!(
        send(agent, "GET", &poll, &[("x-browser-agent-key", KEY)], b"")
            .await
            .status,
        204
    );
}

/// The page side of one batch: takes it from the long-poll, checks its steps, answers `results`.
fn page_answers(agent: &BrowserAgent, client: &str, steps: Value, results: Value) -> tokio::task::JoinHandle<()> {
    let (agent, client) = (agent.clone(), client.to_owned());
    tokio::spawn(async move {
        let poll = format!("{P}/commands?client={client}&wait=10000");
        let r = send(&agent, "GET", &poll, &[("x-browser-agent-key", KEY)], b"").await;
        assert_eq!(r.status, 200, "the page gets the batch: {}", r.text());
        let batch = r.json();
        assert_eq!(batch["steps"], steps);
        let mut results = results;
        results["id"] = batch["id"].clone();
        let r = send(
            &agent,
            "POST",
            &format!("{P}/results"),
            &[("x-browser-agent-key", KEY), JSON],
            results.to_string().as_bytes(),
        )
        .await;
        assert_eq!(r.status, 204, "{}", r.text());
    })
}

/// A log text without its entries' `4.2s ago ` (which depends on how fast the test ran).
fn no_ago(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(" ago ") {
            Some(end) => {
                let start = line[..end].rfind(' ').map_or(0, |s| s + 1);
                format!("{}{}\n", &line[..start], &line[end + 5..])
            }
            None => format!("{line}\n"),
        })
        .collect()
}

const BEFORE: &str = "heading \"Items\" [level=2]\ntextbox \"New item\" [ref=e5]\nbutton \"Add\" [ref=e6]\nlist\n  listitem \"Write the README\"\nstatus \"Ready.\"";

#[tokio::test]
async fn tools_run_against_a_page_and_answer_in_text() {
    let agent = agent();
    open_page(&agent, "pg1").await;

    let (text, failed) = call_tool(&agent, "browser_pages", json!({})).await;
    assert!(!failed);
    assert_eq!(
        text,
        "1 page(s)\npg1 alive visible focused \"Demo\" http://127.0.0.1:3000/ (default target)\n"
    );

    // A first snapshot: the full text.
    let page = page_answers(
        &agent,
        "pg1",
        json!([{"command": "snapshot"}]),
        json!({"steps": [{"index": 0, "command": "snapshot", "result": BEFORE}], "snapshot": BEFORE, "duration": 4, "logs": []}),
    );
    let (text, failed) = call_tool(&agent, "browser_snapshot", json!({})).await;
    page.await.unwrap();
    assert!(!failed);
    assert_eq!(text, format!("page pg1:\n{BEFORE}\n"));

    // A click that adds one line: what it matched, the diff, the log it caused.
    let after = BEFORE.replace(
        "  listitem \"Write the README\"",
        "  listitem \"Write the README\"\n  listitem \"Buy milk\"",
    );
    let steps = json!([{"command": "click", "ref": "e6"}]);
    let page = page_answers(
        &agent,
        "pg1",
        steps.clone(),
        json!({"steps": [{"index": 0, "command": "click", "result": "clicked", "matched": "button \"Add\" [ref=e6]", "at": 35,
                          "target": {"label": "button \"Add\" [ref=e6]", "box": {"x": 10, "y": 200, "w": 48, "h": 30}}, "viewport": {"w": 1280, "h": 800}}],
               "snapshot": after, "duration": 61,
               "logs": [{"type": "interaction", "event": "click", "target": "button \"Add\"", "clientId": "pg1", "seq": 3},
                        {"type": "console", "level": "log", "args": ["demo: added", "Buy milk"], "clientId": "pg1", "seq": 4}]}),
    );
    let (click, failed) = call_tool(&agent, "browser_run", json!({"steps": steps})).await;
    page.await.unwrap();
    assert!(!failed, "{click}");
    assert_eq!(
        click,
        "batch b1 · page pg1: 1 step(s) in 61 ms\n1. click button \"Add\" [ref=e6]: clicked\nchanges:\n+ listitem \"Buy milk\"\nlogs:\n#2 log console demo: added Buy milk\n",
        "the page's interaction entry echoes the step: left out; the batch's own entries need no time"
    );
    // ≤ 120 o200k tokens is the budget (scripts/mcp/count-tokens.mjs counts it); 4 chars a token
    // at the least, so 480 chars bound it here.
    assert!(click.len() <= 480, "{} chars", click.len());
    dump("click-answer.txt", &click);

    let (logs, failed) = call_tool(&agent, "browser_logs", json!({"level": ["log"], "limit": 5})).await;
    assert!(!failed);
    assert_eq!(
        no_ago(&logs),
        "1 entry (lastSeq 2) · page http://127.0.0.1:3000/ (client pg1, alive)\n#2 [b1] log console demo: added Buy milk\n"
    );
    assert!(logs.contains("\n#2 0.") && logs.contains("s ago [b1] log"), "{logs}");
    let (logs, _) = call_tool(&agent, "browser_logs", json!({"type": "interaction"})).await;
    assert!(
        no_ago(&logs).ends_with("\n#1 [b1] info interaction click button \"Add\"\n"),
        "{logs}"
    );
    let (logs, _) = call_tool(&agent, "browser_logs", json!({"afterSeq": 2})).await;
    assert!(logs.starts_with("0 entries (lastSeq 2)"), "{logs}");
    assert!(!logs.contains("Server entries are"), "{logs}");
    // No server entries: the answer says what would have been one (a 4xx is the page's).
    let (logs, _) = call_tool(&agent, "browser_logs", json!({"type": "server"})).await;
    assert!(
        logs.starts_with("0 entries") && logs.ends_with(super::text::NO_SERVER_ENTRIES),
        "{logs}"
    );

    let (actions, failed) = call_tool(&agent, "browser_actions", json!({"client": "pg1"})).await;
    assert!(!failed);
    assert_eq!(
        actions,
        "2 action(s) on page pg1 (http://127.0.0.1:3000/)\nsnapshot\nclick button \"Add\" [ref=e6] box 10,200 48x30 at +35 ms viewport 1280x800: clicked\n"
    );

    // A failing step is a tool error that says which step and why.
    let steps = json!([{"command": "click", "text": "Nope"}]);
    let page = page_answers(
        &agent,
        "pg1",
        steps.clone(),
        json!({"steps": [{"index": 0, "command": "click", "error": "No element with text \"Nope\" found. Visible buttons: \"Add\""}], "snapshot": after, "duration": 9, "logs": []}),
    );
    let (text, failed) = call_tool(&agent, "browser_run", json!({"steps": steps, "client": "pg1"})).await;
    page.await.unwrap();
    assert!(failed);
    assert_eq!(text, "batch b2 · page pg1: 1 step(s) in 9 ms\n1. click: FAILED: No element with text \"Nope\" found. Visible buttons: \"Add\"\npage: (no changes)\n");

    let (text, failed) = call_tool(&agent, "browser_snapshot", json!({"client": "gone-page"})).await;
    assert!(failed);
    assert_eq!(
        text,
        "No page with client id \"gone-page\" is connected. Open pages: \"pg1\" (http://127.0.0.1:3000/)\n"
    );
    // The logs and the action log of a page nobody knows: the same error, not an empty answer
    // whose header says no page ever connected.
    for tool in ["browser_logs", "browser_actions"] {
        let (text, failed) = call_tool(&agent, tool, json!({"client": "gone-page"})).await;
        assert!(failed, "{tool}: {text}");
        assert!(
            text.starts_with("No page with client id \"gone-page\""),
            "{tool}: {text}"
        );
    }
    let (text, failed) = call_tool(&agent, "browser_logs", json!({"levels": ["error"]})).await;
    assert!(failed);
    assert!(text.contains("unknown parameter \"levels\""), "{text}");
    let (text, failed) = call_tool(&agent, "browser_actions", json!({"proof": "begin"})).await;
    assert!(failed);
    assert!(
        text.contains("\"proof\" must be start, stop or status, not \"begin\""),
        "{text}"
    );
}

#[tokio::test]
async fn proof_answers_say_what_to_call_in_this_tool() {
    // An agent on MCP follows the text: it names browser_actions, not a tool or route it lacks.
    let dir = std::env::temp_dir().join(format!("ba-mcp-proof-{}", std::process::id()));
    let agent = BrowserAgent::builder().enabled(true).proof_dir(&dir).build();
    let (text, failed) = call_tool(&agent, "browser_actions", json!({"proof": "stop"})).await;
    assert!(failed);
    assert_eq!(
        text,
        "no proof session is running; start one with browser_actions {\"proof\":\"start\",\"description\":\"…\"}"
    );
    let start = json!({"proof": "start", "description": "login works"});
    let (text, failed) = call_tool(&agent, "browser_actions", start.clone()).await;
    assert!(!failed, "{text}");
    assert!(
        text.contains("Work in the page, then browser_actions {\"proof\":\"stop\"}."),
        "{text}"
    );
    let (text, failed) = call_tool(&agent, "browser_actions", start).await;
    assert!(failed);
    assert!(
        text.contains("stop it with browser_actions {\"proof\":\"stop\"}, or start with \"force\": true"),
        "{text}"
    );
    let (_, failed) = call_tool(&agent, "browser_actions", json!({"proof": "stop"})).await;
    assert!(!failed);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn evaluate_results_are_redacted_as_logs_are() {
    // A secret a script reads back is not repeated in the answer, as the page's console entries
    // with it are not; a plain value read back stays.
    let agent = agent();
    open_page(&agent, "pg1").await;
    let steps = json!([
        {"command": "evaluate", "script": "({password: 'hunter2', user: 'ada'})"},
        {"command": "evaluate", "script": "document.cookie"},
        {"command": "evaluate", "script": "f()"}
    ]);
    let page = page_answers(
        &agent,
        "pg1",
        steps.clone(),
        json!({"steps": [
            {"index": 0, "command": "evaluate", "result": {"password": "hunter2", "user": "ada"}},
            {"index": 1, "command": "evaluate", "result": "Bearer A1b2C3d4E5f6 and plain"},
            {"index": 2, "command": "evaluate", "error": "evaluate failed: Error: bad Bearer A1b2C3d4E5f6"}
        ], "snapshot": BEFORE, "duration": 5, "logs": [], "error": "evaluate failed: Error: bad Bearer A1b2C3d4E5f6"}),
    );
    let (text, failed) = call_tool(&agent, "browser_run", json!({"steps": steps})).await;
    page.await.unwrap();
    assert!(failed, "{text}");
    assert!(!text.contains("hunter2") && !text.contains("A1b2C3d4E5f6"), "{text}");
    assert!(
        text.contains(r#""password":"[redacted]""#) && text.contains("ada"),
        "{text}"
    );
    assert!(text.contains("Bearer [redacted] and plain"), "{text}");
}

#[tokio::test]
async fn evaluate_with_no_value_says_so() {
    // Issue 33: a script that returned undefined answered "[undefined]", which read like data.
    // The page leaves its result out; the text says there is no value, and null is null.
    let agent = agent();
    open_page(&agent, "pg1").await;
    let steps = json!([
        {"command": "evaluate", "script": "void 0"},
        {"command": "evaluate", "script": "null"},
        {"command": "click", "text": "Save"}
    ]);
    let page = page_answers(
        &agent,
        "pg1",
        steps.clone(),
        json!({"steps": [
            {"index": 0, "command": "evaluate"},
            {"index": 1, "command": "evaluate", "result": null},
            {"index": 2, "command": "click"}
        ], "snapshot": BEFORE, "duration": 5, "logs": []}),
    );
    let (text, failed) = call_tool(&agent, "browser_run", json!({"steps": steps})).await;
    page.await.unwrap();
    assert!(!failed, "{text}");
    assert!(
        text.contains("1. evaluate: no value (the script returned undefined)\n"),
        "{text}"
    );
    assert!(text.contains("2. evaluate: null\n"), "{text}");
    assert!(text.contains("3. click: ok\n"), "{text}");
}

#[tokio::test]
async fn screenshots_come_as_the_format_asked_and_as_png_in_a_proof() {
    // Issue 33: MCP screenshots can be asked for as PNG or JPEG (JPEG when not asked); while a
    // proof session records, as PNG like the proof's own pictures, so its folder is one format.
    let dir = std::env::temp_dir().join(format!("ba-mcp-format-{}", crate::util::random_hex(6)));
    let agent = BrowserAgent::builder()
        .enabled(true)
        .page_key(KEY)
        .body_limit(65_536)
        .proof_dir(&dir)
        .build();
    open_page(&agent, "pg1").await;
    let shot = |format: &str| json!({"index": 0, "command": "screenshot", "result": {"format": format}});
    let answer = |format: &str| json!({"steps": [shot(format)], "snapshot": BEFORE, "duration": 5, "logs": []});
    for (asked, sent) in [
        (json!({"command": "screenshot", "format": "png"}), "png"),
        (json!({"command": "screenshot", "format": "PNG"}), "png"),
        (json!({"command": "screenshot", "format": "JPG"}), "jpg"),
        (json!({"command": "screenshot"}), "jpeg"),
    ] {
        let mut expected = asked.clone();
        expected["format"] = sent.into();
        let page = page_answers(&agent, "pg1", json!([expected]), answer(sent));
        let (text, failed) = call_tool(&agent, "browser_run", json!({"steps": [asked]})).await;
        assert!(!failed, "{text}");
        page.await.unwrap();
    }
    let (text, failed) = call_tool(
        &agent,
        "browser_actions",
        json!({"proof": "start", "description": "one format"}),
    )
    .await;
    assert!(!failed, "{text}");
    let page = page_answers(
        &agent,
        "pg1",
        json!([{"command": "screenshot", "format": "png"}]),
        answer("png"),
    );
    let (text, failed) = call_tool(&agent, "browser_run", json!({"steps": [{"command": "screenshot"}]})).await;
    page.await.unwrap();
    assert!(!failed, "{text}");
    let (text, failed) = call_tool(&agent, "browser_actions", json!({"proof": "stop"})).await;
    assert!(!failed, "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn without_a_page_the_texts_say_where_to_open_the_app() {
    // QA8: with --port 0 and --mcp-stdio the agent could not tell where the app is.
    let agent = BrowserAgent::builder()
        .enabled(true)
        .app_url("http://127.0.0.1:6173/")
        .build();
    let (pages, _) = call_tool(&agent, "browser_pages", json!({})).await;
    assert!(pages.starts_with("No page is connected: open http://"), "{pages}");
    let (logs, _) = call_tool(&agent, "browser_logs", json!({})).await;
    assert!(logs.contains("no page has connected yet: open http://"), "{logs}");
}

#[tokio::test]
async fn browser_pages_refuses_arguments_it_does_not_take() {
    let (text, failed) = call_tool(&agent(), "browser_pages", json!({"client": "c1"})).await;
    assert!(failed);
    assert_eq!(
        text,
        "browser_pages: unknown argument \"client\": browser_pages takes none"
    );
}

#[tokio::test]
async fn browser_logs_reads_by_batch_and_each_line_says_when() {
    let agent = agent();
    open_page(&agent, "pg1").await;
    let (text, failed) = call_tool(&agent, "browser_logs", json!({"sinceBatch": "last"})).await;
    assert!(failed);
    assert_eq!(text, "browser_logs: sinceBatch \"last\": no batch has run yet");
    let steps = json!([{"command": "click", "ref": "e6"}]);
    let page = page_answers(
        &agent,
        "pg1",
        steps.clone(),
        json!({"steps": [{"index": 0, "command": "click", "result": "clicked"}], "snapshot": "main", "duration": 5,
               "logs": [{"type": "console", "level": "error", "args": ["boom"], "clientId": "pg1", "seq": 7}]}),
    );
    let (click, failed) = call_tool(&agent, "browser_run", json!({"steps": steps})).await;
    page.await.unwrap();
    assert!(!failed, "{click}");
    assert!(click.starts_with("batch b1 · page pg1:"), "{click}");
    assert!(
        click.ends_with("logs:\n#1 error console boom\n"),
        "its own entries need no time: {click}"
    );

    for args in [
        json!({"sinceBatch": "last"}),
        json!({"batch": "b1"}),
        json!({"batch": 1}),
    ] {
        let (logs, failed) = call_tool(&agent, "browser_logs", args.clone()).await;
        assert!(!failed, "{args}: {logs}");
        assert_eq!(
            no_ago(&logs).lines().nth(1),
            Some("#1 [b1] error console boom"),
            "{args}: {logs}"
        );
        assert!(logs.contains("s ago [b1] error"), "{logs}");
    }
    for (args, why) in [
        (
            json!({"batch": "b2"}),
            "browser_logs: batch \"b2\": no such batch yet; the last is b1",
        ),
        (
            json!({"batch": "first"}),
            "browser_logs: invalid batch \"first\": use a batch id as a batch's answer names it (b7, or 7), or last",
        ),
        (
            json!({"sinceBatch": true}),
            "browser_logs: \"sinceBatch\" must be a batch id (\"b7\") or \"last\", not true",
        ),
    ] {
        let (text, failed) = call_tool(&agent, "browser_logs", args.clone()).await;
        assert!(failed, "{args}");
        assert_eq!(text, why);
    }
}

#[test]
fn the_tools_say_select_works_on_aria_comboboxes() {
    let option = &super::tools::list()[3]["inputSchema"]["properties"]["steps"]["items"]["properties"]["option"];
    assert!(
        option["description"].as_str().unwrap().contains("ARIA combobox"),
        "{option}"
    );
}

#[test]
fn a_navigation_that_ended_elsewhere_says_where() {
    let steps = |v: Value| -> Vec<crate::protocol::StepResult> { serde_json::from_value(v).unwrap() };
    let posted = steps(json!([
        {"index": 0, "command": "fill", "result": "filled \"ana\""},
        {"index": 1, "command": "click", "result": "clicked; navigating to http://127.0.0.1:3000/login; it started no requests"},
        {"index": 2, "command": "snapshot", "result": "heading \"Invoices\""},
    ]));
    let now_at = "http://127.0.0.1:3000/invoices";
    assert_eq!(
        super::text::arrived_elsewhere(&posted, now_at).as_deref(),
        Some("now at http://127.0.0.1:3000/invoices (redirected from /login)")
    );
    // Arrived where it said (a fragment aside), or something acted after it: nothing to say.
    assert_eq!(
        super::text::arrived_elsewhere(&posted, "http://127.0.0.1:3000/login#top"),
        None
    );
    let acted_after = steps(json!([
        {"index": 0, "command": "click", "result": "clicked; navigating to http://127.0.0.1:3000/a"},
        {"index": 1, "command": "click", "result": "clicked"},
    ]));
    assert_eq!(
        super::text::arrived_elsewhere(&acted_after, "http://127.0.0.1:3000/b"),
        None
    );
    // Another origin is named whole.
    let away = steps(json!([{"index": 0, "command": "navigate", "result": "navigating to http://127.0.0.1:4000/sso"}]));
    assert_eq!(
        super::text::arrived_elsewhere(&away, now_at).as_deref(),
        Some("now at http://127.0.0.1:3000/invoices (redirected from http://127.0.0.1:4000/sso)")
    );
}

#[test]
fn a_step_failing_after_one_opened_a_page_says_where_the_steps_ran() {
    let steps: Vec<crate::protocol::StepResult> = serde_json::from_value(json!([
        {"index": 0, "command": "click", "result": "clicked; opened page 9a89783238633b4c: http://127.0.0.1:3000/invoices/7 (popup of 57dfbd07b8d06d4a)"},
        {"index": 1, "command": "wait", "error": "Timed out after 5000 ms waiting for \"INV-7\" to appear"},
    ]))
    .unwrap();
    let result = crate::BatchResult {
        event: "browser-completed",
        client_id: "57dfbd07b8d06d4a".into(),
        steps,
        snapshot: String::new(),
        logs: vec![],
        duration: 5,
        error: Some("Timed out".into()),
        dialogs: vec![],
        full_snapshot: String::new(),
    };
    let text = super::text::batch(&result);
    assert!(
        text.contains("\n(step 1 opened page 9a89783238633b4c; the steps after it ran here, on 57dfbd07b8d06d4a: send them to the new page with \"client\": \"9a89783238633b4c\")\n"),
        "{text}"
    );
    // Nothing failed: nothing to say.
    let mut ok = result;
    ok.steps.truncate(1);
    assert!(!super::text::batch(&ok).contains("send them to the new page"));
}
