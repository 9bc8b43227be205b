//! Pondering: thinking on the opponent's time. What to think about (the position after the
//! predicted reply) and how (a search without a time limit that a new input line stops).
//!
//! A protocol session ponders after it has answered its move and until the next input line
//! arrives: its watcher stops the search at once, so a miss costs nothing on the clock. The
//! work is kept in the transposition table, so on a hit (the opponent plays the predicted
//! reply) the next move's iterative deepening finds its first depths already searched. The
//! time spent pondering is the opponent's and is never charged to flank's clock.

use crate::engine::{SearchLimits, SolveMode};
use crate::othello::board::Board;
use crate::othello::square::Move;

/// The depth limit of a ponder search in plies: none in practice (the next input line stops
/// it).
pub const PONDER_DEPTH: u32 = 60;

/// The position to ponder on after flank played `ours` in `before` (flank to move there),
/// `pv` being the principal variation of that search (starting with `ours` when it has one):
/// the position after the predicted reply `pv[1]` when it is legal and leaves the game going;
/// otherwise the position after `ours` (the opponent to move: its replies are searched).
/// `None` when the game is over after `ours`, or `ours` is not legal in `before`.
pub fn ponder_position(before: &Board, ours: Move, pv: &[Move]) -> Option<Board> {
    let after = match ours {
        Move::Play(sq) => before.try_make_move(sq)?,
        Move::Pass => before.pass(),
    };
    if after.is_game_over() {
        return None;
    }
    if pv.first() == Some(&ours)
        && let Some(&Move::Play(reply)) = pv.get(1)
        && let Some(next) = after.try_make_move(reply)
        && !next.is_game_over()
    {
        return Some(next);
    }
    Some(after)
}

/// The limits of a ponder search: [`SolveMode::Auto`] to [`PONDER_DEPTH`], no time limit.
pub fn ponder_limits() -> SearchLimits {
    SearchLimits {
        depth: Some(PONDER_DEPTH),
        mode: SolveMode::Auto,
        time_ms: None,
        deadline: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    #[test]
    fn the_predicted_reply_or_the_position_after_our_move() {
        let start = Board::start();
        let f5 = start.try_make_move("f5".parse().unwrap()).unwrap();
        let f5d6 = f5.try_make_move("d6".parse().unwrap()).unwrap();
        assert_eq!(
            ponder_position(&start, mv("f5"), &[mv("f5"), mv("d6")]),
            Some(f5d6)
        );
        // No reply in the PV, an illegal one, or a PV of another move: after our move.
        assert_eq!(ponder_position(&start, mv("f5"), &[mv("f5")]), Some(f5));
        assert_eq!(
            ponder_position(&start, mv("f5"), &[mv("f5"), mv("a1")]),
            Some(f5)
        );
        assert_eq!(
            ponder_position(&start, mv("f5"), &[mv("d3"), mv("c3")]),
            Some(f5)
        );
        assert_eq!(ponder_position(&start, mv("a1"), &[]), None);
    }
}
