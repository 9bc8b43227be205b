//! The residual network of the trained evaluation: a small NNUE-like net per empties count (or
//! per game phase), on the pattern features of [`crate::eval::features`], that corrects the linear
//! pattern sum.
//!
//! Shape (per slot that has a net, see [`NUM_SLOTS`]): each of the [`FEATURES_PER_POSITION`]
//! compact feature ids of a position selects a learned row of 32, 64 or 128 values (the net's width,
//! [`WIDTHS`]); the rows are summed with a bias,
//! passed through ReLU, and a dot product with the output weights plus an output bias gives a
//! correction in discs that is added to the linear pattern evaluation. It is trained on the
//! residual `label − linear evaluation` (by `flank train`), so the linear part
//! keeps what it does well and the net learns how features interact (which the sum of
//! independent pattern weights cannot). The idea is the "efficiently updatable" first layer of
//! Nasu's NNUE (2018), here without incremental update: the sum is recomputed per evaluation
//! from the indices the linear part reads anyway (65 rows of 32 `i16`, about 700 instructions
//! with AVX2; twice that at 64 units, four times at 128).
//!
//! Fixed point: rows and the hidden bias are in 1/[`ACT_SCALE`] activation units, output
//! weights in 1/[`OUT_SCALE`], the output bias in 1/([`ACT_SCALE`]·[`OUT_SCALE`]) discs; the
//! correction is returned in 1/[`SCALE`] discs like the linear sum.

use crate::eval::features::{FEATURES_PER_POSITION, LAYOUT, NUM_PHASES, PHASE_WIDTH, SCALE, phase};

/// Net slots: slot `p` < [`NUM_PHASES`] holds the net of phase `p` (all its empties), slot
/// `NUM_PHASES + e` the net of exactly `e` empties (0-60), which takes precedence over its
/// phase's net. One net per empties count learns the parity of the empties, which decides
/// much of the result this close to the end: at 5 empties a net of its own, trained on 6.7 M
/// positions, found the best move of a depth-9 search in 87.85 % of 4,000 held-out positions,
/// a net for 4-5 empties on the same data 86.55 % (docs/eval.md, "One net per empties
/// count").
pub const NUM_SLOTS: usize = NUM_PHASES + 61;

/// The slot of the net for exactly `empties` empties (0-60).
pub const fn empties_slot(empties: u32) -> usize {
    NUM_PHASES + empties as usize
}

/// The empties (inclusive range) a net in `slot` applies to.
pub fn slot_empties(slot: usize) -> (u32, u32) {
    if slot < NUM_PHASES {
        let lo = slot as u32 * PHASE_WIDTH;
        let hi = if slot == NUM_PHASES - 1 {
            60
        } else {
            lo + PHASE_WIDTH - 1
        };
        (lo, hi)
    } else {
        let e = (slot - NUM_PHASES) as u32;
        (e, e)
    }
}

/// Hidden units of a net unless a training run asks for more (`flank train --net-hidden`).
pub const HIDDEN: usize = 32;
/// The widths (hidden units) a net may have: [`HIDDEN`], 64 or 128 (what `flank train`
/// trains), or 192 (the average of a 64- and a 128-unit net, [`PhaseNet::average`]).
pub const WIDTHS: [usize; 4] = [32, 64, 128, 192];
/// Units per 1.0 of a row value, the hidden bias and a hidden activation.
pub const ACT_SCALE: i32 = 1024;
/// Units per 1.0 of an output weight.
pub const OUT_SCALE: i32 = 1024;

/// One row of the first layer, `H` values (aligned to a 64-byte cache line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Row<const H: usize>(pub [i16; H]);

/// A quantised net of `H` hidden units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Net<const H: usize> {
    /// One row per compact feature id ([`crate::eval::features::Layout::compact_len`] rows).
    pub rows: Vec<Row<H>>,
    /// Hidden bias, 1/[`ACT_SCALE`].
    pub bias: [i16; H],
    /// Output weights, 1/[`OUT_SCALE`].
    pub out: [i16; H],
    /// Output bias, 1/([`ACT_SCALE`]·[`OUT_SCALE`]) discs.
    pub out_bias: i32,
}

