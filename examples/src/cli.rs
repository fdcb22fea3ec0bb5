//! The demos' command line: `PORT` (default 3000), `--dir PATH`, `--stdio`, `--mcp-stdio`.

use std::path::PathBuf;

/// Parsed options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Port on 127.0.0.1 (`PORT`, default 3000).
    pub port: u16,
    /// Folder of static files to serve with the agent injected.
    pub dir: Option<PathBuf>,
    /// Also speak the MindStudio NDJSON protocol on stdin/stdout (the banner goes to stderr).
    pub stdio: bool,
    /// Also speak MCP (newline-delimited JSON-RPC) on stdin/stdout, for clients that only launch
    /// processes (the banner goes to stderr).
    pub mcp_stdio: bool,
}

/// Parses `args` (without the program name) and the `PORT` value.
///
/// ```
/// use browser_agent_examples::cli::parse;
/// let tmp = std::env::temp_dir().to_string_lossy().into_owned();
/// let o = parse(["--dir".to_string(), tmp.clone()], Some("8080".into())).unwrap();
/// assert_eq!((o.port, o.dir.unwrap().to_string_lossy().into_owned()), (8080, tmp));
/// assert!(parse(["--dir".to_string(), "/no/such/folder".to_string()], None).unwrap_err().contains("not a folder"));
/// assert!(parse(["--bogus".to_string()], None).is_err());
/// ```
pub fn parse(args: impl IntoIterator<Item = String>, port: Option<String>) -> Result<Options, String> {
    let port = match port {
        None => 3000,
        Some(p) => p
            .trim()
            .parse()
            .map_err(|_| format!("PORT={p:?} is not a port number"))?,
    };
    let mut options = Options {
        port,
        dir: None,
        stdio: false,
        mcp_stdio: false,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dir" => {
                let dir = args.next().ok_or("--dir needs a folder: --dir PATH")?;
                let dir = PathBuf::from(dir);
                if !dir.is_dir() {
                    return Err(format!("--dir {}: not a folder", dir.display()));
                }
                options.dir = Some(dir);
            }
            "--stdio" => options.stdio = true,
            "--mcp-stdio" => options.mcp_stdio = true,
            "-h" | "--help" => return Err(usage().into()),
            other => return Err(format!("unknown argument {other:?}\n{}", usage())),
        }
    }
    if options.stdio && options.mcp_stdio {
        return Err("--stdio and --mcp-stdio both speak on stdout: choose one".into());
    }
    Ok(options)
}

/// A stdin/stdout bridge running until stdin closes.
pub type Bridge<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = std::io::Result<()>> + Send + 'a>>;

/// The stdin/stdout bridge the options ask for, with the line the banner ends with; `None` when
/// stdout is free.
///
/// ```
/// use browser_agent_examples::cli::{parse, stdio_bridge};
/// let agent = browser_agent_core::BrowserAgent::new();
/// assert!(stdio_bridge(&agent, &parse([], None).unwrap()).is_none());
/// let (hint, _bridge) = stdio_bridge(&agent, &parse(["--mcp-stdio".to_string()], None).unwrap()).unwrap();
/// assert!(hint.contains("MCP"));
/// assert!(parse(["--stdio".to_string(), "--mcp-stdio".to_string()], None).is_err());
/// ```
pub fn stdio_bridge<'a>(
    agent: &'a browser_agent_core::BrowserAgent,
    options: &Options,
) -> Option<(&'static str, Bridge<'a>)> {
    if options.stdio {
        Some((
            "  stdio: send {\"action\":\"browser\",\"steps\":[…]} lines on stdin",
            Box::pin(agent.serve_stdio()),
        ))
    } else if options.mcp_stdio {
        Some((
            "  stdio: MCP (newline-delimited JSON-RPC) on stdin/stdout",
            Box::pin(agent.serve_mcp_stdio()),
        ))
    } else {
        None
    }
}

/// The options of this process (`std::env::args`, `PORT`); prints the problem and exits 2 when they are wrong.
pub fn from_env() -> Options {
    match parse(std::env::args().skip(1), std::env::var("PORT").ok()) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            std::process::exit(2);
        }
    }
}

/// The agent both demos use: enabled explicitly (so `--release` runs keep it), naming the demo's
/// URL when no page is open, and writing every entry to `.logs/browser.ndjson`.
pub fn demo_agent(port: u16) -> browser_agent_core::BrowserAgent {
    browser_agent_core::BrowserAgent::builder()
        .enabled(true)
        .app_url(format!("http://127.0.0.1:{port}/"))
        .ndjson_file(".logs/browser.ndjson")
        .build()
}

/// The usage line.
pub fn usage() -> &'static str {
    "usage: [PORT=3000] cargo run --example axum_demo -- [--dir PATH] [--stdio | --mcp-stdio]"
}

/// What the demos print at start.
pub fn banner(
    framework: &str,
    port: u16,
    agent: &browser_agent_core::BrowserAgent,
    dir: Option<&std::path::Path>,
) -> String {
    let base = format!("http://127.0.0.1:{port}");
    let prefix = agent.config().prefix();
    let mut s = format!(
        "browser-agent {framework} demo\n  open the page:   {base}/\n  read logs:       curl '{base}{prefix}/console?limit=20'\n  open pages:      curl '{base}{prefix}/page'\n  heartbeat probe: curl '{base}/browser/probe'\n  snapshot:        curl '{base}{prefix}/snapshot'\n  run a batch:     curl -H 'content-type: application/json' -d '{{\"steps\":[{{\"command\":\"snapshot\"}}]}}' '{base}{prefix}/run'\n"
    );
    if let Some(dir) = dir {
        s.push_str(&format!("  static files:    {} at {base}/<file>\n", dir.display()));
    }
    s
}
