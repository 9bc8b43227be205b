//! The engine facade: what the protocol layer and the CLI call to search a position.
//!
//! Split in the Stockfish manner: the [`Engine`] owns the shared state (the transposition
//! table, the stop flag, settings); each search creates its own per-thread state. Search
//! never prints: it reports progress through the `on_info` callback given to
//! [`Engine::search`], and the caller decides where the text goes (stderr in GTP mode).
//!
//! Search never sees colours: it is given a [`Board`] (side to move / other side) and returns
//! scores from the side to move's view.

pub mod analyze;
pub mod draw;
pub mod level;
pub mod ponder;
pub mod table_size;
pub mod timeman;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::othello::board::{Board, Score};
use crate::othello::square::Move;
use crate::search::Searcher;
use crate::search::midgame::Iteration;
use crate::search::tt::{TranspositionTable, TtAllocError};

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
    /// True if the search reached the end of the game: `score` is the exact final disc
    /// difference, or with `wld` its proven sign.
    pub exact: bool,
    /// True if only the sign of `score` is proven (a WLD solve that did not find a draw):
    /// `score` is then −1 (loss) or +1 (win), never a disc count.
    pub wld: bool,
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
    /// True if `score` is a proven WLD result, −1 (loss), 0 (draw) or +1 (win), not a disc
    /// difference: a [`SolveMode::Wld`] solve that completed, or the WLD solve that
    /// [`SolveMode::Auto`] chose because an exact one would not fit in the time.
    pub wld: bool,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time in ms.
    pub time_ms: u64,
    /// Principal variation, first move first.
    pub pv: Vec<Move>,
}

/// Empties at or below which [`SolveMode::Auto`] solves exactly at once.
pub const AUTO_SOLVE_EMPTIES: u32 = 14;
/// Empties at or below which [`SolveMode::Auto`] tries an exact solve after its midgame
/// iterations when a time limit leaves room (a deadline aborts the try).
pub const AUTO_TRY_SOLVE_EMPTIES: u32 = 24;
/// Empties at or below which [`SolveMode::Auto`] without any depth or time limit solves.
pub const AUTO_UNTIMED_SOLVE_EMPTIES: u32 = 20;
/// Midgame depth used when neither a depth nor any time limit is given.
pub const DEFAULT_DEPTH: u32 = 10;

/// The exact solver's speed assumed before any solve was measured, in nodes per ms per
/// thread (about 15 M nodes/s, what one core of this machine class solves at 20-30 empties;
/// docs/benchmarks.md).
pub const SOLVE_NODES_PER_MS_PER_THREAD: f64 = 15_000.0;

/// The nodes of a WLD solve as a fraction of the exact solve's, for [`Engine::solve_plan`].
pub const WLD_NODE_FRACTION: f64 = 0.4;

/// The estimated nodes of an exact solve of a typical game position with `empties` empties
/// (1 thread): 3 M at 20 empties (hard-20 averages 3.6 M), times 2.3 per further empty
/// (FFO #40-#59: 14-19 M at 20-23, 40-300 M at 24, 0.9-3.8 G at 28-29; game positions are
/// easier than FFO's). Below 20, divided by 2.3 per empty.
pub fn solve_nodes_estimate(empties: u32) -> f64 {
    3.0e6 * 2.3f64.powi(empties as i32 - 20)
}

/// [`SOLVE_NODES_PER_MS_PER_THREAD`] for `threads` threads (YBWC gains about 1.7× on two).
fn initial_solve_speed(threads: usize) -> f64 {
    SOLVE_NODES_PER_MS_PER_THREAD * (threads.max(1) as f64).powf(0.8)
}

/// What a timed search does after its midgame iterations ([`Engine::solve_plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolvePlan {
    /// An exact solve (the disc difference).
    Exact,
    /// A WLD solve (win, draw or loss only), cheaper than an exact one.
    Wld,
    /// No solve: the midgame result is the answer.
    MidgameOnly,
}

