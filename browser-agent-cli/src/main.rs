//! `browser-agent`: see the crate docs and `browser-agent --help`.

use browser_agent_cli::args::{Cli, Command};
use browser_agent_cli::term::Term;
use browser_agent_cli::{app, exit, init};
use clap::Parser;

fn main() {
    let cli = Cli::parse();
    let term = Term::detect();
    let code = match cli.command {
        Some(Command::Init(args)) => run_init(args, term),
        None => {
            let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
                Ok(runtime) => runtime,
                Err(err) => {
                    term.error(&format!("cannot start the async runtime: {err}"));
                    std::process::exit(exit::FAILURE);
                }
            };
            let code = runtime.block_on(app::run(cli.proxy, term));
            // Connections still open (a long poll, a WebSocket) must not hold the exit.
            runtime.shutdown_timeout(std::time::Duration::from_millis(200));
            code
        }
    };
    std::process::exit(code);
}

fn run_init(args: browser_agent_cli::args::InitArgs, term: Term) -> i32 {
    let dir = match args.dir.clone().map_or_else(std::env::current_dir, Ok) {
        Ok(dir) => dir,
        Err(err) => {
            term.error(&format!("cannot read the current folder: {err}"));
            return exit::FAILURE;
        }
    };
    let changes = match init::plan(&dir, args.port, &args.prefix) {
        Ok(changes) => changes,
        Err(err) => {
            term.error(&err.to_string());
            return exit::FAILURE;
        }
    };
    for change in &changes {
        let verb = change.verb();
        let would = if args.dry_run && verb != "unchanged" {
            " (dry run)"
        } else {
            ""
        };
        println!("{verb:>9} {}{would}", change.path.display());
        if args.dry_run && verb != "unchanged" {
            for line in change.content.lines() {
                println!("          | {line}");
            }
        }
    }
    if args.dry_run {
        return exit::OK;
    }
    match init::apply(&dir, &changes) {
        Ok(()) => exit::OK,
        Err(err) => {
            term.error(&err.to_string());
            exit::FAILURE
        }
    }
}
