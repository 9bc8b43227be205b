//! An NBoard engine in a child process: the [`Player`] `flank match` uses for an engine given
//! `--protocol-a nboard` or `--protocol-b nboard` (`flank nboard`, Edax, NTest).
//!
//! The process is an [`EngineChild`], handled as [`super::child`] describes and as for a GTP
//! engine ([`super::process::GtpProcess`]): the command line split with `shlex`, stdin and
//! stdout piped, stderr to /dev/null, a reader thread that turns stdout into lines on a channel
//! (so every wait has a timeout), lines longer than [`MAX_LINE`] bytes a protocol error, each
//! engine in its own process group that is sent SIGKILL when the engine ends (quit, timeout,
//! restart, drop), and one registry of live groups, GTP and NBoard, that
//! [`super::child::kill_all_engines`] ends from the SIGINT/SIGTERM handler.
//!
//! NBoard has no request ids and answers few commands, so the player keeps the game itself
//! (the start position, every move, the time each of its own moves took) and synchronises with
//! `ping N` / `pong N`: every line the engine writes before the pong of the latest ping is
//! dropped, as the NBoard GUI does. What is sent, one command a line:
//!
//! | when | sent | waited for |
//! |---|---|---|
//! | start and restart | `nboard 2`, `set depth D` (the player's depth, default [`DEFAULT_DEPTH`]), `ping N` | `pong N` within [`STARTUP_TIMEOUT_MS`]; the last `set myname NAME` before it names the engine (else the program's file name) |
//! | [`Player::new_game`] | `set game GGF`, `ping N` | `pong N` |
//! | [`Player::time_left`] | `set game GGF` with the clock as the referee has it | nothing |
//! | [`Player::play`] | `move M` (`PA` for a pass) | nothing |
//! | [`Player::genmove`] | `ping N`, `go` | `pong N`, then `=== MOVE…`; a legal move is then sent back as `move MOVE/EVAL/SECONDS` (the engine does not play its own move) |
//! | [`Player::quit`] | `quit`, then the end of its input | the engine closing its output, at most [`QUIT_WAIT_MS`] |
//!
//! The GGF is `(;GM[Othello]PC[flank match]PB[…]PW[…]TI[CLOCK]TY[8]BO[8 <64 cells> <side>]
//! B[…]W[…]…;)` on one line: `BO` the game's start (handicap corners included), then every move
//! since, opening moves and passes included (`PA`), the player's own moves as
//! `f5/EVAL/SECONDS` (EVAL the engine's, omitted when it gave none), all others bare. `PB`/`PW`
//! are the engine's name for its own colour and `opponent` for the other.
//!
//! Clocks: NBoard engines read their time left as `TI` less the seconds written with their
//! own moves. `TI` is the player's own whole-game clock ([`GameSetup::clock_ms`]) as `m:ss` or
//! `h:mm:ss`, with `.mmm` milliseconds appended only when the clock is not whole seconds. Each
//! own move first carries the wall time of its `genmove` (ms precision); at every
//! [`Player::time_left`] the time of the player's latest own move is set so that the own
//! moves' times add up to the clock less the referee's time left (ms), so the engine reads
//! exactly the referee's time left: the latest own move carries everything the referee
//! charged since the move before it (its `go`, and the answers to `move` and `set game`,
//! which take microseconds as nothing is awaited). Before the player's first own move there is
//! no move to carry those microseconds, and the engine reads its whole clock. The opponent's
//! moves carry no time: the referee does not tell a player the other clock, so the engine
//! reads the opponent's time as `TI` untouched.
//!
//! Answers to `go`: `=== MOVE`, `=== MOVE/EVAL/SECONDS` or, as Edax writes it, `=== MOVE EVAL
//! SECONDS`; MOVE a square in any case or `PA`. [`Player::genmove`] returns the move in GTP's
//! form (`f5`, `pass`), which the referee judges; thinking lines (`search`, `book`,
//! `nodestats`), `status` and `set` lines (`set myname`) before it are skipped. Any other line,
//! a `===` without a readable move and an over-long line are [`Fault::Protocol`].
//!
//! NBoard has no draw offers ([`Player::draw_offer`] declines without asking) and no handicap
//! command: a handicap start reaches the engine as `BO`, which every NBoard engine reads, so
//! [`Player::check_handicap`] accepts without asking.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::child::{EngineChild, Line, MAX_LINE, program_name};
use super::ggf::{board_tag, escape, time_tag};
use super::player::{Capabilities, DrawAnswer, Fault, GameSetup, Player};
use super::process::STARTUP_TIMEOUT_MS;
use crate::notation::clip;
use crate::othello::Position;
use crate::othello::game::Game;
use crate::othello::square::{Color, Move};