/// The engine: shared state for searches of one game or one batch of problems.
pub struct Engine {
    config: EngineConfig,
    stop: Arc<AtomicBool>,
    tt: Arc<TranspositionTable>,
    /// The YBWC thread pool of exact and WLD solves (`None` with one thread).
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Nodes of the running search so far, for progress displays.
    progress: Arc<AtomicU64>,
    /// The confidence `t` of the midgame multi-ProbCut (`None`: off); see
    /// [`Engine::set_mid_mpc`].
    mid_mpc: Option<f64>,
    /// The solve speed that [`Engine::solve_plan`] assumes, in estimated nodes per ms
    /// (starts at [`SOLVE_NODES_PER_MS_PER_THREAD`] times the threads; measured solves refine it).
    solve_nodes_per_ms: f64,
}

/// A rayon pool of `threads` threads for parallel solves; `None` for one thread or if the
/// threads cannot be started (the solve then runs on the calling thread).
fn solve_pool(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    if threads <= 1 {
        return None;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("flank-solve-{i}"))
        .build()
        .ok()
        .map(Arc::new)
}

impl Engine {
    /// Creates an engine with a transposition table of `config.hash_mb` MiB.
    /// Aborts if the table cannot be allocated; [`Engine::try_new`] reports that instead.
    pub fn new(config: EngineConfig) -> Engine {
        let tt = Arc::new(TranspositionTable::new(config.hash_mb));
        Engine {
            pool: solve_pool(config.threads),
            progress: Arc::new(AtomicU64::new(0)),
            mid_mpc: Some(crate::search::probcut::MID_DEFAULT_T),
            solve_nodes_per_ms: initial_solve_speed(config.threads),
            config,
            stop: Arc::new(AtomicBool::new(false)),
            tt,
        }
    }

    /// As [`Engine::new`], but a table that cannot be allocated is an error.
    pub fn try_new(config: EngineConfig) -> Result<Engine, TtAllocError> {
        let bytes = config.hash_mb.saturating_mul(1 << 20);
        // Report the size asked for, not the power of two it was rounded to.
        let tt = TranspositionTable::try_with_bytes(bytes).map_err(|_| TtAllocError { bytes })?;
        Ok(Engine {
            pool: solve_pool(config.threads),
            progress: Arc::new(AtomicU64::new(0)),
            mid_mpc: Some(crate::search::probcut::MID_DEFAULT_T),
            solve_nodes_per_ms: initial_solve_speed(config.threads),
            config,
            stop: Arc::new(AtomicBool::new(false)),
            tt: Arc::new(tt),
        })
    }

    /// Creates an engine whose TT has at most `bytes` bytes (for tests of tiny tables; the
    /// results are the same, only slower).
    pub fn with_tt_bytes(config: EngineConfig, bytes: usize) -> Engine {
        Engine {
            pool: solve_pool(config.threads),
            progress: Arc::new(AtomicU64::new(0)),
            mid_mpc: Some(crate::search::probcut::MID_DEFAULT_T),
            solve_nodes_per_ms: initial_solve_speed(config.threads),
            config,
            stop: Arc::new(AtomicBool::new(false)),
            tt: Arc::new(TranspositionTable::with_bytes(bytes)),
        }
    }

    /// The settings the engine was built with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Sets the midgame multi-ProbCut: `Some(t)` cuts a node when a shallow search predicts
    /// the deep one outside the window by `t` standard deviations of the calibration stored
    /// with the evaluation's weights ([`crate::eval::mpc::MpcTable`]), `None` searches every
    /// node fully. Default [`crate::search::probcut::MID_DEFAULT_T`]. Without a calibration (classic
    /// evaluation, an older weights file) the midgame search has no ProbCut either way.
    /// Exact and WLD solves never use it.
    pub fn set_mid_mpc(&mut self, t: Option<f64>) {
        self.mid_mpc = t.filter(|t| *t > 0.0);
    }

    /// The midgame multi-ProbCut confidence ([`Engine::set_mid_mpc`]).
    pub fn mid_mpc(&self) -> Option<f64> {
        self.mid_mpc
    }

