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
//! queued and does not stop it.
//!
//! Every command checks its argument count (`? syntax error: play takes 2 arguments (play
//! <color> <move>)`, `? syntax error: undo takes no arguments`), and a failed command leaves
//! the game and the clocks unchanged. User text echoed in an error is clipped to
//! [`MAX_ECHO_CHARS`](crate::notation::MAX_ECHO_CHARS) characters plus `…`; unknown command names are not echoed. `boardsize`
//! accepts 8 only: any other integer, negative or huge, is `? unacceptable size`, anything
//! else a syntax error. Clock times are seconds clamped as [`seconds_to_ms`] says (NaN and
//! infinities are syntax errors), and the time manager never gives one move more than
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
//!   for the other colour, judged on the current position by [`judge_draw_offer`] within a
//!   small bounded budget. The game and the clocks are unchanged either way. The query is
//!   stateless: flank keeps no offer count (the runner also uses it to ask a player whether
//!   it wants to offer), so the 3-offer cap is the match runner's, not the engine's.
//! - `flank-hint N`: the `N` best moves of the side to move (1 ≤ `N` ≤ the legal moves),
//!   one per line, best first, as `MOVE SCORE KIND PV…` ([`crate::engine::analyze::move_line`]:
//!   `g8 +18 exact g8 h7 …` or `d3 +2 depth=9 d3 c3 c4`; the score in discs from the side to
//!   move's view), searched by [`crate::engine::analyze`] within the time the side to move would get
//!   for a move (and `--depth`). Nothing is played and no clock is charged. `= pass` when the
//!   side to move must pass, `? game over` at game over, `? bad count …` for a bad `N`.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::engine::analyze::{analyze, info_lines, move_line};
use crate::engine::draw::{draw_budget_ms, judge_draw_offer};
use crate::engine::level::{DEFAULT_SEED, Level, search_at_level};
use crate::engine::timeman::{DEFAULT_MOVE_TIME_MS, TimeControl, TimeManager, seconds_to_ms};
use crate::engine::{Engine, SearchInfo, SearchLimits};
use crate::notation::{clip, parse_board_string};
use crate::othello::Position;
use crate::othello::board::Board;
use crate::othello::game::{Game, GameError};
use crate::othello::square::{Color, Move, Square};

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
    /// Seed of the random generator behind `easy`'s randomness (`--seed`, default
    /// [`DEFAULT_SEED`]). It is seeded once per session: the same seed and the same commands
    /// give the same moves.
    pub seed: u64,
}

impl Default for GtpOptions {
    fn default() -> Self {
        GtpOptions {
            move_time_ms: DEFAULT_MOVE_TIME_MS,
            depth: None,
            verbose: false,
            level: Level::Hard,
            seed: DEFAULT_SEED,
        }
    }
}

/// Every command, in the order `list_commands` prints them.
pub const COMMANDS: [&str; 30] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "reg_genmove",
    "undo",
    "showboard",
    "final_score",
    "time_settings",
    "time_left",
    "set_game",
    "list_games",
    "setboard",
    "gogui-rules_game_id",
    "gogui-rules_board_size",
    "gogui-rules_board",
    "gogui-rules_legal_moves",
    "gogui-rules_side_to_move",
    "gogui-rules_final_result",
    "flank-level",
    "flank-handicap",
    "flank-draw_offer",
    "flank-hint",
];

