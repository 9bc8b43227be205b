//! The samples cache file (`--samples`): labelled positions written by one run and read by
//! the next, which then skips WTHOR labelling, self-play and the search leaves.

use std::path::Path;

use anyhow::{Context, Result};

use super::Sample;
use crate::othello::board::Board;

/// The first 8 bytes of a samples file.
const SAMPLES_MAGIC: &[u8; 8] = b"FLANKSMP";

/// Writes labelled samples to `path` (magic, sample count u64, WTHOR sample count u64, then
/// per sample: player u64, opponent u64, label i8, game u32; little-endian).
pub(super) fn write_samples(path: &Path, samples: &[Sample], wthor_positions: usize) -> Result<()> {
    let mut buf = Vec::with_capacity(24 + samples.len() * 21);
    buf.extend_from_slice(SAMPLES_MAGIC);
    buf.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    buf.extend_from_slice(&(wthor_positions as u64).to_le_bytes());
    for s in samples {
        buf.extend_from_slice(&s.board.player.to_le_bytes());
        buf.extend_from_slice(&s.board.opponent.to_le_bytes());
        buf.push(s.label as u8);
        buf.extend_from_slice(&s.game.to_le_bytes());
    }
    std::fs::write(path, buf).with_context(|| format!("cannot write {}", path.display()))
}

/// Reads samples written by [`write_samples`]; returns them and the WTHOR sample count.
pub(super) fn read_samples(path: &Path) -> Result<(Vec<Sample>, usize)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let bad = || anyhow::anyhow!("{} is not a flank samples file", path.display());
    if bytes.len() < 24 || &bytes[..8] != SAMPLES_MAGIC {
        return Err(bad());
    }
    let u64_at = |at: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(a)
    };
    let n = u64_at(8) as usize;
    let wthor = u64_at(16) as usize;
    if bytes.len() != 24 + n.checked_mul(21).ok_or_else(bad)? || wthor > n {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let at = 24 + 21 * i;
        let board = Board::new(u64_at(at), u64_at(at + 8)).ok_or_else(bad)?;
        let label = bytes[at + 16] as i8;
        let game = u32::from_le_bytes([
            bytes[at + 17],
            bytes[at + 18],
            bytes[at + 19],
            bytes[at + 20],
        ]);
        out.push(Sample { board, label, game });
    }
    Ok((out, wthor))
}
