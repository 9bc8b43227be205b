//! The move list of a search node: squares with ordering keys, the flips and the child's
//! moves cached per square, selection and insertion sorts.

use std::mem::MaybeUninit;

use crate::eval::{ChildEval, Evaluator};
use crate::othello::board::{SCORE_INF, Score};
#[cfg(doc)]
use crate::search::searcher::Searcher;
use crate::search::searcher::child_value;

/// Key units per disc of the child's evaluation in the fastest-first keys of the solver's NWS
/// from [`EVAL_ORDER_EMPTIES`](crate::search::endgame::EVAL_ORDER_EMPTIES) empties.
pub const EVAL_ORDER_WEIGHT: i32 = 8;

/// Moves with their ordering keys, each packed as `key * 64 + square` in one `i32`.
pub(super) struct MoveList {
    pub(super) n: usize,
    /// Entries `0..n` (the rest uninitialised: clearing 256 bytes per node costs more than
    /// the list's use).
    pub(super) item: [MaybeUninit<i32>; 64],
    /// The moves of the child after each square's move, by square: written by
    /// [`Searcher::fastest_first`] for every square it lists (read with
    /// [`MoveList::child_moves`]), so the child need not recompute them. Not zeroed: a
    /// 512-byte clear per node costs more than it saves.
    pub(super) child_moves: [MaybeUninit<u64>; 64],
    /// The discs flipped by each square's move, by square, written with `child_moves`.
    pub(super) flips: [MaybeUninit<u64>; 64],
    /// The squares whose `child_moves` and `flips` entries were written.
    pub(super) has_child_moves: u64,
    /// The squares whose `flips` entry was written (by [`Searcher::etc`], for
    /// [`Searcher::fastest_first`] to reuse).
    pub(super) has_flips: u64,
}

/// Children evaluated by [`eval_order`] before the first move is searched, below
/// [`EVAL_ORDER_ALL_EMPTIES`] empties: those of the [`EVAL_ORDER_FIRST`] best fastest-first
/// keys; the others only if that move does not cut ([`LazyEval::finish`]). On FFO #45, #48,
/// #49 (1 thread, 1 GiB) 3 at 12–16 empties took 0.930 of the time of evaluating every child
/// at once (farm-bench, 4 pairs, 0.900–0.956) for 0.92 % more nodes; 2: +3.8 % nodes, 4:
/// 0.990 of the time, +0.23 % nodes. Evaluating only the 3 and never the others (keyed as the
/// worst of the 3): +2.2 % nodes.
pub const EVAL_ORDER_FIRST: usize = 3;

/// Empties from which [`eval_order`] evaluates every child at once: the nodes there are few
/// (a quarter of those at 12–16 empties on FFO #45–#52) and their subtrees large. From 14
/// instead of 17 (3 first at 12–16): 0.73 % fewer nodes on FFO #40–#49 and on #51, #52 (1
/// thread, 1 GiB) in the same time (FFO #45, #48, #49: 1.001, farm-bench, 3 pairs,
/// 0.982–1.057); from 13: 0.80 % fewer nodes, 1.047 of the time (3 pairs).
pub const EVAL_ORDER_ALL_EMPTIES: u32 = 14;

