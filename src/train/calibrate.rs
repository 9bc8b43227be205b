//! `flank mpc-calibrate`: fits the midgame multi-ProbCut table ([`crate::eval::mpc::MpcTable`])
//! of the active evaluation and stores it with the weights (weights file version 4).
//!
//! Positions are sampled from the WTHOR games (a seeded pseudo-random game and ply, empties
//! in a range; games through an FFO or hard-20 position are not excluded: no test set is
//! searched by midgame depth). Each position is searched by iterative deepening without
//! ProbCut, on a fresh transposition table, from depth 1 to the largest depth asked (at most
//! its empties); the score of every depth (discs, side to move's view; depth 0 = the static
//! evaluation) is one sample per depth pair. The regression of each deep score on each
//! shallower one, per empties bucket, is the table (Buro's multi-ProbCut calibration, 1997).

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Result;
use rayon::prelude::*;

use crate::eval::evaluate;
use crate::eval::mpc::{self, MpcTable};
use crate::othello::board::{Board, Score};
use crate::search::Searcher;
use crate::search::probcut;
use crate::search::tt::TranspositionTable;

/// What `flank mpc-calibrate` does.
#[derive(Clone, Debug)]
pub struct CalibrateOptions {
    /// The WTHOR directory (`$FLANK_DATA/games/wthor`).
    pub wthor_dir: std::path::PathBuf,
    /// Positions to search.
    pub positions: usize,
    /// Deepest search, plies (at most [`mpc::MID_MAX_DEPTH`]).
    pub max_depth: u32,
    /// Empties of the sampled positions, inclusive.
    pub empties: (u32, u32),
    /// Seed of the sampling.
    pub seed: u64,
    /// Transposition table per searching thread, MiB.
    pub hash_mb: usize,
}

/// One calibration sample: a position's empties and its scores by depth (`scores[d]`, discs).
pub type DepthScores = (u32, Vec<Score>);

/// Samples `opts.positions` positions with a legal move from the WTHOR games, deterministic
/// for `opts.seed`. Errors: unreadable WTHOR files, no game reaching the empties range.
pub fn sample_positions(opts: &CalibrateOptions) -> Result<Vec<Board>> {
    let (_, games) = crate::train::read_wthor_games(&opts.wthor_dir)?;
    let (lo, hi) = opts.empties;
    let mut x = opts.seed ^ 0x6d70_635f_6361_6c69;
    let mut out = Vec::with_capacity(opts.positions);
    let mut tries = 0usize;
    while out.len() < opts.positions && !games.is_empty() {
        tries += 1;
        if tries > opts.positions * 100 + 1000 {
            anyhow::bail!("no WTHOR game reaches {lo}-{hi} empties");
        }
        x = crate::train::splitmix(x);
        let g = &games[(x % games.len() as u64) as usize];
        let Some((positions, _)) = crate::train::replay_wthor(&g.moves) else {
            continue;
        };
        x = crate::train::splitmix(x);
        let want = lo + (x % u64::from(hi - lo + 1)) as u32;
        if let Some(p) = positions
            .iter()
            .find(|p| p.board.empties() == want && p.board.has_moves())
        {
            out.push(p.board);
        }
    }
    if out.is_empty() {
        anyhow::bail!("no WTHOR games in {}", opts.wthor_dir.display());
    }
    Ok(out)
}

/// The scores of `b` (which must have a legal move) by depth, 0 (static evaluation) to
/// `max_depth` capped at its empties: iterative deepening without ProbCut on `tt` (cleared
/// first); each depth's score is exact for that depth (aspiration failures are re-searched).
pub fn scores_by_depth(b: &Board, max_depth: u32, tt: &Arc<TranspositionTable>) -> Vec<Score> {
    tt.clear();
    let mut s = Searcher::new(tt.clone(), Arc::new(AtomicBool::new(false)), None);
    s.set_mid_mpc(None);
    let mut out = vec![evaluate(b)];
    let mut guess = None;
    for depth in 1..=max_depth.min(b.empties()) {
        let (v, _) = s
            .mid_root(b, depth, guess)
            .expect("a search without stop flag or deadline completes");
        out.push(v);
        guess = Some(v);
    }
    out
}

