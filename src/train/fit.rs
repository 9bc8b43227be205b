//! The linear fit: per-phase ridge regression of the pattern weights, solved by
//! Jacobi-preconditioned conjugate gradients on the normal equations.

use indicatif::ProgressBar;
use rayon::prelude::*;

use super::progress::bar;
use super::{Sample, TrainOptions, is_validation};
use crate::eval::classic;
use crate::eval::features::{
    FEATURES_PER_POSITION, LAYOUT, NUM_PHASES, PHASE_WIDTH, SCALE, compact_features, phase,
};
use crate::eval::pattern::PatternEval;

/// Training samples per empties count the linear fit uses at most (evenly spaced over the
/// samples of that count): the search leaves (6 M per count at 2-9 empties by default) are
/// for the nets. The linear fit gains nothing from more than about 1 M per count: its
/// held-out error per phase (the `valid-MAE` column of `flank train`) is the same with 1.5 M
/// and with 5.9 M search leaves at 3-8 empties (`--leaf-samples`).
pub const LINEAR_CAP: usize = 1_250_000;

/// Fit quality of one phase, in discs.
#[derive(Clone, Debug)]
pub struct PhaseReport {
    /// Phase number.
    pub phase: usize,
    /// Empties covered (inclusive range).
    pub empties: (u32, u32),
    /// Training samples (phase window, training games).
    pub train: usize,
    /// Validation samples (phase bucket, held-out games).
    pub valid: usize,
    /// Root mean square error on the training samples (unquantised weights).
    pub train_rmse: f64,
    /// Mean absolute error of the quantised, rounded evaluation on the validation samples.
    pub valid_mae: f64,
    /// Root mean square error of the same.
    pub valid_rmse: f64,
    /// Mean absolute error of the classic evaluation on the validation samples, for scale.
    pub classic_mae: f64,
}

/// Fixed number of sample chunks per pass (the reduction order does not depend on threads).
const CHUNKS: usize = 16;

/// The compact feature ids of one position.
type Feats = [u32; FEATURES_PER_POSITION];

/// Σ over chunks of per-chunk vectors, in chunk order: `Aᵀ (A p)` (or `Aᵀ v` with `v` given).
fn ata(feats: &[Feats], p: &[f64], v: Option<&[f64]>, n: usize) -> Vec<f64> {
    let size = feats.len().div_ceil(CHUNKS).max(1);
    let parts: Vec<Vec<f64>> = feats
        .par_chunks(size)
        .enumerate()
        .map(|(c, chunk)| {
            let mut q = vec![0.0; n];
            for (j, f) in chunk.iter().enumerate() {
                let s = match v {
                    Some(v) => v[c * size + j],
                    None => f.iter().map(|&i| p[i as usize]).sum(),
                };
                for &i in f {
                    q[i as usize] += s;
                }
            }
            q
        })
        .collect();
    let mut q = vec![0.0; n];
    for part in parts {
        for (a, b) in q.iter_mut().zip(part) {
            *a += b;
        }
    }
    q
}

