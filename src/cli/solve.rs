//! `flank solve`: solves a batch of positions (OBF lines or board strings) and checks them
//! against the scores the file lists.
//!
//! Each input line is parsed by [`crate::notation::parse_problem_line`]. For every position the
//! engine runs one search ([`SolveMode::Exact`] by default, [`SolveMode::Wld`] with `--wld`,
//! a depth-limited [`SolveMode::Midgame`] search with `--depth D`) and one result line is
//! written: as a text table row, or as one JSON object per line with `--json`. A total line
//! (text mode) or nothing (JSON mode) follows. Whether a result is `ok`:
//! - exact: the score equals the expected score and, when the line lists move scores, the best
//!   move is one of the moves with the best listed score;
//! - WLD: the sign of the score equals the sign of the expected score, and the best move's
//!   listed score has that sign too;
//! - depth-limited, only for lines that list move scores (otherwise `ok` is absent): the best
//!   move is one of the moves with the best listed score (the score is an estimate and is not
//!   compared).

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use crate::engine::table_size::auto_table_mib;
use crate::engine::{Engine, SearchLimits, SearchResult, SolveMode};
use crate::notation::{Problem, parse_problem_line};
use crate::othello::board::Score;
use crate::othello::square::{Color, Move};

/// What `flank solve` searches for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveKind {
    /// Exact final disc difference.
    Exact,
    /// Win / loss / draw only.
    Wld,
    /// A depth-limited midgame search to this many plies.
    Depth(u32),
    /// The engine's own search (as for `genmove`: midgame, then WLD or exact when the
    /// empties can be solved in time) within this many ms per position: no new iteration
    /// after half of it, stopped at all of it.
    Time(u64),
}

impl SolveKind {
    /// The kind `flank solve`'s flags ask for: `--time MS` before `--depth D`, before `--wld`;
    /// none of them: `Exact`.
    pub fn from_flags(time_ms: Option<u64>, depth: Option<u32>, wld: bool) -> SolveKind {
        match (time_ms, depth) {
            (Some(ms), _) => SolveKind::Time(ms),
            (None, Some(d)) => SolveKind::Depth(d),
            (None, None) if wld => SolveKind::Wld,
            (None, None) => SolveKind::Exact,
        }
    }

    /// True for the searches judged by their best move only (`Depth`, `Time`).
    pub fn is_estimate(self) -> bool {
        matches!(self, SolveKind::Depth(_) | SolveKind::Time(_))
    }
}

/// Options of a batch solve.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// What to search for.
    pub kind: SolveKind,
    /// One JSON object per position instead of the text table.
    pub json: bool,
    /// Number given to the first position (later ones count up from it).
    pub first_id: usize,
    /// Inclusive ranges of position numbers to solve (numbered from `first_id`); the others
    /// are read and checked but not solved. Empty: solve all.
    pub only: Vec<(usize, usize)>,
    /// Clear the transposition table before each position, so that each is solved as by a
    /// new engine (by default the table's entries carry over from one position to the next).
    pub fresh: bool,
    /// Size the transposition table to the positions (`--hash` not given): before an exact or
    /// WLD solve, grow it to [`auto_table_mib`] of the position's empties (for a file, of the
    /// largest selected position's, once, before the first).
    pub auto_table: bool,
}

impl SolveOptions {
    /// Whether position number `id` is to be solved.
    fn selects(&self, id: usize) -> bool {
        self.only.is_empty() || self.only.iter().any(|&(a, b)| (a..=b).contains(&id))
    }
}

/// Empties above which an exact or WLD solve gets a note on stderr that it may not finish in
/// reasonable time (FFO #59, 34 empties, takes minutes on 2 cores; each empty more costs
/// about 3x).
pub const LONG_SOLVE_EMPTIES: u32 = 34;

