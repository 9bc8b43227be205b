//! `flank refit`: refits the linear pattern weights of chosen phases of a weights file on
//! WTHOR and self-play positions whose labels mix the game's result with a search value, and
//! keeps everything else of the file (the other phases, the residual nets, the midgame
//! ProbCut table).
//!
//! Labels, side to move's view, in discs:
//! - a WTHOR position with at most 14 empties (when a phase below 12 is refitted): its exact
//!   score; with 15-23 empties: `flank train`'s interpolation between the theoretical score
//!   at 24 and the exact score at 14 empties, or the second anchor's score (below);
//! - a WTHOR position with at least 24 empties: the game's theoretical score (perfect play
//!   from 24 empties, recorded in WTHOR), from the position's side to move's view. That score
//!   is what the game's moves from the position down to 24 empties led to under perfect play
//!   after them, so it charges the players' mistakes on the way to the position: when the
//!   side to move at 24 empties is the other side, the side to move made one more move than
//!   its opponent, and the label is low by one move's mean loss (an odd-even bias that the
//!   fit learns as a bias of the side to move at every other empties count). With
//!   [`RefitOptions::parity_anchor`] `E`, those positions are labelled instead with the exact
//!   score of the game's position at `E` or `E − 1` empties whose side to move is theirs
//!   (flank's exact solve), so that both sides made as many moves; a sampled share of them (one in
//!   [`RefitOptions::search_every`]) gets `mix × v + (1 − mix) × theoretical`, `v` the value
//!   of a depth-[`RefitOptions::search_depth`] search with the active evaluation;
//! - with [`RefitOptions::children_every`], one WTHOR position in that many also gives one of
//!   its children after a move the game did not play (drawn by the position's hash), the
//!   kind of position a search evaluates and a game never shows: labelled with the mean of
//!   the values at depths `d − 1` and `d` ([`RefitOptions::children_depth`]) of one
//!   iterative-deepening search, so that the two parities' opposite biases cancel, and
//!   weighted [`RefitOptions::children_weight`] times a game position;
//! - a self-play position ([`crate::train::selfplay_records`]): `mix × its search value +
//!   (1 − mix) × the game's exact score`. The self-play test games
//!   ([`RefitOptions::selfplay_test_every`]) are never fitted, and
//!   [`RefitOptions::selfplay_every`] keeps a regular subset of the others.
//!
//! The labelled WTHOR positions can be kept in a cache file ([`RefitOptions::wthor_cache`])
//! that later refits with the same labelling settings read instead of
//! labelling again.
//!
//! Each phase is fitted as in [`crate::train::fit()`] (its own empties plus one either side,
//! conjugate gradients on the ridge normal equations), but regularised towards the base
//! file's own weights of that phase rather than a neighbour's: a refit moves the weights only
//! as far as the new labels ask. The validation split is `flank train`'s (seed 1, 5 % of the
//! WTHOR games by number; self-play games are split the same way by a number after WTHOR's),
//! so `flank evalset` sets from the same seed stay held out.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::fit::{fit_one_phase, quantise};
use super::progress::bar;
use super::refit_cache::{self, Labelled, WthorLabels};
use super::selfplay_records::{is_test_game, read_corpus};
use super::wthor_games::evenly_spaced;
use super::wthor_labels::interpolate;
use super::{
    is_held_out, load_test_positions, read_wthor_games, replay_wthor, splitmix, worker_engine,
};
use crate::engine::{SearchLimits, SolveMode};
use crate::eval::features::{LAYOUT, NUM_PHASES, PHASE_WIDTH, SCALE, phase};
use crate::eval::pattern::PatternEval;
use crate::eval::weights;
use crate::othello::board::Board;
use crate::othello::square::Color;

