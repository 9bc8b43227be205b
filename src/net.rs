//! The residual network of the trained evaluation: a small NNUE-like net per game phase, on the
//! pattern features of [`crate::pattern`], that corrects the linear pattern sum.
//!
//! Shape (per phase that has a net): each of the [`FEATURES_PER_POSITION`] compact feature ids
//! of a position selects a learned row of [`HIDDEN`] values; the rows are summed with a bias,
//! passed through ReLU, and a dot product with the output weights plus an output bias gives a
//! correction in discs that is added to the linear pattern evaluation. It is trained on the
//! residual `label − linear evaluation` (see [`crate::train::train_nets`]), so the linear part
//! keeps what it does well and the net learns how features interact (which the sum of
//! independent pattern weights cannot). The idea is the "efficiently updatable" first layer of
//! Nasu's NNUE (2018), here without incremental update: the sum is recomputed per evaluation
//! from the indices the linear part reads anyway (65 rows of 32 `i16`, about 700 instructions
//! with AVX2).
//!
//! Fixed point: rows and the hidden bias are in 1/[`ACT_SCALE`] activation units, output
//! weights in 1/[`OUT_SCALE`], the output bias in 1/([`ACT_SCALE`]·[`OUT_SCALE`]) discs; the
//! correction is returned in 1/[`SCALE`] discs like the linear sum.

use crate::pattern::{FEATURES_PER_POSITION, LAYOUT, NUM_PHASES, SCALE};

/// Hidden units per net.
pub const HIDDEN: usize = 32;
/// Units per 1.0 of a row value, the hidden bias and a hidden activation.
pub const ACT_SCALE: i32 = 1024;
/// Units per 1.0 of an output weight.
pub const OUT_SCALE: i32 = 1024;

/// One row of the first layer (aligned to a 64-byte cache line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Row(pub [i16; HIDDEN]);

/// The net of one phase, quantised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseNet {
    /// One row per compact feature id ([`crate::pattern::Layout::compact_len`] rows).
    pub rows: Vec<Row>,
    /// Hidden bias, 1/[`ACT_SCALE`].
    pub bias: [i16; HIDDEN],
    /// Output weights, 1/[`OUT_SCALE`].
    pub out: [i16; HIDDEN],
    /// Output bias, 1/([`ACT_SCALE`]·[`OUT_SCALE`]) discs.
    pub out_bias: i32,
}

/// A float net as training produces it (the same shape as [`PhaseNet`], unscaled).
#[derive(Clone, Debug)]
pub struct FloatNet {
    /// `compact_len × HIDDEN` row values, feature-major.
    pub rows: Vec<f32>,
    /// Hidden bias.
    pub bias: [f32; HIDDEN],
    /// Output weights.
    pub out: [f32; HIDDEN],
    /// Output bias, discs.
    pub out_bias: f32,
}

impl FloatNet {
    /// The correction in discs for the compact feature ids `ids` (the training forward pass),
    /// and the hidden pre-activations written to `h`.
    pub fn forward(&self, ids: &[u32; FEATURES_PER_POSITION], h: &mut [f32; HIDDEN]) -> f32 {
        *h = self.bias;
        for &id in ids {
            let r = &self.rows[id as usize * HIDDEN..id as usize * HIDDEN + HIDDEN];
            for (a, b) in h.iter_mut().zip(r) {
                *a += b;
            }
        }
        let mut y = self.out_bias;
        for (w, a) in self.out.iter().zip(h.iter()) {
            y += w * a.max(0.0);
        }
        y
    }

    /// Rounds to fixed point (values beyond the `i16` range are clamped).
    pub fn quantise(&self) -> PhaseNet {
        let q = |x: f32, s: i32| (x * s as f32).round().clamp(-32767.0, 32767.0) as i16;
        let rows = self
            .rows
            .chunks_exact(HIDDEN)
            .map(|r| {
                let mut row = [0i16; HIDDEN];
                for (d, &x) in row.iter_mut().zip(r) {
                    *d = q(x, ACT_SCALE);
                }
                Row(row)
            })
            .collect();
        PhaseNet {
            rows,
            bias: self.bias.map(|x| q(x, ACT_SCALE)),
            out: self.out.map(|x| q(x, OUT_SCALE)),
            out_bias: (self.out_bias as f64 * (ACT_SCALE as f64 * OUT_SCALE as f64)).round() as i32,
        }
    }
}

