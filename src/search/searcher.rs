//! The per-thread search state ([`Searcher`]) shared by the midgame search and the solver:
//! the TT handle, node counts, the stop flag and deadline, the YBWC pool and settings, and the
//! leaf values both searches use.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::eval::{ChildEval, Evaluator};
use crate::othello::board::{Board, Score};
use crate::othello::movegen::get_moves;
use crate::search::probcut;
use crate::search::tt::TranspositionTable;

/// Nodes between two checks of the stop flag and the deadline.
pub(super) const CHECK_INTERVAL: u64 = 4096;

/// True once the stop flag is set or the deadline has passed ([`Searcher::check_stop`]'s test
/// of both). A YBWC task also checks it before it starts: a searcher checks only every
/// [`CHECK_INTERVAL`] of its own nodes, and under nested
/// splits most tasks search fewer nodes than that themselves, so without this check a
/// parallel iteration could run on to its end past the deadline (seen once in a 2-thread
/// game: a move of 4.0 s against a hard limit under 1 s).
pub(super) fn past_limits(stop: &AtomicBool, deadline: Option<Instant>) -> bool {
    stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d)
}

/// The final disc difference of `(p, o)` (empties to the winner), as [`Board::final_score`].
#[inline]
pub(super) fn final_score(p: u64, o: u64) -> Score {
    Board {
        player: p,
        opponent: o,
    }
    .final_score()
}

/// [`crate::search::midgame::leaf_eval`] of `(p, o)` with the evaluator `e`, given `moves`,
/// the side to move's moves (only whether it is 0 matters): the evaluation, minus the
/// evaluation after a pass, or the final score.
#[inline]
pub(crate) fn leaf_value(e: &Evaluator, p: u64, o: u64, moves: u64) -> Score {
    if moves != 0 {
        e.evaluate(&Board {
            player: p,
            opponent: o,
        })
    } else if get_moves(o, p) != 0 {
        -e.evaluate(&Board {
            player: o,
            opponent: p,
        })
    } else {
        final_score(p, o)
    }
}

/// [`leaf_value`] of the child `(cp, co)` of a position, reached by playing `x` flipping
/// `flipped`, given the child's moves `cm` and the parent's [`ChildEval`]: the same value.
#[inline]
pub(super) fn child_value(
    ce: &ChildEval,
    cp: u64,
    co: u64,
    x: u32,
    flipped: u64,
    cm: u64,
) -> Score {
    if cm != 0 {
        ce.evaluate(cp, co, x, flipped, cm)
    } else {
        leaf_value(ce.evaluator(), cp, co, 0)
    }
}

