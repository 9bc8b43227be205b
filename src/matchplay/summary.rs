//! The result of a match: each counted game's [`GameReport`] and the [`MatchSummary`] (both
//! serialized as the JSON output), how a finished game is counted into them, and the
//! fraction of its own clock each side used.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use super::ggf;
use super::referee::{EndReason, GameOutcome};
use super::rounds::{Race, round_value};
use super::schedule::{MatchSpec, Side};
use super::stakes::{Ledger, Settlement, settle};
use super::stats::{Sprt, SprtState, Wdl};
use crate::othello::square::Color;

/// One counted game.
#[derive(Clone, Debug, Serialize)]
pub struct GameReport {
    /// Game number, from 1.
    pub number: u64,
    /// The opening's transcript.
    pub opening: String,
    /// The colour player A had.
    pub a_color: String,
    /// `a`, `b`, or `null` for a draw.
    pub winner: Option<Side>,
    /// Short reason code (`finished`, `time`, `illegal`, …, see `EndReason::code`).
    pub reason: String,
    /// The reason in words.
    pub reason_text: String,
    /// Black minus white on the last board: with the empties to the side ahead when the game
    /// is over, the plain disc difference when it ended early (forfeit, agreed draw).
    pub board_score: i32,
    /// The round value from A's view (see `rounds`).
    pub a_value: i32,
    /// Draw offers made by A and by B.
    pub offers: [u32; 2],
    /// Clock used by A and by B, ms.
    pub used_ms: [u64; 2],
    /// The fraction of its own clock each of A and B used in this game (`used_ms` / that
    /// side's clock, 0–1; see [`clock_fraction`]); 1 for a side that lost on time.
    pub clock_used: [f64; 2],
    /// The race's points of A and B after this round, with `--target-points`.
    pub race_points: Option<[u32; 2]>,
    /// The stake settlement for A and B, when playing for a stake.
    pub settlement: Option<Settlement>,
    /// The GGF record.
    pub ggf: String,
}

/// Why the match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// All scheduled games were played.
    Games,
    /// The SPRT reached a bound.
    Sprt,
    /// A player reached `--target-points`.
    TargetPoints,
}

/// The SPRT's state at the end.
#[derive(Clone, Debug, Serialize)]
pub struct SprtSummary {
    /// The parameters.
    pub params: Sprt,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// Lower and upper bounds.
    pub bounds: (f64, f64),
    /// Where it stands.
    pub state: SprtState,
}

/// The stakes at the end.
#[derive(Clone, Debug, Serialize)]
pub struct StakeSummary {
    /// Stake per game, cents.
    pub stake: u64,
    /// Totals (index 0 = A, 1 = B), cents.
    pub ledger: Ledger,
}

/// The result of a match.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    /// Names of A and B.
    pub names: [String; 2],
    /// The clocks of A and B, ms, only when they differ (time odds; `None`, and left out of
    /// the JSON, when both have the same clock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<[u64; 2]>,
    /// Games counted.
    pub games: u64,
    /// Wins, draws, losses from A's view.
    pub a: Wdl,
    /// Points of A and B (win 1, draw ½).
    pub points: [f64; 2],
    /// Mean round value from A's view (disc difference; forfeits ±64, agreed draws 0).
    pub avg_disc_diff: f64,
    /// Elo of A over B, and its 95 % interval (`null` when infinite or no games).
    pub elo: Option<f64>,
    /// Low end of the 95 % interval.
    pub elo_low: Option<f64>,
    /// High end of the 95 % interval.
    pub elo_high: Option<f64>,
    /// Forfeits by A and by B (time, illegal, wrong pass, resignation, crash, protocol).
    pub forfeits: [u64; 2],
    /// Losses on time by A and by B.
    pub time_losses: [u64; 2],
    /// The largest fraction of its own clock A and B used in any counted game (0–1; a game
    /// lost on time counts 1; 0 before any game).
    pub clock_used_max: [f64; 2],
    /// The mean over the counted games of the fraction of its own clock A and B used (0–1;
    /// a game lost on time counts 1; 0 before any game).
    pub clock_used_mean: [f64; 2],
    /// Games in which A and B used more than [`CLOCK_USED_LIMIT_PERCENT`] % of their own clock
    /// (see [`over_clock_limit`]; a game lost on time is one).
    pub games_over_95: [u64; 2],
    /// Agreed draws.
    pub agreed_draws: u64,
    /// The SPRT, if requested.
    pub sprt: Option<SprtSummary>,
    /// The race to `--target-points`, if requested.
    pub race: Option<Race>,
    /// The stakes, if requested.
    pub stakes: Option<StakeSummary>,
    /// Why the match ended.
    pub stopped_by: StopReason,
    /// Games finished after the stop and not counted.
    pub uncounted: u64,
    /// The counted games, in order.
    pub game_list: Vec<GameReport>,
}

