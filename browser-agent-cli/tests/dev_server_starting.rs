//! A 502 the proxy answered while the dev server was still starting is said to be that, and is
//! no error; one after the dev server had answered is an outage, an error. (Issue 33: the first
//! was an unexplained `server` error, counted with the app's own.)

mod common;

use browser_agent_core::protocol::Level;
use browser_agent_core::LogQuery;
use browser_agent_testkit::http::send;
use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A request for a page, as a browser sends it.
const DOCUMENT: [(&str, &str); 1] = [("accept", "text/html")];

/// A dev server on `listener` that answers 200 `up` to each request, one per connection, until
/// aborted (then nothing listens there).
fn dev_server(listener: tokio::net::TcpListener) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let mut n = 0;
                while !buf[..n].windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf[n..]).await {
                        Ok(0) | Err(_) => return,
                        Ok(m) => n += m,
                    }
                }
                let res =
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: close\r\n\r\nup";
                let _ = s.write_all(res.as_bytes()).await;
            });
        }
    })
}

#[tokio::test]
async fn a_502_before_the_dev_server_is_up_says_it_was_not_ready_and_is_no_error() {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], free_port()));
    let agent = agent();
    let proxy = proxy_to(agent.clone(), addr).await;
    let json = [("accept", "application/json")];
    let server = LogQuery::parse(Some("type=server")).unwrap();
    let errors = LogQuery::parse(Some("type=server&level=error")).unwrap();

    // The dev server is still starting: the page and its requests get the 502.
    assert_eq!(send(proxy.addr, "GET", "/", &DOCUMENT, b"").await.status, 502);
    assert_eq!(send(proxy.addr, "GET", "/api/items", &json, b"").await.status, 502);
    let entries = agent.logs().query(&server);
    assert_eq!(entries.len(), 1, "once, not for every retry: {entries:#?}");
    let e = &entries[0];
    assert!(
        e.text.starts_with("GET / → 502 Bad Gateway (") && e.text.contains("): the dev server was not ready yet ("),
        "{e:?}"
    );
    assert_eq!(e.level, Level::Info, "{e:?}");
    assert!(agent.logs().query(&errors).is_empty(), "no error is counted");

    // It is up: answers pass.
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let up = dev_server(listener);
    let ok = send(proxy.addr, "GET", "/api/items", &json, b"").await;
    assert_eq!((ok.status, ok.text().as_str()), (200, "up"));

    // It stops: that is an outage, an error, said as one.
    up.abort();
    let _ = up.await;
    // (The task is gone and its listener closed with it: nothing listens there now.)
    assert_eq!(send(proxy.addr, "GET", "/api/items", &json, b"").await.status, 502);
    let errors = agent.logs().query(&errors);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].text.starts_with("GET /api/items → 502 Bad Gateway (")
            && errors[0].text.contains("): the dev server stopped answering ("),
        "{errors:#?}"
    );
}
