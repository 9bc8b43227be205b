//! The typed parse error of every text form flank reads, and the clipping of user text echoed
//! in error messages.

use std::fmt;

/// Why a piece of text could not be read. Each variant's message says what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not a square name `a1`–`h8`.
    BadSquare(String),
    /// Not a square name nor a pass.
    BadMove(String),
    /// Not a colour (`b`, `black`, `w`, `white`, `x`, `o`, any case).
    BadColor(String),
    /// A board string with an unknown cell character at cell index (0–63).
    BadCell {
        /// Cell index, 0 = a1.
        index: usize,
        /// The character found.
        found: char,
    },
    /// A board string with fewer than 64 cells.
    TooFewCells(usize),
    /// A board string without the side to move.
    MissingSide,
    /// A side-to-move field that is not a colour.
    BadSide(String),
    /// A malformed `MOVE:score` entry of an OBF line.
    BadObfEntry(String),
    /// A score that is not an integer.
    BadScore(String),
    /// A transcript move that is not legal at its ply (1-based).
    IllegalMove {
        /// 1-based index of the move in the transcript (passes not counted).
        ply: usize,
        /// The move as written.
        mv: String,
    },
    /// Text where a transcript move was expected.
    BadTranscript(String),
    /// A board string with more than 64 cells (the count found, at least 65).
    TooManyCells(usize),
    /// Text after the side to move of a board string.
    TrailingText(String),
    /// A score outside −64…64.
    ScoreOutOfRange(i64),
    /// An OBF entry whose move is not legal in the line's position.
    IllegalListedMove(String),
    /// Text that is not a board string at all: an unknown cell character in a first token
    /// that is not 64 characters long (a 64-character token, or cells written apart, give
    /// [`ParseError::BadCell`] instead), or a first token of 64 cells with more than one
    /// character glued after them that are neither a side nor cells (`<64 cells>------z`).
    NotABoard {
        /// The first whitespace-separated token, as written.
        token: String,
        /// Its length in characters.
        chars: usize,
    },
    /// A GGF game record that cannot be read: what is wrong, in words (`no BO tag`,
    /// `unsupported board type 'TY[10]'`, `W[F5] at move 3: black to move`).
    BadGgf(String),
}

/// The most characters of user text echoed back in an error message; longer text is cut
/// there and `…` appended.
pub const MAX_ECHO_CHARS: usize = 32;

/// `text` as echoed in an error message: at most [`MAX_ECHO_CHARS`] characters, then `…` if
/// anything was cut, with control and invisible characters escaped (`\u{feff}`), so that a
/// huge or binary input is never echoed whole.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_ECHO_CHARS) {
        Some((i, _)) => format!("{}…", text[..i].escape_debug()),
        None => text.escape_debug().to_string(),
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::TooManyCells(n) => {
                write!(
                    f,
                    "board string has {n} cells, expected 64 then the side to move"
                )
            }
            ParseError::TrailingText(s) => {
                write!(f, "unexpected text '{}' after the side to move", clip(s))
            }
            ParseError::ScoreOutOfRange(v) => write!(f, "score {v} is outside -64..64"),
            ParseError::IllegalListedMove(s) => {
                write!(f, "listed move '{}' is not legal in this position", clip(s))
            }
            ParseError::BadSquare(s) => write!(f, "bad square '{}' (expected a1-h8)", clip(s)),
            ParseError::BadMove(s) => {
                write!(f, "bad move '{}' (expected a1-h8 or pass)", clip(s))
            }
            ParseError::BadColor(s) => {
                write!(
                    f,
                    "bad color '{}' (expected b, black, w, white, x or o)",
                    clip(s)
                )
            }
            ParseError::BadCell { index, found } => write!(
                f,
                "bad board cell '{}' at cell {} (expected X x * B b, O o W w 0, - .)",
                found.escape_debug(),
                index + 1
            ),
            ParseError::TooFewCells(n) => {
                write!(
                    f,
                    "board string has {n} cells, expected 64 then the side to move"
                )
            }
            ParseError::MissingSide => write!(f, "board string lacks the side to move (X or O)"),
            ParseError::BadSide(s) => {
                write!(f, "bad side to move '{}' (expected X or O)", clip(s))
            }
            ParseError::BadObfEntry(s) => {
                write!(f, "bad OBF move entry '{}' (expected MOVE:score)", clip(s))
            }
            ParseError::BadScore(s) => {
                write!(
                    f,
                    "bad score '{}' (expected an integer in -64..64)",
                    clip(s)
                )
            }
            ParseError::IllegalMove { ply, mv } => {
                write!(f, "illegal move '{}' at move {ply}", clip(mv))
            }
            ParseError::BadTranscript(s) => write!(f, "bad transcript near '{}'", clip(s)),
            ParseError::BadGgf(what) => write!(f, "bad GGF game: {what}"),
            ParseError::NotABoard { token, chars } => write!(
                f,
                "expected a 64-cell board string (a1..h8, then the side to move), got '{}' \
                 ({chars} character{})",
                clip(token),
                if *chars == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for ParseError {}