impl MatchSummary {
    /// The summary before any game: A's and B's names from `spec` (filled in), the race and
    /// the stakes when `spec` asks for them, everything else zero.
    pub(super) fn new(spec: &MatchSpec) -> Self {
        MatchSummary {
            names: spec.names.clone(),
            clock_ms: spec.time_odds().then_some(spec.time_ms),
            games: 0,
            a: Wdl::default(),
            points: [0.0, 0.0],
            avg_disc_diff: 0.0,
            elo: None,
            elo_low: None,
            elo_high: None,
            forfeits: [0, 0],
            time_losses: [0, 0],
            clock_used_max: [0.0, 0.0],
            clock_used_mean: [0.0, 0.0],
            games_over_95: [0, 0],
            agreed_draws: 0,
            sprt: None,
            race: spec.target_points.map(Race::new),
            stakes: spec.stake.map(|stake| StakeSummary {
                stake,
                ledger: Ledger::default(),
            }),
            stopped_by: StopReason::Games,
            uncounted: 0,
            game_list: Vec::new(),
        }
    }

    /// Fills in the figures over all counted games once the match is over: the mean round
    /// value from `disc_sum` (the sum of A's round values), the mean clock fractions, and
    /// the Elo difference with its interval.
    pub(super) fn finish(&mut self, disc_sum: i64) {
        if self.games > 0 {
            self.avg_disc_diff = disc_sum as f64 / self.games as f64;
            for k in 0..2 {
                let sum: f64 = self.game_list.iter().map(|g| g.clock_used[k]).sum();
                self.clock_used_mean[k] = sum / self.games as f64;
            }
        }
        let (e, lo, hi) = self.a.elo_interval();
        (self.elo, self.elo_low, self.elo_high) = (e, lo, hi);
    }
}