/// Per-thread search state: node counter, the shared TT, the stop flag and the hard deadline.
pub struct Searcher {
    /// The transposition table, shared with other threads.
    pub tt: Arc<TranspositionTable>,
    /// Nodes visited (positions at which a move or the score was decided).
    pub nodes: u64,
    /// Set once the stop flag or the deadline was seen; results after that are garbage.
    pub stopped: bool,
    /// The part of `nodes` spent in the selective (multi-ProbCut) pre-searches of root
    /// solves ([`Searcher::set_mpc_root_empties`]).
    pub selective_nodes: u64,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) deadline: Option<Instant>,
    pub(super) next_check: u64,
    /// The split point this searcher works under (YBWC helpers only).
    pub(super) cut: Option<Arc<Cut>>,
    /// The thread pool a parallel solve runs on (`None`: one thread, deterministic).
    pub(super) pool: Option<Arc<rayon::ThreadPool>>,
    /// True while running inside `pool`: NWS nodes at ≥
    /// [`SPLIT_EMPTIES`](super::endgame::SPLIT_EMPTIES) may split.
    pub(super) split: bool,
    /// True in the midgame iterations of a search with a pool: [`Searcher::mid_pvs_node`] nodes of
    /// ≥ [`MID_SPLIT_DEPTH`](super::endgame::MID_SPLIT_DEPTH) plies split their moves after the
    /// first (YBWC).
    pub(super) mid_split: bool,
    /// A live node total shared with a progress display (updated at each stop check).
    pub(super) progress: Option<Arc<AtomicU64>>,
    /// The part of `nodes` already added to `progress`.
    pub(super) published: u64,
    /// The selectivity of the running pass: 0 for an exact search, else the multi-ProbCut
    /// level of a selective pre-search ([`crate::search::probcut`]).
    pub(super) selectivity: u8,
    /// The empties (inclusive range) at which an exact root solve runs the selective
    /// pre-searches first.
    pub(super) mpc_root_empties: (u32, u32),
    /// The midgame ProbCut of [`Searcher::mid_pvs_node`]: the calibration and its confidence `t`
    /// (standard deviations); `None` = off (off in solves; their ordering searches
    /// ([`Searcher::search_order`]) turn it on at [`ORDER_MPC_T`](super::endgame::ORDER_MPC_T) for
    /// their own duration).
    pub(super) mid_mpc: Option<(&'static probcut::MpcTable, f64)>,
    /// True during [`Searcher::mid_root`], whose PV is read from the TT afterwards: depth-1
    /// PV nodes ([`Searcher::mid_pvs_d1`] with a window wider than null) store their result.
    /// Off elsewhere (the solver's ordering and ProbCut searches), where depth-1 entries
    /// cost more nodes than they save.
    pub(super) keep_pv: bool,
    /// The table's epoch when this searcher was made ([`TranspositionTable::epoch`]), which
    /// keys its thread's leaf cache ([`crate::search::leafcache`]).
    pub(super) leaf_epoch: u32,
    /// The evaluation of the running search's leaves and move ordering: the midgame
    /// evaluation ([`crate::eval::active`]), or the exact solver's ([`crate::eval::solver`])
    /// inside [`Searcher::with_solver_eval`].
    pub(super) eval: &'static Evaluator,
}

/// The cutoff flag of one YBWC split point, chained to the split points above it: a search
/// under a split point stops as soon as any flag on its chain is set.
pub(super) struct Cut {
    pub(super) flag: AtomicBool,
    pub(super) parent: Option<Arc<Cut>>,
}

impl Cut {
    /// True if this split point or one above it was cut off.
    pub(super) fn is_set(&self) -> bool {
        let mut c = self;
        loop {
            if c.flag.load(Ordering::Relaxed) {
                return true;
            }
            match &c.parent {
                Some(p) => c = p,
                None => return false,
            }
        }
    }
}

impl Searcher {
    /// A searcher using `tt`, stopping when `stop` is set or at `deadline`.
    pub fn new(
        tt: Arc<TranspositionTable>,
        stop: Arc<AtomicBool>,
        deadline: Option<Instant>,
    ) -> Searcher {
        Searcher {
            nodes: 0,
            stopped: false,
            selective_nodes: 0,
            stop,
            deadline,
            next_check: CHECK_INTERVAL,
            cut: None,
            pool: None,
            split: false,
            mid_split: false,
            progress: None,
            published: 0,
            selectivity: 0,
            mpc_root_empties: (
                probcut::MPC_ROOT_EMPTIES,
                probcut::root_max_empties(tt.buckets()),
            ),
            mid_mpc: None,
            keep_pv: false,
            leaf_epoch: tt.epoch(),
            eval: crate::eval::active(),
            tt,
        }
    }

    /// Adds this searcher's nodes (and those of its YBWC helpers) to `counter` as it goes,
    /// every few thousand nodes, for a progress display; `None` stops that.
    pub fn set_progress(&mut self, counter: Option<Arc<AtomicU64>>) {
        self.progress = counter;
        self.published = self.nodes;
    }

    /// Adds the nodes not yet published to the progress counter.
    pub(super) fn publish(&mut self) {
        if let Some(p) = &self.progress {
            p.fetch_add(self.nodes - self.published, Ordering::Relaxed);
            self.published = self.nodes;
        }
    }

