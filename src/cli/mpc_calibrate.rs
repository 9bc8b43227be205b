//! `flank mpc-calibrate`: fits the midgame multi-ProbCut calibration of an evaluation on
//! WTHOR positions and writes its weights file with the table.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::data::data_root;
use crate::eval::mpc::{MID_MIN_SAMPLES, mid_shallow_depth};
use crate::search::probcut::MID_MPC_MIN_DEPTH;
use crate::train::calibrate::{self, CalibrateOptions};
use crate::train::check_writable;

/// The settings of `flank mpc-calibrate`.
#[derive(Clone, Debug)]
pub struct CalibrateSettings {
    /// Positions to search (sampled from the WTHOR games).
    pub positions: usize,
    /// Deepest search in plies (each position is searched at every depth up to it).
    pub max_depth: u32,
    /// Fewest empties of a sampled position.
    pub min_empties: u32,
    /// Most empties of a sampled position.
    pub max_empties: u32,
    /// Seed of the sampling.
    pub seed: u64,
    /// Transposition table per thread in MiB.
    pub hash_mb: usize,
    /// Threads (`None`: all cores).
    pub threads: Option<usize>,
    /// The evaluation to calibrate: `trained` (`None`, the built-in weights) or a weights
    /// file.
    pub eval: Option<String>,
    /// Output weights file.
    pub out: PathBuf,
}

/// Runs `flank mpc-calibrate` with `settings`: the report goes to stdout, then the weights
/// file is written (only when every depth the search cuts at has a fit).
///
/// # Errors
/// `min_empties` above `max_empties`, an evaluation without a weights file (`classic`), an
/// unwritable output path, no data directory, threads that cannot start, the calibration's
/// own errors, too few positions to fit every depth (nothing written), a failed write.
pub fn run_calibrate(settings: &CalibrateSettings) -> Result<()> {
    let s = settings;
    if s.min_empties > s.max_empties {
        anyhow::bail!(
            "--min-empties {} is above --max-empties {}",
            s.min_empties,
            s.max_empties
        );
    }
    // `base_bytes` refuses `classic` (no weights file to store a table in).
    let base = calibrate::base_bytes(s.eval.as_deref())?;
    check_writable(&s.out, "output file")?;
    let data = data_root().map_err(anyhow::Error::msg)?;
    let opts = CalibrateOptions {
        wthor_dir: data.join("games/wthor"),
        positions: s.positions,
        max_depth: s.max_depth,
        empties: (s.min_empties, s.max_empties),
        seed: s.seed,
        hash_mb: s.hash_mb,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(s.threads.unwrap_or(0))
        .build()
        .context("cannot start the threads")?;
    let mut report = Vec::new();
    let table = pool.install(|| calibrate::run(&opts, &mut report));
    let mut out = io::stdout().lock();
    out.write_all(&report)?;
    let table = table?;
    // Every depth the search cuts at needs a fit somewhere (a bucket with enough samples).
    let missing: Vec<i32> = (MID_MPC_MIN_DEPTH..=s.max_depth as i32)
        .filter(|&d| table.fit(30, d, mid_shallow_depth(d)).is_none())
        .collect();
    if !missing.is_empty() {
        anyhow::bail!(
            "too few positions ({}) to fit depths {missing:?} (each needs {} samples in some empties bucket; give --positions 200 or more); nothing written",
            s.positions,
            MID_MIN_SAMPLES
        );
    }
    let bytes = calibrate::with_table(&base, &table)?;
    crate::data::write_atomically(&s.out, &bytes)
        .with_context(|| format!("cannot write {}", s.out.display()))?;
    writeln!(
        out,
        "mpc-calibrate: wrote {} ({} bytes)",
        s.out.display(),
        bytes.len()
    )?;
    Ok(())
}
