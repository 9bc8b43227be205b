//! `flank eval-swing`: the odd-even swing of an evaluation, the mean of v(P) + v(Q) over
//! positions P and their best child Q, both searched to the same depth, by empties bucket and
//! depth (a consistent evaluation gives about 0 at every depth), and its depth stability, the
//! mean |v(P) at d + 1 − v(P) at d|.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use anyhow::{Result, bail};

use super::solve::read_problems;
use crate::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use crate::eval::evaluate;
use crate::othello::board::{Board, Score};
use crate::othello::square::Move;

/// What [`swing_values`] measures of a position P at one depth, in discs, each value from its
/// own side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwingValues {
    /// v(P).
    pub value: Score,
    /// v(P) + v(Q), Q the best child; `None` when Q must pass (a pass changes whose view the
    /// sum mixes).
    pub sum: Option<Score>,
}

/// v(P) of `board` (P) and the sum v(P) + v(Q) with its best child Q at `depth`; `None` when
/// P has no legal move.
///
/// Depth 0 is the static evaluation: Q is the child with the lowest static value (the move a
/// depth-1 search plays) and v = [`evaluate`]. Depth `d` ≥ 1: P and Q are each searched to `d`
/// plies by `engine` (midgame search, never a solve; its table cleared before each search, so
/// the values depend only on the position, the depth and the engine's settings), and Q is P
/// after the move P's search chose.
pub fn swing_values(engine: &mut Engine, board: &Board, depth: u32) -> Option<SwingValues> {
    if !board.has_moves() {
        return None;
    }
    if depth == 0 {
        let q = board
            .legal_moves()
            .map(|sq| board.make_move(sq))
            .min_by_key(evaluate)?;
        let value = evaluate(board);
        let sum = q.has_moves().then(|| value + evaluate(&q));
        return Some(SwingValues { value, sum });
    }
    let limits = SearchLimits {
        mode: SolveMode::Midgame,
        depth: Some(depth),
        ..SearchLimits::default()
    };
    engine.new_game();
    let p = engine.search(board, &limits, &mut |_| {});
    let value = p.score;
    let Move::Play(sq) = p.best else {
        return Some(SwingValues { value, sum: None });
    };
    let q = board.make_move(sq);
    if !q.has_moves() {
        return Some(SwingValues { value, sum: None });
    }
    engine.new_game();
    let vq = engine.search(&q, &limits, &mut |_| {}).score;
    Some(SwingValues {
        value,
        sum: Some(value + vq),
    })
}

/// The sum v(P) + v(Q) of `board` (P) and its best child Q at `depth`, in discs
/// ([`swing_values`]); `None` when P has no legal move or Q must pass.
pub fn swing_sum(engine: &mut Engine, board: &Board, depth: u32) -> Option<Score> {
    swing_values(engine, board, depth)?.sum
}

/// The sums of one empties bucket at one depth, in discs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwingCell {
    /// Positions measured (those with a sum: see [`swing_sum`]).
    pub positions: usize,
    /// Mean of v(P) + v(Q).
    pub mean: f64,
    /// Standard deviation of v(P) + v(Q) (population).
    pub sd: f64,
}

impl SwingCell {
    /// The cell of `sums`.
    pub fn of(sums: &[Score]) -> SwingCell {
        let n = sums.len();
        if n == 0 {
            return SwingCell::default();
        }
        let mean = sums.iter().map(|&s| s as f64).sum::<f64>() / n as f64;
        let var = sums.iter().map(|&s| (s as f64 - mean).powi(2)).sum::<f64>() / n as f64;
        SwingCell {
            positions: n,
            mean,
            sd: var.sqrt(),
        }
    }
}

