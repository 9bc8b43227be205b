//! `flank eval-error`: an evaluation's error on a labelled position set (a `flank evalset`
//! file, or any OBF file with scores), by empties bucket: the static evaluation, or a
//! depth-limited search, against each position's listed best score.

use std::io::{BufRead, Write};

use anyhow::{Result, bail};

use super::solve::read_problems;
use crate::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use crate::eval::evaluate;

/// One bucket's figures, in discs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BucketError {
    /// Fewest empties of the bucket.
    pub first: u32,
    /// Most empties of the bucket.
    pub last: u32,
    /// Positions with a label in the bucket.
    pub positions: usize,
    /// Mean absolute error.
    pub mae: f64,
    /// Root mean square error.
    pub rmse: f64,
    /// Mean of (evaluation − label): positive when the evaluation is optimistic.
    pub bias: f64,
}

/// The errors of `estimate` (a disc difference for the side to move) on the labelled
/// positions of `input`, in buckets of `width` empties starting at multiples of `width`,
/// followed by one bucket of every position.
///
/// # Errors
/// A line that is not a position (with its line number), a `width` of 0, or no position with
/// a listed score.
pub fn bucket_errors<R: BufRead>(
    input: R,
    width: u32,
    estimate: &mut dyn FnMut(&crate::othello::board::Board) -> i32,
) -> Result<Vec<BucketError>> {
    if width == 0 {
        bail!("the bucket width must be at least 1");
    }
    let problems = read_problems(input)?;
    // (bucket start, |err| sum, err² sum, err sum, count)
    let mut sums: std::collections::BTreeMap<u32, (f64, f64, f64, usize)> = Default::default();
    let mut all = (0.0, 0.0, 0.0, 0usize);
    for p in &problems {
        let Some(label) = p.expected else { continue };
        let e = (estimate(&p.position.board) - label) as f64;
        let key = p.position.board.empties() / width * width;
        let s = sums.entry(key).or_default();
        for t in [s, &mut all] {
            t.0 += e.abs();
            t.1 += e * e;
            t.2 += e;
            t.3 += 1;
        }
    }
    if all.3 == 0 {
        bail!("no position with a listed score");
    }
    let row = |first: u32, last: u32, t: (f64, f64, f64, usize)| BucketError {
        first,
        last,
        positions: t.3,
        mae: t.0 / t.3 as f64,
        rmse: (t.1 / t.3 as f64).sqrt(),
        bias: t.2 / t.3 as f64,
    };
    let mut out: Vec<BucketError> = sums
        .iter()
        .map(|(&k, &t)| row(k, k + width - 1, t))
        .collect();
    let lo = out.first().map_or(0, |b| b.first);
    let hi = out.last().map_or(0, |b| b.last);
    out.push(row(lo, hi, all));
    Ok(out)
}

/// Runs `flank eval-error`: reads the set from `input`, measures the active evaluation
/// (`depth` 0: the static evaluation; otherwise a depth-`depth` search on one thread with a
/// table of `hash_mb` MiB, cleared per position) and writes the table to `out`.
///
/// # Errors
/// As [`bucket_errors`], or a failed write.
pub fn run_eval_error<R: BufRead, W: Write>(
    input: R,
    out: &mut W,
    width: u32,
    depth: u32,
    hash_mb: usize,
) -> Result<()> {
    let mut engine = (depth > 0).then(|| {
        Engine::new(EngineConfig {
            hash_mb,
            threads: 1,
        })
    });
    let mut estimate = |b: &crate::othello::board::Board| match engine.as_mut() {
        None => evaluate(b),
        Some(e) => {
            e.new_game();
            let limits = SearchLimits {
                mode: SolveMode::Midgame,
                depth: Some(depth),
                ..SearchLimits::default()
            };
            e.search(b, &limits, &mut |_| {}).score
        }
    };
    let rows = bucket_errors(input, width, &mut estimate)?;
    writeln!(out, "empties  positions    MAE   RMSE   bias")?;
    for (i, r) in rows.iter().enumerate() {
        let name = if i + 1 == rows.len() {
            format!("all {}-{}", r.first, r.last)
        } else {
            format!("{}-{}", r.first, r.last)
        };
        writeln!(
            out,
            "{name:<8} {:>9} {:>6.2} {:>6.2} {:>+6.2}",
            r.positions, r.mae, r.rmse, r.bias
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_hold_their_positions_and_errors() {
        // Two positions with 60 empties' neighbours: the start (60 empties) and after f5 (59).
        let set = "---------------------------OX------XO--------------------------- X; F5:+4;\n\
                   ---------------------------OX------XXX-------------------------- O; F4:-2;\n";
        let rows = bucket_errors(set.as_bytes(), 5, &mut |_| 0).unwrap();
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!(
            (rows[0].first, rows[0].last, rows[0].positions),
            (55, 59, 1)
        );
        assert_eq!(rows[0].mae, 2.0);
        assert_eq!(rows[0].bias, 2.0);
        assert_eq!(
            (rows[1].first, rows[1].last, rows[1].positions),
            (60, 64, 1)
        );
        assert_eq!(rows[1].bias, -4.0);
        assert_eq!((rows[2].positions, rows[2].mae), (2, 3.0));
        assert!((rows[2].rmse - 10f64.sqrt()).abs() < 1e-12);
    }
}