/// The depth sent as `set depth D` when the match gives none: 60, the most there is, so that
/// the clock in the GGF is what limits the engine's search.
pub const DEFAULT_DEPTH: u32 = 60;

/// How long [`Player::quit`] waits for the engine to close its output after `quit`, ms.
pub const QUIT_WAIT_MS: u64 = 1000;

/// One move of the game as the player keeps it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Played {
    color: Color,
    mv: Move,
    /// For the player's own moves: the engine's evaluation (discs, the mover's view), if any.
    eval: Option<f64>,
    /// For the player's own moves: the time written with it, ms; `None` for every other move.
    ms: Option<u64>,
}

/// The game an NBoard player keeps: start, moves, and the player's colour and clock.
#[derive(Clone, Debug, PartialEq)]
struct Record {
    start: Position,
    game: Game,
    moves: Vec<Played>,
    /// The colour the player has.
    color: Color,
    /// The player's whole-game clock, ms (`TI`).
    clock_ms: u64,
}

impl Record {
    /// A game from `setup` in which the player has `color`: the start and the opening moves
    /// (without times).
    fn new(setup: &GameSetup, color: Color) -> Result<Record, Fault> {
        let mut r = Record {
            start: setup.start,
            game: Game::from_position(setup.start),
            moves: Vec::new(),
            color,
            clock_ms: setup.clock_ms(color),
        };
        for &(c, m) in &setup.opening {
            r.play(c, m, None, None)?;
        }
        Ok(r)
    }

    /// Plays `mv` for `color` (a pass first for a blocked side to move, recorded explicitly),
    /// with the evaluation and time written with it.
    ///
    /// Errors: [`Fault::Protocol`] for a move that does not fit the game (the referee and the
    /// player disagree).
    fn play(
        &mut self,
        color: Color,
        mv: Move,
        eval: Option<f64>,
        ms: Option<u64>,
    ) -> Result<(), Fault> {
        let before = self.game.history().len();
        self.game.play(color, mv).map_err(|e| {
            Fault::Protocol(format!("{color} {mv} does not fit the game kept: {e}"))
        })?;
        if self.game.history().len() == before + 2 {
            self.moves.push(Played {
                color: color.opposite(),
                mv: Move::Pass,
                eval: None,
                ms: None,
            });
        }
        self.moves.push(Played {
            color,
            mv,
            eval,
            ms,
        });
        Ok(())
    }

    /// Sets the time of the player's latest own move so that its own moves' times add up to
    /// the clock less `left_ms` (see the module header); nothing before its first own move.
    fn set_time_left(&mut self, left_ms: u64) {
        let used = self.clock_ms.saturating_sub(left_ms);
        let color = self.color;
        let mut own = self
            .moves
            .iter_mut()
            .filter(|m| m.color == color && m.ms.is_some());
        let Some(mut last) = own.next() else {
            return;
        };
        let mut earlier = 0u64;
        for m in own {
            earlier = earlier.saturating_add(last.ms.unwrap_or(0));
            last = m;
        }
        last.ms = Some(used.saturating_sub(earlier));
    }

    /// The time left on the player's clock as the engine reads it from the GGF: `TI` less
    /// its own moves' times, ms.
    #[cfg(test)]
    fn engine_time_left(&self) -> u64 {
        let spent: u64 = self
            .moves
            .iter()
            .filter(|m| m.color == self.color)
            .filter_map(|m| m.ms)
            .sum();
        self.clock_ms.saturating_sub(spent)
    }

    /// The game as one GGF line (see the module header); `name` is the engine's.
    fn ggf(&self, name: &str) -> String {
        let (black, white) = match self.color {
            Color::Black => (escape(name), "opponent".to_string()),
            Color::White => ("opponent".to_string(), escape(name)),
        };
        let mut s = format!(
            "(;GM[Othello]PC[flank match]PB[{black}]PW[{white}]TI[{}]TY[8]BO[{}]",
            clock_text(self.clock_ms),
            board_tag(&self.start)
        );
        for m in &self.moves {
            let tag = match m.color {
                Color::Black => 'B',
                Color::White => 'W',
            };
            let _ = write!(s, "{tag}[{}]", move_field(m.mv, m.eval, m.ms));
        }
        s.push_str(";)");
        s
    }
}

