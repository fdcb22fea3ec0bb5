//! `cargo run --example actix_demo -- [--dir PATH]` (port from `PORT`, default 3000).

use browser_agent_core::BrowserAgent;
use browser_agent_examples::{actix_demo, cli};

fn main() {
    let options = match cli::parse(std::env::args().skip(1), std::env::var("PORT").ok()) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            std::process::exit(2);
        }
    };
    // Enabled explicitly, so `--release` runs of the demo keep the agent. Created once, here,
    // outside `HttpServer::new`: every worker shares this state.
    let agent = BrowserAgent::builder()
        .enabled(true)
        .ndjson_file(".logs/browser.ndjson")
        .build();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], options.port));
    let banner = cli::banner("actix", options.port, &agent, options.dir.as_deref());
    let dir = options.dir;
    let result = actix_web::rt::System::new().block_on(async move {
        let server = actix_web::HttpServer::new(move || actix_demo::app(agent.clone(), dir.clone()))
            .bind(addr)
            .map_err(|e| format!("cannot listen on {addr}: {e} (set PORT to use another port)"))?;
        print!("{banner}");
        // actix stops gracefully on Ctrl-C by itself.
        server.run().await.map_err(|e| format!("server error: {e}"))
    });
    if let Err(msg) = result {
        eprintln!("{msg}");
        std::process::exit(1);
    }
}
