//! The refit's WTHOR label cache (`flank refit --wthor-cache`): the labelled WTHOR positions
//! of one refit, written once and read by later refits with the same labelling settings,
//! which then skip the labelling (its exact solves and children's searches are most of a
//! refit's time).

use std::path::Path;

use anyhow::{Context, Result, bail};

use super::splitmix;
use crate::othello::board::{Board, Score};

/// The first 8 bytes of a cache file.
const MAGIC: &[u8; 8] = b"FLANKRWC";

/// Bytes per position: player u64, opponent u64, label f64, game u32.
const RECORD: usize = 28;

/// Longest settings key a cache may hold, in bytes (a key is about 200).
const MAX_KEY: usize = 4096;

/// One labelled position: (board, side to move's view; label in discs; game number).
pub(super) type Labelled = (Board, f64, u32);

/// What the labelling of the WTHOR games gives a refit.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct WthorLabels {
    /// The labelled positions (children repeated by their weight), in labelling order.
    pub positions: Vec<Labelled>,
    /// Games read (the self-play games are numbered after them).
    pub games: u32,
    /// Positions whose label came from a search.
    pub searched: u64,
}

/// Checks, before any labelling, that the cache `path` is not the refit's output `out`,
/// and that a cache can be written there if none exists yet.
///
/// # Errors
/// `path` is `out`, or is not a regular file (a folder, a device, a FIFO), or there is no
/// cache at `path` and none can be written there
/// ([`crate::data::check_writable`]).
pub(super) fn check_usable(path: &Path, out: &Path) -> Result<()> {
    let same = match (std::path::absolute(path), std::path::absolute(out)) {
        (Ok(a), Ok(b)) => a == b,
        _ => path == out,
    };
    if same {
        bail!(
            "--wthor-cache {} is also the --out file: name two files",
            path.display()
        );
    }
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() {
            bail!("--wthor-cache {} is not a regular file", path.display());
        }
        return Ok(());
    }
    crate::data::check_writable(path).with_context(|| format!("cannot write {}", path.display()))
}

