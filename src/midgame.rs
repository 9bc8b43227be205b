//! The midgame search: iterative deepening PVS with aspiration windows and the shared TT.
//!
//! Negamax, fail-soft principal-variation search (Marsland & Campbell) with null-window
//! searches for the later moves; the TT move first, then moves ordered by the evaluation of the
//! child at depth ≥ 3 and fastest-first below. Leaves use [`crate::eval::evaluate`]; finished
//! games score their exact final disc difference. Methods extend the per-thread
//! [`Searcher`] of [`crate::endgame`].

use std::time::Instant;

use crate::board::{Board, SCORE_INF, Score};
use crate::endgame::Searcher;
use crate::endgame::{flips, get_moves};
use crate::eval::evaluate;
use crate::square::{Move, Square};
use crate::tt::Bound;

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
/// on positions with a legal move only); else the evaluation.
#[inline]
pub fn leaf_eval(b: &Board) -> Score {
    if b.has_moves() {
        evaluate(b)
    } else if b.opponent_moves() != 0 {
        -evaluate(&b.pass())
    } else {
        b.final_score()
    }
}

impl Searcher {
    /// Orders moves: TT move first, then by the child's evaluation (depth ≥ 3) or by the
    /// opponent's mobility (fastest-first). Returns squares, best candidate first.
    fn mid_order(&self, b: &Board, moves: u64, tt_move: Option<u8>, depth: i32) -> Vec<u32> {
        let mut v: Vec<(i32, u32)> = Vec::with_capacity(moves.count_ones() as usize);
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let key = if tt_move == Some(x as u8) {
                i32::MIN
            } else {
                let f = flips(b.player, b.opponent, x);
                let c = b.make_move_with_flips(1 << x, f);
                if depth >= 3 {
                    leaf_eval(&c)
                } else {
                    get_moves(c.player, c.opponent).count_ones() as i32
                }
            };
            v.push((key, x));
        }
        v.sort_by_key(|&(k, _)| k);
        v.into_iter().map(|(_, x)| x).collect()
    }

    /// Fail-soft PVS of `b` to `depth` plies with the window (alpha, beta). Returns the score
    /// and the best move square (64 if none). Passes do not use up depth.
    pub fn mid_pvs(
        &mut self,
        b: &Board,
        alpha: Score,
        beta: Score,
        depth: i32,
        may_pass: bool,
    ) -> (Score, u32) {
        self.nodes += 1;
        if self.check_stop() {
            return (0, 64);
        }
        if depth <= 0 {
            return (leaf_eval(b), 64);
        }
        let moves = b.moves();
        if moves == 0 {
            if may_pass && b.opponent_moves() != 0 {
                let (v, _) = self.mid_pvs(&b.pass(), -beta, -alpha, depth, false);
                return (-v, 64);
            }
            return (b.final_score(), 64);
        }
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(b) {
            tt_move = e.best.filter(|&m| moves & (1u64 << m) != 0);
            if e.solved || e.depth >= depth as u32 {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score >= beta,
                    Bound::Upper => e.score <= alpha,
                };
                if cut {
                    return (e.score, e.best.map_or(64, |m| m as u32));
                }
            }
        }
        let alpha0 = alpha;
        let order = self.mid_order(b, moves, tt_move, depth);
        let Some((best, best_move)) = self.pvs_moves(
            b,
            &order,
            alpha,
            beta,
            |s, c, a, bb| s.mid_pvs(c, a, bb, depth - 1, true).0,
            |s, c, a| s.mid_pvs(c, a, a + 1, depth - 1, true).0,
        ) else {
            return (0, 64);
        };
        let bound = Bound::from_window(best, alpha0, beta);
        self.tt
            .store(b, best, bound, depth as u32, Some(best_move as u8), false);
        (best, best_move)
    }

    /// One root iteration at `depth` with an aspiration window around `guess` (full window if
    /// `None`), widening on failure. `None` if stopped.
    pub fn mid_root(
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
            let Some((score, mut x)) = r else { break };
            if x >= 64 || b.moves() & (1u64 << x) == 0 {
                // Only a root TT hit without a move could do this; fall back to a legal move.
                x = last
                    .as_ref()
                    .map_or(b.moves().trailing_zeros(), |it| it.best.index() as u32);
            }
            let it = Iteration {
                depth,
                score,
                best: Square::from_index(x as u8),
                pv: self.tt_pv(b, depth),
            };
            on_iter(&it, self.nodes);
            last = Some(it);
        }
        last.expect("depth 1 always completes")
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
            let v = -leaf_eval(&c);
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
