//! The HTTP conformance suite (`browser_agent_testkit::conformance`) run against the CLI: the
//! proxy with the agent, in front of the axum test app with its agent switched off (so every route
//! and every page the suite checks is answered and injected by the proxy). A difference from the
//! tower and actix adapters is a failing test, but for the one made on purpose: a page the dev
//! server compressed is decoded and tagged here (tests/compressed.rs), passed untouched there.

use std::net::SocketAddr;
use std::path::PathBuf;

use browser_agent_core::BrowserAgent;

/// The proxy (with `agent`) in front of the axum test app (agent off), each on a thread of its own.
struct ProxiedApp {
    addr: SocketAddr,
    _upstream: browser_agent_testkit::RunningServer,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for ProxiedApp {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn spawn(agent: BrowserAgent, dir: Option<PathBuf>, addr: SocketAddr) -> std::io::Result<ProxiedApp> {
    let off = BrowserAgent::builder().enabled(false).build();
    let upstream = browser_agent_testkit::axum_app::spawn(off, dir, SocketAddr::from(([127, 0, 0, 1], 0)))?;
    let target: browser_agent_cli::target::Target = format!("http://{}", upstream.addr).parse().expect("target");
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("tokio runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let running = browser_agent_cli::proxy::serve(listener, agent, target).expect("proxy");
            let _ = rx.await;
            running.stop();
        });
        rt.shutdown_timeout(std::time::Duration::from_secs(1));
    });
    Ok(ProxiedApp {
        addr,
        _upstream: upstream,
        stop: Some(tx),
        thread: Some(thread),
    })
}

mod cli_proxy {
    // The proxy decodes a page the dev server compressed and tags it (tests/compressed.rs), where
    // the tower and actix adapters pass it untouched.
    browser_agent_testkit::conformance_suite!(super::spawn, decodes_compressed_pages);
}
