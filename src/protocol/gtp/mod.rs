//! The GTP (Go Text Protocol, version 2) layer for Othello: line framing, the [`Command`]
//! parser, and a [`Gtp`] session that drives a [`Game`], an [`Engine`] and a [`TimeManager`].
//!
//! Framing follows `docs/protocols.md`: a command line is `[id] name args…` with an optional
//! all-digit id; answers are `=[id] result` or `?[id] message` (no space between `=`/`?` and
//! the id) followed by one empty line, never with an empty line inside. Input is cleaned
//! first: `\r` and other control characters except tab and newline are dropped, as are
//! byte-order marks (U+FEFF), everything from `#` is cut, tabs become spaces; empty and
//! comment-only lines get no answer. Invalid UTF-8 is replaced, not fatal. A line longer than
//! [`MAX_LINE_BYTES`] (1 MiB, comment not counted) is read in bounded chunks and answered
//! `? syntax error: line too long`. The loop flushes after every answer and ends on `quit`
//! (after answering it) or at end of input. Nothing but answers is written to the output:
//! search info goes to stderr when [`GtpOptions::verbose`] is on.
//!
//! Stop on demand: [`run`] reads the input on a thread of its own. A line that arrives while
//! `genmove`, `reg_genmove` or `flank-hint` is thinking stops the search through
//! [`Engine::stop_handle`]; the command answers at once with its best result so far (always a
//! legal move), then the line is handled. The end of input does the same, and the session
//! then ends. Input sent together with the command (in the same read, or within
//! [`TOGETHER_MS`] = 20 ms of its line, as from a client that does not wait for answers) is
//! queued and does not stop it; input sent later does, also when it is still queued behind an
//! earlier command.
//!
//! Every command checks its argument count (`? syntax error: play takes 2 arguments (play
//! <color> <move>)`, `? syntax error: undo takes no arguments`), and a failed command leaves
//! the game and the clocks unchanged. User text echoed in an error is clipped to
//! [`MAX_ECHO_CHARS`](crate::notation::MAX_ECHO_CHARS) characters plus `…`; unknown command
//! names are not echoed. `boardsize` accepts 8 only: any other integer, negative or huge, is
//! `? unacceptable size`, anything else a syntax error. Clock times are seconds clamped as
//! [`seconds_to_ms`](crate::engine::timeman::seconds_to_ms) says (NaN and infinities are
//! syntax errors), and the time manager never gives one move more than
//! [`crate::engine::timeman::MAX_MOVE_MS`] (1 hour).
//!
//! Passes (see [`crate::othello::game`]): `play C pass` (any case, also `pa`, `ps`, `--`) is accepted when `C`
//! has no legal move, game over included; `play C V` for the colour not to move records the
//! blocked side's pass first; `genmove C` does the same, and answers `= pass` (recording the
//! pass) when `C` has no move, also at game over. Moves are answered in lower case (`= f5`).
//!
//! `final_score` answers black minus white discs (`B+n`, `W+n` or `0`): once the game is over
//! the empty squares go to the side with more discs; before that it is the plain disc
//! difference, empties not assigned ([`Game::score`]).
//!
//! flank's own commands (see `docs/levels.md`):
//! - `flank-level L`: the playing level, `easy`, `medium`, `hard` or 1–60 ([`Level`]); `=`,
//!   or `? bad level …` with the level unchanged. It applies from the next move on.
//! - `flank-handicap C N`: `N` = 1–4 corner discs (a1, h8, h1, a8 in that order) for colour
//!   `C`, allowed only before the first move after `clear_board`/`setboard` and on empty
//!   corners ([`Game::handicap`]); otherwise `? reason` and the game is unchanged.
//! - `flank-draw_offer C`: colour `C` offers a draw; the answer is `= accept` or `= decline`
//!   for the other colour, judged on the current position by
//!   [`judge_draw_offer`](crate::engine::draw::judge_draw_offer) within a small bounded
//!   budget. The game and the clocks are unchanged either way. The query is
//!   stateless: flank keeps no offer count (the runner also uses it to ask a player whether
//!   it wants to offer), so the 3-offer cap is the match runner's, not the engine's.
//! - `flank-hint N`: the `N` best moves of the side to move (1 ≤ `N` ≤ the legal moves),
//!   one per line, best first, as `MOVE SCORE KIND PV…` ([`crate::engine::analyze::move_line`]:
//!   `g8 +18 exact g8 h7 …` or `d3 +2 depth=9 d3 c3 c4`; the score in discs from the side to
//!   move's view), searched by [`crate::engine::analyze`] within the time the side to move would get
//!   for a move (and `--depth`). Nothing is played and no clock is charged. `= pass` when the
//!   side to move must pass, `? game over` at game over, `? bad count …` for a bad `N`.