/// One position's result, as printed by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct SolveRecord {
    /// 1-based position number in the input (or from `first_id`).
    pub id: usize,
    /// The 64 cells, `X`/`O`/`-`, a1…h8.
    pub board: String,
    /// Side to move, `X` or `O`.
    pub side: String,
    /// Number of empty squares.
    pub empties: u32,
    /// Best move found: `pass` when the side to move must pass, `--` when the game is over
    /// (neither side can move).
    pub best: String,
    /// Score for the side to move in discs (exact: final disc difference with empties to the
    /// winner; WLD: −1, 0 or +1; depth: the midgame estimate).
    pub score: Score,
    /// True when `score` is proven: by an exact solve, or by a WLD solve as its sign (−1, 0
    /// or +1); false for a depth-limited search.
    pub exact: bool,
    /// True when `score` is a WLD result (−1, 0 or +1), not a disc difference: with `--wld`,
    /// or with `--time` when the engine chose a WLD solve (an exact one would not fit). Left
    /// out of the JSON when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wld: bool,
    /// Depth searched in plies (for a solve: the empties).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time in ms.
    pub time_ms: u64,
    /// Principal variation, space separated, first move first.
    pub pv: String,
    /// What `score` should be by the input line, if it gives a score, in `score`'s units:
    /// the best listed score (exact and depth), or its sign, −1, 0 or +1 (WLD).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Score>,
    /// The best listed score of the input line as a disc difference, if it gives one (in
    /// every mode; equal to `expected` except in WLD mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_score: Option<Score>,
    /// Whether the result agrees with the input line (see the module header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
}

/// Totals over a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SolveSummary {
    /// Positions solved.
    pub positions: usize,
    /// Positions whose line had an expected score and agreed with it.
    pub ok: usize,
    /// Positions whose line had an expected score and disagreed with it.
    pub wrong: usize,
    /// Nodes over the batch.
    pub nodes: u64,
    /// Wall time of the whole batch (parsing and output included), in ms.
    pub time_ms: u64,
    /// Sum over the judged positions of |score − expected score|, in discs (for a
    /// depth-limited search, the estimate's error), except those whose score is a WLD result
    /// ([`SolveRecord::wld`]).
    pub abs_error: u64,
    /// Judged positions counted in `abs_error`.
    pub error_judged: usize,
}

/// Solves one problem and builds its record.
pub fn solve_problem(
    engine: &mut Engine,
    problem: &Problem,
    id: usize,
    kind: SolveKind,
) -> SolveRecord {
    let limits = match kind {
        SolveKind::Exact => SearchLimits {
            mode: SolveMode::Exact,
            ..SearchLimits::default()
        },
        SolveKind::Wld => SearchLimits {
            mode: SolveMode::Wld,
            ..SearchLimits::default()
        },
        SolveKind::Depth(d) => SearchLimits {
            mode: SolveMode::Midgame,
            depth: Some(d),
            ..SearchLimits::default()
        },
        SolveKind::Time(_) => SearchLimits::default(),
    };
    let pos = problem.position;
    let start = Instant::now();
    let limits = match kind {
        SolveKind::Time(ms) => SearchLimits {
            mode: SolveMode::Auto,
            time_ms: Some(ms / 2),
            deadline: start.checked_add(std::time::Duration::from_millis(ms)),
            ..limits
        },
        _ => limits,
    };
    let r = engine.search(&pos.board, &limits, &mut |_| {});
    record_of(problem, id, kind, &r, start.elapsed().as_millis() as u64)
}

/// The record of problem number `id` searched as `kind` with result `r` in `time_ms` ms: the
/// result judged against the problem's line ([`judge`]).
fn record_of(
    problem: &Problem,
    id: usize,
    kind: SolveKind,
    r: &SearchResult,
    time_ms: u64,
) -> SolveRecord {
    let pos = &problem.position;
    // A depth-limited estimate can only be judged by its move, so only against a move list.
    let judged = !kind.is_estimate() || !problem.move_scores.is_empty();
    let ok = problem
        .expected
        .filter(|_| judged)
        .map(|e| judge(problem, kind, e, r.best, r.score));
    SolveRecord {
        id,
        board: pos.cells(),
        side: match pos.side {
            Color::Black => "X".into(),
            Color::White => "O".into(),
        },
        empties: pos.board.empties(),
        best: if pos.board.is_game_over() {
            "--".into()
        } else {
            r.best.to_string()
        },
        score: r.score,
        exact: r.exact || r.wld,
        wld: r.wld,
        depth: r.depth,
        nodes: r.nodes,
        time_ms,
        pv: r
            .pv
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        expected: match kind {
            SolveKind::Wld => problem.expected.map(Score::signum),
            SolveKind::Exact | SolveKind::Depth(_) | SolveKind::Time(_) => problem.expected,
        },
        expected_score: problem.expected,
        ok,
    }
}

