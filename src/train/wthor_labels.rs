//! Labels of WTHOR positions (step 1 of [`crate::train`]'s pipeline): the theoretical score
//! at 24 empties and above, exact solves near the end, interpolation in between, and random
//! deviations.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;
use rayon::prelude::*;

use super::progress::bar;
use super::wthor_games::{evenly_spaced, read_wthor_games, replay_wthor};
use super::{Sample, black_view, splitmix, worker_engine};
use crate::engine::{Engine, SearchLimits, SolveMode};
use crate::othello::board::Score;
use crate::othello::square::Square;

/// Counts from reading WTHOR.
#[derive(Clone, Debug, Default)]
pub struct WthorStats {
    /// `.wtb` files read.
    pub files: usize,
    /// Games in those files.
    pub games: usize,
    /// Games used (after the subset).
    pub used: usize,
    /// Games dropped: an illegal move, or a theoretical score out of range.
    pub bad: usize,
    /// Games left out because they pass through a test position
    /// ([`TrainOptions::test_positions`](super::TrainOptions::test_positions)).
    pub test_games: usize,
    /// Games whose final score equals the theoretical score.
    pub exact_tail: usize,
    /// Labelled positions.
    pub positions: usize,
}

/// Reads and labels WTHOR games (see the module header). `limit` keeps an evenly spaced
/// subset of that many games; games through a position of `test` are left out. Game numbers
/// start at 0.
pub fn load_wthor(
    dir: &Path,
    limit: Option<usize>,
    solve_empties: u32,
    deviation_plies: u32,
    test: &HashSet<(u64, u64)>,
) -> Result<(Vec<Sample>, WthorStats)> {
    let (files, mut games) = read_wthor_games(dir)?;
    let mut stats = WthorStats {
        files,
        games: games.len(),
        ..WthorStats::default()
    };
    games = evenly_spaced(games, limit);
    stats.used = games.len();
    let pb = bar(games.len() as u64, "wthor");
    let per_game: Vec<GameLabels> = games
        .par_iter()
        .enumerate()
        .map_init(worker_engine, |engine, (gi, g)| {
            pb.inc(1);
            if !test.is_empty()
                && replay_wthor(&g.moves).is_some_and(|(ps, _)| {
                    ps.iter()
                        .any(|p| test.contains(&(p.board.player, p.board.opponent)))
                })
            {
                return GameLabels::Test;
            }
            match label_wthor_game(engine, g, gi as u32, solve_empties, deviation_plies) {
                Some((s, tail)) => GameLabels::Used(s, tail),
                None => GameLabels::Bad,
            }
        })
        .collect();
    pb.finish_and_clear();
    let mut samples = Vec::new();
    for r in per_game {
        match r {
            GameLabels::Bad => stats.bad += 1,
            GameLabels::Test => stats.test_games += 1,
            GameLabels::Used(s, tail) => {
                stats.exact_tail += tail as usize;
                samples.extend(s);
            }
        }
    }
    stats.positions = samples.len();
    Ok((samples, stats))
}

/// What became of one WTHOR game.
enum GameLabels {
    /// Unusable (an illegal move, a theoretical score out of range).
    Bad,
    /// Left out: it passes through a test position.
    Test,
    /// Its labelled positions, and whether its final score equals the theoretical one.
    Used(Vec<Sample>, bool),
}

/// The label of a position with `e` empties between the anchors, black's view, in discs: the
/// theoretical score `t` at 24 empties and the exact score `a` at `solve_empties` (< `e` <
/// 24), interpolated linearly by empties, the step from `a` rounded to the nearest disc
/// (halves away from `a`, in either direction).
pub(crate) fn interpolate(t: Score, a: Score, e: u32, solve_empties: u32) -> Score {
    let span = (24 - solve_empties) as f64;
    let k = e as f64 - solve_empties as f64;
    a + ((t - a) as f64 * k / span).round() as Score
}