mod command;
mod display;
mod framing;
mod think;

use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;

use crate::book::Book;
use crate::engine::Engine;
use crate::engine::level::{DEFAULT_SEED, Level};
use crate::engine::ponder::ponder_position;
use crate::engine::timeman::{DEFAULT_MOVE_TIME_MS, TimeControl, TimeManager};
use crate::othello::board::Board;
use crate::othello::game::{Game, GameError};
use crate::othello::square::Move;

pub use crate::protocol::input::TOGETHER_MS;
pub use command::{COMMANDS, Command};
pub use framing::{MAX_LINE_BYTES, clean_line, format_response};

use crate::protocol::input::{Framing, Inbox, Input, READ_AHEAD_LINES, read_input};
use command::syntax;
/// Settings of a GTP session (filled from the `flank gtp` command line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GtpOptions {
    /// Time per move in ms when no clock is set by `time_settings`/`time_left` (and under
    /// "no time limit"): the answer comes within this time, and no new iteration starts after
    /// half of it. Default [`DEFAULT_MOVE_TIME_MS`] = 1000 ms.
    pub move_time_ms: u64,
    /// Maximum search depth in plies (`--depth`), searched with `SolveMode::Auto` so the
    /// endgame is still solved. A cap, not a promise: the clock, or without one the per-move
    /// time, still bounds every search. `None` = limited by time only.
    pub depth: Option<u32>,
    /// Print one line of search info per iteration to stderr.
    pub verbose: bool,
    /// The playing level at the start of the session (`--level`, default `hard`); GTP
    /// `flank-level` changes it.
    pub level: Level,
    /// Seed of the random generator behind `easy`'s randomness and the book's (`--seed`,
    /// default [`DEFAULT_SEED`]). It is seeded once per session: the same seed and the same
    /// commands give the same moves.
    pub seed: u64,
    /// The opening book `genmove` plays from at every level but `easy` (`--book`; `None` =
    /// no book, the default of a session built in code; `flank gtp` loads the built-in book).
    pub book: Option<Arc<Book>>,
    /// Book randomness in discs (`--book-randomness`): 0 plays the best book move, R any book
    /// move within R discs of the position's value.
    pub book_randomness: u32,
    /// Ponder (`--ponder`): after answering `genmove`, think on the position after the
    /// predicted reply until the next line arrives (see [`crate::engine::ponder`]).
    pub ponder: bool,
}

impl Default for GtpOptions {
    fn default() -> Self {
        GtpOptions {
            move_time_ms: DEFAULT_MOVE_TIME_MS,
            depth: None,
            verbose: false,
            level: Level::Hard,
            seed: DEFAULT_SEED,
            book: None,
            book_randomness: 0,
            ponder: false,
        }
    }
}

/// A GTP session: the game, the engine, the clocks and the options.
pub struct Gtp {
    game: Game,
    engine: Engine,
    time: TimeManager,
    options: GtpOptions,
    level: Level,
    rng: ChaCha12Rng,
    quit: bool,
    /// The input read ahead by [`run`]'s reader thread; `None` when lines are handed in
    /// one by one ([`Gtp::handle_line`] alone), and then nothing interrupts a search.
    inbox: Option<Inbox>,
    /// When the line being handled arrived (set by [`run`]).
    arrived: Option<Instant>,
    /// The principal variation of the last move chosen (its first move that move).
    last_pv: Vec<Move>,
    /// The position to ponder on once the current answer is out (set by `genmove` with
    /// `--ponder`; [`run`] takes it).
    ponder_on: Option<Board>,
}

impl Gtp {
    /// A session at the start position with no clock.
    pub fn new(engine: Engine, options: GtpOptions) -> Gtp {
        Gtp {
            game: Game::new(),
            engine,
            time: TimeManager::new(options.move_time_ms),
            level: options.level,
            rng: ChaCha12Rng::seed_from_u64(options.seed),
            options,
            quit: false,
            inbox: None,
            arrived: None,
            last_pv: Vec::new(),
            ponder_on: None,
        }
    }

    /// The game being played.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The clocks (as set by `time_settings`/`time_left` and our own thinking time).
    pub fn time(&self) -> &TimeManager {
        &self.time
    }

