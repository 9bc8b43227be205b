//! The command-line options of the evaluation and training commands (`evalset`,
//! `mpc-calibrate`, `ensemble`, `eval-error`, `eval-swing`, `refit`, `selfplay`, `train`), the
//! `--eval` and `--mpc` groups they share with the playing commands, and the clap value parser
//! of whole numbers in a range; the `flank` binary parses them with clap.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use clap::builder::TypedValueParser;

use crate::cli::values::*;
use crate::engine::{Engine, EngineConfig};

/// The `--eval` option of `gtp`, `solve` and `bench` (`train` has its own, with another
/// default).
#[derive(Args, Debug, Clone, Default)]
pub struct EvalArg {
    /// Evaluation: `trained` (the built-in weights, the default), `classic` (hand-written) or
    /// the path of a weights file written by `flank train`.
    #[arg(long, value_name = "EVAL")]
    pub eval: Option<String>,
}

/// The `--mpc` option of `gtp` and `solve`.
#[derive(Args, Debug, Clone, Default)]
pub struct MpcArg {
    /// Midgame multi-ProbCut: `off`, or its confidence in standard deviations of the
    /// calibration stored with the weights (a number in (0, 10]; default 1.5). Exact and WLD
    /// solves never use it.
    #[arg(long, value_name = "off|T", allow_negative_numbers = true, value_parser = parse_mpc)]
    pub mpc: Option<MpcSetting>,
}

impl MpcArg {
    /// A new engine with `config` and this setting (the engine's default when not given).
    pub fn engine(&self, config: EngineConfig) -> Result<Engine> {
        let mut engine = Engine::try_new(config)?;
        if let Some(m) = self.mpc {
            engine.set_mid_mpc(m.0);
        }
        Ok(engine)
    }
}

/// A clap value parser for a whole number in `range`, converted to `T` (`u32` or `u64`): a
/// negative, fractional or too large value is reported with the range (clap's own unsigned
/// parser says "invalid digit found in string" for `-5`); clap's message already quotes the
/// value.
pub fn whole<T>(range: std::ops::RangeInclusive<u64>) -> impl TypedValueParser<Value = T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |s: &str| -> Result<T, String> {
        let (lo, hi) = (*range.start(), *range.end());
        s.trim()
            .parse::<i128>()
            .ok()
            .filter(|v| (i128::from(lo)..=i128::from(hi)).contains(v))
            .and_then(|v| T::try_from(v as u64).ok())
            .ok_or_else(|| format!("expected a whole number in {lo}..={hi}"))
    }
}

/// The options of `flank evalset`.
#[derive(Args, Debug)]
pub struct EvalsetArgs {
    /// Empties of the positions: one count (1-24 when solved exactly) or a range such as
    /// 30-50 (one position per game, at a count drawn from it; labelled by `--depth`; with
    /// --selfplay every position of a test game in the range). Solving all moves takes
    /// about 0.01 s per position at 14 empties, 0.3 s at 20, 3 s at 22, 17 s at 24 (wall, 2
    /// cores).
    #[arg(long, allow_negative_numbers = true, default_value = "14", value_parser = parse_empties_range)]
    pub empties: (u32, u32),
    /// Label each position by a midgame search of this depth (its best move and value, the
    /// active evaluation, default ProbCut) instead of solving every move exactly: the
    /// midgame set. Required above 24 empties (not with --selfplay).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1..=30))]
    pub depth: Option<u32>,
    /// Positions wanted, shared evenly among the empties counts and evenly spaced over each
    /// count's candidates (about 6,800 exist at 14 empties); fewer if fewer exist.
    #[arg(long, allow_negative_numbers = true, default_value_t = 4000, value_parser = whole::<u64>(1..=1_000_000))]
    pub count: u64,
    /// The `flank train --seed` whose validation split the positions come from (held out only
    /// from a training run on all WTHOR games, the default; `--wthor-games` and `--quick`
    /// runs split their subset differently).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_whole_number)]
    pub seed: u64,
    /// Output file, written when the set is complete (`-` or none: stdout). The summary goes
    /// to stderr.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Solving threads (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    pub threads: Option<u64>,
    /// Self-play record files (`flank selfplay`, `.gz` too; several after one --selfplay, or repeat it): the set is
    /// then the positions of their test games (see --selfplay-test-every) labelled by each game's
    /// exact result, with the move played, instead of WTHOR's; no search runs.
    #[arg(long = "selfplay", value_name = "FILE", num_args = 1.., conflicts_with_all = ["depth", "seed", "threads", "eval"])]
    pub selfplay: Vec<PathBuf>,
    /// With --selfplay: the test games are one in N by index (index % N = N - 1), the games
    /// `flank refit --selfplay-test-every N` never fits.
    #[arg(long, allow_negative_numbers = true, default_value_t = 20, value_parser = whole::<u64>(1..=1_000_000), requires = "selfplay")]
    pub selfplay_test_every: u64,
    /// `--eval`.
    #[command(flatten)]
    pub eval: EvalArg,
}

