//! A GTP engine in a child process: the [`Player`] the match runner uses for real engines.
//!
//! The command line is split with `shlex` (POSIX shell words: quotes and backslashes, no
//! variables or globbing). stdin and stdout are piped, stderr goes to /dev/null (engines log
//! there; it would garble the progress bar). A reader thread turns stdout into lines on a
//! channel, so every request can wait with a timeout. Requests carry numeric ids
//! (`7 genmove b`); an answer with another id is a protocol error, one without an id is
//! accepted (GTP allows engines to drop ids they were not sent, and some do regardless).
//! Lines longer than [`MAX_LINE`] bytes are a protocol error.
//!
//! On Unix each engine runs in its own process group (`process_group(0)`: the group id is the
//! engine's pid), and ending the engine (quit, timeout, restart, drop) sends SIGKILL to the
//! whole group, so children of an engine started as `sh -c '…'` end with it. The groups of
//! live engines are kept in a global registry, so [`kill_all_engines`] (called by the SIGINT /
//! SIGTERM handler `flank match` installs) can end them all from another thread.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::player::{Capabilities, DrawAnswer, Fault, GameSetup, Player};
use crate::othello::square::{Color, Move};

/// The longest answer line read from an engine, bytes.
pub const MAX_LINE: u64 = 64 * 1024;

/// How long start-up commands (`name`, `list_commands`) may take, ms.
pub const STARTUP_TIMEOUT_MS: u64 = 30_000;

/// Process group ids (= engine pids) of every engine started and not yet killed.
static LIVE_GROUPS: std::sync::LazyLock<Mutex<HashSet<i32>>> =
    std::sync::LazyLock::new(|| Mutex::new(HashSet::new()));

/// Sends SIGKILL to the process group of every live engine and forgets them: used by the
/// SIGINT/SIGTERM handler of `flank match` before it exits. Returns how many groups were
/// signalled. A no-op (0) off Unix.
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