/// A parsed GTP command with its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `protocol_version`: answers `2`.
    ProtocolVersion,
    /// `name`: answers `flank`.
    Name,
    /// `version`: answers the crate version.
    Version,
    /// `known_command X`: `true` or `false`.
    KnownCommand(String),
    /// `list_commands`: one name per line.
    ListCommands,
    /// `quit`: answer, then end the session.
    Quit,
    /// `boardsize N`: only 8 is acceptable (and clears the board). The size is saturated to
    /// the `i64` range, so a huge or negative size is still `unacceptable size`.
    BoardSize(i64),
    /// `clear_board`: start position, black to move, history and clocks reset.
    ClearBoard,
    /// `komi x`: any finite number, accepted and ignored.
    Komi,
    /// `play C V`.
    Play(Color, Move),
    /// `genmove C`: search, play and answer the move.
    GenMove(Color),
    /// `reg_genmove C`: search and answer the move without playing it.
    RegGenMove(Color),
    /// `undo`: take back one recorded move (a pass is one).
    Undo,
    /// `showboard`: a text board.
    ShowBoard,
    /// `final_score`: `B+n`, `W+n` or `0`.
    FinalScore,
    /// `time_settings M B S` (seconds, converted to ms by [`seconds_to_ms`]: decimals
    /// accepted, negative as 0, clamped to [`crate::engine::timeman::MAX_CLOCK_MS`]).
    TimeSettings {
        /// Main time, ms.
        main_ms: u64,
        /// Byo-yomi period, ms.
        byo_ms: u64,
        /// Stones per period.
        stones: u32,
    },
    /// `time_left C T S` (T seconds, converted to ms by [`seconds_to_ms`]).
    TimeLeft {
        /// Whose clock.
        color: Color,
        /// Time left, ms.
        ms: u64,
        /// Stones left in the byo-yomi period, 0 in main time.
        stones: u32,
    },
    /// `set_game G` (Quarry): only `Othello`.
    SetGame(String),
    /// `list_games` (Quarry): `Othello`.
    ListGames,
    /// `setboard <board string>`: set the position, clear the history.
    SetBoard(Position),
    /// `gogui-rules_game_id`: `Othello`.
    RulesGameId,
    /// `gogui-rules_board_size`: `8`.
    RulesBoardSize,
    /// `gogui-rules_board`: 8 lines of `X`/`O`/`.`, row 8 first.
    RulesBoard,
    /// `gogui-rules_legal_moves`: upper case, `pass` when blocked, empty at game over.
    RulesLegalMoves,
    /// `gogui-rules_side_to_move`: `black` or `white`.
    RulesSideToMove,
    /// `gogui-rules_final_result`: a free-text result.
    RulesFinalResult,
    /// `flank-level L`: set the playing level.
    Level(Level),
    /// `flank-handicap C N`: `N` corner discs for colour `C` before the first move.
    Handicap(Color, u32),
    /// `flank-draw_offer C`: colour `C` offers a draw; `accept` or `decline` for the other.
    /// Stateless: no offer count is kept here (any cap, such as `flank match`'s 3 offers per
    /// player and game, is the caller's).
    DrawOffer(Color),
    /// `flank-hint N`: the `N` best moves of the side to move with their scores and
    /// principal variations, one per line (see [`crate::engine::analyze::move_line`]); nothing is
    /// played and the clocks are not charged.
    Hint(u32),
}

/// The kind of a solved score in the `--verbose` lines: ` wld` when only its sign is proven
/// (the score is then −1, 0 or +1), ` exact` for a final disc difference, nothing for a
/// midgame estimate.
fn solved_kind(exact: bool, wld: bool) -> &'static str {
    if wld {
        " wld"
    } else if exact {
        " exact"
    } else {
        ""
    }
}

fn syntax(detail: impl std::fmt::Display) -> String {
    format!("syntax error: {detail}")
}

/// The longest command line accepted, in bytes, not counting a `#` comment: a longer line is
/// answered `? syntax error: line too long` and [`run`] never buffers more than this of it.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Checks that `name` got exactly `usage`'s number of arguments, `usage` being the command
/// line pattern (`play <color> <move>`, whose `<…>` parts are counted).
///
/// Error: `syntax error: play takes 2 arguments (play <color> <move>)`, or
/// `syntax error: undo takes no arguments`.
fn arity(args: &[&str], usage: &str) -> Result<(), String> {
    let mut words = usage.split(' ');
    let name = words.next().unwrap_or(usage);
    let n = words.count();
    if args.len() == n {
        return Ok(());
    }
    Err(syntax(match n {
        0 => format!("{name} takes no arguments"),
        1 => format!("{name} takes 1 argument ({usage})"),
        _ => format!("{name} takes {n} arguments ({usage})"),
    }))
}

fn color_arg(t: &str) -> Result<Color, String> {
    t.parse::<Color>().map_err(syntax)
}

fn move_arg(t: &str) -> Result<Move, String> {
    t.parse::<Move>().map_err(syntax)
}

/// GTP seconds (decimals accepted, negative read as 0, huge clamped, see
/// [`seconds_to_ms`]) to ms. NaN and infinities are syntax errors.
fn seconds_arg(t: &str) -> Result<u64, String> {
    t.parse::<f64>()
        .ok()
        .and_then(seconds_to_ms)
        .ok_or_else(|| syntax(format!("bad time '{}' (expected seconds)", clip(t))))
}