/// One empties bucket of the swing table.
#[derive(Clone, Debug, PartialEq)]
pub struct SwingBucket {
    /// First and last empties of the bucket.
    pub empties: (u32, u32),
    /// The sums at each depth, in the order of the depths measured.
    pub cells: Vec<SwingCell>,
    /// Depth stability between each depth and the next in the list (one fewer than `cells`):
    /// the mean |v(P) at the later depth − v(P) at the earlier one| in discs, over the bucket's
    /// positions with a value at both (`None` if there is none).
    pub changes: Vec<Option<f64>>,
}

/// The swing table: one [`SwingBucket`] per empties bucket, in increasing empties.
pub type SwingTable = Vec<SwingBucket>;

/// Measures every position of `boards` whose empties lie in `range` at every depth of
/// `depths`, on `threads` threads (one engine of one search thread and `hash_mb` MiB each;
/// positions are shared out in a fixed way and each search starts from a cleared table, so
/// the table does not depend on `threads`), grouped in buckets of `width` empties starting at
/// multiples of `width`.
pub fn swing_table(
    boards: &[Board],
    depths: &[u32],
    width: u32,
    range: (u32, u32),
    threads: usize,
    mpc: Option<Option<f64>>,
    hash_mb: usize,
) -> Result<SwingTable> {
    if width == 0 {
        bail!("the bucket width must be at least 1");
    }
    let chosen: Vec<&Board> = boards
        .iter()
        .filter(|b| (range.0..=range.1).contains(&b.empties()))
        .collect();
    if chosen.is_empty() {
        bail!(
            "no position with {}-{} empties in the input",
            range.0,
            range.1
        );
    }
    let threads = threads.clamp(1, chosen.len());
    // Per position, per depth: the values or None.
    let mut values: Vec<Vec<Option<SwingValues>>> = vec![Vec::new(); chosen.len()];
    std::thread::scope(|s| -> Result<()> {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let chosen = &chosen;
                s.spawn(move || -> Result<Vec<(usize, Vec<Option<SwingValues>>)>> {
                    let mut engine = Engine::try_new(EngineConfig {
                        hash_mb,
                        threads: 1,
                    })?;
                    if let Some(m) = mpc {
                        engine.set_mid_mpc(m);
                    }
                    Ok((t..chosen.len())
                        .step_by(threads)
                        .map(|i| {
                            let row = depths
                                .iter()
                                .map(|&d| swing_values(&mut engine, chosen[i], d))
                                .collect();
                            (i, row)
                        })
                        .collect())
                })
            })
            .collect();
        for h in handles {
            let part = h
                .join()
                .map_err(|_| anyhow::anyhow!("a measuring thread failed"))??;
            for (i, row) in part {
                values[i] = row;
            }
        }
        Ok(())
    })?;
    Ok(bucket_values(
        chosen.iter().map(|b| b.empties()).zip(values),
        depths.len(),
        width,
        range,
    ))
}

/// Groups each position's values (its empties, then one entry per depth) into buckets of
/// `width` empties clipped to `range`: the sums' cells and the depth changes.
fn bucket_values(
    rows: impl Iterator<Item = (u32, Vec<Option<SwingValues>>)>,
    n_depths: usize,
    width: u32,
    range: (u32, u32),
) -> SwingTable {
    // Per bucket: the sums of each depth, and the |change| of each neighbouring pair.
    type Acc = (Vec<Vec<Score>>, Vec<Vec<Score>>);
    let mut buckets: BTreeMap<u32, Acc> = BTreeMap::new();
    for (empties, row) in rows {
        let (sums, changes) = buckets.entry(empties / width * width).or_insert_with(|| {
            (
                vec![Vec::new(); n_depths],
                vec![Vec::new(); n_depths.saturating_sub(1)],
            )
        });
        for (k, v) in row.iter().enumerate() {
            if let Some(s) = v.and_then(|v| v.sum) {
                sums[k].push(s);
            }
        }
        for (k, pair) in row.windows(2).enumerate() {
            if let [Some(a), Some(b)] = pair {
                changes[k].push((b.value - a.value).abs());
            }
        }
    }
    buckets
        .into_iter()
        .map(|(k, (sums, changes))| SwingBucket {
            empties: (k.max(range.0), (k + width - 1).min(range.1)),
            cells: sums.iter().map(|c| SwingCell::of(c)).collect(),
            changes: changes
                .iter()
                .map(|c| {
                    (!c.is_empty())
                        .then(|| c.iter().map(|&d| d as f64).sum::<f64>() / c.len() as f64)
                })
                .collect(),
        })
        .collect()
}

