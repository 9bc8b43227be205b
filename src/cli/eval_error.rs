//! `flank eval-error`: an evaluation's error on a labelled position set (a `flank evalset`
//! file, or any OBF file with scores), by empties bucket: the static evaluation, or a
//! depth-limited search, against each position's listed best score.

use std::io::{BufRead, Write};

use anyhow::{Result, bail};

use super::solve::read_problems;
use crate::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use crate::eval::evaluate;
use crate::othello::square::Move;

/// Which positions `flank eval-error` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Measured {
    /// The set's positions, against their best listed score.
    #[default]
    Positions,
    /// Every child after a scored move, against the negated move score.
    Children,
    /// The children after the best scored moves only.
    BestChildren,
    /// The children after the other scored moves only.
    OtherChildren,
}

/// One bucket's figures, in discs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BucketError {
    /// Fewest empties of the bucket (its start, or the set's fewest if more).
    pub first: u32,
    /// Most empties of the bucket (its end, or the set's most if fewer).
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
/// followed by one bucket of every position. With `measured` other than
/// [`Measured::Positions`], the positions measured are instead the children of each line's
/// position whose moves the line scores (an evalset line scores every legal move exactly),
/// all of them or those after its best or its other moves, labelled with the negated move
/// score: the positions a search evaluates, most of them after moves no good player makes.
///
/// # Errors
/// A line that is not a position (with its line number), a `width` of 0, or no position with
/// a listed score.
pub fn bucket_errors<R: BufRead>(
    input: R,
    width: u32,
    measured: Measured,
    estimate: &mut dyn FnMut(&crate::othello::board::Board) -> i32,
) -> Result<Vec<BucketError>> {
    if width == 0 {
        bail!("the bucket width must be at least 1");
    }
    let problems = read_problems(input)?;
    let mut labelled = Vec::new();
    for p in &problems {
        let b = p.position.board;
        if measured == Measured::Positions {
            labelled.extend(p.expected.map(|label| (b, label)));
            continue;
        }
        for &(m, score) in &p.move_scores {
            let best = Some(score) == p.expected;
            match measured {
                Measured::BestChildren if !best => continue,
                Measured::OtherChildren if best => continue,
                _ => {}
            }
            // The reader has checked that every listed move is legal.
            if let Move::Play(sq) = m {
                labelled.push((b.make_move(sq), -score));
            }
        }
    }
    // (bucket start, |err| sum, err² sum, err sum, count)
    let mut sums: std::collections::BTreeMap<u32, (f64, f64, f64, usize)> = Default::default();
    let mut all = (0.0, 0.0, 0.0, 0usize);
    for (board, label) in &labelled {
        let e = (estimate(board) - label) as f64;
        let key = board.empties() / width * width;
        let s = sums.entry(key).or_default();
        for t in [s, &mut all] {
            t.0 += e.abs();
            t.1 += e * e;
            t.2 += e;
            t.3 += 1;
        }
    }
    if all.3 == 0 {
        bail!(
            "no position with a listed score{}",
            if measured == Measured::Positions {
                ""
            } else {
                " for a legal move"
            }
        );
    }
    let row = |first: u32, last: u32, t: (f64, f64, f64, usize)| BucketError {
        first,
        last,
        positions: t.3,
        mae: t.0 / t.3 as f64,
        rmse: (t.1 / t.3 as f64).sqrt(),
        bias: t.2 / t.3 as f64,
    };
    // A bucket is named by the empties it can hold, clipped to those the set has: a set that
    // stops at 52 empties ends with 50-52, not 50-54.
    let lo = labelled.iter().map(|(b, _)| b.empties()).min().unwrap_or(0);
    let hi = labelled.iter().map(|(b, _)| b.empties()).max().unwrap_or(0);
    let mut out: Vec<BucketError> = sums
        .iter()
        .map(|(&k, &t)| row(k.max(lo), (k + width - 1).min(hi), t))
        .collect();
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
    measured: Measured,
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
    let rows = bucket_errors(input, width, measured, &mut estimate)?;
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
        let rows = bucket_errors(set.as_bytes(), 5, Measured::Positions, &mut |_| 0).unwrap();
        assert_eq!(rows.len(), 3, "{rows:?}");
        // The buckets 55-59 and 60-64, clipped to the set's 59-60 empties.
        assert_eq!(
            (rows[0].first, rows[0].last, rows[0].positions),
            (59, 59, 1)
        );
        assert_eq!(rows[0].mae, 2.0);
        assert_eq!(rows[0].bias, 2.0);
        assert_eq!(
            (rows[1].first, rows[1].last, rows[1].positions),
            (60, 60, 1)
        );
        assert_eq!(rows[1].bias, -4.0);
        assert_eq!(
            (rows[2].first, rows[2].last, rows[2].positions, rows[2].mae),
            (59, 60, 2, 3.0)
        );
        assert!((rows[2].rmse - 10f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn children_are_labelled_with_the_negated_move_score() {
        // The start: f5 scored +4 and d3 -2 (made up), c4 not scored. Children after f5 and
        // d3 (59 empties, white to move) are labelled -4 and +2; an estimate of 1 errs by +5
        // and -1.
        let set =
            "---------------------------OX------XO--------------------------- X; F5:+4; D3:-2;\n";
        let mut seen = Vec::new();
        let rows = bucket_errors(set.as_bytes(), 60, Measured::Children, &mut |b| {
            seen.push(b.empties());
            1
        })
        .unwrap();
        assert_eq!(seen, vec![59, 59]);
        assert_eq!(
            (rows[0].first, rows[0].last, rows[0].positions),
            (59, 59, 2)
        );
        assert_eq!((rows[0].mae, rows[0].bias), (3.0, 2.0));
        // The best move's child alone (error +5), and the other's (error -1).
        let best = bucket_errors(set.as_bytes(), 60, Measured::BestChildren, &mut |_| 1).unwrap();
        assert_eq!((best[0].positions, best[0].bias), (1, 5.0));
        let other = bucket_errors(set.as_bytes(), 60, Measured::OtherChildren, &mut |_| 1).unwrap();
        assert_eq!((other[0].positions, other[0].bias), (1, -1.0));
        // A set without scored moves has no child to measure.
        let bare = "---------------------------OX------XO--------------------------- X\n";
        assert!(bucket_errors(bare.as_bytes(), 5, Measured::Children, &mut |_| 0).is_err());
    }
}