/// `TI` for a clock of `ms`: [`time_tag`] for whole seconds, else the same with `.mmm`
/// milliseconds (`0:02.500`, `1:00:00.250`).
fn clock_text(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        return time_tag(ms);
    }
    let secs = ms / 1000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let frac = ms % 1000;
    if h > 0 {
        format!("{h}:{m:02}:{s:02}.{frac:03}")
    } else {
        format!("{m}:{s:02}.{frac:03}")
    }
}

/// A move as NBoard writes it: `F5`, or `PA` for a pass.
fn nboard_move(mv: Move) -> String {
    match mv {
        Move::Play(sq) => sq.to_upper(),
        Move::Pass => "PA".to_string(),
    }
}

/// `MOVE`, or `MOVE/EVAL/SECONDS` when a time is given (EVAL empty when unknown): `F5`,
/// `F5/2.00/1.234`, `F5//0.031`.
fn move_field(mv: Move, eval: Option<f64>, ms: Option<u64>) -> String {
    let m = nboard_move(mv);
    match ms {
        None => m,
        Some(ms) => {
            let eval = eval.map(|e| format!("{e:.2}")).unwrap_or_default();
            format!("{m}/{eval}/{}.{:03}", ms / 1000, ms % 1000)
        }
    }
}

/// An answer to `go`: the move and the evaluation, if the engine gave one.
#[derive(Clone, Copy, Debug, PartialEq)]
struct GoAnswer {
    mv: Move,
    eval: Option<f64>,
}

/// Reads what follows `===` in an answer to `go`: `MOVE`, `MOVE/EVAL/SECONDS` or `MOVE EVAL
/// SECONDS` (Edax), MOVE a square in any case or `PA`. An EVAL that is not a number (NBoard
/// allows a pair `a,b`) is left out; SECONDS is not used.
///
/// Errors: [`Fault::Protocol`] when there is no move or it is neither a square nor a pass.
fn parse_go_answer(rest: &str) -> Result<GoAnswer, Fault> {
    let mut words = rest.split_whitespace();
    let first = words.next().unwrap_or("");
    let (mv_text, eval_text) = match first.split_once('/') {
        Some((m, tail)) => (m, tail.split('/').next()),
        None => (first, words.next()),
    };
    let mv: Move = mv_text
        .parse()
        .ok()
        .filter(|_| !mv_text.is_empty())
        .ok_or_else(|| {
            Fault::Protocol(format!(
                "'=== {}' has no move (expected a square or PA)",
                clip(rest.trim())
            ))
        })?;
    let eval = eval_text
        .and_then(|e| e.trim().parse::<f64>().ok())
        .filter(|e| e.is_finite());
    Ok(GoAnswer { mv, eval })
}

/// What a line read while waiting for the answer to `go` is.
#[derive(Debug, PartialEq)]
enum GoLine<'a> {
    /// `=== …`: the text after `===`.
    Answer(&'a str),
    /// A line to skip: empty, thinking (`search`, `book`, `nodestats`), `status`, `set`,
    /// `pong`.
    Skip,
    /// Anything else.
    Unexpected,
}

fn classify(line: &str) -> GoLine<'_> {
    let t = line.trim();
    if let Some(rest) = t.strip_prefix("===") {
        return GoLine::Answer(rest);
    }
    let word = t.split_whitespace().next().unwrap_or("");
    match word {
        "" | "search" | "book" | "nodestats" | "status" | "set" | "pong" => GoLine::Skip,
        _ => GoLine::Unexpected,
    }
}

/// A running NBoard engine. Dropping it kills the process.
pub struct NBoardProcess {
    argv: Vec<String>,
    depth: u32,
    child: EngineChild,
    next_ping: u64,
    caps: Capabilities,
    /// The game under way (`None` before the first `new_game`).
    record: Option<Record>,
}

impl NBoardProcess {
    /// Starts `argv` (program then arguments), sends `nboard 2` and `set depth {depth}` (NBoard
    /// engines play at most that many plies deep; [`DEFAULT_DEPTH`] leaves the limit to the
    /// clock), and waits for the `pong` of a `ping`.
    ///
    /// Errors: the program cannot be started, or dies, stays silent for
    /// [`STARTUP_TIMEOUT_MS`] or writes an over-long line during start-up.
    pub fn start(argv: Vec<String>, depth: u32) -> Result<NBoardProcess, Fault> {
        let mut p = NBoardProcess {
            argv,
            depth,
            child: EngineChild::default(),
            next_ping: 1,
            caps: Capabilities::default(),
            record: None,
        };
        p.spawn()?;
        Ok(p)
    }