/// Writes `table` (measured at `depths`) as text: per bucket a row of means and a row of
/// standard deviations; then, for each pair of neighbouring depths (d, d + 1) in `depths`, the
/// swing mean(d) − mean(d + 1) and the depth stability, the mean |v(P) at d + 1 − v(P) at d|
/// (a line says so when `depths` has no such pair). A bucket is named by its empties, `40-49`
/// (or `60` for one count); a figure without any position to measure it prints as `-`.
///
/// # Errors
/// A failed write.
pub fn write_swing_table<W: Write>(out: &mut W, table: &SwingTable, depths: &[u32]) -> Result<()> {
    let name = |d: u32| {
        if d == 0 {
            "static".to_string()
        } else {
            format!("d{d}")
        }
    };
    writeln!(
        out,
        "mean of v(P) + v(best child), discs (sd below; n = positions measured)"
    )?;
    write!(out, "{:<9}{:>6}", "empties", "n")?;
    for &d in depths {
        write!(out, "{:>8}", name(d))?;
    }
    writeln!(out)?;
    for bucket in table {
        let n = bucket.cells.iter().map(|c| c.positions).max().unwrap_or(0);
        write!(out, "{:<9}{:>6}", bucket_label(bucket), n)?;
        for c in &bucket.cells {
            match c.positions {
                0 => write!(out, "{:>8}", "-")?,
                _ => write!(out, "{:>+8.2}", c.mean)?,
            }
        }
        writeln!(out)?;
        write!(out, "{:<9}{:>6}", "  sd", "")?;
        for c in &bucket.cells {
            match c.positions {
                0 => write!(out, "{:>8}", "-")?,
                _ => write!(out, "{:>8.2}", c.sd)?,
            }
        }
        writeln!(out)?;
    }
    let pairs: Vec<usize> = (0..depths.len().saturating_sub(1))
        .filter(|&k| depths[k] + 1 == depths[k + 1])
        .collect();
    if pairs.is_empty() {
        writeln!(
            out,
            "no swing or depth stability: they need two neighbouring depths d, d+1 in --depths"
        )?;
        return Ok(());
    }
    let pair_header = |out: &mut W, title: &str| -> Result<()> {
        writeln!(out, "{title}")?;
        write!(out, "{:<9}", "empties")?;
        for &k in &pairs {
            write!(
                out,
                "{:>10}",
                format!("{}-{}", name(depths[k]), name(depths[k + 1]))
            )?;
        }
        writeln!(out)?;
        Ok(())
    };
    pair_header(out, "swing: mean(d) - mean(d+1)")?;
    for bucket in table {
        write!(out, "{:<9}", bucket_label(bucket))?;
        for &k in &pairs {
            let (a, b) = (&bucket.cells[k], &bucket.cells[k + 1]);
            match (a.positions, b.positions) {
                (0, _) | (_, 0) => write!(out, "{:>10}", "-")?,
                _ => write!(out, "{:>+10.2}", a.mean - b.mean)?,
            }
        }
        writeln!(out)?;
    }
    pair_header(out, "depth stability: mean |v(P) at d+1 - v(P) at d|")?;
    for bucket in table {
        write!(out, "{:<9}", bucket_label(bucket))?;
        for &k in &pairs {
            match bucket.changes[k] {
                Some(c) => write!(out, "{c:>10.2}")?,
                None => write!(out, "{:>10}", "-")?,
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// A bucket's name in the text table: its empties, `40-49`, or `60` for a single count.
fn bucket_label(bucket: &SwingBucket) -> String {
    match bucket.empties {
        (first, last) if first == last => first.to_string(),
        (first, last) => format!("{first}-{last}"),
    }
}

/// Settings of `flank eval-swing`.
#[derive(Clone, Debug)]
pub struct SwingSettings {
    /// Depths to measure (0 = static).
    pub depths: Vec<u32>,
    /// Empties per bucket.
    pub width: u32,
    /// Fewest and most empties of the positions measured.
    pub range: (u32, u32),
    /// Threads, one position at a time each.
    pub threads: usize,
    /// `Some(t)` sets the midgame ProbCut (`None` inside: off); `None`: the default.
    pub mpc: Option<Option<f64>>,
    /// Table per thread, MiB.
    pub hash_mb: usize,
}

/// Runs `flank eval-swing`: reads the positions of `input` (OBF lines or board strings, as
/// `flank solve`), measures them and writes the table to `out`.
///
/// # Errors
/// A line that is not a position, no position in the range, or a failed write.
pub fn run_eval_swing<R: BufRead, W: Write>(
    input: R,
    out: &mut W,
    settings: &SwingSettings,
) -> Result<()> {
    let boards: Vec<Board> = read_problems(input)?
        .into_iter()
        .map(|p| p.position.board)
        .collect();
    let table = swing_table(
        &boards,
        &settings.depths,
        settings.width,
        settings.range,
        settings.threads,
        settings.mpc,
        settings.hash_mb,
    )?;
    write_swing_table(out, &table, &settings.depths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::board::Board;

    fn board(s: &str) -> Board {
        crate::notation::parse_board_string(s).unwrap().board
    }

    #[test]
    fn a_search_that_reaches_the_end_is_consistent() {
        // 9 empties: a depth-10 midgame search reaches the end of the game,
        // so v(P) and v(Q) are exact and a best child's value is exactly the negation.
        let p = board("OOOOOOOOOOOOXOOOOOXXOXOOOOXXXOOO-OXXXOOO-OOXOXO-OOOXOXX---OOO--- X");
        assert_eq!(p.empties(), 9);
        let mut e = Engine::new(EngineConfig {
            hash_mb: 1,
            threads: 1,
        });
        assert_eq!(swing_sum(&mut e, &p, 10), Some(0));
        // Both depths reach the end: the same exact value, so a depth change of 0.
        let d10 = swing_values(&mut e, &p, 10).unwrap().value;
        assert_eq!(swing_values(&mut e, &p, 11).unwrap().value, d10);
    }

    #[test]
    fn static_sum_is_the_position_and_its_lowest_child() {
        let p = board("---------------------------OX------XO--------------------------- X");
        let mut e = Engine::new(EngineConfig {
            hash_mb: 1,
            threads: 1,
        });
        let lowest = p
            .legal_moves()
            .map(|sq| evaluate(&p.make_move(sq)))
            .min()
            .unwrap();
        assert_eq!(swing_sum(&mut e, &p, 0), Some(evaluate(&p) + lowest));
    }

    #[test]
    fn no_sum_without_a_move() {
        // Game over: the board is full.
        let p = board(&format!("{}{} X", "X".repeat(32), "O".repeat(32)));
        let mut e = Engine::new(EngineConfig {
            hash_mb: 1,
            threads: 1,
        });
        assert_eq!(swing_sum(&mut e, &p, 0), None);
        assert_eq!(swing_sum(&mut e, &p, 3), None);
    }

    /// The text of `table` measured at `depths`.
    fn table_text(table: &SwingTable, depths: &[u32]) -> String {
        let mut out = Vec::new();
        write_swing_table(&mut out, table, depths).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn cells_and_table_text() {
        let c = SwingCell::of(&[1, 3, 5, 7]);
        assert_eq!((c.positions, c.mean), (4, 4.0));
        assert!((c.sd - 5f64.sqrt()).abs() < 1e-12);
        assert_eq!(SwingCell::of(&[]), SwingCell::default());
        // Two positions at 20-29 empties, measured at depths 0, 1, 3: values and sums.
        let v = |value, sum| Some(SwingValues { value, sum });
        let rows = vec![
            (22, vec![v(1, Some(-2)), v(4, Some(6)), v(3, Some(0))]),
            // No sum at d3 (the best child passes), a value all the same.
            (25, vec![v(-3, Some(-4)), v(2, Some(4)), v(-1, None)]),
        ];
        let table = bucket_values(rows.into_iter(), 3, 10, (20, 50));
        assert_eq!(table.len(), 1);
        assert_eq!(table[0].empties, (20, 29));
        assert_eq!(table[0].cells[2], SwingCell::of(&[0]));
        // |4 - 1| and |2 - -3|; |3 - 4| and |-1 - 2|.
        assert_eq!(table[0].changes, vec![Some(4.0), Some(2.0)]);
        let text = table_text(&table, &[0, 1, 3]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "empties       n  static      d1      d3");
        assert_eq!(lines[2], "20-29         2   -3.00   +5.00   +0.00");
        assert_eq!(lines[3], "  sd               1.00    1.00    0.00");
        // Only the neighbouring pair static-d1 has a swing (-3 - 5) and a stability.
        assert_eq!(lines[5], "empties   static-d1");
        assert_eq!(lines[6], "20-29         -8.00");
        assert_eq!(lines[8], "empties   static-d1");
        assert_eq!(lines[9], "20-29          4.00");
        assert_eq!(lines.len(), 10);
    }

    #[test]
    fn empty_figures_print_as_dashes_and_one_count_buckets_by_their_count() {
        let v = |value, sum| Some(SwingValues { value, sum });
        // One position at 60 empties whose best child passes at d2: no sum there.
        let rows = vec![(60, vec![v(1, Some(3)), v(2, Some(-1)), v(4, None)])];
        let table = bucket_values(rows.into_iter(), 3, 10, (20, 60));
        assert_eq!(table[0].empties, (60, 60));
        let text = table_text(&table, &[0, 1, 2]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "60            1   +3.00   -1.00       -");
        assert_eq!(lines[3], "  sd               0.00    0.00       -");
        assert_eq!(lines[6], "60            +4.00         -");
        // The values are there at every depth: |2 - 1| and |4 - 2|.
        assert_eq!(lines[9], "60             1.00      2.00");
        // No neighbouring depths: a line says why there is no swing.
        let rows = vec![(60, vec![v(1, Some(3)), v(4, None)])];
        let table = bucket_values(rows.into_iter(), 2, 10, (20, 60));
        assert_eq!(
            table_text(&table, &[0, 2]).lines().last().unwrap(),
            "no swing or depth stability: they need two neighbouring depths d, d+1 in --depths"
        );
    }

    #[test]
    fn the_table_does_not_depend_on_threads() {
        let set = "---------------------------OX------XO--------------------------- X\n\
                   OOOOOOOOOOOOXOOOOOXXOXOOOOXXXOOO-OXXXOOO-OOXOXO-OOOXOXX---OOO--- X\n\
                   ---------------------------OX------XXX-------------------------- O\n";
        let boards: Vec<Board> = read_problems(set.as_bytes())
            .unwrap()
            .into_iter()
            .map(|p| p.position.board)
            .collect();
        let one = swing_table(&boards, &[0, 2, 3], 10, (1, 60), 1, None, 1).unwrap();
        let two = swing_table(&boards, &[0, 2, 3], 10, (1, 60), 2, None, 1).unwrap();
        assert_eq!(one, two);
        // Buckets 1-9 (9 empties) and 50-59 (59 and 60 empties, clipped to 60).
        assert_eq!(
            one.iter().map(|b| b.empties).collect::<Vec<_>>(),
            vec![(1, 9), (50, 59), (60, 60)]
        );
        assert!(swing_table(&boards, &[1], 10, (30, 40), 1, None, 1).is_err());
    }
}
