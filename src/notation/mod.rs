//! Text formats: board strings, OBF endgame lines, move transcripts, GGF games, and the typed [`ParseError`].
//!
//! - Board string: 64 cells in order a1, b1 … h1, a2 … h8, then the side to move. Black is any
//!   of `X x * B b`, white any of `O o W w 0` (a digit zero, as some tools write it), empty
//!   `-` or `.`; whitespace between cells is ignored. The side is `X`/`O`/`B`/`W`/`black`/
//!   `white` in any case. Printed as `X`, `O`, `-`.
//! - OBF (Edax's endgame test files): `<board string>;` then ` MOVE:±score;` pairs, best first.
//!   A line starting with `%` is a comment. Edax writes `--:-127` as a placeholder pass entry,
//!   which is ignored; every other entry must be a legal move with a score in −64…64.
//! - Problem lines for `flank solve`: an OBF line, or a board string optionally followed by the
//!   exact score (as in `random-10-empties-1k.txt`: `board side score`).
//! - Transcripts: `f5d6c3…`, two characters a move, any case, passes implicit (also accepted
//!   explicitly as `pass`/`pa`/`ps`, and whitespace between moves is ignored).
//! - GGF game records (what the NBoard GUI sends): [`ggf`].

use std::fmt;

mod error;
pub mod ggf;
mod names;

pub use error::{MAX_ECHO_CHARS, ParseError, clip};

use crate::othello::board::Score;
use crate::othello::position::Position;
use crate::othello::square::{Color, Move, Square};

impl fmt::Display for Position {
    /// The board string: 64 cells, a space, then `X` or `O`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.cells(), self.side.letter())
    }
}

impl std::str::FromStr for Position {
    type Err = ParseError;
    /// Parses a board string (see the module header).
    fn from_str(s: &str) -> Result<Position, ParseError> {
        parse_board_string(s)
    }
}