    fn spawn(&mut self) -> Result<(), Fault> {
        self.child.spawn(&self.argv)?;
        self.record = None;
        let startup = Duration::from_millis(STARTUP_TIMEOUT_MS);
        self.send(&["nboard 2".to_string(), format!("set depth {}", self.depth)])?;
        let before = self.sync(Instant::now(), startup)?;
        let name = before
            .iter()
            .rev()
            .find_map(|l| l.trim().strip_prefix("set myname "))
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| program_name(&self.argv));
        self.caps = Capabilities {
            name,
            draw_offer: false,
            handicap: true,
            time_settings: true,
            time_left: true,
        };
        Ok(())
    }

    /// Writes `lines`, each with a newline, in one write, and flushes.
    fn send(&mut self, lines: &[String]) -> Result<(), Fault> {
        let mut text = String::new();
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        self.child.send(&text)
    }

    /// The next line (without its line end), waiting until `timeout` after `start`.
    fn next_line(&mut self, start: Instant, timeout: Duration) -> Result<String, Fault> {
        match self.child.recv(start, timeout)? {
            Line::Text(t) => Ok(t),
            Line::TooLong => Err(Fault::Protocol(format!(
                "line longer than {MAX_LINE} bytes"
            ))),
        }
    }

    /// A fresh `ping N` line and its `pong N` answer.
    fn ping(&mut self) -> (String, String) {
        let n = self.next_ping;
        self.next_ping += 1;
        (format!("ping {n}"), format!("pong {n}"))
    }

    /// Sends `ping N` and reads until `pong N`, within `timeout` after `start`. Returns the
    /// lines dropped before it.
    fn sync(&mut self, start: Instant, timeout: Duration) -> Result<Vec<String>, Fault> {
        let (ping, pong) = self.ping();
        self.send(&[ping])?;
        self.await_pong(&pong, start, timeout)
    }

    /// Reads until the line `pong` (surrounding blanks ignored); returns the lines before it.
    fn await_pong(
        &mut self,
        pong: &str,
        start: Instant,
        timeout: Duration,
    ) -> Result<Vec<String>, Fault> {
        let mut dropped = Vec::new();
        loop {
            let line = self.next_line(start, timeout)?;
            if line.trim() == pong {
                return Ok(dropped);
            }
            dropped.push(line);
        }
    }

    /// Sends `set game` with the game as the player keeps it.
    fn send_game(&mut self) -> Result<(), Fault> {
        let Some(record) = &self.record else {
            return Ok(());
        };
        let line = format!("set game {}", record.ggf(&self.caps.name));
        self.send(&[line])
    }
}

