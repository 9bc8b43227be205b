//! The midgame search: iterative deepening PVS with aspiration windows and the shared TT.
//!
//! Negamax, fail-soft principal-variation search (Marsland & Campbell) with null-window
//! searches for the later moves; the TT move first, then moves ordered by the evaluation of the
//! child at depth ≥ 3 and fastest-first below. Leaves use the searcher's evaluation (the
//! midgame one, [`crate::eval::active`]); finished games score their exact final disc
//! difference. The node loop is `Searcher::mid_pvs_node` (with `mid_pvs_d1` at depth 1 and the
//! midgame multi-ProbCut `mid_probcut`), also used by the solver's ordering searches, which
//! evaluate with the solver's weights ([`crate::eval::solver`]); the methods extend the
//! per-thread [`Searcher`].

use std::time::Instant;

use crate::eval::{ChildEval, Evaluator};
use crate::othello::board::{Board, SCORE_INF, Score};
use crate::othello::movegen::{flips, get_moves};
use crate::othello::square::{Move, Square};
use crate::search::endgame::*;
use crate::search::movelist::*;
use crate::search::probcut;
use crate::search::searcher::*;
use crate::search::tt::Bound;

/// Half-width of the aspiration window around the previous iteration's score, in discs.
pub const ASPIRATION: Score = 3;

/// One completed iteration of the midgame search.
#[derive(Clone, Debug)]
pub struct Iteration {
    /// Depth in plies.
    pub depth: u32,
    /// Score estimate in discs, side to move's view.
    pub score: Score,
    /// Best move (always legal; never a pass: the caller handles positions without moves).
    pub best: Square,
    /// Principal variation from the TT, first move first.
    pub pv: Vec<Move>,
}

/// The static value of a leaf: the exact final score of a finished game; for a side to move
/// that must pass, minus the evaluation of the opponent to move (the evaluation is trained
/// on positions with a legal move only); else the evaluation (the midgame one,
/// [`crate::eval::active`]).
#[inline]
pub fn leaf_eval(b: &Board) -> Score {
    leaf_value(crate::eval::active(), b.player, b.opponent, b.moves())
}

/// Lists the moves `moves` of `(p, o)` in the order of a depth-1 node
/// ([`Searcher::mid_pvs_d1`]): fewest opponent replies first, ties in square order, each with
/// its flips and the child's moves ([`MoveList::child`]).
#[inline(always)]
fn order_depth_one(list: &mut MoveList, p: u64, o: u64, moves: u64) {
    let mut m = moves;
    while m != 0 {
        let x = m.trailing_zeros();
        m &= m - 1;
        let f = flips(p, o, x);
        let cm = get_moves(o ^ f, p ^ f ^ (1 << x));
        list.set_child(x, f, cm);
        list.push(x, cm.count_ones() as i32);
    }
    list.sort();
}

/// The move a depth-1 search of `b` (which must have a legal move) plays: the first child of
/// [`order_depth_one`]'s order with the best static value of `e`.
fn depth_one_move(e: &Evaluator, b: &Board) -> Square {
    let mut list = MoveList::new();
    order_depth_one(&mut list, b.player, b.opponent, b.moves());
    let mut best = (-SCORE_INF, list.sq(0));
    for i in 0..list.n {
        let x = list.sq(i);
        let (f, cm) = list.child(x);
        let v = -leaf_value(e, b.opponent ^ f, b.player ^ f ^ (1 << x), cm);
        if v > best.0 {
            best = (v, x);
        }
    }
    Square::from_index(best.1 as u8)
}