/// The options of `flank mpc-calibrate`.
#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Positions to search (sampled from the WTHOR games).
    #[arg(long, allow_negative_numbers = true, default_value_t = 2000, value_parser = whole::<usize>(10..=1_000_000))]
    pub positions: usize,
    /// Deepest search in plies (each position is searched at every depth up to it).
    #[arg(long, allow_negative_numbers = true, default_value_t = 12, value_parser = whole::<u32>(3..=16))]
    pub max_depth: u32,
    /// Fewest empties of a sampled position.
    #[arg(long, allow_negative_numbers = true, default_value_t = 14, value_parser = whole::<u32>(1..=59))]
    pub min_empties: u32,
    /// Most empties of a sampled position.
    #[arg(long, allow_negative_numbers = true, default_value_t = 56, value_parser = whole::<u32>(1..=59))]
    pub max_empties: u32,
    /// Seed of the sampling.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_whole_number)]
    pub seed: u64,
    /// Transposition table per thread in MiB.
    #[arg(long, allow_negative_numbers = true, default_value_t = 16, value_parser = whole::<u64>(1..=4096))]
    pub hash: u64,
    /// Threads (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    pub threads: Option<u64>,
    /// The evaluation to calibrate: `trained` (the built-in weights, the default) or a
    /// weights file; the output is that file with the table.
    #[arg(long, value_name = "EVAL")]
    pub eval: Option<String>,
    /// Output weights file.
    #[arg(long)]
    pub out: PathBuf,
}

/// The options of `flank ensemble`.
#[derive(Args, Debug)]
pub struct EnsembleArgs {
    /// Weights file whose linear weights and other nets are kept.
    pub base: PathBuf,
    /// Weights file whose nets are averaged with BASE's.
    pub other: PathBuf,
    /// Empties counts whose nets are averaged (a list like 5 or 4-6); both files need a net
    /// of their own there, of 64 and 128 units (either way round).
    #[arg(long, value_name = "EMPTIES", value_parser = parse_empties, default_value = "5")]
    pub net_empties: NumberList,
    /// Weight of OTHER's net, in [0, 1] (BASE's gets the rest).
    #[arg(long, default_value_t = 0.5, allow_negative_numbers = true)]
    pub weight: f64,
    /// Output weights file.
    #[arg(long)]
    pub out: PathBuf,
}

/// The options of `flank eval-error`.
#[derive(Args, Debug)]
pub struct EvalErrorArgs {
    /// The labelled set (`-` = stdin).
    pub file: PathBuf,
    /// Empties per bucket (buckets start at multiples of it).
    #[arg(long, allow_negative_numbers = true, default_value_t = 5, value_parser = whole::<u32>(1..=64))]
    pub bucket: u32,
    /// Measure a depth-D search instead of the static evaluation (0 = static).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0, value_parser = whole::<u32>(0..=30))]
    pub depth: u32,
    /// Measure the children of each position instead, one per scored move, labelled with the
    /// negated move score (on a `flank evalset` set of exact move scores: the positions a
    /// search evaluates, not only the ones good players reach): `all`, or only those after
    /// the `best` or the `other` moves.
    #[arg(long, value_name = "all|best|other", num_args = 0..=1, default_missing_value = "all", value_parser = ["all", "best", "other"])]
    pub children: Option<String>,
    /// `--eval`.
    #[command(flatten)]
    pub eval: EvalArg,
}

