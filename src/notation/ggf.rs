//! Reading GGF game records (the Generic Game Format of GGS, which the NBoard GUI sends).
//!
//! A game is `(;GM[Othello]PB[..]PW[..]TI[..]TY[8]BO[8 <64 cells> <side>]B[f5]W[d6/-1.5/2.1]…;)`:
//! tags `KEY[value]` between `(;` and `;)`, whitespace between tags ignored, keys in any case
//! (`b[f5]` is `B[f5]`). What is read:
//! - `GM`: `Othello` (any case) if present.
//! - `TY`: `8` if present (variants such as `8r` or other board sizes are refused).
//! - `BO`: the start board, `8` then 64 cells a1…h8 (`*` black, `O` white, `-` empty; the
//!   board-string characters of [`crate::notation`] are accepted too, whitespace between cells
//!   ignored) then the side to move, `*` or `O`; the four centre squares must hold discs (as
//!   in every Othello position). Without `BO` the game starts from the standard position.
//! - `B`, `W`: the moves in order, `MOVE[/EVAL[/SECONDS]]` with `MOVE` a square (any case) or
//!   `PA` (also `pass`) for a pass; `EVAL` (discs, the mover's view) is kept when it is a number
//!   and ignored otherwise; `SECONDS`, the thinking time, must be a number ≥ 0 when present.
//!   A move for the colour not to move, when the side to move has no legal move, records that
//!   side's pass first (some writers leave passes out); otherwise it is an error. A `PA` is
//!   legal only for a side without a legal move, game over included, so a game may end with
//!   one or two passes; a third pass in a row is refused.
//! - `TI`: each side's whole-game clock, `[[h:]m:]s` (seconds may carry decimals; minutes and
//!   seconds after a larger unit are below 60); GGS's increment and extension parts after a
//!   `/` are ignored.
//! - `PB`, `PW`: the players' names.
//!
//! Every other tag is skipped. Errors ([`ParseError::BadGgf`]) say what is wrong and where.

use super::ParseError;
use crate::othello::Position;
use crate::othello::game::ends_with_two_passes;
use crate::othello::square::{Color, Move};

/// The longest GGF text read, in bytes (a 60-move game with long names is under 2 KB).
pub const MAX_GGF_BYTES: usize = 64 * 1024;

/// One move of a game record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfMove {
    /// The colour that moved.
    pub color: Color,
    /// The move (a square or a pass).
    pub mv: Move,
    /// The evaluation written with it, in discs from the mover's view, if any.
    pub eval: Option<f64>,
    /// The thinking time written with it, in seconds, if any.
    pub seconds: Option<f64>,
}

/// A game record read from GGF.
#[derive(Clone, Debug, PartialEq)]
pub struct GgfGame {
    /// The start position (`BO`, or the standard start).
    pub start: Position,
    /// Every move from `start`, passes included (also those the record left implicit).
    pub moves: Vec<GgfMove>,
    /// Each side's whole-game clock from `TI`, in ms, if given.
    pub clock_ms: Option<u64>,
    /// Black's name (`PB`), if given.
    pub black: Option<String>,
    /// White's name (`PW`), if given.
    pub white: Option<String>,
}

impl GgfGame {
    /// The position after every move of the record.
    pub fn final_position(&self) -> Position {
        self.positions().last().copied().unwrap_or(self.start)
    }

    /// The positions of the game: `start`, then the one after each move (`moves.len() + 1`
    /// positions).
    pub fn positions(&self) -> Vec<Position> {
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        let mut pos = self.start;
        out.push(pos);
        for m in &self.moves {
            // Every move was checked when the record was read.
            if let Some(next) = pos.play(m.mv) {
                pos = next;
            }
            out.push(pos);
        }
        out
    }
}

fn bad(what: impl Into<String>) -> ParseError {
    ParseError::BadGgf(what.into())
}

