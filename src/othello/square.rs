//! Squares, moves and colours, and how they print (`a1`–`h8`, `pass`, `black`/`white`).
//!
//! Columns a–h, rows 1–8 with row 1 at the top (the Othello convention). Printing is lower case
//! for moves (`f5`, `pass`); parsing the names (any case) is the notation layer's.

use std::fmt;

/// A square of the board, index 0–63: `8 * row + col`, a1 = 0, h1 = 7, a8 = 56, h8 = 63.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(u8);

impl Square {
    /// The square with index `i` (0–63). Panics in debug builds if out of range.
    #[inline]
    pub const fn from_index(i: u8) -> Square {
        debug_assert!(i < 64);
        Square(i)
    }

    /// The square at column `col` (0 = a … 7 = h) and row `row` (0 = row 1 … 7 = row 8).
    #[inline]
    pub const fn from_coords(col: u8, row: u8) -> Square {
        Square(row * 8 + col)
    }

    /// Index 0–63.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0 = a … 7 = h.
    #[inline]
    pub const fn col(self) -> u8 {
        self.0 & 7
    }

    /// Row, 0 = row 1 (top) … 7 = row 8.
    #[inline]
    pub const fn row(self) -> u8 {
        self.0 >> 3
    }

    /// The one-bit bitboard of this square.
    #[inline]
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// Upper-case name, e.g. `F5` (as GoGui's rules extension prints moves).
    pub fn to_upper(self) -> String {
        self.to_string().to_ascii_uppercase()
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.col()) as char,
            (b'1' + self.row()) as char
        )
    }
}

/// A move: a disc placed on a square, or a pass.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Move {
    /// Place a disc on this square.
    Play(Square),
    /// Pass (legal only when the side to move has no move).
    Pass,
}

impl Move {
    /// The square, or `None` for a pass.
    pub fn square(self) -> Option<Square> {
        match self {
            Move::Play(s) => Some(s),
            Move::Pass => None,
        }
    }
}

impl fmt::Display for Move {
    /// `f5` or `pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(s) => s.fmt(f),
            Move::Pass => f.write_str("pass"),
        }
    }
}

/// A side: black moves first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    /// The first player (`X` in board strings).
    Black,
    /// The second player (`O` in board strings).
    White,
}

impl Color {
    /// The other colour.
    #[inline]
    pub fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The board-string letter: `X` for black, `O` for white.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }
}

impl fmt::Display for Color {
    /// `black` or `white`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_any_case() {
        for i in 0..64u8 {
            let s = Square::from_index(i);
            assert_eq!(s.to_string().parse::<Square>().unwrap(), s);
            assert_eq!(s.to_upper().parse::<Square>().unwrap(), s);
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("H8".parse::<Square>().unwrap().index(), 63);
        assert!("i1".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
        assert!("a".parse::<Square>().is_err());
    }

    #[test]
    fn moves_and_colours_parse() {
        for p in ["pass", "PASS", "Pa", "ps", "--"] {
            assert_eq!(p.parse::<Move>().unwrap(), Move::Pass);
        }
        assert_eq!("F5".parse::<Move>().unwrap().to_string(), "f5");
        assert!("z9".parse::<Move>().is_err());
        assert_eq!("B".parse::<Color>().unwrap(), Color::Black);
        assert_eq!("White".parse::<Color>().unwrap(), Color::White);
        assert!("red".parse::<Color>().is_err());
    }
}
