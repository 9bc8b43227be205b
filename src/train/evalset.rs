//! `flank evalset`: a held-out test set for evaluation work, built from WTHOR: positions with
//! given empties taken from the games that `flank train` holds out for validation, every legal
//! move solved exactly (up to 24 empties), or labelled by a deep midgame search (the midgame
//! set, 30–50 empties), written as OBF lines like `$FLANK_DATA/endgame/*.obf`. `flank
//! eval-error SET` prints an evaluation's error on a set by empties.
//!
//! Why: the project's target figure, best-move agreement of a depth-15 search on the 276 positions of
//! `hard-20.obf`, moves by ±3–5 positions between evaluations of equal held-out error (its
//! binomial standard error alone is about 2.5 %). A few thousand positions from held-out games
//! searched to leaves at the same empties (for example 14 empties at depth 9: leaves at 5
//! empties, as hard-20 at depth 15) compare two evaluations with a standard error near 0.5 %,
//! in well under a minute (`flank solve --depth 9 FILE` prints the agreement; `--json` gives
//! each position's score and exact score). The positions are from games that a training run on
//! all WTHOR games (the default) with the same seed holds out; a run on a subset
//! (`--wthor-games`, `--quick`) numbers its games differently and trains on many of them. Games
//! through a position of `hard-20.obf` are left out as in training. A game can repeat another
//! one's opening and reach the same position: about 0.35 % of the positions at 14 empties also
//! occur in training games (measured by a newcomer's independent replay).
//!
//! A second kind of set ([`selfplay_set`], `flank evalset --selfplay FILE`) takes the
//! positions of the self-play test games (one in 20 by index, which `flank refit` never fits)
//! and labels each with its game's exact result: a label no evaluation's own search made.

use std::collections::HashSet;
use std::path::PathBuf;

use anyhow::{Result, bail};
use rayon::prelude::*;

use crate::engine::{SearchLimits, SolveMode};
use crate::othello::Position;
use crate::othello::board::Board;
use crate::othello::square::Move;
use crate::train::selfplay_records::{LabelledPosition, is_test_game, read_corpus};
use crate::train::{
    bar, is_held_out, load_test_positions, read_wthor_games, replay_wthor, splitmix, worker_engine,
};

/// Settings of an evaluation test set.
#[derive(Clone, Debug)]
pub struct EvalSetOptions {
    /// The WTHOR directory (`$FLANK_DATA/games/wthor`).
    pub wthor_dir: PathBuf,
    /// Empties of the positions, an inclusive range (1–59): each game gives one position, at
    /// a count drawn from the game's number.
    pub empties: (u32, u32),
    /// Positions wanted, shared evenly among the empties counts and evenly spaced over each
    /// count's candidates (fewer if fewer exist).
    pub count: usize,
    /// How the positions are labelled: `None`, every legal move solved exactly (at most 24
    /// empties; slow above 20); `Some(d)`, a depth-`d` midgame search of the position (with
    /// the active evaluation and its default ProbCut) gives its best move and value, for
    /// midgame positions no solver reaches.
    pub label_depth: Option<u32>,
    /// The training seed whose validation split is used (`flank train --seed`, default 1).
    pub seed: u64,
    /// Percentage of games held out by that split (5, as in `flank train`).
    pub validation_percent: u64,
    /// Games through any position of this OBF file (any symmetry) are left out.
    pub test_positions: Option<PathBuf>,
}

/// What [`build`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvalSetStats {
    /// WTHOR games read.
    pub games: usize,
    /// Games in the validation split (before leaving out test-set games).
    pub held_out: usize,
    /// Held-out games left out because they pass through a test position.
    pub test_games: usize,
    /// Distinct positions with the wanted empties and a legal move.
    pub candidates: usize,
}