/// Shift from 1/(ACT_SCALE·OUT_SCALE) discs to 1/SCALE discs.
const OUT_SHIFT: u32 = (ACT_SCALE * OUT_SCALE / SCALE).trailing_zeros();

impl<const H: usize> Net<H> {
    /// A net of zeros (its correction is 0).
    pub fn zero() -> Net<H> {
        Net {
            rows: vec![Row([0; H]); LAYOUT.compact_len],
            bias: [0; H],
            out: [0; H],
            out_bias: 0,
        }
    }

    /// The correction in 1/[`SCALE`] discs for the raw pattern indices `raw` (as
    /// [`crate::eval::features::raw_indices`] writes them).
    #[inline]
    pub fn correction(&self, raw: &[u32; FEATURES_PER_POSITION]) -> i32 {
        let map = &LAYOUT.raw_to_compact;
        let mut h = [0i32; H];
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

/// The quantised net of one slot, in one of the [`WIDTHS`].
// The variants differ only by their inline bias and output weights (544 bytes at most, one
// per slot); boxing them would add an indirection to every evaluation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PhaseNet {
    /// 32 hidden units.
    W32(Net<32>),
    /// 64 hidden units.
    W64(Net<64>),
    /// 128 hidden units.
    W128(Net<128>),
    /// 192 hidden units (an average of a 64- and a 128-unit net).
    W192(Net<192>),
}

impl PhaseNet {
    /// Its hidden units.
    pub fn hidden(&self) -> usize {
        match self {
            PhaseNet::W32(_) => 32,
            PhaseNet::W64(_) => 64,
            PhaseNet::W128(_) => 128,
            PhaseNet::W192(_) => 192,
        }
    }

    /// The correction in 1/[`SCALE`] discs for the raw pattern indices `raw` (as
    /// [`crate::eval::features::raw_indices`] writes them).
    #[inline]
    pub fn correction(&self, raw: &[u32; FEATURES_PER_POSITION]) -> i32 {
        match self {
            PhaseNet::W32(n) => n.correction(raw),
            PhaseNet::W64(n) => n.correction(raw),
            PhaseNet::W128(n) => n.correction(raw),
            PhaseNet::W192(n) => n.correction(raw),
        }
    }

    /// Appends the net's values in file order: `i32` output bias, hidden bias and output
    /// weights (`i16` each), then the rows as `i16`, unit-major (all features' values for
    /// unit 0, then unit 1, …: mostly zeros, which compress well).
    fn write(&self, b: &mut Vec<u8>) {
        fn go<const H: usize>(n: &Net<H>, b: &mut Vec<u8>) {
            b.extend_from_slice(&n.out_bias.to_le_bytes());
            for v in n.bias.iter().chain(&n.out) {
                b.extend_from_slice(&v.to_le_bytes());
            }
            for k in 0..H {
                for r in &n.rows {
                    b.extend_from_slice(&r.0[k].to_le_bytes());
                }
            }
        }
        match self {
            PhaseNet::W32(n) => go(n, b),
            PhaseNet::W64(n) => go(n, b),
            PhaseNet::W128(n) => go(n, b),
            PhaseNet::W192(n) => go(n, b),
        }
    }

