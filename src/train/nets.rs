//! Residual nets: small networks on the pattern features fitted by SGD to what the linear
//! fit leaves (`label − linear evaluation`).

use indicatif::ProgressBar;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;
use rayon::prelude::*;

use super::progress::bar;
use super::{Sample, TrainOptions, is_validation, splitmix};
use crate::eval::features::{FEATURES_PER_POSITION, LAYOUT, SCALE, compact_features};
use crate::eval::net::{FloatNet, Nets, PhaseNet, empties_slot, slot_empties};
use crate::eval::pattern::PatternEval;
use crate::othello::board::Board;

/// Quality of one residual net on its held-out samples.
#[derive(Clone, Debug)]
pub struct NetReport {
    /// The net's slot ([`crate::eval::net::NUM_SLOTS`]: a phase, or `NUM_PHASES + empties`).
    pub slot: usize,
    /// The empties it applies to (inclusive range).
    pub empties: (u32, u32),
    /// Training samples (the slot's empties, training games).
    pub train: usize,
    /// Validation samples (the slot's empties, held-out games).
    pub valid: usize,
    /// Mean absolute error (discs) of the linear pattern evaluation alone, rounded and clamped
    /// as the search sees it.
    pub linear_mae: f64,
    /// The same with the quantised net's correction added.
    pub net_mae: f64,
}