/// Builds the set: returns the OBF lines (cells `X` black / `O` white, the side to move, then
/// every legal move with its exact score for the side to move, best first; or with
/// [`EvalSetOptions::label_depth`] the search's best move and value only) and what was found.
/// Errors: the WTHOR directory or the test file cannot be read, the empties are out of range
/// (above 24 without a label depth), or no held-out game reaches a position with those
/// empties. Labelling shows a progress bar on stderr.
pub fn build(opts: &EvalSetOptions) -> Result<(Vec<String>, EvalSetStats)> {
    let (lo, hi) = opts.empties;
    if lo < 1 || hi > 59 || lo > hi {
        bail!("--empties must be 1-59, not {lo}-{hi}");
    }
    if opts.label_depth.is_none() && hi > 24 {
        bail!("positions with more than 24 empties need a label depth (--depth)");
    }
    let test = match &opts.test_positions {
        Some(p) => load_test_positions(p)?,
        None => HashSet::new(),
    };
    let (_, games) = read_wthor_games(&opts.wthor_dir)?;
    let mut stats = EvalSetStats {
        games: games.len(),
        ..EvalSetStats::default()
    };
    let mut seen = HashSet::new();
    // Candidates per empties count, lo..=hi.
    let mut by_empties: Vec<Vec<Position>> = vec![Vec::new(); (hi - lo + 1) as usize];
    for (gi, g) in games.iter().enumerate() {
        if !is_held_out(opts.seed, opts.validation_percent, gi as u32) {
            continue;
        }
        stats.held_out += 1;
        let Some((positions, _)) = replay_wthor(&g.moves) else {
            continue;
        };
        if positions
            .iter()
            .any(|p| test.contains(&(p.board.player, p.board.opponent)))
        {
            stats.test_games += 1;
            continue;
        }
        // Each game gives one position, at an empties count drawn from its number, so that
        // the counts' positions come from different games.
        let e = lo + (splitmix(gi as u64) % u64::from(hi - lo + 1)) as u32;
        if let Some(p) = positions
            .iter()
            .find(|p| p.board.empties() == e && p.board.has_moves())
            && seen.insert((p.board.player, p.board.opponent, p.side))
        {
            by_empties[(e - lo) as usize].push(*p);
        }
    }
    stats.candidates = by_empties.iter().map(Vec::len).sum();
    if stats.candidates == 0 {
        bail!("no held-out WTHOR game reaches a position with {lo}-{hi} empties and a legal move");
    }
    let chosen = spread(&by_empties, opts.count);
    let pb = bar(chosen.len() as u64, "labelling");
    let lines = chosen
        .par_iter()
        .map_init(worker_engine, |engine, p| {
            pb.inc(1);
            let mut line = format!("{p};");
            if let Some(depth) = opts.label_depth {
                engine.new_game();
                let limits = SearchLimits {
                    mode: SolveMode::Midgame,
                    depth: Some(depth),
                    ..SearchLimits::default()
                };
                let r = engine.search(&p.board, &limits, &mut |_| {});
                line.push_str(&format!(
                    " {}:{:+};",
                    r.best.to_string().to_uppercase(),
                    r.score
                ));
                return line;
            }
            let exact = SearchLimits {
                mode: SolveMode::Exact,
                ..SearchLimits::default()
            };
            let mut solve = |b: &Board| engine.search(b, &exact, &mut |_| {}).score;
            let mut scored: Vec<(i32, String)> = p
                .board
                .legal_moves()
                .map(|m| {
                    let child = p.board.make_move(m);
                    let score = if child.has_moves() {
                        -solve(&child)
                    } else if child.pass().has_moves() {
                        solve(&child.pass())
                    } else {
                        -child.final_score()
                    };
                    (score, Move::Play(m).to_string().to_uppercase())
                })
                .collect();
            scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            for (s, m) in scored {
                line.push_str(&format!(" {m}:{s:+};"));
            }
            line
        })
        .collect();
    pb.finish_and_clear();
    Ok((lines, stats))
}

/// `count` items of `by_group` (one list per empties count), shared evenly among the groups
/// (the remainder to the first ones) and evenly spaced within each; a group with fewer gives
/// all it has.
fn spread<T: Copy>(by_group: &[Vec<T>], count: usize) -> Vec<T> {
    let groups = by_group.len().max(1);
    let mut chosen = Vec::new();
    for (k, candidates) in by_group.iter().enumerate() {
        let want = count / groups + usize::from(k < count % groups);
        if candidates.len() > want {
            chosen.extend((0..want).map(|i| candidates[i * candidates.len() / want]));
        } else {
            chosen.extend(candidates.iter().copied());
        }
    }
    chosen
}

/// What [`selfplay_set`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SelfplaySetStats {
    /// Self-play games read.
    pub games: usize,
    /// Test games among them.
    pub test_games: usize,
    /// Their positions with the wanted empties.
    pub candidates: usize,
}

