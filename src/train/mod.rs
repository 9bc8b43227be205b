//! `flank train`: builds the pattern weights from WTHOR games and flank's own self-play games.
//!
//! Pipeline ([`run_train`]):
//! 1. **WTHOR** ([`load_wthor`]): every `.wtb` file under `$FLANK_DATA/games/wthor` is read
//!    with the `wthor` crate and replayed. Each game records the perfect-play score from 24
//!    empties (the "theoretical score"). Positions with ≥ 24 empties are labelled with it (the
//!    standard approximation: the score the game would end with if both sides played
//!    perfectly from 24 empties on); positions with at most
//!    [`TrainOptions::wthor_solve_empties`] empties are solved exactly by flank's solver, and
//!    the positions in between get a label interpolated by empties between the two. Optional
//!    random deviations ([`TrainOptions::deviation_plies`]) add solved positions after random
//!    moves. Games through a position of the evaluation's test set
//!    ([`TrainOptions::test_positions`], `endgame/hard-20.obf`) are left out.
//! 2. **Self-play** ([`selfplay`](fn@selfplay)): games from XOT openings
//!    (`openings/xot_large.txt`; random 8-ply openings if missing) played by flank at a
//!    fixed depth with the active evaluator
//!    (`flank train` uses the classic one unless `--eval` says otherwise), with 10 % random
//!    moves. At [`TrainOptions::solve_empties`] and below every position is solved exactly
//!    by flank's solver (its label is its exact score); earlier positions get the exact score
//!    of the first solved position (as WTHOR's theoretical score).
//! 3. **Search leaves** ([`leaf_samples`]): positions with 2-9 empties reached by random and
//!    greedy walks from the training positions, solved exactly: the kind of position a
//!    depth-limited search evaluates at its leaves.
//! 4. **Fit** ([`fit`](fn@fit)): per phase, regularised least squares on the compact features
//!    of [`crate::eval::pattern`] (ridge towards the neighbouring phase's weights, which
//!    smooths across phases), solved by Jacobi-preconditioned conjugate gradients on the normal
//!    equations, with the samples of the phase's empties plus half a phase either side; rayon
//!    over fixed sample chunks, summed in a fixed order, so the result does not depend on the
//!    thread count. 8-fold symmetry augmentation is implicit: the features of a position and of
//!    its 7 symmetric images are the same multiset. A held-out validation split (by game) is
//!    evaluated per phase with the quantised weights exactly as the search sees them. Each
//!    empties count contributes at most [`LINEAR_CAP`] training samples (evenly spaced), so the
//!    many search leaves the nets need do not slow the linear fit or swell its memory.
//! 5. **Residual nets** ([`train_nets`]): one per empties count in
//!    [`TrainOptions::net_empties`] (2-9 by default, where exact labels are plentiful and a
//!    depth-limited search puts its leaves near the end of the game; a net of its own per
//!    count learns the parity of the empties), and one per phase in
//!    [`TrainOptions::net_phases`] (none by default), a small network ([`crate::eval::net`]) on
//!    the same features is fitted by SGD to what the linear fit leaves (`label − linear
//!    evaluation`); it captures interactions between patterns that a sum of weights cannot
//!    (held-out error at 5 empties 5.02 -> 3.76 discs). `--base FILE` skips the linear fit
//!    and trains only the nets on top of FILE's linear weights.
//!
//! Everything is deterministic from [`TrainOptions::seed`] and the binary: the search-leaf
//! walks follow [`TrainOptions::leaf_eval`] (the built-in weights by default), and the exact
//! solver's choice between equally good self-play moves may change with the solver's move
//! ordering, so a newer binary retrains weights of the same quality, not the same bytes.

pub mod calibrate;
pub mod evalset;
mod fit;
mod leaves;
mod nets;
mod progress;
pub mod refit;
mod refit_cache;
mod samples_cache;
mod selfplay;
pub mod selfplay_records;
mod wthor_games;
mod wthor_labels;

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::engine::{Engine, EngineConfig};
use crate::eval::Evaluator;
use crate::eval::features::NUM_PHASES;
use crate::eval::net::{HIDDEN, Nets, empties_slot, slot_empties};
use crate::eval::pattern::PatternEval;
use crate::eval::weights;
use crate::othello::board::{Board, Score};
use crate::othello::square::Color;

