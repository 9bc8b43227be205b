//! The midgame search: iterative deepening PVS with aspiration windows and the shared TT.
//!
//! Negamax, fail-soft principal-variation search (Marsland & Campbell) with null-window
//! searches for the later moves; the TT move first, then moves ordered by the evaluation of the
//! child at depth ≥ 3 and fastest-first below. Leaves use [`crate::eval::evaluate`]; finished
//! games score their exact final disc difference. Methods extend the per-thread
//! [`Searcher`] of [`crate::search::endgame`].

use std::time::Instant;

use crate::othello::board::{Board, SCORE_INF, Score};
use crate::othello::square::{Move, Square};
use crate::search::endgame::Searcher;
use crate::search::endgame::{flips, leaf_value};
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
/// on positions with a legal move only); else the evaluation.
#[inline]
pub fn leaf_eval(b: &Board) -> Score {
    leaf_value(b.player, b.opponent, b.moves())
}

impl Searcher {
    /// Fail-soft PVS of `b` to `depth` plies with the window (alpha, beta). Returns the score
    /// and the best move square (64 if none). Passes do not use up depth. TT move first, then
    /// the child's evaluation at depth ≥ 3 and fastest-first below; the allocation-free move
    /// loop is `Searcher::order_pvs`, which the endgame's ordering searches share.
    pub fn mid_pvs(
        &mut self,
        b: &Board,
        alpha: Score,
        beta: Score,
        depth: i32,
        may_pass: bool,
    ) -> (Score, u32) {
        if depth >= 1 {
            return self.order_pvs(b.player, b.opponent, alpha, beta, depth, may_pass);
        }
        self.nodes += 1;
        if self.check_stop() {
            return (0, 64);
        }
        (leaf_eval(b), 64)
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
