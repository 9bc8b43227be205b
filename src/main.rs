//! The `flank` binary: the clap command line (`gtp`, `solve`, `analyze`, `perft`, `bench`, `train`, and the
//! global `--eval`).
//!
//! Plain `flank` runs the GTP loop on stdin/stdout. Errors end the process with a one-line
//! reason on stderr and exit status 2; `solve` exits 1 when any result disagrees with the
//! scores its input lists.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand};

use flank::Board;
use flank::cli::solve::{
    SolveKind, SolveOptions, per_second, read_problems, run_solve, solve_problems,
};
use flank::engine::{Engine, EngineConfig};
use flank::othello::perft::{PassRule, perft};
use flank::protocol::gtp::GtpOptions;

/// flank: an Othello (Reversi) engine speaking GTP, with an exact endgame solver.
#[derive(Parser, Debug)]
#[command(name = "flank", version, about, long_about = None)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Without a subcommand flank speaks GTP and takes `gtp`'s options.
    #[command(flatten)]
    gtp: GtpArgs,
}

/// The `--eval` option of `gtp`, `solve` and `bench` (`train` has its own, with another
/// default).
#[derive(Args, Debug, Clone, Default)]
struct EvalArg {
    /// Evaluation: `trained` (the built-in weights, the default), `classic` (hand-written) or
    /// the path of a weights file written by `flank train`.
    #[arg(long, value_name = "EVAL")]
    eval: Option<String>,
}

/// The `--mpc` option of `gtp` and `solve`.
#[derive(Args, Debug, Clone, Default)]
struct MpcArg {
    /// Midgame multi-ProbCut: `off`, or its confidence in standard deviations of the
    /// calibration stored with the weights (a number in (0, 10]; default 1.5). Exact and WLD
    /// solves never use it.
    #[arg(long, value_name = "off|T", allow_negative_numbers = true, value_parser = parse_mpc)]
    mpc: Option<MpcSetting>,
}

/// A parsed `--mpc` value: `None` = off, else the confidence `t`.
#[derive(Clone, Copy, Debug)]
struct MpcSetting(Option<f64>);

fn parse_mpc(s: &str) -> Result<MpcSetting, String> {
    if s.eq_ignore_ascii_case("off") {
        return Ok(MpcSetting(None));
    }
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 && t <= 10.0 => Ok(MpcSetting(Some(t))),
        _ => Err(format!(
            "expected `off` or a number of standard deviations in (0, 10], got '{s}'"
        )),
    }
}