    /// Replaces the transposition table by one of `mib` MiB if the current one is smaller (its
    /// entries are lost: call it between searches); a table as large or larger is kept. The new
    /// table costs no time to allocate (see [`TranspositionTable::try_with_bytes`]).
    ///
    /// # Errors
    /// The memory cannot be had (the current table is then kept).
    pub fn grow_table(&mut self, mib: usize) -> Result<(), TtAllocError> {
        if mib <= self.config.hash_mb {
            return Ok(());
        }
        let bytes = mib.saturating_mul(1 << 20);
        let tt = TranspositionTable::try_with_bytes(bytes).map_err(|_| TtAllocError { bytes })?;
        self.tt = Arc::new(tt);
        self.config.hash_mb = mib;
        Ok(())
    }

    /// Forgets everything learned from earlier searches: a fresh, empty transposition table of
    /// the same size. Allocating one takes no time at any size (the kernel zeroes each page
    /// when a search first touches it), where clearing the old one writes every byte (about a
    /// second for 4 GiB); if the memory for a second table cannot be had, the old one is
    /// cleared instead.
    pub fn new_game(&mut self) {
        match TranspositionTable::try_with_bytes(self.tt.bytes()) {
            Ok(tt) => self.tt = Arc::new(tt),
            Err(_) => self.tt.clear(),
        }
    }

    /// The node count of the running search (of the last one once it is over), updated every
    /// few thousand nodes by the searching threads; reset to 0 when a search starts. For
    /// progress displays only: the exact total is [`SearchResult::nodes`].
    pub fn progress_handle(&self) -> Arc<AtomicU64> {
        self.progress.clone()
    }

    /// A flag that stops the running search when set (it is cleared when a search starts).
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Searches `board` within `limits`, calling `on_info` after each completed iteration.
    ///
    /// - [`SolveMode::Exact`]: exact solve; `score` is the final disc difference, `exact` is
    ///   true and `depth` the empties.
    /// - [`SolveMode::Wld`]: `score` is −1, 0 or +1, `exact` true.
    /// - [`SolveMode::Midgame`]: iterative deepening to `limits.depth` (default
    ///   [`DEFAULT_DEPTH`] when no time limit is given, else unbounded within the time),
    ///   capped at the empties (deeper searches cannot differ).
    /// - [`SolveMode::Auto`]: exact solve at ≤ [`AUTO_SOLVE_EMPTIES`] empties (or ≤
    ///   [`AUTO_UNTIMED_SOLVE_EMPTIES`] with no limit at all); otherwise iterative deepening,
    ///   and with a time limit at ≤ [`AUTO_TRY_SOLVE_EMPTIES`] empties, the midgame gets a
    ///   quarter of the soft time and an exact solve follows, bounded by the deadline (or
    ///   twice the soft time); if it does not finish, the midgame result is returned.
    ///
    /// If the side to move has no move but the game goes on, `best` is [`Move::Pass`] and the
    /// score is the negated score of the passed position; at game over `best` is a pass and
    /// the score the final score. A search stopped before its first result still returns a
    /// legal move (with `exact = false`).
    pub fn search(
        &mut self,
        board: &Board,
        limits: &SearchLimits,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.stop.store(false, Ordering::Relaxed);
        self.tt.new_search();
        let start = Instant::now();
        // A target too far ahead to represent is no target.
        let soft = limits
            .time_ms
            .and_then(|ms| start.checked_add(Duration::from_millis(ms)));
        let mut s = Searcher::new(self.tt.clone(), self.stop.clone(), limits.deadline);
        self.progress.store(0, Ordering::Relaxed);
        s.set_progress(Some(self.progress.clone()));
        // With `threads > 1`, every solve (also the one after the midgame iterations of
        // `SolveMode::Auto`) and the midgame iterations (`Engine::midgame`) run by YBWC on
        // the pool.
        s.set_pool(self.pool.clone());
        if board.is_game_over() {
            let score = board.final_score();
            let score = if limits.mode == SolveMode::Wld {
                score.signum()
            } else {
                score
            };
            return SearchResult {
                best: Move::Pass,
                score,
                depth: 0,
                exact: true,
                wld: limits.mode == SolveMode::Wld,
                nodes: 0,
                time_ms: elapsed_ms(start),
                pv: Vec::new(),
            };
        }
        if !board.has_moves() {
            let child = board.pass();
            let mut wrapped = |i: &SearchInfo| {
                let mut pv = vec![Move::Pass];
                pv.extend_from_slice(&i.pv);
                on_info(&SearchInfo {
                    score: -i.score,
                    pv,
                    ..i.clone()
                });
            };
            let r = self.search_movable(&mut s, &child, limits, soft, start, &mut wrapped);
            let mut pv = vec![Move::Pass];
            pv.extend_from_slice(&r.pv);
            return SearchResult {
                best: Move::Pass,
                score: -r.score,
                pv,
                ..r
            };
        }
        self.search_movable(&mut s, board, limits, soft, start, on_info)
    }