impl Searcher {
    /// Fail-soft PVS of `b` to `depth` plies with the window (alpha, beta). Returns the score
    /// and the best move square (64 if none). Passes do not use up depth. TT move first, then
    /// the child's evaluation at depth ≥ 3 and fastest-first below; the allocation-free move
    /// loop is `Searcher::mid_pvs_node`, which the endgame's ordering searches share.
    pub fn mid_pvs(
        &mut self,
        b: &Board,
        alpha: Score,
        beta: Score,
        depth: i32,
        may_pass: bool,
    ) -> (Score, u32) {
        if depth >= 1 {
            return self.mid_pvs_node(b.player, b.opponent, alpha, beta, depth, may_pass);
        }
        self.nodes += 1;
        if self.check_stop() {
            return (0, 64);
        }
        (leaf_value(self.eval, b.player, b.opponent, b.moves()), 64)
    }

    /// One root iteration at `depth` with an aspiration window around `guess` (full window if
    /// `None`), widening on failure. `None` if stopped. Its PV can be read from the TT
    /// afterwards ([`Searcher::tt_pv`]).
    pub fn mid_root(
        &mut self,
        b: &Board,
        depth: u32,
        guess: Option<Score>,
    ) -> Option<(Score, u32)> {
        let keep_pv = std::mem::replace(&mut self.keep_pv, true);
        let r = self.mid_root_keeping_pv(b, depth, guess);
        self.keep_pv = keep_pv;
        r
    }

    /// [`Searcher::mid_root`] with [`Searcher::keep_pv`] set.
    fn mid_root_keeping_pv(
        &mut self,
        b: &Board,
        depth: u32,
        guess: Option<Score>,
    ) -> Option<(Score, u32)> {
        let (mut lo, mut hi) = match guess {
            Some(g) => (
                (g - ASPIRATION).max(-SCORE_INF),
                (g + ASPIRATION).min(SCORE_INF),
            ),
            None => (-SCORE_INF, SCORE_INF),
        };
        loop {
            let (v, x) = self.mid_pvs(b, lo, hi, depth as i32, true);
            if self.stopped {
                return None;
            }
            if v <= lo && lo > -SCORE_INF {
                lo = -SCORE_INF;
            } else if v >= hi && hi < SCORE_INF {
                hi = SCORE_INF;
            } else {
                return Some((v, x));
            }
        }
    }

