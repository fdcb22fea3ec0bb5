//! `kill_host axum|actix PORT NDJSON_FILE`: the test app of one adapter (the fixtures, the agent
//! with the tests' fixed page key and an NDJSON sink on `NDJSON_FILE`) on `127.0.0.1:PORT`, until
//! it is killed. `tests/kill_cycle.rs` kills it with SIGKILL and starts it again on the same port.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use browser_tests::{fixtures_dir, PAGE_KEY};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [framework, port, ndjson] = args.as_slice() else {
        eprintln!("usage: kill_host axum|actix PORT NDJSON_FILE");
        std::process::exit(2);
    };
    let spawn = match framework.as_str() {
        "axum" => browser_agent_testkit::axum_app::spawn,
        "actix" => browser_agent_testkit::actix_app::spawn,
        other => {
            eprintln!("kill_host: unknown adapter {other:?} (axum or actix)");
            std::process::exit(2);
        }
    };
    let Ok(port) = port.parse::<u16>() else {
        eprintln!("kill_host: {port:?} is not a port");
        std::process::exit(2);
    };
    let agent = browser_agent_core::BrowserAgent::builder()
        .enabled(true)
        .page_key(PAGE_KEY)
        .ndjson_file(PathBuf::from(ndjson))
        .build();
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    // The process it replaces was just killed: its port may take a moment to be free again.
    let deadline = Instant::now() + Duration::from_secs(60);
    let _running = loop {
        match spawn(agent.clone(), Some(fixtures_dir()), addr) {
            Ok(running) => break running,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => {
                eprintln!("kill_host: cannot listen on {addr}: {e}");
                std::process::exit(1);
            }
        }
    };
    println!("kill_host: {framework} on {addr}");
    loop {
        std::thread::park();
    }
}