/// The options of `flank eval-swing`.
#[derive(Args, Debug)]
pub struct EvalSwingArgs {
    /// The positions: OBF lines or board strings, one a line (`-` = stdin).
    pub file: PathBuf,
    /// Depths to measure: comma-separated depths and ranges (0 = the static evaluation, whose
    /// best child is the one with the lowest static value).
    #[arg(long, allow_negative_numbers = true, default_value = "0-4,8,9,12,13", value_parser = parse_depths)]
    pub depths: NumberList,
    /// Empties per bucket (buckets start at multiples of it).
    #[arg(long, allow_negative_numbers = true, default_value_t = 10, value_parser = whole::<u32>(1..=64))]
    pub bucket: u32,
    /// Measure only positions with these empties (one count or a range such as 20-50).
    #[arg(long, allow_negative_numbers = true, default_value = "20-50", value_parser = parse_empties_range)]
    pub empties: (u32, u32),
    /// Threads, each measuring whole positions with its own one-thread search (default: all
    /// cores; the figures do not depend on it).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    pub threads: Option<u64>,
    /// `--mpc`.
    #[command(flatten)]
    pub mpc: MpcArg,
    /// `--eval`.
    #[command(flatten)]
    pub eval: EvalArg,
}

/// The options of `flank refit`.
#[derive(Args, Debug)]
pub struct RefitArgs {
    /// Output weights file.
    #[arg(long)]
    pub out: PathBuf,
    /// The weights file to start from: `trained` (the built-in weights) or a file.
    #[arg(long, default_value = "trained")]
    pub base: String,
    /// Phases to refit, 5-29 (phase p holds 2p and 2p + 1 empties; below 5 the residual
    /// nets depend on the linear weights: use `flank train`).
    #[arg(long, allow_negative_numbers = true, default_value = "12-29", value_parser = parse_phases)]
    pub phases: NumberList,
    /// Self-play record files (`flank selfplay`, `.gz` too; several after one --selfplay, or repeat it).
    #[arg(long = "selfplay", value_name = "FILE", num_args = 1..)]
    pub selfplay: Vec<PathBuf>,
    /// With --selfplay: the self-play test games, never fitted, are one game in this many by
    /// index (those with index % N = N - 1; 0 = none). `flank evalset --selfplay` writes the
    /// same games' positions.
    #[arg(long, allow_negative_numbers = true, default_value_t = 20, value_parser = whole::<u64>(0..=1_000_000), requires = "selfplay")]
    pub selfplay_test_every: u64,
    /// With --selfplay: of the games that are not test games, use only those whose index is a
    /// multiple of K (1 = all): the smaller corpora of a data curve (2: about half, 4: about a
    /// quarter).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1, value_parser = whole::<u64>(1..=1_000_000), requires = "selfplay")]
    pub selfplay_every: u64,
    /// Leave out the WTHOR positions (self-play only).
    #[arg(long)]
    pub no_wthor: bool,
    /// Use only this many WTHOR games, evenly spaced (default: all).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>(1..=10_000_000), conflicts_with = "no_wthor")]
    pub wthor_games: Option<usize>,
    /// Cache of the labelled WTHOR positions: read from FILE if it exists (it must have been
    /// written with the same WTHOR labelling settings and evaluation, or the refit stops),
    /// else labelled and written to FILE (never the --out file); a later refit that changes
    /// only the self-play files, --mix without --search-depth, --lambda, --iterations or
    /// --base skips the labelling.
    #[arg(long, value_name = "FILE", conflicts_with = "no_wthor")]
    pub wthor_cache: Option<PathBuf>,
    /// Depth of the searches that label a share of the WTHOR positions (0 = none).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0, value_parser = whole::<u32>(0..=20))]
    pub search_depth: u32,
    /// One WTHOR position in this many gets a search label.
    #[arg(long, allow_negative_numbers = true, default_value_t = 4, value_parser = whole::<u64>(1..=1_000_000))]
    pub search_every: u64,
    /// Empties E of the second label anchor (0 = none): a WTHOR position whose side to move
    /// is not the side to move at 24 empties is labelled with the exact score of the game's
    /// position at E or E - 1 empties with its side to move (solved), not with the
    /// theoretical score at 24, which charges it one more move's mistakes than its opponent.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0, value_parser = whole::<u32>(0..=23))]
    pub parity_anchor: u32,
    /// One WTHOR position in this many also gives one of its children after a move the game
    /// did not play, labelled by a search (0 = none; see --children-depth).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0, value_parser = whole::<u64>(0..=1_000_000))]
    pub children_every: u64,
    /// Depth d of the children's searches: their label is the mean of the values at d - 1 and
    /// d.
    #[arg(long, allow_negative_numbers = true, default_value_t = 8, value_parser = whole::<u32>(2..=20))]
    pub children_depth: u32,
    /// Weight of each child in the fit, in game positions (a whole number: the child counts
    /// this many times).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1, value_parser = whole::<u32>(1..=100))]
    pub children_weight: u32,
    /// Weight of the search value in a mixed label, 0-1 (0: game results only).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.5, value_parser = parse_mix)]
    pub mix: f64,
    /// Ridge strength towards the base weights.
    #[arg(long, allow_negative_numbers = true, default_value_t = 20.0, value_parser = parse_lambda)]
    pub lambda: f64,
    /// Conjugate-gradient iterations per phase.
    #[arg(long, allow_negative_numbers = true, default_value_t = 60, value_parser = whole::<usize>(1..=10_000))]
    pub iterations: usize,
    /// The exact solver orders its moves, cuts (ProbCut) and centres its root window with the
    /// refitted weights too (the output has no solver weights); by default the output keeps
    /// the base's solver weights (the base's own, or its linear weights and ProbCut table),
    /// so that the solver searches as it did with the base. The labelling searches use
    /// `--eval` (default: the built-in weights), not `--base`.
    #[arg(long)]
    pub refit_solver: bool,
    /// Threads (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    pub threads: Option<u64>,
    /// `--eval`.
    #[command(flatten)]
    pub eval: EvalArg,
}

