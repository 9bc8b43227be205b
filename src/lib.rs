//! flank: an Othello (Reversi) engine — bitboard rules core, search, endgame solver, GTP protocol.
//!
//! Module map (one file per concern, see `docs/ARCHITECTURE.md`):
//! - [`othello`]: the rules: bitboards, mobility, flips, copy-make (`board`), squares, moves and
//!   colours (`square`), positions with the side to move, games with pass rules and undo
//!   (`game`), perft.
//! - [`notation`]: the text forms: board strings, OBF lines, transcripts, square and move
//!   names, the typed parse error.
//! - [`data`]: finding the shared data files (`$FLANK_DATA`).
//! - [`eval`]: the evaluation entry point: the trained pattern evaluation or the hand-written one.
//! - [`pattern`]: pattern features and the trained pattern evaluator.
//! - [`net`]: the residual network that corrects the pattern evaluation in some phases.
//! - [`weights`]: the weights file format and the embedded default weights.
//! - [`train`]: `flank train`, building the weights from WTHOR and self-play games.
//! - [`tt`]: the lock-free transposition table shared by search threads.
//! - [`midgame`]: iterative deepening PVS with aspiration windows.
//! - [`endgame`]: the exact / WLD endgame solver.
//! - [`probcut`]: endgame multi-ProbCut: selective pre-search levels and the error model.
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
pub mod endgame;
pub mod engine;
pub mod eval;
pub mod evalset;
pub mod gtp;
pub mod level;
pub mod matchplay;
pub mod midgame;
pub mod net;
pub mod notation;
pub mod othello;
pub mod pattern;
pub mod probcut;
pub mod solve;
pub mod timeman;
pub mod train;
pub mod tt;
pub mod weights;

pub use notation::ParseError;
pub use othello::{Board, Color, Move, Position, Score, Square};
