//! The midgame multi-ProbCut calibration of an evaluation: per empties bucket and depth pair,
//! the regression of a deep search's score on a shallow one's. It is fitted by
//! `flank mpc-calibrate` and stored in the weights file beside the weights it was measured
//! with; the search's ProbCut reads it.

use crate::othello::board::Score;

/// The deepest search depth (plies) a [`MpcTable`] holds fits for; deeper nodes use the fit of
/// this depth ([`MpcTable::fit`]).
pub const MID_MAX_DEPTH: usize = 16;

/// Empties buckets of a [`MpcTable`]: 6 empties each from 12 ([`mid_bucket`]).
pub const MID_BUCKETS: usize = 8;

/// Fewest samples behind a fit that [`MpcTable::fit`] uses; buckets with fewer borrow the
/// nearest bucket's fit of the same depth pair.
pub const MID_MIN_SAMPLES: u32 = 12;

/// The empties bucket of a node with `empties` empties: 0 for up to 17, then one per 6
/// empties, 7 from 54.
pub fn mid_bucket(empties: u32) -> usize {
    ((empties.saturating_sub(12) / 6) as usize).min(MID_BUCKETS - 1)
}

/// Plies of the shallow search that predicts a `depth`-ply midgame search: half the depth,
/// lowered by one where that differs in parity from `depth` (Othello scores alternate with
/// the side to move at the leaves, so pairs of equal parity agree best): 3→1, 4→2, 5→1,
/// 6→2, 7→3, 8→4, 9→3, 10→4, 11→5, 12→6 …; at least 1, below `depth`.
pub fn mid_shallow_depth(depth: i32) -> i32 {
    let mut d = depth / 2;
    if (depth - d) % 2 != 0 {
        d -= 1;
    }
    d.max(1).min(depth - 1)
}

/// One regression of a deep search's score on a shallow search's score: deep ≈ `a` ×
/// shallow + `b` (discs), with residual standard deviation `sigma` (discs) over `n` samples.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct MpcFit {
    /// Slope.
    pub a: f32,
    /// Intercept, in discs.
    pub b: f32,
    /// Standard deviation of the residual, in discs.
    pub sigma: f32,
    /// Number of samples (0: no fit).
    pub n: u32,
}

/// The midgame MPC calibration of one evaluation: per empties bucket ([`mid_bucket`]) and
/// depth pair (deep `D` in 1..=[`MID_MAX_DEPTH`], shallow `d` < `D`), the regression of the
/// `D`-ply score on the `d`-ply score ([`MpcFit`]). Fitted by `flank mpc-calibrate` on WTHOR
/// positions ([`MpcTable::from_samples`]) and stored in the weights file
/// (the weights file, version 4). The method is Buro's multi-ProbCut (1997), per phase and
/// depth pair as in Logistello.
#[derive(Clone, Debug, PartialEq)]
pub struct MpcTable {
    fits: Vec<MpcFit>,
}

/// Index of the pair (deep, shallow) among the pairs of one bucket.
fn pair_index(deep: usize, shallow: usize) -> usize {
    deep * (deep - 1) / 2 + shallow
}

const PAIRS: usize = MID_MAX_DEPTH * (MID_MAX_DEPTH + 1) / 2;

impl MpcTable {
    /// Fits the table from samples: each is a position's empties and its scores (discs, side
    /// to move's view) by depth, `scores[d]` the `d`-ply search (0 = static evaluation);
    /// depths missing from a sample are simply not used. Least squares per bucket and pair.
    pub fn from_samples(samples: &[(u32, Vec<Score>)]) -> MpcTable {
        let mut fits = vec![MpcFit::default(); MID_BUCKETS * PAIRS];
        for bucket in 0..MID_BUCKETS {
            for deep in 1..=MID_MAX_DEPTH {
                for shallow in 0..deep {
                    let pts: Vec<(f64, f64)> = samples
                        .iter()
                        .filter(|(e, v)| mid_bucket(*e) == bucket && v.len() > deep)
                        .map(|(_, v)| (v[shallow] as f64, v[deep] as f64))
                        .collect();
                    fits[bucket * PAIRS + pair_index(deep, shallow)] = regress(&pts);
                }
            }
        }
        MpcTable { fits }
    }

    /// The fit for a node with `empties` empties searched to `deep` plies, predicted by a
    /// `shallow`-ply search: that bucket's, or the nearest bucket's with at least
    /// [`MID_MIN_SAMPLES`] samples; a `deep` beyond [`MID_MAX_DEPTH`] uses the pair
    /// ([`MID_MAX_DEPTH`], `shallow` lowered by as much) with `sigma` 5 % larger per extra
    /// ply. `None` if no bucket has such a fit or the slope is not positive.
    pub fn fit(&self, empties: u32, deep: i32, shallow: i32) -> Option<MpcFit> {
        if deep < 1 || shallow < 0 || shallow >= deep {
            return None;
        }
        let extra = (deep as usize).saturating_sub(MID_MAX_DEPTH);
        let deep_c = deep as usize - extra;
        let shallow_c = (shallow as usize).checked_sub(extra)?;
        let home = mid_bucket(empties) as i32;
        for dist in 0..MID_BUCKETS as i32 {
            for bucket in [home - dist, home + dist] {
                if !(0..MID_BUCKETS as i32).contains(&bucket) {
                    continue;
                }
                let f = self.fits[bucket as usize * PAIRS + pair_index(deep_c, shallow_c)];
                if f.n >= MID_MIN_SAMPLES && f.a > 0.05 {
                    let grow = 1.0 + 0.05 * extra as f32;
                    return Some(MpcFit {
                        sigma: f.sigma * grow,
                        ..f
                    });
                }
            }
        }
        None
    }