/// A whole number that fits `u32`; digits beyond that range say so.
fn count_arg(t: &str) -> Result<u32, String> {
    t.parse().map_err(|_| {
        if all_digits(t) {
            syntax(format!("bad count '{}' (out of range)", clip(t)))
        } else {
            syntax(format!("bad count '{}' (expected a whole number)", clip(t)))
        }
    })
}

fn all_digits(t: &str) -> bool {
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// The corner count of `flank-handicap`: a number too large for `u32` is out of range like
/// 5 is (`bad handicap N (expected 1-4 corners)`), not a syntax error.
fn handicap_arg(t: &str) -> Result<u32, String> {
    if all_digits(t) && t.parse::<u32>().is_err() {
        return Err(format!("bad handicap {} (expected 1-4 corners)", clip(t)));
    }
    count_arg(t)
}

/// A board size: any integer (optional sign, digits), saturated to the `i64` range so that
/// huge and negative sizes are `unacceptable size` rather than syntax errors.
fn board_size_arg(t: &str) -> Result<i64, String> {
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax(format!(
            "bad board size '{}' (expected an integer)",
            clip(t)
        )));
    }
    Ok(t.parse::<i64>().unwrap_or(if t.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    }))
}

/// A komi: any finite number.
fn komi_arg(t: &str) -> Result<(), String> {
    match t.parse::<f64>() {
        Ok(k) if k.is_finite() => Ok(()),
        _ => Err(syntax(format!(
            "bad komi '{}' (expected a number)",
            clip(t)
        ))),
    }
}

impl Command {
    /// Parses a command name (any case) and its arguments. Every command takes an exact
    /// number of arguments, except `setboard`, which reads all of them (at least one) as one
    /// board string.
    ///
    /// Errors (the text after `? `): `unknown command`; `syntax error: …` for a wrong number
    /// of arguments (`play takes 2 arguments (play <color> <move>)`, `undo takes no
    /// arguments`) or a malformed one (`bad move 'z9' (expected a1-h8 or pass)`, user text
    /// clipped to [`MAX_ECHO_CHARS`](crate::notation::MAX_ECHO_CHARS)), or the board-string error for `setboard`.
    pub fn parse(name: &str, args: &[&str]) -> Result<Command, String> {
        let name = name.to_ascii_lowercase();
        let none = |cmd: Command| arity(args, &name).map(|()| cmd);
        Ok(match name.as_str() {
            "protocol_version" => none(Command::ProtocolVersion)?,
            "name" => none(Command::Name)?,
            "version" => none(Command::Version)?,
            "known_command" => {
                arity(args, "known_command <command>")?;
                Command::KnownCommand(args[0].to_string())
            }
            "list_commands" => none(Command::ListCommands)?,
            "quit" => none(Command::Quit)?,
            "boardsize" => {
                arity(args, "boardsize <size>")?;
                Command::BoardSize(board_size_arg(args[0])?)
            }
            "clear_board" => none(Command::ClearBoard)?,
            "komi" => {
                arity(args, "komi <komi>")?;
                komi_arg(args[0])?;
                Command::Komi
            }
            "play" => {
                arity(args, "play <color> <move>")?;
                Command::Play(color_arg(args[0])?, move_arg(args[1])?)
            }
            "genmove" => {
                arity(args, "genmove <color>")?;
                Command::GenMove(color_arg(args[0])?)
            }
            "reg_genmove" => {
                arity(args, "reg_genmove <color>")?;
                Command::RegGenMove(color_arg(args[0])?)
            }
            "undo" => none(Command::Undo)?,
            "showboard" => none(Command::ShowBoard)?,
            "final_score" => none(Command::FinalScore)?,
            "time_settings" => {
                arity(args, "time_settings <main> <byo-yomi> <stones>")?;
                Command::TimeSettings {
                    main_ms: seconds_arg(args[0])?,
                    byo_ms: seconds_arg(args[1])?,
                    stones: count_arg(args[2])?,
                }
            }
            "time_left" => {
                arity(args, "time_left <color> <seconds> <stones>")?;
                Command::TimeLeft {
                    color: color_arg(args[0])?,
                    ms: seconds_arg(args[1])?,
                    stones: count_arg(args[2])?,
                }
            }
            "set_game" => {
                arity(args, "set_game <game>")?;
                Command::SetGame(args[0].to_string())
            }
            "list_games" => none(Command::ListGames)?,
            "setboard" => {
                if args.is_empty() {
                    return Err(syntax("expected setboard <64 cells> <side to move>"));
                }
                Command::SetBoard(parse_board_string(&args.join(" ")).map_err(syntax)?)
            }
            "gogui-rules_game_id" => none(Command::RulesGameId)?,
            "gogui-rules_board_size" => none(Command::RulesBoardSize)?,
            "gogui-rules_board" => none(Command::RulesBoard)?,
            "gogui-rules_legal_moves" => none(Command::RulesLegalMoves)?,
            "gogui-rules_side_to_move" => none(Command::RulesSideToMove)?,
            "gogui-rules_final_result" => none(Command::RulesFinalResult)?,
            "flank-level" => {
                arity(args, "flank-level <level>")?;
                Command::Level(args[0].parse::<Level>().map_err(syntax)?)
            }
            "flank-handicap" => {
                arity(args, "flank-handicap <color> <corners>")?;
                Command::Handicap(color_arg(args[0])?, handicap_arg(args[1])?)
            }
            "flank-draw_offer" => {
                arity(args, "flank-draw_offer <color>")?;
                Command::DrawOffer(color_arg(args[0])?)
            }
            "flank-hint" => {
                arity(args, "flank-hint <count>")?;
                match count_arg(args[0])? {
                    0 => return Err("bad count 0 (expected 1 or more moves)".to_string()),
                    n => Command::Hint(n),
                }
            }
            _ => return Err("unknown command".to_string()),
        })
    }
}

