//! The command line (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::target::Target;

/// The default route prefix, as core's.
pub const DEFAULT_PREFIX: &str = "/__mindstudio_dev__";

/// Gives any dev server's pages the browser agent: a reverse proxy that injects the page client
/// and answers the agent's routes (logs, snapshot, actions).
#[derive(Debug, Parser)]
#[command(
    name = "browser-agent",
    version,
    subcommand_negates_reqs = true,
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  browser-agent --run \"npm run dev\" --target http://127.0.0.1:5173\n  browser-agent --target http://localhost:8000 --port 0\n  browser-agent init --port 6173"
)]
pub struct Cli {
    /// A subcommand (none: run the proxy).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The proxy's options.
    #[command(flatten)]
    pub proxy: ProxyArgs,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Teach the project's coding agents: MCP entries (.mcp.json, .cursor/, .vscode/) and an AGENTS.md section.
    Init(InitArgs),
}

/// Options of the proxy.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// The dev server to put the agent in front of (http://HOST:PORT, or https://HOST:PORT: its
    /// certificate is not checked, as dev servers' are self-signed; the browser speaks http to us).
    #[arg(long, value_name = "URL", required = true)]
    pub target: Option<Target>,

    /// Where to listen, on 127.0.0.1 [default: the target's port + 1000; 0: any free port]
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,

    /// Start the dev server with this shell command, and stop it when browser-agent stops.
    #[arg(long, value_name = "CMD")]
    pub run: Option<String>,

    /// How long to wait for the target to accept connections, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub startup_timeout: f64,

    /// The agent routes' prefix.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_PREFIX)]
    pub prefix: String,

    /// Also answer requests addressed to this host (name or name:port), besides loopback. Repeatable.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_host: Vec<String>,

    /// Require `Authorization: Bearer TOKEN` on the agent's routes.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,

    /// Let a browser-based MCP client from this origin call the MCP endpoint (e.g.
    /// http://localhost:6274 for MCP Inspector); without it any request with an Origin is
    /// refused there. Repeatable.
    #[arg(long = "mcp-allow-origin", value_name = "ORIGIN")]
    pub mcp_allow_origin: Vec<String>,

    /// Also serve the NDJSON stdio protocol on stdin/stdout (our messages go to stderr then).
    #[arg(long, conflicts_with = "mcp_stdio")]
    pub stdio: bool,

    /// Also serve MCP (newline-delimited JSON-RPC, the same tools as `{prefix}/mcp`) on
    /// stdin/stdout, for clients that only launch processes (our messages go to stderr then).
    #[arg(long = "mcp-stdio")]
    pub mcp_stdio: bool,

    /// Also append every log entry to this NDJSON file.
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,

    /// Where proof sessions (`{prefix}/proof/start` … `/proof/stop`) write their folders
    /// [default: .browser-agent/proof in the current folder]
    #[arg(long = "proof-dir", value_name = "DIR")]
    pub proof_dir: Option<PathBuf>,

    /// The folder the `upload` step reads files under (a step's paths are relative to it, and
    /// none may lead out of it) [default: the current folder]
    #[arg(long = "project-root", value_name = "DIR")]
    pub project_root: Option<PathBuf>,

    /// The pages' default snapshot budget in tokens (a step's own `budget` or `full` still wins).
    #[arg(long = "snapshot-budget", value_name = "TOKENS", default_value_t = browser_agent_core::protocol::SNAPSHOT_BUDGET)]
    pub snapshot_budget: u32,
}

/// Options of `init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The port browser-agent listens on (what the MCP entries point at).
    #[arg(long, value_name = "N", default_value_t = 6173)]
    pub port: u16,

    /// The agent routes' prefix.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_PREFIX)]
    pub prefix: String,

    /// The project folder [default: the current one]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Show what would change, change nothing.
    #[arg(long)]
    pub dry_run: bool,
}