/// Adds the static evaluation of the children (opponent to move, so a higher value is a worse
/// move), [`EVAL_ORDER_WEIGHT`] key units per disc, to the fastest-first keys of `list`
/// (every entry keyed by [`Searcher::fastest_first`] for the position `(p, o)` of `empties`
/// empties), as Edax's `movelist_evaluate` mixes evaluation and mobility. Each evaluation reads
/// 65 weight tables (a node at 12–13 empties, which evaluates 3 children, takes about 4 times
/// as long as one at 10–11: docs/benchmarks.md, "Where the time goes, by empties"), so below
/// [`EVAL_ORDER_ALL_EMPTIES`] empties only the [`EVAL_ORDER_FIRST`] best-keyed children are
/// evaluated and moved to the front of the list;
/// the others get, for now, the worst value among the evaluated children, and the returned
/// [`LazyEval`] (`None` if every child was evaluated) puts their own values in their keys
/// once a move of the list has failed to cut (the node calls [`LazyEval::finish`] before its
/// second listed move, or before a parallel split).
#[inline]
pub(super) fn eval_order(
    list: &mut MoveList,
    e: &'static Evaluator,
    p: u64,
    o: u64,
    empties: u32,
) -> Option<LazyEval> {
    let first = if empties >= EVAL_ORDER_ALL_EMPTIES {
        list.n
    } else {
        EVAL_ORDER_FIRST.min(list.n)
    };
    // The best-keyed first (not needed when every child is evaluated: the keys change).
    if first < list.n {
        for i in 0..first {
            list.select(i);
        }
    }
    let ce = ChildEval::new(e, p, o);
    let mut worst = -SCORE_INF;
    let mut done = 0u64;
    for i in 0..first {
        let x = list.sq(i);
        let v = list_child_value(list, &ce, p, o, x);
        worst = worst.max(v);
        done |= 1u64 << x;
        list.add_key(i, EVAL_ORDER_WEIGHT * v);
    }
    if first == list.n {
        return None;
    }
    for i in first..list.n {
        list.add_key(i, EVAL_ORDER_WEIGHT * worst);
    }
    Some(LazyEval { ce, worst, done })
}

/// The value ([`child_value`]) of the child of `(p, o)` after the move `x` of `list`, from
/// the flips and child moves the list holds for it.
#[inline]
fn list_child_value(list: &MoveList, ce: &ChildEval, p: u64, o: u64, x: u32) -> Score {
    let (f, cm) = list.child(x);
    child_value(ce, o ^ f, p ^ f ^ (1 << x), x, f, cm)
}

/// The children [`eval_order`] left unevaluated: their parent's [`ChildEval`], the value
/// their keys hold for now (the worst of the evaluated children's, in discs) and the squares
/// already evaluated.
pub(super) struct LazyEval {
    ce: ChildEval,
    worst: Score,
    done: u64,
}

impl LazyEval {
    /// Replaces the provisional value in the keys of entries `from..n` of `list` (the moves
    /// of `(p, o)`) not yet evaluated by their child's evaluation.
    #[inline]
    pub(super) fn finish(self, list: &mut MoveList, p: u64, o: u64, from: usize) {
        for i in from..list.n {
            let x = list.sq(i);
            if self.done & (1u64 << x) != 0 {
                continue;
            }
            let v = list_child_value(list, &self.ce, p, o, x);
            list.add_key(i, EVAL_ORDER_WEIGHT * (v - self.worst));
        }
    }
}

/// The key of the TT move: before every other key.
pub(super) const FIRST_KEY: i32 = -(1 << 24);