    /// [`Engine::search`] for a board whose side to move has a legal move.
    fn search_movable(
        &mut self,
        s: &mut Searcher,
        board: &Board,
        limits: &SearchLimits,
        soft: Option<Instant>,
        start: Instant,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let empties = board.empties();
        match limits.mode {
            SolveMode::Exact => self.solve_or_fallback(s, board, -64, 64, start, on_info),
            SolveMode::Wld => {
                let mut r = self.solve_or_fallback(s, board, -1, 1, start, on_info);
                if r.exact {
                    r.score = r.score.signum();
                    r.wld = true;
                }
                r
            }
            SolveMode::Midgame => {
                let max = limits
                    .depth
                    .unwrap_or(if soft.is_none() && limits.deadline.is_none() {
                        DEFAULT_DEPTH
                    } else {
                        60
                    })
                    // Passes do not use depth, so `empties` plies already reach every game end.
                    .min(empties);
                self.midgame(s, board, max, soft, start, on_info)
            }
            SolveMode::Auto => {
                let timed = soft.is_some() || limits.deadline.is_some();
                if empties <= AUTO_SOLVE_EMPTIES
                    || (!timed && limits.depth.is_none() && empties <= AUTO_UNTIMED_SOLVE_EMPTIES)
                {
                    return self.solve_or_fallback(s, board, -64, 64, start, on_info);
                }
                // A solve is tried when the estimate says it fits in the time: exact if it
                // does, else WLD (cheaper) if that does.
                let plan = if timed && empties <= AUTO_TRY_SOLVE_EMPTIES {
                    let avail = limits
                        .deadline
                        .map(|d| d.saturating_duration_since(start).as_millis() as u64)
                        .or(limits.time_ms.map(|ms| ms.saturating_mul(2)))
                        .unwrap_or(u64::MAX);
                    self.solve_plan(empties, avail)
                } else {
                    SolvePlan::MidgameOnly
                };
                let max = limits
                    .depth
                    .unwrap_or(if timed { 60 } else { DEFAULT_DEPTH })
                    .min(empties);
                // Before a solve attempt, the midgame only gets a quarter of the soft time: it
                // provides the fallback move and fills the TT for move ordering.
                let mid_soft = match (plan, limits.time_ms) {
                    (SolvePlan::Exact | SolvePlan::Wld, Some(ms)) => {
                        start.checked_add(Duration::from_millis(ms / 4))
                    }
                    _ => soft,
                };
                let mid = self.midgame(s, board, max, mid_soft, start, on_info);
                let wld = match plan {
                    SolvePlan::Exact => false,
                    SolvePlan::Wld => true,
                    SolvePlan::MidgameOnly => return mid,
                };
                // Bounded by the hard deadline, or by twice the soft time without one.
                let solve_deadline = limits.deadline.or_else(|| {
                    limits.time_ms.and_then(|ms| {
                        start.checked_add(Duration::from_millis(ms.saturating_mul(2)))
                    })
                });
                s.set_deadline(solve_deadline);
                let (alpha, beta) = if wld { (-1, 1) } else { (-64, 64) };
                let solve_start = Instant::now();
                let n0 = s.nodes;
                let Some(mut r) = self.try_solve(s, board, alpha, beta, start, on_info) else {
                    return SearchResult {
                        nodes: s.nodes,
                        time_ms: elapsed_ms(start),
                        ..mid
                    };
                };
                self.note_solve_speed(s.nodes - n0, solve_start.elapsed(), empties, wld);
                if wld {
                    // A proven loss leaves every move lost: the midgame's choice keeps the
                    // most discs in view; a win or draw plays the proven move.
                    if r.score < 0 {
                        return SearchResult {
                            nodes: s.nodes,
                            time_ms: elapsed_ms(start),
                            ..mid
                        };
                    }
                    r.score = r.score.signum();
                    r.exact = false;
                    r.wld = true;
                }
                r
            }
        }
    }

