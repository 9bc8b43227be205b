//! flank: an Othello (Reversi) engine — bitboard rules core, search, endgame solver, GTP protocol.
//!
//! Layers, lowest first; a layer imports only the layers below it (see `docs/ARCHITECTURE.md`):
//! - [`othello`]: the rules: bitboards, mobility, flips, copy-make (`board`), squares, moves and
//!   colours (`square`), positions with the side to move, games with pass rules and undo
//!   (`game`), perft.
//! - [`notation`]: the text forms: board strings, OBF lines, transcripts, square and move
//!   names, the typed parse error.
//! - [`data`]: finding the shared data files (`$FLANK_DATA`).
//! - [`eval`]: the evaluation: the active evaluator and `evaluate`, the pattern features
//!   (`features`) and evaluator (`pattern`), the residual nets (`net`), the weights file
//!   (`weights`), the midgame ProbCut calibration stored with the weights (`mpc`), the
//!   hand-written evaluation (`classic`).
//! - [`search`]: the transposition table (`tt`), multi-ProbCut (`probcut`), the midgame PVS
//!   (`midgame`) and the exact / WLD solver (`endgame`).
//! - [`engine`]: the facade the protocols and the command line call (the search reports through
//!   callbacks), with time management (`timeman`), levels (`level`), draw offers (`draw`) and
//!   multi-PV analysis (`analyze`).
//! - [`book`]: the opening book: positions with negamax values under any symmetry, the move
//!   choice, the text format (imports only `othello` and `notation`).
//! - [`train`]: `flank train` (weights from WTHOR and self-play games), `flank mpc-calibrate`
//!   (`calibrate`), `flank evalset` (`evalset`), building the opening book (`book_build`).
//! - [`protocol`]: the GTP loop (`gtp`) and the NBoard loop (`nboard`).
//! - [`cli`]: the work of each subcommand, one file each (`solve`, `analyze`, `bench`, `perft`,
//!   `gtp`, `match_cmd`, `train`, `evalset`, `ensemble`, `mpc_calibrate`), and the values of
//!   the command-line options (`values`); `main.rs` only parses and dispatches.
//! - [`matchplay`]: `flank match`, the match runner between two GTP engines, and its rules.

#![warn(missing_docs)]

pub mod book;
pub mod cli;
pub mod data;
pub mod engine;
pub mod eval;
pub mod matchplay;
pub mod notation;
pub mod othello;
pub mod protocol;
pub mod search;
pub mod train;

pub use notation::ParseError;
pub use othello::{Board, Color, Move, Position, Score, Square};