    /// The PV of `b` read from the TT (at most `len` moves, legal, passes included).
    pub fn tt_pv(&self, b: &Board, len: u32) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut b = *b;
        while (pv.len() as u32) < len && !b.is_game_over() {
            let moves = b.moves();
            if moves == 0 {
                pv.push(Move::Pass);
                b = b.pass();
                continue;
            }
            match self.tt.probe(&b).and_then(|e| e.best) {
                Some(m) if moves & (1u64 << m) != 0 => {
                    let sq = Square::from_index(m);
                    pv.push(Move::Play(sq));
                    b = b.make_move(sq);
                }
                _ => break,
            }
        }
        // Depth-1 nodes store their result only as PV nodes, and a PV node's last ply may have
        // been searched with a null window: the missing last move is the one such a node plays
        // (passes use no depth, so after a pass the missing node is deeper: left out).
        if (pv.len() as u32) + 1 == len && b.moves() != 0 && !pv.contains(&Move::Pass) {
            pv.push(Move::Play(depth_one_move(self.eval, &b)));
        }
        pv
    }

    /// Iterative deepening from depth 1 to `max_depth` (the board must have a legal move).
    /// No new iteration starts after `soft_deadline`; the hard deadline and stop flag of the
    /// searcher abort the current one, and the last completed iteration is returned. Depth 1
    /// is never aborted, so a legal best move always exists. `on_iter` sees each iteration.
    pub fn iterate(
        &mut self,
        b: &Board,
        max_depth: u32,
        soft_deadline: Option<Instant>,
        on_iter: &mut dyn FnMut(&Iteration, u64),
    ) -> Iteration {
        debug_assert!(b.has_moves());
        let mut last: Option<Iteration> = None;
        for depth in 1..=max_depth.max(1) {
            if depth > 1 && soft_deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let guess = last.as_ref().map(|it| it.score);
            let r = if depth == 1 {
                // Depth 1 ignores the stop flag so a move is always available.
                let saved = std::mem::replace(&mut self.stopped, false);
                let (v, x) = self.mid_pvs_unstoppable(b);
                self.stopped = saved;
                Some((v, x))
            } else {
                self.mid_root(b, depth, guess)
            };
            let Some((score, x)) = r else { break };
            let it = self.iteration(b, depth, score, x, last.as_ref());
            on_iter(&it, self.nodes);
            last = Some(it);
        }
        last.expect("depth 1 always completes")
    }

    /// The [`Iteration`] of a completed root search of `b` at `depth` that returned `score`
    /// and best square `x`, with its PV from the TT. If `x` is not a legal move (only a root
    /// TT hit without a move does that), the best move is `prev`'s, or the first legal move.
    pub fn iteration(
        &self,
        b: &Board,
        depth: u32,
        score: Score,
        x: u32,
        prev: Option<&Iteration>,
    ) -> Iteration {
        let x = if x < 64 && b.moves() & (1u64 << x) != 0 {
            x
        } else {
            prev.map_or(b.moves().trailing_zeros(), |it| it.best.index() as u32)
        };
        Iteration {
            depth,
            score,
            best: Square::from_index(x as u8),
            pv: self.tt_pv(b, depth),
        }
    }

    /// A depth-1 search that never stops: best child by evaluation (or final score).
    fn mid_pvs_unstoppable(&mut self, b: &Board) -> (Score, u32) {
        let moves = b.moves();
        let mut best = -SCORE_INF;
        let mut best_move = moves.trailing_zeros();
        let mut m = moves;
        self.nodes += 1;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let c = b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x));
            self.nodes += 1;
            let v = -leaf_value(self.eval, c.player, c.opponent, c.moves());
            if v > best {
                best = v;
                best_move = x;
            }
        }
        self.tt
            .store(b, best, Bound::Exact, 1, Some(best_move as u8), false);
        (best, best_move)
    }
}

