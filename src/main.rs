//! The `flank` binary: the clap command line (`gtp`, `nboard`, `solve`, `analyze`, `perft`, `bench`, `match`, the
//! training commands, and the global `--eval`), each subcommand handed to its module of [`flank::cli`].
//!
//! Plain `flank` runs the GTP loop on stdin/stdout. Errors end the process with a one-line
//! reason on stderr and exit status 2; `solve` exits 1 when any result disagrees with the
//! scores its input lists.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use flank::cli::args::*;
use flank::cli::values::{
    IdRanges, parse_id_ranges, parse_level, parse_move_time, parse_seconds, parse_whole_number,
};
use flank::cli::{self, all_cores};
use flank::engine::EngineConfig;
use flank::matchplay::runner::Side;
use flank::othello::perft::PassRule;
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

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak GTP on stdin/stdout (the default when no subcommand is given).
    Gtp(GtpArgs),
    /// Speak the NBoard protocol (version 2) on stdin/stdout, for the NBoard GUI: `set depth`
    /// picks the level, `go` and `hint` search, `ping` stops a search. See docs/nboard.md.
    Nboard(NboardArgs),
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
    /// gives the best-move agreement and the mean score error; see docs/eval.md). With
    /// `--selfplay FILES`: the positions of the self-play test games instead, each with its
    /// game's exact result (for `flank eval-error`).
    Evalset(EvalsetArgs),
    /// Print an evaluation's error on a labelled position set (`flank evalset`'s output or any
    /// OBF file with scores) by empties bucket: mean absolute error, RMSE and bias of the
    /// static evaluation (or of a `--depth` search) against each position's best listed score.
    EvalError(EvalErrorArgs),
    /// Print the odd-even swing of the evaluation: the mean of v(P) + v(Q) over the positions
    /// P of FILE and their best child Q, both searched to the same depth, by empties bucket and
    /// depth, and its change between neighbouring depths (a consistent evaluation gives about
    /// 0 at every depth); and the depth stability, the mean |v(P) at d + 1 − v(P) at d| over
    /// the positions P. See docs/eval.md, "The odd-even swing" and "Depth stability".
    EvalSwing(EvalSwingArgs),
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
    /// Generate training games: flank plays itself from XOT (or random) openings, with
    /// softmax-noisy moves early, a fixed-depth search per move and an exact solve to the end;
    /// one line per game (moves, each position's search value, the game's exact score),
    /// appended to OUT as games finish. Deterministic per seed and game index; a second run
    /// with the same settings skips the games OUT holds. See docs/eval.md, "Self-play games".
    Selfplay(SelfplayArgs),
    /// Refit the linear weights of some phases of a weights file on WTHOR and self-play
    /// positions, with labels that mix the game's result and a search value; everything else
    /// of the file is kept. See docs/eval.md, "Refitting the midgame".
    Refit(RefitArgs),
    /// Opening books: build one from WTHOR and game files, learn games into one, show a
    /// position's book moves, import and export Edax's .dat books. See docs/book.md.
    Book(BookArgs),
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
    /// Seed of the random generator behind easy's randomness and the book's (default 1): the
    /// same seed and the same commands give the same moves.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_whole_number)]
    seed: Option<u64>,
    #[command(flatten)]
    play: PlayArg,
}

/// The opening book and pondering options of `gtp` and `nboard`.
#[derive(Args, Debug, Default, Clone)]
struct PlayArg {
    /// Opening book: a book file (flank's text or Edax's .dat), `default` (the built-in book,
    /// the default) or `off`. Level easy never uses it.
    #[arg(long, value_name = "FILE|default|off")]
    book: Option<String>,
    /// Play any book move within this many discs of the best (0-64, default 0: the best):
    /// varied openings that stay sound.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0, value_parser = whole::<u32>(0..=64))]
    book_randomness: u32,
    /// Think on the opponent's time: after each move, search the position after the
    /// predicted reply until the next command arrives (the work stays in the table).
    #[arg(long)]
    ponder: bool,
}

