//! The root of an exact or WLD solve: PVS at PV nodes, the aspiration window with the
//! selective multi-ProbCut pre-searches, and the principal variation rebuilt from the TT and
//! proven by null-window searches.

use crate::othello::board::{Board, SCORE_INF, Score};
use crate::othello::movegen::{flips, get_moves};
use crate::othello::square::{Move, Square};
use crate::search::endgame::*;
use crate::search::movelist::*;
use crate::search::probcut;
use crate::search::searcher::*;
use crate::search::tt::Bound;

/// Whether a solve's `score` with the window (`alpha`, `beta`) is the exact final disc
/// difference: inside the window it is, and so is a ±64 at the window's edge (no score lies
/// beyond it); otherwise it is a bound (with the WLD window (−1, 1), a proven win or loss
/// whose disc count is unknown).
pub fn is_exact(score: Score, alpha: Score, beta: Score) -> bool {
    (score > alpha || score <= -64) && (score < beta || score >= 64)
}

/// Result of a root solve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveResult {
    /// Score: the exact final disc difference for an exact solve; for a WLD solve a value whose
    /// sign is the game-theoretic result.
    pub score: Score,
    /// Best move ([`Move::Pass`] if the side to move must pass or the game is over).
    pub best: Move,
    /// Principal variation, first move first.
    pub pv: Vec<Move>,
}

impl Searcher {
    /// Exact principal-variation search (PVS) with the window (alpha, beta): the first move
    /// with the full window, the others with an NWS and a re-search on a fail-high.
    /// Fail-soft; exact when the result lies strictly inside the window.
    pub fn pvs(&mut self, b: &Board, alpha: Score, beta: Score) -> Score {
        let empties = b.empties();
        self.with_solver_eval(|s| {
            if beta <= alpha + 1 {
                return s.nws_node(b.player, b.opponent, alpha, empties, true);
            }
            s.pvs_node(b, alpha, beta, empties, true).0
        })
    }

    /// PVS node returning the score and the best move square (64 if none).
    pub(super) fn pvs_node(
        &mut self,
        b: &Board,
        mut alpha: Score,
        mut beta: Score,
        empties: u32,
        may_pass: bool,
    ) -> (Score, u32) {
        if empties == 0 {
            self.nodes += 1;
            return (b.final_score(), 64);
        }
        self.nodes += 1;
        if self.check_stop() {
            return (0, 64);
        }
        let (p, o) = (b.player, b.opponent);
        let moves = get_moves(p, o);
        if moves == 0 {
            if may_pass && get_moves(o, p) != 0 {
                let (v, _) = self.pvs_node(&b.pass(), -beta, -alpha, empties, false);
                return (-v, 64);
            }
            return (b.final_score(), 64);
        }
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(b) {
            tt_move = e.best.filter(|&m| moves & (1u64 << m) != 0);
            if e.solved && e.selectivity <= self.selectivity {
                let cut = if e.lower == e.upper || e.lower >= beta {
                    Some(e.lower)
                } else if e.upper <= alpha {
                    Some(e.upper)
                } else {
                    None
                };
                if let Some(v) = cut {
                    return (v, e.best.map_or(64, |m| m as u32));
                }
                // A known interval narrows the window.
                alpha = alpha.max(e.lower - 1);
                beta = beta.min(e.upper + 1);
            }
        }
        let alpha0 = alpha;
        let mut list = MoveList::new();
        if empties >= SEARCH_ORDER_EMPTIES {
            self.search_order(&mut list, b, moves, tt_move, empties);
        } else {
            self.fastest_first::<false>(&mut list, p, o, moves, tt_move);
            list.sort();
        }
        let Some((best, best_move)) = self.pvs_moves(
            b,
            &list.squares(0),
            alpha,
            beta,
            |s, c, a, bb| s.pvs_node(c, a, bb, empties - 1, true).0,
            |s, c, a| s.nws_node(c.player, c.opponent, a, empties - 1, true),
        ) else {
            return (0, 64);
        };
        let bound = Bound::from_window(best, alpha0, beta);
        self.store_solved(self.tt.bucket_start(b), b, best, bound, empties, best_move);
        (best, best_move)
    }