    /// Reads what [`PhaseNet::write`] wrote for `hidden` units from `chunk` (exactly
    /// [`Nets::net_bytes`]`(hidden)` bytes).
    fn read(chunk: &[u8], hidden: usize) -> Option<PhaseNet> {
        fn go<const H: usize>(chunk: &[u8]) -> Net<H> {
            let i16_at = |k: usize| i16::from_le_bytes([chunk[k], chunk[k + 1]]);
            let n = LAYOUT.compact_len;
            let mut net = Net::<H>::zero();
            net.out_bias = i32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            for k in 0..H {
                net.bias[k] = i16_at(4 + 2 * k);
                net.out[k] = i16_at(4 + 2 * H + 2 * k);
            }
            let base = 4 + 4 * H;
            // The file holds the weights unit by unit (k-major), the rows feature by feature:
            // a transpose, done in blocks of 32 rows so that both sides stay in the cache
            // (row by row or unit by unit it took about 0.3 s of every start).
            for (b, block) in net.rows.chunks_mut(32).enumerate() {
                let f0 = 32 * b;
                for k in 0..H {
                    let at = base + 2 * (k * n + f0);
                    for (i, r) in block.iter_mut().enumerate() {
                        r.0[k] = i16_at(at + 2 * i);
                    }
                }
            }
            net
        }
        match hidden {
            32 => Some(PhaseNet::W32(go::<32>(chunk))),
            64 => Some(PhaseNet::W64(go::<64>(chunk))),
            128 => Some(PhaseNet::W128(go::<128>(chunk))),
            192 => Some(PhaseNet::W192(go::<192>(chunk))),
            _ => None,
        }
    }
}

impl PhaseNet {
    /// The ensemble of two nets as one net: `(1 - w)` × `self`'s correction + `w` ×
    /// `other`'s, exactly (up to rounding the scaled output weights and bias to fixed point),
    /// since a net's correction is a sum over its hidden units: the hidden units of both side
    /// by side (rows and hidden bias unchanged), the output weights and bias scaled. `w` in
    /// [0, 1]. `None` unless the widths add up to one of the [`WIDTHS`] (64 + 128 = 192).
    /// Averaging independently trained nets cuts the variance of their errors (a standard
    /// ensemble; docs/eval.md, "An ensemble at 5 empties").
    pub fn average(&self, other: &PhaseNet, w: f64) -> Option<PhaseNet> {
        let (a, b) = (self.unpack(), other.unpack());
        let hidden = a.hidden + b.hidden;
        if !WIDTHS.contains(&hidden) || !(0.0..=1.0).contains(&w) {
            return None;
        }
        let scale = |v: i16, k: f64| (v as f64 * k).round().clamp(-32767.0, 32767.0) as i16;
        let mut rows = Vec::with_capacity(hidden * LAYOUT.compact_len);
        for f in 0..LAYOUT.compact_len {
            rows.extend_from_slice(&a.rows[f * a.hidden..(f + 1) * a.hidden]);
            rows.extend_from_slice(&b.rows[f * b.hidden..(f + 1) * b.hidden]);
        }
        let joined = Unpacked {
            hidden,
            rows,
            bias: a.bias.iter().chain(&b.bias).copied().collect(),
            out: (a.out.iter().map(|&v| scale(v, 1.0 - w)))
                .chain(b.out.iter().map(|&v| scale(v, w)))
                .collect(),
            out_bias: (a.out_bias as f64 * (1.0 - w) + b.out_bias as f64 * w).round() as i32,
        };
        joined.pack()
    }

