//! The exact and WLD endgame solver's null-window search (NWS) below the root (the root and
//! its PVS are in [`crate::search::root`]),
//! fastest-first ordering (weighing the child's evaluation from 12 empties, shallow midgame
//! searches with ProbCut from 17), quadrant parity near the leaves, special code for the last 1–4
//! empties, stability cutoffs (both signs) and the shared transposition table (TT).
//!
//! The structure follows the well-known design of Edax and Zebra (Gunnar Andersson's
//! endgame notes): scores are final disc differences (empties to the winner); WLD is the same
//! search with the window (−1, 1). The methods extend the per-thread [`Searcher`].
//!
//! An exact root solve at [`probcut::MPC_ROOT_EMPTIES`]–[`probcut::MPC_ROOT_MAX_EMPTIES`]
//! empties (to [`probcut::MPC_ROOT_MAX_EMPTIES_LARGE_TT`] with a table of at least
//! [`probcut::MPC_LARGE_TT_BUCKETS`] buckets) first runs selective pre-searches with endgame
//! multi-ProbCut (MPC) at increasing confidence ([`crate::search::probcut`]); they leave best moves,
//! selective bounds (marked by their level in the TT, never trusted by the exact pass) and
//! proven results below
//! [`probcut::MPC_MIN_EMPTIES`] for the final exact pass, and the last one's score centres its
//! aspiration window.

use std::mem::MaybeUninit;
use std::ops::ControlFlow;

use crate::othello::board::{Board, SCORE_INF, Score, neighbours};
use crate::othello::movegen::{flips, flips_near, get_moves, last_flip_count};
use crate::search::leafcache;
use crate::search::movelist::*;
use crate::search::probcut;
use crate::search::profile;
use crate::search::searcher::*;
use crate::search::stability::*;
use crate::search::tt::Bound;

/// Empties at and above which the endgame NWS probes and stores the shared TT; below, down to
/// [`FASTEST_FIRST_EMPTIES`], it keeps its proven bounds in its thread's leaf cache
/// ([`leafcache`]), which stays in the core's L2 cache where nearly every probe of a 1 GiB
/// table waits for memory. With the leaf cache at 6–8 empties and the TT from 9 (against the
/// TT from 8 and no leaf cache), FFO #45, #48, #49, #51, #52 take 7.8 % fewer nodes (1
/// thread, 1 GiB) in 0.976 of the time (farm-bench, 3 pairs), and FFO #50, #57 at `flank
/// solve`'s defaults (2 threads) 0.963 of the time (2 pairs).
pub const TT_MIN_EMPTIES: u32 = 9;
/// Discs beyond the number a stability bound needs stable that the side concerned must own
/// before the 4-empties stability cutoff (`Searcher::stability_cutoff_4`) computes its stable
/// discs. Among the 4-empties nodes of FFO #45 and #51, those with a margin below 6 hold
/// 30–62 % of the computations but 5–14 % of the cutoffs. With 6, FFO #45, #48–#52 (1
/// thread, 1 GiB) take 19.8 % fewer nodes than without the cutoff, and #45, #48, #49, #51,
/// #52 the same time (paired runs); with no margin 20.3 % fewer nodes in about 3 % more time.
pub const STABILITY_MARGIN_4: Score = 6;

/// The margins of the stability cutoff from 5 empties (`Searcher::stability_cutoff`), as
/// [`STABILITY_MARGIN_4`] at 4: the discs beyond the bound's need that the opponent must own
/// before its stable discs are computed for the upper bound (first), and that the side to
/// move must own for the lower bound (second), indexed by empties − 5 (the last entry for 10
/// and more). Each is the smallest margin at which the computations on FFO #45–#52 (1
/// thread, 1 GiB) cut at least 5 % of the time, except the lower bound's 16 at 10 and more
/// empties, where no margin below 24 does. The rates alternate with the empties' parity
/// (lower margins 6, 3, 10, 4, 13): in these solves the side to move at odd empties is mostly
/// the one ahead, whose lower bound seldom cuts. Below these margins two thirds of the
/// computations cut 0–5 % of the time. Against no margin, FFO #40–#49 (1 thread, 1 GiB) take
/// 0.17 % more nodes and FFO #45, #48, #49 0.960 of the time (farm-bench, 4 pairs,
/// 0.904–0.985); upper margins of 8 and lower ones of 12–16 at every empties count take as
/// long with 0.84 % more nodes.
pub const STABILITY_MARGINS: [(Score, Score); 6] =
    [(5, 6), (5, 3), (6, 10), (7, 4), (7, 13), (9, 16)];

/// Empties at and above which moves are sorted fastest-first (below: parity ordering). From
/// 6 rather than 7, FFO #55 takes 17.3 % fewer nodes (its 6-empties nodes are mostly CUT
/// nodes, where the order counts) in the same time (1 thread, 1 GiB, paired: 1.013), and
/// FFO #45, #48, #49, #51, #52 2–16 % fewer in the same time (0.982, 0.943–1.036).
pub const FASTEST_FIRST_EMPTIES: u32 = 6;
/// Empties at and above which the root solve uses an aspiration window.
pub const ASPIRATION_SOLVE_EMPTIES: u32 = 16;

/// Empties at and above which the NWS tries an enhanced transposition cutoff.
pub const ETC_EMPTIES: u32 = 10;

/// Empties at and above which moves are ordered by a shallow midgame search (below, down to
/// [`FASTEST_FIRST_EMPTIES`], fastest-first with the evaluation of [`EVAL_ORDER_EMPTIES`]).
/// 17 rather than 16 goes with the deeper [`order_depth`] schedule and [`ORDER_MPC_T`].
pub const SEARCH_ORDER_EMPTIES: u32 = 17;