    /// The current playing level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// True once `quit` has been answered.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Handles one input line. Returns `None` for empty and comment lines, otherwise the full
    /// answer including its trailing empty line (`"= f5\n\n"`). A line longer than
    /// [`MAX_LINE_BYTES`] before its `#` comment is answered as by [`Gtp::line_too_long`].
    pub fn handle_line(&mut self, line: &str) -> Option<String> {
        let start = Instant::now();
        let content = line.split('#').next().unwrap_or("");
        if content.len() > MAX_LINE_BYTES {
            return Some(self.line_too_long(content));
        }
        let cleaned = clean_line(content)?;
        let mut tokens: Vec<&str> = cleaned.split_whitespace().collect();
        let id = if tokens[0].bytes().all(|b| b.is_ascii_digit()) {
            Some(tokens.remove(0))
        } else {
            None
        };
        let result = match tokens.split_first() {
            None => Err(syntax("expected a command after the id")),
            Some((name, args)) => {
                Command::parse(name, args).and_then(|cmd| self.execute(cmd, start))
            }
        };
        Some(match result {
            Ok(text) => format_response(id, true, &text),
            Err(text) => format_response(id, false, &text),
        })
    }

    /// The answer to a line too long to handle, of which `prefix` is the start:
    /// `?[id] syntax error: line too long`, with the id if `prefix` starts with one (an
    /// all-digit first token followed by more text). The game is unchanged.
    pub fn line_too_long(&self, prefix: &str) -> String {
        let cleaned = clean_line(prefix).unwrap_or_default();
        let mut tokens = cleaned.split_whitespace();
        let id = match (tokens.next(), tokens.next()) {
            (Some(t), Some(_)) if t.bytes().all(|b| b.is_ascii_digit()) => Some(t),
            _ => None,
        };
        format_response(id, false, &syntax("line too long"))
    }

    /// Runs one parsed command; `start` is when its line arrived (the clock's reference).
    /// Returns the answer text, or the error message.
    pub fn execute(&mut self, cmd: Command, start: Instant) -> Result<String, String> {
        let game_err = |e: GameError| e.to_string();
        Ok(match cmd {
            Command::ProtocolVersion => "2".to_string(),
            Command::Name => "flank".to_string(),
            Command::Version => env!("CARGO_PKG_VERSION").to_string(),
            Command::KnownCommand(c) => {
                let known = COMMANDS.contains(&c.to_ascii_lowercase().as_str());
                known.to_string()
            }
            Command::ListCommands => COMMANDS.join("\n"),
            Command::Quit => {
                self.quit = true;
                String::new()
            }
            Command::BoardSize(8) => {
                self.new_game();
                String::new()
            }
            Command::BoardSize(_) => return Err("unacceptable size".to_string()),
            Command::ClearBoard => {
                self.new_game();
                String::new()
            }
            Command::Komi => String::new(),
            Command::Play(c, m) => {
                self.game.play(c, m).map_err(game_err)?;
                String::new()
            }
            Command::GenMove(c) => {
                self.game.prepare_turn(c).map_err(game_err)?;
                let board = self.game.position().board;
                let mv = self.choose(c, &board, start);
                self.game.play(c, mv).map_err(game_err)?;
                let elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
                self.time.spent(c, elapsed_ms);
                if self.options.ponder {
                    self.ponder_on = ponder_position(&board, mv, &self.last_pv);
                }
                mv.to_string()
            }
            Command::RegGenMove(c) => {
                let pos = self.game.position_for(c).map_err(game_err)?;
                self.choose(c, &pos.board, start).to_string()
            }
            Command::Undo => {
                self.game.undo().map_err(game_err)?;
                String::new()
            }
            Command::ShowBoard => self.showboard(),
            Command::FinalScore => self.game.final_score_text(),
            Command::TimeSettings {
                main_ms,
                byo_ms,
                stones,
            } => {
                self.time
                    .set_control(TimeControl::from_gtp(main_ms, byo_ms, stones));
                String::new()
            }
            Command::TimeLeft { color, ms, stones } => {
                self.time.time_left(color, ms, stones);
                String::new()
            }
            Command::SetGame(g) => {
                if g.eq_ignore_ascii_case("othello") {
                    String::new()
                } else {
                    return Err("unsupported game".to_string());
                }
            }
            Command::ListGames => "Othello".to_string(),
            Command::SetBoard(p) => {
                self.game.setboard(p);
                String::new()
            }
            Command::RulesGameId => "Othello".to_string(),
            Command::RulesBoardSize => "8".to_string(),
            Command::RulesBoard => self.rules_board(),
            Command::RulesLegalMoves => {
                if self.game.is_over() {
                    String::new()
                } else if self.game.must_pass() {
                    "pass".to_string()
                } else {
                    let moves: Vec<String> = self
                        .game
                        .legal_moves()
                        .iter()
                        .map(|s| s.to_upper())
                        .collect();
                    moves.join(" ")
                }
            }
            Command::RulesSideToMove => self.game.side_to_move().to_string(),
            Command::RulesFinalResult => self.final_result(),
            Command::Level(l) => {
                self.level = l;
                String::new()
            }
            Command::Handicap(c, n) => {
                self.game.handicap(c, n).map_err(game_err)?;
                String::new()
            }
            Command::DrawOffer(c) => {
                if self.draw_offer(c.opposite()) {
                    "accept".to_string()
                } else {
                    "decline".to_string()
                }
            }
            Command::Hint(n) => self.hint(n, start)?,
        })
    }

