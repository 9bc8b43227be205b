//! The GTP (Go Text Protocol, version 2) layer for Othello: line framing, the [`Command`]
//! parser, and a [`Gtp`] session that drives a [`Game`], an [`Engine`] and a [`TimeManager`].
//!
//! Framing follows `docs/protocols.md`: a command line is `[id] name args…` with an optional
//! all-digit id; answers are `=[id] result` or `?[id] message` (no space between `=`/`?` and
//! the id) followed by one empty line, never with an empty line inside. Input is cleaned
//! first: `\r` and other control characters except tab and newline are dropped, everything
//! from `#` is cut, tabs become spaces; empty and comment-only lines get no answer. Invalid
//! UTF-8 is replaced, not fatal. The loop flushes after every answer and ends on `quit`
//! (after answering it) or at end of input. Nothing but answers is written to the output:
//! search info goes to stderr when [`GtpOptions::verbose`] is on.
//!
//! Passes (see [`crate::game`]): `play C pass` (any case, also `pa`, `ps`, `--`) is accepted when `C`
//! has no legal move, game over included; `play C V` for the colour not to move records the
//! blocked side's pass first; `genmove C` does the same, and answers `= pass` (recording the
//! pass) when `C` has no move, also at game over. Moves are answered in lower case (`= f5`).
//!
//! `final_score` counts black minus white discs with the empty squares given to the side
//! with more discs (`B+n`, `W+n` or `0`).

use std::io::{self, BufRead, Write};
use std::time::Instant;

use crate::board::Board;
use crate::engine::{Engine, SearchInfo, SearchLimits};
use crate::format::{Position, parse_board_string};
use crate::game::{Game, GameError};
use crate::square::{Color, Move, Square};
use crate::timeman::{DEFAULT_MOVE_TIME_MS, TimeControl, TimeManager};

/// Settings of a GTP session (filled from the `flank gtp` command line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GtpOptions {
    /// Time per move in ms when no clock is set by `time_settings`/`time_left` (and under
    /// "no time limit"): the answer comes within this time, and no new iteration starts after
    /// half of it. Default [`DEFAULT_MOVE_TIME_MS`] = 1000 ms.
    pub move_time_ms: u64,
    /// Fixed search depth in plies (`--depth`): searched with `SolveMode::Auto`, so the
    /// endgame is still solved. Without a clock the search is then depth-limited only
    /// (deterministic); with a clock the clock's limits apply too. `None` = time-limited.
    pub depth: Option<u32>,
    /// Print one line of search info per iteration to stderr.
    pub verbose: bool,
}

impl Default for GtpOptions {
    fn default() -> Self {
        GtpOptions {
            move_time_ms: DEFAULT_MOVE_TIME_MS,
            depth: None,
            verbose: false,
        }
    }
}

/// Every command, in the order `list_commands` prints them.
pub const COMMANDS: [&str; 26] = [
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
    /// `boardsize N`: only 8 is acceptable (and clears the board).
    BoardSize(u64),
    /// `clear_board`: start position, black to move, history and clocks reset.
    ClearBoard,
    /// `komi x`: accepted and ignored.
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
    /// `time_settings M B S` (seconds, converted to ms; decimals accepted).
    TimeSettings {
        /// Main time, ms.
        main_ms: u64,
        /// Byo-yomi period, ms.
        byo_ms: u64,
        /// Stones per period.
        stones: u32,
    },
    /// `time_left C T S` (T seconds, converted to ms; decimals accepted, negative as 0).
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
}

fn syntax(detail: impl std::fmt::Display) -> String {
    format!("syntax error: {detail}")
}

fn arg<'a>(args: &[&'a str], i: usize, usage: &str) -> Result<&'a str, String> {
    args.get(i)
        .copied()
        .ok_or_else(|| syntax(format!("expected {usage}")))
}

fn color_arg(args: &[&str], i: usize, usage: &str) -> Result<Color, String> {
    arg(args, i, usage)?.parse::<Color>().map_err(syntax)
}

/// Seconds (decimals accepted, negative read as 0) to ms.
fn seconds_arg(args: &[&str], i: usize, usage: &str) -> Result<u64, String> {
    let t = arg(args, i, usage)?;
    let s: f64 = t
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite())
        .ok_or_else(|| syntax(format!("bad time '{t}' (expected seconds)")))?;
    Ok((s.max(0.0) * 1000.0).round().min(u64::MAX as f64) as u64)
}

fn count_arg(args: &[&str], i: usize, usage: &str) -> Result<u32, String> {
    let t = arg(args, i, usage)?;
    t.parse()
        .map_err(|_| syntax(format!("bad count '{t}' (expected a whole number)")))
}