    /// Lets [`Searcher::solve`] run on `pool` with the young brothers wait concept (YBWC): at NWS
    /// nodes with ≥ [`SPLIT_EMPTIES`](super::endgame::SPLIT_EMPTIES) empties, once the first move
    /// failed to cut off, the other moves are searched in parallel (rayon work stealing) by helper
    /// searchers sharing the TT; a fail-high of one stops the others. `None` (or a one-thread pool)
    /// keeps the solve sequential and its node count deterministic.
    pub fn set_pool(&mut self, pool: Option<Arc<rayon::ThreadPool>>) {
        self.pool = pool.filter(|p| p.current_num_threads() > 1);
    }

    /// Lets the midgame search (`Searcher::mid_pvs_node`, and so [`Searcher::iterate`]) run on the
    /// pool of [`Searcher::set_pool`] with YBWC: at nodes of ≥
    /// [`MID_SPLIT_DEPTH`](super::endgame::MID_SPLIT_DEPTH) plies, once the first move has been
    /// searched without a cutoff, the other moves get a null window around alpha in parallel
    /// (helper searchers sharing the TT; a fail-high at a null-window node stops the others), and
    /// the fail-highs of a PV node are re-searched with the full window in order afterwards. Off
    /// (or without a pool) the search is sequential and deterministic. The solver's ordering
    /// searches never split.
    pub fn set_mid_split(&mut self, on: bool) {
        self.mid_split = on && self.pool.is_some();
    }

    /// Sets the empties, `min..=max`, at which an exact root solve ([`Searcher::solve`]
    /// with a window wider than WLD's) first runs the selective multi-ProbCut pre-searches of
    /// [`probcut::PASSES`] (default [`probcut::MPC_ROOT_EMPTIES`] to
    /// [`probcut::root_max_empties`] of the table: 27, or 34 with a table of at least
    /// [`probcut::MPC_LARGE_TT_BUCKETS`] buckets; `min > max`: never). The result stays exact
    /// either way; only the node count changes.
    pub fn set_mpc_root_empties(&mut self, min: u32, max: u32) {
        self.mpc_root_empties = (min, max);
    }

    /// Turns the multi-ProbCut of the midgame search (`Searcher::mid_pvs_node`) on with confidence
    /// `t` (standard deviations, > 0) and the active evaluation's calibration
    /// ([`crate::eval::mpc_table`]), or off with `None` (or without a calibration). The midgame
    /// iterations set it; a solve must run with it off.
    pub fn set_mid_mpc(&mut self, t: Option<f64>) {
        self.mid_mpc = match t {
            Some(t) if t > 0.0 => crate::eval::mpc_table().map(|table| (table, t)),
            _ => None,
        };
    }

    /// Runs `f` with the exact solver's evaluation ([`crate::eval::solver`]) at the leaves
    /// and in the move ordering, then restores the evaluation it had: what every solve
    /// (exact, WLD, or a null-window test) runs under.
    #[inline]
    pub(super) fn with_solver_eval<R>(&mut self, f: impl FnOnce(&mut Searcher) -> R) -> R {
        let saved = std::mem::replace(&mut self.eval, crate::eval::solver());
        let r = f(self);
        self.eval = saved;
        r
    }

    /// Changes the hard deadline (e.g. between the midgame and the solve of one search).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The hard deadline ([`Searcher::set_deadline`]).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Checks the stop flag and deadline every `CHECK_INTERVAL` (4096) nodes; true once stopped.
    #[inline]
    pub fn check_stop(&mut self) -> bool {
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_INTERVAL;
            self.publish();
            if past_limits(&self.stop, self.deadline)
                || self.cut.as_ref().is_some_and(|c| c.is_set())
            {
                self.stopped = true;
            }
        }
        self.stopped
    }
}