pub use fit::{LINEAR_CAP, PhaseReport, fit};
pub use leaves::{LEAF_EMPTIES, LEAF_ROOT_EMPTIES, leaf_samples, leaf_walks};
pub use nets::{NetReport, net_slots, train_nets};
pub(crate) use progress::bar;
use samples_cache::{read_samples, write_samples};
pub use selfplay::{load_openings, selfplay};
pub use wthor_games::{load_test_positions, read_wthor_games, replay_wthor, wthor_files};
pub use wthor_labels::{WthorStats, load_wthor};

/// Settings of a training run.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The shared data directory (`$FLANK_DATA`).
    pub data_dir: PathBuf,
    /// Where the weights file is written.
    pub out: PathBuf,
    /// Seed of every random choice (split, openings, random moves).
    pub seed: u64,
    /// Use at most this many WTHOR games (an evenly spaced subset); `None` = all.
    pub wthor_games: Option<usize>,
    /// Self-play games to play.
    pub selfplay_games: usize,
    /// Midgame search depth of the self-play moves, in plies.
    pub selfplay_depth: u32,
    /// Self-play positions with at most this many empties are solved exactly.
    pub solve_empties: u32,
    /// WTHOR positions with at most this many empties are solved exactly.
    pub wthor_solve_empties: u32,
    /// Random deviations: from every solved WTHOR position, this many random legal moves
    /// (the first one differs from the game's move when it can) are played and each position
    /// reached is solved and kept as a sample, so that the training set also holds the
    /// positions after weak moves that a search tree is full of.
    pub deviation_plies: u32,
    /// Search-leaf samples ([`leaf_samples`]): positions with [`LEAF_EMPTIES`] empties reached
    /// by random and greedy walks from training positions, solved exactly.
    pub leaf_samples: usize,
    /// The evaluation whose greedy moves the search-leaf walks follow: `classic`, `trained`
    /// (the weights built into the binary; the default) or a weights file.
    pub leaf_eval: String,
    /// The evaluation's test set (`$FLANK_DATA/endgame/hard-20.obf` by default): WTHOR games
    /// passing through any of its positions (in any of the 8 symmetries) are left out, so the
    /// figures measured on it are not measured on training games. A missing file leaves out
    /// nothing.
    pub test_positions: Option<PathBuf>,
    /// Conjugate-gradient iterations per phase (at most).
    pub iterations: usize,
    /// A file caching the labelled samples: read if it exists (skipping WTHOR and self-play),
    /// written after labelling otherwise.
    pub samples_cache: Option<PathBuf>,
    /// Ridge strength: pseudo-observations pulling each weight towards its neighbour phase's.
    pub lambda: f64,
    /// Percentage of games held out for validation.
    pub validation_percent: u64,
    /// Take the linear pattern weights from this weights file instead of fitting them (only
    /// the residual nets are trained).
    pub base: Option<PathBuf>,
    /// Phases that get a residual net ([`crate::eval::net`]) on top of the linear fit, for all
    /// their empties; empty: none.
    pub net_phases: Vec<usize>,
    /// Empties counts (0-60) that get a residual net of their own, which takes precedence
    /// over a phase net at that count ([`crate::eval::net::Nets::for_empties`]); empty: none.
    pub net_empties: Vec<u32>,
    /// Hidden units of the nets this run trains (one of [`crate::eval::net::WIDTHS`]).
    pub net_hidden: usize,
    /// Extra search-leaf walks ([`leaf_samples`]) ending at the [`TrainOptions::net_empties`]
    /// counts, for the nets only (the linear fit never sees them; not cached); 0 = none.
    pub net_leaf_samples: usize,
    /// SGD epochs per net.
    pub net_epochs: usize,
    /// SGD learning rate at the start (decays linearly to a tenth).
    pub net_rate: f32,
}