    /// The table's bytes (little-endian): [`MID_BUCKETS`] and [`MID_MAX_DEPTH`] as u32, then
    /// per bucket, deep depth and shallow depth `a`, `b`, `sigma` (f32) and `n` (u32).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.fits.len() * 16);
        out.extend_from_slice(&(MID_BUCKETS as u32).to_le_bytes());
        out.extend_from_slice(&(MID_MAX_DEPTH as u32).to_le_bytes());
        for f in &self.fits {
            out.extend_from_slice(&f.a.to_le_bytes());
            out.extend_from_slice(&f.b.to_le_bytes());
            out.extend_from_slice(&f.sigma.to_le_bytes());
            out.extend_from_slice(&f.n.to_le_bytes());
        }
        out
    }

    /// Parses [`MpcTable::to_bytes`]; the error says what is wrong.
    pub fn from_bytes(b: &[u8]) -> Result<MpcTable, String> {
        let word =
            |k: usize| -> Option<[u8; 4]> { b.get(k..k + 4).map(|w| [w[0], w[1], w[2], w[3]]) };
        let (Some(buckets), Some(depth)) = (word(0), word(4)) else {
            return Err("MPC section is truncated".into());
        };
        let (buckets, depth) = (u32::from_le_bytes(buckets), u32::from_le_bytes(depth));
        if (buckets, depth) != (MID_BUCKETS as u32, MID_MAX_DEPTH as u32) {
            return Err(format!(
                "MPC section has {buckets} buckets to depth {depth}, this flank reads {MID_BUCKETS} to depth {MID_MAX_DEPTH}"
            ));
        }
        let want = 8 + MID_BUCKETS * PAIRS * 16;
        if b.len() != want {
            return Err(format!(
                "MPC section has {} bytes, expected {want}",
                b.len()
            ));
        }
        let f32_at = |k: usize| f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
        let fits = (0..MID_BUCKETS * PAIRS)
            .map(|i| {
                let k = 8 + i * 16;
                MpcFit {
                    a: f32_at(k),
                    b: f32_at(k + 4),
                    sigma: f32_at(k + 8),
                    n: u32::from_le_bytes([b[k + 12], b[k + 13], b[k + 14], b[k + 15]]),
                }
            })
            .collect::<Vec<_>>();
        if fits
            .iter()
            .any(|f| !(f.a.is_finite() && f.b.is_finite() && f.sigma.is_finite() && f.sigma >= 0.0))
        {
            return Err("MPC section holds a value that is not a finite number".into());
        }
        Ok(MpcTable { fits })
    }
}

/// Least-squares line through `pts` (x = shallow, y = deep) with the residual standard
/// deviation; no fit (n = 0) for fewer than 3 points or no spread in x.
fn regress(pts: &[(f64, f64)]) -> MpcFit {
    let n = pts.len() as f64;
    if pts.len() < 3 {
        return MpcFit::default();
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= 1e-9 {
        return MpcFit::default();
    }
    let a = sxy / sxx;
    let b = my - a * mx;
    let ss: f64 = pts.iter().map(|p| (p.1 - a * p.0 - b).powi(2)).sum();
    MpcFit {
        a: a as f32,
        b: b as f32,
        sigma: (ss / (n - 2.0)).sqrt() as f32,
        n: pts.len() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_depths_keep_parity_and_stay_below() {
        let got: Vec<i32> = (3..=16).map(mid_shallow_depth).collect();
        assert_eq!(got, [1, 2, 1, 2, 3, 4, 3, 4, 5, 6, 5, 6, 7, 8]);
    }

    #[test]
    fn mpc_table_fits_lines_and_survives_bytes() {
        // deep = 2 * shallow + 1 exactly at bucket 3 (30-35 empties) for the pair (5, 3);
        // residuals of +-1 around deep = shallow at pair (4, 2).
        let samples: Vec<(u32, Vec<Score>)> = (0..40)
            .map(|i| {
                let s3 = i - 20;
                let mut v = vec![0; 6];
                v[3] = s3;
                v[5] = 2 * s3 + 1;
                v[2] = s3;
                v[4] = s3 + if i % 2 == 0 { 1 } else { -1 };
                (32, v)
            })
            .collect();
        let t = MpcTable::from_samples(&samples);
        let f = t.fit(32, 5, 3).unwrap();
        assert!((f.a - 2.0).abs() < 1e-5 && (f.b - 1.0).abs() < 1e-4 && f.sigma < 1e-3);
        assert_eq!(f.n, 40);
        let g = t.fit(32, 4, 2).unwrap();
        assert!(
            (g.a - 1.0).abs() < 0.02 && (g.sigma - 1.0).abs() < 0.05,
            "{g:?}"
        );
        // Other buckets borrow the nearest fit; pairs without samples have none.
        assert_eq!(t.fit(59, 5, 3), Some(f));
        assert_eq!(t.fit(32, 8, 4), None);
        // Beyond the deepest pair: the shallow depth goes down as much, sigma grows 5 %/ply.
        let deep = t.fit(
            32,
            5 + MID_MAX_DEPTH as i32 - 5 + 2,
            3 + MID_MAX_DEPTH as i32 - 5 + 2,
        );
        assert_eq!(deep, None);
        let bytes = t.to_bytes();
        assert_eq!(MpcTable::from_bytes(&bytes), Ok(t.clone()));
        assert!(MpcTable::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut bad = bytes.clone();
        bad[8..12].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(MpcTable::from_bytes(&bad).is_err());
    }
}