#[derive(Args, Debug)]
struct BookArgs {
    #[command(subcommand)]
    action: BookAction,
}

#[derive(Subcommand, Debug)]
enum BookAction {
    /// Build a book: the positions of the first PLIES plies that at least MIN-GAMES games
    /// reach (WTHOR from $FLANK_DATA/games/wthor, and --games files), each one's best move
    /// out of the book searched to DEPTH, values propagated by negamax.
    Build(BookBuildArgs),
    /// Add games (one a line: a transcript such as f5d6c3, or a GGF record) to a book file:
    /// every position of their first PLIES plies enters, new leaves are searched, values
    /// propagated again; the file is rewritten.
    Learn(BookLearnArgs),
    /// Show a position's book entry and book moves (POSITION: a board string or a transcript
    /// from the start; none = the start position).
    Show(BookShowArgs),
    /// Convert an Edax book (.dat) into a flank book file, every Edax field kept.
    Import(BookImportArgs),
    /// Write a book (the built-in one, or --book) in Edax's .dat format.
    Export(BookExportArgs),
}

#[derive(Args, Debug)]
struct BookBuildArgs {
    /// The book file written.
    #[arg(long)]
    out: PathBuf,
    /// Positions up to this many plies from the start are candidates (1-40).
    #[arg(long, allow_negative_numbers = true, default_value_t = 14, value_parser = whole::<u32>(1..=40))]
    plies: u32,
    /// Games that must reach a position for it to enter (1-1000000).
    #[arg(long, allow_negative_numbers = true, default_value_t = 20, value_parser = whole::<u32>(1..=1_000_000))]
    min_games: u32,
    /// Search depth of each position's best move out of the book, plies (1-30).
    #[arg(long, allow_negative_numbers = true, default_value_t = 12, value_parser = whole::<u32>(1..=30))]
    depth: u32,
    /// Game files to add (transcripts or GGF, one game a line); repeatable.
    #[arg(long)]
    games: Vec<PathBuf>,
    /// Leave the WTHOR games out (then --games is needed).
    #[arg(long)]
    no_wthor: bool,
    /// Search threads (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    threads: Option<u64>,
    /// Transposition table per thread, MiB.
    #[arg(long, allow_negative_numbers = true, default_value_t = 16, value_parser = whole::<u64>(1..=65536))]
    hash: u64,
}

#[derive(Args, Debug)]
struct BookLearnArgs {
    /// The book file read and rewritten.
    #[arg(long)]
    book: PathBuf,
    /// Game files (transcripts or GGF, one game a line).
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// Positions up to this many plies from the start enter (1-60).
    #[arg(long, allow_negative_numbers = true, default_value_t = 20, value_parser = whole::<u32>(1..=60))]
    plies: u32,
    /// Search depth of new leaves, plies (1-30; default: the book's).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1..=30))]
    depth: Option<u32>,
    /// Search threads (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=256))]
    threads: Option<u64>,
    /// Transposition table per thread, MiB.
    #[arg(long, allow_negative_numbers = true, default_value_t = 16, value_parser = whole::<u64>(1..=65536))]
    hash: u64,
}