/// Labels the positions of one WTHOR game (see the module header): `None` if the game is
/// unusable. Also says whether the final score equals the theoretical score.
fn label_wthor_game(
    engine: &mut Engine,
    g: &wthor::game_archive::Game,
    game: u32,
    solve_empties: u32,
    deviation_plies: u32,
) -> Option<(Vec<Sample>, bool)> {
    if g.theoretical_score > 64 {
        return None;
    }
    let t = 2 * g.theoretical_score as Score - 64;
    let (positions, fin) = replay_wthor(&g.moves)?;
    let exact_tail = fin == Some(t);
    engine.new_game();
    let exact = SearchLimits {
        mode: SolveMode::Exact,
        ..SearchLimits::default()
    };
    // Exact scores (black's view) of the positions with few empties.
    let solved: Vec<Option<Score>> = positions
        .iter()
        .map(|p| {
            (p.board.empties() <= solve_empties).then(|| {
                let r = engine.search(&p.board, &exact, &mut |_| {});
                black_view(p.side, r.score)
            })
        })
        .collect();
    let anchor = solved.iter().flatten().next().copied();
    let mut deviations = Vec::new();
    for (ply, (p, s)) in positions.iter().zip(&solved).enumerate() {
        if s.is_none() || deviation_plies == 0 {
            continue;
        }
        let played = g.moves.get(ply).map(|m| m.rank * 8 + m.file);
        let mut rng = splitmix(((game as u64) << 8) ^ ply as u64 ^ 0xD1B5_4A32_D192_ED03);
        let mut b = p.board;
        for d in 0..deviation_plies {
            if b.is_game_over() {
                break;
            }
            if !b.has_moves() {
                b = b.pass();
            }
            let mut moves = b.moves();
            if d == 0
                && let Some(x) = played
                && moves.count_ones() > 1
            {
                moves &= !(1u64 << x);
            }
            rng = splitmix(rng);
            let k = (rng % moves.count_ones() as u64) as u32;
            let mut m = moves;
            for _ in 0..k {
                m &= m - 1;
            }
            b = b.make_move(Square::from_index(m.trailing_zeros() as u8));
            if b.is_game_over() {
                break;
            }
            if !b.has_moves() {
                b = b.pass();
            }
            let r = engine.search(&b, &exact, &mut |_| {});
            deviations.push(Sample {
                board: b,
                label: r.score as i8,
                game,
            });
        }
    }
    let samples = positions
        .iter()
        .zip(&solved)
        .map(|(p, s)| {
            let e = p.board.empties();
            let black = match (s, anchor) {
                (Some(v), _) => *v,
                _ if e >= 24 => t,
                // Between the anchors: interpolate by empties.
                (None, Some(a)) => interpolate(t, a, e, solve_empties),
                (None, None) => t,
            };
            Sample {
                board: p.board,
                label: black_view(p.side, black) as i8,
                game,
            }
        })
        .chain(deviations)
        .collect();
    Some((samples, exact_tail))
}

#[cfg(test)]
mod tests {
    use super::interpolate;

    #[test]
    fn interpolation_runs_from_the_exact_score_to_the_theoretical_one() {
        // Exact +10 at 14 empties, theoretical -10 at 24: 2 discs an empty.
        assert_eq!(interpolate(-10, 10, 14, 14), 10);
        assert_eq!(interpolate(-10, 10, 15, 14), 8);
        assert_eq!(interpolate(-10, 10, 19, 14), 0);
        assert_eq!(interpolate(-10, 10, 23, 14), -8);
        assert_eq!(interpolate(-10, 10, 24, 14), -10);
        // Rounding: 0 to +3 over 10 empties, 1 empty in: 0.3 rounds to 0; 5 in: 1.5 to 2;
        // and downwards alike: 0 to -3, 5 in: -1.5 to -2.
        assert_eq!(interpolate(3, 0, 15, 14), 0);
        assert_eq!(interpolate(3, 0, 19, 14), 2);
        assert_eq!(interpolate(-3, 0, 19, 14), -2);
        assert_eq!(interpolate(-3, 0, 15, 14), 0);
    }
}
