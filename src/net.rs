//! The residual network of the trained evaluation: a small NNUE-like net per empties count (or
//! per game phase), on the pattern features of [`crate::pattern`], that corrects the linear
//! pattern sum.
//!
//! Shape (per slot that has a net, see [`NUM_SLOTS`]): each of the [`FEATURES_PER_POSITION`]
//! compact feature ids of a position selects a learned row of 32, 64 or 128 values (the net's width,
//! [`WIDTHS`]); the rows are summed with a bias,
//! passed through ReLU, and a dot product with the output weights plus an output bias gives a
//! correction in discs that is added to the linear pattern evaluation. It is trained on the
//! residual `label − linear evaluation` (see [`crate::train::train_nets`]), so the linear part
//! keeps what it does well and the net learns how features interact (which the sum of
//! independent pattern weights cannot). The idea is the "efficiently updatable" first layer of
//! Nasu's NNUE (2018), here without incremental update: the sum is recomputed per evaluation
//! from the indices the linear part reads anyway (65 rows of 32 `i16`, about 700 instructions
//! with AVX2; twice that at 64 units, four times at 128).
//!
//! Fixed point: rows and the hidden bias are in 1/[`ACT_SCALE`] activation units, output
//! weights in 1/[`OUT_SCALE`], the output bias in 1/([`ACT_SCALE`]·[`OUT_SCALE`]) discs; the
//! correction is returned in 1/[`SCALE`] discs like the linear sum.

use crate::board::Board;
use crate::pattern::{FEATURES_PER_POSITION, LAYOUT, NUM_PHASES, PHASE_WIDTH, SCALE, phase};

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

/// Ids of the empty-square features ([`square_features`]): 16 per square.
pub const SQUARE_FEATURES: usize = 64 * 16;

/// The flip-count bucket of a square feature: 0 (illegal), 1 (1-2 discs), 2 (3-5), 3 (6+).
#[inline(always)]
fn flip_bucket(n: u32) -> u32 {
    match n {
        0 => 0,
        1..=2 => 1,
        3..=5 => 2,
        _ => 3,
    }
}

/// Writes the empty-square feature ids of `b` (each below [`SQUARE_FEATURES`]) into `out`
/// and returns their count (the empties): for each empty square `s`, the id
/// `16·s + 4·bucket(flips of the side to move at s) + bucket(flips of the opponent at s)`,
/// flips bucketed as 0 (illegal), 1–2, 3–5, 6+ discs. They tell a net which empties each
/// side can still play and how much each would gain, which near the end (5 empties) decides
/// the moves, the passes and the parity, and which the pattern features see only line by line
/// (the quadrant features of [`crate::pattern`] only say whether a side can play in a
/// quadrant). Only nets that have square rows ([`Net::squares`]) read them.
pub fn square_features(b: &Board, out: &mut [u32; 64]) -> usize {
    let (p, o) = (b.player, b.opponent);
    let mut e = b.empty();
    let mut k = 0;
    while e != 0 {
        let x = e.trailing_zeros();
        e &= e - 1;
        let mine = crate::endgame::flips(p, o, x).count_ones();
        let theirs = crate::endgame::flips(o, p, x).count_ones();
        out[k] = 16 * x + 4 * flip_bucket(mine) + flip_bucket(theirs);
        k += 1;
    }
    k
}

/// One row of the first layer, `H` values (aligned to a 64-byte cache line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Row<const H: usize>(pub [i16; H]);