/// Shift from 1/(ACT_SCALE·OUT_SCALE) discs to 1/SCALE discs.
const OUT_SHIFT: u32 = (ACT_SCALE * OUT_SCALE / SCALE).trailing_zeros();

impl PhaseNet {
    /// The correction in 1/[`SCALE`] discs for the raw pattern indices `raw` (as
    /// [`crate::pattern::raw_indices`] writes them).
    #[inline]
    pub fn correction(&self, raw: &[u32; FEATURES_PER_POSITION]) -> i32 {
        let map = &LAYOUT.raw_to_compact;
        let mut h = [0i32; HIDDEN];
        for (a, &b) in h.iter_mut().zip(&self.bias) {
            *a = b as i32;
        }
        for &i in raw {
            let row = &self.rows[map[i as usize] as usize].0;
            for (a, &b) in h.iter_mut().zip(row) {
                *a += b as i32;
            }
        }
        let mut y = self.out_bias as i64;
        for (&w, &a) in self.out.iter().zip(&h) {
            y += w as i64 * a.max(0) as i64;
        }
        let half = 1i64 << (OUT_SHIFT - 1);
        ((y + half) >> OUT_SHIFT) as i32
    }
}

/// The nets of all phases (`None` where a phase has none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nets {
    /// Indexed by phase; length [`NUM_PHASES`] (or empty: no nets).
    pub phases: Vec<Option<PhaseNet>>,
}

impl Nets {
    /// No nets: the evaluation is the linear pattern sum.
    pub fn none() -> Nets {
        Nets { phases: Vec::new() }
    }

    /// The net of phase `ph`, if any.
    #[inline]
    pub fn get(&self, ph: usize) -> Option<&PhaseNet> {
        self.phases.get(ph).and_then(|n| n.as_ref())
    }

    /// Puts `net` in phase `ph` (< [`NUM_PHASES`]), replacing any net there.
    pub fn set(&mut self, ph: usize, net: PhaseNet) {
        if self.phases.is_empty() {
            self.phases = vec![None; NUM_PHASES];
        }
        self.phases[ph] = Some(net);
    }

    /// Bytes of one serialised net in [`Nets::to_bytes`] (phase, output bias, hidden bias,
    /// output weights, rows).
    pub fn net_bytes() -> usize {
        8 + 4 * HIDDEN + 2 * HIDDEN * LAYOUT.compact_len
    }

    /// The phases that have a net.
    pub fn phase_list(&self) -> Vec<usize> {
        (0..self.phases.len())
            .filter(|&p| self.get(p).is_some())
            .collect()
    }

    /// Serialises the nets (the net section of a weights file, see [`crate::weights`]):
    /// `u32` hidden units, `u32` count, then per net `u32` phase, `i32` output bias, hidden
    /// bias and output weights (`i16` each), and the rows as `i16`, unit-major (all features'
    /// values for unit 0, then unit 1, …: mostly zeros, which compress well).
    pub fn to_bytes(&self) -> Vec<u8> {
        let list = self.phase_list();
        let mut b = Vec::new();
        b.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
        b.extend_from_slice(&(list.len() as u32).to_le_bytes());
        for ph in list {
            let Some(n) = self.get(ph) else { continue };
            b.extend_from_slice(&(ph as u32).to_le_bytes());
            b.extend_from_slice(&n.out_bias.to_le_bytes());
            for v in n.bias.iter().chain(&n.out) {
                b.extend_from_slice(&v.to_le_bytes());
            }
            for k in 0..HIDDEN {
                for r in &n.rows {
                    b.extend_from_slice(&r.0[k].to_le_bytes());
                }
            }
        }
        b
    }