/// Parses a board string: 64 cells then the side to move (see the module header).
pub fn parse_board_string(s: &str) -> Result<Position, ParseError> {
    let mut black = 0u64;
    let mut white = 0u64;
    let mut n = 0usize;
    let s = s.trim_start_matches('\u{feff}');
    let mut rest = "";
    for (pos, ch) in s.char_indices() {
        if n == 64 {
            rest = &s[pos..];
            break;
        }
        if ch.is_whitespace() {
            continue;
        }
        match ch {
            'X' | 'x' | '*' | 'B' | 'b' => black |= 1 << n,
            'O' | 'o' | 'W' | 'w' | '0' => white |= 1 << n,
            '-' | '.' => {}
            _ => return Err(bad_cell(s, pos, n, ch)),
        }
        n += 1;
    }
    if n < 64 {
        // "XXXX O": the last letter, standing apart, is the side to move, not a cell.
        let last = s.split_whitespace().last().unwrap_or("");
        let side_apart = n > 1 && last.chars().count() == 1 && parse_side(last).is_ok();
        return Err(ParseError::TooFewCells(n - usize::from(side_apart)));
    }
    let rest = rest.trim_start();
    let (side_text, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if side_text.is_empty() {
        // "<63 cells> X": the side letter standing apart after compactly written cells was
        // read as the 64th cell; the string is a cell short, not missing its side.
        let tokens: Vec<&str> = s.split_whitespace().collect();
        if let [.., cells, side] = tokens[..]
            && cells.chars().count() > 1
            && side.chars().count() == 1
            && parse_side(side).is_ok()
        {
            return Err(ParseError::TooFewCells(63));
        }
        return Err(ParseError::MissingSide);
    }
    // The side text follows the 64th cell with no space between them.
    let glued = !s[..s.len() - rest.len()].ends_with(char::is_whitespace);
    let side = parse_side(side_text).map_err(|e| {
        let is_cell = |c: char| "Xx*BbOoWw0-.".contains(c);
        let tokens: Vec<&str> = rest.split_whitespace().collect();
        let all_cells = |t: &&str| t.chars().all(is_cell);
        if let [cells @ .., side] = &tokens[..]
            && !cells.is_empty()
            && cells.iter().all(all_cells)
            && parse_side(side).is_ok()
        {
            // More cells than 64, then the side to move apart ("<64 cells>- X").
            let extra: usize = cells.iter().map(|t| t.chars().count()).sum();
            ParseError::TooManyCells(64 + extra)
        } else if glued && side_text.chars().count() > 1 && side_text.chars().all(is_cell) {
            // More cells than 64 ("<64 cells>-X"): say so rather than "bad side" (apart
            // from the cells, "<64 cells> XO" is a bad side).
            let extra = rest.chars().filter(|c| !c.is_whitespace()).count() - 1;
            ParseError::TooManyCells(64 + extra)
        } else if glued && side_text.chars().count() > 1 {
            // A first token longer than 64 characters with junk after the 64th
            // ("<64 cells>------z"): not a board string, rather than "bad side '------z'".
            let token = s.split_whitespace().next().unwrap_or("");
            ParseError::NotABoard {
                token: token.to_string(),
                chars: token.chars().count(),
            }
        } else {
            e
        }
    })?;
    let after = after.trim();
    if !after.is_empty() {
        return Err(ParseError::TrailingText(after.to_string()));
    }
    Ok(Position::from_black_white(black, white, side).expect("cells are disjoint"))
}

/// The error for the unknown cell character `found` at byte `pos` of `s`, cell index `index`:
/// [`ParseError::NotABoard`] when it lies in a first token that is not 64 characters long
/// (`hello`, `xyz X`), else [`ParseError::BadCell`].
fn bad_cell(s: &str, pos: usize, index: usize, found: char) -> ParseError {
    let start = s.len() - s.trim_start().len();
    let token = s[start..].split(char::is_whitespace).next().unwrap_or("");
    let chars = token.chars().count();
    if pos < start + token.len() && chars != 64 {
        ParseError::NotABoard {
            token: token.to_string(),
            chars,
        }
    } else {
        ParseError::BadCell { index, found }
    }
}

fn parse_side(s: &str) -> Result<Color, ParseError> {
    match s.to_ascii_lowercase().as_str() {
        "x" | "b" | "*" | "black" => Ok(Color::Black),
        "o" | "w" | "0" | "white" => Ok(Color::White),
        _ => Err(ParseError::BadSide(s.to_string())),
    }
}

/// One endgame problem: a position and, where the line gives them, its known scores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The position to solve.
    pub position: Position,
    /// OBF move scores (final disc difference for the side to move), best first as written.
    pub move_scores: Vec<(Move, Score)>,
    /// The exact score of the position: the best of `move_scores`, or the score given after a
    /// plain board string.
    pub expected: Option<Score>,
}