/// Settings of a refit.
#[derive(Clone, Debug)]
pub struct RefitOptions {
    /// The weights file to start from (`trained`: the built-in weights).
    pub base: String,
    /// Phases whose linear weights are refitted.
    pub phases: Vec<usize>,
    /// The WTHOR directory; `None`: no WTHOR positions.
    pub wthor_dir: Option<PathBuf>,
    /// Use only this many WTHOR games, evenly spaced (`None`: all), as `flank train
    /// --wthor-games`.
    pub wthor_games: Option<usize>,
    /// The WTHOR label cache (the private `refit_cache` module: labelled positions under a key
    /// of the settings they depend on): read if the file exists (its labelling settings must
    /// be this refit's), else written after the labelling.
    pub wthor_cache: Option<PathBuf>,
    /// WTHOR games through any of these positions are left out (the hard-20 test set).
    pub test_positions: Option<PathBuf>,
    /// Self-play record files.
    pub selfplay: Vec<PathBuf>,
    /// Self-play games held out as test games, never fitted: one in this many by index
    /// ([`is_test_game`]; 0: none). `flank evalset --selfplay` writes the same games' positions.
    pub selfplay_test_every: u64,
    /// Of the other self-play games, only those whose index is a multiple of this are used
    /// (1: all): the smaller corpora of a data curve.
    pub selfplay_every: u64,
    /// Depth of the searches that label a share of the WTHOR positions (0: none).
    pub search_depth: u32,
    /// One WTHOR position in this many gets a search label.
    pub search_every: u64,
    /// Empties `E` of the second anchor (0: none): positions whose side to move is not the
    /// side to move at 24 empties are labelled with the exact score of the game's position
    /// with `E` or `E − 1` empties whose side to move is theirs (see the module header).
    pub parity_anchor: u32,
    /// One WTHOR position in this many also gives a child after a move the game did not play
    /// (0: none).
    pub children_every: u64,
    /// The children's search depth `d` (their label: the mean of the values at `d − 1` and
    /// `d`); at least 2.
    pub children_depth: u32,
    /// Weight of a child in the fit, as a number of copies (1: as a game position).
    pub children_weight: u32,
    /// Weight of the search value in a mixed label (0: results only, 1: search only).
    pub mix: f64,
    /// Ridge strength towards the base weights.
    pub lambda: f64,
    /// Conjugate-gradient iterations per phase.
    pub iterations: usize,
    /// The validation split's seed (`flank train --seed`).
    pub seed: u64,
    /// The output weights file.
    pub out: PathBuf,
    /// The exact solver also orders with the refitted weights (no solver weights in the
    /// output); by default the output keeps the base's solver weights
    /// ([`weights::base_solver`]), so that the solver orders its moves as before.
    pub refit_solver: bool,
}

/// `black` from `side`'s view.
fn side_view(side: Color, black: f64) -> f64 {
    match side {
        Color::Black => black,
        Color::White => -black,
    }
}

/// The empties the refitted phases train on (each phase's own plus one either side).
fn window(phases: &[usize]) -> (u32, u32) {
    let lo = phases.iter().min().copied().unwrap_or(0) as u32 * PHASE_WIDTH;
    let hi = phases.iter().max().copied().unwrap_or(0) as u32 * PHASE_WIDTH + PHASE_WIDTH - 1;
    (
        lo.saturating_sub(PHASE_WIDTH / 2),
        (hi + PHASE_WIDTH / 2).min(60),
    )
}

/// The lowest phase a refit may change (10-11 empties): the phases below hold the inputs of
/// the residual nets, which are trained on their linear weights.
pub const MIN_PHASE: usize = 5;

/// Positions with at most this many empties are labelled by an exact solve, as in `flank
/// train`; between it and 24 empties the label is interpolated (or the second anchor's).
const SOLVED_EMPTIES: u32 = 14;

/// The exact score of `board`, side to move's view, in discs (the engine's table is cleared
/// after it).
fn exact_score(engine: &mut crate::engine::Engine, board: &Board) -> f64 {
    let limits = SearchLimits {
        mode: SolveMode::Exact,
        ..SearchLimits::default()
    };
    let score = engine.search(board, &limits, &mut |_| {}).score as f64;
    engine.new_game();
    score
}

/// The second label anchor of a game (see [`RefitOptions::parity_anchor`]): the side to move
/// and black's exact score of the game's position at `empties` or `empties − 1` empties whose
/// side to move is not `side24`, solved exactly; `None` when `empties` is 0, there is no
/// such position or the game has no position at 24 empties.
fn late_anchor(
    engine: &mut crate::engine::Engine,
    positions: &[crate::othello::position::Position],
    side24: Option<Color>,
    empties: u32,
) -> Option<(Color, f64)> {
    let side24 = side24?;
    if empties == 0 {
        return None;
    }
    let p = positions.iter().find(|p| {
        let e = p.board.empties();
        (e == empties || e + 1 == empties) && p.side != side24
    })?;
    let score = exact_score(engine, &p.board);
    Some((p.side, side_view(p.side, score)))
}

