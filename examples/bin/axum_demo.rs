//! `cargo run --example axum_demo -- [--dir PATH]` (port from `PORT`, default 3000).

use browser_agent_core::BrowserAgent;
use browser_agent_examples::{axum_demo, cli};

#[tokio::main]
async fn main() {
    let options = match cli::parse(std::env::args().skip(1), std::env::var("PORT").ok()) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            std::process::exit(2);
        }
    };
    // Enabled explicitly, so `--release` runs of the demo keep the agent.
    let agent = BrowserAgent::builder()
        .enabled(true)
        .ndjson_file(".logs/browser.ndjson")
        .build();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], options.port));
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot listen on {addr}: {e} (set PORT to use another port)");
            std::process::exit(1);
        }
    };
    print!(
        "{}",
        cli::banner("axum", options.port, &agent, options.dir.as_deref())
    );
    let app = axum_demo::router(agent, options.dir);
    if let Err(e) = axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
    {
        eprintln!("server error: {e}");
        std::process::exit(1);
    }
}
