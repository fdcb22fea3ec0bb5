//! The network behind a failure (issue 33 item 4), in real headless Chromium: every fetch/XHR
//! entry has its content types and sizes; a failed answer's body comes with its entry; the
//! `network` step answers an entry's request and response bodies (bounded, redacted) over HTTP
//! and MCP, and a WebSocket's last messages; sockets log open, close and error; bad input gets
//! a clear error.
//!
//! The WebSocket server is a small one of the test's own on 127.0.0.1 (the handshake and text
//! frames of RFC 6455, SHA-1 included): no dependency for a test fixture.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse};
use axum::routing::{get, post};
use axum::Router;
use browser_agent_tower::BrowserAgentLayer;
use browser_tests::{
    agent, any_port, mcp_tool, run, run_raw, shared_browser, wait_for, within, Server, SCENARIO_DEADLINE,
};
use serde_json::{json, Value};

/// The failing order's answer: JSON with a secret-named field.
const ORDER_FAILED: &str = r#"{"error":"out of stock","item":"lamp","token":"tok_9f8e7d6c5b4a3210"}"#;

/// The test app: the fixture page, a failing order, a list, a big answer; the agent's layer.
fn app(agent: browser_agent_core::BrowserAgent) -> Router {
    Router::new()
        .route(
            "/network.html",
            get(|| async { Html(include_str!("../fixtures/network/page.html")) }),
        )
        .route(
            "/api/order",
            post(|| async {
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    [("content-type", "application/json")],
                    ORDER_FAILED,
                )
                    .into_response()
            }),
        )
        .route(
            "/api/items",
            get(|| async { ([("content-type", "application/json")], r#"{"items":["a","b","c"]}"#).into_response() }),
        )
        .route(
            "/api/keys",
            post(|| async {
                (
                    StatusCode::CREATED,
                    [("content-type", "application/json")],
                    r#"{"id":"k9","name":"CI","token":"tok_live_0a1b2c3d4e5f"}"#,
                )
                    .into_response()
            }),
        )
        .route(
            "/api/profile",
            axum::routing::put(
                |body: String| async move { ([("content-type", "application/json")], body).into_response() },
            )
            .patch(|| async {
                (
                    [("content-type", "application/json")],
                    r#"{"name":"Alex","slug":"alex"}"#,
                )
                    .into_response()
            }),
        )
        .route(
            "/api/big",
            get(|| async { ([("content-type", "text/plain")], "x".repeat(10_000)).into_response() }),
        )
        .layer(BrowserAgentLayer::with_agent(agent))
}

/// The page's entries of type `kind`, once `check` finds the one wanted among them.
async fn entry(server: &Server, id: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    wait_for(what, Duration::from_secs(10), || {
        server.logs_of(id).into_iter().find(|e| check(e))
    })
    .await
}

/// `{"command":"network","seq":…}` over `POST /run`: the step's result text (it must succeed).
async fn network(server: &Server, id: &str, seq: u64) -> String {
    let v = run(server, id, json!([{"command": "network", "seq": seq}])).await;
    let step = &v["steps"][0];
    step["result"]
        .as_str()
        .unwrap_or_else(|| panic!("network #{seq} answers text: {step}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_bodies_sizes_and_sockets() {
    let browser = shared_browser().await;
    let agent = agent();
    let running = browser_agent_testkit::axum_app::serve(app(agent.clone()), any_port()).expect("serve");
    let server = Server::from_running(agent, running);
    let ws = socket_server();
    within("network", SCENARIO_DEADLINE, async {
        let id = browser_tests::open(&browser.client, &server, "/network.html").await;

        // A fetch POST with a JSON body, answered 500: its entry carries the body (redacted) and
        // the types and sizes of both sides.
        let sent = r#"{"item":"lamp","qty":2,"password":"hunter2"}"#;
        run(&server, &id, json!([{"command": "evaluate", "script": "return order()"}])).await;
        let failed = entry(&server, &id, "the failed order's entry", |e| {
            e["type"] == "network" && e["url"] == "/api/order" && e["via"] == "fetch"
        })
        .await;
        assert_eq!(failed["status"], 500, "{failed}");
        assert_eq!(failed["level"], "error", "{failed}");
        let body = failed["body"].as_str().unwrap_or_else(|| panic!("a failed answer's body: {failed}"));
        assert!(body.contains(r#""error":"out of stock""#), "{body}");
        assert!(body.contains(r#""token":"[redacted]""#) && !body.contains("tok_9f8e"), "{body}");
        assert_eq!(failed["reqType"], "application/json", "{failed}");
        assert_eq!(failed["reqSize"], sent.len(), "{failed}");
        assert_eq!(failed["resType"], "application/json", "{failed}");
        assert_eq!(failed["resSize"], ORDER_FAILED.len(), "{failed}");
        // What the agent's batch sent is on the entry, redacted, and on its line over MCP.
        let preview = failed["reqBody"].as_str().unwrap_or_else(|| panic!("the sent body: {failed}"));
        assert_eq!(preview, r#"{"item":"lamp","qty":2,"password":"[redacted]"}"#, "{failed}");
        let answer = mcp_tool(&server, "browser_run", json!({"steps": [{"command": "evaluate", "script": "return order()"}], "client": id}));
        let line_text = answer["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            line_text.contains(r#"POST /api/order"#)
                && line_text.contains(r#" · sent: {"item":"lamp","qty":2,"password":"[redacted]"} · body: {"error":"out of stock""#),
            "{line_text}"
        );
        assert!(!line_text.contains("hunter2"), "{line_text}");

        // On demand, over HTTP: the request and the response body, redacted; no header.
        let seq = failed["seq"].as_u64().unwrap();
        let text = network(&server, &id, seq).await;
        assert!(text.starts_with(&format!("POST /api/order → 500 Internal Server Error (#{seq})\n")), "{text}");
        assert!(
            text.contains(&format!("request body (application/json, {} B):\n", sent.len())),
            "{text}"
        );
        assert!(text.contains(r#"{"item":"lamp","qty":2,"password":"[redacted]"}"#), "{text}");
        assert!(!text.contains("hunter2") && !text.contains("abcdefghijklmnop1234"), "{text}");
        assert!(
            text.contains(&format!("response body (application/json, {} B):\n", ORDER_FAILED.len())),
            "{text}"
        );
        assert!(
            text.contains(r#"{"error":"out of stock","item":"lamp","token":"[redacted]"}"#),
            "{text}"
        );

        // Over MCP: the same step in browser_run, its text in the answer.
        let answer = mcp_tool(&server, "browser_run", json!({"steps": [{"command": "network", "seq": seq}], "client": id}));
        let mcp_text = answer["content"][0]["text"].as_str().unwrap_or_default();
        assert_ne!(answer["isError"], true, "{answer}");
        assert!(mcp_text.contains("1. network:\nPOST /api/order → 500"), "{mcp_text}");
        assert!(mcp_text.contains(r#""password":"[redacted]""#) && !mcp_text.contains("hunter2"), "{mcp_text}");
        assert!(mcp_text.contains(r#""token":"[redacted]""#), "{mcp_text}");

        // A working read the page consumed: the agent's copy is still there; a second ask too.
        run(&server, &id, json!([{"command": "evaluate", "script": "return items()"}])).await;
        let read = entry(&server, &id, "the items entry", |e| e["url"] == "/api/items").await;
        assert_eq!((&read["status"], &read["resType"]), (&json!(200), &json!("application/json")), "{read}");
        assert_eq!(read["resSize"], 23, "{read}");
        assert!(read.get("body").is_none(), "no body without a failure: {read}");
        assert!(
            read.get("reqSize").is_none() && read.get("reqType").is_none() && read.get("reqBody").is_none(),
            "a GET sends none: {read}"
        );
        let seq_items = read["seq"].as_u64().unwrap();
        for _ in 0..2 {
            let text = network(&server, &id, seq_items).await;
            assert!(text.contains("request body:\n(none)\n"), "{text}");
            assert!(text.contains("response body (application/json, 23 B):\n{\"items\":[\"a\",\"b\",\"c\"]}\n"), "{text}");
        }

        // Bounded: a 10,000-character answer shows its first 4,000.
        run(&server, &id, json!([{"command": "evaluate", "script": "return big()"}])).await;
        let big = entry(&server, &id, "the big entry", |e| e["url"] == "/api/big").await;
        let text = network(&server, &id, big["seq"].as_u64().unwrap()).await;
        assert!(text.contains(&format!("{}… (6000 more chars)\n", "x".repeat(4_000))), "{}", &text[..200]);
        assert!(text.len() < 4_300, "{} chars", text.len());

        // XHR: a form body whose type the page set; its answer.
        run(&server, &id, json!([{"command": "evaluate", "script": "return xhrOrder()"}])).await;
        let xhr = entry(&server, &id, "the XHR entry", |e| e["via"] == "xhr").await;
        assert_eq!(xhr["reqType"], "application/x-www-form-urlencoded", "{xhr}");
        assert_eq!(xhr["reqSize"], "item=lamp&password=hunter2".len(), "{xhr}");
        assert_eq!(xhr["resSize"], ORDER_FAILED.len(), "{xhr}");
        assert!(xhr["body"].as_str().is_some_and(|b| b.contains("out of stock")), "{xhr}");
        let text = network(&server, &id, xhr["seq"].as_u64().unwrap()).await;
        assert!(text.contains("item=lamp&password=[redacted]"), "{text}");
        assert!(text.contains(r#""error":"out of stock""#), "{text}");

        // A failed request the page sent on its own, after the batch (a person's click, a payment
        // frame's form): what it sent is on its entry too, beside the answer.
        let xhr_seq = xhr["seq"].as_u64().unwrap();
        run(&server, &id, json!([{"command": "evaluate", "script": "setTimeout(() => order(), 300); return 1"}])).await;
        let own = entry(&server, &id, "the page's own failed order", |e| {
            e["url"] == "/api/order" && e["via"] == "fetch" && e["seq"].as_u64() > Some(xhr_seq)
        })
        .await;
        assert_eq!(own["reqBody"], r#"{"item":"lamp","qty":2,"password":"[redacted]"}"#, "{own}");

        // WebSockets: open, the messages both ways, a close the server chose; a refused socket.
        let url = format!("ws://{ws}/chat");
        let closed = run(&server, &id, json!([{"command": "evaluate", "script": format!("return chat({url:?})")}])).await;
        assert_eq!(closed["steps"][0]["result"], "4000 done", "{closed}");
        let open = entry(&server, &id, "the socket's open entry", |e| {
            e["type"] == "websocket" && e["event"] == "open"
        })
        .await;
        assert_eq!((&open["level"], &open["url"]), (&json!("info"), &json!(url)), "{open}");
        assert_eq!(open["text"], format!("WebSocket {url} open"), "{open}");
        let close = entry(&server, &id, "the socket's close entry", |e| {
            e["type"] == "websocket" && e["event"] == "close"
        })
        .await;
        assert_eq!(
            close["text"],
            format!("WebSocket {url} closed 4000 (done), 2 sent, 1 received"),
            "{close}"
        );
        assert_eq!((&close["level"], &close["code"]), (&json!("warn"), &json!(4000)), "{close}");
        for e in [&open, &close] {
            let text = network(&server, &id, e["seq"].as_u64().unwrap()).await;
            assert!(
                text.ends_with("2 sent, 1 received; the last 3, oldest first (→ sent, ← received):\n→ hello\n← echo: hello\n→ bye\n"),
                "{text}"
            );
        }
        let nobody = format!("ws://{}/", unused_addr());
        let code = run(&server, &id, json!([{"command": "evaluate", "script": format!("return refused({nobody:?})")}])).await;
        assert_eq!(code["steps"][0]["result"], 1006, "{code}");
        let error = entry(&server, &id, "the refused socket's error", |e| {
            e["type"] == "websocket" && e["event"] == "error"
        })
        .await;
        assert_eq!((&error["level"], &error["text"]), (&json!("error"), &json!(format!("WebSocket {nobody} failed"))));

        // Bad input: each a clear 400 before anything runs, or the page's clear error.
        run(&server, &id, json!([{"command": "evaluate", "script": "console.log('placed'); return 1"}])).await;
        let console = entry(&server, &id, "a console entry", |e| e["type"] == "console").await;
        let last = server.console("limit=1")["lastSeq"].as_u64().unwrap();
        for (steps, says) in [
            (json!([{"command": "network", "seq": last + 100}]), format!("there is no entry #{} yet", last + 100)),
            (
                json!([{"command": "network", "seq": console["seq"]}]),
                format!("entry #{} is a {} entry", console["seq"], console["type"].as_str().unwrap()),
            ),
            (json!([{"command": "network"}]), "network needs".to_owned()),
            (json!([{"command": "network", "seq": "x"}]), "seq".to_owned()),
            (json!([{"command": "network", "seq": 1, "clientSeq": 1}]), "clientSeq".to_owned()),
        ] {
            let (status, v) = run_raw(&server, json!({"steps": steps, "client": id})).await;
            let message = v["error"].as_str().unwrap_or_default();
            assert_eq!(status, 400, "{steps}: {v}");
            assert!(message.contains(&says), "{steps}: {message}");
        }
        let answer = mcp_tool(&server, "browser_run", json!({"steps": [{"command": "network", "seq": last + 100}]}));
        assert_eq!(answer["isError"], true, "{answer}");
        assert!(answer["content"][0]["text"].as_str().unwrap_or_default().contains("no entry"), "{answer}");

        // Out of range in the page: 50 more requests push the failed order out of its ring.
        run(&server, &id, json!([{"command": "evaluate", "script": "for (let i = 0; i < 50; i++) await fetch('/api/items'); return 1"}])).await;
        wait_for("the 50 requests' entries", Duration::from_secs(10), || {
            (server.logs_of(&id).iter().filter(|e| e["url"] == "/api/items").count() >= 51).then_some(())
        })
        .await;
        let v = run(&server, &id, json!([{"command": "network", "seq": seq}])).await;
        let error = v["steps"][0]["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(&format!("the page no longer keeps entry #{seq}: it keeps its last 50")),
            "{v}"
        );
        // A socket stays reachable by its entries when requests pushed them out (its last 10).
        let text = network(&server, &id, open["seq"].as_u64().unwrap()).await;
        assert!(text.ends_with("← echo: hello\n→ bye\n"), "{text}");
    })
    .await;
    server.stop();
}

/// An address nothing listens on (bound, then released).
fn unused_addr() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
}

/// A WebSocket server on 127.0.0.1: answers `hello` with `echo: hello`, closes with 4000 "done"
/// on `bye`, and answers a close with a close.
fn socket_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || {
                let _ = serve_socket(stream);
            });
        }
    });
    addr
}

fn serve_socket(mut s: TcpStream) -> std::io::Result<()> {
    s.set_read_timeout(Some(Duration::from_secs(20)))?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte)?;
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    let key = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("sec-websocket-key")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_default();
    let accept = base64(&sha1(format!("{key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11").as_bytes()));
    write!(
        s,
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
    )?;
    // After a close of ours, the page's close ends the connection (a frame more would be an error).
    let mut closing = false;
    loop {
        let mut h = [0u8; 2];
        s.read_exact(&mut h)?;
        let opcode = h[0] & 0x0f;
        let mut len = (h[1] & 0x7f) as usize;
        if len == 126 {
            let mut l = [0u8; 2];
            s.read_exact(&mut l)?;
            len = u16::from_be_bytes(l) as usize;
        } else if len == 127 {
            let mut l = [0u8; 8];
            s.read_exact(&mut l)?;
            len = u64::from_be_bytes(l) as usize;
        }
        let mut mask = [0u8; 4];
        if h[1] & 0x80 != 0 {
            s.read_exact(&mut mask)?;
        }
        let mut data = vec![0u8; len.min(1 << 20)];
        s.read_exact(&mut data)?;
        for (i, b) in data.iter_mut().enumerate() {
            *b ^= mask[i % 4];
        }
        match opcode {
            1 if data == b"hello" => frame(&mut s, 1, b"echo: hello")?,
            1 if data == b"bye" => {
                let mut close = 4000u16.to_be_bytes().to_vec();
                close.extend_from_slice(b"done");
                frame(&mut s, 8, &close)?;
                closing = true;
            }
            8 => {
                if !closing {
                    frame(&mut s, 8, &data)?;
                }
                return Ok(());
            }
            _ => {}
        }
    }
}

/// A server frame (unmasked, final) with a short payload.
fn frame(s: &mut TcpStream, opcode: u8, payload: &[u8]) -> std::io::Result<()> {
    let mut out = vec![0x80 | opcode, payload.len() as u8];
    out.extend_from_slice(payload);
    s.write_all(&out)
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 80];
        for i in 0..16 {
            w[i] = u32::from_be_bytes([block[4 * i], block[4 * i + 1], block[4 * i + 2], block[4 * i + 3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A827999),
                20..=39 => (b ^ c ^ d, 0x6ED9EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
                _ => (b ^ c ^ d, 0xCA62C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

#[test]
fn sha1_and_base64_are_the_handshake_s() {
    // RFC 6455's example key and accept value.
    let accept = base64(&sha1(b"dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11"));
    assert_eq!(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

/// The MCP text of a batch that runs `script`.
fn run_text(server: &Server, id: &str, script: &str) -> String {
    let answer = mcp_tool(
        server,
        "browser_run",
        json!({"steps": [{"command": "evaluate", "script": script}], "client": id}),
    );
    answer["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

/// The line of `text` naming `request`.
fn line_of<'a>(text: &'a str, request: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(request))
        .unwrap_or_else(|| panic!("no line with {request:?} in\n{text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_a_batch_made_shows_what_the_server_answered() {
    let browser = shared_browser().await;
    let agent = agent();
    let running = browser_agent_testkit::axum_app::serve(app(agent.clone()), any_port()).expect("serve");
    let server = Server::from_running(agent, running);
    within("answers", SCENARIO_DEADLINE, async {
        let id = browser_tests::open(&browser.client, &server, "/network.html").await;
        // A POST's answer is on its line (redacted as every body is), beside what was sent.
        let text = run_text(&server, &id, "return createKey()");
        let line = line_of(&text, "POST /api/keys");
        assert!(
            line.ends_with(r#" · sent: {"name":"CI"} · got: {"id":"k9","name":"CI","token":"[redacted]"}"#),
            "{text}"
        );
        assert!(!text.contains("tok_live"), "{text}");
        // An answer that echoes what was sent is said in a word.
        let text = run_text(&server, &id, "return saveProfile()");
        assert!(
            line_of(&text, "PUT /api/profile").ends_with(r#" · sent: {"name":"Sam"} · got: the same"#),
            "{text}"
        );
        // Over XHR too.
        let text = run_text(&server, &id, "return xhrRename()");
        assert!(
            line_of(&text, "PATCH /api/profile")
                .ends_with(r#" · sent: {"name":"Alex"} · got: {"name":"Alex","slug":"alex"}"#),
            "{text}"
        );
        // A read's answer is the page's to show: not on its line.
        let text = run_text(&server, &id, "return items()");
        assert!(!line_of(&text, "GET /api/items").contains(" · got: "), "{text}");
    })
    .await;
}

/// A `data:` URL is decoded in the page, not requested: a fetch or an XHR of one gets no entry
/// (Shoelace fetches each icon's SVG from one; their entries, each the whole URL, were most of a
/// round's logs). The real request beside them still gets its entry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_urls_are_not_logged_as_requests() {
    let browser = shared_browser().await;
    let agent = agent();
    let running = browser_agent_testkit::axum_app::serve(app(agent.clone()), any_port()).expect("serve");
    let server = Server::from_running(agent, running);
    within("data urls", SCENARIO_DEADLINE, async {
        let id = browser_tests::open(&browser.client, &server, "/network.html").await;
        let script = "await (await fetch('data:image/svg+xml,%3Csvg%2F%3E')).text();
            const x = new XMLHttpRequest(); x.open('GET', 'data:text/plain,hi');
            await new Promise((done) => { x.onloadend = done; x.send(); });
            await (await fetch('/api/big')).text();
            return x.responseText;";
        let v = run(&server, &id, json!([{"command": "evaluate", "script": script}])).await;
        assert_eq!(v["steps"][0]["result"], "hi", "{v}");
        entry(&server, &id, "the /api/big entry", |e| {
            e["type"] == "network" && e["url"] == "/api/big"
        })
        .await;
        let logged: Vec<Value> = server
            .logs_of(&id)
            .into_iter()
            .filter(|e| e["type"] == "network" && e["url"].as_str().is_some_and(|u| u.starts_with("data:")))
            .collect();
        assert!(logged.is_empty(), "no entry for a data: URL: {logged:?}");
    })
    .await;
}
