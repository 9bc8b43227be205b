//! Playing levels: the one table of what `easy`, `medium`, `hard` and the numeric levels 1–60
//! search, and the move choice at a level (see `docs/levels.md`).
//!
//! | level | midgame | exact endgame solve | randomness |
//! |---|---|---|---|
//! | `easy` | depth [`EASY_DEPTH`] (1 ply: each move judged by the evaluation of the position it leads to) | none | softmax over the move scores, temperature [`EASY_TEMPERATURE`] discs, and [`EASY_RANDOM_PERCENT`] % of moves uniformly random |
//! | `medium` | depth [`MEDIUM_DEPTH`] | at ≤ [`MEDIUM_SOLVE_EMPTIES`] empties | none |
//! | `hard` | time-managed iterative deepening (no depth limit) | the engine's [`SolveMode::Auto`] rule | none |
//! | `L` = 1…60 | depth `L` | at ≤ [`numeric_solve_empties`]`(L)` = min(2L, [`MAX_SOLVE_EMPTIES`]) empties | none |
//!
//! The numeric levels follow the idea of Edax's levels (midgame depth L, a deeper exact
//! endgame growing with L); the table itself is flank's own. `hard` is flank's full strength
//! and the default.
//!
//! Every level stays under the time manager: the soft target and the hard deadline of the
//! [`SearchLimits`] given to [`search_at_level`] bound each search, so a fixed depth or a
//! solve that does not fit in the time is cut short (the deepest completed midgame iteration
//! is played) and flank never loses on time because of its level. The `--depth` cap of
//! `flank gtp` (the `depth` of the limits) applies on top of a level's depth.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use rand::Rng;
use rand_chacha::ChaCha12Rng;

use crate::engine::{Engine, SearchInfo, SearchLimits, SearchResult, SolveMode};
use crate::eval::evaluate;
use crate::notation::clip;
use crate::othello::board::{Board, Score};
use crate::othello::square::{Move, Square};

/// The default seed of the random generator behind `easy`'s randomness (`--seed`): the same
/// seed and the same commands give the same moves.
pub const DEFAULT_SEED: u64 = 1;
/// The highest numeric level.
pub const MAX_LEVEL: u32 = 60;
/// `easy`'s search depth in plies: each legal move is scored by the evaluation of the position
/// it leads to (a finished game by its final score).
pub const EASY_DEPTH: u32 = 1;
/// `easy`'s softmax temperature in discs: a move `d` discs worse than the best is chosen
/// e^(−d/T) times as often as the best.
pub const EASY_TEMPERATURE: f64 = 3.0;
/// Percentage of `easy`'s moves chosen uniformly at random among the legal moves.
pub const EASY_RANDOM_PERCENT: u32 = 15;
/// `medium`'s midgame depth in plies.
pub const MEDIUM_DEPTH: u32 = 4;
/// Empties at or below which `medium` solves exactly.
pub const MEDIUM_SOLVE_EMPTIES: u32 = 12;

/// A playing level: `easy`, `medium`, `hard` (full strength, the default) or a numeric level
/// 1–[`MAX_LEVEL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Level {
    /// Beginner's level: 1-ply scores with deliberate, seeded randomness.
    Easy,
    /// Fixed depth [`MEDIUM_DEPTH`], exact at ≤ [`MEDIUM_SOLVE_EMPTIES`] empties.
    Medium,
    /// Full strength: time-managed search with the engine's automatic endgame solve.
    #[default]
    Hard,
    /// Midgame depth L plies, exact at ≤ [`numeric_solve_empties`]`(L)` empties (1 ≤ L ≤ 60).
    Numeric(u32),
}

/// Why a level string was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelError(pub String);

impl fmt::Display for LevelError {
    /// `bad level 'x' (expected easy, medium, hard or 1-60)`, the text clipped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad level '{}' (expected easy, medium, hard or 1-{MAX_LEVEL})",
            clip(&self.0)
        )
    }
}

impl std::error::Error for LevelError {}