/// Searches every position of `boards` ([`scores_by_depth`]) on the current rayon pool, one
/// table of `hash_mb` MiB per thread, with a progress bar on stderr.
pub fn collect(boards: &[Board], max_depth: u32, hash_mb: usize) -> Vec<DepthScores> {
    let pb = crate::train::bar(boards.len() as u64, "mpc");
    let out = boards
        .par_iter()
        .map_init(
            || Arc::new(TranspositionTable::new(hash_mb)),
            |tt, b| {
                let v = scores_by_depth(b, max_depth, tt);
                pb.inc(1);
                (b.empties(), v)
            },
        )
        .collect();
    pb.finish_and_clear();
    out
}

/// Runs the calibration: samples, searches, fits, and writes a report (the fit of each depth
/// with its shallow search, [`mpc::mid_shallow_depth`], per empties bucket) to `report`.
pub fn run(opts: &CalibrateOptions, report: &mut dyn Write) -> Result<MpcTable> {
    let boards = sample_positions(opts)?;
    let t0 = std::time::Instant::now();
    let samples = collect(&boards, opts.max_depth, opts.hash_mb);
    let table = MpcTable::from_samples(&samples);
    writeln!(
        report,
        "mpc-calibrate: {} positions, {}-{} empties, depths 0-{}, {:.1} s",
        samples.len(),
        opts.empties.0,
        opts.empties.1,
        opts.max_depth,
        t0.elapsed().as_secs_f64()
    )?;
    writeln!(
        report,
        "sigma (discs) of depth D predicted by its shallow search, per empties bucket:"
    )?;
    write!(report, "{:>10}", "D/d")?;
    for bucket in 0..mpc::MID_BUCKETS {
        let lo = 12 + 6 * bucket;
        write!(report, " {:>7}", format!("{lo}-"))?;
    }
    writeln!(report)?;
    for deep in probcut::MID_MPC_MIN_DEPTH..=opts.max_depth as i32 {
        let d = mpc::mid_shallow_depth(deep);
        write!(report, "{:>10}", format!("{deep}/{d}"))?;
        for bucket in 0..mpc::MID_BUCKETS {
            let e = (12 + 6 * bucket + 2) as u32;
            match table.fit(e, deep, d) {
                Some(f) if mpc::mid_bucket(e) == bucket && f.n > 0 => {
                    write!(report, " {:>7.2}", f.sigma)?
                }
                _ => write!(report, " {:>7}", "-")?,
            }
        }
        writeln!(report)?;
    }
    Ok(table)
}

/// The weights file `base` (bytes of a weights file) with `table` as its MPC table (its
/// solver weights, if any, kept as they are: they carry their own table).
/// Errors: `base` does not decode.
pub fn with_table(base: &[u8], table: &MpcTable) -> Result<Vec<u8>> {
    use crate::eval::weights;
    let unusable = |e| anyhow::anyhow!("base weights unusable: {e}");
    let (w, nets, _) = weights::decode_all(base).map_err(unusable)?;
    let solver = weights::decode_solver(base).map_err(unusable)?;
    Ok(weights::encode_full(
        &w,
        &nets,
        Some(table),
        solver.as_ref(),
    ))
}

/// Reads the base weights for `spec`: `trained` (or none) = the embedded file, else a path.
pub fn base_bytes(spec: Option<&str>) -> Result<Vec<u8>> {
    match spec {
        None | Some("trained") => Ok(crate::eval::weights::EMBEDDED.to_vec()),
        Some("classic") => {
            anyhow::bail!("the classic evaluation has no weights file to store a table in")
        }
        Some(path) => std::fs::read(Path::new(path))
            .map_err(|e| anyhow::anyhow!("cannot read weights file {path}: {e}")),
    }
}
