//! An engine's child process, as both kinds of engine `flank match` runs use it: GTP
//! ([`super::process::GtpProcess`]) and NBoard ([`super::nboard_process::NBoardProcess`]).
//!
//! The command line is split with `shlex` ([`split_command`]: POSIX shell words: quotes and
//! backslashes, no variables or globbing). stdin and stdout are piped, stderr goes to
//! /dev/null (engines log there; it would garble the progress bar). A reader thread turns
//! stdout into lines on a channel, so every wait has a timeout. A line longer than
//! [`MAX_LINE`] bytes ends the reading and comes as [`Line::TooLong`], which each protocol's
//! player makes a protocol error.
//!
//! On Unix each engine runs in its own process group (`process_group(0)`: the group id is the
//! engine's pid), and ending the engine (quit, timeout, restart, drop) sends SIGKILL to the
//! whole group, so children of an engine started as `sh -c '…'` end with it. The groups of
//! live engines of both kinds are kept in one global registry, so [`kill_all_engines`] (called
//! by the SIGINT / SIGTERM handler `flank match` installs) can end them all from another
//! thread.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{LazyLock, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::player::Fault;

/// The longest line read from an engine, bytes.
pub const MAX_LINE: u64 = 64 * 1024;

/// Process group ids (= engine pids) of every engine, GTP or NBoard, started and not yet
/// killed.
static LIVE_GROUPS: LazyLock<Mutex<HashSet<i32>>> = LazyLock::new(|| Mutex::new(HashSet::new()));

/// Sends SIGKILL to the process group of every live engine (GTP and NBoard) and forgets them:
/// used by the SIGINT/SIGTERM handler of `flank match` before it exits. Returns how many
/// groups were signalled. A no-op (0) off Unix.
pub fn kill_all_engines() -> usize {
    let mut groups = LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    let n = groups.len();
    #[cfg(unix)]
    for &pgid in groups.iter() {
        if pgid > 1 {
            // SAFETY: kill(2) only sends a signal; a negative pid names a process group
            // created at spawn for an engine that has not been waited for yet (it is
            // removed from the registry before its `wait`), so the id is not reused.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    groups.clear();
    n
}

/// Splits an engine command line into program and arguments with POSIX shell rules.
///
/// Errors: a one-line reason for an unbalanced quote or an empty command.
pub fn split_command(cmd: &str) -> Result<Vec<String>, String> {
    let words = shlex::split(cmd)
        .ok_or_else(|| format!("cannot split engine command '{cmd}' (unbalanced quote?)"))?;
    if words.is_empty() {
        return Err("empty engine command".to_string());
    }
    Ok(words)
}

/// The file name of the program of `argv` (`/usr/bin/edax` → `edax`; the whole word when it
/// has none), the name of an engine that does not give one; empty for an empty `argv`.
pub fn program_name(argv: &[String]) -> String {
    let Some(prog) = argv.first() else {
        return String::new();
    };
    std::path::Path::new(prog)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| prog.clone())
}

/// A line read from an engine's output by [`EngineChild::recv`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line, without its line end (`\n` or `\r\n`).
    Text(String),
    /// A line longer than [`MAX_LINE`] bytes; nothing after it is read.
    TooLong,
}

/// What the reader thread sends: a line with its line end, an over-long line, or the end of
/// the output (or a read error).
enum Chunk {
    Text(String),
    TooLong,
    Eof,
}

/// An engine's child process (see the module header), or none: before the first
/// [`EngineChild::spawn`] and after [`EngineChild::kill`]. Dropping it kills the process.
#[derive(Default)]
pub struct EngineChild {
    child: Option<Child>,
    /// The engine's input; `None` once closed.
    stdin: Option<ChildStdin>,
    lines: Option<Receiver<Chunk>>,
    /// Why the last restart failed (see [`EngineChild::restarted`]).
    restart_failed: Option<String>,
}