/// Cleans one input line as GTP asks: drops control characters except tab and newline
/// (so `\r` goes) and byte-order marks (U+FEFF, which some clients put at the start of their
/// input), cuts from `#`, turns tabs into spaces and trims. Returns `None` when nothing is
/// left (an empty or comment-only line gets no answer).
pub fn clean_line(line: &str) -> Option<String> {
    let cut = line.split('#').next().unwrap_or("");
    let cleaned: String = cut
        .chars()
        .filter(|&c| c != '\u{feff}' && (c == '\t' || c == '\n' || !c.is_control()))
        .map(|c| if c == '\t' || c == '\n' { ' ' } else { c })
        .collect();
    let t = cleaned.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Formats one answer: `=[id] text` or `?[id] text`, then an empty line. Empty lines inside
/// `text` are dropped; a text starting with a newline starts on the line after `=`.
pub fn format_response(id: Option<&str>, ok: bool, text: &str) -> String {
    let mut out = String::new();
    out.push(if ok { '=' } else { '?' });
    if let Some(id) = id {
        out.push_str(id);
    }
    let body: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if !body.is_empty() {
        out.push(if text.starts_with('\n') { '\n' } else { ' ' });
        out.push_str(&body.join("\n"));
    }
    out.push_str("\n\n");
    out
}

/// A GTP session: the game, the engine, the clocks and the options.
pub struct Gtp {
    game: Game,
    engine: Engine,
    time: TimeManager,
    options: GtpOptions,
    level: Level,
    rng: StdRng,
    quit: bool,
    /// The input read ahead by [`run`]'s reader thread; `None` when lines are handed in
    /// one by one ([`Gtp::handle_line`] alone), and then nothing interrupts a search.
    inbox: Option<Inbox>,
    /// When the line being handled arrived (set by [`run`]).
    arrived: Option<Instant>,
}

impl Gtp {
    /// A session at the start position with no clock.
    pub fn new(engine: Engine, options: GtpOptions) -> Gtp {
        Gtp {
            game: Game::new(),
            engine,
            time: TimeManager::new(options.move_time_ms),
            level: options.level,
            rng: StdRng::seed_from_u64(options.seed),
            options,
            quit: false,
            inbox: None,
            arrived: None,
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

    /// `flank-hint N`: the `N` best moves of the side to move, one [`move_line`] each, best
    /// first, searched by [`analyze`] within the limits the time manager gives that side for
    /// a move (and `--depth`); nothing is played and no clock is charged. `pass` when the
    /// side to move must pass; `? game over` at game over; `? bad count …` when `N` exceeds
    /// the legal moves.
    fn hint(&mut self, n: u32, start: Instant) -> Result<String, String> {
        if self.game.is_over() {
            return Err("game over".to_string());
        }
        if self.game.must_pass() {
            return Ok("pass".to_string());
        }
        let (board, side) = (self.game.position().board, self.game.position().side);
        let legal = board.moves().count_ones();
        if n > legal {
            return Err(format!(
                "bad count {n} (only {legal} legal move{})",
                if legal == 1 { "" } else { "s" }
            ));
        }
        let limits = self.time.limits(side, &board, self.options.depth, start);
        let verbose = self.options.verbose;
        let a = self.watched(|g| {
            analyze(&mut g.engine, &board, n as usize, &limits, &mut |a| {
                if verbose {
                    for line in info_lines(a) {
                        eprintln!("{line}");
                    }
                }
            })
        });
        if verbose {
            eprintln!(
                "flank: hint for {}: {} moves, depth {}{} nodes {} time {} ms",
                side,
                a.moves.len(),
                a.depth,
                if a.exact { " exact" } else { "" },
                a.nodes,
                a.time_ms
            );
        }
        let lines: Vec<String> = a.moves.iter().map(move_line).collect();
        Ok(lines.join("\n"))
    }

    /// Runs `search` (a search on this session's engine) while the reader's input is watched:
    /// a line or the end of input that arrives after the search started, and more than
    /// [`TOGETHER_MS`] after the command's own line, stops the search through
    /// [`Engine::stop_handle`] (it then answers with its best result so far) and waits in the
    /// queue for its turn. Input that arrived earlier (sent together with the command by a
    /// client that does not wait for answers) does not stop it. Without an inbox (lines handed
    /// in by [`Gtp::handle_line`]) the search just runs.
    fn watched<T>(&mut self, search: impl FnOnce(&mut Gtp) -> T) -> T {
        let Some(mut inbox) = self.inbox.take() else {
            return search(self);
        };
        let now = Instant::now();
        let together = self
            .arrived
            .and_then(|a| a.checked_add(Duration::from_millis(TOGETHER_MS)))
            .unwrap_or(now);
        let since = now.max(together);
        let stop = self.engine.stop_handle();
        let done = AtomicBool::new(false);
        let out = std::thread::scope(|scope| {
            scope.spawn(|| inbox.watch(since, &stop, &done));
            // Ends the watcher even if the search panics.
            struct Done<'a>(&'a AtomicBool);
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
            let _done = Done(&done);
            search(self)
        });
        self.inbox = Some(inbox);
        out
    }

    /// Clears the game, the engine's memory and both clocks.
    fn new_game(&mut self) {
        self.game.clear();
        self.engine.new_game();
        self.time.reset();
    }

    /// The move for `color`, which is to move in `board`: pass when blocked, the only move
    /// without searching, otherwise the engine's choice within the time manager's limits. An
    /// illegal answer from the search is replaced by the first legal move (and reported on
    /// stderr) so the game can go on.
    fn choose(&mut self, color: Color, board: &Board, start: Instant) -> Move {
        let moves = board.moves();
        if moves == 0 {
            return Move::Pass;
        }
        let first = Move::Play(Square::from_index(moves.trailing_zeros() as u8));
        if moves.count_ones() == 1 {
            return first;
        }
        let limits: SearchLimits = self.time.limits(color, board, self.options.depth, start);
        let verbose = self.options.verbose;
        let mut on_info = |info: &SearchInfo| {
            if verbose {
                let pv: Vec<String> = info.pv.iter().map(|m| m.to_string()).collect();
                eprintln!(
                    "info depth {} score {:+}{} nodes {} time {} nps {} pv {}",
                    info.depth,
                    info.score,
                    solved_kind(info.exact, info.wld),
                    info.nodes,
                    info.time_ms,
                    u128::from(info.nodes) * 1000 / u128::from(info.time_ms.max(1)),
                    pv.join(" ")
                );
            }
        };
        let level = self.level;
        let result = self.watched(|g| {
            search_at_level(
                &mut g.engine,
                board,
                level,
                &limits,
                &mut g.rng,
                &mut on_info,
            )
        });
        if verbose {
            eprintln!(
                "flank: {color} (level {}) {} score {:+}{} depth {} nodes {} time {} ms",
                self.level,
                result.best,
                result.score,
                solved_kind(result.exact, result.wld),
                result.depth,
                result.nodes,
                result.time_ms
            );
        }
        match result.best {
            Move::Play(sq) if moves & sq.bit() != 0 => result.best,
            other => {
                eprintln!("flank: search returned illegal move {other}, playing {first}");
                first
            }
        }
    }

    /// True if `receiver` accepts a draw in the current position: [`judge_draw_offer`] with a
    /// budget of 1/20 of the receiver's hard per-move budget (see [`draw_budget_ms`]).
    fn draw_offer(&mut self, receiver: Color) -> bool {
        let pos = self.game.position();
        let board = pos.board;
        let to_move = pos.side == receiver;
        let view = if to_move { board } else { board.pass() };
        let budget = draw_budget_ms(self.time.budget(receiver, &view).hard_ms);
        let j = judge_draw_offer(&mut self.engine, &board, to_move, budget);
        if self.options.verbose {
            eprintln!(
                "flank: draw offer to {receiver}: score {:+}{} nodes {} budget {budget} ms: {}",
                j.score,
                if j.exact { " exact" } else { "" },
                j.nodes,
                if j.accept { "accept" } else { "decline" }
            );
        }
        j.accept
    }

    /// Text board: column letters, rows 1–8 top to bottom, `X` black, `O` white, `.` empty,
    /// then the disc counts and the side to move.
    fn showboard(&self) -> String {
        let (black, white) = self.game.position().black_white();
        let mut s = String::from("\n  a b c d e f g h\n");
        for row in 0..8u8 {
            s.push((b'1' + row) as char);
            for col in 0..8u8 {
                let bit = Square::from_coords(col, row).bit();
                s.push(' ');
                s.push(if black & bit != 0 {
                    'X'
                } else if white & bit != 0 {
                    'O'
                } else {
                    '.'
                });
            }
            s.push(' ');
            s.push((b'1' + row) as char);
            s.push('\n');
        }
        s.push_str("  a b c d e f g h\n");
        let (b, w) = self.game.disc_counts();
        let state = if self.game.is_over() {
            "game over".to_string()
        } else {
            format!("{} to move", self.game.side_to_move())
        };
        s.push_str(&format!("black X {b}, white O {w}, {state}"));
        s
    }

    /// GoGui's board: 8 lines of 8 `X`/`O`/`.`, row 8 first.
    fn rules_board(&self) -> String {
        let (black, white) = self.game.position().black_white();
        let rows: Vec<String> = (0..8u8)
            .rev()
            .map(|row| {
                (0..8u8)
                    .map(|col| {
                        let bit = Square::from_coords(col, row).bit();
                        if black & bit != 0 {
                            'X'
                        } else if white & bit != 0 {
                            'O'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            })
            .collect();
        rows.join("\n")
    }

    /// Free-text result: `Black wins 40-24 (B+16)`, `White wins …`, `Draw 32-32 (0)`, or
    /// `Game not over` while a side can still move.
    fn final_result(&self) -> String {
        if !self.game.is_over() {
            return "Game not over".to_string();
        }
        let (b, w) = self.game.disc_counts();
        let score = self.game.final_score_text();
        let who = match self.game.final_score() {
            s if s > 0 => "Black wins",
            s if s < 0 => "White wins",
            _ => "Draw",
        };
        format!("{who} {b}-{w} ({score})")
    }
}

/// How [`read_line_bounded`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineRead {
    /// End of input before any byte.
    Eof,
    /// A whole line (its `#` comment dropped) is in the buffer.
    Line,
    /// The line had more than the allowed bytes before its comment: the buffer holds its
    /// start, the rest was read and discarded.
    TooLong,
}

/// Reads one line (up to and including `\n`, or to end of input) into `buf` without the `\n`,
/// in the reader's own chunks, keeping at most `max` bytes: everything from the first `#` (a comment) is read
/// and dropped, and a line with more than `max` bytes before it is read to its end, keeping
/// only the first `max`. `#` and `\n` never occur inside a UTF-8 sequence, so cutting there is
/// safe.
fn read_line_bounded<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    buf.clear();
    let mut read_any = false;
    let mut in_comment = false;
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        read_any = true;
        // `part` is this chunk's share of the line, without the `\n`.
        let (part, used, at_end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        if !in_comment && !too_long {
            let (content, hash) = match part.iter().position(|&b| b == b'#') {
                Some(i) => (&part[..i], true),
                None => (part, false),
            };
            let room = max - buf.len();
            if content.len() > room {
                buf.extend_from_slice(&content[..room]);
                too_long = true;
            } else {
                buf.extend_from_slice(content);
                in_comment = hash;
            }
        }
        input.consume(used);
        if at_end {
            break;
        }
    }
    Ok(if too_long {
        LineRead::TooLong
    } else if read_any {
        LineRead::Line
    } else {
        LineRead::Eof
    })
}

/// Input arriving within this many ms of a command's line counts as sent together with it:
/// it does not stop that command's search (see [`run`]).
pub const TOGETHER_MS: u64 = 20;

/// Lines the reader thread may read ahead of the session (it then waits).
const READ_AHEAD_LINES: usize = 256;

/// How often a watched search looks at its inbox and re-asserts a stop, in ms.
const WATCH_POLL_MS: u64 = 2;

/// One item of input, as the reader thread passes it on.
enum Input {
    /// A line without its `\n` and `#` comment (invalid UTF-8 replaced).
    Line(String),
    /// The start of a line longer than [`MAX_LINE_BYTES`].
    TooLong(String),
    /// End of input.
    End,
    /// A read error.
    Failed(io::Error),
}

/// An input item and when it arrived: when the read that completed it returned.
struct Arrival {
    input: Input,
    at: Instant,
}

/// The session's side of the reader thread: its channel, and the items a watched search
/// already took off it, in order.
struct Inbox {
    rx: Receiver<Arrival>,
    pending: VecDeque<Arrival>,
}

impl Inbox {
    /// The next item: queued ones first; a reader gone without a word is the end of input.
    fn next(&mut self) -> Arrival {
        self.pending.pop_front().unwrap_or_else(|| {
            self.rx.recv().unwrap_or_else(|_| Arrival {
                input: Input::End,
                at: Instant::now(),
            })
        })
    }

    /// Watches the input during a search until `done`: every item is queued; once one has
    /// arrived after `since`, `stop` is set, and set again every few ms (a search clears it
    /// when it starts, and one command may run several).
    fn watch(&mut self, since: Instant, stop: &AtomicBool, done: &AtomicBool) {
        let poll = Duration::from_millis(WATCH_POLL_MS);
        let mut stopping = false;
        let mut gone = false;
        while !done.load(Ordering::Relaxed) {
            if stopping {
                stop.store(true, Ordering::Relaxed);
            }
            if gone {
                std::thread::sleep(poll);
                continue;
            }
            match self.rx.recv_timeout(poll) {
                Ok(a) => {
                    if a.at > since {
                        stopping = true;
                        stop.store(true, Ordering::Relaxed);
                    }
                    self.pending.push_back(a);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => gone = true,
            }
        }
    }
}

/// A `BufRead` that notes when fresh data last came in: [`Stamped::at`] is the time the
/// latest `fill_buf` returned after everything before had been consumed (so the inner reader
/// may have waited for input), which is when the data it returned arrived.
struct Stamped<R> {
    inner: R,
    at: Instant,
    /// Bytes of the last `fill_buf` not consumed yet.
    left: usize,
}

impl<R: BufRead> Read for Stamped<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Stamped<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let fresh = self.left == 0;
        let buf = self.inner.fill_buf()?;
        if fresh {
            self.at = Instant::now();
        }
        self.left = buf.len();
        Ok(buf)
    }

    fn consume(&mut self, n: usize) {
        self.left = self.left.saturating_sub(n);
        self.inner.consume(n);
    }
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

/// The reader thread: reads `input` line by line (as [`read_line_bounded`] does, at most
/// [`MAX_LINE_BYTES`] a line) and sends every line with its arrival time, until the end of
/// input (sent too), a read error (sent), a well-formed `quit` line (nothing after it is
/// read) or a session that has ended.
fn read_input<R: BufRead>(input: R, tx: SyncSender<Arrival>) {
    let mut input = Stamped {
        inner: input,
        at: Instant::now(),
        left: 0,
    };
    let mut buf = Vec::new();
    loop {
        let (item, last) = match read_line_bounded(&mut input, &mut buf, MAX_LINE_BYTES) {
            Ok(LineRead::Eof) => (Input::End, true),
            Ok(LineRead::Line) => {
                let line = String::from_utf8_lossy(&buf).into_owned();
                let quit = is_quit(&line);
                (Input::Line(line), quit)
            }
            Ok(LineRead::TooLong) => (
                Input::TooLong(String::from_utf8_lossy(&buf).into_owned()),
                false,
            ),
            Err(e) => (Input::Failed(e), true),
        };
        let sent = tx.send(Arrival {
            input: item,
            at: input.at,
        });
        if sent.is_err() || last {
            return;
        }
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
    std::thread::scope(|scope| {
        scope.spawn(move || read_input(input, tx));
        let mut gtp = Gtp::new(engine, options);
        gtp.inbox = Some(Inbox {
            rx,
            pending: VecDeque::new(),
        });
        let result = serve(&mut gtp, output);
        // Dropping the inbox lets a reader still sending (after an output error) end.
        gtp.inbox = None;
        result
    })
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_and_framing() {
        assert_eq!(clean_line("  # only a comment"), None);
        assert_eq!(clean_line("\r\n"), None);
        assert_eq!(
            clean_line("1\tplay\x07 b f5 # c\r\n").as_deref(),
            Some("1 play b f5")
        );
        assert_eq!(format_response(Some("12"), true, "f5"), "=12 f5\n\n");
        assert_eq!(
            format_response(None, false, "illegal move"),
            "? illegal move\n\n"
        );
        assert_eq!(format_response(None, true, ""), "=\n\n");
        assert_eq!(format_response(Some("3"), true, "a\n\nb\n"), "=3 a\nb\n\n");
        assert_eq!(format_response(None, true, "\nx\ny"), "=\nx\ny\n\n");
    }

    #[test]
    fn command_parsing() {
        assert_eq!(
            Command::parse("PLAY", &["B", "F5"]),
            Ok(Command::Play(Color::Black, "f5".parse().unwrap()))
        );
        assert_eq!(
            Command::parse("frobnicate", &[]),
            Err("unknown command".into())
        );
        assert_eq!(
            Command::parse("play", &["b"]),
            Err("syntax error: play takes 2 arguments (play <color> <move>)".into())
        );
        assert_eq!(
            Command::parse("time_left", &["w", "12.5", "0"]),
            Ok(Command::TimeLeft {
                color: Color::White,
                ms: 12_500,
                stones: 0
            })
        );
        assert_eq!(
            Command::parse("time_settings", &["300", "0", "0"]),
            Ok(Command::TimeSettings {
                main_ms: 300_000,
                byo_ms: 0,
                stones: 0
            })
        );
        assert!(Command::parse("time_settings", &["x", "0", "0"]).is_err());
        // Numbers out of range say so; colours list every spelling accepted.
        assert_eq!(
            Command::parse("flank-handicap", &["b", "4294967297"]),
            Err("bad handicap 4294967297 (expected 1-4 corners)".into())
        );
        assert_eq!(
            Command::parse("time_left", &["b", "10", "99999999999"]),
            Err("syntax error: bad count '99999999999' (out of range)".into())
        );
        assert_eq!(
            Command::parse("play", &["red", "f5"]),
            Err("syntax error: bad color 'red' (expected b, black, w, white, x or o)".into())
        );
        assert_eq!(
            Command::parse("genmove", &["X"]),
            Ok(Command::GenMove(Color::Black))
        );
        assert!(Command::parse("boardsize", &["eight"]).is_err());
    }

    #[test]
    fn bounded_reading_across_small_chunks() {
        // A 3-byte buffer splits lines, comments and the limit across chunks.
        let text = "ab#c#d\n0123456789\n01234\n#x\n\nlast";
        let mut r = io::BufReader::with_capacity(3, text.as_bytes());
        let mut buf = Vec::new();
        let mut got = Vec::new();
        loop {
            let status = read_line_bounded(&mut r, &mut buf, 5).unwrap();
            if status == LineRead::Eof {
                break;
            }
            got.push((status, String::from_utf8(buf.clone()).unwrap()));
        }
        let want = [
            (LineRead::Line, "ab"),
            (LineRead::TooLong, "01234"),
            (LineRead::Line, "01234"),
            (LineRead::Line, ""),
            (LineRead::Line, ""),
            (LineRead::Line, "last"),
        ];
        let want: Vec<(LineRead, String)> = want.iter().map(|&(s, t)| (s, t.to_string())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn clipping() {
        assert_eq!(clip("f5"), "f5");
        let long = "x".repeat(33);
        let clipped = format!("{}…", "x".repeat(32));
        assert_eq!(clip(&long), clipped);
        assert_eq!(clip(&clipped), clipped);
        assert_eq!(clip(&"x".repeat(32)), "x".repeat(32));
        assert_eq!(
            clean_line("\u{feff}\u{feff} name \u{feff}").as_deref(),
            Some("name")
        );
    }
}