    /// Parses [`Nets::to_bytes`]; the error says what is wrong.
    pub fn from_bytes(b: &[u8]) -> Result<Nets, String> {
        let word = |k: usize| -> Result<u32, String> {
            b.get(k..k + 4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .ok_or_else(|| "net section is truncated".to_string())
        };
        let hidden = word(0)?;
        if hidden as usize != HIDDEN {
            return Err(format!(
                "net has {hidden} hidden units, this flank reads {HIDDEN}"
            ));
        }
        let count = word(4)? as usize;
        if count > NUM_PHASES {
            return Err(format!("net section lists {count} nets"));
        }
        let n = LAYOUT.compact_len;
        let per_net = Nets::net_bytes();
        let mut nets = Nets::none();
        let mut at = 8usize;
        for _ in 0..count {
            let chunk = b.get(at..at + per_net).ok_or("net section is truncated")?;
            let i16_at = |k: usize| i16::from_le_bytes([chunk[k], chunk[k + 1]]);
            let ph = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]) as usize;
            if ph >= NUM_PHASES || nets.get(ph).is_some() {
                return Err(format!("net section has a bad or repeated phase {ph}"));
            }
            let out_bias = i32::from_le_bytes([chunk[4], chunk[5], chunk[6], chunk[7]]);
            let mut bias = [0i16; HIDDEN];
            let mut out = [0i16; HIDDEN];
            for k in 0..HIDDEN {
                bias[k] = i16_at(8 + 2 * k);
                out[k] = i16_at(8 + 2 * HIDDEN + 2 * k);
            }
            let base = 8 + 4 * HIDDEN;
            let mut rows = vec![Row([0; HIDDEN]); n];
            for k in 0..HIDDEN {
                for (f, r) in rows.iter_mut().enumerate() {
                    r.0[k] = i16_at(base + 2 * (k * n + f));
                }
            }
            nets.set(
                ph,
                PhaseNet {
                    rows,
                    bias,
                    out,
                    out_bias,
                },
            );
            at += per_net;
        }
        if at != b.len() {
            return Err(format!(
                "net section has {} unexpected trailing bytes",
                b.len().saturating_sub(at)
            ));
        }
        Ok(nets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::pattern::{compact_features, raw_indices};

    fn float_net(seed: u32) -> FloatNet {
        let n = LAYOUT.compact_len;
        let mut x = seed.wrapping_mul(2_654_435_761).max(1);
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 2001) as f32 / 1000.0 - 1.0
        };
        let rows = (0..n * HIDDEN).map(|_| next() * 0.2).collect();
        let mut bias = [0.0; HIDDEN];
        let mut out = [0.0; HIDDEN];
        for k in 0..HIDDEN {
            bias[k] = next() * 0.5;
            out[k] = next();
        }
        FloatNet {
            rows,
            bias,
            out,
            out_bias: 0.75,
        }
    }

    /// The fixed-point correction follows the float forward pass within rounding.
    #[test]
    fn quantised_net_matches_float() {
        let f = float_net(7);
        let q = f.quantise();
        let mut b = Board::start();
        for step in 0..40 {
            let mv = b
                .legal_moves()
                .nth(step % 3)
                .or_else(|| b.legal_moves().next());
            b = match mv {
                Some(m) => b.make_move(m),
                None => Board::start(),
            };
            let (mut raw, mut ids) = ([0; FEATURES_PER_POSITION], [0; FEATURES_PER_POSITION]);
            raw_indices(&b, &mut raw);
            compact_features(&b, &mut ids);
            let mut h = [0.0; HIDDEN];
            let want = f.forward(&ids, &mut h) * SCALE as f32;
            let got = q.correction(&raw) as f32;
            assert!((want - got).abs() <= 1.5, "{want} vs {got} at {b:?}");
        }
    }

    #[test]
    fn bytes_round_trip_and_reject_damage() {
        let mut nets = Nets::none();
        nets.set(2, float_net(3).quantise());
        let bytes = nets.to_bytes();
        assert_eq!(Nets::from_bytes(&bytes), Ok(nets.clone()));
        assert!(Nets::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut more = bytes.clone();
        more.push(0);
        assert!(Nets::from_bytes(&more).is_err());
        let mut bad = bytes.clone();
        bad[0] = 16;
        assert!(Nets::from_bytes(&bad).is_err());
        assert_eq!(Nets::from_bytes(&Nets::none().to_bytes()), Ok(Nets::none()));
    }
}