    /// Its values, width-free.
    fn unpack(&self) -> Unpacked {
        fn go<const H: usize>(n: &Net<H>) -> Unpacked {
            Unpacked {
                hidden: H,
                rows: n.rows.iter().flat_map(|r| r.0).collect(),
                bias: n.bias.to_vec(),
                out: n.out.to_vec(),
                out_bias: n.out_bias,
            }
        }
        match self {
            PhaseNet::W32(n) => go(n),
            PhaseNet::W64(n) => go(n),
            PhaseNet::W128(n) => go(n),
            PhaseNet::W192(n) => go(n),
        }
    }
}

/// A quantised net's values without its width in the type: rows feature-major (`hidden`
/// values per compact feature id), fixed point as in [`Net`].
struct Unpacked {
    hidden: usize,
    rows: Vec<i16>,
    bias: Vec<i16>,
    out: Vec<i16>,
    out_bias: i32,
}

impl Unpacked {
    /// The [`PhaseNet`] of its width, if that is one of the [`WIDTHS`].
    fn pack(&self) -> Option<PhaseNet> {
        fn go<const H: usize>(u: &Unpacked) -> Net<H> {
            Net {
                rows: u
                    .rows
                    .chunks_exact(H)
                    .map(|r| Row(std::array::from_fn(|k| r[k])))
                    .collect(),
                bias: std::array::from_fn(|k| u.bias[k]),
                out: std::array::from_fn(|k| u.out[k]),
                out_bias: u.out_bias,
            }
        }
        match self.hidden {
            32 => Some(PhaseNet::W32(go::<32>(self))),
            64 => Some(PhaseNet::W64(go::<64>(self))),
            128 => Some(PhaseNet::W128(go::<128>(self))),
            192 => Some(PhaseNet::W192(go::<192>(self))),
            _ => None,
        }
    }
}

/// A float net as training produces it (the same shape as [`PhaseNet`], unscaled, any of
/// the [`WIDTHS`]).
#[derive(Clone, Debug)]
pub struct FloatNet {
    /// Hidden units.
    pub hidden: usize,
    /// `compact_len × hidden` row values, feature-major.
    pub rows: Vec<f32>,
    /// Hidden bias (`hidden` values).
    pub bias: Vec<f32>,
    /// Output weights (`hidden` values).
    pub out: Vec<f32>,
    /// Output bias, discs.
    pub out_bias: f32,
}

impl FloatNet {
    /// The correction in discs for the compact feature ids `ids` (the training forward pass),
    /// and the hidden pre-activations written to `h` (`hidden` values).
    pub fn forward(&self, ids: &[u32; FEATURES_PER_POSITION], h: &mut [f32]) -> f32 {
        let w = self.hidden;
        h.copy_from_slice(&self.bias);
        for &id in ids {
            let r = &self.rows[id as usize * w..id as usize * w + w];
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

    /// Rounds to fixed point (values beyond the `i16` range are clamped); `None` if its width
    /// is not one of the [`WIDTHS`].
    pub fn quantise(&self) -> Option<PhaseNet> {
        fn go<const H: usize>(f: &FloatNet) -> Net<H> {
            let q = |x: f32, s: i32| (x * s as f32).round().clamp(-32767.0, 32767.0) as i16;
            Net {
                rows: f
                    .rows
                    .chunks_exact(H)
                    .map(|r| Row(std::array::from_fn(|k| q(r[k], ACT_SCALE))))
                    .collect(),
                bias: std::array::from_fn(|k| q(f.bias[k], ACT_SCALE)),
                out: std::array::from_fn(|k| q(f.out[k], OUT_SCALE)),
                out_bias: (f.out_bias as f64 * (ACT_SCALE as f64 * OUT_SCALE as f64)).round()
                    as i32,
            }
        }
        match self.hidden {
            32 => Some(PhaseNet::W32(go::<32>(self))),
            64 => Some(PhaseNet::W64(go::<64>(self))),
            128 => Some(PhaseNet::W128(go::<128>(self))),
            192 => Some(PhaseNet::W192(go::<192>(self))),
            _ => None,
        }
    }
}

/// The nets of all slots (`None` where a slot has none; see [`NUM_SLOTS`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nets {
    /// Indexed by slot; length [`NUM_SLOTS`] (or empty: no nets).
    pub slots: Vec<Option<PhaseNet>>,
}

impl Nets {
    /// No nets: the evaluation is the linear pattern sum.
    pub fn none() -> Nets {
        Nets { slots: Vec::new() }
    }

    /// The net in `slot` (a phase below [`NUM_PHASES`], see [`NUM_SLOTS`]), if any.
    #[inline]
    pub fn get(&self, slot: usize) -> Option<&PhaseNet> {
        self.slots.get(slot).and_then(|n| n.as_ref())
    }

    /// The net that corrects positions with `empties` empties: the net of exactly that
    /// many empties if there is one, else the net of its phase, if any.
    #[inline]
    pub fn for_empties(&self, empties: u32) -> Option<&PhaseNet> {
        net_for_empties(self.slots.is_empty(), empties, |slot| self.get(slot))
    }