    /// The move loop of a principal-variation search (PVS) node, shared by the midgame and the
    /// endgame: the first move of `order` with the window (alpha, beta) through `pv`, the
    /// others with a null window through `nws` (its argument is the child's alpha; the window
    /// is (alpha, alpha + 1)) and a `pv` re-search when that fails high inside the window.
    /// Fail-soft; returns the best score and its move, or `None` once stopped.
    #[inline(always)]
    pub(crate) fn pvs_moves(
        &mut self,
        b: &Board,
        order: &[u32],
        mut alpha: Score,
        beta: Score,
        mut pv: impl FnMut(&mut Searcher, &Board, Score, Score) -> Score,
        mut nws: impl FnMut(&mut Searcher, &Board, Score) -> Score,
    ) -> Option<(Score, u32)> {
        let mut best = -SCORE_INF;
        let mut best_move = order[0];
        for (i, &x) in order.iter().enumerate() {
            let child = b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x));
            let v = if i == 0 {
                -pv(self, &child, -beta, -alpha)
            } else {
                let mut v = -nws(self, &child, -alpha - 1);
                if v > alpha && v < beta && !self.stopped {
                    v = -pv(self, &child, -beta, -v);
                }
                v
            };
            if self.stopped {
                return None;
            }
            if v > best {
                best = v;
                best_move = x;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        Some((best, best_move))
    }

    /// Solves `b` at the root with the window (alpha, beta): (−64, 64) for an exact solve,
    /// (−1, 1) for WLD. Returns `None` if stopped (flag or deadline) before the end.
    ///
    /// The score is exact if it lies strictly inside the window, otherwise a bound with the
    /// right sign (so a WLD result's sign is exact). The PV is rebuilt from the TT and
    /// confirmed with null-window searches, so it is always a legal line to the end of the
    /// game achieving the score (for a bound, a WLD win or loss: a line keeping the bound,
    /// each winning step proven by a null-window search; it ends early only if stopped).
    pub fn solve(&mut self, b: &Board, alpha: Score, beta: Score) -> Option<SolveResult> {
        self.with_solver_eval(|s| s.solve_pooled(b, alpha, beta))
    }

    /// [`Searcher::solve`] under the solver's evaluation, on the pool if there is one.
    fn solve_pooled(&mut self, b: &Board, alpha: Score, beta: Score) -> Option<SolveResult> {
        match self.pool.clone() {
            Some(pool) => {
                self.split = true;
                let r = pool.install(|| self.solve_here(b, alpha, beta));
                self.split = false;
                r
            }
            None => self.solve_here(b, alpha, beta),
        }
    }