/// Reads a move field `MOVE[/EVAL[/SECONDS]]` (`F5`, `f5//2.449`, `C4/25.00/0.1`, `PA`):
/// the move, the evaluation if it is a number, and the time in seconds if given.
///
/// Errors: [`ParseError::BadGgf`] for a move that is neither a square nor a pass, and for a
/// time that is not a number ≥ 0.
pub fn parse_move_field(text: &str) -> Result<(Move, Option<f64>, Option<f64>), ParseError> {
    let mut parts = text.trim().split('/');
    let mv_text = parts.next().unwrap_or("").trim();
    let mv: Move = mv_text
        .parse()
        .map_err(|_| bad(format!("bad move '{}'", super::clip(mv_text))))?;
    let eval = parts
        .next()
        .and_then(|e| e.trim().parse::<f64>().ok())
        .filter(|e| e.is_finite());
    let seconds = match parts.next().map(str::trim) {
        None | Some("") => None,
        Some(t) => Some(
            t.parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| bad(format!("bad move time '{}'", super::clip(t))))?,
        ),
    };
    Ok((mv, eval, seconds))
}

/// Reads a clock `[[h:]m:]s` (`15:00`, `1:00:00`, `90`, `0:02.5`; anything after a `/` is
/// ignored) as ms: minutes and seconds after a larger unit are below 60 (`5:99` is refused),
/// a lone first field may be any size (`90` seconds, `90:00` minutes). `None` when it is not
/// such a time.
pub fn parse_clock(text: &str) -> Option<u64> {
    let main = text.split('/').next()?.trim();
    let fields: Vec<&str> = main.split(':').collect();
    if fields.len() > 3 || fields.iter().any(|f| f.trim().is_empty()) {
        return None;
    }
    let (last, whole) = fields.split_last()?;
    let mut secs = 0.0f64;
    for (i, f) in whole.iter().enumerate() {
        let f = f.trim();
        if !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: u64 = f.parse().ok()?;
        // Minutes after hours are below 60.
        if i > 0 && v >= 60 {
            return None;
        }
        secs = secs * 60.0 + v as f64;
    }
    // Digits and a decimal point only (no signs, exponents or `inf`).
    let last = last.trim();
    if !last.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let s: f64 = last.parse().ok()?;
    // Seconds after minutes are below 60.
    if !s.is_finite() || (!whole.is_empty() && s >= 60.0) {
        return None;
    }
    let ms = ((secs * 60.0 + s) * 1000.0).round();
    (ms <= 1e15).then_some(ms as u64)
}

/// Reads the `BO` value: `8`, 64 cells, the side to move (`*` or `O`).
fn parse_board(value: &str) -> Result<Position, ParseError> {
    let v = value.trim();
    let rest = v
        .strip_prefix('8')
        .filter(|r| r.starts_with(char::is_whitespace))
        .ok_or_else(|| bad(format!("unsupported board 'BO[{}]'", super::clip(v))))?
        .trim();
    let side = match rest.chars().last() {
        Some('*') | Some('X') | Some('x') | Some('B') | Some('b') => "X",
        Some('O') | Some('o') | Some('W') | Some('w') => "O",
        _ => return Err(bad("BO lacks the side to move (* or O)")),
    };
    let cells = &rest[..rest.len() - 1];
    let count = cells.chars().filter(|c| !c.is_whitespace()).count();
    if count != 64 {
        return Err(bad(format!("BO has {count} cells, expected 64")));
    }
    let pos = format!("{cells} {side}")
        .parse::<Position>()
        .map_err(|e| bad(format!("BO: {e}")))?;
    // Discs are never removed and the game starts with the four centre squares filled.
    if (pos.board.player | pos.board.opponent) & CENTRE != CENTRE {
        return Err(bad(
            "BO has an empty centre square (d4, e4, d5 and e5 always hold discs)",
        ));
    }
    Ok(pos)
}

/// The four centre squares d4, e4, d5, e5 (bits 27, 28, 35, 36).
const CENTRE: u64 = 0x0000_0018_1800_0000;

/// The tags of a GGF text in order, as (key in upper case, value) pairs, between `(;` and
/// `;)`.
fn tags(text: &str) -> Result<Vec<(String, &str)>, ParseError> {
    let t = text.trim();
    let body = t
        .strip_prefix("(;")
        .ok_or_else(|| bad("expected '(;' at the start"))?;
    let body = body
        .trim_end()
        .strip_suffix(";)")
        .ok_or_else(|| bad("expected ';)' at the end"))?;
    let mut out = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let open = rest
            .find('[')
            .ok_or_else(|| bad(format!("text without a tag: '{}'", super::clip(rest))))?;
        let key = rest[..open].trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(bad(format!("bad tag name '{}'", super::clip(key))));
        }
        let close = rest[open..]
            .find(']')
            .ok_or_else(|| bad(format!("tag {key} is not closed with ']'")))?;
        out.push((key.to_ascii_uppercase(), &rest[open + 1..open + close]));
        rest = rest[open + close + 1..].trim_start();
    }
    Ok(out)
}