impl MoveList {
    #[inline]
    pub(super) fn new() -> MoveList {
        // Only the two counters are written: a struct literal with uninitialised arrays
        // still gets cleared whole (LLVM merges the stores into one 1,296-byte memset).
        let mut l = MaybeUninit::<MoveList>::uninit();
        let ptr = l.as_mut_ptr();
        // SAFETY: `n`, `has_child_moves` and `has_flips` are written; every other field is an array
        // of `MaybeUninit`, which needs no initialisation.
        unsafe {
            std::ptr::addr_of_mut!((*ptr).n).write(0);
            std::ptr::addr_of_mut!((*ptr).has_child_moves).write(0);
            std::ptr::addr_of_mut!((*ptr).has_flips).write(0);
            l.assume_init()
        }
    }
    /// Appends square `sq` (0–63) with `key` (|key| < 2^24).
    #[inline]
    pub(super) fn push(&mut self, sq: u32, key: i32) {
        self.item[self.n] = MaybeUninit::new(key * 64 + sq as i32);
        self.n += 1;
    }
    /// Packed entry `i` (`i` < `n`).
    #[inline]
    pub(super) fn at(&self, i: usize) -> i32 {
        assert!(i < self.n);
        // SAFETY: entries below `n` were written by `push` (and `sort` only permutes them).
        unsafe { self.item[i].assume_init() }
    }
    /// Square of entry `i`.
    #[inline]
    pub(super) fn sq(&self, i: usize) -> u32 {
        (self.at(i) & 63) as u32
    }
    /// Key of entry `i`.
    #[inline]
    pub(super) fn key(&self, i: usize) -> i32 {
        self.at(i) >> 6
    }
    /// The flips of the move `sq` and the moves of the child it reaches, for a square of
    /// the list keyed by [`Searcher::fastest_first`].
    #[inline]
    pub(super) fn child(&self, sq: u32) -> (u64, u64) {
        assert!(self.has_child_moves & (1u64 << sq) != 0);
        // SAFETY: the bit of `sq` in `has_child_moves` is set only after `flips[sq]` and
        // `child_moves[sq]` were written (in `fastest_first`).
        unsafe {
            (
                self.flips[sq as usize & 63].assume_init(),
                self.child_moves[sq as usize & 63].assume_init(),
            )
        }
    }
    /// Records the flips `f` of the move `sq` and the moves `cm` of the child it reaches,
    /// for [`MoveList::child`].
    #[inline]
    pub(super) fn set_child(&mut self, sq: u32, f: u64, cm: u64) {
        self.flips[sq as usize & 63] = MaybeUninit::new(f);
        self.child_moves[sq as usize & 63] = MaybeUninit::new(cm);
        self.has_child_moves |= 1u64 << sq;
    }
    /// The flips of the move `sq`, for a square whose flips [`Searcher::etc`] left.
    #[inline]
    pub(super) fn flip(&self, sq: u32) -> u64 {
        assert!(self.has_flips & (1u64 << sq) != 0);
        // SAFETY: the bit of `sq` in `has_flips` is set only after `flips[sq]` was written.
        unsafe { self.flips[sq as usize & 63].assume_init() }
    }
    /// Adds `d` to the key of entry `i`.
    #[inline]
    pub(super) fn add_key(&mut self, i: usize, d: i32) {
        self.item[i] = MaybeUninit::new(self.at(i) + d * 64);
    }
    /// The squares from entry `from` on, in list order.
    pub(super) fn squares(&self, from: usize) -> Vec<u32> {
        (from..self.n).map(|i| self.sq(i)).collect()
    }
    /// Moves the entry with the smallest packed value (key, then square) among entries
    /// `i..n` to position `i`. For a list pushed in square order, as by
    /// [`Searcher::fastest_first`], repeated selection gives the order of [`MoveList::sort`].
    #[inline]
    pub(super) fn select(&mut self, i: usize) {
        let mut best = self.at(i);
        let mut at = i;
        for j in i + 1..self.n {
            let v = self.at(j);
            if v < best {
                best = v;
                at = j;
            }
        }
        self.item[at] = self.item[i];
        self.item[i] = MaybeUninit::new(best);
    }
    /// Sorts entries `i..n` by packed value (key, then square).
    pub(super) fn sort_from(&mut self, i: usize) {
        for k in i + 1..self.n {
            let v = self.at(k);
            let mut j = k;
            while j > i && self.at(j - 1) > v {
                self.item[j] = self.item[j - 1];
                j -= 1;
            }
            self.item[j] = MaybeUninit::new(v);
        }
    }
    /// Insertion sort, smallest key first (stable: equal keys keep their order).
    #[inline]
    pub(super) fn sort(&mut self) {
        for i in 1..self.n {
            let k = self.at(i);
            let mut j = i;
            while j > 0 && self.at(j - 1) >> 6 > k >> 6 {
                self.item[j] = self.item[j - 1];
                j -= 1;
            }
            self.item[j] = MaybeUninit::new(k);
        }
    }
}