/// Writes `labels` to `path` under the settings `key` (magic, key length u32, key, games
/// u32, searched u64, count u64, then [`RECORD`] bytes per position; little-endian), by
/// [`crate::data::write_atomically_with`] (whole or not at all).
///
/// # Errors
/// A file that cannot be written.
pub(super) fn write(path: &Path, key: &str, labels: &WthorLabels) -> Result<()> {
    crate::data::write_atomically_with(path, |w| {
        w.write_all(MAGIC)?;
        w.write_all(&(key.len() as u32).to_le_bytes())?;
        w.write_all(key.as_bytes())?;
        w.write_all(&labels.games.to_le_bytes())?;
        w.write_all(&labels.searched.to_le_bytes())?;
        w.write_all(&(labels.positions.len() as u64).to_le_bytes())?;
        for (b, label, game) in &labels.positions {
            let mut rec = [0u8; RECORD];
            rec[..8].copy_from_slice(&b.player.to_le_bytes());
            rec[8..16].copy_from_slice(&b.opponent.to_le_bytes());
            rec[16..24].copy_from_slice(&label.to_le_bytes());
            rec[24..].copy_from_slice(&game.to_le_bytes());
            w.write_all(&rec)?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot write {}", path.display()))
}

/// Reads a cache written by [`write()`] whose settings key is `key`.
///
/// # Errors
/// A file that cannot be read, is not a cache (or is cut short), or was labelled with other
/// settings (both keys named).
pub(super) fn read(path: &Path, key: &str) -> Result<WthorLabels> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let bad = || anyhow::anyhow!("{} is not a flank refit WTHOR cache", path.display());
    let take = |at: usize, n: usize| bytes.get(at..at + n).ok_or_else(bad);
    if take(0, 8)? != MAGIC {
        return Err(bad());
    }
    let key_len = u32::from_le_bytes(take(8, 4)?.try_into().map_err(|_| bad())?) as usize;
    if key_len > MAX_KEY {
        return Err(bad());
    }
    let stored = std::str::from_utf8(take(12, key_len)?).map_err(|_| bad())?;
    if stored != key {
        // Name the settings that differ (a key is a list of "; "-separated settings).
        let asked: Vec<&str> = key.split("; ").collect();
        let had: Vec<&str> = stored.split("; ").collect();
        let differ: Vec<String> = had
            .iter()
            .zip(&asked)
            .filter(|(h, a)| h != a)
            .map(|(h, a)| format!("{h} (asked: {a})"))
            .collect();
        let differ = if differ.is_empty() || had.len() != asked.len() {
            format!("{stored} (asked: {key})")
        } else {
            differ.join(", ")
        };
        bail!(
            "{} was labelled with other settings: {differ}; delete it or name another --wthor-cache file",
            path.display()
        );
    }
    let at = 12 + key_len;
    let games = u32::from_le_bytes(take(at, 4)?.try_into().map_err(|_| bad())?);
    let searched = u64::from_le_bytes(take(at + 4, 8)?.try_into().map_err(|_| bad())?);
    let count = u64::from_le_bytes(take(at + 12, 8)?.try_into().map_err(|_| bad())?);
    let body = &bytes[at + 20..];
    if Some(body.len())
        != usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(RECORD))
    {
        return Err(bad());
    }
    let mut positions = Vec::with_capacity(body.len() / RECORD);
    for rec in body.chunks_exact(RECORD) {
        let word = |i: usize| u64::from_le_bytes(rec[i..i + 8].try_into().expect("8 bytes"));
        let board = Board::new(word(0), word(8)).ok_or_else(bad)?;
        let label = f64::from_bits(word(16));
        let game = u32::from_le_bytes(rec[24..].try_into().expect("4 bytes"));
        positions.push((board, label, game));
    }
    Ok(WthorLabels {
        positions,
        games,
        searched,
    })
}

/// A fingerprint of an evaluation (64-bit FNV-1a of its values, in discs, on the positions
/// of 32 fixed random games: about 1,900 positions): two evaluations with the same
/// fingerprint label alike, whatever file or build holds them. A refit's key holds the
/// active evaluation's (`fingerprint(&crate::eval::evaluate)`).
pub(super) fn fingerprint(evaluate: &dyn Fn(&Board) -> Score) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for game in 0..32u64 {
        let mut b = Board::start();
        let mut rng = splitmix(0xF1A4_C0DE ^ game);
        while !b.is_game_over() {
            if !b.has_moves() {
                b = b.pass();
                continue;
            }
            for byte in (evaluate(&b) as i16).to_le_bytes() {
                h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
            let moves: Vec<_> = b.legal_moves().collect();
            rng = splitmix(rng);
            b = b.make_move(moves[(rng % moves.len() as u64) as usize]);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> WthorLabels {
        let start = Board::start();
        let child = start.make_move(start.legal_moves().next().unwrap());
        WthorLabels {
            positions: vec![(start, 2.5, 0), (child, -0.1, 7), (child, -0.1, 7)],
            games: 9,
            searched: 2,
        }
    }

    #[test]
    fn a_cache_reads_back_what_was_written_under_its_key() {
        let path = std::env::temp_dir().join(format!("flank-rwc-{}.bin", std::process::id()));
        let labels = sample();
        write(&path, "empties 13-60; children every 4", &labels).unwrap();
        assert_eq!(
            read(&path, "empties 13-60; children every 4").unwrap(),
            labels
        );
        // Other settings are refused, on one line naming the setting that differs.
        let err = read(&path, "empties 13-60; children every 8")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("other settings: children every 4 (asked: children every 8);"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        // A file cut short, or one that is not a cache, is refused.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let err = read(&path, "empties 13-60; children every 4").unwrap_err();
        assert!(err.to_string().contains("is not a flank refit WTHOR cache"));
        std::fs::write(&path, b"FLANKSMP and more").unwrap();
        assert!(read(&path, "k").is_err());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_cache_is_not_the_output_and_its_folder_must_exist() {
        let dir = std::env::temp_dir().join(format!("flank-rwc-dir-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cache = dir.join("c.bin");
        assert!(check_usable(&cache, &dir.join("w.bin")).is_ok());
        let names = || {
            let mut n: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            n.sort();
            n
        };
        assert!(names().is_empty(), "nothing left behind: {:?}", names());
        let err = check_usable(&cache, &dir.join(".").join("c.bin")).unwrap_err();
        assert!(err.to_string().contains("is also the --out file"), "{err}");
        assert!(check_usable(&dir.join("none/c.bin"), &dir.join("w.bin")).is_err());
        let err = check_usable(&dir, &dir.join("w.bin")).unwrap_err();
        assert!(err.to_string().contains("is not a regular file"), "{err}");
        // A written cache leaves no temporary file, and is still not the output.
        write(&cache, "k", &sample()).unwrap();
        assert_eq!(names(), ["c.bin"]);
        assert!(check_usable(&cache, &cache).is_err());
        assert!(check_usable(&cache, &dir.join("w.bin")).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_fingerprint_tells_evaluations_apart() {
        let classic = crate::eval::classic::evaluate;
        assert_eq!(fingerprint(&classic), fingerprint(&classic));
        // One disc more at one empties count is another evaluation.
        let other = |b: &Board| classic(b) + Score::from(b.empties() == 40);
        assert_ne!(fingerprint(&classic), fingerprint(&other));
    }
}