impl FromStr for Level {
    type Err = LevelError;
    /// `easy`, `medium`, `hard` (any case) or a whole number 1–60 (digits only, leading zeros
    /// allowed). Anything else is a [`LevelError`].
    fn from_str(s: &str) -> Result<Level, LevelError> {
        match s.to_ascii_lowercase().as_str() {
            "easy" => return Ok(Level::Easy),
            "medium" => return Ok(Level::Medium),
            "hard" => return Ok(Level::Hard),
            _ => {}
        }
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            // Leading zeros are fine; more than a few digits is out of range anyway.
            let digits = s.trim_start_matches('0');
            if digits.len() <= 2
                && let Ok(l) = digits.parse::<u32>()
                && (1..=MAX_LEVEL).contains(&l)
            {
                return Ok(Level::Numeric(l));
            }
        }
        Err(LevelError(s.to_string()))
    }
}

impl fmt::Display for Level {
    /// `easy`, `medium`, `hard` or the number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::Easy => f.write_str("easy"),
            Level::Medium => f.write_str("medium"),
            Level::Hard => f.write_str("hard"),
            Level::Numeric(l) => write!(f, "{l}"),
        }
    }
}

/// `easy`'s randomness: a softmax over the move scores plus some uniformly random moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    /// Softmax temperature in discs (see [`EASY_TEMPERATURE`]).
    pub temperature: f64,
    /// Percentage of moves chosen uniformly at random among the legal moves.
    pub random_percent: u32,
}

/// What a level searches: one row of the table in the module header.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelSpec {
    /// Midgame depth in plies; `None` = no depth limit (only time, and `--depth`).
    pub depth: Option<u32>,
    /// How the endgame is solved.
    pub endgame: Endgame,
    /// Randomness of the move choice; `None` = always the search's best move.
    pub noise: Option<Noise>,
}

/// A level's endgame rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endgame {
    /// Never solve: the midgame search (which sees a game's end when its depth reaches it)
    /// decides to the last move.
    Never,
    /// Solve exactly at this many empties or fewer, when the time allows.
    AtEmpties(u32),
    /// The engine's own rule, [`SolveMode::Auto`] (exact at ≤ 14 empties, tried at ≤ 24 when
    /// the clock leaves room).
    Auto,
}

/// The cap of [`numeric_solve_empties`]: no level starts an exact solve above 30 empties,
/// where a solve cannot finish within any usual game clock and would only take time from
/// the midgame search.
pub const MAX_SOLVE_EMPTIES: u32 = 30;

/// Empties at or below which numeric level `l` solves exactly: min(2l, [`MAX_SOLVE_EMPTIES`]).
pub fn numeric_solve_empties(l: u32) -> u32 {
    l.saturating_mul(2).min(MAX_SOLVE_EMPTIES)
}

impl Level {
    /// The level's row of the table (see the module header). A `Numeric` level outside
    /// 1–[`MAX_LEVEL`] (only constructible in code, never parsed) is read as the nearest one.
    pub fn spec(self) -> LevelSpec {
        match self {
            Level::Easy => LevelSpec {
                depth: Some(EASY_DEPTH),
                endgame: Endgame::Never,
                noise: Some(Noise {
                    temperature: EASY_TEMPERATURE,
                    random_percent: EASY_RANDOM_PERCENT,
                }),
            },
            Level::Medium => LevelSpec {
                depth: Some(MEDIUM_DEPTH),
                endgame: Endgame::AtEmpties(MEDIUM_SOLVE_EMPTIES),
                noise: None,
            },
            Level::Hard => LevelSpec {
                depth: None,
                endgame: Endgame::Auto,
                noise: None,
            },
            Level::Numeric(l) => {
                let l = l.clamp(1, MAX_LEVEL);
                LevelSpec {
                    depth: Some(l),
                    endgame: Endgame::AtEmpties(numeric_solve_empties(l)),
                    noise: None,
                }
            }
        }
    }
}