/// A quantised net of `H` hidden units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Net<const H: usize> {
    /// One row per compact feature id ([`crate::pattern::Layout::compact_len`] rows).
    pub rows: Vec<Row<H>>,
    /// One row per empty-square feature id ([`SQUARE_FEATURES`] rows, [`square_features`]),
    /// or empty: the net does not read them.
    pub squares: Vec<Row<H>>,
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
            squares: Vec::new(),
            bias: [0; H],
            out: [0; H],
            out_bias: 0,
        }
    }

    /// The same net with zero square rows (it reads the empty-square features, which add
    /// nothing until trained).
    pub fn with_squares(mut self) -> Net<H> {
        self.squares = vec![Row([0; H]); SQUARE_FEATURES];
        self
    }

    /// The correction in 1/[`SCALE`] discs for the raw pattern indices `raw` of `b` (as
    /// [`crate::pattern::raw_indices`] writes them).
    #[inline]
    pub fn correction(&self, b: &Board, raw: &[u32; FEATURES_PER_POSITION]) -> i32 {
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
        if !self.squares.is_empty() {
            let mut ids = [0u32; 64];
            let k = square_features(b, &mut ids);
            for &i in &ids[..k] {
                let row = &self.squares[i as usize].0;
                for (a, &b) in h.iter_mut().zip(row) {
                    *a += b as i32;
                }
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

    /// True if the net reads the empty-square features ([`square_features`]).
    pub fn has_squares(&self) -> bool {
        match self {
            PhaseNet::W32(n) => !n.squares.is_empty(),
            PhaseNet::W64(n) => !n.squares.is_empty(),
            PhaseNet::W128(n) => !n.squares.is_empty(),
            PhaseNet::W192(n) => !n.squares.is_empty(),
        }
    }

    /// The correction in 1/[`SCALE`] discs for the raw pattern indices `raw` of `b` (as
    /// [`crate::pattern::raw_indices`] writes them).
    #[inline]
    pub fn correction(&self, b: &Board, raw: &[u32; FEATURES_PER_POSITION]) -> i32 {
        match self {
            PhaseNet::W32(n) => n.correction(b, raw),
            PhaseNet::W64(n) => n.correction(b, raw),
            PhaseNet::W128(n) => n.correction(b, raw),
            PhaseNet::W192(n) => n.correction(b, raw),
        }
    }

    /// Appends the net's values in file order: `i32` output bias, hidden bias and output
    /// weights (`i16` each), then the rows as `i16`, unit-major (all features' values for
    /// unit 0, then unit 1, …: mostly zeros, which compress well), then the square rows the
    /// same way if it has them.
    fn write(&self, b: &mut Vec<u8>) {
        fn go<const H: usize>(n: &Net<H>, b: &mut Vec<u8>) {
            b.extend_from_slice(&n.out_bias.to_le_bytes());
            for v in n.bias.iter().chain(&n.out) {
                b.extend_from_slice(&v.to_le_bytes());
            }
            for rows in [&n.rows, &n.squares] {
                for k in 0..H {
                    for r in rows {
                        b.extend_from_slice(&r.0[k].to_le_bytes());
                    }
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

    /// Reads what [`PhaseNet::write`] wrote for `hidden` units, with square rows if
    /// `squares`, from `chunk` (exactly [`Nets::net_bytes`]`(hidden, squares)` bytes).
    fn read(chunk: &[u8], hidden: usize, squares: bool) -> Option<PhaseNet> {
        fn go<const H: usize>(chunk: &[u8], squares: bool) -> Net<H> {
            let i16_at = |k: usize| i16::from_le_bytes([chunk[k], chunk[k + 1]]);
            let mut net = Net::<H>::zero();
            if squares {
                net = net.with_squares();
            }
            net.out_bias = i32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            for k in 0..H {
                net.bias[k] = i16_at(4 + 2 * k);
                net.out[k] = i16_at(4 + 2 * H + 2 * k);
            }
            let mut base = 4 + 4 * H;
            for rows in [&mut net.rows, &mut net.squares] {
                let n = rows.len();
                for k in 0..H {
                    for (f, r) in rows.iter_mut().enumerate() {
                        r.0[k] = i16_at(base + 2 * (k * n + f));
                    }
                }
                base += 2 * H * n;
            }
            net
        }
        match hidden {
            32 => Some(PhaseNet::W32(go::<32>(chunk, squares))),
            64 => Some(PhaseNet::W64(go::<64>(chunk, squares))),
            128 => Some(PhaseNet::W128(go::<128>(chunk, squares))),
            192 => Some(PhaseNet::W192(go::<192>(chunk, squares))),
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
        // Square rows if either net reads them (zeros for the one that does not).
        let mut squares = Vec::new();
        if !a.squares.is_empty() || !b.squares.is_empty() {
            for f in 0..SQUARE_FEATURES {
                for u in [&a, &b] {
                    match u.squares.get(f * u.hidden..(f + 1) * u.hidden) {
                        Some(r) => squares.extend_from_slice(r),
                        None => squares.extend(std::iter::repeat_n(0, u.hidden)),
                    }
                }
            }
        }
        let joined = Unpacked {
            hidden,
            rows,
            squares,
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
                squares: n.squares.iter().flat_map(|r| r.0).collect(),
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
/// values per compact feature id), square rows the same way (or empty), fixed point as in
/// [`Net`].
struct Unpacked {
    hidden: usize,
    rows: Vec<i16>,
    squares: Vec<i16>,
    bias: Vec<i16>,
    out: Vec<i16>,
    out_bias: i32,
}

impl Unpacked {
    /// The [`PhaseNet`] of its width, if that is one of the [`WIDTHS`].
    fn pack(&self) -> Option<PhaseNet> {
        fn go<const H: usize>(u: &Unpacked) -> Net<H> {
            let rows = |v: &[i16]| -> Vec<Row<H>> {
                v.chunks_exact(H)
                    .map(|r| Row(std::array::from_fn(|k| r[k])))
                    .collect()
            };
            Net {
                rows: rows(&u.rows),
                squares: rows(&u.squares),
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
    /// `compact_len × hidden` row values, feature-major; with the empty-square features
    /// ([`square_features`]) `(compact_len + SQUARE_FEATURES) × hidden`, their rows after
    /// the pattern rows (id `compact_len + square feature id`).
    pub rows: Vec<f32>,
    /// Hidden bias (`hidden` values).
    pub bias: Vec<f32>,
    /// Output weights (`hidden` values).
    pub out: Vec<f32>,
    /// Output bias, discs.
    pub out_bias: f32,
}

impl FloatNet {
    /// True if its rows include the empty-square features.
    pub fn has_squares(&self) -> bool {
        self.rows.len() == (LAYOUT.compact_len + SQUARE_FEATURES) * self.hidden
    }

    /// The correction in discs for the feature ids `ids` (compact pattern ids, then square
    /// feature ids offset by `compact_len` if the net has them: the training forward pass),
    /// and the hidden pre-activations written to `h` (`hidden` values).
    pub fn forward(&self, ids: &[u32], h: &mut [f32]) -> f32 {
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
            let mut rows: Vec<Row<H>> = f
                .rows
                .chunks_exact(H)
                .map(|r| Row(std::array::from_fn(|k| q(r[k], ACT_SCALE))))
                .collect();
            let squares = rows.split_off(LAYOUT.compact_len.min(rows.len()));
            Net {
                rows,
                squares,
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
        if self.slots.is_empty() {
            return None;
        }
        self.get(empties_slot(empties))
            .or_else(|| self.get(phase(empties)))
    }

    /// Puts `net` in `slot` (< [`NUM_SLOTS`]), replacing any net there.
    pub fn set(&mut self, slot: usize, net: PhaseNet) {
        if self.slots.is_empty() {
            self.slots = vec![None; NUM_SLOTS];
        }
        self.slots[slot] = Some(net);
    }

    /// Bytes of one serialised net of `hidden` units (with square rows if `squares`) after
    /// its slot, width and flags words (output bias, hidden bias, output weights, rows).
    pub fn net_bytes(hidden: usize, squares: bool) -> usize {
        let rows = LAYOUT.compact_len + if squares { SQUARE_FEATURES } else { 0 };
        4 + 4 * hidden + 2 * hidden * rows
    }

    /// The slots that have a net, in increasing order.
    pub fn slot_list(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&p| self.get(p).is_some())
            .collect()
    }

    /// Serialises the nets (the net section of a weights file, see [`crate::weights`]):
    /// `u32` 1 (nets of several widths, each with a flags word, follow), `u32` count, then
    /// per net `u32` slot, `u32` hidden units, `u32` flags (bit 0: it has square rows, see
    /// [`square_features`]) and its values ([`PhaseNet`]'s file order: `i32` output bias,
    /// hidden bias and output weights as `i16`, rows as `i16` unit-major, then the square
    /// rows). Version-3 files start with `u32` 0 and have no flags word (no square rows);
    /// version-2 files start with `u32` 32 (every net has 32 units) and have no width word
    /// per net.
    pub fn to_bytes(&self) -> Vec<u8> {
        let list = self.slot_list();
        let mut b = Vec::new();
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&(list.len() as u32).to_le_bytes());
        for slot in list {
            let Some(n) = self.get(slot) else { continue };
            b.extend_from_slice(&(slot as u32).to_le_bytes());
            b.extend_from_slice(&(n.hidden() as u32).to_le_bytes());
            b.extend_from_slice(&u32::from(n.has_squares()).to_le_bytes());
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
        // 1: each net states its width and flags; 0: its width (version 3); 32: every net
        // has 32 units (version 2).
        let first = word(0)?;
        let flags = first == 1;
        let common = match first {
            0 | 1 => None,
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
            let squares = if flags {
                at += 4;
                match word(at - 4)? {
                    0 => false,
                    1 => true,
                    f => return Err(format!("net has unknown flags {f}")),
                }
            } else {
                false
            };
            let len = Nets::net_bytes(hidden, squares);
            let chunk = b.get(at..at + len).ok_or("net section is truncated")?;
            let net = PhaseNet::read(chunk, hidden, squares).ok_or("net has an unknown width")?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::pattern::{compact_features, raw_indices};

    fn float_net(seed: u32, hidden: usize) -> FloatNet {
        float_net_sq(seed, hidden, false)
    }

    /// A random float net, with square rows if `squares`.
    fn float_net_sq(seed: u32, hidden: usize, squares: bool) -> FloatNet {
        let n = LAYOUT.compact_len + if squares { SQUARE_FEATURES } else { 0 };
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
    /// disc at 32 units, growing as the root of the width), at every width, with and
    /// without the empty-square features.
    #[test]
    fn quantised_net_matches_float() {
        let cases = WIDTHS
            .iter()
            .map(|&h| (h, false))
            .chain([(32, true), (192, true)]);
        for (hidden, squares) in cases {
            let f = float_net_sq(7, hidden, squares);
            assert_eq!(f.has_squares(), squares);
            let q = f.quantise().expect("a known width");
            assert_eq!(q.hidden(), hidden);
            assert_eq!(q.has_squares(), squares);
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
                let mut all = ids.to_vec();
                if squares {
                    let mut sq = [0; 64];
                    let k = square_features(&b, &mut sq);
                    all.extend(sq[..k].iter().map(|&s| LAYOUT.compact_len as u32 + s));
                }
                let mut h = vec![0.0; hidden];
                let want = f.forward(&all, &mut h) * SCALE as f32;
                let got = q.correction(&b, &raw) as f32;
                // Rounding errors add up like a random walk over the units and the rows.
                let rows = all.len() as f32 / FEATURES_PER_POSITION as f32;
                let tol = 1.5 * (hidden as f32 / 32.0 * rows).sqrt();
                assert!((want - got).abs() <= tol, "{want} vs {got} at {b:?}");
            }
        }
        assert!(float_net(1, 48).quantise().is_none());
    }

    /// One square feature per empty: its square, and each side's flips there bucketed
    /// (0 = illegal, 1-2, 3-5, 6+), checked against the board's own move generator.
    #[test]
    fn square_features_name_each_empty_and_its_flips() {
        let mut b = Board::start();
        for step in 0..50 {
            let mut ids = [0; 64];
            let k = square_features(&b, &mut ids);
            assert_eq!(k as u32, b.empties());
            let bucket = |n: u32| [0, 1, 1, 2, 2, 2].get(n as usize).copied().unwrap_or(3);
            for &id in &ids[..k] {
                assert!((id as usize) < SQUARE_FEATURES);
                let x = id / 16;
                assert!(b.empty() >> x & 1 == 1);
                let mine = crate::board::flips(b.player, b.opponent, x).count_ones();
                let theirs = crate::board::flips(b.opponent, b.player, x).count_ones();
                assert_eq!(id % 16, 4 * bucket(mine) + bucket(theirs), "{x} at {b:?}");
                assert_eq!(b.moves() >> x & 1 == 1, id / 4 % 4 != 0);
                assert_eq!(b.opponent_moves() >> x & 1 == 1, id % 4 != 0);
            }
            let mv = b
                .legal_moves()
                .nth(step % 3)
                .or_else(|| b.legal_moves().next());
            b = match mv {
                Some(m) => b.make_move(m),
                None if b.is_game_over() => break,
                None => b.pass(),
            };
        }
    }

    #[test]
    fn bytes_round_trip_and_reject_damage() {
        let mut nets = Nets::none();
        nets.set(2, float_net(3, 32).quantise().unwrap());
        nets.set(
            empties_slot(4),
            float_net_sq(9, 32, true).quantise().unwrap(),
        );
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
        want.set(3, net.clone());
        assert_eq!(Nets::from_bytes(&b), Ok(want.clone()));
        // Version 3: a width word per net, no flags word (no square rows).
        let mut v3 = Vec::new();
        v3.extend_from_slice(&0u32.to_le_bytes());
        v3.extend_from_slice(&1u32.to_le_bytes());
        v3.extend_from_slice(&3u32.to_le_bytes());
        v3.extend_from_slice(&32u32.to_le_bytes());
        net.write(&mut v3);
        assert_eq!(Nets::from_bytes(&v3), Ok(want.clone()));
        // Version 4 names unknown flags.
        let mut v4 = want.to_bytes();
        v4[16] = 2; // the first net's flags word
        let err = Nets::from_bytes(&v4).unwrap_err();
        assert!(err.contains("flags 2"), "{err}");
    }

    /// The averaged net's correction is the weighted mean of the two nets' corrections,
    /// within the rounding of the scaled output weights (1/1024 per unit and activation).
    #[test]
    fn averaged_net_is_the_mean_of_its_two_nets() {
        // One of them reads the empty-square features: the mean has square rows.
        let a = float_net_sq(11, 64, true).quantise().unwrap();
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
                let want =
                    (1.0 - w) * a.correction(&bd, &raw) as f64 + w * b.correction(&bd, &raw) as f64;
                let got = m.correction(&bd, &raw) as f64;
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