/// The options of `flank selfplay`.
#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// Output file: created with a header of the settings, or extended when it holds games of
    /// the same settings.
    #[arg(long)]
    pub out: PathBuf,
    /// Games to play: indices FIRST .. FIRST + GAMES.
    #[arg(long, allow_negative_numbers = true, default_value_t = 100, value_parser = whole::<u64>(1..=1_000_000_000))]
    pub games: u64,
    /// First game index (a shard of a larger run: shards with the same settings and disjoint
    /// ranges make the same games as one run).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0, value_parser = whole::<u64>(0..=1_000_000_000_000))]
    pub first: u64,
    /// Seed of the openings and the noisy moves.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_whole_number)]
    pub seed: u64,
    /// Search depth of each move, in plies.
    #[arg(long, allow_negative_numbers = true, default_value_t = 8, value_parser = whole::<u32>(1..=30))]
    pub depth: u32,
    /// Solve exactly from this many empties on (the game's exact score and its last moves).
    #[arg(long, allow_negative_numbers = true, default_value_t = 22, value_parser = whole::<u32>(0..=30))]
    pub solve_empties: u32,
    /// Moves after the opening drawn from a softmax of the moves' values.
    #[arg(long, allow_negative_numbers = true, default_value_t = 10, value_parser = whole::<u32>(0..=60))]
    pub noise_plies: u32,
    /// Softmax temperature in discs (a move T discs worse is e times less likely).
    #[arg(long, allow_negative_numbers = true, default_value_t = 2.0, value_parser = parse_temperature)]
    pub temperature: f64,
    /// Openings: `xot` ($FLANK_DATA/openings/xot_large.txt), `random` (8 random plies) or a
    /// file of transcripts, one per line.
    #[arg(long, default_value = "xot")]
    pub openings: String,
    /// Games played at once, one search thread each (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    pub threads: Option<u64>,
    /// Transposition table of each game, in MiB.
    #[arg(long, allow_negative_numbers = true, default_value_t = 16, value_parser = whole::<u64>(1..=65536))]
    pub hash: u64,
    /// `--eval`.
    #[command(flatten)]
    pub eval: EvalArg,
}