/// Empties at and above which the exact pass skips the ordering searches (fastest-first
/// instead) at a node whose selective TT bound (from the MPC pre-searches) is at or below
/// alpha: an expected ALL node, whose moves are all searched whatever their order. FFO
/// #40–#48 (1 thread, 256 MiB) −1.3 % nodes; from 16 it cost 0.4–0.7 % on roots of 18–21
/// empties (the ordering searches are 3+ plies from 19).
pub const EXPECT_ALL_EMPTIES: u32 = 19;

/// Empties at and above which (up to [`SEARCH_ORDER_EMPTIES`]) the fastest-first keys also
/// weigh the child's static evaluation, `EVAL_ORDER_WEIGHT` (8) key units per disc (one
/// opponent move is 64), as Edax's `movelist_evaluate` mixes evaluation and mobility. On FFO
/// #40–#48 (1 thread, 256 MiB) 522.3 M → 473.3 M nodes (−9.4 %), #45–#52 2,841 M → 2,562 M
/// (−9.8 %), time about the same (the evaluations cost what the nodes saved); from 11
/// empties −12.4 % nodes but +31 % time; weights 6–11 within 0.3 % of each other.
pub const EVAL_ORDER_EMPTIES: u32 = 12;

/// Depth in plies of the ordering searches from [`SEARCH_ORDER_EMPTIES`] (17) empties: 2 at
/// 17, 3 at 18, 4 at 19, 5 at 20–22, 6 at 23–26, 7 from 27 (it saves nodes and, with the
/// ProbCut of [`ORDER_MPC_T`], time; 8 plies from 29 does not pay). Below 17 (no ordering
/// search) 1.
pub fn order_depth(empties: u32) -> i32 {
    match empties {
        0..SEARCH_ORDER_EMPTIES => 1,
        17 => 2,
        18 => 3,
        19 => 4,
        20..23 => 5,
        23..27 => 6,
        _ => 7,
    }
}

/// Confidence `t` (standard deviations) of the midgame multi-ProbCut inside the solver's
/// ordering searches (`Searcher::search_order`; the calibration of the active evaluation,
/// none with `--eval classic`). The ordering needs only an estimate, so its searches cut as
/// the midgame search does; the exact result never depends on it. With the deeper
/// [`order_depth`] (up to 6 plies instead of 4), FFO #45–#52 (1 thread, 1 GiB) 2,698.7 M →
/// 1,928.6 M nodes (without the ProbCut 1,951.4 M) in 17 % less time (7 % without); `t`
/// 1.0 and 2.0 within 1 % of 1.5 in nodes.
pub const ORDER_MPC_T: f64 = 1.5;

/// Empties at and above which a parallel NWS node splits its moves after the first (YBWC).
/// Splits nearer the leaves cost more (a rayon task, a helper searcher and a cutoff flag
/// each) than they share: FFO #50 and #57 at 2 threads take the same nodes from 12 to 18
/// and 0.931 of the time at 16 against 12 (farm-bench, 3 pairs; single runs at 14–18
/// alike, at 10 slower still).
pub const SPLIT_EMPTIES: u32 = 16;

/// Plies at and above which a node of the parallel midgame search splits its moves after the
/// first (YBWC, [`Searcher::set_mid_split`]).
pub const MID_SPLIT_DEPTH: i32 = 4;

pub(super) const X_AND_C: u64 = 0x42C3_0000_0000_C342;
/// Move priority groups for parity ordering: corners, then plain squares, then X/C-squares.
pub(super) const PRIORITY: [u64; 3] = [CORNERS, !(CORNERS | X_AND_C), X_AND_C];
/// The four 4×4 quadrants (a1–d4, e1–h4, a5–d8, e5–h8), the reference for [`odd_quadrants`].
#[cfg(test)]
pub(super) const QUADRANTS: [u64; 4] = [
    0x0000_0000_0F0F_0F0F,
    0x0000_0000_F0F0_F0F0,
    0x0F0F_0F0F_0000_0000,
    0xF0F0_F0F0_0000_0000,
];

/// Union of the quadrants that hold an odd number of empties (quadrant parity). Without
/// popcounts: the xor-folds put each quadrant's parity in the bit of its a1-most square
/// (a1, e1, a5, e5: columns folded by 1 and 2, rows by 8 and 16), and a multiply spreads each
/// such bit over its quadrant.
#[inline]
pub fn odd_quadrants(empty: u64) -> u64 {
    let mut x = empty ^ (empty >> 1);
    x ^= x >> 2;
    x ^= x >> 8;
    x ^= x >> 16;
    (x & 0x0000_0011_0000_0011).wrapping_mul(0x0F0F_0F0F)
}

impl Searcher {
    /// Score with one empty square `x`: direct flip counting, no make-move.
    #[inline(always)]
    pub(super) fn last1(&mut self, p: u64, o: u64, x: u32) -> Score {
        self.nodes += 1;
        let pc = p.count_ones() as Score;
        // Every square but `x` is filled, so a count is 0 when no opponent disc touches `x`.
        let n = last_flip_count(p, x);
        if n != 0 {
            return 2 * (pc + n as Score + 1) - 64;
        }
        let n = last_flip_count(o, x);
        if n != 0 {
            return 2 * (pc - n as Score) - 64;
        }
        let d = 2 * pc - 63;
        if d > 0 { d + 1 } else { d - 1 }
    }

