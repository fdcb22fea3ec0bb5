//! The proxy command from start to stop: listen, start the dev server (`--run`), wait for it,
//! say where to go, serve until Ctrl-C, SIGTERM or the dev server's exit, stop the dev server.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use browser_agent_core::BrowserAgent;
use tokio::net::TcpListener;

use crate::args::ProxyArgs;
use crate::run::{self, DevServer, Startup};
use crate::term::Term;
use crate::{exit, proxy};

/// Runs the proxy; returns the process's exit code.
pub async fn run(args: ProxyArgs, term: Term) -> i32 {
    let Some(target) = args.target.clone() else {
        term.error("--target URL is required");
        return exit::USAGE;
    };
    let port = match args.port {
        Some(port) => port,
        None => match target.port.checked_add(1000) {
            Some(port) => port,
            None => {
                term.error(&format!(
                    "the target's port {} + 1000 is no port: choose one with --port N (0: any free one)",
                    target.port
                ));
                return exit::USAGE;
            }
        },
    };
    // Our own address as the target would forward every request to ourselves, without end.
    if target.is_authority(&format!("127.0.0.1:{port}")) {
        term.error(&format!(
            "--target {target} is browser-agent's own address (--port {port}): --target is where the dev server listens, --port where we do (another port, or 0 for any free one)"
        ));
        return exit::USAGE;
    }
    if !(args.startup_timeout.is_finite() && args.startup_timeout >= 0.0) {
        term.error("--startup-timeout takes a number of seconds, e.g. 60");
        return exit::USAGE;
    }
    let startup_timeout = Duration::from_secs_f64(args.startup_timeout);

    let listen = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let listener = match TcpListener::bind(listen).await {
        Ok(listener) => listener,
        Err(err) => {
            let hint = if err.kind() == std::io::ErrorKind::AddrInUse {
                format!("port {port} is in use (another browser-agent or dev server?); choose another with --port N, or --port 0 for any free one")
            } else {
                format!("{err}")
            };
            term.error(&format!("cannot listen on {listen}: {hint}"));
            return exit::LISTEN;
        }
    };
    let addr = listener.local_addr().unwrap_or(listen);
    let url = format!("http://{addr}/");

    let mut builder = BrowserAgent::builder()
        .enabled(true)
        .prefix(args.prefix.clone())
        .app_url(url.clone())
        .snapshot_budget(args.snapshot_budget);
    for host in &args.allow_host {
        builder = builder.allow_host(host.clone());
    }
    if let Some(token) = &args.token {
        builder = builder.bearer_token(token.clone());
    }
    for origin in &args.mcp_allow_origin {
        builder = builder.mcp_allow_origin(origin.clone());
    }
    if let Some(file) = &args.log_file {
        builder = builder.ndjson_file(file.clone());
    }
    if let Some(dir) = &args.proof_dir {
        builder = builder.proof_dir(dir.clone());
    }
    if let Some(dir) = &args.project_root {
        builder = builder.project_root(dir.clone());
    }
    let agent = match builder.try_build() {
        Ok(agent) => agent,
        Err(err) => {
            term.error(&err.to_string());
            return exit::USAGE;
        }
    };

    // Serve at once: while the dev server starts, pages get the self-retrying 502 page.
    let running = match proxy::serve(listener, agent.clone(), target.clone()) {
        Ok(running) => running,
        Err(err) => {
            term.error(&format!("cannot listen on {listen}: {err}"));
            return exit::LISTEN;
        }
    };

    let mut stops = match Stops::install() {
        Ok(stops) => stops,
        Err(_) => {
            term.error("cannot install the Ctrl-C and SIGTERM handlers");
            return exit::FAILURE;
        }
    };

    let mut server = match &args.run {
        Some(command) => match DevServer::start(command, &agent, args.stdio || args.mcp_stdio) {
            Ok(server) => {
                term.info(&format!(
                    "started the dev server: {command} (process group {})",
                    server.pgid()
                ));
                Some(server)
            }
            Err(err) => {
                term.error(&format!("cannot start --run {command:?}: {err}"));
                return exit::FAILURE;
            }
        },
        None => None,
    };

    term.info(&format!(
        "waiting for {target} to accept connections (up to {} s)…",
        args.startup_timeout
    ));
    let startup = tokio::select! {
        r = run::wait_for_target(&target, startup_timeout, server.as_mut()) => Some(r),
        _ = stops.recv() => None,
    };
    match startup {
        Some(Ok(())) => {}
        Some(Err(Startup::Exited(status))) => {
            let command = args.run.as_deref().unwrap_or_default();
            term.error(&format!(
                "the dev server (--run {command:?}) {} before {target} accepted connections",
                run::describe(status)
            ));
            if let Some(server) = server.as_mut() {
                server.stop().await;
            }
            return exit::FAILURE;
        }
        Some(Err(Startup::TimedOut(err))) => {
            let advice = if args.run.is_some() {
                "is --target the address the dev server prints? (raise --startup-timeout if it starts slowly)"
            } else {
                "start the dev server first, or let browser-agent start it with --run \"CMD\""
            };
            term.error(&format!(
                "nothing accepts connections at {target} ({err}) after {} s: {advice}",
                args.startup_timeout
            ));
            if let Some(server) = server.as_mut() {
                server.stop().await;
            }
            return exit::UNREACHABLE;
        }
        None => {
            let code = stop(&term, server.as_mut()).await;
            return code.unwrap_or(exit::INTERRUPTED);
        }
    }

    banner(&term, &agent, &url, &target, &args);
    let watcher = tokio::spawn(first_page(agent.clone(), term));
    let stdio = (args.stdio || args.mcp_stdio).then(|| {
        let (agent, mcp) = (agent.clone(), args.mcp_stdio);
        tokio::spawn(async move {
            if mcp {
                agent.serve_mcp_stdio().await
            } else {
                agent.serve_stdio().await
            }
        })
    });

    let code = tokio::select! {
        code = stops.recv() => stop(&term, server.as_mut()).await.unwrap_or(code),
        status = wait_server(server.as_mut()) => {
            match status {
                Ok(status) if status.success() => {
                    term.info(&format!("the dev server {}; stopping", run::describe(status)));
                    if let Some(server) = server.as_mut() {
                        server.stop().await;
                    }
                    exit::OK
                }
                Ok(status) => {
                    term.error(&format!("the dev server {}", run::describe(status)));
                    if let Some(server) = server.as_mut() {
                        server.stop().await;
                    }
                    exit::FAILURE
                }
                Err(err) => {
                    term.error(&format!("lost the dev server: {err}"));
                    exit::FAILURE
                }
            }
        }
        _ = async { match stdio { Some(task) => { let _ = task.await; } None => std::future::pending().await } } => {
            // The stdio peer closed our stdin: it is done with us.
            stop(&term, server.as_mut()).await.unwrap_or(exit::OK)
        }
    };
    watcher.abort();
    running.stop();
    code
}

