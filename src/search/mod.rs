//! The search: the transposition table, multi-ProbCut, the midgame PVS with iterative
//! deepening, and the exact and WLD endgame solver. It sees a side to move and the other side,
//! never colours.

pub mod endgame;
pub mod leafcache;
pub mod midgame;
mod movelist;
mod parallel;
pub mod probcut;
pub mod profile;
pub mod root;
pub mod searcher;
mod stability;
pub mod tt;

pub use root::SolveResult;
pub use searcher::Searcher;