/// Reads one GGF game (see the module header).
///
/// Errors: [`ParseError::BadGgf`] naming the fault: text over [`MAX_GGF_BYTES`], missing
/// `(;`/`;)`, an unclosed tag, a game other than Othello, a board other than 8×8, a bad `BO`
/// (an empty centre square included) or `TI`, a move that is malformed or illegal (with its
/// number, 1-based), for the colour not to move, or a third pass in a row.
pub fn parse_ggf(text: &str) -> Result<GgfGame, ParseError> {
    if text.len() > MAX_GGF_BYTES {
        return Err(bad(format!("longer than {MAX_GGF_BYTES} bytes")));
    }
    let tags = tags(text)?;
    let mut start = Position::start();
    let mut clock_ms = None;
    let (mut black, mut white) = (None, None);
    for (key, value) in &tags {
        let (key, value) = (key.as_str(), *value);
        match key {
            "GM" if !value.trim().eq_ignore_ascii_case("othello") => {
                return Err(bad(format!(
                    "not an Othello game 'GM[{}]'",
                    super::clip(value)
                )));
            }
            "TY" if value.trim() != "8" => {
                return Err(bad(format!(
                    "unsupported board type 'TY[{}]'",
                    super::clip(value)
                )));
            }
            "BO" => start = parse_board(value)?,
            "TI" => {
                clock_ms = Some(
                    parse_clock(value)
                        .ok_or_else(|| bad(format!("bad clock 'TI[{}]'", super::clip(value))))?,
                )
            }
            "PB" => black = Some(value.to_string()),
            "PW" => white = Some(value.to_string()),
            _ => {}
        }
    }
    let mut pos = start;
    let mut moves: Vec<GgfMove> = Vec::new();
    for (key, value) in &tags {
        let (key, value) = (key.as_str(), *value);
        let color = match key {
            "B" => Color::Black,
            "W" => Color::White,
            _ => continue,
        };
        let n = moves.len() + 1;
        let (mv, eval, seconds) = parse_move_field(value).map_err(|e| match e {
            ParseError::BadGgf(what) => bad(format!("move {n}: {what}")),
            e => bad(format!("move {n}: {e}")),
        })?;
        if color != pos.side {
            if pos.board.has_moves() {
                return Err(bad(format!(
                    "move {n} {key}[{}]: {} to move",
                    super::clip(value),
                    pos.side
                )));
            }
            moves.push(GgfMove {
                color: pos.side,
                mv: Move::Pass,
                eval: None,
                seconds: None,
            });
            pos = pos.play(Move::Pass).ok_or_else(|| bad("impossible pass"))?;
        }
        if mv == Move::Pass && ends_with_two_passes(moves.iter().map(|m| m.mv)) {
            return Err(bad(format!(
                "move {} {key}[{}]: a third pass in a row (two passes end the game)",
                moves.len() + 1,
                super::clip(value)
            )));
        }
        pos = pos.play(mv).ok_or_else(|| {
            bad(format!(
                "move {} {key}[{}] is illegal",
                moves.len() + 1,
                super::clip(value)
            ))
        })?;
        moves.push(GgfMove {
            color,
            mv,
            eval,
            seconds,
        });
    }
    Ok(GgfGame {
        start,
        moves,
        clock_ms,
        black,
        white,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "BO[8 ---------------------------O*------*O--------------------------- *]";

    #[test]
    fn reads_moves_evals_times_and_clock() {
        let g = parse_ggf(&format!(
            "(;GM[Othello]PC[NBoard]PB[me]PW[flank]RE[?]TI[15:00]TY[8]{START}B[F5//2.449]W[d6/-1.5/0.1];)"
        ))
        .unwrap();
        assert_eq!(g.start, Position::start());
        assert_eq!(g.clock_ms, Some(900_000));
        assert_eq!(g.black.as_deref(), Some("me"));
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.moves[0].mv, "f5".parse().unwrap());
        assert_eq!(g.moves[0].eval, None);
        assert_eq!(g.moves[0].seconds, Some(2.449));
        assert_eq!(g.moves[1].color, Color::White);
        assert_eq!(g.moves[1].eval, Some(-1.5));
        let (_, end) = crate::notation::parse_transcript("f5d6").unwrap();
        assert_eq!(g.final_position(), end);
    }

    #[test]
    fn tag_names_in_any_case() {
        let g = parse_ggf("(;gm[othello]ti[1:00]b[f5]w[d6];)").unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.clock_ms, Some(60_000));
    }

    #[test]
    fn clocks() {
        assert_eq!(parse_clock("15:00"), Some(900_000));
        assert_eq!(parse_clock("1:00:00"), Some(3_600_000));
        assert_eq!(parse_clock("05:00//02:00"), Some(300_000));
        assert_eq!(parse_clock("90"), Some(90_000));
        assert_eq!(parse_clock("0:02.5"), Some(2_500));
        assert_eq!(parse_clock("x"), None);
        assert_eq!(parse_clock("1:2:3:4"), None);
        assert_eq!(parse_clock("-5"), None);
    }

    #[test]
    fn refuses_bad_records_with_a_reason() {
        let cases = [
            ("GM[Othello]", "expected '(;'"),
            ("(;GM[Go];)", "not an Othello game"),
            ("(;TY[10];)", "unsupported board type"),
            ("(;BO[8 ---* *];)", "BO has 4 cells"),
            ("(;B[F5;)", "not closed"),
            ("(;B[e3];)", "illegal"),
            ("(;W[f5];)", "black to move"),
            ("(;B[PA];)", "illegal"),
            ("(;B[f5//x];)", "bad GGF game: move 1: bad move time 'x'"),
            ("(;B[z9];)", "bad move"),
            ("(;TI[soon];)", "bad clock"),
        ];
        for (text, want) in cases {
            let e = parse_ggf(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn implicit_and_trailing_passes() {
        // Black to move with no move (white's only disc is flanked nowhere): a white move
        // records black's pass first.
        let mut cells = ['-'; 64];
        cells[0] = 'O';
        cells[1] = '*';
        for c in [27, 28, 35, 36] {
            cells[c] = '*';
        }
        let board: String = cells.iter().collect();
        let g = parse_ggf(&format!("(;BO[8 {board} *]W[c1];)")).unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.moves[0].mv, Move::Pass);
        assert_eq!(g.moves[0].color, Color::Black);
        // The game is then over (white only); a trailing PA is still applied.
        let g = parse_ggf(&format!("(;BO[8 {board} *]B[PA]W[c1]B[PA];)")).unwrap();
        assert_eq!(g.moves.len(), 3);
        assert_eq!(g.final_position().side, Color::White);
        // Two passes end the game; a third in a row is refused.
        let g = parse_ggf(&format!("(;BO[8 {board} *]B[PA]W[c1]B[PA]W[PA];)")).unwrap();
        assert_eq!(g.moves.len(), 4);
        let e = parse_ggf(&format!("(;BO[8 {board} *]B[PA]W[c1]B[PA]W[PA]B[PA];)"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("move 5 B[PA]: a third pass in a row"), "{e}");
    }

    #[test]
    fn refuses_boards_with_an_empty_centre_and_clock_fields_out_of_range() {
        let empty = "-".repeat(64);
        let e = parse_ggf(&format!("(;BO[8 {empty} *];)"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("empty centre square"), "{e}");
        // One colour only is a finished game, not a bad board.
        let mut cells = ['-'; 64];
        for c in [27, 28, 35, 36] {
            cells[c] = 'O';
        }
        let board: String = cells.iter().collect();
        let g = parse_ggf(&format!("(;BO[8 {board} *];)")).unwrap();
        assert!(g.final_position().board.is_game_over());
        for ti in ["5:99", "1:60:00", "0:60", "1e9", "+5:00", "inf"] {
            let e = parse_ggf(&format!("(;TI[{ti}];)")).unwrap_err().to_string();
            assert!(e.contains("bad clock"), "{ti}: {e}");
        }
        assert_eq!(parse_clock("90:00"), Some(5_400_000));
        assert_eq!(parse_clock("0:59.5"), Some(59_500));
    }
}
