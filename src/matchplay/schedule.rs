//! What a match is and its schedule: the [`MatchSpec`] (players A and B, clocks, openings,
//! handicap, stops) with the bounds on its clocks, and for each game its opening, the colours
//! of A and B, its start position and its clocks.
//!
//! Game `i` (from 0) plays opening `(i / 2) mod openings` with player A black when `i` is even
//! and white when it is odd, so every opening is played twice with colours swapped.

use std::time::Duration;

use serde::Serialize;

use super::openings::Opening;
use super::player::GameSetup;
use super::referee::RefereeConfig;
use super::stats::Sprt;
use crate::othello::Position;
use crate::othello::game::handicap_position;
use crate::othello::square::Color;

/// The game cap when `--target-points` or `--sprt` decide the length and `--games` is not
/// given.
pub const UNBOUNDED_GAMES: u64 = 10_000;

/// Player A or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// `--engine-a`.
    A,
    /// `--engine-b`.
    B,
}

impl Side {
    /// 0 for A, 1 for B: the index of the side in `[A, B]` pairs.
    pub(super) fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }
}

/// Everything that defines a match.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    /// Games to play (`None`: 2 × openings, or [`UNBOUNDED_GAMES`] with a target or SPRT).
    pub games: Option<u64>,
    /// Games played at once (≥ 1).
    pub concurrency: usize,
    /// The whole-game clock of A and of B, ms (`--time`, or `--time-a` / `--time-b` for time
    /// odds); each side's clock goes with it to whichever colour it plays.
    pub time_ms: [u64; 2],
    /// The openings (at least one; the empty opening is the start position).
    pub openings: Vec<Opening>,
    /// Draw offers and command bounds.
    pub referee: RefereeConfig,
    /// `Some((side, corners))`: that side gets the corners in every game.
    pub handicap: Option<(Side, u32)>,
    /// Stop early by SPRT.
    pub sprt: Option<Sprt>,
    /// Stop when a player reaches this many round points.
    pub target_points: Option<u32>,
    /// Stake per game, cents.
    pub stake: Option<u64>,
    /// Display names of A and B (in records and the summary); an empty name becomes the
    /// engine's `name` answer with `-A` / `-B` appended.
    pub names: [String; 2],
    /// GGF output file (appended, one game per line).
    pub ggf: Option<std::path::PathBuf>,
    /// Show the progress bar on stderr.
    pub progress: bool,
}

impl MatchSpec {
    /// The number of games scheduled.
    pub fn total_games(&self) -> u64 {
        match self.games {
            Some(n) => n,
            None if self.target_points.is_some() || self.sprt.is_some() => UNBOUNDED_GAMES,
            None => 2 * self.openings.len() as u64,
        }
    }

    /// The clocks of black and of white, ms (`[black, white]`), in a game where A plays
    /// `a_color`.
    pub fn clocks_by_color(&self, a_color: Color) -> [u64; 2] {
        let [a, b] = self.time_ms;
        match a_color {
            Color::Black => [a, b],
            Color::White => [b, a],
        }
    }

    /// True when A and B have clocks of different lengths (time odds).
    pub fn time_odds(&self) -> bool {
        self.time_ms[0] != self.time_ms[1]
    }

    /// The position every game starts from (before the opening): the start position, or
    /// the handicap position when the handicapped side plays `handicap_color`.
    fn start_for(&self, handicap_color: Option<Color>) -> Result<Position, String> {
        match (self.handicap, handicap_color) {
            (Some((_, n)), Some(c)) => handicap_position(c, n).map_err(|e| e.to_string()),
            _ => Ok(Position::start()),
        }
    }

    /// Game `i` (from 0) in the schedule: its set-up (start position, handicap corners,
    /// opening moves, clocks by colour), the colour A plays, and the index of its opening in
    /// `openings`.
    ///
    /// Errors: a handicap start position that cannot be built.
    pub(super) fn game_setup(&self, i: u64) -> Result<(GameSetup, Color, usize), String> {
        let a_color = if i.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        };
        let oi = ((i / 2) % self.openings.len() as u64) as usize;
        let handicap_color = self.handicap.map(|(side, _)| match side {
            Side::A => a_color,
            Side::B => a_color.opposite(),
        });
        let setup = GameSetup {
            start: self.start_for(handicap_color)?,
            handicap: self.handicap.zip(handicap_color).map(|((_, n), c)| (c, n)),
            opening: self.openings[oi].moves.clone(),
            time_ms: self.clocks_by_color(a_color),
        };
        Ok((setup, a_color, oi))
    }
}

/// The shortest clock `--time` (and `--time-a`, `--time-b`) accepts, ms (0.1 s): below it no
/// engine can answer a command in time, and the GGF `TI` (whole seconds, rounded up) would
/// misstate it.
pub const MIN_TIME_MS: u64 = 100;

/// The command timeout used for everything not on a clock.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