    /// [`Searcher::solve`] on the current thread (splitting if `self.split`).
    pub(super) fn solve_here(
        &mut self,
        b: &Board,
        alpha: Score,
        beta: Score,
    ) -> Option<SolveResult> {
        let empties = b.empties();
        if b.is_game_over() {
            self.nodes += 1;
            return Some(SolveResult {
                score: b.final_score(),
                best: Move::Pass,
                pv: Vec::new(),
            });
        }
        let (score, sq) = self.aspiration_solve(b, alpha, beta, empties);
        if self.stopped {
            return None;
        }
        let moves = b.moves();
        let best = if moves == 0 {
            Move::Pass
        } else if sq < 64 && moves & (1u64 << sq) != 0 {
            Move::Play(Square::from_index(sq as u8))
        } else {
            // A root TT hit without a usable move: find a move reaching the score's bound.
            let mut found = moves.trailing_zeros();
            let mut m = moves;
            while m != 0 {
                let x = m.trailing_zeros();
                m &= m - 1;
                let c = b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x));
                if -self.nws_node(c.player, c.opponent, -score, empties - 1, true) >= score {
                    found = x;
                    break;
                }
            }
            Move::Play(Square::from_index(found as u8))
        };
        let exact = is_exact(score, alpha, beta);
        let pv = if exact {
            self.exact_pv(b, score)
        } else {
            // A bound (a WLD win or loss): the best move, then a line keeping the bound.
            let child = match best {
                Move::Pass => b.pass(),
                Move::Play(sq) => b.make_move(sq),
            };
            let mut pv = vec![best];
            if score >= beta {
                pv.extend(self.bound_pv(&child, -beta, false));
            } else {
                pv.extend(self.bound_pv(&child, -alpha, true));
            }
            pv
        };
        if self.stopped {
            return None;
        }
        // The PV's first move is proven to reach the score (two NWS per step): it is the
        // answer, whatever move the root's search or TT entry named.
        let best = match pv.first() {
            Some(&m) if exact => m,
            _ => best,
        };
        Some(SolveResult { score, best, pv })
    }

    /// The root PVS, at ≥ [`ASPIRATION_SOLVE_EMPTIES`] empties with an aspiration window
    /// around a shallow midgame estimate, widened on failure until the result is exact inside
    /// (alpha, beta) or a bound beyond it.
    pub(super) fn aspiration_solve(
        &mut self,
        b: &Board,
        alpha: Score,
        beta: Score,
        empties: u32,
    ) -> (Score, u32) {
        if empties < ASPIRATION_SOLVE_EMPTIES {
            return self.pvs_node(b, alpha, beta, empties, true);
        }
        let depth = if empties >= 20 { 10 } else { 6 };
        // Half-width of the first window: (est − 1, est + 1). Tuned on FFO #40–#49 and
        // #20–#39 with eval v2 (w = 1, 2, 4, 8; 1 searched the fewest nodes: −3 to −6 % on
        // #40–#47 and #20–#39, −19 % on #48–#49, against 4).
        let w = 1;
        // The midgame search also leaves its best moves in the TT for the solve's ordering,
        // so a WLD solve (too narrow a window for aspiration) runs it too.
        let (est, _) = self.mid_pvs_node(b.player, b.opponent, -SCORE_INF, SCORE_INF, depth, true);
        if beta - alpha <= 2 {
            return self.pvs_node(b, alpha, beta, empties, true);
        }
        let mut est = est;
        if (self.mpc_root_empties.0..=self.mpc_root_empties.1).contains(&empties) {
            let n0 = self.nodes;
            // Selective pre-searches (multi-ProbCut, least confident first): each fills the
            // TT with best moves and selective bounds for the next and refines the estimate.
            for &level in &probcut::PASSES {
                self.selectivity = level;
                let (v, _) = self.aspiration_loop(b, alpha, beta, empties, est, w);
                self.selectivity = 0;
                if self.stopped {
                    self.selective_nodes += self.nodes - n0;
                    return (0, 64);
                }
                est = v.clamp(-64, 64);
            }
            self.selective_nodes += self.nodes - n0;
        }
        self.aspiration_loop(b, alpha, beta, empties, est, w)
    }

    /// The root PVS of [`Searcher::aspiration_solve`] from the window (est − w, est + w),
    /// widened on failure. A selective pass ([`Searcher::selectivity`] > 0) may be unstable
    /// (a fail-low then a fail-high at the same score); after 4 windows it searches the whole
    /// window (alpha, beta).
    pub(super) fn aspiration_loop(
        &mut self,
        b: &Board,
        alpha: Score,
        beta: Score,
        empties: u32,
        est: Score,
        w: Score,
    ) -> (Score, u32) {
        let mut lo = (est - w).max(alpha);
        let mut hi = (est + w).min(beta);
        if lo >= hi {
            lo = alpha;
            hi = beta;
        }
        let mut tries = 0;
        loop {
            let (v, x) = self.pvs_node(b, lo, hi, empties, true);
            if self.stopped {
                return (v, x);
            }
            tries += 1;
            if self.selectivity != 0 && tries >= 4 && (lo > alpha || hi < beta) {
                lo = alpha;
                hi = beta;
                continue;
            }
            if v <= lo && lo > alpha {
                hi = v + 1;
                lo = (v - 2 * w).max(alpha);
            } else if v >= hi && hi < beta {
                lo = v - 1;
                hi = (v + 2 * w).min(beta);
            } else {
                return (v, x);
            }
        }
    }

    /// The moves `moves` of `b` in the order the PV rebuilders try them: the TT move first,
    /// then the others in square order. Never empty when `moves` is not.
    pub(super) fn pv_order(&self, b: &Board, moves: u64) -> Vec<u32> {
        let tt_move = self
            .tt
            .probe(b)
            .and_then(|e| e.best)
            .filter(|&m| moves & (1u64 << m) != 0)
            .map(|m| m as u32);
        let mut order: Vec<u32> = tt_move.into_iter().collect();
        let mut m = moves & !tt_move.map_or(0, |x| 1u64 << x);
        while m != 0 {
            order.push(m.trailing_zeros());
            m &= m - 1;
        }
        order
    }

    /// A line from `b` to the end of the game that keeps a proven bound on its score: the
    /// score is ≥ `t` if `lower`, else ≤ `t` (a WLD win is ≥ 1, a loss ≤ −1). Where the
    /// side to move holds a lower bound, each step is a move whose child is ≤ −t (the TT move
    /// first, each candidate tested by one NWS); where it holds an upper bound every move
    /// keeps it, and the TT move (else the first move) is taken. Ends early only if stopped.
    pub(super) fn bound_pv(&mut self, b: &Board, t: Score, lower: bool) -> Vec<Move> {
        let mut pv = Vec::new();
        let (mut b, mut t, mut lower) = (*b, t, lower);
        while !b.is_game_over() && !self.stopped {
            let moves = b.moves();
            if moves == 0 {
                pv.push(Move::Pass);
                (b, t, lower) = (b.pass(), -t, !lower);
                continue;
            }
            let order = self.pv_order(&b, moves);
            let mut chosen = None;
            if lower {
                for x in order {
                    let c = b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x));
                    // The child is ≤ −t: its NWS at −t fails low.
                    if self.nws_node(c.player, c.opponent, -t, b.empties() - 1, true) <= -t {
                        chosen = Some((x, c));
                        break;
                    }
                }
            } else {
                let x = order[0];
                chosen = Some((
                    x,
                    b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x)),
                ));
            }
            let Some((x, c)) = chosen else { break };
            pv.push(Move::Play(Square::from_index(x as u8)));
            (b, t, lower) = (c, -t, !lower);
        }
        pv
    }

    /// Rebuilds the principal variation of a position whose exact score is `score`: at each
    /// step the TT move first, then the other moves, are tested with two NWS calls until one
    /// whose child scores exactly −score is found.
    pub(super) fn exact_pv(&mut self, b: &Board, score: Score) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut b = *b;
        let mut score = score;
        while !b.is_game_over() && !self.stopped {
            let moves = b.moves();
            if moves == 0 {
                pv.push(Move::Pass);
                b = b.pass();
                score = -score;
                continue;
            }
            let order = self.pv_order(&b, moves);
            let empties = b.empties();
            let mut found = None;
            for x in order {
                let f = flips(b.player, b.opponent, x);
                let c = b.make_move_with_flips(1 << x, f);
                // Child value must be exactly -score: not above -score, and above -score-1.
                let hi = self.nws_node(c.player, c.opponent, -score, empties - 1, true);
                if hi > -score {
                    continue;
                }
                let lo = self.nws_node(c.player, c.opponent, -score - 1, empties - 1, true);
                if lo > -score - 1 {
                    found = Some((x, c));
                    break;
                }
            }
            match found {
                Some((x, c)) => {
                    pv.push(Move::Play(Square::from_index(x as u8)));
                    b = c;
                    score = -score;
                }
                None => break,
            }
        }
        pv
    }
}