/// A child of `board` after a legal move other than the one that leads to `played` (the
/// game's next position), drawn by `pick`; `None` when the game's move was the only one.
fn other_child(board: &Board, played: Option<&Board>, pick: u64) -> Option<Board> {
    let others: Vec<Board> = board
        .legal_moves()
        .map(|sq| board.make_move(sq))
        .filter(|c| played.is_none_or(|p| p != c))
        .collect();
    (!others.is_empty()).then(|| others[(pick % others.len() as u64) as usize])
}

/// The mean of the values at depths `depth − 1` and `depth` of one iterative-deepening
/// search of `board` (midgame, never a solve), side to move's view, in discs.
fn parity_mean_value(engine: &mut crate::engine::Engine, board: &Board, depth: u32) -> f64 {
    let limits = SearchLimits {
        mode: SolveMode::Midgame,
        depth: Some(depth),
        ..SearchLimits::default()
    };
    let mut before = None;
    let r = engine.search(board, &limits, &mut |i| {
        if i.depth + 1 == depth {
            before = Some(i.score);
        }
    });
    let last = r.score as f64;
    match before {
        Some(b) if r.depth == depth => (b as f64 + last) / 2.0,
        _ => last,
    }
}

/// The settings that decide the WTHOR labels of a refit whose window is `empties`, with the
/// active evaluation's fingerprint: the key of its [`refit_cache`] file.
fn cache_key(opts: &RefitOptions, empties: (u32, u32)) -> String {
    let search = if opts.search_depth > 0 {
        format!(
            "depth {} every {} mix {}",
            opts.search_depth, opts.search_every, opts.mix
        )
    } else {
        "none".to_owned()
    };
    format!(
        "flank refit WTHOR labels v1; wthor {}; games {}; test positions {}; empties {}-{}; parity anchor {}; children every {} depth {} weight {}; search {search}; evaluation {:016x}",
        opts.wthor_dir
            .as_ref()
            .map_or_else(|| "none".to_owned(), |d| d.display().to_string()),
        opts.wthor_games
            .map_or_else(|| "all".to_owned(), |n| n.to_string()),
        opts.test_positions
            .as_ref()
            .map_or_else(|| "none".to_owned(), |p| p.display().to_string()),
        empties.0,
        empties.1,
        opts.parity_anchor,
        opts.children_every,
        opts.children_depth,
        opts.children_weight.max(1),
        refit_cache::fingerprint(&crate::eval::evaluate),
    )
}

/// Labels the WTHOR positions within `empties` (see the module header).
fn wthor_positions(opts: &RefitOptions, empties: (u32, u32)) -> Result<WthorLabels> {
    let Some(dir) = &opts.wthor_dir else {
        return Ok(WthorLabels::default());
    };
    let test = match &opts.test_positions {
        Some(p) => load_test_positions(p)?,
        None => HashSet::new(),
    };
    let (_, games) = read_wthor_games(dir)?;
    let games = evenly_spaced(games, opts.wthor_games);
    let pb = bar(games.len() as u64, "labelling");
    let labelled: Vec<(Vec<Labelled>, u64)> = games
        .par_iter()
        .enumerate()
        .map_init(worker_engine, |engine, (gi, g)| {
            pb.inc(1);
            let mut out = Vec::new();
            let mut searched = 0;
            if g.theoretical_score > 64 {
                return (out, 0);
            }
            let Some((positions, _)) = replay_wthor(&g.moves) else {
                return (out, 0);
            };
            if positions
                .iter()
                .any(|p| test.contains(&(p.board.player, p.board.opponent)))
            {
                return (out, 0);
            }
            let t = (2 * g.theoretical_score as i32 - 64) as f64;
            engine.new_game();
            // The side to move at 24 empties, and the second anchor: (side, black's exact score).
            let side24 = positions
                .iter()
                .find(|p| p.board.empties() == 24)
                .map(|p| p.side);
            let second = late_anchor(engine, &positions, side24, opts.parity_anchor);
            // Black's exact score at the first position with at most SOLVED_EMPTIES empties
            // (`flank train`'s anchor of the interpolation), when the window reaches below 24.
            let first_solved = if empties.0 < 24 {
                positions
                    .iter()
                    .find(|p| p.board.empties() <= SOLVED_EMPTIES)
                    .map(|p| side_view(p.side, exact_score(engine, &p.board)))
            } else {
                None
            };
            for (ply, p) in positions.iter().enumerate() {
                let e = p.board.empties();
                if e < empties.0 || e > empties.1 || !p.board.has_moves() {
                    continue;
                }
                let odd = match (side24, second) {
                    (Some(s), Some((s2, exact))) if s != p.side && s2 == p.side => Some(exact),
                    _ => None,
                };
                let result = if e <= SOLVED_EMPTIES {
                    exact_score(engine, &p.board)
                } else if let Some(exact) = odd {
                    side_view(p.side, exact)
                } else if e < 24 {
                    let Some(a) = first_solved else { continue };
                    side_view(
                        p.side,
                        interpolate(t as i32, a as i32, e, SOLVED_EMPTIES) as f64,
                    )
                } else {
                    side_view(p.side, t)
                };
                let pick = splitmix(((gi as u64) << 8) ^ ply as u64 ^ 0x5EA2_C41A_B31E_0001);
                let label =
                    if opts.search_depth > 0 && pick.is_multiple_of(opts.search_every.max(1)) {
                        let limits = SearchLimits {
                            mode: SolveMode::Midgame,
                            depth: Some(opts.search_depth),
                            ..SearchLimits::default()
                        };
                        searched += 1;
                        let v = engine.search(&p.board, &limits, &mut |_| {}).score as f64;
                        opts.mix * v + (1.0 - opts.mix) * result
                    } else {
                        result
                    };
                out.push((p.board, label, gi as u32));
                if opts.children_every > 0 && (pick >> 32).is_multiple_of(opts.children_every) {
                    let played = positions.get(ply + 1).map(|n| &n.board);
                    if let Some(c) = other_child(&p.board, played, pick >> 12)
                        && c.empties() >= empties.0
                        && c.has_moves()
                    {
                        engine.new_game();
                        let v = parity_mean_value(engine, &c, opts.children_depth);
                        searched += 1;
                        for _ in 0..opts.children_weight.max(1) {
                            out.push((c, v, gi as u32));
                        }
                    }
                }
            }
            (out, searched)
        })
        .collect();
    pb.finish_and_clear();
    let searched = labelled.iter().map(|(_, s)| s).sum();
    let positions = labelled.into_iter().flat_map(|(l, _)| l).collect();
    Ok(WthorLabels {
        positions,
        games: games.len() as u32,
        searched,
    })
}

