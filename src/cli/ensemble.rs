//! `flank ensemble`: joins the residual nets of two weights files at some empties counts into
//! their weighted ensemble and writes the result.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::eval::weights::ensemble;
use crate::train::check_writable;

/// The settings of `flank ensemble`.
#[derive(Clone, Debug)]
pub struct EnsembleSettings {
    /// Weights file whose linear weights and other nets are kept.
    pub base: PathBuf,
    /// Weights file whose nets are averaged with `base`'s.
    pub other: PathBuf,
    /// Empties counts whose nets are averaged.
    pub net_empties: Vec<usize>,
    /// Weight of `other`'s net, in [0, 1] (`base`'s gets the rest).
    pub weight: f64,
    /// Output weights file.
    pub out: PathBuf,
}

/// Runs `flank ensemble` with `settings`, writing the joined weights file and a one-line
/// report on stderr.
///
/// # Errors
/// A weight outside [0, 1], no empties counts, an unwritable output path, a weights file
/// that cannot be read, nets that cannot be joined (naming both files), a failed write.
pub fn run_ensemble(settings: &EnsembleSettings) -> Result<()> {
    let s = settings;
    if !(0.0..=1.0).contains(&s.weight) {
        anyhow::bail!("--weight must be a number in [0, 1] (see flank ensemble --help)");
    }
    if s.net_empties.is_empty() {
        anyhow::bail!("--net-empties: no empties counts given");
    }
    check_writable(&s.out, "output file")?;
    let read = |p: &Path| {
        std::fs::read(p).with_context(|| format!("cannot read weights file {}", p.display()))
    };
    let (base, other) = (read(&s.base)?, read(&s.other)?);
    let empties: Vec<u32> = s.net_empties.iter().map(|&e| e as u32).collect();
    let bytes = ensemble(&base, &other, &empties, s.weight).map_err(|e| {
        anyhow::anyhow!(
            "{e} (BASE = {}, OTHER = {})",
            s.base.display(),
            s.other.display()
        )
    })?;
    std::fs::write(&s.out, &bytes).with_context(|| format!("cannot write {}", s.out.display()))?;
    eprintln!(
        "ensemble: wrote {} ({} bytes): nets at {empties:?} empties = {:.2} x {} + {:.2} x {}",
        s.out.display(),
        bytes.len(),
        1.0 - s.weight,
        s.base.display(),
        s.weight,
        s.other.display()
    );
    Ok(())
}