impl MpcArg {
    /// Applies the setting to `engine` (the engine's default when not given).
    fn apply(&self, engine: &mut Engine) {
        if let Some(m) = self.mpc {
            engine.set_mid_mpc(m.0);
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak GTP on stdin/stdout (the default when no subcommand is given).
    Gtp(GtpArgs),
    /// Solve endgame positions: one OBF line or board string per line of FILE (`-` = stdin);
    /// without FILE, a built-in set of positions.
    Solve(SolveArgs),
    /// Show the best few moves of positions, each with its score and principal variation:
    /// one OBF line or board string per line of FILE (`-` = stdin).
    Analyze(AnalyzeArgs),
    /// Count the leaves of the game tree from the start position.
    Perft(PerftArgs),
    /// Train the pattern evaluation from WTHOR games ($FLANK_DATA/games/wthor), self-play
    /// games and search-leaf walks, and write the weights file. WTHOR games through a
    /// position of $FLANK_DATA/endgame/hard-20.obf (the evaluation's test set) are left out.
    Train(TrainArgs),
    /// Write a held-out evaluation test set: positions with a fixed number of empties from
    /// the WTHOR games ($FLANK_DATA/games/wthor) that `flank train` holds out for validation,
    /// games through a hard-20 position left out, every move solved exactly, as OBF lines.
    /// Measure an evaluation with `flank solve --depth D [--eval FILE] SET` (its last line
    /// gives the best-move agreement and the mean score error; see docs/eval.md).
    Evalset(EvalsetArgs),
    /// Join the residual nets of two weights files at some empties counts into their
    /// ensemble (one net with both nets' hidden units, whose correction is the weighted mean
    /// of theirs); everything else comes from BASE. See docs/eval.md.
    Ensemble(EnsembleArgs),
    /// Search a fixed set of positions on one thread and print the node total (the search
    /// fingerprint) and nodes/s.
    Bench(BenchArgs),
    /// Fit the midgame multi-ProbCut calibration of an evaluation on WTHOR positions
    /// ($FLANK_DATA/games/wthor) and write its weights file with the table (see
    /// docs/eval.md, "Midgame MPC").
    MpcCalibrate(CalibrateArgs),
    /// Play a match between two GTP engines (any command lines, e.g. two flank settings):
    /// openings played twice with colours swapped, whole-game clocks (time odds allowed),
    /// forfeits, GGF records, Elo and SPRT; rounds to a target, stakes, draw offers,
    /// handicaps. See docs/match.md.
    Match(MatchArgs),
}

/// Settings shared by every command that searches.
#[derive(Args, Debug, Clone)]
struct EngineArgs {
    /// Transposition table size in MiB.
    #[arg(long, allow_negative_numbers = true, default_value_t = 64, value_parser = whole::<u64>(1..=65536))]
    hash: u64,
    /// Search threads (default: all cores under `gtp`, 1 under `analyze`); 1 is
    /// deterministic.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    threads: Option<u64>,
    #[command(flatten)]
    eval: EvalArg,
}

impl Default for EngineArgs {
    fn default() -> Self {
        EngineArgs {
            hash: 64,
            threads: None,
            eval: EvalArg::default(),
        }
    }
}

impl EngineArgs {
    /// The engine settings, with `default_threads` threads unless `--threads` is given.
    fn config(&self, default_threads: usize) -> EngineConfig {
        EngineConfig {
            hash_mb: self.hash as usize,
            threads: self.threads.map_or(default_threads, |t| t as usize),
        }
    }
}

/// The number of cores (1 if unknown): the default thread count of `gtp` and `solve`.
fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[derive(Args, Debug, Default)]
struct GtpArgs {
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    mpc: MpcArg,
    /// Search every move to at most this depth in plies (the endgame is still solved exactly;
    /// the clock or the per-move time still bounds each search).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1..=60))]
    depth: Option<u32>,
    /// Time per move in ms when no clock is set by `time_settings` (default 1000; at most
    /// 3600000, an hour).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_move_time)]
    move_time: Option<u64>,
    /// Print search progress (depth, score, nodes, PV) on stderr.
    #[arg(long, short)]
    verbose: bool,
    /// Playing level: easy, medium, hard (full strength, the default) or 1-60 (see
    /// docs/levels.md); GTP `flank-level` changes it.
    #[arg(long, value_parser = parse_level)]
    level: Option<flank::engine::level::Level>,
    /// Seed of the random generator behind easy's randomness (default 1): the same seed and
    /// the same commands give the same moves.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_whole_number)]
    seed: Option<u64>,
}

/// A clap value parser for a whole number in `range`, converted to `T` (`u32` or `u64`): a
/// negative, fractional or too large value is reported with the range (clap's own unsigned
/// parser says "invalid digit found in string" for `-5`); clap's message already quotes the
/// value.
fn whole<T>(range: std::ops::RangeInclusive<u64>) -> impl TypedValueParser<Value = T>
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

/// Parses a whole number >= 0 (a seed), naming what is wrong otherwise.
fn parse_whole_number(s: &str) -> Result<u64, String> {
    use std::num::IntErrorKind;
    s.trim().parse::<u64>().map_err(|e| match e.kind() {
        IntErrorKind::PosOverflow => format!("'{s}' is too large (at most {})", u64::MAX),
        _ => format!("expected a whole number >= 0, got '{s}'"),
    })
}

/// Parses `--move-time`: whole ms, at most [`flank::engine::timeman::MAX_MOVE_MS`] (an hour, the cap
/// of every search).
fn parse_move_time(s: &str) -> Result<u64, String> {
    let max = flank::engine::timeman::MAX_MOVE_MS;
    match s.trim().parse::<u128>() {
        Ok(v) if v <= u128::from(max) => Ok(v as u64),
        Ok(_) => Err(format!("'{s}' ms is more than an hour (at most {max})")),
        Err(_) => Err(format!("expected a whole number of ms >= 0, got '{s}'")),
    }
}

fn parse_level(s: &str) -> Result<flank::engine::level::Level, String> {
    s.parse()
        .map_err(|e: flank::engine::level::LevelError| e.to_string())
}

#[derive(Args, Debug)]
struct SolveArgs {
    /// Problem file (OBF lines or board strings); `-` reads stdin; none solves built-in positions.
    file: Option<String>,
    /// Search to this depth in plies instead of solving exactly.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1..=60), conflicts_with = "wld")]
    depth: Option<u32>,
    /// Search each position as `genmove` would, within this many ms (midgame, then WLD or
    /// exact when the empties can be solved in time; no new iteration after half of it), and
    /// judge the best move, as with --depth.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = whole::<u64>(1..=3_600_000), conflicts_with_all = ["wld", "depth"])]
    time: Option<u64>,
    /// Win/loss/draw solve instead of the exact score.
    #[arg(long)]
    wld: bool,
    /// One JSON object per position.
    #[arg(long)]
    json: bool,
    /// Number of the first position (for files such as fforum-20-39.obf, use 20).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1, value_parser = whole::<u32>(0..=1_000_000_000))]
    first_id: u32,
    /// Solve only these positions, by number (as numbered with --first-id): a list like
    /// 40-44 or 3,7,10-12; the others are still read and checked.
    #[arg(long, value_name = "LIST", value_parser = parse_id_ranges)]
    positions: Option<IdRanges>,
    /// Clear the transposition table before each position (each solved as by a new engine;
    /// by default the table carries over from one position to the next).
    #[arg(long)]
    fresh: bool,
    /// Transposition table size in MiB.
    #[arg(long, allow_negative_numbers = true, default_value_t = 64, value_parser = whole::<u64>(1..=65536))]
    hash: u64,
    /// Search threads (default: all cores); 1 gives deterministic node counts.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    threads: Option<u64>,
    #[command(flatten)]
    eval: EvalArg,
    #[command(flatten)]
    mpc: MpcArg,
}

impl SolveArgs {
    fn config(&self) -> EngineConfig {
        EngineConfig {
            hash_mb: self.hash as usize,
            threads: self.threads.map_or(all_cores(), |t| t as usize),
        }
    }
}

#[derive(Args, Debug)]
struct AnalyzeArgs {
    /// Position file (OBF lines or board strings, as for `solve`); `-` reads stdin.
    file: String,
    /// Best moves shown per position (all legal moves when there are fewer).
    #[arg(long, allow_negative_numbers = true, default_value_t = 3, value_parser = whole::<usize>(1..=64))]
    moves: usize,
    /// Search every move to this depth in plies (positions with 14 empties or fewer are still
    /// solved exactly). Without --depth and --time: solved exactly at 20 empties or fewer, else
    /// depth 10.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1..=60), conflicts_with = "time")]
    depth: Option<u32>,
    /// Time per position in ms: no new iteration after half of it, the answer within it
    /// (exact solves are tried at 24 empties or fewer).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=flank::engine::timeman::MAX_MOVE_MS))]
    time: Option<u64>,
    /// Solve every move exactly whatever the empties (with --time, within it: if the solves
    /// do not finish, the midgame scores are shown).
    #[arg(long, conflicts_with = "depth")]
    exact: bool,
    /// One JSON object per position instead of text.
    #[arg(long)]
    json: bool,
    /// Print every iteration's moves (depth, score, nodes, nps, PV) on stderr.
    #[arg(long, short)]
    verbose: bool,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    mpc: MpcArg,
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// Midgame search depth in plies.
    #[arg(long, allow_negative_numbers = true, default_value_t = flank::cli::bench::DEFAULT_BENCH_DEPTH, value_parser = whole::<u32>(1..=30))]
    depth: u32,
    /// Transposition table size in MiB (part of the fingerprint).
    #[arg(long, allow_negative_numbers = true, default_value_t = 64, value_parser = whole::<u64>(1..=65536))]
    hash: u64,
    #[command(flatten)]
    eval: EvalArg,
}

#[derive(Args, Debug)]
struct EvalsetArgs {
    /// Empties of every position (1-24). Solving all its moves takes about 0.01 s per position
    /// at 14 empties, 0.3 s at 20, 3 s at 22, 17 s at 24 (wall, 2 cores).
    #[arg(long, allow_negative_numbers = true, default_value_t = 14, value_parser = whole::<u32>(1..=24))]
    empties: u32,
    /// Positions wanted, evenly spaced over the candidates (about 6,800 exist at 14 empties);
    /// fewer if fewer exist.
    #[arg(long, allow_negative_numbers = true, default_value_t = 4000, value_parser = whole::<u64>(1..=1_000_000))]
    count: u64,
    /// The `flank train --seed` whose validation split the positions come from (held out only
    /// from a training run on all WTHOR games, the default; `--wthor-games` and `--quick`
    /// runs split their subset differently).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_whole_number)]
    seed: u64,
    /// Output file, written when the set is complete (`-` or none: stdout). The summary goes
    /// to stderr.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Solving threads (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    threads: Option<u64>,
}

#[derive(Args, Debug)]
struct CalibrateArgs {
    /// Positions to search (sampled from the WTHOR games).
    #[arg(long, allow_negative_numbers = true, default_value_t = 2000, value_parser = whole::<usize>(10..=1_000_000))]
    positions: usize,
    /// Deepest search in plies (each position is searched at every depth up to it).
    #[arg(long, allow_negative_numbers = true, default_value_t = 12, value_parser = whole::<u32>(3..=16))]
    max_depth: u32,
    /// Fewest empties of a sampled position.
    #[arg(long, allow_negative_numbers = true, default_value_t = 14, value_parser = whole::<u32>(1..=59))]
    min_empties: u32,
    /// Most empties of a sampled position.
    #[arg(long, allow_negative_numbers = true, default_value_t = 56, value_parser = whole::<u32>(1..=59))]
    max_empties: u32,
    /// Seed of the sampling.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_whole_number)]
    seed: u64,
    /// Transposition table per thread in MiB.
    #[arg(long, allow_negative_numbers = true, default_value_t = 16, value_parser = whole::<u64>(1..=4096))]
    hash: u64,
    /// Threads (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    threads: Option<u64>,
    /// The evaluation to calibrate: `trained` (the built-in weights, the default) or a
    /// weights file; the output is that file with the table.
    #[arg(long, value_name = "EVAL")]
    eval: Option<String>,
    /// Output weights file.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args, Debug)]
struct EnsembleArgs {
    /// Weights file whose linear weights and other nets are kept.
    base: PathBuf,
    /// Weights file whose nets are averaged with BASE's.
    other: PathBuf,
    /// Empties counts whose nets are averaged (a list like 5 or 4-6); both files need a net
    /// of their own there, of 64 and 128 units (either way round).
    #[arg(long, value_name = "EMPTIES", value_parser = parse_empties, default_value = "5")]
    net_empties: NumberList,
    /// Weight of OTHER's net, in [0, 1] (BASE's gets the rest).
    #[arg(long, default_value_t = 0.5, allow_negative_numbers = true)]
    weight: f64,
    /// Output weights file.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args, Debug)]
struct TrainArgs {
    /// Evaluation of the self-play games: `classic` (hand-written; the default, so that
    /// retraining does not depend on earlier weights), `trained` (the built-in weights) or the
    /// path of a weights file written by `flank train`.
    #[arg(long, value_name = "EVAL")]
    eval: Option<String>,
    /// A small, fast run (a WTHOR subset, few self-play games) for CI and tests.
    #[arg(long)]
    quick: bool,
    /// Output weights file (default `weights/flank-eval.bin`, the built-in weights' source;
    /// required with --quick, so that a test run never overwrites them).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed of the validation split, openings, random moves and search-leaf walks.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_whole_number)]
    seed: u64,
    /// Self-play games (default: 4000, or 100 with --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>(0..=10_000_000))]
    games: Option<usize>,
    /// Use at most this many WTHOR games (default: all, or 6000 with --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>(0..=10_000_000))]
    wthor_games: Option<usize>,
    /// Solve self-play positions with at most this many empties exactly (default 16, or 12
    /// with --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(0..=24))]
    solve_empties: Option<u32>,
    /// Solve WTHOR positions with at most this many empties exactly (default 14, or 10 with
    /// --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(0..=23))]
    wthor_solve_empties: Option<u32>,
    /// Random plies played (and solved) from every solved WTHOR position (default 0 = off).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(0..=8))]
    deviation_plies: Option<u32>,
    /// Search-leaf samples: walks from training positions down to 2-9 empties, solved
    /// (default 48000000, or 5000 with --quick; 0 = none).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(0..=100_000_000))]
    leaf_samples: Option<u64>,
    /// Evaluation whose greedy moves the search-leaf walks follow: classic, trained (the
    /// built-in weights; default) or a weights file. Not used when --samples reads a cache.
    #[arg(long, value_name = "EVAL")]
    leaf_eval: Option<String>,
    /// Conjugate-gradient iterations per phase (default 60, or 30 with --quick).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=10000))]
    iterations: Option<u64>,
    /// Ridge strength (default 20).
    #[arg(long, allow_negative_numbers = true)]
    lambda: Option<f64>,
    /// Cache of the labelled samples: read if it exists (skipping the WTHOR solving and the
    /// self-play), written otherwise; for refitting with other settings.
    #[arg(long)]
    samples: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    jobs: Option<u64>,
    /// Phases (of 2 empties each: phase 2 = 4-5 empties) that get a residual net on top of
    /// the linear patterns: a list like 1,2 or 0-3 (phases 0-29), or none (the default)
    #[arg(long, allow_negative_numbers = true, value_name = "PHASES", value_parser = parse_phases)]
    net_phases: Option<NumberList>,
    /// Empties counts that get a residual net of their own (it takes precedence over a phase
    /// net at that count): a list like 4,5 or 2-9 (0-60), or none (default 2-9)
    #[arg(long, allow_negative_numbers = true, value_name = "EMPTIES", value_parser = parse_empties)]
    net_empties: Option<NumberList>,
    /// Hidden units of the nets this run trains: 32 (the default), 64, 128 or 192
    #[arg(long, value_name = "UNITS", value_parser = clap::builder::PossibleValuesParser::new(["32", "64", "128", "192"]))]
    net_hidden: Option<String>,
    /// Extra search-leaf walks ending at the --net-empties counts, for the nets only (the
    /// linear fit never sees them; not cached; default 0)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(0..=100_000_000))]
    net_leaf_samples: Option<u64>,
    /// Take the linear pattern weights from this weights file (or `trained`, the built-in
    /// ones) instead of fitting them, and its nets in the slots not listed in --net-phases and
    /// --net-empties; only the listed nets are trained (the labelling still runs;
    /// --iterations/--lambda do not apply).
    #[arg(long, value_name = "FILE")]
    base: Option<PathBuf>,
    /// SGD epochs per residual net, 1-1000 (default 12).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=1000))]
    net_epochs: Option<u64>,
    /// SGD learning rate of the residual nets at the start, in (0, 1] (default 0.001).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_rate)]
    net_rate: Option<f32>,
}

/// The numbers of `--net-phases` or `--net-empties`.
#[derive(Clone, Debug)]
struct NumberList(Vec<usize>);

/// Parses `--net-phases`: `none`, or comma-separated phases and ranges (`1,2`, `0-3`).
fn parse_phases(s: &str) -> Result<NumberList, String> {
    parse_list(s, flank::eval::pattern::NUM_PHASES - 1, "a phase")
}

/// Parses `--net-empties`: `none`, or comma-separated empties counts and ranges (`4,5`, `2-9`).
fn parse_empties(s: &str) -> Result<NumberList, String> {
    parse_list(s, 60, "an empties count")
}

/// A list of numbers 0..=`max` and ranges, or `none`; `what` names one in errors.
fn parse_list(s: &str, max: usize, what: &str) -> Result<NumberList, String> {
    if s == "none" {
        return Ok(NumberList(Vec::new()));
    }
    let mut out = Vec::new();
    for (a, b) in parse_ranges(s, &format!("{what} (0-{max}, or none)"), max)? {
        for p in a..=b {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(NumberList(out))
}

/// Comma-separated numbers 0..=`max` and inclusive ranges (`4,5`, `2-9`) as ranges; `what`
/// says what a number should be in errors.
fn parse_ranges(s: &str, what: &str, max: usize) -> Result<Vec<(usize, usize)>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let num = |t: &str| -> Result<usize, String> {
            match t.trim().parse::<usize>() {
                Ok(v) if v <= max => Ok(v),
                _ => Err(format!("'{t}' is not {what}")),
            }
        };
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(part)?, num(part)?),
        };
        if a > b {
            return Err(format!("empty range '{part}'"));
        }
        out.push((a, b));
    }
    Ok(out)
}

/// Inclusive ranges of position numbers, from `--positions`.
#[derive(Clone, Debug)]
struct IdRanges(Vec<(usize, usize)>);

/// Parses `--positions`: comma-separated numbers and ranges (`40-44`, `3,7,10-12`).
fn parse_id_ranges(s: &str) -> Result<IdRanges, String> {
    parse_ranges(s, "a position number (e.g. 40-44 or 3,7)", usize::MAX).map(IdRanges)
}

/// Parses `--net-rate`: a positive number up to 1.
fn parse_rate(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(format!("'{s}' is not a learning rate (a number in (0, 1])")),
    }
}

#[derive(Args, Debug)]
struct MatchArgs {
    /// Player A's engine command line, split like a shell would (e.g. "flank gtp --depth 4").
    #[arg(long)]
    engine_a: String,
    /// Player B's engine command line.
    #[arg(long)]
    engine_b: String,
    /// A's name in records (default: the engine's `name` answer with -A appended).
    #[arg(long)]
    name_a: Option<String>,
    /// B's name in records (default: the engine's `name` answer with -B appended).
    #[arg(long)]
    name_b: Option<String>,
    /// Openings: a file with one transcript per line, or `xot` / `xot-large` for
    /// openings/xot_small.txt / xot_large.txt in $FLANK_DATA (default ../shared/data, then
    /// the build's ../shared/data). Default: four built-in openings
    /// (none with --handicap: the handicap position itself).
    #[arg(long)]
    openings: Option<String>,
    /// Games to play (default: every opening twice; 10000 at most with --sprt or
    /// --target-points, which stop earlier).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=1_000_000))]
    games: Option<u64>,
    /// Games played at once (default: one per two cores, at least 1).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    concurrency: Option<u64>,
    /// Each player's clock for the whole game, seconds (decimals allowed).
    #[arg(long, default_value = "600", allow_hyphen_values = true, value_parser = parse_seconds)]
    time: u64,
    /// Player A's clock for the whole game, seconds (decimals allowed): overrides --time for
    /// A only, for time odds (e.g. --time 10 --time-a 20 gives A twice B's time).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_seconds)]
    time_a: Option<u64>,
    /// Player B's clock for the whole game, seconds (decimals allowed): overrides --time for
    /// B only.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_seconds)]
    time_b: Option<u64>,
    /// Send time_settings/time_left in seconds with millisecond precision (1.523) instead of
    /// whole seconds; recommended for flank vs flank with short clocks.
    #[arg(long)]
    decimal_time: bool,
    /// Append each game as one GGF line to FILE.
    #[arg(long)]
    ggf: Option<PathBuf>,
    /// Print the summary (with every game) as JSON on stdout instead of text.
    #[arg(long)]
    json: bool,
    /// Stop early by SPRT: elo0,elo1,alpha,beta (e.g. 0,10,0.05,0.05 or -5,0,0.05,0.05).
    #[arg(long, allow_hyphen_values = true)]
    sprt: Option<String>,
    /// Play rounds until a player has this many points (a round is worth the winner's disc
    /// difference; a forfeit 64).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1..=1_000_000_000))]
    target_points: Option<u32>,
    /// Play for a stake per game, e.g. 5.00 (pot 2 x stake, winner 90 %, commission 10 %).
    #[arg(long, allow_hyphen_values = true)]
    stake: Option<String>,
    /// Let each player offer a draw (at most 3 times per game) through flank-draw_offer.
    #[arg(long)]
    draw_offers: bool,
    /// Ask about draws only with at most this many empty squares.
    #[arg(long, default_value_t = 64, allow_negative_numbers = true, value_parser = whole::<u32>(0..=64))]
    draw_offer_empties: u32,
    /// Give this many corners (1-4, in the order a1 h8 h1 a8) to one player before each game.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1..=4))]
    handicap: Option<u32>,
    /// The player receiving the handicap corners.
    #[arg(long, default_value = "b", requires = "handicap")]
    handicap_side: HandicapSide,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum HandicapSide {
    A,
    B,
}

/// `--time`, `--time-a`, `--time-b`: seconds (decimals allowed, at least `MIN_TIME_MS` ms,
/// at most 10^7 s) to ms.
fn parse_seconds(s: &str) -> Result<u64, String> {
    use flank::matchplay::runner::MIN_TIME_MS;
    let text = flank::notation::clip(s);
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * 1000.0 < MIN_TIME_MS as f64 => Err(format!(
            "bad time '{text}' (the clock must be at least {} s)",
            MIN_TIME_MS as f64 / 1000.0
        )),
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1e7 => Ok((v * 1000.0).round() as u64),
        _ => Err(format!(
            "bad time '{text}' (expected seconds, e.g. 600 or 0.5)"
        )),
    }
}

#[derive(Args, Debug)]
struct PerftArgs {
    /// Depth in plies.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u32>(0..=20))]
    depth: u32,
    /// `ply`: a pass counts as a ply (the common convention); `free`: a pass uses no depth.
    #[arg(long, default_value = "ply")]
    pass_rule: PassRule,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                let _ = e.print();
                return ExitCode::from(2);
            }
            // One line: clap's message up to its usage block, joined.
            let text = e.to_string();
            let reason: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
                .map(str::trim)
                .collect();
            let reason = reason.join(" ");
            eprintln!(
                "flank: {} (see {} --help)",
                reason.trim_start_matches("error: "),
                help_target()
            );
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(code) => code,
        // A reader that stopped reading (`flank solve | head`) is not an error.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("flank: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The command whose `--help` a parse error points to: `flank match` when the first argument
/// names a subcommand (top-level options conflict with subcommands, so a subcommand is always
/// first), else `flank`.
fn help_target() -> String {
    use clap::CommandFactory;
    let first = std::env::args_os().nth(1);
    match first.as_ref().and_then(|a| a.to_str()) {
        Some(sub) if Cli::command().find_subcommand(sub).is_some() => format!("flank {sub}"),
        _ => "flank".to_string(),
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let command = cli.command.unwrap_or(Command::Gtp(cli.gtp));
    // The evaluator is process-wide and chosen before any search. `train` plays its self-play
    // games with the classic evaluation unless told otherwise, so that retraining does not
    // depend on earlier weights.
    let spec = match &command {
        Command::Gtp(a) => a.engine.eval.eval.clone(),
        Command::Solve(a) => a.eval.eval.clone(),
        Command::Bench(a) => a.eval.eval.clone(),
        Command::Analyze(a) => a.engine.eval.eval.clone(),
        Command::Train(a) => Some(a.eval.clone().unwrap_or_else(|| "classic".into())),
        Command::MpcCalibrate(a) => a.eval.clone(),
        Command::Perft(_) | Command::Match(_) | Command::Evalset(_) | Command::Ensemble(_) => None,
    };
    if let Some(spec) = spec {
        let e = flank::eval::Evaluator::from_spec(&spec)?;
        // Nothing has evaluated yet, so this cannot fail; ignore it if it somehow did.
        let _ = flank::eval::set_evaluator(e);
    }
    if matches!(
        command,
        Command::Gtp(_) | Command::Solve(_) | Command::Bench(_) | Command::Analyze(_)
    ) {
        // Decode the weights now (about 0.3 s with the residual nets), not inside the first
        // search, where it would count against the game clock or the first solve's time.
        let _ = flank::eval::active();
    }
    match command {
        Command::Gtp(args) => run_gtp(args),
        Command::Solve(args) => run_solve_cmd(args),
        Command::Analyze(args) => run_analyze_cmd(args),
        Command::Perft(args) => {
            let start = Instant::now();
            let n = perft(&Board::start(), args.depth, args.pass_rule);
            let elapsed = start.elapsed();
            let rule = match args.pass_rule {
                PassRule::Ply => "ply",
                PassRule::Free => "free",
            };
            let mut out = io::stdout().lock();
            writeln!(
                out,
                "perft {} ({rule} pass rule): {} leaves, {} ms, {} leaves/s",
                args.depth,
                n,
                elapsed.as_millis(),
                per_second(n, elapsed)
            )?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(args) => run_bench(args),
        Command::Match(args) => run_match_cmd(args),
        Command::Train(args) => run_train(args),
        Command::Evalset(args) => run_evalset(args),
        Command::Ensemble(args) => run_ensemble(args),
        Command::MpcCalibrate(args) => run_calibrate(args),
    }
}

fn run_calibrate(args: CalibrateArgs) -> Result<ExitCode> {
    if args.min_empties > args.max_empties {
        anyhow::bail!(
            "--min-empties {} is above --max-empties {}",
            args.min_empties,
            args.max_empties
        );
    }
    // `base_bytes` refuses `classic` (no weights file to store a table in).
    let base = flank::train::calibrate::base_bytes(args.eval.as_deref())?;
    flank::train::check_writable(&args.out, "output file")?;
    let data = flank::data::data_root().map_err(anyhow::Error::msg)?;
    let opts = flank::train::calibrate::CalibrateOptions {
        wthor_dir: data.join("games/wthor"),
        positions: args.positions,
        max_depth: args.max_depth,
        empties: (args.min_empties, args.max_empties),
        seed: args.seed,
        hash_mb: args.hash as usize,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.map_or(0, |t| t as usize))
        .build()
        .context("cannot start the threads")?;
    let mut report = Vec::new();
    let table = pool.install(|| flank::train::calibrate::run(&opts, &mut report));
    let mut out = io::stdout().lock();
    out.write_all(&report)?;
    let table = table?;
    // Every depth the search cuts at needs a fit somewhere (a bucket with enough samples).
    let missing: Vec<i32> = (flank::search::probcut::MID_MPC_MIN_DEPTH..=args.max_depth as i32)
        .filter(|&d| {
            table
                .fit(30, d, flank::eval::mpc::mid_shallow_depth(d))
                .is_none()
        })
        .collect();
    if !missing.is_empty() {
        anyhow::bail!(
            "too few positions ({}) to fit depths {missing:?} (each needs {} samples in some empties bucket; give --positions 200 or more); nothing written",
            args.positions,
            flank::eval::mpc::MID_MIN_SAMPLES
        );
    }
    let bytes = flank::train::calibrate::with_table(&base, &table)?;
    std::fs::write(&args.out, &bytes)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    writeln!(
        out,
        "mpc-calibrate: wrote {} ({} bytes)",
        args.out.display(),
        bytes.len()
    )?;
    Ok(ExitCode::SUCCESS)
}

fn run_ensemble(args: EnsembleArgs) -> Result<ExitCode> {
    if !(0.0..=1.0).contains(&args.weight) {
        anyhow::bail!("--weight must be a number in [0, 1] (see flank ensemble --help)");
    }
    if args.net_empties.0.is_empty() {
        anyhow::bail!("--net-empties: no empties counts given");
    }
    flank::train::check_writable(&args.out, "output file")?;
    let read = |p: &PathBuf| {
        std::fs::read(p).with_context(|| format!("cannot read weights file {}", p.display()))
    };
    let (base, other) = (read(&args.base)?, read(&args.other)?);
    let empties: Vec<u32> = args.net_empties.0.iter().map(|&e| e as u32).collect();
    let bytes =
        flank::eval::weights::ensemble(&base, &other, &empties, args.weight).map_err(|e| {
            anyhow::anyhow!(
                "{e} (BASE = {}, OTHER = {})",
                args.base.display(),
                args.other.display()
            )
        })?;
    std::fs::write(&args.out, &bytes)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "ensemble: wrote {} ({} bytes): nets at {empties:?} empties = {:.2} x {} + {:.2} x {}",
        args.out.display(),
        bytes.len(),
        1.0 - args.weight,
        args.base.display(),
        args.weight,
        args.other.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn run_evalset(args: EvalsetArgs) -> Result<ExitCode> {
    let data = flank::data::data_root().map_err(anyhow::Error::msg)?;
    let opts = flank::train::evalset::EvalSetOptions {
        wthor_dir: data.join("games/wthor"),
        empties: args.empties,
        count: args.count as usize,
        seed: args.seed,
        validation_percent: 5,
        test_positions: Some(data.join("endgame/hard-20.obf")),
    };
    // `--out FILE`: the set goes to a temporary file beside it, renamed over FILE only when
    // complete, so a failed or interrupted run leaves an existing FILE as it was. Creating the
    // temporary file first also fails an unwritable path before the work.
    // (output file, its temporary file); `None`: stdout.
    let files = match args.out.as_ref().filter(|p| p.as_os_str() != "-") {
        Some(out) => {
            let mut name = out.file_name().unwrap_or_default().to_os_string();
            name.push(format!(".partial-{}", std::process::id()));
            let temp = out.with_file_name(name);
            File::create(&temp).with_context(|| format!("cannot write {}", out.display()))?;
            Some((out, temp))
        }
        None => None,
    };
    let threads = args.threads.map_or(0, |t| t as usize);
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the solving threads")
        .and_then(|pool| pool.install(|| flank::train::evalset::build(&opts)));
    let (lines, stats) = match built {
        Ok(b) => b,
        Err(e) => {
            if let Some((_, temp)) = &files {
                let _ = std::fs::remove_file(temp);
            }
            return Err(e);
        }
    };
    let mut text = lines.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    match &files {
        Some((out, temp)) => {
            let written = std::fs::write(temp, &text).and_then(|_| std::fs::rename(temp, out));
            if let Err(e) = written {
                let _ = std::fs::remove_file(temp);
                return Err(e).with_context(|| format!("cannot write {}", out.display()));
            }
        }
        None => {
            let mut o = io::stdout().lock();
            match o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
                // A closed pipe (`| head`) only means nobody wants the rest.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
                r => r.context("cannot write to stdout")?,
            }
        }
    }
    if !opts.test_positions.as_ref().is_some_and(|p| p.exists()) {
        eprintln!("evalset: note: endgame/hard-20.obf not found, no test games left out");
    }
    eprintln!(
        "evalset: {} WTHOR games, {} held out (seed {}), {} of them through a hard-20 position left out; {} distinct positions with {} empties; wrote {}",
        stats.games,
        stats.held_out,
        args.seed,
        stats.test_games,
        stats.candidates,
        args.empties,
        lines.len()
    );
    if lines.len() < opts.count {
        eprintln!(
            "evalset: note: {} positions asked, only {} exist",
            opts.count,
            lines.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn run_train(args: TrainArgs) -> Result<ExitCode> {
    let out = match (args.out, args.quick) {
        (Some(out), _) => out,
        (None, false) => PathBuf::from("weights/flank-eval.bin"),
        (None, true) => anyhow::bail!(
            "--quick needs --out FILE (it must not overwrite the built-in weights/flank-eval.bin)"
        ),
    };
    // flank's own arguments are checked before the data directory is looked up, so that a
    // bad output path is reported as such on a machine without the data too.
    flank::train::check_writable(&out, "output file")?;
    let data = flank::data::data_root().map_err(anyhow::Error::msg)?;
    let mut opts = if args.quick {
        flank::train::TrainOptions::quick(data, out)
    } else {
        flank::train::TrainOptions::full(data, out)
    };
    opts.seed = args.seed;
    if let Some(g) = args.games {
        opts.selfplay_games = g;
    }
    opts.samples_cache = args.samples;
    if let Some(i) = args.iterations {
        opts.iterations = i as usize;
    }
    if let Some(l) = args.lambda {
        if !(l.is_finite() && l > 0.0 && l <= 1e6) {
            anyhow::bail!("--lambda must be a positive number up to 1e6 (see flank train --help)");
        }
        opts.lambda = l;
    }
    if let Some(e) = args.solve_empties {
        opts.solve_empties = e;
    }
    if let Some(e) = args.wthor_solve_empties {
        opts.wthor_solve_empties = e;
    }
    if let Some(d) = args.deviation_plies {
        opts.deviation_plies = d;
    }
    if let Some(n) = args.leaf_samples {
        opts.leaf_samples = n as usize;
    }
    if let Some(e) = args.leaf_eval {
        opts.leaf_eval = e;
    }
    if args.wthor_games.is_some() {
        opts.wthor_games = args.wthor_games;
    }
    if let Some(p) = args.net_phases {
        opts.net_phases = p.0;
    }
    if let Some(e) = args.net_empties {
        opts.net_empties = e.0.into_iter().map(|e| e as u32).collect();
    }
    if let Some(h) = args.net_hidden {
        opts.net_hidden = h.parse().unwrap_or(32);
    }
    if let Some(n) = args.net_leaf_samples {
        opts.net_leaf_samples = n as usize;
    }
    opts.base = args.base;
    if let Some(e) = args.net_epochs {
        opts.net_epochs = e as usize;
    }
    if let Some(r) = args.net_rate {
        opts.net_rate = r;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0) as usize)
        .build()
        .context("cannot start worker threads")?;
    pool.install(|| {
        // The product is the weights file: a reader that stops reading the report (`flank
        // train | head`) must not stop the training, so report write errors are ignored.
        let mut out = ReportSink(io::stdout(), true);
        flank::train::run_train(&opts, &mut out).map(|_| ())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// A writer that passes bytes on until the first write error and then drops the rest
/// silently (the `flank train` report).
struct ReportSink<W: Write>(W, bool);

impl<W: Write> Write for ReportSink<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.1 && self.0.write_all(buf).and_then(|_| self.0.flush()).is_err() {
            self.1 = false;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn run_gtp(args: GtpArgs) -> Result<ExitCode> {
    let mut options = GtpOptions {
        depth: args.depth,
        verbose: args.verbose,
        ..GtpOptions::default()
    };
    if let Some(ms) = args.move_time {
        options.move_time_ms = ms;
    }
    if let Some(level) = args.level {
        options.level = level;
    }
    if let Some(seed) = args.seed {
        options.seed = seed;
    }
    let mut engine = Engine::try_new(args.engine.config(all_cores()))?;
    args.mpc.apply(&mut engine);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    // The session reads its input on a thread of its own (so that a line can stop a search),
    // hence a `Send` reader rather than the locked stdin.
    let input = BufReader::new(io::stdin());
    flank::protocol::gtp::run(input, &mut out, engine, options).context("GTP I/O failed")?;
    Ok(ExitCode::SUCCESS)
}

fn run_bench(args: BenchArgs) -> Result<ExitCode> {
    let r = flank::cli::bench::run_bench(args.hash as usize, args.depth);
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "bench: {} positions, {} nodes, {} ms, {} nodes/s",
        r.positions, r.nodes, r.time_ms, r.nps
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn run_solve_cmd(args: SolveArgs) -> Result<ExitCode> {
    let kind = match (args.depth, args.wld) {
        _ if args.time.is_some() => SolveKind::Time(args.time.unwrap_or(1000)),
        (Some(d), _) => SolveKind::Depth(d),
        (None, true) => SolveKind::Wld,
        (None, false) => SolveKind::Exact,
    };
    let opts = SolveOptions {
        kind,
        json: args.json,
        first_id: args.first_id as usize,
        only: args.positions.clone().map_or_else(Vec::new, |r| r.0),
        fresh: args.fresh,
    };
    let mut engine = Engine::try_new(args.config())?;
    args.mpc.apply(&mut engine);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let summary = match args.file.as_deref() {
        None => solve_problems(
            &flank::cli::solve::builtin_problems(),
            &mut out,
            &mut engine,
            &opts,
        )?,
        Some("-") => run_solve(io::stdin().lock(), &mut out, &mut engine, &opts)?,
        Some(path) => {
            let f =
                File::open(PathBuf::from(path)).with_context(|| format!("cannot open {path}"))?;
            let problems = read_problems(BufReader::new(f)).with_context(|| path.to_string())?;
            solve_problems(&problems, &mut out, &mut engine, &opts)?
        }
    };
    out.flush()?;
    Ok(if summary.wrong > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `flank analyze`: every position of the file (read and checked whole first) or of stdin
/// (position by position) analysed and written as it is done.
fn run_analyze_cmd(args: AnalyzeArgs) -> Result<ExitCode> {
    let mut engine = Engine::try_new(args.engine.config(1))?;
    args.mpc.apply(&mut engine);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut count = 0;
    let mut one = |p: &flank::notation::Problem, out: &mut io::StdoutLock| -> Result<()> {
        count += 1;
        analyze_position(&args, &mut engine, count, p, out)
    };
    if args.file == "-" {
        for p in flank::cli::solve::problem_lines(io::stdin().lock()) {
            one(&p?, &mut out)?;
        }
    } else {
        let path = &args.file;
        let f = File::open(PathBuf::from(path)).with_context(|| format!("cannot open {path}"))?;
        let problems = read_problems(BufReader::new(f)).with_context(|| path.to_string())?;
        for p in &problems {
            one(p, &mut out)?;
        }
    }
    if count == 0 {
        anyhow::bail!("no position in {}", args.file);
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Analyses one position and writes it: text (a header line, then one `analyze::move_line`
/// per move, indented; `pass` or `game over` instead when no move is legal) or one JSON
/// object.
fn analyze_position<W: Write>(
    args: &AnalyzeArgs,
    engine: &mut Engine,
    id: usize,
    p: &flank::notation::Problem,
    out: &mut W,
) -> Result<()> {
    use flank::engine::analyze::{analyze, info_lines, move_line};
    use flank::engine::{SearchLimits, SolveMode};
    let board = p.position.board;
    let start = Instant::now();
    let limits = SearchLimits {
        depth: args.depth,
        mode: if args.exact {
            SolveMode::Exact
        } else {
            SolveMode::Auto
        },
        time_ms: args.time.map(|ms| ms / 2),
        deadline: args
            .time
            .and_then(|ms| start.checked_add(std::time::Duration::from_millis(ms))),
    };
    let verbose = args.verbose;
    let a = analyze(engine, &board, args.moves, &limits, &mut |a| {
        if verbose {
            for line in info_lines(a) {
                eprintln!("{line}");
            }
        }
    });
    let state = if board.is_game_over() {
        Some(format!("game over {:+}", board.final_score()))
    } else if !board.has_moves() {
        Some("pass".to_string())
    } else {
        None
    };
    let cells = p.position.cells();
    let side = if p.position.side == flank::Color::Black {
        "X"
    } else {
        "O"
    };
    if args.json {
        let moves: Vec<serde_json::Value> = a
            .moves
            .iter()
            .map(|m| {
                let pv: Vec<String> = m.pv.iter().map(|x| x.to_string()).collect();
                serde_json::json!({
                    "move": m.mv.to_string(),
                    "score": m.score,
                    "exact": m.exact,
                    "depth": m.depth,
                    "pv": pv.join(" "),
                })
            })
            .collect();
        let v = serde_json::json!({
            "id": id,
            "board": cells,
            "side": side,
            "empties": board.empties(),
            "state": state.as_deref().unwrap_or("play"),
            "depth": a.depth,
            "exact": a.exact,
            "nodes": a.nodes,
            "time_ms": a.time_ms,
            "moves": moves,
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(
            out,
            "{id} {cells} {side}: {} empties, {} nodes, {} ms",
            board.empties(),
            a.nodes,
            a.time_ms
        )?;
        match &state {
            Some(s) => writeln!(out, "  {s}")?,
            None => {
                for m in &a.moves {
                    writeln!(out, "  {}", move_line(m))?;
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}

fn run_match_cmd(args: MatchArgs) -> Result<ExitCode> {
    use anyhow::anyhow;
    use flank::matchplay::player::Player;
    use flank::matchplay::process::{GtpProcess, split_command};
    use flank::matchplay::referee::RefereeConfig;
    use flank::matchplay::runner::{self, MatchSpec, Side};

    // Ctrl-C / SIGTERM: end every engine's process group, then exit 130 (128 + SIGINT).
    ctrlc::set_handler(|| {
        let n = flank::matchplay::process::kill_all_engines();
        eprintln!("flank: match interrupted; killed {n} engine process group(s)");
        std::process::exit(130);
    })
    .context("cannot install the SIGINT/SIGTERM handler")?;
    let argv = [
        split_command(&args.engine_a).map_err(|e| anyhow!("--engine-a: {e}"))?,
        split_command(&args.engine_b).map_err(|e| anyhow!("--engine-b: {e}"))?,
    ];
    let handicap_side = match args.handicap_side {
        HandicapSide::A => Side::A,
        HandicapSide::B => Side::B,
    };
    // With a handicap, openings are played from the handicap position; an opening must be
    // legal whichever colour holds the corners, others are skipped with a note.
    let starts = match args.handicap {
        Some(n) => vec![
            flank::othello::game::handicap_position(flank::Color::White, n)?,
            flank::othello::game::handicap_position(flank::Color::Black, n)?,
        ],
        None => vec![flank::Position::start()],
    };
    let start = starts[0];
    let openings: Vec<runner::Opening> = match args.openings.as_deref() {
        None if args.handicap.is_some() => {
            vec![runner::parse_opening(start, "").map_err(|e| anyhow!(e))?]
        }
        None => runner::BUILTIN_OPENINGS
            .iter()
            .map(|t| runner::parse_opening(start, t))
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow!(e))?,
        Some(name) => {
            let path = match name {
                "xot" | "xot-large" => {
                    let file = if name == "xot" {
                        "openings/xot_small.txt"
                    } else {
                        "openings/xot_large.txt"
                    };
                    flank::data::data_file(file).map_err(|e| anyhow!("--openings {name}: {e}"))?
                }
                _ => PathBuf::from(name),
            };
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read openings {}", path.display()))?;
            match args.handicap {
                Some(n) => {
                    let (kept, skipped) = runner::parse_openings_for_handicap(&starts, &text)
                        .map_err(|e| {
                            anyhow!("openings {} (with --handicap {n}): {e}", path.display())
                        })?;
                    if skipped > 0 {
                        eprintln!(
                            "flank: skipped {skipped} of {} openings in {} that cannot be played with --handicap {n}",
                            skipped + kept.len(),
                            path.display()
                        );
                    }
                    kept
                }
                None => runner::parse_openings(start, &text)
                    .map_err(|e| anyhow!("openings {}: {e}", path.display()))?,
            }
        }
    };
    let sprt = args
        .sprt
        .as_deref()
        .map(flank::matchplay::stats::Sprt::parse)
        .transpose()
        .map_err(|e| anyhow!(e))?;
    for (flag, name) in [("--name-a", &args.name_a), ("--name-b", &args.name_b)] {
        if let Some(n) = name
            && n.chars().any(char::is_control)
        {
            return Err(anyhow!(
                "{flag}: control characters (newline, tab, escape) are not allowed in names"
            ));
        }
        if let Some(n) = name
            && n.trim().is_empty()
        {
            return Err(anyhow!(
                "{flag}: empty name (leave the option out for the engine's own name)"
            ));
        }
    }
    if let (Some(a), Some(b)) = (&args.name_a, &args.name_b)
        && a == b
    {
        return Err(anyhow!(
            "--name-a and --name-b are both '{}': the players' names must differ",
            flank::notation::clip(a)
        ));
    }
    let stake = args
        .stake
        .as_deref()
        .map(flank::matchplay::stakes::parse_stake)
        .transpose()
        .map_err(|e| anyhow!("--stake: {e}"))?;
    let spec = MatchSpec {
        games: args.games,
        concurrency: args
            .concurrency
            .map(|c| c as usize)
            .unwrap_or_else(runner::default_concurrency),
        time_ms: [
            args.time_a.unwrap_or(args.time),
            args.time_b.unwrap_or(args.time),
        ],
        openings,
        referee: RefereeConfig {
            draw_offers: args.draw_offers,
            offer_max_empties: args.draw_offer_empties,
            command_timeout: runner::COMMAND_TIMEOUT,
            ..RefereeConfig::default()
        },
        handicap: args.handicap.map(|n| (handicap_side, n)),
        sprt,
        target_points: args.target_points,
        stake,
        names: [
            args.name_a.unwrap_or_default(),
            args.name_b.unwrap_or_default(),
        ],
        ggf: args.ggf,
        // indicatif draws only when stderr is a terminal.
        progress: true,
    };
    // One-line notes on schedules that are not balanced.
    if let Some(n) = args.games {
        if n % 2 == 1 {
            eprintln!(
                "flank: note: --games {n} is odd, so colours are unbalanced (A plays black once more)"
            );
        }
        if n > 2 * spec.openings.len() as u64 {
            eprintln!(
                "flank: note: --games {n} exceeds 2 x {} openings, so openings repeat",
                spec.openings.len()
            );
        }
    }
    let decimal_time = args.decimal_time;
    let factory = |side: Side| -> Result<Box<dyn Player>, flank::matchplay::player::Fault> {
        let k = match side {
            Side::A => 0,
            Side::B => 1,
        };
        let mut p = GtpProcess::start(argv[k].clone())?;
        p.set_decimal_time(decimal_time);
        Ok(Box::new(p))
    };
    let json = args.json;
    // A failed write of a game line (stdout closed: `flank match ... | head -1`) stops the
    // match; the error is kept so that a broken pipe ends quietly, as in `flank solve`.
    let mut write_error: Option<io::Error> = None;
    let mut on_game = |spec: &MatchSpec, r: &runner::GameReport| -> Result<(), String> {
        if json {
            return Ok(());
        }
        let mut out = io::stdout().lock();
        writeln!(out, "{}", runner::game_line(spec, r))
            .and_then(|_| out.flush())
            .map_err(|e| {
                let text = format!("cannot write to stdout: {e}");
                write_error = Some(e);
                text
            })
    };
    let result = runner::run_match(&spec, &factory, &mut on_game);
    if let Some(e) = write_error {
        return Err(e.into());
    }
    let summary = result.map_err(|e| anyhow!(e))?;
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &summary).map_err(io::Error::from)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", runner::summary_text(&summary))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