    /// Puts `net` in `slot` (< [`NUM_SLOTS`]), replacing any net there.
    pub fn set(&mut self, slot: usize, net: PhaseNet) {
        if self.slots.is_empty() {
            self.slots = vec![None; NUM_SLOTS];
        }
        self.slots[slot] = Some(net);
    }

    /// Bytes of one serialised net of `hidden` units after its slot and width words (output
    /// bias, hidden bias, output weights, rows).
    pub fn net_bytes(hidden: usize) -> usize {
        4 + 4 * hidden + 2 * hidden * LAYOUT.compact_len
    }

    /// The slots that have a net, in increasing order.
    pub fn slot_list(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&p| self.get(p).is_some())
            .collect()
    }

    /// Serialises the nets (the net section of a weights file, see [`crate::eval::weights`]):
    /// `u32` 0 (nets of several widths follow), `u32` count, then per net `u32` slot, `u32`
    /// hidden units and its values ([`PhaseNet`]'s file order: `i32` output bias, hidden bias
    /// and output weights as `i16`, rows as `i16` unit-major). Version-2 files instead start
    /// with `u32` 32 (every net has 32 units) and have no width word per net.
    pub fn to_bytes(&self) -> Vec<u8> {
        let list = self.slot_list();
        let mut b = Vec::new();
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&(list.len() as u32).to_le_bytes());
        for slot in list {
            let Some(n) = self.get(slot) else { continue };
            b.extend_from_slice(&(slot as u32).to_le_bytes());
            b.extend_from_slice(&(n.hidden() as u32).to_le_bytes());
            n.write(&mut b);
        }
        b
    }