impl Command {
    /// Parses a command name (any case) and its arguments. Extra arguments are ignored,
    /// except by `setboard`, which reads all of them as one board string.
    ///
    /// Errors (the text after `? `): `unknown command`, `syntax error: …` for missing or
    /// malformed arguments, or the board-string error for `setboard`.
    pub fn parse(name: &str, args: &[&str]) -> Result<Command, String> {
        let name = name.to_ascii_lowercase();
        Ok(match name.as_str() {
            "protocol_version" => Command::ProtocolVersion,
            "name" => Command::Name,
            "version" => Command::Version,
            "known_command" => Command::KnownCommand(arg(args, 0, "a command name")?.to_string()),
            "list_commands" => Command::ListCommands,
            "quit" => Command::Quit,
            "boardsize" => {
                let t = arg(args, 0, "a board size")?;
                Command::BoardSize(
                    t.parse()
                        .map_err(|_| syntax(format!("bad board size '{t}'")))?,
                )
            }
            "clear_board" => Command::ClearBoard,
            "komi" => Command::Komi,
            "play" => {
                let usage = "play <color> <move>";
                let c = color_arg(args, 0, usage)?;
                let m = arg(args, 1, usage)?.parse::<Move>().map_err(syntax)?;
                Command::Play(c, m)
            }
            "genmove" => Command::GenMove(color_arg(args, 0, "genmove <color>")?),
            "reg_genmove" => Command::RegGenMove(color_arg(args, 0, "reg_genmove <color>")?),
            "undo" => Command::Undo,
            "showboard" => Command::ShowBoard,
            "final_score" => Command::FinalScore,
            "time_settings" => {
                let usage = "time_settings <main> <byo-yomi> <stones>";
                Command::TimeSettings {
                    main_ms: seconds_arg(args, 0, usage)?,
                    byo_ms: seconds_arg(args, 1, usage)?,
                    stones: count_arg(args, 2, usage)?,
                }
            }
            "time_left" => {
                let usage = "time_left <color> <seconds> <stones>";
                Command::TimeLeft {
                    color: color_arg(args, 0, usage)?,
                    ms: seconds_arg(args, 1, usage)?,
                    stones: count_arg(args, 2, usage)?,
                }
            }
            "set_game" => Command::SetGame(args.join(" ")),
            "list_games" => Command::ListGames,
            "setboard" => {
                if args.is_empty() {
                    return Err(syntax("expected setboard <64 cells> <side to move>"));
                }
                Command::SetBoard(parse_board_string(&args.join(" ")).map_err(syntax)?)
            }
            "gogui-rules_game_id" => Command::RulesGameId,
            "gogui-rules_board_size" => Command::RulesBoardSize,
            "gogui-rules_board" => Command::RulesBoard,
            "gogui-rules_legal_moves" => Command::RulesLegalMoves,
            "gogui-rules_side_to_move" => Command::RulesSideToMove,
            "gogui-rules_final_result" => Command::RulesFinalResult,
            _ => return Err("unknown command".to_string()),
        })
    }
}

/// Cleans one input line as GTP asks: drops control characters except tab and newline
/// (so `\r` goes), cuts from `#`, turns tabs into spaces and trims. Returns `None` when
/// nothing is left (an empty or comment-only line gets no answer).
pub fn clean_line(line: &str) -> Option<String> {
    let cut = line.split('#').next().unwrap_or("");
    let cleaned: String = cut
        .chars()
        .filter(|&c| c == '\t' || c == '\n' || !c.is_control())
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
    quit: bool,
}

impl Gtp {
    /// A session at the start position with no clock.
    pub fn new(engine: Engine, options: GtpOptions) -> Gtp {
        Gtp {
            game: Game::new(),
            engine,
            time: TimeManager::new(options.move_time_ms),
            options,
            quit: false,
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

    /// True once `quit` has been answered.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Handles one input line. Returns `None` for empty and comment lines, otherwise the full
    /// answer including its trailing empty line (`"= f5\n\n"`).
    pub fn handle_line(&mut self, line: &str) -> Option<String> {
        let start = Instant::now();
        let cleaned = clean_line(line)?;
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
                self.time.spent(c, start.elapsed().as_millis() as u64);
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
        })
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
                    "info depth {} score {:+}{} nodes {} time {} pv {}",
                    info.depth,
                    info.score,
                    if info.exact { " exact" } else { "" },
                    info.nodes,
                    info.time_ms,
                    pv.join(" ")
                );
            }
        };
        let result = self.engine.search(board, &limits, &mut on_info);
        if verbose {
            eprintln!(
                "flank: {color} {} score {:+}{} depth {} nodes {} time {} ms",
                result.best,
                result.score,
                if result.exact { " exact" } else { "" },
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

/// Runs a GTP session: reads commands from `input` line by line, writes each answer to
/// `output` and flushes it, until `quit` (answered first) or end of input. Only I/O errors
/// are returned; bad commands are answered with `? message`.
pub fn run<R: BufRead, W: Write>(
    mut input: R,
    output: &mut W,
    engine: Engine,
    options: GtpOptions,
) -> io::Result<()> {
    let mut gtp = Gtp::new(engine, options);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let line = String::from_utf8_lossy(&buf);
        if let Some(answer) = gtp.handle_line(&line) {
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
            Err("syntax error: expected play <color> <move>".into())
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
        assert!(Command::parse("boardsize", &["eight"]).is_err());
    }
}
