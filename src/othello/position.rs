//! A position: a board with the colour of the side to move, the bridge between the search's
//! side-to-move view and the colours of games and protocols.

use super::board::Board;
use super::square::{Color, Move};

/// A board with the colour of the side to move: what a board string describes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    /// Discs as side-to-move / other side.
    pub board: Board,
    /// Colour of `board.player`.
    pub side: Color,
}

impl Position {
    /// The standard start position, black to move.
    pub fn start() -> Position {
        Position {
            board: Board::start(),
            side: Color::Black,
        }
    }

    /// Black's and white's discs as bitboards.
    pub fn black_white(&self) -> (u64, u64) {
        match self.side {
            Color::Black => (self.board.player, self.board.opponent),
            Color::White => (self.board.opponent, self.board.player),
        }
    }

    /// Builds a position from black's and white's discs and the side to move.
    /// Returns `None` if the bitboards overlap.
    pub fn from_black_white(black: u64, white: u64, side: Color) -> Option<Position> {
        let board = match side {
            Color::Black => Board::new(black, white)?,
            Color::White => Board::new(white, black)?,
        };
        Some(Position { board, side })
    }

    /// The 64 cells as `X`/`O`/`-` in order a1…h8 (no side).
    pub fn cells(&self) -> String {
        let (b, w) = self.black_white();
        (0..64)
            .map(|i| {
                let m = 1u64 << i;
                if b & m != 0 {
                    'X'
                } else if w & m != 0 {
                    'O'
                } else {
                    '-'
                }
            })
            .collect()
    }

    /// The position after the side to move plays `m` (a pass swaps sides). Returns `None` if
    /// the move is illegal (occupied, no flips, or a pass while a move exists).
    pub fn play(&self, m: Move) -> Option<Position> {
        let board = match m {
            Move::Play(sq) => self.board.try_make_move(sq)?,
            Move::Pass => {
                if self.board.has_moves() {
                    return None;
                }
                self.board.pass()
            }
        };
        Some(Position {
            board,
            side: self.side.opposite(),
        })
    }
}