/// `b` or `w`, the GTP colour letters the runner sends.
pub fn gtp_color(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
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

enum Line {
    Text(String),
    TooLong,
    Eof,
}

/// A running GTP engine. Dropping it kills the process.
pub struct GtpProcess {
    argv: Vec<String>,
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Option<Receiver<Line>>,
    next_id: u64,
    caps: Capabilities,
    decimal_time: bool,
    /// Why the last restart failed; `new_game` then answers [`Fault::RestartFailed`].
    restart_failed: Option<String>,
}

/// Seconds for `time_settings` / `time_left`: `1.523` (ms precision) when `decimal`, else
/// whole seconds rounded with `whole` (down for time left, up for the budget).
fn seconds_text(ms: u64, decimal: bool, whole: fn(u64) -> u64) -> String {
    if decimal {
        format!("{}.{:03}", ms / 1000, ms % 1000)
    } else {
        whole(ms).to_string()
    }
}

impl GtpProcess {
    /// Starts `argv` (program then arguments) and asks `name` and `list_commands`.
    ///
    /// Errors: the program cannot be started, or dies or misbehaves during start-up.
    pub fn start(argv: Vec<String>) -> Result<GtpProcess, Fault> {
        let mut p = GtpProcess {
            argv,
            child: None,
            stdin: None,
            lines: None,
            next_id: 1,
            caps: Capabilities::default(),
            decimal_time: false,
            restart_failed: None,
        };
        p.spawn()?;
        Ok(p)
    }

    /// With `on`, `time_settings` and `time_left` carry seconds with millisecond precision
    /// (`time_left b 1.523 0`) instead of whole seconds (`flank match --decimal-time`).
    pub fn set_decimal_time(&mut self, on: bool) {
        self.decimal_time = on;
    }

    fn spawn(&mut self) -> Result<(), Fault> {
        let argv = self.argv.clone();
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
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Fault::Exited("no stdout pipe".to_string()))?;
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                let r = (&mut reader).take(MAX_LINE).read_until(b'\n', &mut buf);
                let line = match r {
                    Ok(0) | Err(_) => Line::Eof,
                    Ok(_) if !buf.ends_with(b"\n") && buf.len() as u64 >= MAX_LINE => Line::TooLong,
                    Ok(_) => Line::Text(String::from_utf8_lossy(&buf).into_owned()),
                };
                let end = !matches!(line, Line::Text(_));
                if tx.send(line).is_err() || end {
                    break;
                }
            }
        });
        self.child = Some(child);
        self.stdin = stdin;
        self.lines = Some(rx);
        let startup = Duration::from_millis(STARTUP_TIMEOUT_MS);
        let name = match self.request("name", startup)? {
            Ok(n) if !n.trim().is_empty() => n.trim().to_string(),
            _ => std::path::Path::new(prog)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| prog.clone()),
        };
        let commands = self.request("list_commands", startup)?.unwrap_or_default();
        let listed = |c: &str| commands.lines().any(|l| l.trim() == c);
        self.caps = Capabilities {
            name,
            draw_offer: listed("flank-draw_offer"),
            handicap: listed("flank-handicap"),
            time_settings: listed("time_settings"),
            time_left: listed("time_left"),
        };
        Ok(())
    }

    /// How the process ended, for a crash report: `exit status 3`, `killed by signal 9`, or
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

    /// Sends `cmd` and waits up to `timeout` for the answer: `Ok(Ok(text))` for `=`,
    /// `Ok(Err(message))` for `?`, `Err(fault)` for no answer, a dead process or a malformed
    /// answer.
    pub fn request(
        &mut self,
        cmd: &str,
        timeout: Duration,
    ) -> Result<Result<String, String>, Fault> {
        let start = Instant::now();
        let id = self.next_id;
        self.next_id += 1;
        let sent = match self.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{id} {cmd}").is_ok() && stdin.flush().is_ok(),
            None => false,
        };
        if !sent {
            return Err(Fault::Exited(self.exit_reason()));
        }
        let mut first: Option<(bool, String)> = None;
        let mut body: Vec<String> = Vec::new();
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            let rx = self
                .lines
                .as_ref()
                .ok_or_else(|| Fault::Exited("not running".to_string()))?;
            let line = match rx.recv_timeout(left) {
                Ok(Line::Text(t)) => t,
                Ok(Line::TooLong) => {
                    return Err(Fault::Protocol(format!(
                        "answer line longer than {MAX_LINE} bytes"
                    )));
                }
                Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(Fault::Exited(self.exit_reason()));
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Fault::Timeout(
                        u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                    ));
                }
            };
            let line = line.trim_end_matches(['\n', '\r']).to_string();
            match &first {
                None if line.trim().is_empty() => continue,
                None => first = Some(parse_status(&line, id)?),
                Some(_) if line.trim().is_empty() => break,
                Some(_) => body.push(line),
            }
        }
        let (ok, text) = first.ok_or_else(|| Fault::Protocol("empty answer".to_string()))?;
        let mut text = text;
        for l in body {
            text.push('\n');
            text.push_str(&l);
        }
        Ok(if ok { Ok(text) } else { Err(text) })
    }

    /// Sends `cmd`, which must be accepted (`=`); a `?` answer is [`Fault::Refused`].
    fn expect_ok(&mut self, cmd: &str, timeout: Duration) -> Result<String, Fault> {
        self.request(cmd, timeout)?
            .map_err(|message| Fault::Refused {
                command: cmd.to_string(),
                message,
            })
    }

    /// Ends the engine and every process of its group (see the module header).
    fn kill(&mut self) {
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

/// Parses the first line of an answer: `=` or `?`, an optional id that must be `id`, then
/// the text. Returns (success, text).
fn parse_status(line: &str, id: u64) -> Result<(bool, String), Fault> {
    let ok = match line.as_bytes().first() {
        Some(b'=') => true,
        Some(b'?') => false,
        _ => {
            return Err(Fault::Protocol(format!(
                "expected '=' or '?', got '{}'",
                crate::notation::clip(line)
            )));
        }
    };
    let rest = &line[1..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && rest[..digits].parse::<u64>().ok() != Some(id) {
        return Err(Fault::Protocol(format!(
            "answer id {} for request {id}",
            crate::notation::clip(&rest[..digits])
        )));
    }
    Ok((ok, rest[digits..].trim().to_string()))
}

impl Player for GtpProcess {
    fn capabilities(&self) -> &Capabilities {
        &self.caps
    }

    fn restart(&mut self) -> Result<(), Fault> {
        self.kill();
        match self.spawn() {
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

    fn new_game(
        &mut self,
        setup: &GameSetup,
        color: Color,
        timeout: Duration,
    ) -> Result<(), Fault> {
        if let Some(why) = &self.restart_failed {
            return Err(Fault::RestartFailed(why.clone()));
        }
        self.expect_ok("clear_board", timeout)?;
        if let Some((c, n)) = setup.handicap {
            self.expect_ok(&format!("flank-handicap {} {n}", gtp_color(c)), timeout)?;
        }
        if self.caps.time_settings {
            let secs = seconds_text(setup.clock_ms(color), self.decimal_time, |ms| {
                ms.div_ceil(1000).max(1)
            });
            self.expect_ok(&format!("time_settings {secs} 0 0"), timeout)?;
        }
        for &(c, m) in &setup.opening {
            self.expect_ok(&format!("play {} {m}", gtp_color(c)), timeout)?;
        }
        Ok(())
    }

    fn time_left(&mut self, color: Color, ms: u64, timeout: Duration) -> Result<(), Fault> {
        if !self.caps.time_left {
            return Ok(());
        }
        let secs = seconds_text(ms, self.decimal_time, |ms| ms / 1000);
        let cmd = format!("time_left {} {secs} 0", gtp_color(color));
        self.expect_ok(&cmd, timeout).map(|_| ())
    }

    fn play(&mut self, color: Color, mv: Move, timeout: Duration) -> Result<(), Fault> {
        let cmd = format!("play {} {mv}", gtp_color(color));
        self.expect_ok(&cmd, timeout).map(|_| ())
    }

    fn genmove(&mut self, color: Color, timeout: Duration) -> Result<String, Fault> {
        self.expect_ok(&format!("genmove {}", gtp_color(color)), timeout)
    }

    fn draw_offer(&mut self, offering: Color, timeout: Duration) -> Result<DrawAnswer, Fault> {
        if !self.caps.draw_offer {
            return Ok(DrawAnswer::Decline);
        }
        match self.request(
            &format!("flank-draw_offer {}", gtp_color(offering)),
            timeout,
        )? {
            Ok(a) if a.eq_ignore_ascii_case("accept") => Ok(DrawAnswer::Accept),
            Ok(a) if a.eq_ignore_ascii_case("decline") => Ok(DrawAnswer::Decline),
            Ok(a) => Err(Fault::Protocol(format!(
                "flank-draw_offer answered '{}' (expected accept or decline)",
                crate::notation::clip(&a)
            ))),
            Err(_) => {
                // Unknown after all: it never takes (or offers) a draw.
                self.caps.draw_offer = false;
                Ok(DrawAnswer::Decline)
            }
        }
    }

    fn check_handicap(&mut self, color: Color, n: u32, timeout: Duration) -> Result<(), String> {
        let cmd = format!("flank-handicap {} {n}", gtp_color(color));
        match self.request(&cmd, timeout) {
            Ok(Ok(_)) => self
                .expect_ok("clear_board", timeout)
                .map(|_| ())
                .map_err(|f| f.to_string()),
            Ok(Err(message)) => Err(format!("'{cmd}' answered '? {message}'")),
            Err(f) => Err(f.to_string()),
        }
    }

    fn quit(&mut self) {
        if self.child.is_some() {
            let _ = self.request("quit", Duration::from_millis(1000));
        }
        self.kill();
    }
}

impl Drop for GtpProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines() {
        assert_eq!(parse_status("=4 f5", 4), Ok((true, "f5".to_string())));
        assert_eq!(parse_status("= f5", 4), Ok((true, "f5".to_string())));
        assert_eq!(
            parse_status("?7 illegal move", 7),
            Ok((false, "illegal move".to_string()))
        );
        assert!(matches!(parse_status("=3 f5", 4), Err(Fault::Protocol(_))));
        assert!(matches!(parse_status("f5", 4), Err(Fault::Protocol(_))));
    }

    #[test]
    fn time_texts() {
        let up = |ms: u64| ms.div_ceil(1000).max(1);
        let down = |ms: u64| ms / 1000;
        assert_eq!(seconds_text(1523, true, down), "1.523");
        assert_eq!(seconds_text(1523, false, down), "1");
        assert_eq!(seconds_text(999, false, down), "0");
        assert_eq!(seconds_text(999, true, down), "0.999");
        assert_eq!(seconds_text(2500, false, up), "3");
        assert_eq!(seconds_text(2500, true, up), "2.500");
        assert_eq!(seconds_text(40, true, up), "0.040");
    }

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
}