/// Whether a result agrees with the problem's expected score `e` (rules in the module header).
/// A best move the line does not list cannot be judged, so only its score counts.
fn judge(problem: &Problem, kind: SolveKind, e: Score, best: Move, score: Score) -> bool {
    let listed = problem
        .move_scores
        .iter()
        .find(|(m, _)| *m == best)
        .map(|&(_, s)| s);
    match kind {
        SolveKind::Exact => score == e && listed.is_none_or(|s| s == e),
        SolveKind::Wld => {
            score.signum() == e.signum() && listed.is_none_or(|s| s.signum() == e.signum())
        }
        SolveKind::Depth(_) | SolveKind::Time(_) => listed.is_none_or(|s| s == e),
    }
}

/// Why a result was judged wrong, for the text table.
fn wrong_reason(problem: &Problem, kind: SolveKind, rec: &SolveRecord) -> String {
    let best: Vec<String> = problem.best_moves().iter().map(|m| m.to_string()).collect();
    let e = rec.expected_score.unwrap_or_default();
    // In WLD mode the result compared is the win/draw/loss, so it is named first.
    let expected = match kind {
        SolveKind::Wld => format!("{} ({e:+})", wld_word(e)),
        SolveKind::Exact | SolveKind::Depth(_) | SolveKind::Time(_) => format!("{e:+}"),
    };
    match kind {
        SolveKind::Depth(_) | SolveKind::Time(_) => {
            format!("WRONG (best moves {})", best.join(" "))
        }
        SolveKind::Exact | SolveKind::Wld if best.is_empty() => {
            format!("WRONG (expected {expected})")
        }
        _ => format!("WRONG (expected {expected}, best moves {})", best.join(" ")),
    }
}

/// `win`, `draw` or `loss` for a score's sign, as the WLD table prints it.
fn wld_word(score: Score) -> &'static str {
    match score.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

/// Reads problems from `input` line by line, solving and writing each as soon as it is read,
/// then a total line in text mode. A line that cannot be read or parsed stops the run with an
/// error naming its line number (results already written stay written); input without any
/// position is an error too.
pub fn run_solve<R: BufRead, W: Write>(
    input: R,
    out: &mut W,
    engine: &mut Engine,
    opts: &SolveOptions,
) -> Result<SolveSummary> {
    let mut batch = Batch::new(out, opts)?;
    for p in ProblemLines::new(input) {
        batch.solve(engine, &p?)?;
    }
    batch.finish()
}

/// Solves the positions of `file` and writes them to `out`, then flushes: `None` solves the
/// built-in positions ([`builtin_problems`]), `-` reads stdin line by line ([`run_solve`]),
/// any other path is read and checked whole first ([`read_problems`]).
///
/// # Errors
/// A file that cannot be opened (`cannot open FILE`), a line that cannot be read or parsed
/// (naming the file and the line), input without any position, a failed write.
pub fn solve_source<W: Write>(
    file: Option<&str>,
    out: &mut W,
    engine: &mut Engine,
    opts: &SolveOptions,
) -> Result<SolveSummary> {
    let summary = match file {
        None => solve_problems(&builtin_problems(), out, engine, opts)?,
        Some("-") => run_solve(io::stdin().lock(), out, engine, opts)?,
        Some(path) => {
            let f =
                File::open(PathBuf::from(path)).with_context(|| format!("cannot open {path}"))?;
            let problems = read_problems(BufReader::new(f)).with_context(|| path.to_string())?;
            if let Some(most) = problems
                .iter()
                .enumerate()
                .filter(|&(i, _)| opts.selects(opts.first_id.saturating_add(i)))
                .map(|(_, p)| p.position.board.empties())
                .max()
            {
                fit_table(engine, opts, most)?;
            }
            solve_problems(&problems, out, engine, opts)?
        }
    };
    out.flush()?;
    Ok(summary)
}

