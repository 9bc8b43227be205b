//! `flank solve`: solves a batch of positions (OBF lines or board strings) and checks them
//! against the scores the file lists.
//!
//! Each input line is parsed by [`crate::format::parse_problem_line`]. For every position the
//! engine runs one search ([`SolveMode::Exact`] by default, [`SolveMode::Wld`] with `--wld`,
//! a depth-limited [`SolveMode::Midgame`] search with `--depth D`) and one result line is
//! written: as a text table row, or as one JSON object per line with `--json`. A total line
//! (text mode) or nothing (JSON mode) follows. Whether a result is `ok`:
//! - exact: the score equals the expected score and, when the line lists move scores, the best
//!   move is one of the moves with the best listed score;
//! - WLD: the sign of the score equals the sign of the expected score, and the best move's
//!   listed score has that sign too;
//! - depth-limited: the best move is one of the moves with the best listed score (the score is
//!   an estimate and is not compared).

use std::io::{BufRead, Write};
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::board::Score;
use crate::engine::{Engine, SearchLimits, SolveMode};
use crate::format::{Problem, parse_problem_line};
use crate::square::{Color, Move};

/// What `flank solve` searches for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveKind {
    /// Exact final disc difference.
    Exact,
    /// Win / loss / draw only.
    Wld,
    /// A depth-limited midgame search to this many plies.
    Depth(u32),
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
}

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
    /// Best move found (`pass` when the side to move cannot move).
    pub best: String,
    /// Score for the side to move in discs (exact: final disc difference with empties to the
    /// winner; WLD: −1, 0 or +1; depth: the midgame estimate).
    pub score: Score,
    /// True when `score` is exact (exact or WLD solve).
    pub exact: bool,
    /// Depth searched in plies (for a solve: the empties).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time in ms.
    pub time_ms: u64,
    /// Principal variation, space separated, first move first.
    pub pv: String,
    /// The best listed score of the input line, if it gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Score>,
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
    /// Wall time over the batch, in ms.
    pub time_ms: u64,
}

/// Nodes per second from a node count and a time in ms (0 when no time has passed).
pub fn nodes_per_second(nodes: u64, time_ms: u64) -> u64 {
    nodes.saturating_mul(1000).checked_div(time_ms).unwrap_or(0)
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
    };
    let pos = problem.position;
    let start = Instant::now();
    let r = engine.search(&pos.board, &limits, &mut |_| {});
    let time_ms = start.elapsed().as_millis() as u64;
    let ok = problem
        .expected
        .map(|e| judge(problem, kind, e, r.best, r.score));
    SolveRecord {
        id,
        board: pos.cells(),
        side: match pos.side {
            Color::Black => "X".into(),
            Color::White => "O".into(),
        },
        empties: pos.board.empties(),
        best: r.best.to_string(),
        score: r.score,
        exact: r.exact,
        depth: r.depth,
        nodes: r.nodes,
        time_ms,
        pv: r
            .pv
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        expected: problem.expected,
        ok,
    }
}

/// Whether a result agrees with the problem's expected score `e` (rules in the module header).
fn judge(problem: &Problem, kind: SolveKind, e: Score, best: Move, score: Score) -> bool {
    let listed = |m: Move| {
        problem
            .move_scores
            .iter()
            .find(|(x, _)| *x == m)
            .map(|&(_, s)| s)
    };
    let has_list = !problem.move_scores.is_empty();
    match kind {
        SolveKind::Exact => score == e && (!has_list || listed(best) == Some(e)),
        SolveKind::Wld => {
            score.signum() == e.signum()
                && (!has_list || listed(best).map(Score::signum) == Some(e.signum()))
        }
        SolveKind::Depth(_) => !has_list || listed(best) == Some(e),
    }
}

/// Reads problems from `input`, solves each, writes one line per result to `out`, and a total
/// line in text mode. Input lines that cannot be parsed are an error naming the line number.
pub fn run_solve<R: BufRead, W: Write>(
    input: R,
    out: &mut W,
    engine: &mut Engine,
    opts: &SolveOptions,
) -> Result<SolveSummary> {
    let mut problems = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line = line.context("cannot read input")?;
        if let Some(p) =
            parse_problem_line(&line).with_context(|| format!("line {}: cannot parse", n + 1))?
        {
            problems.push(p);
        }
    }
    solve_problems(&problems, out, engine, opts)
}