    /// Whether a timed search of a position with `empties` empties and `avail_ms` ms up to its
    /// hard deadline tries a solve after its midgame iterations ([`SolvePlan`]). A solve is
    /// tried when its estimated time ([`solve_nodes_estimate`] over the measured solve speed)
    /// is at most half of `avail_ms`; WLD is estimated at [`WLD_NODE_FRACTION`] of the exact
    /// nodes.
    pub fn solve_plan(&self, empties: u32, avail_ms: u64) -> SolvePlan {
        let exact_ms = solve_nodes_estimate(empties) / self.solve_nodes_per_ms;
        let half = avail_ms as f64 / 2.0;
        if exact_ms <= half {
            SolvePlan::Exact
        } else if exact_ms * WLD_NODE_FRACTION <= half {
            SolvePlan::Wld
        } else {
            SolvePlan::MidgameOnly
        }
    }

    /// Folds a finished solve's speed into the estimate of [`Engine::solve_plan`] (solves of
    /// under 50 ms or 200 k nodes say little and are ignored). The speed is measured in
    /// "estimate units": the nodes [`solve_nodes_estimate`] predicts for the position per ms
    /// actually taken, so a position easier or harder than the model corrects it as well.
    fn note_solve_speed(&mut self, nodes: u64, took: Duration, empties: u32, wld: bool) {
        let ms = took.as_secs_f64() * 1000.0;
        if ms < 50.0 || nodes < 200_000 {
            return;
        }
        let predicted = solve_nodes_estimate(empties) * if wld { WLD_NODE_FRACTION } else { 1.0 };
        let rate = predicted / ms;
        // Exponential average in the log domain, weight 1/3 for the new measurement.
        self.solve_nodes_per_ms = (self.solve_nodes_per_ms.ln() * 2.0 / 3.0 + rate.ln() / 3.0)
            .exp()
            .clamp(100.0, 1e6);
    }

    /// Iterative deepening of `board` to `max` plies (no new iteration after `soft`), with the
    /// midgame ProbCut of [`Engine::set_mid_mpc`]. With `threads > 1` the iterations run by
    /// YBWC on the pool ([`Searcher::set_mid_split`]); Lazy SMP gains less here
    /// (docs/benchmarks.md, "Midgame search"; docs/experiments.md).
    fn midgame(
        &mut self,
        s: &mut Searcher,
        board: &Board,
        max: u32,
        soft: Option<Instant>,
        start: Instant,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        s.set_mid_mpc(self.mid_mpc);
        let mut report = |it: &Iteration, nodes: u64| {
            on_info(&SearchInfo {
                depth: it.depth,
                score: it.score,
                exact: false,
                wld: false,
                nodes,
                time_ms: elapsed_ms(start),
                pv: it.pv.clone(),
            })
        };
        s.set_mid_split(true);
        let it = s.iterate(board, max, soft, &mut report);
        s.set_mid_split(false);
        s.set_mid_mpc(None);
        SearchResult {
            best: Move::Play(it.best),
            score: it.score,
            depth: it.depth,
            exact: false,
            wld: false,
            nodes: s.nodes,
            time_ms: elapsed_ms(start),
            pv: it.pv,
        }
    }