    /// Parses [`Nets::to_bytes`] (or a version-2 net section); the error says what is wrong.
    pub fn from_bytes(b: &[u8]) -> Result<Nets, String> {
        let word = |k: usize| -> Result<u32, String> {
            b.get(k..k + 4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .ok_or_else(|| "net section is truncated".to_string())
        };
        // 0: each net states its width; 32: every net has 32 units (version 2).
        let common = match word(0)? {
            0 => None,
            32 => Some(32usize),
            h => {
                return Err(format!(
                    "net has {h} hidden units, this flank reads {WIDTHS:?}"
                ));
            }
        };
        let count = word(4)? as usize;
        if count > NUM_SLOTS {
            return Err(format!("net section lists {count} nets"));
        }
        let mut nets = Nets::none();
        let mut at = 8usize;
        for _ in 0..count {
            let slot = word(at)? as usize;
            at += 4;
            if slot >= NUM_SLOTS || nets.get(slot).is_some() {
                return Err(format!("net section has a bad or repeated slot {slot}"));
            }
            let hidden = match common {
                Some(h) => h,
                None => {
                    at += 4;
                    word(at - 4)? as usize
                }
            };
            if !WIDTHS.contains(&hidden) {
                return Err(format!(
                    "net has {hidden} hidden units, this flank reads {WIDTHS:?}"
                ));
            }
            let len = Nets::net_bytes(hidden);
            let chunk = b.get(at..at + len).ok_or("net section is truncated")?;
            let net = PhaseNet::read(chunk, hidden).ok_or("net has an unknown width")?;
            nets.set(slot, net);
            at += len;
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

/// Decodes the net of one slot on first use: `None` if the slot's bytes do not hold a net
/// (the decoder reports why on stderr).
pub type NetLoader = std::sync::Arc<dyn Fn() -> Option<PhaseNet> + Send + Sync>;

/// The nets of all slots as the evaluator holds them: each either present, or decoded from
/// the weights file on its first use ([`LazyNets::packed`]), so that a process decodes only
/// the nets its searches reach (the built-in weights' nets, 96 % of their bytes, correct 2–9
/// empties only). After the first use of a slot its net is read like [`Nets`]' (one atomic
/// load more).
#[derive(Clone, Default)]
pub struct LazyNets {
    /// Indexed by slot; length [`NUM_SLOTS`] (or empty: no nets).
    slots: Vec<LazySlot>,
}

#[derive(Clone)]
struct LazySlot {
    net: std::sync::OnceLock<Option<PhaseNet>>,
    load: Option<NetLoader>,
}

impl LazySlot {
    fn empty() -> LazySlot {
        LazySlot {
            net: std::sync::OnceLock::from(None),
            load: None,
        }
    }
}

impl std::fmt::Debug for LazyNets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyNets")
            .field("slots", &self.slot_list())
            .finish()
    }
}

impl From<Nets> for LazyNets {
    /// Every net present at once.
    fn from(nets: Nets) -> LazyNets {
        LazyNets {
            slots: nets
                .slots
                .into_iter()
                .map(|n| LazySlot {
                    net: std::sync::OnceLock::from(n),
                    load: None,
                })
                .collect(),
        }
    }
}

impl LazyNets {
    /// Nets decoded on first use: `loaders` lists `(slot, loader)` pairs (slots below
    /// [`NUM_SLOTS`]; a later pair for the same slot replaces an earlier one).
    pub fn packed(loaders: Vec<(usize, NetLoader)>) -> LazyNets {
        if loaders.is_empty() {
            return LazyNets::default();
        }
        let mut slots = vec![LazySlot::empty(); NUM_SLOTS];
        for (slot, load) in loaders {
            if let Some(s) = slots.get_mut(slot) {
                *s = LazySlot {
                    net: std::sync::OnceLock::new(),
                    load: Some(load),
                };
            }
        }
        LazyNets { slots }
    }

    /// The net in `slot`, decoding it if this is its first use.
    #[inline]
    pub fn get(&self, slot: usize) -> Option<&PhaseNet> {
        let s = self.slots.get(slot)?;
        s.net
            .get_or_init(|| s.load.as_ref().and_then(|load| load()))
            .as_ref()
    }

    /// [`Nets::for_empties`]: the net of exactly `empties` empties if there is one, else
    /// the net of its phase, if any.
    #[inline]
    pub fn for_empties(&self, empties: u32) -> Option<&PhaseNet> {
        net_for_empties(self.slots.is_empty(), empties, |slot| self.get(slot))
    }

    /// The slots that have a net (decoded or not), in increasing order.
    pub fn slot_list(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&p| {
                let s = &self.slots[p];
                s.load.is_some() || s.net.get().is_some_and(|n| n.is_some())
            })
            .collect()
    }

    /// The slots whose nets are decoded so far, in increasing order.
    pub fn decoded(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&p| self.slots[p].net.get().is_some_and(|n| n.is_some()))
            .collect()
    }

    /// Every net, decoding those not yet used.
    pub fn to_nets(&self) -> Nets {
        let mut nets = Nets::none();
        for slot in self.slot_list() {
            if let Some(n) = self.get(slot) {
                nets.set(slot, n.clone());
            }
        }
        nets
    }
}