/// Solves already parsed problems; see [`run_solve`].
pub fn solve_problems<W: Write>(
    problems: &[Problem],
    out: &mut W,
    engine: &mut Engine,
    opts: &SolveOptions,
) -> Result<SolveSummary> {
    let mut sum = SolveSummary::default();
    if !opts.json {
        writeln!(
            out,
            "{:>4} {:>3} {:>4} {:>6} {:>14} {:>9} {:>11}  pv",
            "#", "emp", "best", "score", "nodes", "time(ms)", "nodes/s"
        )?;
    }
    for (i, p) in problems.iter().enumerate() {
        let rec = solve_problem(engine, p, opts.first_id + i, opts.kind);
        sum.positions += 1;
        sum.nodes += rec.nodes;
        sum.time_ms += rec.time_ms;
        match rec.ok {
            Some(true) => sum.ok += 1,
            Some(false) => sum.wrong += 1,
            None => {}
        }
        if opts.json {
            writeln!(out, "{}", serde_json::to_string(&rec)?)?;
        } else {
            let score = match opts.kind {
                SolveKind::Wld => match rec.score.signum() {
                    1 => "win".to_string(),
                    -1 => "loss".to_string(),
                    _ => "draw".to_string(),
                },
                _ => format!("{:+}", rec.score),
            };
            let check = match (rec.ok, rec.expected) {
                (Some(true), _) => String::new(),
                (Some(false), Some(e)) => format!("  WRONG (expected {e:+})"),
                _ => String::new(),
            };
            writeln!(
                out,
                "{:>4} {:>3} {:>4} {:>6} {:>14} {:>9} {:>11}  {}{}",
                rec.id,
                rec.empties,
                rec.best,
                score,
                rec.nodes,
                rec.time_ms,
                nodes_per_second(rec.nodes, rec.time_ms),
                rec.pv,
                check
            )?;
        }
        out.flush()?;
    }
    if !opts.json {
        writeln!(
            out,
            "total: {} positions, {} ok, {} wrong, {} nodes, {} ms, {} nodes/s",
            sum.positions,
            sum.ok,
            sum.wrong,
            sum.nodes,
            sum.time_ms,
            nodes_per_second(sum.nodes, sum.time_ms)
        )?;
    }
    Ok(sum)
}

/// The built-in positions `flank solve` solves when given no file: games played from common
/// openings by a fixed mobility-greedy policy and stopped at 16–22 empties, written as
/// transcripts so that every position is legal by construction.
pub const BUILTIN_TRANSCRIPTS: [&str; 5] = [
    "f5f4e3f6d3c4f3e2d2c3b3b5c5b4e6e7f2b2c2e1d1c1a1a3b1g1f1b6h1c6a2g3g5g4a4h5d6c7g7f7a5h8g2d7",
    "f5f6e6f4e3c5c6d6g6d7b5g4g5c4e7h5c3h7h6f7h8h4g7g8h3b2a1b3d3b4f3c7b6a4a6a5a2a7a3c2a8b1",
    "f5d6c3d3c4f3f4b5b4b3a4c5d2a3a2d1c2e2e3f2e1f1d7e6f6c1b2b1a1g4h4g6g5h5h3g3h2h1g2g1",
    "f5d6c4d3c3f3f4b5b4b3a4c5e7a5a3a2c2g4e3f6a6b2a1b1e6f7g5e2e1g6d2e8c1f1h5h4g1h6g2f2",
    "f5d6c5f4e3d3c2f3e6g5h5c6c4f6g4g3g6d2f7h6d7d8c8e7e8g8d1c7g7h3h7h4h2h8b5h1e2e1",
];

/// The built-in problems (no expected scores), parsed from [`BUILTIN_TRANSCRIPTS`].
pub fn builtin_problems() -> Vec<Problem> {
    BUILTIN_TRANSCRIPTS
        .iter()
        .filter_map(|t| crate::format::parse_transcript(t).ok())
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
                crate::format::parse_transcript(t)
                    .expect("legal")
                    .1
                    .board
                    .empties()
            })
            .collect();
        assert_eq!(empties, vec![16, 18, 20, 20, 22]);
    }
}
