//! The `flank` binary: the clap command line (`gtp`, `solve`, `perft`, `bench`).
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
use clap::{Args, Parser, Subcommand};

use flank::Board;
use flank::engine::{Engine, EngineConfig};
use flank::gtp::GtpOptions;
use flank::perft::{PassRule, perft};
use flank::solve::{SolveKind, SolveOptions, per_second, run_solve, solve_problems};

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

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak GTP on stdin/stdout (the default when no subcommand is given).
    Gtp(GtpArgs),
    /// Solve endgame positions: one OBF line or board string per line of FILE (`-` = stdin);
    /// without FILE, a built-in set of positions.
    Solve(SolveArgs),
    /// Count the leaves of the game tree from the start position.
    Perft(PerftArgs),
    /// Search a fixed set of positions on one thread and print the node total (the search
    /// fingerprint) and nodes/s.
    Bench(BenchArgs),
}

/// Settings shared by every command that searches.
#[derive(Args, Debug, Clone)]
struct EngineArgs {
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
}

impl Default for EngineArgs {
    fn default() -> Self {
        EngineArgs {
            hash: 64,
            threads: 1,
        }
    }
}

impl EngineArgs {
    fn config(&self) -> EngineConfig {
        EngineConfig {
            hash_mb: self.hash as usize,
            threads: self.threads as usize,
        }
    }
}

#[derive(Args, Debug, Default)]
struct GtpArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// Search every move to at most this depth in plies (the endgame is still solved exactly;
    /// the clock or the per-move time still bounds each search).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60))]
    depth: Option<u32>,
    /// Time per move in ms when no clock is set by `time_settings`.
    #[arg(long)]
    move_time: Option<u64>,
    /// Print search progress (depth, score, nodes, PV) on stderr.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Args, Debug)]
struct SolveArgs {
    /// Problem file (OBF lines or board strings); `-` reads stdin; none solves built-in positions.
    file: Option<String>,
    /// Search to this depth in plies instead of solving exactly.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60), conflicts_with = "wld")]
    depth: Option<u32>,
    /// Win/loss/draw solve instead of the exact score.
    #[arg(long)]
    wld: bool,
    /// One JSON object per position.
    #[arg(long)]
    json: bool,
    /// Number of the first position (for files such as fforum-20-39.obf, use 20).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=1_000_000_000))]
    first_id: u32,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// Search threads (default: all cores); 1 gives deterministic node counts.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: Option<u64>,
}

impl SolveArgs {
    fn config(&self) -> EngineConfig {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        EngineConfig {
            hash_mb: self.hash as usize,
            threads: self.threads.map_or(cores, |t| t as usize),
        }
    }
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// Midgame search depth in plies.
    #[arg(long, default_value_t = flank::bench::DEFAULT_BENCH_DEPTH, value_parser = clap::value_parser!(u32).range(1..=30))]
    depth: u32,
    /// Transposition table size in MiB (part of the fingerprint).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
}

#[derive(Args, Debug)]
struct PerftArgs {
    /// Depth in plies.
    #[arg(value_parser = clap::value_parser!(u32).range(0..=20))]
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
                "flank: {} (see flank --help)",
                reason.trim_start_matches("error: ")
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

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command.unwrap_or(Command::Gtp(cli.gtp)) {
        Command::Gtp(args) => run_gtp(args),
        Command::Solve(args) => run_solve_cmd(args),
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
    let engine = Engine::try_new(args.engine.config())?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    flank::gtp::run(io::stdin().lock(), &mut out, engine, options).context("GTP I/O failed")?;
    Ok(ExitCode::SUCCESS)
}

fn run_bench(args: BenchArgs) -> Result<ExitCode> {
    let r = flank::bench::run_bench(args.hash as usize, args.depth);
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
        (Some(d), _) => SolveKind::Depth(d),
        (None, true) => SolveKind::Wld,
        (None, false) => SolveKind::Exact,
    };
    let opts = SolveOptions {
        kind,
        json: args.json,
        first_id: args.first_id as usize,
    };
    let mut engine = Engine::try_new(args.config())?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let summary = match args.file.as_deref() {
        None => solve_problems(
            &flank::solve::builtin_problems(),
            &mut out,
            &mut engine,
            &opts,
        )?,
        Some("-") => run_solve(io::stdin().lock(), &mut out, &mut engine, &opts)?,
        Some(path) => {
            let f =
                File::open(PathBuf::from(path)).with_context(|| format!("cannot open {path}"))?;
            run_solve(BufReader::new(f), &mut out, &mut engine, &opts)?
        }
    };
    out.flush()?;
    Ok(if summary.wrong > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
