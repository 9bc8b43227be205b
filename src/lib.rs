//! flank: an Othello (Reversi) engine — bitboard rules core, search, endgame solver, GTP protocol.
//!
//! Module map (one file per concern, see `docs/ARCHITECTURE.md`):
//! - [`othello`]: the rules: bitboards, mobility, flips, copy-make (`board`), squares, moves and
//!   colours (`square`), positions with the side to move, games with pass rules and undo
//!   (`game`), perft.
//! - [`notation`]: the text forms: board strings, OBF lines, transcripts, square and move
//!   names, the typed parse error.
//! - [`data`]: finding the shared data files (`$FLANK_DATA`).
//! - [`eval`]: the evaluation: the active evaluator and `evaluate`, the pattern features
//!   (`pattern`), the residual nets (`net`), the weights file (`weights`), the midgame ProbCut
//!   calibration stored with the weights (`mpc`), the hand-written evaluation (`classic`).
//! - [`train`]: `flank train`, building the weights from WTHOR and self-play games.
//! - [`search`]: the transposition table (`tt`), multi-ProbCut (`probcut`), the midgame PVS
//!   (`midgame`) and the exact / WLD solver (`endgame`).
//! - [`analyze`]: multi-PV analysis, the best few moves each with its own score and PV.
//! - [`engine`]: the facade the protocols and CLI call; search reports through callbacks.
//! - [`timeman`]: time management against the game clock.
//! - [`gtp`]: the GTP protocol loop.
//! - [`level`]: the playing levels (easy, medium, hard, 1–60) and the move choice at a level.
//! - [`draw`]: judging draw offers with a bounded search.
//! - [`solve`]: the `flank solve` batch solver.
//! - [`mod@bench`]: the fixed `flank bench` search fingerprint.
//! - [`matchplay`]: `flank match`, the match runner between two GTP engines, and its rules.

#![warn(missing_docs)]

pub mod analyze;
pub mod bench;
pub mod calibrate;
pub mod data;
pub mod draw;
pub mod engine;
pub mod eval;
pub mod evalset;
pub mod gtp;
pub mod level;
pub mod matchplay;
pub mod notation;
pub mod othello;
pub mod search;
pub mod solve;
pub mod timeman;
pub mod train;

pub use notation::ParseError;
pub use othello::{Board, Color, Move, Position, Score, Square};
