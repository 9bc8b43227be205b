//! GTP commands: the [`Command`] enum, the list of command names, and the parser of a
//! command name and its arguments with its argument checks (argument counts, colours, moves,
//! seconds, whole numbers, board sizes).

use crate::engine::level::Level;
use crate::engine::timeman::seconds_to_ms;
use crate::notation::{clip, parse_board_string};
use crate::othello::Position;
use crate::othello::square::{Color, Move};

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

/// `syntax error: {detail}`, the message of a malformed command line.
pub(super) fn syntax(detail: impl std::fmt::Display) -> String {
    format!("syntax error: {detail}")
}

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