/// Minimises Σ (y − A x)² + λ ‖x − prior‖² by preconditioned conjugate gradients.
fn solve_phase(
    feats: &[Feats],
    y: &[f64],
    prior: &[f64],
    lambda: f64,
    iterations: usize,
    pb: &ProgressBar,
) -> Vec<f64> {
    let n = prior.len();
    // Residual targets against the prior; solve for the change d.
    let resid: Vec<f64> = feats
        .par_iter()
        .zip(y)
        .map(|(f, &t)| t - f.iter().map(|&i| prior[i as usize]).sum::<f64>())
        .collect();
    let b = ata(feats, prior, Some(&resid), n);
    let mut diag = vec![lambda; n];
    for f in feats {
        for &i in f {
            diag[i as usize] += 1.0;
        }
    }
    let mut d = vec![0.0; n];
    let mut r = b.clone();
    let mut z: Vec<f64> = r.iter().zip(&diag).map(|(r, m)| r / m).collect();
    let mut p = z.clone();
    let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
    let rz0 = rz.max(1e-300);
    for _ in 0..iterations {
        pb.inc(1);
        if rz <= rz0 * 1e-10 {
            break;
        }
        let mut q = ata(feats, &p, None, n);
        for (qi, pi) in q.iter_mut().zip(&p) {
            *qi += lambda * pi;
        }
        let pq: f64 = p.iter().zip(&q).map(|(a, b)| a * b).sum();
        if pq <= 0.0 {
            break;
        }
        let alpha = rz / pq;
        for i in 0..n {
            d[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = r[i] / diag[i];
        }
        let rz_new: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        let beta = rz_new / rz;
        rz = rz_new;
        for i in 0..n {
            p[i] = z[i] + beta * p[i];
        }
    }
    d.iter().zip(prior).map(|(d, p)| d + p).collect()
}

/// Fits one phase's weights to `train` by ridge regression towards `prior` (weights in discs,
/// compact layout) with strength `lambda`; returns the new weights in discs and the training
/// RMSE. The step [`fit`] takes per phase, for a refit of chosen phases
/// ([`crate::train::refit`]).
pub(crate) fn fit_one_phase(
    train: &[(crate::othello::board::Board, f64)],
    prior: &[f64],
    lambda: f64,
    iterations: usize,
    pb: &ProgressBar,
) -> (Vec<f64>, f64) {
    let feats: Vec<Feats> = train
        .par_iter()
        .map(|(b, _)| {
            let mut f = [0u32; FEATURES_PER_POSITION];
            compact_features(b, &mut f);
            f
        })
        .collect();
    let y: Vec<f64> = train.iter().map(|&(_, t)| t).collect();
    let x = solve_phase(&feats, &y, prior, lambda, iterations, pb);
    let mse = feats
        .par_iter()
        .zip(&y)
        .map(|(f, t)| {
            let e = t - f.iter().map(|&i| x[i as usize]).sum::<f64>();
            e * e
        })
        .sum::<f64>()
        / feats.len().max(1) as f64;
    (x, mse.sqrt())
}

/// `x` discs as a weight in [`SCALE`] units, rounded and clamped to `i16`.
pub(crate) fn quantise(x: f64) -> i16 {
    (x * SCALE as f64).round().clamp(-32767.0, 32767.0) as i16
}

/// Fits the weights to `samples`; returns the compact quantised weights (`phase *
/// compact_len + id`) and the per-phase report. Phases are fitted from the middle phase
/// outwards, each regularised towards the previous one's weights.
pub fn fit(samples: &[Sample], opts: &TrainOptions) -> (Vec<i16>, Vec<PhaseReport>) {
    let n = LAYOUT.compact_len;
    let mut weights = vec![0i16; NUM_PHASES * n];
    let mut solved: Vec<Option<Vec<f64>>> = vec![None; NUM_PHASES];
    let mid = NUM_PHASES / 2;
    let order: Vec<(usize, Option<usize>)> = std::iter::once((mid, None))
        .chain((0..mid).rev().map(|p| (p, Some(p + 1))))
        .chain((mid + 1..NUM_PHASES).map(|p| (p, Some(p - 1))))
        .collect();
    let pb = bar((NUM_PHASES * opts.iterations) as u64, "fit");
    let mut reports = Vec::new();
    for (ph, from) in order {
        // The phase's own empties plus half a phase width either side (inclusive).
        let lo = (ph as u32 * PHASE_WIDTH).saturating_sub(PHASE_WIDTH / 2);
        let hi = ph as u32 * PHASE_WIDTH + PHASE_WIDTH - 1 + PHASE_WIDTH / 2;
        let train: Vec<&Sample> = samples
            .iter()
            .filter(|s| {
                let e = s.board.empties();
                e >= lo && (e <= hi || (ph == NUM_PHASES - 1)) && !is_validation(opts, s.game)
            })
            .collect();
        let train: Vec<(crate::othello::board::Board, f64)> = cap_per_empties(train, LINEAR_CAP)
            .iter()
            .map(|s| (s.board, s.label as f64))
            .collect();
        let prior = match from.and_then(|f| solved[f].clone()) {
            Some(p) => p,
            None => vec![0.0; n],
        };
        let (x, rmse) = fit_one_phase(&train, &prior, opts.lambda, opts.iterations, &pb);
        for (i, &v) in x.iter().enumerate() {
            weights[ph * n + i] = quantise(v);
        }
        solved[ph] = Some(x);
        reports.push(PhaseReport {
            phase: ph,
            empties: (
                ph as u32 * PHASE_WIDTH,
                if ph == NUM_PHASES - 1 {
                    60
                } else {
                    ph as u32 * PHASE_WIDTH + PHASE_WIDTH - 1
                },
            ),
            train: train.len(),
            valid: 0,
            train_rmse: rmse,
            valid_mae: 0.0,
            valid_rmse: 0.0,
            classic_mae: 0.0,
        });
    }
    pb.finish_and_clear();
    reports.sort_by_key(|r| r.phase);
    if let Some(ev) = PatternEval::from_compact(&weights) {
        for r in reports.iter_mut() {
            let valid: Vec<&Sample> = samples
                .iter()
                .filter(|s| phase(s.board.empties()) == r.phase && is_validation(opts, s.game))
                .collect();
            let (ae, se, ce) = valid
                .par_iter()
                .map(|s| {
                    let e = (s.label as i32 - ev.evaluate(&s.board)) as f64;
                    let c = (s.label as i32 - classic::evaluate(&s.board)) as f64;
                    (e.abs(), e * e, c.abs())
                })
                .reduce(|| (0.0, 0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
            let m = valid.len().max(1) as f64;
            r.valid = valid.len();
            r.valid_mae = ae / m;
            r.valid_rmse = (se / m).sqrt();
            r.classic_mae = ce / m;
        }
    }
    (weights, reports)
}

/// At most `cap` of `samples` per empties count, evenly spaced among those of that count
/// (in their order), the order otherwise kept.
fn cap_per_empties(samples: Vec<&Sample>, cap: usize) -> Vec<&Sample> {
    let mut count = [0usize; 61];
    for s in &samples {
        count[s.board.empties() as usize] += 1;
    }
    if count.iter().all(|&c| c <= cap) {
        return samples;
    }
    let mut seen = [0usize; 61];
    samples
        .into_iter()
        .filter(|s| {
            let e = s.board.empties() as usize;
            let (i, n) = (seen[e], count[e]);
            seen[e] += 1;
            // Keep sample i of n when it starts a new one of `cap` equal strides.
            n <= cap || (i * cap) / n != ((i + 1) * cap) / n
        })
        .collect()
}
