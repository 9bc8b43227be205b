//! `flank match`: a match runner between two GTP engines, and the game system of its rules.
//!
//! One concern per file:
//! - [`player`]: the `Player` trait the referee drives, faults, game set-up.
//! - [`child`]: an engine's child process (spawn, lines with timeouts, process groups, the
//!   registry of live engines that `kill_all_engines` ends), for both kinds of engine.
//! - [`process`]: a GTP engine in a child process (the real `Player`).
//! - [`nboard_process`]: an NBoard engine in a child process (`--protocol-a/-b nboard`).
//! - [`referee`]: one game under flank's rules and the runner's clocks; draw offers; forfeits.
//! - [`ggf`]: game records in GGF, one game per line.
//! - [`stats`]: Elo difference with its 95 % interval, and the GSPRT stop.
//! - [`stakes`]: money amounts in cents and the settlement of a stake per game.
//! - [`rounds`]: round values and the `--target-points` race.
//! - [`openings`]: the built-in openings and openings files (for handicap games too).
//! - [`schedule`]: the `MatchSpec` and, for each game, its opening, colours, start and clocks.
//! - [`summary`]: each counted game's report, the match summary (the JSON output), the clock
//!   fractions used.
//! - [`text`]: the text output, one line per game and the summary.
//! - [`runner`]: the games over parallel workers, counted in game order, stops, GGF output;
//!   re-exports the public items of `openings`, `schedule`, `summary` and `text`.
//!
//! The full reference is `docs/match.md`.

pub mod child;
#[cfg(test)]
pub(crate) mod fake;
pub mod ggf;
pub mod nboard_process;
pub mod openings;
pub mod player;
pub mod process;
pub mod referee;
pub mod rounds;
pub mod runner;
pub mod schedule;
pub mod stakes;
pub mod stats;
pub mod summary;
pub mod text;