/// Reads and parses every problem of `input` before anything is solved (for files: a bad
/// line at the end is reported before hours of solving, not after). Errors name the line;
/// input longer than [`crate::data::MAX_TEXT_FILE_BYTES`] is refused (an endless input is
/// not read until memory runs out).
pub fn read_problems<R: BufRead>(input: R) -> Result<Vec<Problem>> {
    read_problems_within(input, crate::data::MAX_TEXT_FILE_BYTES)
}

/// [`read_problems`] with the byte limit `limit`.
fn read_problems_within<R: BufRead>(input: R, limit: u64) -> Result<Vec<Problem>> {
    let mut capped = input.take(limit + 1);
    let problems: Result<Vec<Problem>> = ProblemLines::new(&mut capped).collect();
    if capped.limit() == 0 {
        anyhow::bail!(
            "longer than {} MiB, the most flank reads of a problem file (give it on stdin, `-`, to solve it as it is read)",
            limit >> 20
        );
    }
    problems
}

/// The problems of `input` one by one, as read (blank and `%` lines skipped): for callers
/// that act on each position before the next line is read (stdin). An error names its
/// 1-based line; stop at the first.
pub fn problem_lines<R: BufRead>(input: R) -> impl Iterator<Item = Result<Problem>> {
    ProblemLines::new(input)
}

/// The longest problem line read, in bytes with its newline (an OBF line with every move
/// scored is under 1 KiB): a longer one is an error, so no input is read unbounded.
pub const MAX_PROBLEM_LINE_BYTES: usize = 64 * 1024;

/// The problems of a problem file, line by line (blank and `%` lines skipped); an error
/// names its 1-based line (its callers stop at the first). Lines are read at most
/// [`MAX_PROBLEM_LINE_BYTES`] at a time.
struct ProblemLines<R> {
    input: R,
    buf: Vec<u8>,
    line: usize,
}

impl<R: BufRead> ProblemLines<R> {
    fn new(input: R) -> Self {
        ProblemLines {
            input,
            buf: Vec::new(),
            line: 0,
        }
    }

    fn next_problem(&mut self) -> Result<Option<Problem>> {
        loop {
            self.buf.clear();
            let limit = MAX_PROBLEM_LINE_BYTES as u64 + 1;
            if (&mut self.input)
                .take(limit)
                .read_until(b'\n', &mut self.buf)
                .context("cannot read input")?
                == 0
            {
                return Ok(None);
            }
            self.line += 1;
            let n = self.line;
            if self.buf.len() > MAX_PROBLEM_LINE_BYTES {
                anyhow::bail!("line {n}: longer than {MAX_PROBLEM_LINE_BYTES} bytes");
            }
            let line = std::str::from_utf8(&self.buf)
                .map_err(|_| anyhow::anyhow!("line {n}: not UTF-8 text"))?;
            if let Some(p) = parse_problem_line(line).with_context(|| format!("line {n}"))? {
                return Ok(Some(p));
            }
        }
    }
}

impl<R: BufRead> Iterator for ProblemLines<R> {
    type Item = Result<Problem>;

    fn next(&mut self) -> Option<Result<Problem>> {
        self.next_problem().transpose()
    }
}

/// With [`SolveOptions::auto_table`], grows the engine's table to [`auto_table_mib`] of
/// `empties` before an exact or WLD solve.
fn fit_table(engine: &mut Engine, opts: &SolveOptions, empties: u32) -> Result<()> {
    if opts.auto_table && !opts.kind.is_estimate() {
        let mib = auto_table_mib(empties);
        engine
            .grow_table(mib)
            .with_context(|| format!("cannot allocate {mib} MiB for the table (use --hash)"))?;
    }
    Ok(())
}

/// Solves already parsed problems; see [`run_solve`].
pub fn solve_problems<W: Write>(
    problems: &[Problem],
    out: &mut W,
    engine: &mut Engine,
    opts: &SolveOptions,
) -> Result<SolveSummary> {
    let mut batch = Batch::new(out, opts)?;
    for p in problems {
        batch.solve(engine, p)?;
    }
    batch.finish()
}

/// A running batch: writes the header (before the first row), one row per problem, and the
/// total line.
struct Batch<'a, W: Write> {
    out: &'a mut W,
    opts: &'a SolveOptions,
    summary: SolveSummary,
    /// Positions read so far, selected or not (the next one's number is `first_id + seen`).
    seen: usize,
    start: Instant,
    /// The batch's spinner, started with the first position.
    spinner: Option<Spinner>,
    /// Whether to start one (only when stderr is a terminal; indicatif would hide it anyway).
    want_spinner: bool,
    /// Where the spinner draws.
    target: fn() -> ProgressDrawTarget,
}

