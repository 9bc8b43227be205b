//! Rounds: what one game is worth in the `--target-points` race, and the race itself.
//!
//! Every game is a round. A round won on the board is worth the winner's final disc
//! difference (empties to the winner, 1–64); a draw, on the board or agreed, is worth 0. A
//! round lost by forfeit (on time, illegal move, wrong pass, resignation, crash, protocol
//! error) is worth [`FORFEIT_ROUND_VALUE`] = 64 to the opponent, the largest possible margin,
//! whatever the board showed: a player gains nothing by forfeiting a game it is losing, and
//! its opponent never scores less than the best board win would give. The race ends after the
//! first round in which a player's total reaches the target.

use serde::Serialize;

use super::referee::GameOutcome;
use crate::othello::square::Color;

/// What a forfeited round is worth to the opponent, in points (disc difference).
pub const FORFEIT_ROUND_VALUE: i32 = 64;

/// The round value of `outcome` from the view of the player who had `color`: positive when
/// that player won the round, negative when it lost, 0 for a draw. Range −64…64.
pub fn round_value(outcome: &GameOutcome, color: Color) -> i32 {
    let black_view = if outcome.reason.is_forfeit() {
        match outcome.winner {
            Some(Color::Black) => FORFEIT_ROUND_VALUE,
            Some(Color::White) => -FORFEIT_ROUND_VALUE,
            None => 0,
        }
    } else if outcome.winner.is_none() {
        0
    } else {
        outcome.board_score
    };
    match color {
        Color::Black => black_view,
        Color::White => -black_view,
    }
}

/// A race to `target` points between players 0 and 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Race {
    /// Points needed to win the race.
    pub target: u32,
    /// Each player's points so far.
    pub points: [u32; 2],
    /// The rounds so far, each as player 0's signed value (positive: player 0 won it).
    pub rounds: Vec<i32>,
    /// The player that reached the target, once one has.
    pub winner: Option<usize>,
}

impl Race {
    /// A race to `target` points (≥ 1).
    pub fn new(target: u32) -> Race {
        Race {
            target,
            points: [0, 0],
            rounds: Vec::new(),
            winner: None,
        }
    }

    /// Adds a round worth `value` to player 0 (negative: to player 1). Returns the race
    /// winner if this round decided it. Rounds after the decision are ignored.
    pub fn add(&mut self, value: i32) -> Option<usize> {
        if self.winner.is_some() {
            return None;
        }
        self.rounds.push(value);
        let (who, pts) = if value >= 0 {
            (0, value as u32)
        } else {
            (1, value.unsigned_abs())
        };
        self.points[who] += pts;
        if self.points[who] >= self.target && pts > 0 {
            self.winner = Some(who);
        }
        self.winner
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchplay::referee::EndReason;
    use crate::othello::Position;

    fn outcome(board_score: i32, winner: Option<Color>, reason: EndReason) -> GameOutcome {
        GameOutcome {
            start: Position::start(),
            moves: Vec::new(),
            last: Position::start(),
            board_score,
            winner,
            reason,
            offers: [0, 0],
            used_ms: [0, 0],
        }
    }

    #[test]
    fn values() {
        let won = outcome(12, Some(Color::Black), EndReason::Finished);
        assert_eq!(round_value(&won, Color::Black), 12);
        assert_eq!(round_value(&won, Color::White), -12);
        let draw = outcome(0, None, EndReason::Finished);
        assert_eq!(round_value(&draw, Color::Black), 0);
        // Agreed draw with black ahead on the board: still 0.
        let agreed = outcome(20, None, EndReason::DrawAgreed(Color::White));
        assert_eq!(round_value(&agreed, Color::Black), 0);
        // White wins because black ran out of time while 30 ahead: 64 to white.
        let time = outcome(30, Some(Color::White), EndReason::Time);
        assert_eq!(round_value(&time, Color::White), 64);
        assert_eq!(round_value(&time, Color::Black), -64);
    }

    #[test]
    fn target_points_stop() {
        let mut r = Race::new(50);
        assert_eq!(r.add(20), None);
        assert_eq!(r.add(-30), None);
        assert_eq!(r.add(0), None);
        assert_eq!(r.add(-10), None);
        assert_eq!(r.points, [20, 40]);
        assert_eq!(r.add(29), None);
        assert_eq!(r.points, [49, 40]);
        assert_eq!(r.add(-10), Some(1));
        assert_eq!(r.points, [49, 50]);
        // Decided: later rounds are ignored.
        assert_eq!(r.add(64), None);
        assert_eq!(r.rounds.len(), 6);
        assert_eq!(r.winner, Some(1));
    }
}