impl Player for NBoardProcess {
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
        let start = Instant::now();
        self.record = Some(Record::new(setup, color)?);
        self.send_game()?;
        self.sync(start, timeout).map(|_| ())
    }

    fn time_left(&mut self, color: Color, ms: u64, _timeout: Duration) -> Result<(), Fault> {
        match self.record.as_mut() {
            Some(r) if r.color == color => r.set_time_left(ms),
            _ => return Ok(()),
        }
        self.send_game()
    }

    fn play(&mut self, color: Color, mv: Move, _timeout: Duration) -> Result<(), Fault> {
        if let Some(r) = self.record.as_mut() {
            r.play(color, mv, None, None)?;
        }
        self.send(&[format!("move {}", nboard_move(mv))])
    }

    fn genmove(&mut self, color: Color, timeout: Duration) -> Result<String, Fault> {
        let start = Instant::now();
        let (ping, pong) = self.ping();
        self.send(&[ping, "go".to_string()])?;
        self.await_pong(&pong, start, timeout)?;
        let answer = loop {
            let line = self.next_line(start, timeout)?;
            match classify(&line) {
                GoLine::Answer(rest) => break parse_go_answer(rest)?,
                GoLine::Skip => {}
                GoLine::Unexpected => {
                    return Err(Fault::Protocol(format!(
                        "'{}' while waiting for '=== MOVE'",
                        clip(line.trim())
                    )));
                }
            }
        };
        let ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        // A move the referee will accept is played on the kept game and sent back to the
        // engine, as the NBoard GUI does; anything else ends the game (the referee's call).
        if let Some(r) = self.record.as_mut()
            && !matches!(answer.mv, Move::Pass)
            && r.game.side_to_move() == color
            && r.play(color, answer.mv, answer.eval, Some(ms)).is_ok()
        {
            self.send(&[format!(
                "move {}",
                move_field(answer.mv, answer.eval, Some(ms))
            )])?;
        }
        Ok(answer.mv.to_string())
    }

    fn draw_offer(&mut self, _offering: Color, _timeout: Duration) -> Result<DrawAnswer, Fault> {
        Ok(DrawAnswer::Decline)
    }

    fn check_handicap(&mut self, _color: Color, _n: u32, _timeout: Duration) -> Result<(), String> {
        Ok(())
    }

    fn quit(&mut self) {
        if self.child.is_running() && self.send(&["quit".to_string()]).is_ok() {
            // Close its input too (an engine that ignores `quit` still ends at the end of its
            // input), then wait for it to close its output (without reaping it: `kill` does).
            self.child.close_input();
            let start = Instant::now();
            let wait = Duration::from_millis(QUIT_WAIT_MS);
            while self.next_line(start, wait).is_ok() {}
        }
        self.child.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::ggf::parse_ggf;

    fn sq(s: &str) -> Move {
        s.parse().unwrap()
    }

    #[test]
    fn go_answers() {
        let a = parse_go_answer(" F5/2.00/0.31").unwrap();
        assert_eq!(a.mv, sq("f5"));
        assert_eq!(a.eval, Some(2.0));
        assert_eq!(a.mv.to_string(), "f5");
        // Edax: spaces, lower case.
        let a = parse_go_answer(" d6 -1.00 0.0").unwrap();
        assert_eq!(a.mv, sq("d6"));
        assert_eq!(a.eval, Some(-1.0));
        // The move alone, any case, and passes.
        assert_eq!(parse_go_answer(" c4").unwrap().eval, None);
        assert_eq!(parse_go_answer(" C4").unwrap().mv, sq("c4"));
        assert_eq!(parse_go_answer(" PA").unwrap().mv, Move::Pass);
        assert_eq!(
            parse_go_answer(" pa/0.00/1.5").unwrap().mv.to_string(),
            "pass"
        );
        // A pair of evaluations, or none, still gives the move.
        let a = parse_go_answer(" E6/1,-1/0.5").unwrap();
        assert_eq!((a.mv, a.eval), (sq("e6"), None));
        assert_eq!(parse_go_answer(" E6//0.5").unwrap().eval, None);
        // No move, or not a move: protocol errors.
        for bad in ["", "   ", " z9", " /1.00/2", " hello", " f5f6"] {
            assert!(
                matches!(parse_go_answer(bad), Err(Fault::Protocol(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn lines_while_waiting_for_go() {
        assert_eq!(
            classify("=== F5/2.00/0.31"),
            GoLine::Answer(" F5/2.00/0.31")
        );
        assert_eq!(
            classify("=== d6 -1.00 0.0\r"),
            GoLine::Answer(" d6 -1.00 0.0")
        );
        for skip in [
            "",
            "search C3D3 1.00 0 2",
            "book F5D6 0.00 100 22",
            "nodestats 820818 0.19",
            "status Edax is thinking",
            "status",
            "set myname Edax60",
            "pong 3",
        ] {
            assert_eq!(classify(skip), GoLine::Skip, "{skip:?}");
        }
        assert_eq!(classify("= f5"), GoLine::Unexpected);
        assert_eq!(classify("f5"), GoLine::Unexpected);
    }

    fn setup(clock_ms: u64) -> GameSetup {
        GameSetup {
            start: Position::start(),
            handicap: None,
            opening: vec![(Color::Black, sq("f5")), (Color::White, sq("d6"))],
            time_ms: [clock_ms, 2 * clock_ms],
        }
    }

    #[test]
    fn the_ggf_gives_the_engine_the_referees_time_left() {
        let mut r = Record::new(&setup(4000), Color::Black).unwrap();
        assert_eq!(
            r.ggf("flank"),
            "(;GM[Othello]PC[flank match]PB[flank]PW[opponent]TI[0:04]TY[8]\
             BO[8 ---------------------------O*------*O--------------------------- *]\
             B[F5]W[D6];)"
        );
        // Before its first own move the engine reads its whole clock.
        r.set_time_left(3999);
        assert_eq!(r.engine_time_left(), 4000);
        r.play(Color::Black, sq("c3"), Some(2.0), Some(310))
            .unwrap();
        assert_eq!(r.engine_time_left(), 3690);
        r.play(Color::White, sq("d3"), None, None).unwrap();
        // The referee charged 312 ms since: the last own move carries them.
        r.set_time_left(3687);
        assert_eq!(r.engine_time_left(), 3687);
        r.play(Color::Black, sq("c4"), None, Some(1000)).unwrap();
        r.play(Color::White, sq("f4"), None, None).unwrap();
        r.set_time_left(2680);
        assert_eq!(r.engine_time_left(), 2680);
        let text = r.ggf("flank");
        assert!(
            text.ends_with("B[F5]W[D6]B[C3/2.00/0.313]W[D3]B[C4//1.007]W[F4];)"),
            "{text}"
        );
        // flank's own GGF reader agrees: every move, the clock and black's time.
        let g = parse_ggf(&text).unwrap();
        assert_eq!(g.moves.len(), 6);
        assert_eq!(g.clock_ms, Some(4000));
        let spent: f64 = g
            .moves
            .iter()
            .filter(|m| m.color == Color::Black)
            .filter_map(|m| m.seconds)
            .sum();
        assert_eq!((spent * 1000.0).round() as u64, 4000 - 2680);
    }

    #[test]
    fn white_gets_its_own_clock_and_passes_are_explicit() {
        let mut r = Record::new(&setup(2500), Color::White).unwrap();
        let text = r.ggf("edax");
        assert!(text.contains("PB[opponent]PW[edax]TI[0:05]"), "{text}");
        r.clock_ms = 2500;
        assert!(r.ggf("e").contains("TI[0:02.500]"));
        // Black to move is blocked (white a1 and the centre, black b1), white can take c1.
        let cells: String = (0..64)
            .map(|i| match i {
                1 => 'X',
                0 | 27 | 28 | 35 | 36 => 'O',
                _ => '-',
            })
            .collect();
        let s = GameSetup {
            start: format!("{cells} X").parse().unwrap(),
            handicap: None,
            opening: Vec::new(),
            time_ms: [1000, 1000],
        };
        // The referee's explicit pass, then white's move.
        let mut r = Record::new(&s, Color::White).unwrap();
        r.play(Color::Black, Move::Pass, None, None).unwrap();
        r.play(Color::White, sq("c1"), None, Some(20)).unwrap();
        assert!(
            r.ggf("x").ends_with("B[PA]W[C1//0.020];)"),
            "{}",
            r.ggf("x")
        );
        // A move for white while black is blocked records black's pass first.
        let mut r = Record::new(&s, Color::White).unwrap();
        r.play(Color::White, sq("c1"), None, None).unwrap();
        assert_eq!(r.moves.len(), 2);
        assert_eq!(
            (r.moves[0].color, r.moves[0].mv),
            (Color::Black, Move::Pass)
        );
        let g = parse_ggf(&r.ggf("x")).unwrap();
        assert_eq!(g.moves.len(), 2);
        // A move that does not fit is a protocol error and changes nothing.
        let before = r.moves.clone();
        assert!(matches!(
            r.play(Color::Black, sq("a1"), None, None),
            Err(Fault::Protocol(_))
        ));
        assert_eq!(r.moves, before);
    }

    #[test]
    fn clock_and_move_texts() {
        assert_eq!(clock_text(4000), "0:04");
        assert_eq!(clock_text(600_000), "10:00");
        assert_eq!(clock_text(2500), "0:02.500");
        assert_eq!(clock_text(3_600_250), "1:00:00.250");
        assert_eq!(move_field(sq("f5"), None, None), "F5");
        assert_eq!(move_field(Move::Pass, None, None), "PA");
        assert_eq!(move_field(sq("f5"), Some(-1.5), Some(31)), "F5/-1.50/0.031");
        assert_eq!(move_field(sq("a8"), None, Some(12_345)), "A8//12.345");
        for t in ["0:04", "0:02.500", "1:00:00.250"] {
            assert!(crate::notation::ggf::parse_clock(t).is_some(), "{t}");
        }
        assert_eq!(
            crate::notation::ggf::parse_clock("1:00:00.250"),
            Some(3_600_250)
        );
    }
}
