//! `--run "CMD"`: the dev server as our child, through the shell, in a process group of its own
//! (so stopping it stops everything it started); its output echoed to our terminal and fed line by
//! line to core's server-error patterns.
//!
//! # Per OS
//!
//! - **Linux**: `sh -c CMD` in a new process group; stopping it sends SIGTERM to the group, then
//!   SIGKILL to what is left after [`STOP_GRACE`]. Should browser-agent be killed (`kill -9`, a
//!   crash), a watchdog process stops the group, and the shell also gets SIGTERM from the kernel
//!   (`PR_SET_PDEATHSIG`) when the thread that started it ends.
//! - **macOS and the other Unixes**: the same, without `PR_SET_PDEATHSIG` (Linux only): the
//!   watchdog alone stops the group should we be killed.
//! - **Windows**: `cmd /d /s /c "CMD"` (as Node's `spawn` with a shell does) in a new process group
//!   (`CREATE_NEW_PROCESS_GROUP`, so Ctrl-C at our console does not end it before we stop it);
//!   stopping it is `taskkill /T /F /PID`, which ends the shell and its descendants at once (a
//!   console process has no SIGTERM to stop gracefully on). There is no watchdog: should
//!   browser-agent be killed (`taskkill /F`, a crash), the dev server keeps running; and a process
//!   whose parent already exited is no longer in the tree `taskkill /T` walks. A job object with
//!   `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE` would close both gaps; it is not done yet.

use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use browser_agent_core::adapter::ServerStream;
use browser_agent_core::BrowserAgent;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::Child;

use crate::target::Target;

/// Longest output line read at once (a longer one is cut there, the rest read as the next line).
const MAX_LINE: u64 = 64 * 1024;
/// How long the group gets to stop after SIGTERM before SIGKILL (Unix); on Windows, how long we
/// wait for the shell to exit after `taskkill`.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// The running dev server.
#[derive(Debug)]
pub struct DevServer {
    child: Child,
    /// The shell's process id, which is its process group's (0: unknown).
    pgid: u32,
    /// Its exit, once seen.
    status: Option<ExitStatus>,
    /// Stops the group should we end (or drop this) without stopping it (Unix; see [`os::WATCHDOG`]).
    watchdog: Option<Child>,
}

impl DevServer {
    /// Starts `command` through the shell in a new process group; its stdout and stderr are echoed
    /// (both to our stderr when `quiet_stdout`: our stdout speaks the stdio protocol then) and
    /// fed to `agent`'s server-error patterns.
    ///
    /// On Unix, should browser-agent end without stopping it (`kill -9`, a crash), a watchdog
    /// process of its own stops the whole group, whatever the shell started (`npm run dev` forks
    /// node); on Linux the shell itself also gets SIGTERM when the thread that started it ends
    /// (call it from the main one). See the module docs for Windows.
    pub fn start(command: &str, agent: &BrowserAgent, quiet_stdout: bool) -> std::io::Result<DevServer> {
        let mut shell = os::shell(command);
        shell
            // In a group of its own it may not read our terminal (SIGTTIN would stop it).
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = shell.spawn()?;
        let pgid = child.id().unwrap_or(0);
        let watchdog = os::watchdog(pgid);
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
    pub fn pgid(&self) -> u32 {
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

    /// The shell's exit, if it has exited (reaped now if it just did).
    fn exited(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.status = Some(status);
            }
        }
        self.status
    }

    /// Kills the watchdog (it must not signal a group we stopped, whose id may be reused); tokio
    /// reaps it in the background.
    fn end_watchdog(&mut self) {
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.start_kill();
        }
    }

    /// Stops the whole group (Unix: SIGTERM, then SIGKILL to what is left after [`STOP_GRACE`];
    /// Windows: `taskkill /T /F`). Returns the shell's exit status.
    pub async fn stop(&mut self) -> Option<ExitStatus> {
        self.end_watchdog();
        if self.pgid == 0 {
            return self.status;
        }
        os::stop_group(self).await;
        match self.status {
            Some(status) => Some(status),
            None => self.wait().await.ok(),
        }
    }
}

#[cfg(unix)]
mod os {
    use std::time::{Duration, Instant};

    use rustix::process::{kill_process_group, test_kill_process_group, Pid, Signal};
    use tokio::process::{Child, Command};

    use super::{DevServer, STOP_GRACE};

    /// What the watchdog runs (`$0`: the dev server's process group): it waits for its stdin, a
    /// pipe only we hold, to close, which happens however we end, `kill -9` and crashes included;
    /// then it stops the group as [`DevServer::stop`] does. On a normal stop we kill it first.
    pub(super) const WATCHDOG: &str =
        "read _; kill -TERM -$0 2>/dev/null || exit 0; sleep 5; kill -0 -$0 2>/dev/null && kill -KILL -$0";