/// Trains one residual net ([`crate::eval::net`]) for `slot` by plain SGD on the residual
/// `label − linear evaluation` (absolute-error-like loss: the gradient is the error clipped
/// to ±[`NET_CLIP`] discs). Single-threaded and seeded, so deterministic.
fn train_net(
    samples: &[Sample],
    opts: &TrainOptions,
    linear: &PatternEval,
    slot: usize,
    pb: &ProgressBar,
) -> (PhaseNet, NetReport) {
    let n = LAYOUT.compact_len;
    let (lo, hi) = slot_empties(slot);
    let in_slot = |s: &Sample| (lo..=hi).contains(&s.board.empties());
    // Boards, not feature ids (16 bytes against 260 a sample): the ids are read again in
    // every epoch, which costs little beside the SGD step and lets a net train on 10^8 leaves.
    let mut train: Vec<(Board, f32)> = samples
        .iter()
        .filter(|s| in_slot(s) && !is_validation(opts, s.game))
        .map(|s| {
            let base = linear.linear_fine(&s.board) as f32 / SCALE as f32;
            (s.board, s.label as f32 - base)
        })
        .collect();
    let mut rng = ChaCha12Rng::seed_from_u64(splitmix(opts.seed ^ (0x4E45_5400 + slot as u64)));
    let hidden = opts.net_hidden;
    let mut net = FloatNet {
        hidden,
        rows: (0..n * hidden)
            .map(|_| (rng.r#gen::<f32>() - 0.5) * 0.02)
            .collect(),
        bias: vec![0.0; hidden],
        out: (0..hidden)
            .map(|_| (rng.r#gen::<f32>() - 0.5) * 0.2)
            .collect(),
        out_bias: 0.0,
    };
    let mut touched = vec![false; n];
    let epochs = opts.net_epochs;
    for ep in 0..epochs {
        let lr = opts.net_rate * (1.0 - ep as f32 / epochs as f32).max(0.1);
        train.shuffle(&mut rng);
        match hidden {
            192 => sgd_epoch::<192>(&mut net, &train, lr, &mut touched),
            128 => sgd_epoch::<128>(&mut net, &train, lr, &mut touched),
            64 => sgd_epoch::<64>(&mut net, &train, lr, &mut touched),
            _ => sgd_epoch::<32>(&mut net, &train, lr, &mut touched),
        }
        pb.inc(1);
    }
    // Rows no training sample reached keep their random start: zero them (no noise, and
    // the file compresses).
    for (id, t) in touched.iter().enumerate() {
        if !t {
            net.rows[id * hidden..id * hidden + hidden].fill(0.0);
        }
    }
    let q = net
        .quantise()
        .expect("--net-hidden is one of the widths a net may have");
    let mut nets = Nets::none();
    nets.set(slot, q.clone());
    let with = linear.clone().with_nets(nets);
    let (mut la, mut na, mut count) = (0.0, 0.0, 0usize);
    for s in samples
        .iter()
        .filter(|s| in_slot(s) && is_validation(opts, s.game))
    {
        la += (s.label as i32 - linear.evaluate(&s.board)).abs() as f64;
        na += (s.label as i32 - with.evaluate(&s.board)).abs() as f64;
        count += 1;
    }
    let m = count.max(1) as f64;
    let report = NetReport {
        slot,
        empties: (lo, hi),
        train: train.len(),
        valid: count,
        linear_mae: la / m,
        net_mae: na / m,
    };
    (q, report)
}

/// One SGD epoch over `train` (positions and residual target) for a net of `H` hidden units
/// (`net.hidden` must be `H`; the width is a constant so the inner loops unroll), marking
/// the feature rows it touches.
fn sgd_epoch<const H: usize>(
    net: &mut FloatNet,
    train: &[(Board, f32)],
    lr: f32,
    touched: &mut [bool],
) {
    debug_assert_eq!(net.hidden, H);
    let mut h = [0f32; H];
    let mut f = [0u32; FEATURES_PER_POSITION];
    for (b, r) in train {
        compact_features(b, &mut f);
        h.copy_from_slice(&net.bias);
        for &id in &f {
            let row = &net.rows[id as usize * H..id as usize * H + H];
            for (a, b) in h.iter_mut().zip(row) {
                *a += b;
            }
        }
        let mut y = net.out_bias;
        for (w, a) in net.out.iter().zip(&h) {
            y += w * a.max(0.0);
        }
        let g = (y - r).clamp(-NET_CLIP, NET_CLIP);
        net.out_bias -= lr * g;
        let mut gh = [0f32; H];
        for k in 0..H {
            if h[k] > 0.0 {
                gh[k] = g * net.out[k];
                net.out[k] -= lr * g * h[k];
            }
        }
        for (b, d) in net.bias.iter_mut().zip(&gh) {
            *b -= lr * d;
        }
        for &id in &f {
            touched[id as usize] = true;
            let row = &mut net.rows[id as usize * H..id as usize * H + H];
            for (w, d) in row.iter_mut().zip(&gh) {
                *w -= lr * d;
            }
        }
    }
}

/// Gradient clip of the nets' SGD, in discs.
const NET_CLIP: f32 = 8.0;

/// Trains the residual nets of [`TrainOptions::net_phases`] and
/// [`TrainOptions::net_empties`] on top of the linear evaluation `linear` (one net per slot,
/// the slots in parallel, each deterministic). A net whose held-out error is not below the
/// linear evaluation's is dropped (its report stays, sorted by slot).
pub fn train_nets(
    samples: &[Sample],
    opts: &TrainOptions,
    linear: &PatternEval,
) -> (Nets, Vec<NetReport>) {
    let slots = net_slots(opts);
    let pb = bar((slots.len() * opts.net_epochs) as u64, "nets");
    let trained: Vec<(usize, PhaseNet, NetReport)> = slots
        .par_iter()
        .map(|&slot| {
            let (net, rep) = train_net(samples, opts, linear, slot, &pb);
            (slot, net, rep)
        })
        .collect();
    pb.finish_and_clear();
    let mut nets = Nets::none();
    let mut reports = Vec::new();
    for (ph, net, rep) in trained {
        // A net that does not lower the held-out error is not worth its cost.
        if rep.net_mae < rep.linear_mae {
            nets.set(ph, net);
        }
        reports.push(rep);
    }
    reports.sort_by_key(|r| r.slot);
    (nets, reports)
}

/// The net slots a run trains: its phases, then its empties counts.
pub fn net_slots(opts: &TrainOptions) -> Vec<usize> {
    let mut v: Vec<usize> = opts.net_phases.clone();
    v.extend(opts.net_empties.iter().map(|&e| empties_slot(e)));
    v
}
