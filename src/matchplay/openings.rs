//! Openings: the built-in ones, transcripts, openings files, and openings files for handicap
//! games (lines that clash with the handicap corners are skipped).

use crate::notation::{ParseError, parse_transcript_from};
use crate::othello::Position;
use crate::othello::square::{Color, Move};

/// The openings used when no file is given (and there is no handicap): four common lines
/// after black's f5, each a few plies deep (perpendicular, parallel and diagonal openings).
pub const BUILTIN_OPENINGS: [&str; 4] = ["f5d6c3d3c4", "f5f6e6f4", "f5f4e3f6d3", "f5d6c5f4e3"];

/// One opening: its text and its moves with the colour of each (passes explicit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The transcript as written (`f5d6c4d3`), empty for the start position.
    pub text: String,
    /// The moves from the game's start, each with the colour that plays it.
    pub moves: Vec<(Color, Move)>,
}

/// Parses one transcript from `start` into an [`Opening`].
///
/// Errors: a bad or illegal move (the [`ParseError`] text); an opening after which neither
/// side can move (the engines would play no move).
pub fn parse_opening(start: Position, text: &str) -> Result<Opening, String> {
    let (moves, end) = parse_transcript_from(start, text).map_err(|e: ParseError| e.to_string())?;
    if end.board.is_game_over() {
        return Err(format!(
            "opening '{}' ends the game (no move would be left to play)",
            crate::notation::clip(text.trim())
        ));
    }
    let mut side = start.side;
    let mut coloured = Vec::with_capacity(moves.len());
    for m in moves {
        coloured.push((side, m));
        side = side.opposite();
    }
    Ok(Opening {
        text: text.trim().to_string(),
        moves: coloured,
    })
}

/// Parses an openings file: one transcript per line; blank lines and lines starting with `#`
/// or `%` are skipped.
///
/// Errors: the first bad line, as `line N: <reason>` (a bad or illegal move, an opening that
/// ends the game); a file with no opening.
pub fn parse_openings(start: Position, text: &str) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (n, t) in opening_lines(text) {
        out.push(parse_opening(start, t).map_err(|e| format!("line {n}: {e}"))?);
    }
    if out.is_empty() {
        return Err("no opening in the file".to_string());
    }
    Ok(out)
}

/// The opening lines of a file with their line numbers (from 1): trimmed, without blank
/// lines, `#`/`%` comments and a byte-order mark.
fn opening_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let t = line.trim().trim_start_matches('\u{feff}').trim();
        (!(t.is_empty() || t.starts_with('#') || t.starts_with('%'))).then_some((i + 1, t))
    })
}

/// Parses an openings file for handicap games, which start from each of `starts` (the
/// handicap position of either colour). A line playable from every start is kept (parsed
/// from `starts[0]`); a line that is fine from the normal start position but not from some
/// handicap start (a move onto a handicap corner, an illegal move or the end of the game
/// because of the corners) is skipped and counted. Returns the kept openings and the number
/// skipped.
///
/// Errors: a line that is bad even from the normal start position (`line N: <reason>`); a
/// file with no opening; a file whose openings are all skipped.
pub fn parse_openings_for_handicap(
    starts: &[Position],
    text: &str,
) -> Result<(Vec<Opening>, usize), String> {
    let first = *starts
        .first()
        .ok_or_else(|| "internal: no handicap start".to_string())?;
    let mut out = Vec::new();
    let mut skipped = 0;
    for (n, t) in opening_lines(text) {
        match parse_opening(first, t) {
            Ok(o) if starts[1..].iter().all(|&s| parse_opening(s, t).is_ok()) => out.push(o),
            _ => {
                parse_opening(Position::start(), t).map_err(|e| format!("line {n}: {e}"))?;
                skipped += 1;
            }
        }
    }
    if out.is_empty() {
        return Err(if skipped == 0 {
            "no opening in the file".to_string()
        } else {
            format!("none of its {skipped} openings can be played with the handicap corners")
        });
    }
    Ok((out, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::game::handicap_position;

    #[test]
    fn openings_files() {
        let o = parse_openings(Position::start(), "# XOT\nf5d6c4d3\n\n%c\nf5f6\n").unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].moves.len(), 4);
        assert_eq!(o[0].moves[1].0, Color::White);
        assert_eq!(
            parse_openings(Position::start(), "f5d6\nf5a1\n").unwrap_err(),
            "line 2: illegal move 'a1' at move 2"
        );
        assert!(parse_openings(Position::start(), "# nothing\n").is_err());
        // An opening after which nobody can move (black wipes white out) is refused.
        assert_eq!(
            parse_openings(Position::start(), "f5d6\n\nf5d6c5f4e3f6g5e6e7\n").unwrap_err(),
            "line 3: opening 'f5d6c5f4e3f6g5e6e7' ends the game (no move would be left to play)"
        );
        for t in BUILTIN_OPENINGS {
            assert!(parse_opening(Position::start(), t).is_ok(), "{t}");
        }
    }

    #[test]
    fn openings_that_clash_with_the_handicap_are_skipped() {
        // Line 2 plays a1, a handicap corner: skipped for every handicap; line 4 is bad
        // from any start: an error.
        let starts = |n| [Color::White, Color::Black].map(|c| handicap_position(c, n).unwrap());
        let text = "f5d6c3d3c4\nf5f4c3c4b3b2a1f6\n# x\nf5f6e6f4\n";
        for n in 1..=4 {
            let (o, skipped) = parse_openings_for_handicap(&starts(n), text).unwrap();
            assert_eq!(skipped, 1, "n={n}");
            let kept: Vec<&str> = o.iter().map(|o| o.text.as_str()).collect();
            assert_eq!(kept, ["f5d6c3d3c4", "f5f6e6f4"], "n={n}");
            assert_eq!(o[0].moves[1], (Color::White, "d6".parse().unwrap()));
        }
        assert_eq!(
            parse_openings_for_handicap(&starts(1), "f5d6\nf5a8\n").unwrap_err(),
            "line 2: illegal move 'a8' at move 2"
        );
        assert_eq!(
            parse_openings_for_handicap(&starts(1), "f5f4c3c4b3b2a1f6\n").unwrap_err(),
            "none of its 1 openings can be played with the handicap corners"
        );
    }
}