impl TrainOptions {
    /// The full run (all WTHOR games, 4,000 self-play games).
    pub fn full(data_dir: PathBuf, out: PathBuf) -> TrainOptions {
        TrainOptions {
            test_positions: Some(data_dir.join("endgame/hard-20.obf")),
            data_dir,
            out,
            seed: 1,
            wthor_games: None,
            selfplay_games: 4000,
            selfplay_depth: 4,
            solve_empties: 16,
            wthor_solve_empties: 14,
            deviation_plies: 0,
            leaf_samples: 48_000_000,
            leaf_eval: "trained".into(),
            iterations: 60,
            lambda: 20.0,
            samples_cache: None,
            validation_percent: 5,
            base: None,
            net_phases: Vec::new(),
            net_empties: (2..=9).collect(),
            net_hidden: HIDDEN,
            net_leaf_samples: 0,
            net_epochs: 12,
            net_rate: 0.001,
        }
    }

    /// `--quick`: a small subset for CI and tests (well under 2 minutes on 2 cores).
    pub fn quick(data_dir: PathBuf, out: PathBuf) -> TrainOptions {
        TrainOptions {
            wthor_games: Some(6000),
            selfplay_games: 100,
            selfplay_depth: 2,
            solve_empties: 12,
            wthor_solve_empties: 10,
            iterations: 30,
            leaf_samples: 5_000,
            ..TrainOptions::full(data_dir, out)
        }
    }
}

/// One labelled training position.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The position, side to move's view.
    pub board: Board,
    /// Target: final disc difference for the side to move under (approximately) perfect play.
    pub label: i8,
    /// Game number (WTHOR games first, then self-play), for the validation split.
    pub game: u32,
}

/// The engine of one labelling worker: 1 thread, an 8 MiB TT.
pub(crate) fn worker_engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 8,
        threads: 1,
    })
}

/// SplitMix64's output function (Steele, Lea & Flood 2014): a well-mixed `u64` from `x`,
/// the seeded pseudo-random step of training and calibration sampling.
pub(crate) fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// `score`, a disc difference for `side`, from black's view.
fn black_view(side: Color, score: Score) -> Score {
    match side {
        Color::Black => score,
        Color::White => -score,
    }
}

/// Whether game `game` is held out for validation.
fn is_validation(opts: &TrainOptions, game: u32) -> bool {
    is_held_out(opts.seed, opts.validation_percent, game)
}

/// Whether game number `game` falls in the validation split of a training run with `seed`
/// that holds out `percent` % of the games (a hash of the seed and the game number).
pub fn is_held_out(seed: u64, percent: u64, game: u32) -> bool {
    splitmix(splitmix(seed) ^ game as u64) % 100 < percent
}

/// What a training run produced.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    /// WTHOR reading counts.
    pub wthor: WthorStats,
    /// Self-play samples.
    pub selfplay_positions: usize,
    /// Per-phase fit quality.
    pub phases: Vec<PhaseReport>,
    /// Per-phase quality of the residual nets (empty without nets).
    pub nets: Vec<NetReport>,
    /// Size of the written weights file in bytes.
    pub file_bytes: usize,
    /// Wall time in ms.
    pub time_ms: u64,
}