    /// NWS (alpha, alpha + 1) with two empties `x1`, `x2`.
    #[inline(always)]
    pub(super) fn last2(&mut self, p: u64, o: u64, alpha: Score, x1: u32, x2: u32) -> Score {
        self.nodes += 1;
        let mut best = -SCORE_INF;
        let f = flips_near(p, o, x1);
        if f != 0 {
            best = -self.last1(o ^ f, p ^ f ^ (1 << x1), x2);
            if best > alpha {
                return best;
            }
        }
        let f = flips_near(p, o, x2);
        if f != 0 {
            return best.max(-self.last1(o ^ f, p ^ f ^ (1 << x2), x1));
        }
        if best > -SCORE_INF {
            return best;
        }
        // The side to move passes: the opponent minimises.
        self.nodes += 1;
        let mut best = SCORE_INF;
        let f = flips_near(o, p, x1);
        if f != 0 {
            best = self.last1(p ^ f, o ^ f ^ (1 << x1), x2);
            if best <= alpha {
                return best;
            }
        }
        let f = flips_near(o, p, x2);
        if f != 0 {
            return best.min(self.last1(p ^ f, o ^ f ^ (1 << x2), x1));
        }
        if best < SCORE_INF {
            return best;
        }
        Board {
            player: p,
            opponent: o,
        }
        .final_score()
    }

    /// NWS with three empties, odd-quadrant squares first.
    pub(super) fn last3(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        x1: u32,
        x2: u32,
        x3: u32,
    ) -> Score {
        self.last3_inline(p, o, alpha, x1, x2, x3)
    }

    /// [`Searcher::last3`] inlined into [`Searcher::last4`]'s move loop (a call per 3-empties
    /// node costs a prologue saving 6 registers).
    #[inline(always)]
    pub(super) fn last3_inline(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        x1: u32,
        x2: u32,
        x3: u32,
    ) -> Score {
        // Two squares share a quadrant when their indices agree in bits 2 (column ≥ 4) and
        // 5 (row ≥ 4); the square alone in its quadrant (an odd one) goes first.
        let same = |a: u32, b: u32| (a ^ b) & 0b10_0100 == 0;
        let (x1, x2, x3) = if same(x1, x2) && !same(x1, x3) {
            (x3, x1, x2)
        } else if same(x1, x3) && !same(x1, x2) {
            (x2, x1, x3)
        } else {
            (x1, x2, x3)
        };
        self.last3_ordered(p, o, alpha, x1, x2, x3, true)
    }

    /// The 3-empties NWS after the side to move passed: not inlined (rare).
    #[inline(never)]
    pub(super) fn last3_passed(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        x1: u32,
        x2: u32,
        x3: u32,
    ) -> Score {
        self.last3_ordered(p, o, alpha, x1, x2, x3, false)
    }