#[derive(Args, Debug)]
struct BookImportArgs {
    /// The Edax book read.
    file: PathBuf,
    /// The flank book file written.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args, Debug)]
struct BookExportArgs {
    /// The Edax book file written.
    file: PathBuf,
    /// The book exported: a file (flank's text or Edax's .dat), or `default` for the
    /// built-in one.
    #[arg(long)]
    book: Option<String>,
}

#[derive(Args, Debug)]
struct BookShowArgs {
    /// The book: a file, or `default` for the built-in one.
    #[arg(long)]
    book: Option<String>,
    /// The position: a board string or a transcript from the start (none: the start).
    #[arg(default_value = "")]
    position: String,
}

#[derive(Args, Debug, Default)]
struct NboardArgs {
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    mpc: MpcArg,
    /// Time per `go` in ms when the game has no clock (no TI in the GGF); without it such a
    /// search is bounded by the depth the GUI sets (at most 3600000, an hour).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_move_time)]
    move_time: Option<u64>,
    /// Print search progress on stderr.
    #[arg(long, short)]
    verbose: bool,
    /// Seed of the book's random choice with --book-randomness (default 1): the same seed and
    /// the same commands give the same moves.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_whole_number)]
    seed: Option<u64>,
    #[command(flatten)]
    play: PlayArg,
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
    /// Transposition table size in MiB (default: sized to the positions: 64 MiB up to 20
    /// empties, doubling with each empty to 1024 at 24 and above, at most a quarter of the
    /// memory; 64 MiB for --depth and --time).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1..=65536))]
    hash: Option<u64>,
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
            hash_mb: self.hash.unwrap_or(64) as usize,
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
struct MatchArgs {
    /// Player A's engine command line, split like a shell would (e.g. "flank gtp --depth 4").
    #[arg(long)]
    engine_a: String,
    /// Player B's engine command line.
    #[arg(long)]
    engine_b: String,
    /// The protocol engine A speaks: gtp, or nboard (NBoard 2: `set game` with the clock in
    /// the GGF, `go`, `move`; as `flank nboard`, Edax and NTest speak it).
    #[arg(long, default_value = "gtp", value_parser = clap::builder::PossibleValuesParser::new(["gtp", "nboard"]))]
    protocol_a: String,
    /// The protocol engine B speaks: gtp or nboard.
    #[arg(long, default_value = "gtp", value_parser = clap::builder::PossibleValuesParser::new(["gtp", "nboard"]))]
    protocol_b: String,
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
                // `flank book` without its subcommand.
                eprintln!(
                    "flank: a subcommand is missing (see {} --help)",
                    help_target()
                );
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

/// `path` for reading, buffered (`-`: stdin).
///
/// # Errors
/// A file that cannot be opened, with its path.
fn open_input(path: &std::path::Path) -> Result<Box<dyn io::BufRead>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(io::stdin().lock()));
    }
    let f = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Box::new(io::BufReader::new(f)))
}