/// What stops us from outside: Ctrl-C and SIGTERM on Unix; Ctrl-C, Ctrl-Break and closing the
/// console window on Windows.
struct Stops {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(windows)]
    ctrl_c: tokio::signal::windows::CtrlC,
    #[cfg(windows)]
    ctrl_break: tokio::signal::windows::CtrlBreak,
    #[cfg(windows)]
    close: tokio::signal::windows::CtrlClose,
}

impl Stops {
    #[cfg(unix)]
    fn install() -> std::io::Result<Stops> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Stops {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    #[cfg(windows)]
    fn install() -> std::io::Result<Stops> {
        use tokio::signal::windows;
        Ok(Stops {
            ctrl_c: windows::ctrl_c()?,
            ctrl_break: windows::ctrl_break()?,
            close: windows::ctrl_close()?,
        })
    }

    /// The next stop; the exit code it means.
    #[cfg(unix)]
    async fn recv(&mut self) -> i32 {
        tokio::select! {
            _ = self.interrupt.recv() => exit::INTERRUPTED,
            _ = self.terminate.recv() => exit::TERMINATED,
        }
    }

    /// The next stop; the exit code it means.
    #[cfg(windows)]
    async fn recv(&mut self) -> i32 {
        tokio::select! {
            _ = self.ctrl_c.recv() => exit::INTERRUPTED,
            _ = self.ctrl_break.recv() => exit::TERMINATED,
            _ = self.close.recv() => exit::TERMINATED,
        }
    }
}

/// Stops the dev server, if any, and says so. `None`: the caller picks the code.
async fn stop(term: &Term, server: Option<&mut DevServer>) -> Option<i32> {
    let server = server?;
    let pgid = server.pgid();
    match server.stop().await {
        Some(status) => term.info(&format!(
            "stopped the dev server (process group {pgid}; it {})",
            run::describe(status)
        )),
        None => term.info(&format!("stopped the dev server (process group {pgid})")),
    }
    None
}

/// The dev server's exit, or never without one.
async fn wait_server(server: Option<&mut DevServer>) -> std::io::Result<std::process::ExitStatus> {
    match server {
        Some(server) => server.wait().await,
        None => std::future::pending().await,
    }
}

fn banner(term: &Term, agent: &BrowserAgent, url: &str, target: &crate::target::Target, args: &ProxyArgs) {
    let prefix = agent.config().prefix();
    let base = url.trim_end_matches('/');
    term.info(&format!("{target} is ready; the agent is in front of it"));
    // With --token every agent request needs it: the lines say so (with a stand-in for the
    // token, which stays out of terminal logs).
    let (curl_auth, mcp_auth) = if args.token.is_some() {
        (
            " -H 'Authorization: Bearer <token>'",
            " --header 'Authorization: Bearer <token>'",
        )
    } else {
        ("", "")
    };
    term.detail(&format!("open      {url}"));
    if args.token.is_some() {
        term.detail("token     the agent's requests need 'Authorization: Bearer <token>' (the --token)");
    }
    term.detail(&format!(
        "logs      curl -s{curl_auth} '{base}{prefix}/console?limit=20'"
    ));
    term.detail(&format!("pages     curl -s{curl_auth} {base}{prefix}/page"));
    term.detail(&format!(
        "MCP       claude mcp add --transport http browser-agent {base}{prefix}/mcp{mcp_auth}"
    ));
    if let Some(file) = &args.log_file {
        term.detail(&format!("log file  {}", file.display()));
    }
    term.detail(&format!(
        "proofs    {}   (curl -s{curl_auth} -X POST {base}{prefix}/proof/start -H 'content-type: application/json' -d '{{\"description\":\"what you verify\"}}')",
        agent.config().proof_dir().display()
    ));
    if args.run.is_some() {
        term.detail(&format!(
            "dev server errors: curl -s{curl_auth} '{base}{prefix}/console?type=server'"
        ));
    }
}

/// Prints one status line when the first page connects.
async fn first_page(agent: BrowserAgent, term: Term) {
    loop {
        tokio::time::sleep(Duration::from_millis(250)).await;
        if let Some(page) = agent.clients().most_recent() {
            term.info(&format!("page connected: {} (client {})", page.page, page.client_id));
            return;
        }
    }
}