/// Builds a self-play test set: the positions after the opening, with `empties` (inclusive),
/// of the test games of the self-play record `files` (one game in `test_every` by index,
/// [`is_test_game`]: the games `flank refit` never fits), each as an OBF line with the move
/// played and the game's exact result from the side to move's view (`… X; D3:+4;`). The
/// label is the outcome of the game flank went on to play (its search's moves, then perfect
/// play from the solve), not the value of any evaluation, so it measures evaluations trained
/// on self-play and those that were not alike; it is noisy (every later move's mistakes are
/// in it), so sets are large. At most `count` positions, shared evenly among the empties
/// counts and evenly spaced over each count's candidates; a position two games share
/// appears once per game.
///
/// Errors: a file that cannot be read or parsed, a game in two files
/// ([`crate::train::selfplay_records::read_corpus`]), empties outside 1–59, `test_every` 0,
/// or no test game with a position in range.
pub fn selfplay_set(
    files: &[PathBuf],
    test_every: u64,
    empties: (u32, u32),
    count: usize,
) -> Result<(Vec<String>, SelfplaySetStats)> {
    let (lo, hi) = empties;
    if lo < 1 || hi > 59 || lo > hi {
        bail!("--empties must be 1-59, not {lo}-{hi}");
    }
    if test_every == 0 {
        bail!("no test games: --selfplay-test-every must be at least 1");
    }
    let mut stats = SelfplaySetStats::default();
    let mut by_empties: Vec<Vec<LabelledPosition>> = vec![Vec::new(); (hi - lo + 1) as usize];
    for (_, records) in read_corpus(files)? {
        stats.games += records.len();
        for r in records.iter().filter(|r| is_test_game(r.index, test_every)) {
            stats.test_games += 1;
            for p in r.positions() {
                let e = p.position.board.empties();
                if (lo..=hi).contains(&e) {
                    by_empties[(e - lo) as usize].push(p);
                }
            }
        }
    }
    stats.candidates = by_empties.iter().map(Vec::len).sum();
    if stats.candidates == 0 {
        bail!("no self-play test game has a position with {lo}-{hi} empties");
    }
    let lines = spread(&by_empties, count)
        .iter()
        .map(|p| {
            let played = p.played.to_string().to_uppercase();
            format!("{}; {played}:{:+};", p.position, p.exact)
        })
        .collect();
    Ok((lines, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `lines` to a fresh file in the temporary directory and returns its path.
    fn records_file(name: &str, lines: &[&str]) -> PathBuf {
        let path = std::env::temp_dir().join(format!("flank-{name}-{}.txt", std::process::id()));
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    #[test]
    fn a_selfplay_set_holds_the_test_games_positions_with_their_results() {
        // Games 18, 19 and 39 from the start (no opening plies): f5 d6 c3, black wins by 6.
        // With one test game in 20, only 19 and 39 are test games.
        let path = records_file(
            "selfplay-set",
            &[
                "# flank selfplay v1 seed=1",
                "18\t0\tf5d6c3\t+6\t+1,-1,+2",
                "19\t0\tf5d6c3\t+6\t+1,-1,+2",
                "39\t0\tf5d6\t-4\t+0,+0",
            ],
        );
        let (lines, stats) = selfplay_set(std::slice::from_ref(&path), 20, (58, 59), 100).unwrap();
        let expected_stats = SelfplaySetStats {
            games: 3,
            test_games: 2,
            candidates: 3,
        };
        assert_eq!(stats, expected_stats);
        let after_f5 = "---------------------------OX------XXX--------------------------";
        let after_d6 = "---------------------------OX------OXX-----O--------------------";
        // Grouped by empties (58, then 59), in file order within each; the start position
        // (60 empties) is out of range.
        assert_eq!(
            lines,
            vec![
                format!("{after_d6} X; C3:+6;"),
                format!("{after_f5} O; D6:-6;"),
                format!("{after_f5} O; D6:+4;"),
            ]
        );
        // `count` spreads over the empties counts: one position each.
        let (few, _) = selfplay_set(std::slice::from_ref(&path), 20, (58, 59), 2).unwrap();
        assert_eq!(few, vec![lines[0].clone(), lines[1].clone()]);
        // No test game in range, no test games at all, bad empties: errors.
        assert!(selfplay_set(std::slice::from_ref(&path), 20, (30, 40), 100).is_err());
        assert!(selfplay_set(std::slice::from_ref(&path), 0, (58, 59), 100).is_err());
        assert!(selfplay_set(std::slice::from_ref(&path), 20, (0, 60), 100).is_err());
        std::fs::remove_file(path).unwrap();
    }
}