/// Searches `board` (side to move's view) at `level` within `limits` (the time manager's
/// soft target `time_ms` and hard `deadline`; `limits.depth` is a cap on the level's depth,
/// `limits.mode` is ignored) and returns the move to play.
///
/// - `hard`: [`Engine::search`] with [`SolveMode::Auto`].
/// - fixed-depth levels: a [`SolveMode::Midgame`] search to the level's depth; then, when the
///   empties are within the level's solve limit and the soft target has not passed, an exact
///   solve bounded by the deadline (the midgame then only gets a quarter of the soft
///   target). A solve that does not finish leaves the midgame result.
/// - `easy`: every legal move scored at [`EASY_DEPTH`] (a finished game by its final score),
///   then the move drawn from `rng` as [`Noise`] says; `score` is the chosen move's score,
///   `exact` false, `pv` the move alone.
///
/// A side to move without a legal move gets the engine's answer (a pass). `on_info` gets the
/// engine's per-iteration reports (none for `easy`).
pub fn search_at_level(
    engine: &mut Engine,
    board: &Board,
    level: Level,
    limits: &SearchLimits,
    rng: &mut ChaCha12Rng,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> SearchResult {
    let spec = level.spec();
    let depth = match (spec.depth, limits.depth) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    if spec.endgame == Endgame::Auto || !board.has_moves() {
        let l = SearchLimits {
            depth,
            mode: SolveMode::Auto,
            ..limits.clone()
        };
        return engine.search(board, &l, on_info);
    }
    let start = Instant::now();
    if let Some(noise) = spec.noise {
        let scored = root_scores(engine, board, depth.unwrap_or(1), limits);
        let nodes = scored.iter().map(|&(_, _, n)| n).sum();
        let scores: Vec<(Square, Score)> = scored.iter().map(|&(m, s, _)| (m, s)).collect();
        let (best, score) = pick_noisy(&scores, noise, rng);
        return SearchResult {
            best: Move::Play(best),
            score,
            depth: depth.unwrap_or(1),
            exact: false,
            wld: false,
            nodes,
            time_ms: start.elapsed().as_millis() as u64,
            pv: vec![Move::Play(best)],
        };
    }
    let solve = match spec.endgame {
        Endgame::AtEmpties(e) => board.empties() <= e,
        _ => false,
    };
    let mid_limits = SearchLimits {
        depth,
        mode: SolveMode::Midgame,
        time_ms: if solve {
            limits.time_ms.map(|ms| ms / 4)
        } else {
            limits.time_ms
        },
        deadline: limits.deadline,
    };
    let mid = engine.search(board, &mid_limits, on_info);
    let soft_left = limits
        .time_ms
        .and_then(|ms| start.checked_add(Duration::from_millis(ms)))
        .is_none_or(|soft| Instant::now() < soft);
    if !solve || !soft_left {
        return mid;
    }
    let exact_limits = SearchLimits {
        depth: None,
        mode: SolveMode::Exact,
        time_ms: None,
        deadline: limits.deadline,
    };
    let r = engine.search(board, &exact_limits, on_info);
    let nodes = mid.nodes + r.nodes;
    if r.exact {
        SearchResult {
            nodes,
            time_ms: start.elapsed().as_millis() as u64,
            ..r
        }
    } else {
        SearchResult {
            nodes,
            time_ms: start.elapsed().as_millis() as u64,
            ..mid
        }
    }
}

/// Every legal move of `board` (which must have one) with its score from the side to move's
/// view at `depth` plies and the nodes spent on it: depth 1 is the negated evaluation of the
/// child (its negated final score when the game is over there); deeper, the negated score of
/// an engine midgame search of the child to `depth − 1` within `limits`.
fn root_scores(
    engine: &mut Engine,
    board: &Board,
    depth: u32,
    limits: &SearchLimits,
) -> Vec<(Square, Score, u64)> {
    board
        .legal_moves()
        .map(|sq| {
            let child = board.make_move(sq);
            if child.is_game_over() {
                return (sq, -child.final_score(), 1);
            }
            if depth <= 1 {
                return (sq, -evaluate(&child), 1);
            }
            let l = SearchLimits {
                depth: Some(depth - 1),
                mode: SolveMode::Midgame,
                time_ms: None,
                deadline: limits.deadline,
            };
            let r = engine.search(&child, &l, &mut |_| {});
            (sq, -r.score, r.nodes)
        })
        .collect()
}

/// Draws a move from `scores` (non-empty; square and score in discs, side to move's view):
/// with probability `noise.random_percent` % a uniformly random one, otherwise one drawn with
/// weight e^((score − best) / temperature) (a softmax; a temperature ≤ 0 picks the best,
/// the first in square order among equals). Returns the square and its score.
pub fn pick_noisy(
    scores: &[(Square, Score)],
    noise: Noise,
    rng: &mut ChaCha12Rng,
) -> (Square, Score) {
    debug_assert!(!scores.is_empty());
    if rng.gen_range(0..100) < noise.random_percent {
        return scores[rng.gen_range(0..scores.len())];
    }
    let best = scores.iter().map(|&(_, s)| s).max().unwrap_or(0);
    if noise.temperature <= 0.0 {
        return scores
            .iter()
            .copied()
            .find(|&(_, s)| s == best)
            .unwrap_or(scores[0]);
    }
    let weights: Vec<f64> = scores
        .iter()
        .map(|&(_, s)| (f64::from(s - best) / noise.temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.r#gen::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return scores[i];
        }
        x -= w;
    }
    // Rounding left a sliver at the end: the last move.
    scores[scores.len() - 1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn parse_and_display() {
        assert_eq!("easy".parse(), Ok(Level::Easy));
        assert_eq!("MEDIUM".parse(), Ok(Level::Medium));
        assert_eq!("Hard".parse(), Ok(Level::Hard));
        assert_eq!("1".parse(), Ok(Level::Numeric(1)));
        assert_eq!("060".parse(), Ok(Level::Numeric(60)));
        for bad in [
            "0",
            "61",
            "-3",
            "+5",
            "",
            "5.0",
            "99999999999999999999",
            "extreme",
        ] {
            assert_eq!(bad.parse::<Level>(), Err(LevelError(bad.to_string())));
        }
        assert_eq!(
            "x".parse::<Level>().unwrap_err().to_string(),
            "bad level 'x' (expected easy, medium, hard or 1-60)"
        );
        for l in [Level::Easy, Level::Medium, Level::Hard, Level::Numeric(17)] {
            assert_eq!(l.to_string().parse(), Ok(l));
        }
        // Out-of-range numeric levels built in code are clamped.
        assert_eq!(Level::Numeric(0).spec(), Level::Numeric(1).spec());
        assert_eq!(Level::Numeric(99).spec(), Level::Numeric(60).spec());
    }

    #[test]
    fn softmax_prefers_better_moves_and_zero_temperature_is_greedy() {
        let a = Square::from_index(0);
        let b = Square::from_index(1);
        let scores = [(a, 0), (b, 6)];
        let greedy = Noise {
            temperature: 0.0,
            random_percent: 0,
        };
        let mut rng = ChaCha12Rng::seed_from_u64(7);
        for _ in 0..20 {
            assert_eq!(pick_noisy(&scores, greedy, &mut rng), (b, 6));
        }
        // T = 3: b is chosen e^2 ≈ 7.4 times as often as a, i.e. 88 % of the time.
        let soft = Noise {
            temperature: 3.0,
            random_percent: 0,
        };
        let n = 4000;
        let bs = (0..n)
            .filter(|_| pick_noisy(&scores, soft, &mut rng).0 == b)
            .count();
        assert!((3350..3700).contains(&bs), "{bs}");
        // All random: about half each.
        let uniform = Noise {
            temperature: 0.0,
            random_percent: 100,
        };
        let bs = (0..n)
            .filter(|_| pick_noisy(&scores, uniform, &mut rng).0 == b)
            .count();
        assert!((1800..2200).contains(&bs), "{bs}");
    }
}
