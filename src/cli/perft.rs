//! `flank perft`: the leaf count of the game tree from the start position, with its time and
//! rate.

use std::io::Write;
use std::time::Instant;

use anyhow::Result;

use crate::cli::solve::per_second;
use crate::othello::board::Board;
use crate::othello::perft::{PassRule, perft};

/// Counts the leaves `depth` plies below the start position under `rule` and writes one line
/// to `out`: `perft D (R pass rule): N leaves, T ms, L leaves/s`, then flushes.
///
/// # Errors
/// A failed write or flush.
pub fn run_perft<W: Write>(out: &mut W, depth: u32, rule: PassRule) -> Result<()> {
    let start = Instant::now();
    let n = perft(&Board::start(), depth, rule);
    let elapsed = start.elapsed();
    let rule = match rule {
        PassRule::Ply => "ply",
        PassRule::Free => "free",
    };
    writeln!(
        out,
        "perft {depth} ({rule} pass rule): {n} leaves, {} ms, {} leaves/s",
        elapsed.as_millis(),
        per_second(n, elapsed)
    )?;
    out.flush()?;
    Ok(())
}