/// The options of `flank train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Evaluation of the self-play games: `classic` (hand-written; the default, so that
    /// retraining does not depend on earlier weights), `trained` (the built-in weights) or the
    /// path of a weights file written by `flank train`.
    #[arg(long, value_name = "EVAL")]
    pub eval: Option<String>,
    /// A small, fast run (a WTHOR subset, few self-play games) for CI and tests.
    #[arg(long)]
    pub quick: bool,
    /// Output weights file (default `weights/flank-eval.bin`, the built-in weights' source;
    /// required with --quick, so that a test run never overwrites them).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of the validation split, openings, random moves and search-leaf walks.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_whole_number)]
    pub seed: u64,
    /// Self-play games (default: 4000, or 100 with --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>(0..=10_000_000))]
    pub games: Option<usize>,
    /// Use at most this many WTHOR games (default: all, or 6000 with --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>(0..=10_000_000))]
    pub wthor_games: Option<usize>,
    /// Solve self-play positions with at most this many empties exactly (default 16, or 12
    /// with --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(0..=24))]
    pub solve_empties: Option<u32>,
    /// Solve WTHOR positions with at most this many empties exactly (default 14, or 10 with
    /// --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(0..=23))]
    pub wthor_solve_empties: Option<u32>,
    /// Random plies played (and solved) from every solved WTHOR position (default 0 = off).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(0..=8))]
    pub deviation_plies: Option<u32>,
    /// Search-leaf samples: walks from training positions down to 2-9 empties, solved
    /// (default 48000000, or 5000 with --quick; 0 = none).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(0..=100_000_000))]
    pub leaf_samples: Option<u64>,
    /// Evaluation whose greedy moves the search-leaf walks follow: classic, trained (the
    /// built-in weights; default) or a weights file. Not used when --samples reads a cache.
    #[arg(long, value_name = "EVAL")]
    pub leaf_eval: Option<String>,
    /// Conjugate-gradient iterations per phase (default 60, or 30 with --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=10000))]
    pub iterations: Option<u64>,
    /// Ridge strength (default 20).
    #[arg(long, allow_negative_numbers = true)]
    pub lambda: Option<f64>,
    /// Cache of the labelled samples: read if it exists (skipping the WTHOR solving and the
    /// self-play), written otherwise; for refitting with other settings.
    #[arg(long)]
    pub samples: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    pub jobs: Option<u64>,
    /// Phases (of 2 empties each: phase 2 = 4-5 empties) that get a residual net on top of
    /// the linear patterns: a list like 1,2 or 0-3 (phases 0-29), or none (the default)
    #[arg(long, allow_negative_numbers = true, value_name = "PHASES", value_parser = parse_phases)]
    pub net_phases: Option<NumberList>,
    /// Empties counts that get a residual net of their own (it takes precedence over a phase
    /// net at that count): a list like 4,5 or 2-9 (0-60), or none (default 2-9)
    #[arg(long, allow_negative_numbers = true, value_name = "EMPTIES", value_parser = parse_empties)]
    pub net_empties: Option<NumberList>,
    /// Hidden units of the nets this run trains: 32 (the default), 64, 128 or 192
    #[arg(long, value_name = "UNITS", value_parser = clap::builder::PossibleValuesParser::new(["32", "64", "128", "192"]))]
    pub net_hidden: Option<String>,
    /// Extra search-leaf walks ending at the --net-empties counts, for the nets only (the
    /// linear fit never sees them; not cached; default 0)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(0..=100_000_000))]
    pub net_leaf_samples: Option<u64>,
    /// Take the linear pattern weights from this weights file (or `trained`, the built-in
    /// ones) instead of fitting them, and its nets in the slots not listed in --net-phases and
    /// --net-empties; only the listed nets are trained (the labelling still runs;
    /// --iterations/--lambda do not apply).
    #[arg(long, value_name = "FILE")]
    pub base: Option<PathBuf>,
    /// SGD epochs per residual net, 1-1000 (default 12).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=1000))]
    pub net_epochs: Option<u64>,
    /// SGD learning rate of the residual nets at the start, in (0, 1] (default 0.001).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_rate)]
    pub net_rate: Option<f32>,
}