/// The net of `empties` empties among slots read by `get`: the net of exactly that many
/// empties if there is one, else the net of its phase; `None` when there are no slots
/// (`no_slots`) or neither net exists.
#[inline]
fn net_for_empties<'a>(
    no_slots: bool,
    empties: u32,
    get: impl Fn(usize) -> Option<&'a PhaseNet>,
) -> Option<&'a PhaseNet> {
    if no_slots {
        return None;
    }
    get(empties_slot(empties)).or_else(|| get(phase(empties)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::features::{compact_features, raw_indices};
    use crate::othello::board::Board;

    fn float_net(seed: u32, hidden: usize) -> FloatNet {
        let n = LAYOUT.compact_len;
        let mut x = seed.wrapping_mul(2_654_435_761).max(1);
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 2001) as f32 / 1000.0 - 1.0
        };
        let rows = (0..n * hidden).map(|_| next() * 0.2).collect();
        let mut bias = vec![0.0; hidden];
        let mut out = vec![0.0; hidden];
        for k in 0..hidden {
            bias[k] = next() * 0.5;
            out[k] = next();
        }
        FloatNet {
            hidden,
            rows,
            bias,
            out,
            out_bias: 0.75,
        }
    }

    /// The fixed-point correction follows the float forward pass within rounding (1.5/64
    /// disc at 32 units, growing as the root of the width), at every width.
    #[test]
    fn quantised_net_matches_float() {
        for hidden in WIDTHS {
            let f = float_net(7, hidden);
            let q = f.quantise().expect("a known width");
            assert_eq!(q.hidden(), hidden);
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
                let mut h = vec![0.0; hidden];
                let want = f.forward(&ids, &mut h) * SCALE as f32;
                let got = q.correction(&raw) as f32;
                // Rounding errors add up like a random walk over the units.
                let tol = 1.5 * (hidden as f32 / 32.0).sqrt();
                assert!((want - got).abs() <= tol, "{want} vs {got} at {b:?}");
            }
        }
        assert!(float_net(1, 48).quantise().is_none());
    }

    #[test]
    fn bytes_round_trip_and_reject_damage() {
        let mut nets = Nets::none();
        nets.set(2, float_net(3, 32).quantise().unwrap());
        nets.set(empties_slot(5), float_net(4, 64).quantise().unwrap());
        nets.set(empties_slot(6), float_net(5, 128).quantise().unwrap());
        let bytes = nets.to_bytes();
        assert_eq!(Nets::from_bytes(&bytes), Ok(nets.clone()));
        assert!(Nets::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut more = bytes.clone();
        more.push(0);
        assert!(Nets::from_bytes(&more).is_err());
        let mut bad = bytes.clone();
        bad[0] = 16;
        assert!(Nets::from_bytes(&bad).is_err());
        let mut width = bytes.clone();
        width[12] = 48; // the first net's width word
        assert!(Nets::from_bytes(&width).is_err());
        assert_eq!(Nets::from_bytes(&Nets::none().to_bytes()), Ok(Nets::none()));
    }

    /// A version-2 net section (one width, 32, for all; no width word per net) still reads.
    #[test]
    fn version_2_net_sections_read() {
        let net = float_net(5, 32).quantise().unwrap();
        let mut b = Vec::new();
        b.extend_from_slice(&32u32.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&3u32.to_le_bytes());
        net.write(&mut b);
        let mut want = Nets::none();
        want.set(3, net);
        assert_eq!(Nets::from_bytes(&b), Ok(want));
    }

    /// The averaged net's correction is the weighted mean of the two nets' corrections,
    /// within the rounding of the scaled output weights (1/1024 per unit and activation).
    #[test]
    fn averaged_net_is_the_mean_of_its_two_nets() {
        let a = float_net(11, 64).quantise().unwrap();
        let b = float_net(12, 128).quantise().unwrap();
        for w in [0.5, 0.25, 1.0] {
            let m = a.average(&b, w).expect("64 + 128 = 192");
            assert_eq!(m.hidden(), 192);
            let mut bd = Board::start();
            for step in 0..30 {
                let mv = bd.legal_moves().nth(step % 2);
                if let Some(mv) = mv {
                    bd = bd.make_move(mv);
                }
                let mut raw = [0; FEATURES_PER_POSITION];
                raw_indices(&bd, &mut raw);
                let want = (1.0 - w) * a.correction(&raw) as f64 + w * b.correction(&raw) as f64;
                let got = m.correction(&raw) as f64;
                assert!(
                    (want - got).abs() <= 2.0,
                    "w {w}: {want} vs {got} at {bd:?}"
                );
            }
            // It survives the file format.
            let mut nets = Nets::none();
            nets.set(empties_slot(5), m.clone());
            assert_eq!(Nets::from_bytes(&nets.to_bytes()), Ok(nets));
        }
        // Widths that add up to no known width, and weights outside [0, 1], are refused.
        let c = float_net(13, 32).quantise().unwrap();
        assert!(c.average(&b, 0.5).is_none());
        assert!(a.average(&b, 1.5).is_none());
    }
}