/// Seconds since the Unix epoch (0 when the system clock is before it), for GGF dates.
fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Adds one finished game (number `number`, from 1) to the summary and returns its report.
pub(super) fn count_game(
    spec: &MatchSpec,
    summary: &mut MatchSummary,
    disc_sum: &mut i64,
    number: u64,
    outcome: &GameOutcome,
    a_color: Color,
    oi: usize,
) -> GameReport {
    let winner = outcome
        .winner
        .map(|c| if c == a_color { Side::A } else { Side::B });
    match winner {
        Some(Side::A) => summary.a.wins += 1,
        Some(Side::B) => summary.a.losses += 1,
        None => summary.a.draws += 1,
    }
    summary.games += 1;
    let a_points = summary.a.points();
    summary.points = [a_points, summary.games as f64 - a_points];
    if let Some(c) = outcome.forfeited_by() {
        let k = if c == a_color { 0 } else { 1 };
        summary.forfeits[k] += 1;
        if outcome.reason == EndReason::Time {
            summary.time_losses[k] += 1;
        }
    }
    if matches!(outcome.reason, EndReason::DrawAgreed(_)) {
        summary.agreed_draws += 1;
    }
    let a_value = round_value(outcome, a_color);
    *disc_sum += i64::from(a_value);
    let race_points = summary.race.as_mut().map(|race| {
        race.add(a_value);
        race.points
    });
    let settlement = summary.stakes.as_mut().map(|st| {
        let s = settle(st.stake, winner.map(Side::index));
        st.ledger.add(&s);
        s
    });
    if let Some(params) = spec.sprt {
        summary.sprt = Some(SprtSummary {
            params,
            llr: params.llr(&summary.a),
            bounds: params.bounds(),
            state: params.state(&summary.a),
        });
    }
    let (black, white) = if a_color == Color::Black {
        (&spec.names[0], &spec.names[1])
    } else {
        (&spec.names[1], &spec.names[0])
    };
    let k = |c: Color| if c == a_color { 0 } else { 1 };
    let by_color = |v: [u32; 2]| {
        let mut r = [0; 2];
        r[k(Color::Black)] = v[0];
        r[k(Color::White)] = v[1];
        r
    };
    let mut used = [0u64; 2];
    used[k(Color::Black)] = outcome.used_ms[0];
    used[k(Color::White)] = outcome.used_ms[1];
    let mut lost_on_time = [false; 2];
    if outcome.reason == EndReason::Time
        && let Some(c) = outcome.forfeited_by()
    {
        lost_on_time[k(c)] = true;
    }
    // Each side's figures are against its own clock (they differ with time odds).
    let clock_used = [0, 1].map(|j| clock_fraction(used[j], spec.time_ms[j], lost_on_time[j]));
    for j in 0..2 {
        summary.clock_used_max[j] = summary.clock_used_max[j].max(clock_used[j]);
        if over_clock_limit(used[j], spec.time_ms[j], lost_on_time[j]) {
            summary.games_over_95[j] += 1;
        }
    }
    GameReport {
        number,
        opening: spec.openings[oi].text.clone(),
        a_color: a_color.to_string(),
        winner,
        reason: outcome.reason.code().to_string(),
        reason_text: ggf::reason_text(outcome),
        board_score: outcome.board_score,
        a_value,
        offers: by_color(outcome.offers),
        used_ms: used,
        clock_used,
        race_points,
        settlement,
        ggf: ggf::record(
            outcome,
            black,
            white,
            spec.clocks_by_color(a_color),
            now_unix(),
        ),
    }
}

/// The limit on the clock a side may use in one game, percent: a game above it counts in
/// [`MatchSummary::games_over_95`].
pub const CLOCK_USED_LIMIT_PERCENT: u64 = 95;

/// The fraction (0–1) of a `time_ms` clock that `used_ms` (ms) is: 1 when the side lost on
/// time (`lost_on_time`), at most 1, and 0 for a zero clock (never NaN).
pub fn clock_fraction(used_ms: u64, time_ms: u64, lost_on_time: bool) -> f64 {
    if lost_on_time {
        1.0
    } else if time_ms == 0 {
        0.0
    } else {
        (used_ms as f64 / time_ms as f64).min(1.0)
    }
}

/// True when a side used more than [`CLOCK_USED_LIMIT_PERCENT`] % of its `time_ms` clock
/// (`used_ms`, both ms; compared in integers, so exactly 95 % is not over) or lost on time.
pub fn over_clock_limit(used_ms: u64, time_ms: u64, lost_on_time: bool) -> bool {
    lost_on_time
        || u128::from(used_ms) * 100 > u128::from(time_ms) * u128::from(CLOCK_USED_LIMIT_PERCENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_fractions_and_the_95_percent_limit() {
        assert_eq!(clock_fraction(2_500, 10_000, false), 0.25);
        assert_eq!(clock_fraction(9_000, 10_000, true), 1.0);
        assert_eq!(clock_fraction(12_000, 10_000, false), 1.0);
        assert_eq!(clock_fraction(5, 0, false), 0.0);
        assert!(!over_clock_limit(9_500, 10_000, false));
        assert!(over_clock_limit(9_501, 10_000, false));
        assert!(over_clock_limit(0, 10_000, true));
        assert!(!over_clock_limit(u64::MAX / 2, u64::MAX, false));
        assert!(over_clock_limit(u64::MAX, u64::MAX, false));
    }
}