impl<'a, W: Write> Batch<'a, W> {
    fn new(out: &'a mut W, opts: &'a SolveOptions) -> Result<Self> {
        Ok(Batch {
            out,
            opts,
            summary: SolveSummary::default(),
            seen: 0,
            start: Instant::now(),
            spinner: None,
            want_spinner: std::io::stderr().is_terminal(),
            target: ProgressDrawTarget::stderr,
        })
    }

    fn solve(&mut self, engine: &mut Engine, p: &Problem) -> Result<()> {
        let id = self.opts.first_id.saturating_add(self.seen);
        self.seen += 1;
        if !self.opts.selects(id) {
            return Ok(());
        }
        let empties = p.position.board.empties();
        if empties > LONG_SOLVE_EMPTIES
            && !self.opts.kind.is_estimate()
            && !p.position.board.is_game_over()
        {
            eprintln!(
                "flank: position {id} has {empties} empties: {} solve may not finish in \
                 reasonable time (--depth N searches N plies instead)",
                if matches!(self.opts.kind, SolveKind::Wld) {
                    "a WLD"
                } else {
                    "an exact"
                }
            );
        }
        let started = Instant::now();
        if self.spinner.is_none() && self.want_spinner {
            self.spinner = Spinner::start(engine.progress_handle(), self.target);
            self.want_spinner = self.spinner.is_some();
        }
        if let Some(sp) = &self.spinner {
            sp.send(SpinnerMsg::Start {
                id,
                empties: p.position.board.empties(),
            });
        }
        fit_table(engine, self.opts, empties)?;
        if self.opts.fresh {
            engine.new_game();
        }
        let rec = solve_problem(engine, p, id, self.opts.kind);
        if let Some(sp) = &self.spinner {
            sp.send(SpinnerMsg::Done);
        }
        self.record(p, &rec, started.elapsed())
    }

    /// Adds `rec`, the record of problem `p` searched in `took`, to the totals and writes its
    /// row (text) or object (JSON).
    fn record(&mut self, p: &Problem, rec: &SolveRecord, took: Duration) -> Result<()> {
        let nps = per_second(rec.nodes, took);
        let sum = &mut self.summary;
        sum.positions += 1;
        sum.nodes += rec.nodes;
        match rec.ok {
            Some(true) => sum.ok += 1,
            Some(false) => sum.wrong += 1,
            None => {}
        }
        // A WLD result (−1, 0, +1) is not a disc estimate: it has no disc error.
        if let (Some(_), Some(e), false) = (rec.ok, rec.expected_score, rec.wld) {
            sum.abs_error += (rec.score - e).unsigned_abs() as u64;
            sum.error_judged += 1;
        }
        if self.opts.json {
            writeln!(self.out, "{}", serde_json::to_string(rec)?)?;
        } else {
            if sum.positions == 1 {
                writeln!(
                    self.out,
                    "{:>4} {:>3} {:>4} {:>6} {:>14} {:>9} {:>11}  pv",
                    "#", "emp", "best", "score", "nodes", "time(ms)", "nodes/s"
                )?;
            }
            let score = if rec.wld || self.opts.kind == SolveKind::Wld {
                wld_word(rec.score).to_string()
            } else {
                format!("{:+}", rec.score)
            };
            let check = match rec.ok {
                Some(false) => format!("  {}", wrong_reason(p, self.opts.kind, rec)),
                _ => String::new(),
            };
            writeln!(
                self.out,
                "{:>4} {:>3} {:>4} {:>6} {:>14} {:>9} {:>11}  {}{}",
                rec.id, rec.empties, rec.best, score, rec.nodes, rec.time_ms, nps, rec.pv, check
            )?;
        }
        self.out.flush()?;
        Ok(())
    }

