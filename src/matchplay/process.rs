//! A GTP engine in a child process: the [`Player`] the match runner uses for real engines.
//!
//! The process is an [`EngineChild`], handled as [`super::child`] describes: the command line
//! split with `shlex`, stdin and stdout piped, stderr to /dev/null, a reader thread that turns
//! stdout into lines on a channel (so every request can wait with a timeout), each engine in
//! its own process group that is sent SIGKILL when the engine ends (quit, timeout, restart,
//! drop), and one registry of live groups that [`kill_all_engines`] ends from the
//! SIGINT/SIGTERM handler. Requests carry numeric ids (`7 genmove b`); an answer with another
//! id is a protocol error, one without an id is accepted (GTP allows engines to drop ids they
//! were not sent, and some do regardless). Lines longer than [`MAX_LINE`] bytes are a protocol
//! error.

use std::time::{Duration, Instant};

use super::child::{EngineChild, Line, program_name};
pub use super::child::{MAX_LINE, kill_all_engines, split_command};
use super::player::{Capabilities, DrawAnswer, Fault, GameSetup, Player};
use crate::othello::square::{Color, Move};

/// How long start-up commands (`name`, `list_commands`) may take, ms.
pub const STARTUP_TIMEOUT_MS: u64 = 30_000;

/// `b` or `w`, the GTP colour letters the runner sends.
pub fn gtp_color(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// A running GTP engine. Dropping it kills the process.
pub struct GtpProcess {
    argv: Vec<String>,
    child: EngineChild,
    next_id: u64,
    caps: Capabilities,
    decimal_time: bool,
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
            child: EngineChild::default(),
            next_id: 1,
            caps: Capabilities::default(),
            decimal_time: false,
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
        self.child.spawn(&self.argv)?;
        let startup = Duration::from_millis(STARTUP_TIMEOUT_MS);
        let name = match self.request("name", startup)? {
            Ok(n) if !n.trim().is_empty() => n.trim().to_string(),
            _ => program_name(&self.argv),
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
        self.child.send(&format!("{id} {cmd}\n"))?;
        let mut first: Option<(bool, String)> = None;
        let mut body: Vec<String> = Vec::new();
        loop {
            let line = match self.child.recv(start, timeout)? {
                Line::Text(t) => t,
                Line::TooLong => {
                    return Err(Fault::Protocol(format!(
                        "answer line longer than {MAX_LINE} bytes"
                    )));
                }
            };
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
        self.child.kill();
        let started = self.spawn();
        self.child.restarted(started)
    }

    fn new_game(
        &mut self,
        setup: &GameSetup,
        color: Color,
        timeout: Duration,
    ) -> Result<(), Fault> {
        self.child.check_restarted()?;
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
        if self.child.is_running() {
            let _ = self.request("quit", Duration::from_millis(1000));
        }
        self.child.kill();
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
}
