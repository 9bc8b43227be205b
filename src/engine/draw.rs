//! Draw offers: whether a colour should accept a draw in the current position, judged by a
//! bounded search (GTP `flank-draw_offer`, see `docs/levels.md`).
//!
//! The receiver accepts only when its search says the position is a draw or worse for it:
//! - game over: the final score (empties to the winner), accepted when ≤ 0;
//! - at ≤ [`DRAW_SOLVE_EMPTIES`] empties: a WLD solve, which gets at least
//!   [`DRAW_SOLVE_MIN_MS`] (a 16-empties WLD solve takes milliseconds);
//! - at ≤ [`DRAW_TRY_SOLVE_EMPTIES`] empties: a WLD solve tried within the budget;
//! - accepted when a finished solve says draw or loss (score ≤ 0);
//! - otherwise (more empties, or a solve cut by its deadline) a midgame search within the
//!   budget, accepted only when its estimate is ≤ −[`DRAW_MARGIN`] discs: an estimate near 0
//!   may hide a win, so a roughly even midgame position is declined.
//!
//! The budget is small and bounded: 1/[`DRAW_BUDGET_DIVISOR`] of the receiver's hard per-move
//! budget from the time manager, clamped to [`DRAW_MIN_MS`]…[`DRAW_MAX_MS`]; a judgement
//! never takes more than twice its budget (or [`DRAW_SOLVE_MIN_MS`] plus the budget), so it
//! can neither hang nor make anyone lose on time.

use std::time::{Duration, Instant};

use crate::engine::{AUTO_TRY_SOLVE_EMPTIES, Engine, SearchLimits, SolveMode};
use crate::othello::board::{Board, Score};

/// A midgame estimate must be at most −2 discs (receiver's view) for a draw to be accepted.
pub const DRAW_MARGIN: Score = 2;
/// Empties at or below which the judgement is always a WLD solve (with at least
/// [`DRAW_SOLVE_MIN_MS`]).
pub const DRAW_SOLVE_EMPTIES: u32 = 16;
/// Empties at or below which a WLD solve is tried within the budget
/// ([`AUTO_TRY_SOLVE_EMPTIES`], the engine's own limit for trying a solve).
pub const DRAW_TRY_SOLVE_EMPTIES: u32 = AUTO_TRY_SOLVE_EMPTIES;
/// The judgement's budget is the receiver's hard per-move budget divided by this.
pub const DRAW_BUDGET_DIVISOR: u64 = 20;
/// The smallest judgement budget, in ms.
pub const DRAW_MIN_MS: u64 = 20;
/// The largest judgement budget, in ms.
pub const DRAW_MAX_MS: u64 = 1000;
/// The least time a WLD solve at ≤ [`DRAW_SOLVE_EMPTIES`] empties gets, in ms.
pub const DRAW_SOLVE_MIN_MS: u64 = 250;

/// The outcome of judging a draw offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawJudgement {
    /// True to accept the draw.
    pub accept: bool,
    /// The score the decision rests on, from the receiver's view: the final score at game
    /// over, −1/0/+1 after a WLD solve, a disc estimate after a midgame search.
    pub score: Score,
    /// True if `score` is exact (game over or a finished WLD solve).
    pub exact: bool,
    /// Nodes searched.
    pub nodes: u64,
}

/// The judgement budget in ms for a receiver whose hard per-move budget is `move_hard_ms`:
/// `move_hard_ms` / [`DRAW_BUDGET_DIVISOR`], clamped to [`DRAW_MIN_MS`]…[`DRAW_MAX_MS`].
pub fn draw_budget_ms(move_hard_ms: u64) -> u64 {
    (move_hard_ms / DRAW_BUDGET_DIVISOR).clamp(DRAW_MIN_MS, DRAW_MAX_MS)
}

/// Judges a draw offered to the receiver in `board` (given from its side to move's view;
/// `receiver_to_move` says whether the receiver is that side), searching for at most about
/// `budget_ms` ms as the module header says.
pub fn judge_draw_offer(
    engine: &mut Engine,
    board: &Board,
    receiver_to_move: bool,
    budget_ms: u64,
) -> DrawJudgement {
    let view = |s: Score| if receiver_to_move { s } else { -s };
    if board.is_game_over() {
        let score = view(board.final_score());
        return DrawJudgement {
            accept: score <= 0,
            score,
            exact: true,
            nodes: 0,
        };
    }
    let mut nodes = 0;
    let empties = board.empties();
    if empties <= DRAW_TRY_SOLVE_EMPTIES {
        let ms = if empties <= DRAW_SOLVE_EMPTIES {
            budget_ms.max(DRAW_SOLVE_MIN_MS)
        } else {
            budget_ms
        };
        let limits = SearchLimits {
            depth: None,
            mode: SolveMode::Wld,
            time_ms: None,
            deadline: Instant::now().checked_add(Duration::from_millis(ms)),
        };
        let r = engine.search(board, &limits, &mut |_| {});
        nodes += r.nodes;
        if r.exact {
            let score = view(r.score);
            return DrawJudgement {
                accept: score <= 0,
                score,
                exact: true,
                nodes,
            };
        }
    }
    let limits = SearchLimits {
        depth: None,
        mode: SolveMode::Midgame,
        time_ms: Some(budget_ms / 2),
        deadline: Instant::now().checked_add(Duration::from_millis(budget_ms)),
    };
    let r = engine.search(board, &limits, &mut |_| {});
    let score = view(r.score);
    DrawJudgement {
        accept: score <= -DRAW_MARGIN,
        score,
        exact: false,
        nodes: nodes + r.nodes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_is_a_twentieth_clamped() {
        assert_eq!(draw_budget_ms(0), DRAW_MIN_MS);
        assert_eq!(draw_budget_ms(1000), 50);
        assert_eq!(draw_budget_ms(10_000), 500);
        assert_eq!(draw_budget_ms(3_600_000), DRAW_MAX_MS);
    }
}