    fn finish(mut self) -> Result<SolveSummary> {
        if self.seen == 0 {
            anyhow::bail!("no positions in the input");
        }
        let (first, last) = (self.opts.first_id, self.opts.first_id + self.seen - 1);
        if self.summary.positions == 0 {
            anyhow::bail!(
                "none of the {} positions in the input (numbered {first}-{last}) is selected by --positions",
                self.seen
            );
        }
        if self.opts.only.iter().any(|&(a, b)| a < first || b > last) {
            eprintln!(
                "flank: note: --positions names numbers the input does not have (it has {first}-{last})"
            );
        }
        if let Some(sp) = self.spinner.take() {
            sp.join();
        }
        let elapsed = self.start.elapsed();
        self.summary.time_ms = elapsed.as_millis() as u64;
        let sum = &self.summary;
        if !self.opts.json {
            writeln!(
                self.out,
                "total: {} positions, {} ok, {} wrong, {} nodes, {} ms, {} nodes/s",
                sum.positions,
                sum.ok,
                sum.wrong,
                sum.nodes,
                sum.time_ms,
                per_second(sum.nodes, elapsed)
            )?;
            let judged = sum.ok + sum.wrong;
            if self.opts.kind.is_estimate() && judged > 0 {
                // A depth-limited search is measured, not checked: its agreement and error.
                write!(
                    self.out,
                    "agreement: best move {:.2} % ({} of {})",
                    100.0 * sum.ok as f64 / judged as f64,
                    sum.ok,
                    judged,
                )?;
                if sum.error_judged > 0 {
                    write!(
                        self.out,
                        ", mean |score - exact| {:.3} discs",
                        sum.abs_error as f64 / sum.error_judged as f64
                    )?;
                }
                let wld = judged - sum.error_judged;
                if wld > 0 {
                    let noun = if wld == 1 { "result" } else { "results" };
                    write!(self.out, " ({wld} WLD {noun}, not in the mean)")?;
                }
                writeln!(self.out)?;
            }
            self.out.flush()?;
        }
        Ok(self.summary)
    }
}

/// A message to the spinner thread of a batch.
enum SpinnerMsg {
    /// A position's search starts.
    Start { id: usize, empties: u32 },
    /// The running position's search is over.
    Done,
}

/// The progress spinner of a batch: ONE display thread for the whole batch (not one per
/// position), fed by a channel. While a position is searched it shows, on stderr, the
/// position number, its empties, the elapsed time and the live node count of the engine (see
/// [`Engine::progress_handle`]); it appears only after a position has run for a second, and it
/// never writes to stdout. Dropping the spinner stops and joins the thread.
struct Spinner {
    tx: Option<mpsc::Sender<SpinnerMsg>>,
    thread: Option<std::thread::JoinHandle<usize>>,
}