    /// Clears the game, the engine's memory and both clocks.
    fn new_game(&mut self) {
        self.game.clear();
        self.engine.new_game();
        self.time.reset();
    }
}

/// Runs a GTP session: reads commands from `input` line by line, writes each answer to
/// `output` and flushes it, until `quit` (answered first) or end of input. At most
/// [`MAX_LINE_BYTES`] of a line are kept: a longer line (not counting a `#` comment) is read
/// to its end in bounded chunks and answered `? syntax error: line too long`. Only I/O errors
/// are returned; bad commands are answered with `? message`.
///
/// The input is read on a thread of its own, so that a search can be stopped on demand: a
/// line that arrives while `genmove`, `reg_genmove` or `flank-hint` is thinking stops the
/// search, which answers at once with its best move so far (always legal); the line is then
/// handled as usual. The end of input does the same, and the session ends after the answer.
/// Only input that arrives after the search started, and more than [`TOGETHER_MS`] after the
/// command's own line, stops it: lines a client sends together with the command, without
/// waiting for its answer, are queued and do not cut it short. The reader stops at a
/// well-formed `quit`; `run` returns once the reader has ended (at `quit`, at the end of
/// input, or on a read error, which is returned).
pub fn run<R: BufRead + Send, W: Write>(
    input: R,
    output: &mut W,
    engine: Engine,
    options: GtpOptions,
) -> io::Result<()> {
    let (tx, rx) = sync_channel(READ_AHEAD_LINES);
    let framing = Framing {
        comment: Some(b'#'),
        max_line: MAX_LINE_BYTES,
        is_last: is_quit,
    };
    std::thread::scope(|scope| {
        scope.spawn(move || read_input(input, tx, framing));
        let mut gtp = Gtp::new(engine, options);
        gtp.inbox = Some(Inbox::new(rx));
        let result = serve(&mut gtp, output);
        // Dropping the inbox lets a reader still sending (after an output error) end.
        gtp.inbox = None;
        result
    })
}

/// True if `line` is a well-formed `quit` (with or without an id): the last line a session
/// reads.
fn is_quit(line: &str) -> bool {
    let Some(cleaned) = clean_line(line) else {
        return false;
    };
    let mut tokens: Vec<&str> = cleaned.split_whitespace().collect();
    if tokens[0].bytes().all(|b| b.is_ascii_digit()) {
        tokens.remove(0);
    }
    matches!(
        tokens
            .split_first()
            .map(|(name, args)| Command::parse(name, args)),
        Some(Ok(Command::Quit))
    )
}

/// The session loop of [`run`] on the reader's items.
fn serve<W: Write>(gtp: &mut Gtp, output: &mut W) -> io::Result<()> {
    loop {
        let Some(inbox) = gtp.inbox.as_mut() else {
            return Ok(());
        };
        let a = inbox.next();
        let answer = match a.input {
            Input::End => return Ok(()),
            Input::Failed(e) => return Err(e),
            Input::Line(line) => {
                gtp.arrived = Some(a.at);
                gtp.handle_line(&line)
            }
            Input::TooLong(prefix) => Some(gtp.line_too_long(&prefix)),
        };
        if let Some(answer) = answer {
            output.write_all(answer.as_bytes())?;
            output.flush()?;
        }
        if gtp.should_quit() {
            return Ok(());
        }
        // Pondering starts once the answer is out and ends when the next line arrives.
        if let Some(board) = gtp.ponder_on.take() {
            gtp.ponder(&board);
        }
    }
}