impl Problem {
    /// Moves whose listed score equals the best listed score (the accepted best moves).
    pub fn best_moves(&self) -> Vec<Move> {
        match self.expected {
            Some(e) if !self.move_scores.is_empty() => self
                .move_scores
                .iter()
                .filter(|(_, s)| *s == e)
                .map(|(m, _)| *m)
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Parses one line of a problem file. Returns `Ok(None)` for blank and `%` comment lines.
///
/// Accepted: an OBF line (`<board>; F5:+2; …`), or a board string optionally followed by an
/// exact score (`<board> X -64`).
pub fn parse_problem_line(line: &str) -> Result<Option<Problem>, ParseError> {
    let line = line.trim_start_matches('\u{feff}').trim();
    if line.is_empty() || line.starts_with('%') || line.starts_with('#') {
        return Ok(None);
    }
    let mut parts = line.split(';');
    let head = parts.next().unwrap_or("").trim();
    let is_obf = line.contains(';');
    // The head: board string, possibly followed by a score (non-OBF form).
    let (board_text, score_text) = if is_obf {
        (head, None)
    } else {
        split_trailing_score(head)
    };
    let position = parse_board_string(board_text)?;
    let mut move_scores = Vec::new();
    let mut expected = match score_text {
        Some(t) => Some(parse_score(t)?),
        None => None,
    };
    if is_obf {
        for entry in parts {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            let (m, s) = entry
                .split_once(':')
                .ok_or_else(|| ParseError::BadObfEntry(entry.to_string()))?;
            let mv: Move = m
                .trim()
                .parse()
                .map_err(|_| ParseError::BadObfEntry(entry.to_string()))?;
            let text = s.trim();
            if mv == Move::Pass && text == "-127" {
                continue; // Edax's `--:-127` placeholder: no pass here
            }
            let score = parse_score(text)?;
            if position.play(mv).is_none() {
                return Err(ParseError::IllegalListedMove(entry.to_string()));
            }
            move_scores.push((mv, score));
        }
        expected = move_scores.iter().map(|&(_, s)| s).max();
    }
    Ok(Some(Problem {
        position,
        move_scores,
        expected,
    }))
}

/// Splits `board side score` into the board string and the score, if the last token is an
/// integer and something that parses as a board string stands before it.
fn split_trailing_score(head: &str) -> (&str, Option<&str>) {
    if let Some((before, last)) = head.rsplit_once(char::is_whitespace) {
        let last = last.trim();
        // Any integer, however long (an out-of-range score is reported as such, not as text
        // after the side to move).
        let digits = last.strip_prefix(['+', '-']).unwrap_or(last);
        let integer = !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit());
        if integer && parse_board_string(before).is_ok() {
            return (before, Some(last));
        }
    }
    (head, None)
}

/// Parses a final score: an integer with at most one sign, in −64…64.
fn parse_score(s: &str) -> Result<Score, ParseError> {
    let digits = s.strip_prefix('+').unwrap_or(s);
    if digits.starts_with(['+', '-']) && s.starts_with('+') {
        return Err(ParseError::BadScore(s.to_string()));
    }
    let v: i64 = digits
        .parse()
        .map_err(|_| ParseError::BadScore(s.to_string()))?;
    if !(-64..=64).contains(&v) {
        return Err(ParseError::ScoreOutOfRange(v));
    }
    Ok(v as Score)
}

/// Parses a transcript from the start position, e.g. `f5d6c3d3c4`. Passes are implicit
/// (inserted when the side to move has no move) but may also be written (`pass`, `pa`, `ps`).
/// Returns every move including the inserted passes, and the final position.
pub fn parse_transcript(text: &str) -> Result<(Vec<Move>, Position), ParseError> {
    parse_transcript_from(Position::start(), text)
}

/// As [`parse_transcript`], from any position.
pub fn parse_transcript_from(
    start: Position,
    text: &str,
) -> Result<(Vec<Move>, Position), ParseError> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = compact.as_bytes();
    let mut pos = start;
    let mut moves = Vec::new();
    let mut i = 0;
    let mut ply = 0;
    while i < bytes.len() {
        // Explicit pass tokens.
        let rest = &compact[i..];
        let lower = rest.to_ascii_lowercase();
        let pass_len = if lower.starts_with("pass") {
            4
        } else if lower.starts_with("pa") || lower.starts_with("ps") {
            2
        } else {
            0
        };
        ply += 1;
        if pass_len > 0 {
            let next = pos.play(Move::Pass).ok_or(ParseError::IllegalMove {
                ply,
                mv: rest[..pass_len].to_string(),
            })?;
            moves.push(Move::Pass);
            pos = next;
            i += pass_len;
            continue;
        }
        let tok = compact
            .get(i..i + 2)
            .ok_or_else(|| ParseError::BadTranscript(rest.to_string()))?;
        let sq: Square = tok
            .parse()
            .map_err(|_| ParseError::BadTranscript(tok.to_string()))?;
        if !pos.board.has_moves() && pos.board.opponent_moves() != 0 {
            pos = pos.play(Move::Pass).expect("pass is legal without moves");
            moves.push(Move::Pass);
        }
        pos = pos.play(Move::Play(sq)).ok_or(ParseError::IllegalMove {
            ply,
            mv: tok.to_string(),
        })?;
        moves.push(Move::Play(sq));
        i += 2;
    }
    Ok((moves, pos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_string_round_trip() {
        let s = "---------------------------OX------XO--------------------------- X";
        let p: Position = s.parse().unwrap();
        assert_eq!(p, Position::start());
        assert_eq!(p.to_string(), s);
        let alt = "........ ........ ........ ...wb... ...bw... ........ ........ ........ black";
        assert_eq!(alt.parse::<Position>().unwrap(), Position::start());
    }

    #[test]
    fn board_string_errors_say_what() {
        // A first token that is not 64 characters long is not taken for a board with a typo.
        let not_a_board = |token: &str, chars| {
            Err(ParseError::NotABoard {
                token: token.into(),
                chars,
            })
        };
        assert_eq!(parse_board_string("--z"), not_a_board("--z", 3));
        assert_eq!(parse_board_string("hello"), not_a_board("hello", 5));
        assert_eq!(parse_board_string("xyz X"), not_a_board("xyz", 3));
        assert_eq!(
            parse_board_string("hello").unwrap_err().to_string(),
            "expected a 64-cell board string (a1..h8, then the side to move), got 'hello' \
             (5 characters)"
        );
        assert_eq!(
            parse_board_string("héllo wörld").unwrap_err().to_string(),
            "expected a 64-cell board string (a1..h8, then the side to move), got 'héllo' \
             (5 characters)"
        );
        let long = format!("-----z{} X", "-".repeat(65));
        assert_eq!(parse_board_string(&long), not_a_board(&long[..71], 71));
        // A 64-character board, or one written with spaces, names the bad cell.
        let typo = format!("{}z{} X", "-".repeat(20), "-".repeat(43));
        assert_eq!(
            parse_board_string(&typo),
            Err(ParseError::BadCell {
                index: 20,
                found: 'z'
            })
        );
        assert_eq!(
            parse_board_string(&typo).unwrap_err().to_string(),
            "bad board cell 'z' at cell 21 (expected X x * B b, O o W w 0, - .)"
        );
        let spaced = format!("{} ---z---- {} X", "-".repeat(8), "-".repeat(48));
        assert_eq!(
            parse_board_string(&spaced),
            Err(ParseError::BadCell {
                index: 11,
                found: 'z'
            })
        );
        assert_eq!(parse_board_string("----"), Err(ParseError::TooFewCells(4)));
        assert_eq!(
            parse_board_string("XXXX O"),
            Err(ParseError::TooFewCells(4))
        );
        assert_eq!(parse_board_string("XXXXO"), Err(ParseError::TooFewCells(5)));
        let no_side = "-".repeat(64);
        assert_eq!(parse_board_string(&no_side), Err(ParseError::MissingSide));
        let short = format!("{} X", "-".repeat(63));
        assert_eq!(parse_board_string(&short), Err(ParseError::TooFewCells(63)));
        let spaced = vec!["-"; 64].join(" ");
        assert_eq!(parse_board_string(&spaced), Err(ParseError::MissingSide));
        let bad_side = format!("{} Q", "-".repeat(64));
        assert_eq!(
            parse_board_string(&bad_side),
            Err(ParseError::BadSide("Q".into()))
        );
    }

    #[test]
    fn obf_and_score_lines() {
        let l = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; H7:+6;";
        let p = parse_problem_line(l).unwrap().unwrap();
        assert_eq!(p.expected, Some(18));
        assert_eq!(p.move_scores.len(), 3);
        assert_eq!(p.best_moves(), vec!["g8".parse().unwrap()]);
        let r = "---XXXOO--OOOOOO-XOOOOOOXXOOOOOOXXOXOOOO--XOOOOO-XOOOOOO-OOOOOOO X -64";
        let p = parse_problem_line(r).unwrap().unwrap();
        assert_eq!(p.expected, Some(-64));
        assert_eq!(p.position.board.empties(), 10);
        let h = "---OX--O----OXOO--XXXOOO--XXXOOX-XXXOOXX--XOXXXX--OOOXXX--XXXXXX X; D2:+2; G1:+0; --:-127;";
        assert_eq!(parse_problem_line(h).unwrap().unwrap().move_scores.len(), 2);
        assert_eq!(parse_problem_line("% comment").unwrap(), None);
        assert!(parse_problem_line("--- X; G8:+x;").is_err());
    }

    #[test]
    fn bad_problem_lines_are_errors() {
        let b = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";
        let err = |l: String| parse_problem_line(&l).unwrap_err();
        assert_eq!(
            err(format!("{b}; G8:+99;")),
            ParseError::ScoreOutOfRange(99)
        );
        assert_eq!(err(format!("{b} 999")), ParseError::ScoreOutOfRange(999));
        assert_eq!(
            err(format!("{b} 99999999999999999999")),
            ParseError::BadScore("99999999999999999999".into())
        );
        assert_eq!(
            err(format!("{b}; G8:++18;")),
            ParseError::BadScore("++18".into())
        );
        assert_eq!(
            err(format!("{b}; A1:+18;")),
            ParseError::IllegalListedMove("A1:+18".into())
        );
        assert_eq!(
            err(format!("{b}; PA:+18;")),
            ParseError::IllegalListedMove("PA:+18".into())
        );
        assert_eq!(
            err(format!("{b} 18 extra")),
            ParseError::TrailingText("18 extra".into())
        );
        let long = format!("{}-X", &b[..64]);
        assert_eq!(err(long), ParseError::TooManyCells(65));
        // A 65th cell, then the side to move apart.
        assert_eq!(
            err(format!("{}- X", &b[..64])),
            ParseError::TooManyCells(65)
        );
        assert_eq!(
            err(format!("{} -- O", &b[..64])),
            ParseError::TooManyCells(66)
        );
        // Junk glued to the 64th cell: not a board string (71 characters), not a bad side.
        let junk = format!("{}------z", &b[..64]);
        assert_eq!(
            err(junk.clone()),
            ParseError::NotABoard {
                token: junk,
                chars: 71
            }
        );
        // A bad side apart from the cells is still a bad side.
        assert_eq!(
            err(format!("{} XO", &b[..64])),
            ParseError::BadSide("XO".into())
        );
        assert_eq!(
            err(format!("{} Q", &b[..64])),
            ParseError::BadSide("Q".into())
        );
        assert_eq!(
            err(format!("{} - Q", &b[..64])),
            ParseError::BadSide("-".into())
        );
        // A byte-order mark before the board is ignored.
        let p = parse_problem_line(&format!("\u{feff}{b}; G8:+18;"))
            .unwrap()
            .unwrap();
        assert_eq!(p.expected, Some(18));
    }

    #[test]
    fn error_messages_clip_long_input() {
        let msg = ParseError::BadMove("z".repeat(100_000)).to_string();
        assert!(msg.len() < 100, "{msg}");
        assert!(msg.contains('…'));
    }

    #[test]
    fn transcripts_with_implicit_passes() {
        let (moves, pos) = parse_transcript("f5d6C3 d3c4").unwrap();
        assert_eq!(moves.len(), 5);
        assert_eq!(pos.side, Color::White);
        assert_eq!(
            parse_transcript("f5f5"),
            Err(ParseError::IllegalMove {
                ply: 2,
                mv: "f5".into()
            })
        );
        assert!(parse_transcript("f5z9").is_err());
        // Pass while a move exists is illegal.
        assert!(parse_transcript("f5pass").is_err());
    }
}
