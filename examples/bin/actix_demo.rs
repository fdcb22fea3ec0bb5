//! `cargo run --example actix_demo -- [--dir PATH] [--stdio]` (port from `PORT`, default 3000).

use browser_agent_examples::{actix_demo, cli};

fn main() {
    let options = cli::from_env();
    // Created once, here, outside `HttpServer::new`: every worker shares this state.
    let agent = cli::demo_agent(options.port);
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], options.port));
    let banner = cli::banner("actix", options.port, &agent, options.dir.as_deref());
    let dir = options.dir;
    let stdio = options.stdio;
    let result = actix_web::rt::System::new().block_on(async move {
        let workers = agent.clone();
        let server = actix_web::HttpServer::new(move || actix_demo::app(workers.clone(), dir.clone()))
            .bind(addr)
            .map_err(|e| format!("cannot listen on {addr}: {e} (set PORT to use another port)"))?;
        if stdio {
            // stdout carries the protocol's events: everything else goes to stderr.
            eprintln!("{banner}  stdio: send {{\"action\":\"browser\",\"steps\":[…]}} lines on stdin");
            let server = server.disable_signals().run();
            let handle = server.handle();
            let res = tokio::select! {
                res = server => res,
                // stdin closed (or failed): stop serving, as the axum demo does.
                res = agent.serve_stdio() => {
                    handle.stop(false).await;
                    res
                }
            };
            res.map_err(|e| format!("error: {e}"))
        } else {
            print!("{banner}");
            // actix stops gracefully on Ctrl-C by itself.
            server.run().await.map_err(|e| format!("error: {e}"))
        }
    });
    if let Err(msg) = result {
        eprintln!("{msg}");
        std::process::exit(1);
    }
}