    /// `sh -c command` in a new process group (on Linux, SIGTERM to it when our thread ends).
    pub(super) fn shell(command: &str) -> Command {
        let mut shell = Command::new("sh");
        shell.arg("-c").arg(command).process_group(0);
        #[cfg(target_os = "linux")]
        // SAFETY: between fork and exec only prctl(2) runs, a raw system call through rustix
        // (no allocation, no lock): async-signal-safe, as pre_exec requires.
        unsafe {
            shell.pre_exec(|| {
                let _ = rustix::process::set_parent_process_death_signal(Some(Signal::TERM));
                Ok(())
            });
        }
        shell
    }

    /// The watchdog of group `pgid`, in a group of its own, so Ctrl-C at the terminal does not
    /// end it before we stop the dev server ourselves. Without it (no `sh`?) the dev server still
    /// runs; only a kill -9 of ours would then leave what the shell forked.
    pub(super) fn watchdog(pgid: u32) -> Option<Child> {
        group(pgid)?;
        Command::new("sh")
            .arg("-c")
            .arg(WATCHDOG)
            .arg(pgid.to_string())
            .process_group(0)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()
    }

    /// SIGTERM to the group, SIGKILL to what is left after the grace.
    pub(super) async fn stop_group(server: &mut DevServer) {
        let Some(pid) = group(server.pgid) else { return };
        let _ = kill_process_group(pid, Signal::TERM);
        let deadline = Instant::now() + STOP_GRACE;
        while group_alive(pid) && Instant::now() < deadline {
            // Reap the shell as soon as it exits, so the group check sees only the rest.
            server.exited();
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if group_alive(pid) {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }

    /// The group we created, never 1 (`kill(-1)` would signal every process we may signal).
    fn group(pgid: u32) -> Option<Pid> {
        i32::try_from(pgid).ok().filter(|&id| id > 1).and_then(Pid::from_raw)
    }

    /// Whether any process of the group is left (a zombie shell counts until reaped).
    fn group_alive(pid: Pid) -> bool {
        test_kill_process_group(pid).is_ok()
    }
}

#[cfg(windows)]
mod os {
    use tokio::process::{Child, Command};

    use super::{DevServer, STOP_GRACE};

    /// `CREATE_NEW_PROCESS_GROUP` (winbase.h): Ctrl-C at our console does not reach the group.
    const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;

    /// `cmd /d /s /c "command"`: no AutoRun, the outer quotes stripped and the rest run as typed
    /// (what Node's `spawn(…, {shell: true})` does), in a new process group.
    pub(super) fn shell(command: &str) -> Command {
        let mut shell = Command::new("cmd");
        shell
            .args(["/d", "/s", "/c"])
            .raw_arg(format!("\"{command}\""))
            .creation_flags(CREATE_NEW_PROCESS_GROUP);
        shell
    }

    /// None on Windows (see the module docs).
    pub(super) fn watchdog(_pgid: u32) -> Option<Child> {
        None
    }

    /// `taskkill /T /F /PID`: the shell and its descendants, at once; then the shell's exit,
    /// bounded by the grace.
    pub(super) async fn stop_group(server: &mut DevServer) {
        if server.exited().is_none() {
            let _ = Command::new("taskkill")
                .args(["/T", "/F", "/PID", &server.pgid.to_string()])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .await;
        }
        let _ = tokio::time::timeout(STOP_GRACE, server.wait()).await;
    }
}

/// Copies `from` to `to` line by line, each line also to core's server-error grouping: a
/// multi-line error (a stack trace, a traceback, a panic with its backtrace) is one `server` entry,
/// stored once a line that does not continue it arrives or the output has been quiet for core's
/// short quiet time (80 ms), and at the end of the stream.
async fn pump<R, W>(from: R, mut to: W, agent: BrowserAgent, stream: ServerStream)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut from = BufReader::new(from);
    let mut errors = agent.server_output(stream);
    let mut line = Vec::new();
    loop {
        // What a read cut short by the quiet time had read is kept in `line`, and counted.
        let room = MAX_LINE.saturating_sub(line.len() as u64).max(1);
        let mut limited = (&mut from).take(room);
        let read = limited.read_until(b'\n', &mut line);
        let read = match errors.due() {
            Some(due) => match tokio::time::timeout_at(tokio::time::Instant::from_std(due), read).await {
                Ok(read) => read,
                Err(_) => {
                    // Quiet: the error held is complete.
                    errors.flush(&agent);
                    continue;
                }
            },
            None => read.await,
        };
        match read {
            Ok(0) | Err(_) => {
                if !line.is_empty() {
                    let _ = to.write_all(&line).await;
                    let _ = to.flush().await;
                    errors.line(&agent, &String::from_utf8_lossy(&line));
                }
                errors.flush(&agent);
                return;
            }
            Ok(_) => {}
        }
        let _ = to.write_all(&line).await;
        let _ = to.flush().await;
        errors.line(&agent, &String::from_utf8_lossy(&line));
        line.clear();
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
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let (None, Some(signal)) = (status.code(), status.signal()) {
            return format!("was killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "exited".to_owned(),
    }
}