fn run(cli: Cli) -> Result<ExitCode> {
    let command = cli.command.unwrap_or(Command::Gtp(cli.gtp));
    // The evaluator is process-wide and chosen before any search. `train` plays its self-play
    // games with the classic evaluation unless told otherwise, so that retraining does not
    // depend on earlier weights.
    let spec = match &command {
        Command::Gtp(a) => a.engine.eval.eval.clone(),
        Command::Nboard(a) => a.engine.eval.eval.clone(),
        Command::Solve(a) => a.eval.eval.clone(),
        Command::Bench(a) => a.eval.eval.clone(),
        Command::Analyze(a) => a.engine.eval.eval.clone(),
        Command::Train(a) => Some(a.eval.clone().unwrap_or_else(|| "classic".into())),
        Command::MpcCalibrate(a) => a.eval.clone(),
        Command::Selfplay(a) => a.eval.eval.clone(),
        Command::EvalError(a) => a.eval.eval.clone(),
        Command::EvalSwing(a) => a.eval.eval.clone(),
        Command::Refit(a) => a.eval.eval.clone(),
        Command::Perft(_) | Command::Match(_) | Command::Ensemble(_) | Command::Book(_) => None,
        Command::Evalset(a) => a.eval.eval.clone(),
    };
    // The searching commands decode the weights now, not inside their first search.
    let decode_now = matches!(
        command,
        Command::Gtp(_)
            | Command::Nboard(_)
            | Command::Solve(_)
            | Command::Bench(_)
            | Command::Analyze(_)
    );
    cli::select_eval(spec.as_deref(), decode_now)?;
    match command {
        Command::Gtp(args) => run_gtp(args)?,
        Command::Nboard(args) => {
            // `learn` rewrites a flank book file; an Edax book learns in memory only.
            let book_file = match args.play.book.as_deref() {
                None | Some("default") | Some("off") => None,
                Some(path) if cli::book::is_edax_book(std::path::Path::new(path)) => None,
                Some(path) => Some(PathBuf::from(path)),
            };
            let options = flank::protocol::nboard::NBoardOptions {
                move_time_ms: args.move_time,
                verbose: args.verbose,
                book: cli::book::load_book(args.play.book.as_deref())?,
                book_randomness: args.play.book_randomness,
                book_file,
                ponder: args.play.ponder,
                seed: args.seed.unwrap_or(flank::engine::level::DEFAULT_SEED),
            };
            let engine = args.mpc.engine(args.engine.config(all_cores()))?;
            cli::nboard::run_nboard(engine, options)?
        }
        Command::Solve(args) => return run_solve(args),
        Command::Analyze(args) => run_analyze(args)?,
        Command::Perft(args) => {
            cli::perft::run_perft(&mut io::stdout().lock(), args.depth, args.pass_rule)?
        }
        Command::Bench(args) => {
            cli::bench::write_bench(&mut io::stdout().lock(), args.hash as usize, args.depth)?
        }
        Command::Match(args) => run_match(args)?,
        Command::Book(args) => run_book(args)?,
        Command::Train(args) => run_train(args)?,
        Command::Evalset(args) => cli::evalset::run_evalset(&cli::evalset::EvalsetSettings {
            empties: args.empties,
            label_depth: args.depth,
            count: args.count as usize,
            seed: args.seed,
            out: args.out,
            threads: args.threads.map(|t| t as usize),
            selfplay: args.selfplay,
            test_every: args.selfplay_test_every,
        })?,
        Command::Ensemble(args) => cli::ensemble::run_ensemble(&cli::ensemble::EnsembleSettings {
            base: args.base,
            other: args.other,
            net_empties: args.net_empties.0,
            weight: args.weight,
            out: args.out,
        })?,
        Command::MpcCalibrate(args) => run_calibrate(args)?,
        Command::EvalError(args) => {
            let input = open_input(&args.file)?;
            cli::eval_error::run_eval_error(
                input,
                &mut io::stdout().lock(),
                args.bucket,
                args.depth,
                match args.children.as_deref() {
                    None => cli::eval_error::Measured::Positions,
                    Some("best") => cli::eval_error::Measured::BestChildren,
                    Some("other") => cli::eval_error::Measured::OtherChildren,
                    Some(_) => cli::eval_error::Measured::Children,
                },
                16,
            )?
        }
        Command::EvalSwing(args) => {
            let input = open_input(&args.file)?;
            let settings = cli::eval_swing::SwingSettings {
                depths: args.depths.0.iter().map(|&d| d as u32).collect(),
                width: args.bucket,
                range: args.empties,
                threads: args.threads.map_or_else(all_cores, |t| t as usize),
                mpc: args.mpc.mpc.map(|m| m.0),
                hash_mb: 16,
            };
            cli::eval_swing::run_eval_swing(input, &mut io::stdout().lock(), &settings)?
        }
        Command::Refit(args) => {
            let data = flank::data::data_root().map_err(anyhow::Error::msg);
            let wthor_dir = if args.no_wthor {
                None
            } else {
                Some(data?.join("games/wthor"))
            };
            let test_positions = wthor_dir
                .as_ref()
                .and_then(|w| w.parent().and_then(|g| g.parent()))
                .map(|d| d.join("endgame/hard-20.obf"));
            let opts = flank::train::refit::RefitOptions {
                base: args.base,
                phases: args.phases.0,
                wthor_dir,
                wthor_games: args.wthor_games,
                wthor_cache: args.wthor_cache,
                test_positions,
                selfplay: args.selfplay,
                selfplay_test_every: args.selfplay_test_every,
                selfplay_every: args.selfplay_every,
                search_depth: args.search_depth,
                search_every: args.search_every,
                parity_anchor: args.parity_anchor,
                children_every: args.children_every,
                children_depth: args.children_depth,
                children_weight: args.children_weight,
                mix: args.mix,
                lambda: args.lambda,
                iterations: args.iterations,
                seed: 1,
                out: args.out,
                refit_solver: args.refit_solver,
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(args.threads.map_or(0, |t| t as usize))
                .build()
                .context("cannot start the threads")?;
            pool.install(|| flank::train::refit::refit(&opts, &mut io::stdout().lock()))?;
        }
        Command::Selfplay(args) => cli::selfplay::run_selfplay(&cli::selfplay::SelfplayOptions {
            out: args.out,
            games: args.games,
            first: args.first,
            seed: args.seed,
            depth: args.depth,
            solve_empties: args.solve_empties,
            noise_plies: args.noise_plies,
            temperature: args.temperature,
            openings: args.openings,
            threads: args.threads.map_or_else(cli::all_cores, |t| t as usize),
            hash_mb: args.hash as usize,
            eval: args.eval.eval,
        })?,
    }
    Ok(ExitCode::SUCCESS)
}

fn run_book(args: BookArgs) -> Result<()> {
    use cli::book::{BookBuildSettings, book_for_show, run_book_build, run_book_show};
    use flank::book::build::BuildOptions;
    let settings = match args.action {
        BookAction::Show(a) => {
            let book = book_for_show(a.book.as_deref())?;
            return run_book_show(&book, &a.position, &mut io::stdout().lock());
        }
        BookAction::Import(a) => {
            return cli::book::run_book_import(&a.file, &a.out, &mut io::stdout().lock());
        }
        BookAction::Export(a) => {
            let Some(book) = cli::book::load_book(a.book.as_deref())? else {
                anyhow::bail!("no book to export ('off')");
            };
            return cli::book::run_book_export(&book, &a.file, &mut io::stdout().lock());
        }
        BookAction::Build(a) => BookBuildSettings {
            out: a.out,
            extend: false,
            wthor_dir: if a.no_wthor {
                None
            } else {
                Some(
                    flank::data::data_root()
                        .map_err(anyhow::Error::msg)?
                        .join("games/wthor"),
                )
            },
            games: a.games,
            options: BuildOptions {
                plies: a.plies,
                min_games: a.min_games,
                depth: a.depth,
                hash_mb: a.hash as usize,
            },
            threads: a.threads.map_or(0, |t| t as usize),
        },
        BookAction::Learn(a) => {
            let depth = match a.depth {
                Some(d) => d,
                None => cli::book::read_book_file(&a.book)?.depth,
            };
            BookBuildSettings {
                out: a.book,
                extend: true,
                wthor_dir: None,
                games: a.games,
                options: BuildOptions {
                    plies: a.plies,
                    min_games: 1,
                    depth,
                    hash_mb: a.hash as usize,
                },
                threads: a.threads.map_or(0, |t| t as usize),
            }
        }
    };
    run_book_build(&settings, &mut io::stdout().lock())
}

fn run_gtp(args: GtpArgs) -> Result<()> {
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
    options.book = cli::book::load_book(args.play.book.as_deref())?;
    options.book_randomness = args.play.book_randomness;
    options.ponder = args.play.ponder;
    let engine = args.mpc.engine(args.engine.config(all_cores()))?;
    cli::gtp::run_gtp(engine, options)
}

/// `flank solve`: exit status 1 when any result disagrees with the scores its input lists.
fn run_solve(args: SolveArgs) -> Result<ExitCode> {
    use flank::cli::solve::{SolveKind, SolveOptions, solve_source};
    let opts = SolveOptions {
        kind: SolveKind::from_flags(args.time, args.depth, args.wld),
        json: args.json,
        first_id: args.first_id as usize,
        only: args.positions.clone().map_or_else(Vec::new, |r| r.0),
        fresh: args.fresh,
        auto_table: args.hash.is_none(),
    };
    let mut engine = args.mpc.engine(args.config())?;
    let mut out = io::stdout().lock();
    flank::search::profile::start();
    let summary = solve_source(args.file.as_deref(), &mut out, &mut engine, &opts)?;
    eprint!("{}", flank::search::profile::report());
    Ok(if summary.wrong > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_analyze(args: AnalyzeArgs) -> Result<()> {
    let opts = cli::analyze::AnalyzeOptions {
        moves: args.moves,
        depth: args.depth,
        time_ms: args.time,
        exact: args.exact,
        json: args.json,
        verbose: args.verbose,
    };
    let mut engine = args.mpc.engine(args.engine.config(1))?;
    cli::analyze::run_analyze(&args.file, &mut io::stdout().lock(), &mut engine, &opts)
}

fn run_calibrate(args: CalibrateArgs) -> Result<()> {
    cli::mpc_calibrate::run_calibrate(&cli::mpc_calibrate::CalibrateSettings {
        positions: args.positions,
        max_depth: args.max_depth,
        min_empties: args.min_empties,
        max_empties: args.max_empties,
        seed: args.seed,
        hash_mb: args.hash as usize,
        threads: args.threads.map(|t| t as usize),
        eval: args.eval,
        out: args.out,
    })
}

fn run_train(args: TrainArgs) -> Result<()> {
    cli::train::run_train(cli::train::TrainSettings {
        quick: args.quick,
        out: args.out,
        seed: args.seed,
        games: args.games,
        wthor_games: args.wthor_games,
        solve_empties: args.solve_empties,
        wthor_solve_empties: args.wthor_solve_empties,
        deviation_plies: args.deviation_plies,
        leaf_samples: args.leaf_samples.map(|n| n as usize),
        leaf_eval: args.leaf_eval,
        iterations: args.iterations.map(|i| i as usize),
        lambda: args.lambda,
        samples: args.samples,
        jobs: args.jobs.map(|j| j as usize),
        net_phases: args.net_phases.map(|p| p.0),
        net_empties: args.net_empties.map(|e| e.0),
        net_hidden: args.net_hidden.map(|h| h.parse().unwrap_or(32)),
        net_leaf_samples: args.net_leaf_samples.map(|n| n as usize),
        base: args.base,
        net_epochs: args.net_epochs.map(|e| e as usize),
        net_rate: args.net_rate,
    })
}

fn run_match(args: MatchArgs) -> Result<()> {
    let protocol = |p: &str| match p {
        "nboard" => cli::match_cmd::EngineProtocol::NBoard,
        _ => cli::match_cmd::EngineProtocol::Gtp,
    };
    cli::match_cmd::run_match(cli::match_cmd::MatchSettings {
        engine_a: args.engine_a,
        engine_b: args.engine_b,
        protocol_a: protocol(&args.protocol_a),
        protocol_b: protocol(&args.protocol_b),
        name_a: args.name_a,
        name_b: args.name_b,
        openings: args.openings,
        games: args.games,
        concurrency: args.concurrency.map(|c| c as usize),
        time_ms: args.time,
        time_a_ms: args.time_a,
        time_b_ms: args.time_b,
        decimal_time: args.decimal_time,
        ggf: args.ggf,
        json: args.json,
        sprt: args.sprt,
        target_points: args.target_points,
        stake: args.stake,
        draw_offers: args.draw_offers,
        draw_offer_empties: args.draw_offer_empties,
        handicap: args.handicap,
        handicap_side: match args.handicap_side {
            HandicapSide::A => Side::A,
            HandicapSide::B => Side::B,
        },
    })
}
