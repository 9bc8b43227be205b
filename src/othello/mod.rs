//! The rules of Othello: bitboards and moves, squares and colours, positions, games with
//! their pass rules, and perft. The lowest layer: it imports nothing else of flank.

pub mod board;
pub mod game;
pub mod movegen;
pub mod perft;
pub mod position;
pub mod square;

pub use board::{Board, Score};
pub use position::Position;
pub use square::{Color, Move, Square};