impl EngineChild {
    /// Starts `argv` (program then arguments), after ending the process this held, if any.
    ///
    /// Errors: [`Fault::Exited`] for an empty `argv` (`empty command`) or a program that
    /// cannot be started (`cannot start 'PROG': REASON`).
    pub fn spawn(&mut self, argv: &[String]) -> Result<(), Fault> {
        self.kill();
        let (prog, args) = argv
            .split_first()
            .ok_or_else(|| Fault::Exited("empty command".to_string()))?;
        let mut command = Command::new(prog);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        // Spawn under the registry lock, so a signal handler that runs meanwhile waits and
        // then sees this engine's group.
        let mut child = {
            let mut groups = LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
            let child = command
                .spawn()
                .map_err(|e| Fault::Exited(format!("cannot start '{prog}': {e}")))?;
            if let Ok(pgid) = i32::try_from(child.id()) {
                groups.insert(pgid);
            }
            child
        };
        let stdout = child.stdout.take();
        self.stdin = child.stdin.take();
        // Held from here, so that `kill` (or the drop) ends it even without a stdout pipe.
        self.child = Some(child);
        let stdout = stdout.ok_or_else(|| Fault::Exited("no stdout pipe".to_string()))?;
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                let r = (&mut reader).take(MAX_LINE).read_until(b'\n', &mut buf);
                let line = match r {
                    Ok(0) | Err(_) => Chunk::Eof,
                    Ok(_) if !buf.ends_with(b"\n") && buf.len() as u64 >= MAX_LINE => {
                        Chunk::TooLong
                    }
                    Ok(_) => Chunk::Text(String::from_utf8_lossy(&buf).into_owned()),
                };
                let end = !matches!(line, Chunk::Text(_));
                if tx.send(line).is_err() || end {
                    break;
                }
            }
        });
        self.lines = Some(rx);
        Ok(())
    }

    /// Records how a restart ([`Player::restart`]: [`EngineChild::kill`], then the player's
    /// spawn and start-up) ended, and returns `started`. A failure kills the process and is
    /// kept: [`EngineChild::check_restarted`] answers it until a restart succeeds.
    ///
    /// [`Player::restart`]: super::player::Player::restart
    pub fn restarted(&mut self, started: Result<(), Fault>) -> Result<(), Fault> {
        match started {
            Ok(()) => {
                self.restart_failed = None;
                Ok(())
            }
            Err(f) => {
                self.kill();
                self.restart_failed = Some(f.to_string());
                Err(f)
            }
        }
    }

    /// For [`Player::new_game`]: [`Fault::RestartFailed`] with why the last restart failed, if
    /// it did (see [`EngineChild::restarted`]).
    ///
    /// [`Player::new_game`]: super::player::Player::new_game
    pub fn check_restarted(&self) -> Result<(), Fault> {
        match &self.restart_failed {
            Some(why) => Err(Fault::RestartFailed(why.clone())),
            None => Ok(()),
        }
    }

    /// Whether a process is held (started and not killed; it may have exited since).
    pub fn is_running(&self) -> bool {
        self.child.is_some()
    }

    /// Writes `text` as it is (the caller ends its lines) and flushes.
    ///
    /// Errors: [`Fault::Exited`] with how the process ended (see [`EngineChild::recv`]) when
    /// its input is closed or cannot be written.
    pub fn send(&mut self, text: &str) -> Result<(), Fault> {
        let sent = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(text.as_bytes()).is_ok() && stdin.flush().is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            Err(Fault::Exited(self.exit_reason()))
        }
    }

    /// The next line of the engine's output, waiting until `timeout` after `start`.
    ///
    /// Errors: [`Fault::Timeout`] (`timeout` in ms) when no line comes in time;
    /// [`Fault::Exited`] when the output has ended, with how the process ended (`exit status
    /// 3`, `killed by a signal`, or `closed its output` when it has not ended within half a
    /// second), or `not running` when no process is held.
    pub fn recv(&mut self, start: Instant, timeout: Duration) -> Result<Line, Fault> {
        let left = timeout.saturating_sub(start.elapsed());
        let rx = self
            .lines
            .as_ref()
            .ok_or_else(|| Fault::Exited("not running".to_string()))?;
        match rx.recv_timeout(left) {
            Ok(Chunk::Text(t)) => Ok(Line::Text(t.trim_end_matches(['\n', '\r']).to_string())),
            Ok(Chunk::TooLong) => Ok(Line::TooLong),
            Ok(Chunk::Eof) | Err(RecvTimeoutError::Disconnected) => {
                Err(Fault::Exited(self.exit_reason()))
            }
            Err(RecvTimeoutError::Timeout) => Err(Fault::Timeout(
                u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            )),
        }
    }

    /// Closes the engine's input (an engine that ignores a quit command still ends at the end
    /// of its input); its output can still be read.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// How the process ended, for a crash report: `exit status 3`, `killed by a signal`, or
    /// `closed its output` when it has not ended within a short wait.
    fn exit_reason(&mut self) -> String {
        if let Some(child) = self.child.as_mut() {
            for _ in 0..50 {
                if let Ok(Some(status)) = child.try_wait() {
                    return match status.code() {
                        Some(c) => format!("exit status {c}"),
                        None => "killed by a signal".to_string(),
                    };
                }
                thread::sleep(Duration::from_millis(10));
            }
        }
        "closed its output".to_string()
    }

    /// Ends the engine and every process of its group (see the module header); nothing when
    /// no process is held.
    pub fn kill(&mut self) {
        self.stdin = None;
        if let Some(mut child) = self.child.take() {
            let registered = i32::try_from(child.id())
                .map(|pgid| {
                    LIVE_GROUPS
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(&pgid)
                })
                .unwrap_or(false);
            #[cfg(unix)]
            if let Ok(pgid) = libc::pid_t::try_from(child.id())
                && pgid > 1
                && registered
            {
                // SAFETY: kill(2) only sends a signal; a negative pid names the process
                // group created for this engine at spawn (its id is the engine's pid, which
                // is not reused before the `wait` below).
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        self.lines = None;
    }
}

impl Drop for EngineChild {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_splitting() {
        assert_eq!(
            split_command("flank gtp --depth 4").unwrap(),
            vec!["flank", "gtp", "--depth", "4"]
        );
        assert_eq!(
            split_command("sh -c 'read x; exit 3'").unwrap(),
            vec!["sh", "-c", "read x; exit 3"]
        );
        assert!(split_command("flank 'unclosed").is_err());
        assert!(split_command("   ").is_err());
    }

    #[test]
    fn program_names() {
        let argv = |s: &str| split_command(s).unwrap();
        assert_eq!(program_name(&argv("/usr/bin/edax -q")), "edax");
        assert_eq!(program_name(&argv("flank nboard")), "flank");
        assert_eq!(program_name(&[]), "");
    }

    #[cfg(unix)]
    #[test]
    fn lines_timeouts_and_exits() {
        let mut c = EngineChild::default();
        assert!(!c.is_running());
        let start = Instant::now();
        let second = Duration::from_secs(1);
        assert_eq!(
            c.recv(start, second),
            Err(Fault::Exited("not running".to_string()))
        );
        assert_eq!(
            c.send("x\n"),
            Err(Fault::Exited("closed its output".to_string()))
        );
        let sh = |script: &str| vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        // Echoes one line (a CR LF line end is dropped), then exits with status 3.
        c.spawn(&sh("read x; printf '%s\\r\\n' \"$x\"; exit 3"))
            .unwrap();
        assert!(c.is_running());
        // Nothing to read yet.
        assert_eq!(
            c.recv(Instant::now(), Duration::from_millis(50)),
            Err(Fault::Timeout(50))
        );
        c.send("hello\n").unwrap();
        let start = Instant::now();
        let ten = Duration::from_secs(10);
        assert_eq!(c.recv(start, ten), Ok(Line::Text("hello".to_string())));
        assert_eq!(
            c.recv(start, ten),
            Err(Fault::Exited("exit status 3".to_string()))
        );
        // An over-long line.
        let long = format!("head -c {} /dev/zero | tr '\\0' z; sleep 5", MAX_LINE + 10);
        c.spawn(&sh(&long)).unwrap();
        assert_eq!(c.recv(Instant::now(), ten), Ok(Line::TooLong));
        c.kill();
        assert!(!c.is_running());
        // A program that does not exist.
        let err = c.spawn(&["/nonexistent/flank-engine".to_string()]);
        assert!(
            matches!(&err, Err(Fault::Exited(m)) if m.starts_with("cannot start '/nonexistent/flank-engine': ")),
            "{err:?}"
        );
        assert_eq!(
            c.spawn(&[]),
            Err(Fault::Exited("empty command".to_string()))
        );
    }
}
