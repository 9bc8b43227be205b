//! The engine facade: what the protocol layer and the CLI call to search a position.
//!
//! Split in the Stockfish manner: the [`Engine`] owns the shared state (the transposition
//! table, the stop flag, settings); each search creates its own per-thread state. Search
//! never prints: it reports progress through the `on_info` callback given to
//! [`Engine::search`], and the caller decides where the text goes (stderr in GTP mode).
//!
//! Search never sees colours: it is given a [`Board`] (side to move / other side) and returns
//! scores from the side to move's view.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::board::{Board, Score};
use crate::square::Move;

/// How the endgame is searched.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum SolveMode {
    /// Midgame search, switching to exact solving when the empties are few enough to solve
    /// in the time available (the default for `genmove`).
    #[default]
    Auto,
    /// Solve the position exactly: the score is the final disc difference under perfect play.
    Exact,
    /// Win/loss/draw solve: the score is only its sign, −1, 0 or +1 (see
    /// [`SearchResult::score`]).
    Wld,
    /// Depth-limited midgame search only, never a solve (used by `solve --depth`).
    Midgame,
}

/// What a search may spend.
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    /// Maximum midgame depth in plies; `None` = no depth limit.
    pub depth: Option<u32>,
    /// Midgame vs exact vs WLD.
    pub mode: SolveMode,
    /// Soft time target in ms: no new iteration is started once it has passed.
    pub time_ms: Option<u64>,
    /// Hard deadline: the search stops as soon as it passes and returns its best so far.
    pub deadline: Option<Instant>,
}

/// Engine-wide settings.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Search threads (1 = deterministic).
    pub threads: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            hash_mb: 64,
            threads: 1,
        }
    }
}

/// A progress report from a running search (one per completed iteration).
#[derive(Clone, Debug)]
pub struct SearchInfo {
    /// Depth completed, in plies (for a solve: the number of empties).
    pub depth: u32,
    /// Score in discs from the side to move's view.
    pub score: Score,
    /// True if `score` is an exact endgame result (or exact WLD sign in WLD mode).
    pub exact: bool,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started, in ms.
    pub time_ms: u64,
    /// Principal variation, first move first.
    pub pv: Vec<Move>,
}

/// The answer of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Best move; [`Move::Pass`] when the side to move has no legal move.
    pub best: Move,
    /// Score in discs from the side to move's view: an estimate for a midgame search, the
    /// final disc difference (empties to the winner) for an exact solve, and for a WLD solve
    /// −1 (loss), 0 (draw) or +1 (win).
    pub score: Score,
    /// Depth reached in plies (for a solve: the number of empties).
    pub depth: u32,
    /// True if `score` is exact (an exact solve or a WLD solve that completed).
    pub exact: bool,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time in ms.
    pub time_ms: u64,
    /// Principal variation, first move first.
    pub pv: Vec<Move>,
}

/// The engine: shared state for searches of one game or one batch of problems.
pub struct Engine {
    config: EngineConfig,
    stop: Arc<AtomicBool>,
}

impl Engine {
    /// Creates an engine with a transposition table of `config.hash_mb` MiB.
    pub fn new(config: EngineConfig) -> Engine {
        Engine {
            config,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The settings the engine was built with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Forgets everything learned from earlier searches (clears the transposition table).
    pub fn new_game(&mut self) {}

    /// A flag that stops the running search when set (it is cleared when a search starts).
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Searches `board` within `limits`, calling `on_info` after each completed iteration.
    ///
    /// STUB: plays the first legal move with score 0 until the search lands.
    pub fn search(
        &mut self,
        board: &Board,
        _limits: &SearchLimits,
        _on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.stop.store(false, Ordering::Relaxed);
        let best = board.legal_moves().next().map_or(Move::Pass, Move::Play);
        SearchResult {
            best,
            score: 0,
            depth: 0,
            exact: false,
            nodes: 0,
            time_ms: 0,
            pv: vec![best],
        }
    }
}
