//! `flank match`: a match runner between two GTP engines, and the game system of its rules.
//!
//! One concern per file:
//! - [`player`]: the `Player` trait the referee drives, faults, game set-up.
//! - [`process`]: a GTP engine in a child process (the real `Player`).
//! - [`referee`]: one game under flank's rules and the runner's clocks; draw offers; forfeits.
//! - [`ggf`]: game records in GGF, one game per line.
//! - [`stats`]: Elo difference with its 95 % interval, and the GSPRT stop.
//! - [`stakes`]: money amounts in cents and the settlement of a stake per game.
//! - [`rounds`]: round values and the `--target-points` race.
//! - [`runner`]: openings, the schedule of games over parallel workers, the summary.
//!
//! The full reference is `docs/match.md`.

#[cfg(test)]
pub(crate) mod fake;
pub mod ggf;
pub mod player;
pub mod process;
pub mod referee;
pub mod rounds;
pub mod runner;
pub mod stakes;
pub mod stats;
