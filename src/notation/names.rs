//! The names of squares, moves and colours: parsing `a1`–`h8`, `pass`, `black`/`white`.

use std::str::FromStr;

use super::ParseError;
use crate::othello::square::{Color, Move, Square};

impl FromStr for Square {
    type Err = ParseError;
    /// Parses `a1`–`h8` in any case; surrounding whitespace is not accepted.
    fn from_str(s: &str) -> Result<Square, ParseError> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(ParseError::BadSquare(s.to_string()));
        }
        let c = b[0].to_ascii_lowercase();
        let r = b[1];
        if !(b'a'..=b'h').contains(&c) || !(b'1'..=b'8').contains(&r) {
            return Err(ParseError::BadSquare(s.to_string()));
        }
        Ok(Square::from_coords(c - b'a', r - b'1'))
    }
}

impl FromStr for Move {
    type Err = ParseError;
    /// Parses a square (`a1`–`h8`, any case) or a pass (`pass`, `pa`, `ps`, `--`, any case).
    fn from_str(s: &str) -> Result<Move, ParseError> {
        let l = s.to_ascii_lowercase();
        match l.as_str() {
            "pass" | "pa" | "ps" | "--" => Ok(Move::Pass),
            _ => s
                .parse::<Square>()
                .map(Move::Play)
                .map_err(|_| ParseError::BadMove(s.to_string())),
        }
    }
}

impl FromStr for Color {
    type Err = ParseError;
    /// Parses `b`, `black`, `w`, `white` in any case (also `x`/`o` as in board strings).
    fn from_str(s: &str) -> Result<Color, ParseError> {
        match s.to_ascii_lowercase().as_str() {
            "b" | "black" | "x" => Ok(Color::Black),
            "w" | "white" | "o" => Ok(Color::White),
            _ => Err(ParseError::BadColor(s.to_string())),
        }
    }
}