impl Spinner {
    /// Starts the display thread drawing to `target`; `None` when the thread cannot be
    /// started (the batch then runs without a spinner).
    fn start(counter: Arc<AtomicU64>, target: fn() -> ProgressDrawTarget) -> Option<Spinner> {
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("flank-spinner".into())
            .spawn(move || spinner_loop(&rx, &counter, target))
            .ok()?;
        Some(Spinner {
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    fn send(&self, msg: SpinnerMsg) {
        if let Some(tx) = &self.tx {
            // A display thread that has gone away only costs the display.
            let _ = tx.send(msg);
        }
    }

    /// Stops the thread and returns how many positions it was told about.
    fn join(mut self) -> usize {
        self.stop()
    }

    fn stop(&mut self) -> usize {
        drop(self.tx.take());
        self.thread.take().and_then(|t| t.join().ok()).unwrap_or(0)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The body of the spinner thread: runs until the channel closes and returns the number of
/// positions started. It draws with [`ProgressBar::tick`] itself, so indicatif starts no
/// ticker thread either.
fn spinner_loop(
    rx: &mpsc::Receiver<SpinnerMsg>,
    counter: &AtomicU64,
    target: fn() -> ProgressDrawTarget,
) -> usize {
    let mut started = 0usize;
    // The running position: its prefix, start time and bar (once shown).
    let mut current: Option<(String, Instant, Option<ProgressBar>)> = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(msg) => {
                if let Some((_, _, Some(pb))) = current.take() {
                    pb.finish_and_clear();
                }
                if let SpinnerMsg::Start { id, empties } = msg {
                    started += 1;
                    current = Some((format!("{id} ({empties} empties)"), Instant::now(), None));
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if let Some((prefix, t0, pb)) = &mut current {
            let elapsed = t0.elapsed();
            if pb.is_none() && elapsed >= Duration::from_secs(1) {
                let bar = ProgressBar::with_draw_target(None, target()).with_elapsed(elapsed);
                bar.set_style(
                    ProgressStyle::with_template("{spinner} #{prefix} {elapsed} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_prefix(prefix.clone());
                *pb = Some(bar);
            }
            if let Some(bar) = pb {
                let n = counter.load(Ordering::Relaxed);
                bar.set_message(format!("{n} nodes, {} nodes/s", per_second(n, elapsed)));
                bar.tick();
            }
        }
    }
    if let Some((_, _, Some(pb))) = current {
        pb.finish_and_clear();
    }
    started
}

/// Nodes per second over a measured duration (0 when no time has passed).
pub fn per_second(nodes: u64, elapsed: std::time::Duration) -> u64 {
    let us = elapsed.as_micros();
    (u128::from(nodes) * 1_000_000)
        .checked_div(us)
        .map_or(0, |v| v.min(u128::from(u64::MAX)) as u64)
}

/// The built-in positions `flank solve` solves when given no file: flank's own depth-6
/// self-play from common openings, stopped at 18–22 empties, written as transcripts so that
/// every position is legal by construction.
pub const BUILTIN_TRANSCRIPTS: [&str; 5] = [
    "f5f6e6f4e3c5c4d6g4d3c6f3g5h5c7h4h3g6g3d7d2e2e1h2c3f2d8c1c2b5b4a4a3a2a5a6b6a7e7b3h7c8",
    "f5d6c3d3c4f4c5b3d2c6b4a3b5a4a5a6b2c2a2a1b6e3c1b1d1a7e2e6f3f6f7e1c7d8d7e8b8e7b7g3f1",
    "f5d6c3d3c4b3c6f4e6c5b5d7c7e7e3b4f6a5b6c8a4a6a3a2e8f8d8g5g6g4f3f7h3c2h6d2d1f2e2g3",
    "f5d6c4d3c3b3c6f4e6c5b5d7c7e7e3b4f6a5b6c8a4a6a3a2e8f8d8g5g6g4f3f7h3c2h6d2d1f2e2",
    "f5f6e6f4e3c5c4d6g4d3c6f3g5h5c7h4h3g6g3d7d2e2e1h2c3f2d8c1c2b5b4a4a3a2a5a6b6a7",
];

/// The built-in problems (no expected scores), parsed from [`BUILTIN_TRANSCRIPTS`].
pub fn builtin_problems() -> Vec<Problem> {
    BUILTIN_TRANSCRIPTS
        .iter()
        .filter_map(|t| crate::notation::parse_transcript(t).ok())
        .map(|(_, position)| Problem {
            position,
            move_scores: Vec::new(),
            expected: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_transcripts_are_legal() {
        let empties: Vec<u32> = BUILTIN_TRANSCRIPTS
            .iter()
            .map(|t| {
                crate::notation::parse_transcript(t)
                    .expect("legal")
                    .1
                    .board
                    .empties()
            })
            .collect();
        assert_eq!(empties, vec![18, 19, 20, 21, 22]);
    }

    #[test]
    fn problem_files_are_read_up_to_a_limit() {
        let (far, gap) = ("-".repeat(27), "-".repeat(6));
        let line = format!("{far}OX{gap}XO{far} X;\n");
        let text = line.repeat(10);
        let all = read_problems_within(text.as_bytes(), text.len() as u64).unwrap();
        assert_eq!(all.len(), 10);
        let e = read_problems_within(text.as_bytes(), text.len() as u64 - 1).unwrap_err();
        assert!(e.to_string().starts_with("longer than 0 MiB"), "{e}");
        // An endless input is refused at the limit.
        let endless = std::io::BufReader::new(std::io::repeat(b'\n'));
        assert!(read_problems_within(endless, 1 << 16).is_err());
    }

    #[test]
    fn a_line_longer_than_the_bound_is_an_error_with_its_number() {
        let ok = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X\n";
        let long = format!("{ok}{}\n{ok}", "x".repeat(MAX_PROBLEM_LINE_BYTES + 10));
        let mut lines = problem_lines(long.as_bytes());
        assert!(lines.next().unwrap().is_ok());
        let e = lines.next().unwrap().unwrap_err().to_string();
        assert_eq!(
            e,
            format!("line 2: longer than {MAX_PROBLEM_LINE_BYTES} bytes")
        );
    }

    #[test]
    fn a_wld_result_of_time_mode_is_shown_as_such_and_has_no_disc_error() {
        // FFO #35 (21 empties, a draw) and what the engine returns when a timed search's plan
        // is a WLD solve (engine tests: a_timed_search_whose_plan_is_wld_returns_a_proven_wld_
        // result): the draw proven, 0, which is no disc count.
        let line = "--XXX-----XXXX-OOOXXOOOOOOOOOOXO-OOXXXXO-OOOXXXO---XOXX---X----- O; \
            C7:+0; D8:-8; H8:-8; B2:-12; G1:-14; E8:-20; B1:-20; F8:-24; F1:-32; H7:-32; G8:-38;";
        let problem = parse_problem_line(line).unwrap().unwrap();
        let c7 = Move::Play(crate::othello::square::Square::from_coords(2, 6));
        let r = SearchResult {
            best: c7,
            score: 0,
            depth: 21,
            exact: false,
            wld: true,
            nodes: 1_000,
            time_ms: 500,
            pv: vec![c7],
        };
        let kind = SolveKind::Time(900);
        let rec = record_of(&problem, 35, kind, &r, 500);
        assert!(rec.wld && rec.exact, "{rec:?}");
        assert_eq!((rec.score, rec.expected, rec.ok), (0, Some(0), Some(true)));
        let json = serde_json::to_value(&rec).unwrap();
        assert_eq!(json["wld"], true, "{json}");
        let opts = SolveOptions {
            kind,
            json: false,
            first_id: 35,
            only: Vec::new(),
            fresh: false,
            auto_table: false,
        };
        let mut out = Vec::new();
        let mut batch = Batch::new(&mut out, &opts).unwrap();
        batch.seen = 1;
        batch
            .record(&problem, &rec, Duration::from_millis(500))
            .unwrap();
        let sum = batch.finish().unwrap();
        assert_eq!(
            (sum.ok, sum.wrong, sum.error_judged, sum.abs_error),
            (1, 0, 0, 0)
        );
        let out = String::from_utf8(out).unwrap();
        let row = out.lines().nth(1).unwrap();
        assert_eq!(row.split_whitespace().nth(3), Some("draw"), "{out}");
        assert_eq!(
            out.lines().last().unwrap(),
            "agreement: best move 100.00 % (1 of 1) (1 WLD result, not in the mean)",
            "{out}"
        );
        // The same score as a midgame estimate is a disc count, in the mean.
        let estimate = SearchResult {
            wld: false,
            depth: 12,
            ..r
        };
        let rec = record_of(&problem, 35, kind, &estimate, 500);
        assert!(!rec.wld && !rec.exact);
        assert!(serde_json::to_value(&rec).unwrap().get("wld").is_none());
    }

    #[test]
    fn one_spinner_thread_serves_the_whole_batch() {
        let problems = builtin_problems();
        let opts = SolveOptions {
            kind: SolveKind::Depth(1),
            json: true,
            first_id: 1,
            only: Vec::new(),
            fresh: false,
            auto_table: false,
        };
        let mut engine = Engine::new(crate::engine::EngineConfig {
            hash_mb: 1,
            threads: 1,
        });
        let mut out = Vec::new();
        let mut batch = Batch::new(&mut out, &opts).expect("batch");
        // Force the spinner on (stderr is not a terminal under `cargo test`), drawing nowhere.
        batch.want_spinner = true;
        batch.target = ProgressDrawTarget::hidden;
        for p in &problems {
            batch.solve(&mut engine, p).expect("solve");
        }
        let spinner = batch.spinner.take().expect("spinner started");
        // The single display thread was told about every position of the batch.
        assert_eq!(spinner.join(), problems.len());
        assert_eq!(batch.finish().expect("finish").positions, problems.len());
        assert_eq!(
            String::from_utf8_lossy(&out).lines().count(),
            problems.len()
        );
    }
}