    fn try_solve(
        &mut self,
        s: &mut Searcher,
        board: &Board,
        alpha: Score,
        beta: Score,
        start: Instant,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Option<SearchResult> {
        let r = s.solve(board, alpha, beta)?;
        let empties = board.empties();
        let bound = !crate::search::root::is_exact(r.score, alpha, beta);
        let info = SearchInfo {
            depth: empties,
            score: if bound { r.score.signum() } else { r.score },
            exact: true,
            wld: bound,
            nodes: s.nodes,
            time_ms: elapsed_ms(start),
            pv: r.pv.clone(),
        };
        on_info(&info);
        Some(SearchResult {
            best: r.best,
            score: r.score,
            depth: empties,
            exact: true,
            wld: false,
            nodes: s.nodes,
            time_ms: info.time_ms,
            pv: r.pv,
        })
    }

    /// Solves, or if stopped falls back to a depth-1 midgame move (exact = false).
    fn solve_or_fallback(
        &mut self,
        s: &mut Searcher,
        board: &Board,
        alpha: Score,
        beta: Score,
        start: Instant,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        if let Some(r) = self.try_solve(s, board, alpha, beta, start, on_info) {
            return r;
        }
        s.stopped = false;
        let it = s.iterate(board, 1, None, &mut |_, _| {});
        SearchResult {
            best: Move::Play(it.best),
            score: it.score,
            depth: 1,
            exact: false,
            wld: false,
            nodes: s.nodes,
            time_ms: elapsed_ms(start),
            pv: it.pv,
        }
    }

    /// A searcher for callers that drive the search themselves (the multi-PV analysis of
    /// [`crate::engine::analyze`]): it shares the engine's transposition table, stop flag, progress
    /// counter and, for exact solves, its thread pool, and stops at `deadline`. As at the start
    /// of [`Engine::search`], the stop flag is cleared, a new table generation starts and the
    /// progress count is reset.
    pub fn searcher(&mut self, deadline: Option<Instant>) -> Searcher {
        self.stop.store(false, Ordering::Relaxed);
        self.tt.new_search();
        self.progress.store(0, Ordering::Relaxed);
        let mut s = Searcher::new(self.tt.clone(), self.stop.clone(), deadline);
        s.set_progress(Some(self.progress.clone()));
        s.set_pool(self.pool.clone());
        s
    }
}

fn elapsed_ms(start: Instant) -> u64 {
    start.elapsed().as_millis() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FFO #35 (21 empties, O to move): c7 draws, every other move loses.
    const FFO_35: &str = "--XXX-----XXXX-OOOXXOOOOOOOOOOXO-OOXXXXO-OOOXXXO---XOXX---X----- O";

    fn ffo_35() -> Board {
        crate::notation::parse_problem_line(FFO_35)
            .expect("a valid line")
            .expect("a position")
            .position
            .board
    }

    #[test]
    fn the_plan_is_exact_then_wld_then_none_as_the_time_shrinks() {
        let engine = Engine::new(EngineConfig::default());
        // 21 empties at the initial speed of one thread: exact 460 ms, WLD 184 ms.
        let exact_ms = solve_nodes_estimate(21) / SOLVE_NODES_PER_MS_PER_THREAD;
        assert!((exact_ms - 460.0).abs() < 1.0, "{exact_ms}");
        assert_eq!(engine.solve_plan(21, 922), SolvePlan::Exact);
        assert_eq!(engine.solve_plan(21, 918), SolvePlan::Wld);
        assert_eq!(engine.solve_plan(21, 370), SolvePlan::Wld);
        assert_eq!(engine.solve_plan(21, 366), SolvePlan::MidgameOnly);
    }

    #[test]
    fn a_timed_search_whose_plan_is_wld_returns_a_proven_wld_result() {
        let mut engine = Engine::new(EngineConfig::default());
        // An engine that believes its solver 100x slower than it is plans a WLD solve of 21
        // empties in 60 s (exact estimated at 46 s, more than half of it; WLD at 18 s), which
        // takes about a second: no time budget in this test is tight.
        engine.solve_nodes_per_ms = SOLVE_NODES_PER_MS_PER_THREAD / 100.0;
        let board = ffo_35();
        assert_eq!(engine.solve_plan(21, 60_000), SolvePlan::Wld);
        let limits = SearchLimits {
            mode: SolveMode::Auto,
            // The midgame iterations stop at 4 plies instead of at a quarter of the soft time.
            depth: Some(4),
            time_ms: Some(30_000),
            deadline: Instant::now().checked_add(Duration::from_secs(60)),
        };
        let r = engine.search(&board, &limits, &mut |_| {});
        assert!(r.wld && !r.exact, "{r:?}");
        assert_eq!(r.score, 0);
        assert_eq!(r.best.to_string(), "c7");
        assert_eq!(r.depth, 21);
    }
}