    /// NWS with the three empties `x1`, `x2`, `x3` tried in that order; `may_pass` false
    /// after a pass (a second pass ends the game).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn last3_ordered(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        x1: u32,
        x2: u32,
        x3: u32,
        may_pass: bool,
    ) -> Score {
        self.nodes += 1;
        let mut best = -SCORE_INF;
        macro_rules! try_move {
            ($x:expr, $a:expr, $b:expr) => {
                let f = flips_near(p, o, $x);
                if f != 0 {
                    let v = -self.last2(o ^ f, p ^ f ^ (1 << $x), -alpha - 1, $a, $b);
                    if v > alpha {
                        return v;
                    }
                    best = best.max(v);
                }
            };
        }
        try_move!(x1, x2, x3);
        try_move!(x2, x1, x3);
        try_move!(x3, x1, x2);
        if best > -SCORE_INF {
            return best;
        }
        if may_pass && get_moves(o, p) != 0 {
            return -self.last3_passed(o, p, -alpha - 1, x1, x2, x3);
        }
        Board {
            player: p,
            opponent: o,
        }
        .final_score()
    }

    /// NWS with four empties, odd-quadrant squares first, after the
    /// [`Searcher::stability_cutoff_4`].
    pub(super) fn last4(&mut self, p: u64, o: u64, alpha: Score, may_pass: bool) -> Score {
        let _profile = profile::enter(4);
        self.nodes += 1;
        // After a pass the cutoff is the one that just failed, seen from the other side.
        if may_pass && let Some(s) = self.stability_cutoff_4(p, o, alpha) {
            return s;
        }
        let empty = !(p | o);
        let in_odd = empty & odd_quadrants(empty);
        // Odd-quadrant squares first, each group in square order. With 4 empties the odd
        // quadrants hold none, all, or (quadrant sizes 2, 1, 1) two of them: only the last
        // case reorders.
        let (first, second) = if in_odd == 0 || in_odd == empty {
            (empty, 0)
        } else {
            (in_odd, empty & !in_odd)
        };
        let e1 = first & (first - 1);
        let (x1, x2) = (first.trailing_zeros(), e1.trailing_zeros());
        let rest = (e1 & (e1 - 1)) | second;
        let e3 = rest & (rest - 1);
        let xs = [x1, x2, rest.trailing_zeros(), e3.trailing_zeros()];
        let mut best = -SCORE_INF;
        for i in 0..4 {
            let x = xs[i];
            let f = flips_near(p, o, x);
            if f != 0 {
                let r: [u32; 3] = match i {
                    0 => [xs[1], xs[2], xs[3]],
                    1 => [xs[0], xs[2], xs[3]],
                    2 => [xs[0], xs[1], xs[3]],
                    _ => [xs[0], xs[1], xs[2]],
                };
                let v = -self.last3_inline(o ^ f, p ^ f ^ (1 << x), -alpha - 1, r[0], r[1], r[2]);
                if v > best {
                    best = v;
                    if v > alpha {
                        return v;
                    }
                }
            }
        }
        if best > -SCORE_INF {
            return best;
        }
        if may_pass && get_moves(o, p) != 0 {
            return -self.last4(o, p, -alpha - 1, false);
        }
        Board {
            player: p,
            opponent: o,
        }
        .final_score()
    }

    /// The NWS of a node whose side to move has no move: the opponent's NWS after a pass
    /// (`may_pass` false stops a second pass), or the final score if neither side can move.
    #[inline]
    pub(super) fn nws_no_move(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        empties: u32,
        may_pass: bool,
    ) -> Score {
        if may_pass {
            let om = get_moves(o, p);
            if om != 0 {
                return -self.nws_with_moves(o, p, om, -alpha - 1, empties, false);
            }
        }
        Board {
            player: p,
            opponent: o,
        }
        .final_score()
    }

    /// Stability cutoff for an NWS at alpha: `Some(bound)` if the opponent's stable discs
    /// already prove the score ≤ alpha (an upper bound), or the side to move's stable discs
    /// prove it > alpha (a lower bound), at a node of `empties` (≥ 5) empties; each bound is
    /// computed only when the side concerned owns the margin of [`STABILITY_MARGINS`] beyond
    /// the stable discs it needs, the upper bound only at alpha ≥ 0 and the lower only at
    /// alpha < 0 (unlike the 4-empties cutoff, [`Searcher::stability_cutoff_4`]).
    ///
    /// With s stable discs a side ends with at least s discs, so its final score is at least
    /// 2s − 64 (empties go to the winner); the opponent's s stable discs cap the score at
    /// 64 − 2s. The upper-bound test is Edax's; the lower-bound one matters when the side to
    /// move is losing heavily, above all in wipeout proofs (a window just below +64, as in
    /// FFO #59), where every defender node is refuted by one stable disc instead of a search
    /// of its replies.
    #[inline]
    pub(super) fn stability_cutoff(
        &self,
        p: u64,
        o: u64,
        alpha: Score,
        empties: u32,
    ) -> Option<Score> {
        let (upper_margin, lower_margin) =
            STABILITY_MARGINS[(empties.max(5) as usize - 5).min(STABILITY_MARGINS.len() - 1)];
        // The best possible score is 64 − 2 × (opponent's stable discs) ≤ 64 − 2 × (a count
        // we only know after computing): computed only when the opponent owns at least
        // `upper_margin` discs more than a cut needs stable.
        let o_count = o.count_ones() as Score;
        let try_upper = alpha >= 64 - 2 * (o_count - upper_margin) && alpha >= 0;
        // Symmetrically, the worst possible score is 2 × (own stable discs) − 64.
        let p_count = p.count_ones() as Score;
        let try_lower = alpha < 2 * (p_count - lower_margin) - 64 && alpha < 0;
        self.stability_bound(p, o, alpha, try_upper, try_lower)
    }

    /// The bounds of the stability cutoffs at alpha, each computed only if asked for: with
    /// `try_upper` the upper bound 64 − 2s of the opponent's s stable discs if it is ≤ alpha,
    /// else with `try_lower` the lower bound 2s − 64 of the side to move's if it is > alpha.
    #[inline(always)]
    fn stability_bound(
        &self,
        p: u64,
        o: u64,
        alpha: Score,
        try_upper: bool,
        try_lower: bool,
    ) -> Option<Score> {
        if try_upper {
            let upper = 64 - 2 * stable_discs(o, p).count_ones() as Score;
            if upper <= alpha {
                return Some(upper);
            }
        }
        if try_lower {
            let lower = 2 * stable_discs(p, o).count_ones() as Score - 64;
            if lower > alpha {
                return Some(lower);
            }
        }
        None
    }

    /// The stability cutoff of a 4-empties NWS ([`Searcher::last4`]): the bounds of
    /// [`Searcher::stability_cutoff`], tried whatever alpha's sign once the side whose stable
    /// discs would make the bound owns at least [`STABILITY_MARGIN_4`] more discs than the
    /// bound needs stable. On a board this full most discs are stable: the cutoff saves a fifth
    /// of the nodes of some positions (FFO #45, #50) and 3 % of others (#44, #55), and the
    /// margin skips the computations that seldom cut.
    #[inline]
    pub(super) fn stability_cutoff_4(&self, p: u64, o: u64, alpha: Score) -> Option<Score> {
        // The upper bound 64 − 2s ≤ alpha needs s ≥ (64 − alpha) / 2 stable opponent discs,
        // the lower bound 2s − 64 > alpha needs s > (alpha + 64) / 2 own stable discs.
        let o_count = o.count_ones() as Score;
        let p_count = p.count_ones() as Score;
        let try_upper = alpha >= 64 - 2 * (o_count - STABILITY_MARGIN_4);
        let try_lower = alpha < 2 * (p_count - STABILITY_MARGIN_4) - 64;
        self.stability_bound(p, o, alpha, try_upper, try_lower)
    }

    /// Exact NWS below [`FASTEST_FIRST_EMPTIES`]: parity ordering, no TT.
    pub(super) fn nws_parity(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        empties: u32,
        may_pass: bool,
    ) -> Score {
        if empties <= 4 {
            return self.nws_last_empties(p, o, alpha, empties);
        }
        self.nws_parity_with_moves(p, o, get_moves(p, o), alpha, empties, may_pass)
    }

    /// [`Searcher::nws_parity`] at 5 empties (below [`FASTEST_FIRST_EMPTIES`]) given the moves
    /// `moves` of `(p, o)`.
    pub(super) fn nws_parity_with_moves(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        alpha: Score,
        empties: u32,
        may_pass: bool,
    ) -> Score {
        let _profile = profile::enter(empties);
        self.nodes += 1;
        if moves == 0 {
            return self.nws_no_move(p, o, alpha, empties, may_pass);
        }
        if let Some(s) = self.stability_cutoff(p, o, alpha, empties) {
            return s;
        }
        let odd = odd_quadrants(!(p | o));
        let mut best = -SCORE_INF;
        for par in [odd, !odd] {
            for pr in PRIORITY {
                let mut m = moves & par & pr;
                while m != 0 {
                    let x = m.trailing_zeros();
                    m &= m - 1;
                    let f = flips(p, o, x);
                    let v =
                        -self.nws_parity(o ^ f, p ^ f ^ (1 << x), -alpha - 1, empties - 1, true);
                    if v > best {
                        best = v;
                        if v > alpha {
                            return v;
                        }
                    }
                }
            }
        }
        best
    }

    /// NWS with 0–4 empties.
    #[inline]
    pub(super) fn nws_last_empties(&mut self, p: u64, o: u64, alpha: Score, empties: u32) -> Score {
        let empty = !(p | o);
        match empties {
            0 => {
                self.nodes += 1;
                Board {
                    player: p,
                    opponent: o,
                }
                .final_score()
            }
            1 => self.last1(p, o, empty.trailing_zeros()),
            2 => {
                let x1 = empty.trailing_zeros();
                let x2 = (empty & (empty - 1)).trailing_zeros();
                self.last2(p, o, alpha, x1, x2)
            }
            3 => {
                let x1 = empty.trailing_zeros();
                let e = empty & (empty - 1);
                let x2 = e.trailing_zeros();
                let x3 = (e & (e - 1)).trailing_zeros();
                self.last3(p, o, alpha, x1, x2, x3)
            }
            _ => self.last4(p, o, alpha, true),
        }
    }

    /// Orders the moves of `(p, o)` fastest-first: fewest opponent replies (corners counted
    /// twice), then fewest opponent potential mobility; the TT move `tt_move` first. With
    /// `FLIPS_KNOWN` the flips of the moves are read from `list` (left there by
    /// [`Searcher::etc`]) instead of computed.
    #[inline]
    pub(super) fn fastest_first<const FLIPS_KNOWN: bool>(
        &self,
        list: &mut MoveList,
        p: u64,
        o: u64,
        moves: u64,
        tt_move: Option<u8>,
    ) {
        // The counters stay in registers; the list's are written once at the end.
        let empty = !(p | o);
        let odd = odd_quadrants(empty);
        let mut n = 0usize;
        let mut written = 0u64;
        let mut m = moves;
        // The TT move is listed first: with its unique key the order is that of pushing the
        // moves in square order (`select` and the stable `sort` order by key, then square).
        if let Some(t) = tt_move
            && moves & (1u64 << t) != 0
        {
            list.item[0] = MaybeUninit::new(FIRST_KEY * 64 + t as i32);
            n = 1;
            m &= !(1u64 << t);
        }
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let f = if FLIPS_KNOWN {
                list.flip(x)
            } else {
                let f = flips(p, o, x);
                list.flips[x as usize & 63] = MaybeUninit::new(f);
                f
            };
            let np = o ^ f;
            let no = p ^ f ^ (1 << x);
            let om = get_moves(np, no);
            list.child_moves[x as usize & 63] = MaybeUninit::new(om);
            written |= 1u64 << x;
            let pot = (neighbours(no) & empty & !(1u64 << x)).count_ones() as i32;
            let mut k = 64 * (om.count_ones() + (om & CORNERS).count_ones()) as i32 + 6 * pot;
            if (1u64 << x) & odd != 0 {
                k -= 16;
            }
            if (1u64 << x) & CORNERS != 0 {
                k -= 48;
            }
            list.item[n & 63] = MaybeUninit::new(k * 64 + x as i32);
            n += 1;
        }
        list.n = n;
        list.has_child_moves |= written;
    }

    /// Enhanced transposition cutoff (ETC): if the TT proves some child scores ≤ −alpha − 1
    /// for its side to move, this node fails high without a search: `Break` with that bound.
    /// Else `Continue((skip, low, low_move))`: `skip` holds the moves whose child the TT
    /// proves cannot raise alpha (they need no search), `low` the highest of their upper
    /// bounds (−[`SCORE_INF`] if none) and `low_move` its move (64 if none). The flips of
    /// every move are left in `list` (its `flips`, marked in `has_flips`).
    pub(super) fn etc(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        alpha: Score,
        list: &mut MoveList,
    ) -> ControlFlow<Score, (u64, Score, u32)> {
        // All the children's buckets are requested from memory first, then probed.
        let mut children = [MaybeUninit::<(Board, usize, u32)>::uninit(); 64];
        let mut n = 0;
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let f = flips(p, o, x);
            list.flips[x as usize & 63] = MaybeUninit::new(f);
            let c = Board {
                player: o ^ f,
                opponent: p ^ f ^ (1 << x),
            };
            let slot = self.tt.bucket_start(&c);
            self.tt.prefetch_at(slot);
            children[n & 63] = MaybeUninit::new((c, slot, x));
            n += 1;
        }
        list.has_flips = moves;
        let mut skip = 0u64;
        let mut low = -SCORE_INF;
        let mut low_move = 64;
        for c in &children[..n.min(64)] {
            // SAFETY: the first `n` entries were written just above.
            let (c, slot, x) = unsafe { c.assume_init_ref() };
            if let Some(e) = self.tt.probe_at(*slot, c)
                && e.solved
                && e.selectivity <= self.selectivity
            {
                if -e.upper > alpha {
                    return ControlFlow::Break(-e.upper);
                }
                if -e.lower <= alpha {
                    skip |= 1u64 << x;
                    if -e.lower > low {
                        low = -e.lower;
                        low_move = *x;
                    }
                }
            }
        }
        ControlFlow::Continue((skip, low, low_move))
    }

    /// Move ordering at high empties: fastest-first keys plus a shallow midgame search of
    /// each child ([`order_depth`] plies: 2 at 17 empties up to 7 from 27, with the midgame
    /// ProbCut of the solver's weights at [`ORDER_MPC_T`]), as Edax does far from the leaves;
    /// TT move first. Under [`Searcher::with_solver_eval`], as every solve is.
    pub(super) fn search_order(
        &mut self,
        list: &mut MoveList,
        b: &Board,
        moves: u64,
        tt_move: Option<u8>,
        empties: u32,
    ) {
        self.fastest_first::<false>(list, b.player, b.opponent, moves, tt_move);
        list.sort();
        let depth = order_depth(empties);
        let w = 128;
        // The ordering searches cut with the midgame ProbCut (the caller's setting returns).
        let saved = self.mid_mpc;
        self.mid_mpc = self.eval.mpc().map(|table| (table, ORDER_MPC_T));
        for i in 0..list.n {
            if list.key(i) == FIRST_KEY {
                continue;
            }
            let x = list.sq(i);
            let c = b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x));
            let (v, _) =
                self.mid_pvs_node(c.player, c.opponent, -SCORE_INF, SCORE_INF, depth, true);
            list.add_key(i, w * v);
        }
        self.mid_mpc = saved;
        list.sort();
    }

    /// Exact null-window search: is the score of `b` (with `empties` empties) above `alpha`?
    /// Fail-soft: returns a value ≤ alpha (an upper bound) or > alpha (a lower bound).
    pub fn nws(&mut self, b: &Board, alpha: Score, empties: u32) -> Score {
        self.with_solver_eval(|s| s.nws_node(b.player, b.opponent, alpha, empties, true))
    }

    pub(super) fn nws_node(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        empties: u32,
        may_pass: bool,
    ) -> Score {
        if empties <= 4 {
            return self.nws_last_empties(p, o, alpha, empties);
        }
        self.nws_with_moves(p, o, get_moves(p, o), alpha, empties, may_pass)
    }

    /// [`Searcher::nws_node`] at ≥ 5 empties given the moves `moves` of `(p, o)` (often known
    /// from the parent's fastest-first ordering).
    pub(super) fn nws_with_moves(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        alpha: Score,
        empties: u32,
        may_pass: bool,
    ) -> Score {
        if empties < FASTEST_FIRST_EMPTIES {
            return self.nws_parity_with_moves(p, o, moves, alpha, empties, may_pass);
        }
        let _profile = profile::enter(empties);
        self.nodes += 1;
        if self.check_stop() {
            return 0;
        }
        if moves == 0 {
            return self.nws_no_move(p, o, alpha, empties, may_pass);
        }
        if let Some(s) = self.stability_cutoff(p, o, alpha, empties) {
            return s;
        }
        let use_tt = empties >= TT_MIN_EMPTIES;
        if !use_tt && let Some((lower, upper)) = leafcache::probe(p, o, self.leaf_epoch) {
            if lower > alpha {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
        }
        let b = Board {
            player: p,
            opponent: o,
        };
        let slot = if use_tt { self.tt.bucket_start(&b) } else { 0 };
        let mut tt_move = None;
        // A selective bound (not trusted here) predicting a fail-low: an expected ALL node,
        // whose moves are all searched whatever their order (see EXPECT_ALL_EMPTIES).
        let mut expect_all = false;
        if use_tt && let Some(e) = self.tt.probe_at(slot, &b) {
            if e.solved && e.selectivity <= self.selectivity {
                if e.lower > alpha {
                    return e.lower;
                }
                if e.upper <= alpha {
                    return e.upper;
                }
            }
            expect_all = self.selectivity == 0
                && e.solved
                && e.upper <= alpha
                && empties >= EXPECT_ALL_EMPTIES;
            tt_move = e.best.filter(|&m| moves & (1u64 << m) != 0);
        }
        let mut list = MoveList::new();
        let etc = empties >= ETC_EMPTIES;
        let mut best = -SCORE_INF;
        let mut best_move = 0;
        let mut moves = moves;
        if etc {
            match self.etc(p, o, moves, alpha, &mut list) {
                ControlFlow::Break(v) => return v,
                ControlFlow::Continue((skip, low, low_move)) => {
                    if skip != 0 {
                        best = low;
                        best_move = low_move;
                        moves &= !skip;
                        tt_move = tt_move.filter(|&m| moves & (1u64 << m) != 0);
                        if moves == 0 {
                            if use_tt {
                                self.store_solved(slot, &b, best, Bound::Upper, empties, best_move);
                            }
                            return best;
                        }
                    }
                }
            }
        }
        if self.selectivity != 0
            && empties >= probcut::MPC_MIN_EMPTIES
            && let Some((v, bound)) = self.probcut(p, o, alpha, empties)
        {
            if use_tt {
                self.tt
                    .store_sel_at(slot, &b, v, bound, empties, tt_move, true, self.selectivity);
            }
            return v;
        }
        let mut rest = moves;
        // The TT move first, before the other moves are ordered: at a cut node it usually
        // suffices, and the ordering work (shallow searches at high empties) is saved.
        if let Some(m) = tt_move
            && moves & (moves - 1) != 0
        {
            let x = m as u32;
            let f = if etc { list.flip(x) } else { flips(p, o, x) };
            let v = -self.nws_node(o ^ f, p ^ f ^ (1 << x), -alpha - 1, empties - 1, true);
            if v > best {
                best = v;
                best_move = x;
            }
            rest &= !(1u64 << x);
        }
        if best > alpha || self.stopped {
            // Cut off by the TT move (or stopped: nothing is stored below).
        } else if rest & (rest - 1) == 0 {
            let x = rest.trailing_zeros();
            let f = if etc { list.flip(x) } else { flips(p, o, x) };
            let v = -self.nws_node(o ^ f, p ^ f ^ (1 << x), -alpha - 1, empties - 1, true);
            if v > best {
                best = v;
                best_move = x;
            }
        } else {
            // A fastest-first list is not sorted: each next move is selected when needed
            // (most nodes search one or two moves; the selection has no data-dependent
            // branches, unlike an insertion sort).
            let select = empties < SEARCH_ORDER_EMPTIES || expect_all;
            let mut lazy = None;
            if select {
                if etc {
                    self.fastest_first::<true>(&mut list, p, o, rest, None);
                } else {
                    self.fastest_first::<false>(&mut list, p, o, rest, None);
                }
                if empties >= EVAL_ORDER_EMPTIES {
                    lazy = eval_order(&mut list, self.eval, p, o, empties);
                }
            } else {
                self.search_order(&mut list, &b, rest, None, empties);
            }
            // YBWC: split once one move (the TT move, else the first listed) has been searched.
            let split_at = if rest == moves { 1 } else { 0 };
            let splits = self.split && empties >= SPLIT_EMPTIES;
            for i in 0..list.n {
                // A move failed to cut (the first listed, or the TT move before a split): the
                // children not yet evaluated are, before the next is chosen.
                if (i == 1 || (splits && i == split_at))
                    && let Some(lazy) = lazy.take()
                {
                    lazy.finish(&mut list, p, o, i);
                }
                if select {
                    list.select(i);
                }
                if i == split_at && splits {
                    if select {
                        list.sort_from(i);
                    }
                    if let Some((v, x)) = self.nws_split(p, o, alpha, empties, &list.squares(i))
                        && v > best
                    {
                        best = v;
                        best_move = x;
                    }
                    break;
                }
                let x = list.sq(i);
                let (f, cm) = list.child(x);
                let (cp, co) = (o ^ f, p ^ f ^ (1 << x));
                // At 6 empties straight to the 5-empties search (nws_with_moves's frame is large).
                let v = if empties - 1 < FASTEST_FIRST_EMPTIES {
                    -self.nws_parity_with_moves(cp, co, cm, -alpha - 1, empties - 1, true)
                } else {
                    -self.nws_with_moves(cp, co, cm, -alpha - 1, empties - 1, true)
                };
                if v > best {
                    best = v;
                    best_move = x;
                    if v > alpha {
                        break;
                    }
                }
            }
        }
        if self.stopped {
            return 0;
        }
        let bound = if best > alpha {
            Bound::Lower
        } else {
            Bound::Upper
        };
        if use_tt {
            self.store_solved(slot, &b, best, bound, empties, best_move);
        } else {
            leafcache::store(p, o, self.leaf_epoch, best, bound);
        }
        best
    }

    /// Stores a searched result of the solver (bucket `slot` of `b`, `empties` empties) with
    /// the selectivity [`Searcher::store_selectivity`] gives it.
    #[inline]
    pub(super) fn store_solved(
        &self,
        slot: usize,
        b: &Board,
        best: Score,
        bound: Bound,
        empties: u32,
        best_move: u32,
    ) {
        self.tt.store_sel_at(
            slot,
            b,
            best,
            bound,
            empties,
            Some(best_move as u8),
            true,
            self.store_selectivity(empties),
        );
    }

    /// The [`crate::search::tt::TtEntry::selectivity`] of a result at `empties`: the pass's level,
    /// except below [`probcut::MPC_MIN_EMPTIES`], where no ProbCut can have cut the subtree
    /// (and only such entries were trusted), so the result is proven.
    #[inline]
    pub(super) fn store_selectivity(&self, empties: u32) -> u8 {
        if empties >= probcut::MPC_MIN_EMPTIES {
            self.selectivity
        } else {
            0
        }
    }

    /// Multi-ProbCut at a null-window node (alpha, alpha + 1) of `(p, o)` in a selective pass:
    /// the static evaluation chooses the test; a shallow search of
    /// [`probcut::shallow_depth`] plies at least `alpha + 1 + margin` fails the node high
    /// (returns alpha + 1, a lower bound), one at most `alpha - margin` fails it low (returns
    /// alpha, an upper bound); the margin is `t * sigma` of [`probcut::margin`]. `None` if
    /// neither.
    pub(super) fn probcut(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        empties: u32,
    ) -> Option<(Score, Bound)> {
        let depth = probcut::shallow_depth(empties);
        let margin = probcut::margin(self.selectivity, empties, depth)?;
        let beta = alpha + 1;
        let eval = self.eval.evaluate(&Board {
            player: p,
            opponent: o,
        });
        if eval >= beta {
            let bound = beta + margin;
            if bound > 64 {
                return None;
            }
            let v = if depth == 0 {
                eval
            } else {
                self.mid_pvs_node(p, o, bound - 1, bound, depth, true).0
            };
            (v >= bound && !self.stopped).then_some((beta, Bound::Lower))
        } else {
            let bound = alpha - margin;
            if bound < -64 {
                return None;
            }
            let v = if depth == 0 {
                eval
            } else {
                self.mid_pvs_node(p, o, bound, bound + 1, depth, true).0
            };
            (v <= bound && !self.stopped).then_some((alpha, Bound::Upper))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tt::TranspositionTable;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn stability_cutoff_bounds_both_ways() {
        // The side to move owns rows 1–4 (32 discs, all stable: full rows on the first row's
        // edge), the opponent rows 6–7; rows 5 and 8 are empty (16 empties). The mover ends
        // with at least 32 discs: no NWS below 2 × 32 − 64 = 0 can fail low.
        let p = 0x0000_0000_FFFF_FFFF;
        let o = 0x00FF_FF00_0000_0000;
        let s = Searcher::new(
            Arc::new(TranspositionTable::new(1)),
            Arc::new(AtomicBool::new(false)),
            None,
        );
        assert_eq!(stable_discs(p, o), p);
        let (upper_margin, lower_margin) = STABILITY_MARGINS[STABILITY_MARGINS.len() - 1];
        // The lower bound is computed when the mover owns `lower_margin` discs more than a
        // cut needs stable (a cut at alpha needs (alpha + 64) / 2 + 1).
        let last_tried = 2 * (32 - lower_margin) - 64 - 1;
        assert_eq!(s.stability_cutoff(p, o, last_tried, 16), Some(0));
        assert_eq!(s.stability_cutoff(p, o, -60, 16), Some(0));
        assert_eq!(s.stability_cutoff(p, o, last_tried + 1, 16), None);
        assert_eq!(s.stability_cutoff(p, o, 0, 16), None);
        // Seen from the other side, the same discs cap the score at 64 − 2 × 32 = 0, tried
        // once alpha ≥ 64 − 2 × (32 − upper_margin).
        let first_tried = 64 - 2 * (32 - upper_margin);
        assert_eq!(s.stability_cutoff(o, p, first_tried, 16), Some(0));
        assert_eq!(s.stability_cutoff(o, p, 60, 16), Some(0));
        assert_eq!(s.stability_cutoff(o, p, first_tried - 1, 16), None);
        assert_eq!(s.stability_cutoff(o, p, -1, 16), None);
    }

    /// Exact negamax score of `(p, o)` (for the tests: no pruning).
    fn negamax(p: u64, o: u64, passed: bool) -> Score {
        let moves = get_moves(p, o);
        if moves == 0 {
            if passed {
                return Board {
                    player: p,
                    opponent: o,
                }
                .final_score();
            }
            return -negamax(o, p, true);
        }
        let mut best = -SCORE_INF;
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let f = flips(p, o, x);
            best = best.max(-negamax(o ^ f, p ^ f ^ (1 << x), false));
        }
        best
    }

    #[test]
    fn last4_with_its_stability_cutoff_agrees_with_negamax() {
        let mut s = Searcher::new(
            Arc::new(TranspositionTable::new(1)),
            Arc::new(AtomicBool::new(false)),
            None,
        );
        let (mut uppers, mut lowers) = (0, 0);
        for (i, (a, b)) in crate::othello::board::random_bitboard_pairs(3_000)
            .into_iter()
            .enumerate()
        {
            // Four empties; the other 60 squares split between the sides, lopsided one way
            // or the other so that both bounds of the cutoff occur.
            let mut empty = 0u64;
            let mut r = a ^ b.rotate_left(17);
            while empty.count_ones() < 4 {
                empty |= 1 << (r & 63);
                r = r.rotate_left(7) ^ (r >> 3);
            }
            let mine = if i % 2 == 0 { a | b } else { a & b };
            let (p, o) = (mine & !empty, !mine & !empty);
            let exact = negamax(p, o, false);
            for alpha in (-64..64).step_by(3) {
                // Fail-soft: a value at or below alpha is an upper bound, above it a lower one.
                let v = s.last4(p, o, alpha, true);
                if v > alpha {
                    assert!(exact >= v, "{p:x} {o:x} alpha {alpha}: {v} > exact {exact}");
                } else {
                    assert!(exact <= v, "{p:x} {o:x} alpha {alpha}: {v} < exact {exact}");
                }
                match s.stability_cutoff_4(p, o, alpha) {
                    Some(c) if c > alpha => {
                        assert!(exact >= c, "{p:x} {o:x}: lower bound {c}, exact {exact}");
                        lowers += 1;
                    }
                    Some(c) => {
                        assert!(exact <= c, "{p:x} {o:x}: upper bound {c}, exact {exact}");
                        uppers += 1;
                    }
                    None => {}
                }
            }
        }
        assert!(
            uppers > 1_000 && lowers > 1_000,
            "{uppers} upper, {lowers} lower cutoffs"
        );
    }

    #[test]
    fn odd_quadrants_equals_popcount_parity() {
        for (a, b) in crate::othello::board::random_bitboard_pairs(20_000) {
            for empty in [a, b, !(a | b), a ^ b] {
                let mut want = 0;
                for q in QUADRANTS {
                    if (empty & q).count_ones() % 2 == 1 {
                        want |= q;
                    }
                }
                assert_eq!(odd_quadrants(empty), want, "{empty:x}");
            }
        }
    }

    #[test]
    fn odd_quadrants_counts_parity() {
        // Empties a1 (quadrant 0) and h8 + g8 (quadrant 3): only quadrant 0 is odd.
        let empty = 1 | (1 << 63) | (1 << 62);
        assert_eq!(odd_quadrants(empty), QUADRANTS[0]);
    }
}
