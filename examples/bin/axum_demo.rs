//! `cargo run --example axum_demo -- [--dir PATH] [--stdio]` (port from `PORT`, default 3000).

use browser_agent_examples::{axum_demo, cli};

#[tokio::main]
async fn main() {
    let options = cli::from_env();
    let agent = cli::demo_agent(options.port);
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], options.port));
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot listen on {addr}: {e} (set PORT to use another port)");
            std::process::exit(1);
        }
    };
    let banner = cli::banner("axum", options.port, &agent, options.dir.as_deref());
    let server = axum::serve(listener, axum_demo::router(agent.clone(), options.dir));
    if options.stdio {
        // stdout carries the protocol's events: everything else goes to stderr.
        eprintln!("{banner}  stdio: send {{\"action\":\"browser\",\"steps\":[…]}} lines on stdin");
        tokio::select! {
            res = server => exit_on_error(res),
            res = agent.serve_stdio() => exit_on_error(res),
        }
    } else {
        print!("{banner}");
        let res = server
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await;
        exit_on_error(res);
    }
}

fn exit_on_error(res: std::io::Result<()>) {
    if let Err(e) = res {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
