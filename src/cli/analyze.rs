//! `flank analyze`: the best few moves of positions, each with its score and principal
//! variation, written as text or as one JSON object per position.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::cli::solve::{problem_lines, read_problems};
use crate::engine::analyze::{analyze, info_lines, move_line};
use crate::engine::{Engine, SearchLimits, SolveMode};
use crate::notation::Problem;
use crate::othello::square::Color;

/// How `flank analyze` searches and writes each position.
#[derive(Clone, Debug)]
pub struct AnalyzeOptions {
    /// Best moves shown per position (all legal moves when there are fewer).
    pub moves: usize,
    /// Search every move to this depth in plies (positions with 14 empties or fewer are still
    /// solved exactly). With neither `depth` nor `time_ms`: solved exactly at 20 empties or
    /// fewer, else depth 10.
    pub depth: Option<u32>,
    /// Time per position in ms: no new iteration after half of it, the answer within it
    /// (exact solves are tried at 24 empties or fewer).
    pub time_ms: Option<u64>,
    /// Solve every move exactly whatever the empties.
    pub exact: bool,
    /// One JSON object per position instead of text.
    pub json: bool,
    /// Print every iteration's moves (depth, score, nodes, nps, PV) on stderr.
    pub verbose: bool,
}

/// Analyses every position of `file` (OBF lines or board strings, read and checked whole
/// first) or, when `file` is `-`, of stdin (position by position, each written before the
/// next line is read), numbering them from 1 and writing each to `out` as it is done.
///
/// # Errors
/// A file that cannot be opened (`cannot open FILE`), a line that cannot be read or parsed
/// (naming the file and the line), input without any position (`no position in FILE`), a
/// failed write.
pub fn run_analyze<W: Write>(
    file: &str,
    out: &mut W,
    engine: &mut Engine,
    opts: &AnalyzeOptions,
) -> Result<()> {
    let mut count = 0;
    if file == "-" {
        for p in problem_lines(io::stdin().lock()) {
            count += 1;
            analyze_position(engine, count, &p?, opts, out)?;
        }
    } else {
        let f = File::open(PathBuf::from(file)).with_context(|| format!("cannot open {file}"))?;
        let problems = read_problems(BufReader::new(f)).with_context(|| file.to_string())?;
        for p in &problems {
            count += 1;
            analyze_position(engine, count, p, opts, out)?;
        }
    }
    if count == 0 {
        anyhow::bail!("no position in {file}");
    }
    out.flush()?;
    Ok(())
}

/// Analyses one position, numbered `id`, and writes it to `out`: text (a header line, then
/// one [`move_line`] per move, indented; `pass` or `game over` instead when no move is legal)
/// or one JSON object; then flushes.
///
/// # Errors
/// A failed write or flush.
pub fn analyze_position<W: Write>(
    engine: &mut Engine,
    id: usize,
    p: &Problem,
    opts: &AnalyzeOptions,
    out: &mut W,
) -> Result<()> {
    let board = p.position.board;
    let start = Instant::now();
    let limits = SearchLimits {
        depth: opts.depth,
        mode: if opts.exact {
            SolveMode::Exact
        } else {
            SolveMode::Auto
        },
        time_ms: opts.time_ms.map(|ms| ms / 2),
        deadline: opts
            .time_ms
            .and_then(|ms| start.checked_add(Duration::from_millis(ms))),
    };
    let verbose = opts.verbose;
    let a = analyze(engine, &board, opts.moves, &limits, &mut |a| {
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
    let side = if p.position.side == Color::Black {
        "X"
    } else {
        "O"
    };
    if opts.json {
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