impl Searcher {
    /// The midgame PVS ([`Searcher::mid_pvs`] at depth ≥ 1, and the shallow searches of
    /// [`Searcher::search_order`]): fail-soft PVS of `(p, o)` to `depth` ≥ 1 plies with the
    /// window (alpha, beta), without per-node allocations: moves are ordered in a
    /// [`MoveList`] (TT move first, then by the child's evaluation at depth ≥ 3, else by the
    /// opponent's mobility; ties in square order), and depth-1 nodes go to
    /// [`Searcher::mid_pvs_d1`]. Returns the score and the best move square (64 if none).
    pub(crate) fn mid_pvs_node(
        &mut self,
        p: u64,
        o: u64,
        mut alpha: Score,
        beta: Score,
        depth: i32,
        may_pass: bool,
    ) -> (Score, u32) {
        if depth <= 1 {
            return self.mid_pvs_d1(p, o, get_moves(p, o), alpha, beta, may_pass);
        }
        self.nodes += 1;
        if self.check_stop() {
            return (0, 64);
        }
        let moves = get_moves(p, o);
        if moves == 0 {
            if may_pass && get_moves(o, p) != 0 {
                let (v, _) = self.mid_pvs_node(o, p, -beta, -alpha, depth, false);
                return (-v, 64);
            }
            return (final_score(p, o), 64);
        }
        let b = Board {
            player: p,
            opponent: o,
        };
        let tt_move = match self.tt.probe(&b) {
            Some(e) => {
                if (e.solved || e.depth >= depth as u32)
                    && match e.bound {
                        Bound::Exact => true,
                        Bound::Lower => e.score >= beta,
                        Bound::Upper => e.score <= alpha,
                    }
                {
                    return (e.score, e.best.map_or(64, |m| m as u32));
                }
                e.best.filter(|&m| moves & (1u64 << m) != 0)
            }
            None => None,
        };
        // ProbCut only where the search stops short of the end of the game: a node whose
        // depth reaches every game end is searched exactly, as a solve would.
        if depth >= probcut::MID_MPC_MIN_DEPTH
            && beta == alpha + 1
            && self.mid_mpc.is_some()
            && (depth as u32) < 64 - (p | o).count_ones()
            && let Some(v) = self.mid_probcut(p, o, alpha, depth)
        {
            return (v, tt_move.map_or(64, u32::from));
        }
        let alpha0 = alpha;
        // Ordering; at depth 2 the children's moves are kept for their depth-1 searches.
        let mut list = MoveList::new();
        let mut child_moves = [0u64; 64];
        let ce = (depth >= 3).then(|| ChildEval::new(self.eval, p, o));
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let key = if tt_move == Some(x as u8) {
                FIRST_KEY
            } else {
                let f = flips(p, o, x);
                let (cp, co) = (o ^ f, p ^ f ^ (1 << x));
                if let Some(ce) = &ce {
                    child_value(ce, cp, co, x, f, get_moves(cp, co))
                } else {
                    let cm = get_moves(cp, co);
                    child_moves[x as usize] = cm;
                    cm.count_ones() as i32
                }
            };
            list.push(x, key);
        }
        list.sort();
        let mut best = -SCORE_INF;
        let mut best_move = list.sq(0);
        for i in 0..list.n {
            if i == 1 && self.mid_split && depth >= MID_SPLIT_DEPTH && list.n > 2 {
                let (v, x) = self.mid_split(p, o, alpha, beta, depth, &list.squares(1));
                if self.stopped {
                    return (0, 64);
                }
                if v > best {
                    best = v;
                    best_move = x;
                }
                break;
            }
            let x = list.sq(i);
            let f = flips(p, o, x);
            let (cp, co) = (o ^ f, p ^ f ^ (1 << x));
            let v = if depth == 2 {
                let cm = if list.key(i) == FIRST_KEY {
                    get_moves(cp, co)
                } else {
                    child_moves[x as usize]
                };
                if i == 0 {
                    -self.mid_pvs_d1(cp, co, cm, -beta, -alpha, true).0
                } else {
                    let mut v = -self.mid_pvs_d1(cp, co, cm, -alpha - 1, -alpha, true).0;
                    if v > alpha && v < beta && !self.stopped {
                        v = -self.mid_pvs_d1(cp, co, cm, -beta, -v, true).0;
                    }
                    v
                }
            } else if i == 0 {
                -self.mid_pvs_node(cp, co, -beta, -alpha, depth - 1, true).0
            } else {
                let mut v = -self
                    .mid_pvs_node(cp, co, -alpha - 1, -alpha, depth - 1, true)
                    .0;
                if v > alpha && v < beta && !self.stopped {
                    v = -self.mid_pvs_node(cp, co, -beta, -v, depth - 1, true).0;
                }
                v
            };
            if self.stopped {
                return (0, 64);
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
        let bound = Bound::from_window(best, alpha0, beta);
        self.tt
            .store(&b, best, bound, depth as u32, Some(best_move as u8), false);
        (best, best_move)
    }

    /// [`Searcher::mid_pvs_node`] at depth 1, given the moves `moves` of `(p, o)`: the children
    /// are leaves, each evaluated once (a PVS re-search of a leaf counts its node again, as
    /// in [`Searcher::mid_pvs`], but reuses the value), fewest opponent replies first.
    ///
    /// Depth-1 nodes do not probe the TT, and store their result only as PV nodes (a window
    /// wider than null) of [`Searcher::mid_root`], whose PV is read from the TT
    /// ([`Searcher::keep_pv`]): they are the most numerous interior nodes, each probe a
    /// likely cache miss, and their entries crowd out deeper ones. In the exact solver (whose
    /// full-window ordering searches end in these nodes) that saves 5.8 % of the nodes on FFO
    /// #40–#59, 13.1 % on #45, #48–#52 (1 thread, `--hash 1024`; storing its depth-1 PV nodes
    /// too gave back half of it); a depth-limited midgame search reaches a given depth about
    /// 8 % sooner (docs/benchmarks.md).
    pub(super) fn mid_pvs_d1(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        mut alpha: Score,
        beta: Score,
        may_pass: bool,
    ) -> (Score, u32) {
        self.nodes += 1;
        if self.check_stop() {
            return (0, 64);
        }
        if moves == 0 {
            let om = get_moves(o, p);
            if may_pass && om != 0 {
                let (v, _) = self.mid_pvs_d1(o, p, om, -beta, -alpha, false);
                return (-v, 64);
            }
            return (final_score(p, o), 64);
        }
        let alpha0 = alpha;
        let mut list = MoveList::new();
        order_depth_one(&mut list, p, o, moves);
        let mut best = -SCORE_INF;
        let mut best_move = list.sq(0);
        // The children after the first are evaluated from the parent's pattern digits.
        let mut ce: Option<ChildEval> = None;
        for i in 0..list.n {
            let x = list.sq(i);
            let (f, cm) = list.child(x);
            let (cp, co) = (o ^ f, p ^ f ^ (1 << x));
            self.nodes += 1;
            if self.check_stop() {
                return (0, 64);
            }
            let v = if i == 0 {
                -leaf_value(self.eval, cp, co, cm)
            } else {
                let ce = ce.get_or_insert_with(|| ChildEval::new(self.eval, p, o));
                -child_value(ce, cp, co, x, f, cm)
            };
            if i > 0 && v > alpha && v < beta {
                // The PVS re-search of the leaf.
                self.nodes += 1;
                if self.check_stop() {
                    return (0, 64);
                }
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
        if self.keep_pv && beta - alpha0 > 1 {
            let b = Board {
                player: p,
                opponent: o,
            };
            let bound = Bound::from_window(best, alpha0, beta);
            self.tt
                .store(&b, best, bound, 1, Some(best_move as u8), false);
        }
        (best, best_move)
    }

    /// Midgame multi-ProbCut (Buro 1997) at a null-window node (alpha, alpha + 1) of `(p, o)`
    /// searched to `depth` plies: with the fit deep ≈ a × shallow + b ± sigma of
    /// [`probcut::MpcTable::fit`] for [`probcut::mid_shallow_depth`], a shallow search
    /// predicting at least beta + t × sigma fails the node high (returns beta), one
    /// predicting at most alpha − t × sigma fails it low (returns alpha). The static
    /// evaluation chooses which test is tried (at or above beta: the high one). `None` if
    /// neither cuts, or without a fit.
    pub(super) fn mid_probcut(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        depth: i32,
    ) -> Option<Score> {
        let (table, t) = self.mid_mpc?;
        let empties = 64 - (p | o).count_ones();
        let d = probcut::mid_shallow_depth(depth);
        let f = table.fit(empties, depth, d)?;
        let (a, b, margin) = (f.a as f64, f.b as f64, t * f.sigma as f64);
        let beta = alpha + 1;
        let eval = self.eval.evaluate(&Board {
            player: p,
            opponent: o,
        });
        if eval >= beta {
            let bound = ((beta as f64 + margin - b) / a).ceil();
            if bound > 64.0 {
                return None;
            }
            let bound = (bound as Score).max(-63);
            let v = self.mid_pvs_node(p, o, bound - 1, bound, d, true).0;
            (v >= bound && !self.stopped).then_some(beta)
        } else {
            let bound = ((alpha as f64 - margin - b) / a).floor();
            if bound < -64.0 {
                return None;
            }
            let bound = (bound as Score).min(63);
            let v = self.mid_pvs_node(p, o, bound, bound + 1, d, true).0;
            (v <= bound && !self.stopped).then_some(alpha)
        }
    }
}
