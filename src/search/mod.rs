//! The search: the transposition table, multi-ProbCut, the midgame PVS with iterative
//! deepening, and the exact and WLD endgame solver. It sees a side to move and the other side,
//! never colours.

pub mod endgame;
pub mod midgame;
pub mod probcut;
pub mod tt;
