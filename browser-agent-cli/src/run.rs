//! `--run "CMD"`: the dev server as our child, through the shell, in a process group of its own
//! (so stopping it stops everything it started); its output echoed to our terminal and fed line by
//! line to core's server-error patterns.

use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use browser_agent_core::adapter::{AdapterExt, ServerStream};
use browser_agent_core::BrowserAgent;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

use crate::target::Target;

/// Longest output line read at once (a longer one is cut there, the rest read as the next line).
const MAX_LINE: u64 = 64 * 1024;
/// How long the group gets to stop after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// What the watchdog runs (`$0`: the dev server's process group): it waits for its stdin, a pipe
/// only we hold, to close, which happens however we end, `kill -9` and crashes included; then it
/// stops the group as [`DevServer::stop`] does. On a normal stop we kill it first.
const WATCHDOG: &str =
    "read _; kill -TERM -$0 2>/dev/null || exit 0; sleep 5; kill -0 -$0 2>/dev/null && kill -KILL -$0";

/// The running dev server.
#[derive(Debug)]
pub struct DevServer {
    child: Child,
    pgid: i32,
    /// Its exit, once seen.
    status: Option<ExitStatus>,
    /// Stops the group should we end (or drop this) without stopping it (see [`WATCHDOG`]).
    watchdog: Option<Child>,
}

impl DevServer {
    /// Starts `command` through `sh -c` in a new process group; its stdout and stderr are echoed
    /// (both to our stderr when `quiet_stdout`: our stdout speaks the stdio protocol then) and
    /// fed to `agent`'s server-error patterns.
    ///
    /// Should browser-agent end without stopping it (`kill -9`, a crash), a watchdog process of its
    /// own stops the whole group, whatever the shell started (`npm run dev` forks node); the shell
    /// itself also gets SIGTERM when the thread that started it ends (call it from the main one).
    pub fn start(command: &str, agent: &BrowserAgent, quiet_stdout: bool) -> std::io::Result<DevServer> {
        let mut shell = Command::new("sh");
        shell
            .arg("-c")
            .arg(command)
            .process_group(0)
            // In a group of its own it may not read our terminal (SIGTTIN would stop it).
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: between fork and exec only prctl(2), which is async-signal-safe, runs.
        unsafe {
            shell.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong);
                Ok(())
            });
        }
        let mut child = shell.spawn()?;
        let pgid = child.id().map_or(0, |id| id as i32);
        // In a group of its own, so Ctrl-C at the terminal does not end it before we stop the dev
        // server ourselves. Without it (no `sh`?) the dev server still runs; only a kill -9 of
        // ours would then leave what the shell forked.
        let watchdog = (pgid > 0)
            .then(|| {
                Command::new("sh")
                    .arg("-c")
                    .arg(WATCHDOG)
                    .arg(pgid.to_string())
                    .process_group(0)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .ok()
            })
            .flatten();
        if let Some(out) = child.stdout.take() {
            let agent = agent.clone();
            tokio::spawn(async move {
                if quiet_stdout {
                    pump(out, tokio::io::stderr(), agent, ServerStream::Stdout).await
                } else {
                    pump(out, tokio::io::stdout(), agent, ServerStream::Stdout).await
                }
            });
        }
        if let Some(err) = child.stderr.take() {
            let agent = agent.clone();
            tokio::spawn(pump(err, tokio::io::stderr(), agent, ServerStream::Stderr));
        }
        Ok(DevServer {
            child,
            pgid,
            status: None,
            watchdog,
        })
    }

    /// Its process group id (= the shell's pid).
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// Waits for the shell to exit.
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        let status = self.child.wait().await?;
        self.status = Some(status);
        Ok(status)
    }

    /// Kills the watchdog (it must not signal a group we stopped, whose id may be reused); tokio
    /// reaps it in the background.
    fn end_watchdog(&mut self) {
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.start_kill();
        }
    }

    /// Stops the whole group: SIGTERM, then SIGKILL to what is left after a grace. Returns the
    /// shell's exit status.
    pub async fn stop(&mut self) -> Option<ExitStatus> {
        self.end_watchdog();
        if self.pgid <= 0 {
            return self.status;
        }
        signal_group(self.pgid, libc::SIGTERM);
        let deadline = Instant::now() + STOP_GRACE;
        while group_alive(self.pgid) && Instant::now() < deadline {
            // Reap the shell as soon as it exits, so the group check sees only the rest.
            if self.status.is_none() {
                if let Ok(Some(status)) = self.child.try_wait() {
                    self.status = Some(status);
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if group_alive(self.pgid) {
            signal_group(self.pgid, libc::SIGKILL);
        }
        match self.status {
            Some(status) => Some(status),
            None => self.wait().await.ok(),
        }
    }
}

fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill(2) takes plain integers; a negative pid addresses the process group we created.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Whether any process of the group is left (a zombie shell counts until reaped).
fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks that the group exists and may be signalled.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// Copies `from` to `to` line by line, each line also to the server-error patterns.
async fn pump<R, W>(from: R, mut to: W, agent: BrowserAgent, stream: ServerStream)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut from = BufReader::new(from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut from).take(MAX_LINE).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let _ = to.write_all(&line).await;
        let _ = to.flush().await;
        agent.server_log_line(&String::from_utf8_lossy(&line), stream);
    }
}

/// Why the target did not become reachable.
#[derive(Debug)]
pub enum Startup {
    /// The dev server exited first.
    Exited(ExitStatus),
    /// Nothing accepted connections in time; the last connection error.
    TimedOut(std::io::Error),
}

/// Waits until `target` accepts a TCP connection, up to `timeout`; with `server`, fails as soon as
/// it exits.
pub async fn wait_for_target(
    target: &Target,
    timeout: Duration,
    mut server: Option<&mut DevServer>,
) -> Result<(), Startup> {
    let deadline = Instant::now() + timeout;
    loop {
        let attempt = tokio::time::timeout(
            Duration::from_secs(2),
            TcpStream::connect((target.connect_host(), target.port)),
        )
        .await;
        let err = match attempt {
            Ok(Ok(_)) => return Ok(()),
            Ok(Err(err)) => err,
            Err(_) => std::io::Error::new(std::io::ErrorKind::TimedOut, "connecting timed out"),
        };
        if let Some(server) = server.as_deref_mut() {
            if let Ok(Some(status)) = server.child.try_wait() {
                server.status = Some(status);
                return Err(Startup::Exited(status));
            }
        }
        if Instant::now() >= deadline {
            return Err(Startup::TimedOut(err));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `exited with status 1`, `was killed by signal 9`.
pub fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "exited".to_owned(),
    }
}