/// What a refit reports per phase, in discs (validation positions: held-out games).
#[derive(Clone, Debug)]
pub struct RefitReport {
    /// Phase.
    pub phase: usize,
    /// Training positions.
    pub train: usize,
    /// Validation positions.
    pub valid: usize,
    /// Training RMSE of the new weights (unquantised).
    pub train_rmse: f64,
    /// Validation MAE of the base's evaluation.
    pub base_mae: f64,
    /// Validation MAE of the refitted evaluation.
    pub new_mae: f64,
}

/// Runs a refit and writes the weights file; reports go to `out`.
///
/// # Errors
/// No phase, a base or self-play file that cannot be read, no data, or an output that cannot
/// be written.
pub fn refit(opts: &RefitOptions, out: &mut dyn Write) -> Result<Vec<RefitReport>> {
    let start = Instant::now();
    if opts.phases.is_empty() {
        bail!("no phase to refit");
    }
    if let Some(p) = opts.phases.iter().find(|&&p| p < MIN_PHASE) {
        bail!(
            "phase {p} cannot be refitted: the residual nets at 2-9 empties are trained on the linear weights of phases below {MIN_PHASE} (use flank train)"
        );
    }
    super::check_writable(&opts.out, "output file")?;
    let base_bytes = if opts.base == "trained" {
        weights::EMBEDDED.to_vec()
    } else {
        std::fs::read(&opts.base).with_context(|| format!("cannot read --base {}", opts.base))?
    };
    let (mut w, nets, mpc) = weights::decode_all(&base_bytes)
        .map_err(|e| anyhow::anyhow!("--base {}: {e}", opts.base))?;
    let base_eval = PatternEval::from_compact(&w).context("base weights of the wrong size")?;
    let empties = window(&opts.phases);
    let labels = match opts
        .wthor_cache
        .as_deref()
        .filter(|_| opts.wthor_dir.is_some())
    {
        Some(path) => {
            // Before an hour of labelling, not after it.
            refit_cache::check_usable(path, &opts.out)?;
            let key = cache_key(opts, empties);
            if path.exists() {
                let labels = refit_cache::read(path, &key)?;
                writeln!(
                    out,
                    "wthor: labels read from {} ({} s so far)",
                    path.display(),
                    start.elapsed().as_secs()
                )?;
                labels
            } else {
                let labels = wthor_positions(opts, empties)?;
                refit_cache::write(path, &key, &labels)?;
                writeln!(out, "wthor: labels written to {}", path.display())?;
                labels
            }
        }
        None => wthor_positions(opts, empties)?,
    };
    let WthorLabels {
        positions: mut samples,
        games: wthor_games,
        searched,
    } = labels;
    if opts.wthor_dir.is_some() {
        let searches = match (opts.search_depth > 0, opts.children_every > 0) {
            (true, true) => format!(
                "a depth-{} search (mix {}) or children at depth {}",
                opts.search_depth, opts.mix, opts.children_depth
            ),
            (true, false) => format!("a depth-{} search (mix {})", opts.search_depth, opts.mix),
            (false, true) => format!("children at depth {}", opts.children_depth),
            (false, false) => "a search (none asked)".to_string(),
        };
        writeln!(
            out,
            "wthor: {} positions with {}-{} empties, {searched} of them labelled with {searches} ({} s so far)",
            samples.len(),
            empties.0,
            empties.1,
            start.elapsed().as_secs()
        )?;
    } else {
        writeln!(out, "wthor: none (--no-wthor)")?;
    }
    let mut next_game = wthor_games;
    for (path, records) in read_corpus(&opts.selfplay)? {
        let before = samples.len();
        let used: Vec<_> = records
            .iter()
            .filter(|r| {
                !is_test_game(r.index, opts.selfplay_test_every)
                    && r.index % opts.selfplay_every.max(1) == 0
            })
            .collect();
        for r in &used {
            for p in r.positions() {
                let e = p.position.board.empties();
                if e >= empties.0 && e <= empties.1 {
                    let label = opts.mix * p.value as f64 + (1.0 - opts.mix) * p.exact as f64;
                    samples.push((p.position.board, label, next_game));
                }
            }
            next_game = next_game.saturating_add(1);
        }
        writeln!(
            out,
            "self-play: {} of {} games (test games and --selfplay-every left out), {} positions from {}",
            used.len(),
            records.len(),
            samples.len() - before,
            path.display()
        )?;
    }
    if samples.is_empty() {
        bail!(
            "no positions with {}-{} empties to fit",
            empties.0,
            empties.1
        );
    }
    let held_out = |g: u32| is_held_out(opts.seed, 5, g);
    let n = LAYOUT.compact_len;
    let pb = bar((opts.phases.len() * opts.iterations) as u64, "fit");
    let mut reports = Vec::new();
    for &ph in &opts.phases {
        let lo = (ph as u32 * PHASE_WIDTH).saturating_sub(PHASE_WIDTH / 2);
        let hi = ph as u32 * PHASE_WIDTH + PHASE_WIDTH - 1 + PHASE_WIDTH / 2;
        let train: Vec<(Board, f64)> = samples
            .iter()
            .filter(|(b, _, g)| {
                let e = b.empties();
                e >= lo && (e <= hi || ph == NUM_PHASES - 1) && !held_out(*g)
            })
            .map(|&(b, l, _)| (b, l))
            .collect();
        let prior: Vec<f64> = w[ph * n..(ph + 1) * n]
            .iter()
            .map(|&x| x as f64 / SCALE as f64)
            .collect();
        let (x, rmse) = fit_one_phase(&train, &prior, opts.lambda, opts.iterations, &pb);
        for (i, &v) in x.iter().enumerate() {
            w[ph * n + i] = quantise(v);
        }
        reports.push(RefitReport {
            phase: ph,
            train: train.len(),
            valid: 0,
            // abs: a phase with no positions reports 0.00, not -0.00.
            train_rmse: rmse.abs(),
            base_mae: 0.0,
            new_mae: 0.0,
        });
    }
    pb.finish_and_clear();
    let new_eval = PatternEval::from_compact(&w).context("refitted weights of the wrong size")?;
    for r in reports.iter_mut() {
        let valid: Vec<&Labelled> = samples
            .iter()
            .filter(|(b, _, g)| phase(b.empties()) == r.phase && held_out(*g))
            .collect();
        let (a, b) = valid
            .par_iter()
            .map(|(board, l, _)| {
                (
                    (base_eval.evaluate(board) as f64 - l).abs(),
                    (new_eval.evaluate(board) as f64 - l).abs(),
                )
            })
            .reduce(|| (0.0, 0.0), |x, y| (x.0 + y.0, x.1 + y.1));
        let m = valid.len().max(1) as f64;
        r.valid = valid.len();
        r.base_mae = a / m;
        r.new_mae = b / m;
    }
    let solver = if opts.refit_solver {
        None
    } else {
        Some(
            weights::base_solver(&base_bytes)
                .map_err(|e| anyhow::anyhow!("--base {}: {e}", opts.base))?,
        )
    };
    let bytes = weights::encode_full(&w, &nets, mpc.as_ref(), solver.as_ref());
    crate::data::write_atomically(&opts.out, &bytes)
        .with_context(|| format!("cannot write {}", opts.out.display()))?;
    writeln!(
        out,
        "phase  empties     train   valid  train-RMSE  base-MAE  new-MAE"
    )?;
    for r in &reports {
        writeln!(
            out,
            "{:>5}  {:>2}-{:<2}  {:>8}  {:>6}  {:>10.2}  {:>8.2}  {:>7.2}",
            r.phase,
            r.phase as u32 * PHASE_WIDTH,
            if r.phase == NUM_PHASES - 1 {
                60
            } else {
                r.phase as u32 * PHASE_WIDTH + PHASE_WIDTH - 1
            },
            r.train,
            r.valid,
            r.train_rmse,
            r.base_mae,
            r.new_mae
        )?;
    }
    writeln!(
        out,
        "wrote {} ({} bytes; nets{} kept from the base) in {:.1} s",
        opts.out.display(),
        bytes.len(),
        if mpc.is_some() {
            " and ProbCut table"
        } else {
            ""
        },
        start.elapsed().as_secs_f64()
    )?;
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, EngineConfig};
    use crate::othello::position::Position;
    use crate::othello::square::Move;

    fn engine() -> Engine {
        Engine::new(EngineConfig {
            hash_mb: 1,
            threads: 1,
        })
    }

    #[test]
    fn other_children_exclude_the_played_move() {
        let start = Board::start();
        let played = start.make_move(crate::othello::square::Square::from_index(37)); // f5
        let mut seen: Vec<Board> = (0..12)
            .filter_map(|pick| other_child(&start, Some(&played), pick))
            .collect();
        seen.sort_by_key(|b| (b.player, b.opponent));
        seen.dedup();
        assert_eq!(seen.len(), 3);
        assert!(!seen.contains(&played));
        assert!(
            seen.iter()
                .all(|c| start.legal_moves().any(|sq| start.make_move(sq) == *c))
        );
        // Only the played move is legal: no other child.
        let only = Board::new(0b11, 0b100).unwrap(); // a1 b1 own, c1 theirs: d1 alone
        assert_eq!(only.moves().count_ones(), 1);
        let d1 = only.make_move(crate::othello::square::Square::from_index(3));
        assert_eq!(other_child(&only, Some(&d1), 5), None);
    }

    #[test]
    fn a_parity_mean_is_the_mean_of_two_depths() {
        let after_f5 = crate::notation::parse_transcript("f5d6c3").unwrap().1.board;
        let mut e = engine();
        let mean = parity_mean_value(&mut e, &after_f5, 4);
        let value = |d: u32| {
            let mut e = engine();
            let limits = SearchLimits {
                mode: SolveMode::Midgame,
                depth: Some(d),
                ..SearchLimits::default()
            };
            e.search(&after_f5, &limits, &mut |_| {}).score as f64
        };
        assert_eq!(mean, (value(3) + value(4)) / 2.0);
    }

    #[test]
    fn the_late_anchor_has_the_other_side_to_move_and_its_exact_score() {
        // A game of first legal moves down to 11 empties.
        let mut pos = Position::start();
        let mut positions = Vec::new();
        while pos.board.empties() > 11 {
            if !pos.board.has_moves() {
                pos = pos.play(Move::Pass).unwrap();
                continue;
            }
            positions.push(pos);
            let sq = pos.board.legal_moves().next().unwrap();
            pos = pos.play(Move::Play(sq)).unwrap();
        }
        let side24 = positions
            .iter()
            .find(|p| p.board.empties() == 24)
            .map(|p| p.side)
            .unwrap();
        let mut e = engine();
        let (side, black) = late_anchor(&mut e, &positions, Some(side24), 13).unwrap();
        assert_ne!(side, side24);
        let anchor = positions
            .iter()
            .find(|p| p.board.empties() <= 13 && p.side == side)
            .unwrap();
        assert!(anchor.board.empties() >= 12);
        let exact = exact_score(&mut engine(), &anchor.board);
        assert_eq!(black, side_view(side, exact));
        assert_eq!(late_anchor(&mut e, &positions, Some(side24), 0), None);
        assert_eq!(late_anchor(&mut e, &positions, None, 13), None);
    }
}