/// Checks up front that `path` can be written: not a directory, and its parent directory
/// exists (nothing is created), so that a long run does not fail at its end. `what` names
/// the path in the error (e.g. "output file").
///
/// Errors: `path` is a directory, or its parent directory does not exist.
pub fn check_writable(path: &Path, what: &str) -> Result<()> {
    if path.is_dir() {
        bail!("{what} {} is a directory", path.display());
    }
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
        && !dir.is_dir()
    {
        bail!(
            "{what} {}: directory {} does not exist",
            path.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Runs the whole pipeline and writes the weights file; prints the report on `out`.
///
/// Errors: an output or samples path that cannot be written (checked before any work), no
/// training samples, unreadable data, a write failure.
pub fn run_train(opts: &TrainOptions, out: &mut dyn Write) -> Result<TrainSummary> {
    let start = Instant::now();
    check_writable(&opts.out, "output file")?;
    if let Some(path) = &opts.samples_cache
        && !path.exists()
    {
        check_writable(path, "samples file")?;
    }
    // The base weights (`--base`) are read before any work, so that a bad path fails at once.
    let base = match &opts.base {
        Some(path) if path.as_os_str() == "trained" => Some(
            weights::decode(weights::EMBEDDED)
                .map_err(|e| anyhow::anyhow!("--base trained: embedded weights unusable: {e}"))?,
        ),
        Some(path) => Some(
            weights::decode(
                &std::fs::read(path)
                    .with_context(|| format!("cannot read --base {}", path.display()))?,
            )
            .with_context(|| format!("--base {}", path.display()))?,
        ),
        None => None,
    };
    let cached = match &opts.samples_cache {
        Some(path) if path.exists() => Some(read_samples(path)?),
        _ => None,
    };
    let leaf_policy = match cached {
        Some(_) => None,
        None => Some(
            Evaluator::from_spec(&opts.leaf_eval)
                .with_context(|| format!("--leaf-eval {}", opts.leaf_eval))?,
        ),
    };
    let fresh = cached.is_none();
    let (samples, wthor, selfplay_positions) = match cached {
        Some((samples, wthor_positions)) => {
            writeln!(
                out,
                "samples: {} labelled positions read from {} ({} from WTHOR, the rest self-play and search leaves; the labelling options, --wthor-*, --games, --solve-empties, --deviation-plies, --leaf-*, and the test set, do not apply: the cache holds what the run that wrote it used)",
                samples.len(),
                opts.samples_cache
                    .as_deref()
                    .unwrap_or(Path::new(""))
                    .display(),
                wthor_positions
            )?;
            let wthor = WthorStats {
                positions: wthor_positions,
                ..WthorStats::default()
            };
            let sp = samples.len() - wthor_positions;
            (samples, wthor, sp)
        }
        None => {
            let test = match &opts.test_positions {
                Some(path) => {
                    let set = load_test_positions(path)?;
                    if !path.exists() {
                        writeln!(
                            out,
                            "test set {} not found: no WTHOR game is left out",
                            path.display()
                        )?;
                    }
                    set
                }
                None => HashSet::new(),
            };
            let (mut samples, wthor) = load_wthor(
                &opts.data_dir.join("games/wthor"),
                opts.wthor_games,
                opts.wthor_solve_empties,
                opts.deviation_plies,
                &test,
            )?;
            writeln!(
                out,
                "wthor: {} files, {} games, {} used, {} dropped, {} of them left out (they pass through a test position), {} with final = theoretical score, {} positions",
                wthor.files,
                wthor.games,
                wthor.used,
                wthor.bad,
                wthor.test_games,
                wthor.exact_tail,
                wthor.positions
            )?;
            let sp = selfplay(opts, wthor.used as u32)?;
            writeln!(
                out,
                "self-play: {} games at depth {}, exact labels at <= {} empties, {} positions ({} s so far)",
                opts.selfplay_games,
                opts.selfplay_depth,
                opts.solve_empties,
                sp.len(),
                start.elapsed().as_secs()
            )?;
            let selfplay_positions = sp.len();
            samples.extend(sp);
            if opts.leaf_samples == 0 {
                writeln!(out, "search leaves: off (--leaf-samples 0)")?;
            } else if let Some(policy) = &leaf_policy {
                let leaves = leaf_samples(&samples, opts, policy);
                writeln!(
                    out,
                    "search leaves: {} of {} walks kept (a walk that ends in a pass or a finished game is dropped), {}-{} empties, greedy by the {} evaluation, solved ({} s so far)",
                    leaves.len(),
                    opts.leaf_samples,
                    LEAF_EMPTIES.0,
                    LEAF_EMPTIES.1,
                    if opts.leaf_eval == "classic" || opts.leaf_eval == "trained" {
                        opts.leaf_eval.clone()
                    } else {
                        format!("{} ({})", policy.name(), opts.leaf_eval)
                    },
                    start.elapsed().as_secs()
                )?;
                samples.extend(leaves);
            }
            (samples, wthor, selfplay_positions)
        }
    };
    if samples.iter().all(|s| is_validation(opts, s.game)) {
        bail!("no training samples (no WTHOR games and no self-play games were used)");
    }
    // Only a run that labelled samples writes the cache, and only once they are usable.
    if fresh && let Some(path) = &opts.samples_cache {
        write_samples(path, &samples, wthor.positions)?;
    }
    let (w, base_nets, phases) = match base {
        Some((w, nets)) => {
            writeln!(
                out,
                "linear weights: taken from {} (not refitted; --iterations and --lambda do not apply; its held-out figures below are only held out if the base was trained on the same games with the same seed)",
                opts.base.as_deref().unwrap_or(Path::new("")).display()
            )?;
            (w, nets, Vec::new())
        }
        None => {
            let (w, phases) = fit(&samples, opts);
            (w, Nets::none(), phases)
        }
    };
    // Extra leaves at the nets' empties counts: for the nets only, after the linear fit.
    let mut samples = samples;
    if opts.net_leaf_samples > 0 && !opts.net_empties.is_empty() {
        let policy = Evaluator::from_spec(&opts.leaf_eval)
            .with_context(|| format!("--leaf-eval {}", opts.leaf_eval))?;
        let extra = leaf_walks(
            &samples,
            opts,
            &policy,
            opts.net_leaf_samples,
            &opts.net_empties,
            0x4E45_5445_1EAF_0002,
        );
        writeln!(
            out,
            "extra search leaves for the nets: {} of {} walks kept, empties {:?}, greedy by the {} evaluation ({} s so far)",
            extra.len(),
            opts.net_leaf_samples,
            opts.net_empties,
            opts.leaf_eval,
            start.elapsed().as_secs()
        )?;
        samples.extend(extra);
    }
    let (mut nets, net_reports) = match PatternEval::from_compact(&w) {
        Some(linear) if !net_slots(opts).is_empty() => train_nets(&samples, opts, &linear),
        _ => (Nets::none(), Vec::new()),
    };
    // The base's nets stay in the slots that were not retrained, except a phase net whose
    // every empties count now has a net of its own (it would never be used).
    let retrained = net_slots(opts);
    let shadowed = |slot: usize| {
        let (lo, hi) = slot_empties(slot);
        slot < NUM_PHASES && (lo..=hi).all(|e| nets.get(empties_slot(e)).is_some())
    };
    let kept_from_base: Vec<usize> = base_nets
        .slot_list()
        .into_iter()
        .filter(|&p| !retrained.contains(&p) && !shadowed(p))
        .collect();
    for &p in &kept_from_base {
        if let Some(net) = base_nets.get(p) {
            nets.set(p, net.clone());
        }
    }
    let bytes = weights::encode(&w, &nets);
    std::fs::write(&opts.out, &bytes)
        .with_context(|| format!("cannot write {}", opts.out.display()))?;
    if !phases.is_empty() {
        writeln!(
            out,
            "phase  empties   train   valid  train-RMSE  valid-MAE  valid-RMSE  classic-MAE"
        )?;
    }
    for r in &phases {
        writeln!(
            out,
            "{:>5}  {:>2}-{:<2}  {:>8}  {:>6}  {:>10.2}  {:>9.2}  {:>10.2}  {:>11.2}",
            r.phase,
            r.empties.0,
            r.empties.1,
            r.train,
            r.valid,
            r.train_rmse,
            r.valid_mae,
            r.valid_rmse,
            r.classic_mae
        )?;
    }
    if net_reports.is_empty() {
        writeln!(out, "residual nets: none trained")?;
    } else {
        writeln!(
            out,
            "residual nets ({} hidden units, epochs: {}); a net that does not lower the held-out error is dropped:",
            opts.net_hidden, opts.net_epochs
        )?;
        writeln!(
            out,
            " slot  empties     train   valid  linear-MAE  net-MAE  kept"
        )?;
        for r in &net_reports {
            writeln!(
                out,
                "{:>5}  {:>2}-{:<2}  {:>8}  {:>6}  {:>10.2}  {:>7.2}  {}",
                r.slot,
                r.empties.0,
                r.empties.1,
                r.train,
                r.valid,
                r.linear_mae,
                r.net_mae,
                if nets.get(r.slot).is_some() {
                    "yes"
                } else {
                    "no"
                }
            )?;
        }
    }
    if !kept_from_base.is_empty() {
        writeln!(
            out,
            "residual nets kept from the base: slots {kept_from_base:?}"
        )?;
    }
    let time_ms = start.elapsed().as_millis() as u64;
    writeln!(
        out,
        "wrote {} ({} bytes) in {:.1} s",
        opts.out.display(),
        bytes.len(),
        time_ms as f64 / 1000.0
    )?;
    Ok(TrainSummary {
        wthor,
        selfplay_positions,
        phases,
        nets: net_reports,
        file_bytes: bytes.len(),
        time_ms,
    })
}
