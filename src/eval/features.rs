//! Pattern features of the trained evaluation: the pattern groups, their symmetric instances,
//! ternary indices read from bitboards, the global features, and the feature layout shared by
//! the weights file, the residual nets, the trainer (`flank train`) and the pattern
//! evaluator. It imports nothing of the evaluation but the board.
//!
//! The design follows Buro's Logistello ("Experiments with Multi-ProbCut and a New High-Quality
//! Evaluation Function for Othello", 1997) and Edax: the value of a position is a sum of table
//! weights, one per pattern instance, indexed by the ternary contents (empty 0, side to move 1,
//! opponent 2) of the instance's squares, plus a few global features, with one weight set per
//! game phase. Every group's instances are its images under the 8 board symmetries
//! ([`Symmetry`]) and share one table; an instance that maps onto itself (a diagonal, an edge)
//! has its indices folded to one canonical index ([`Layout`]), so the evaluation is exactly
//! invariant under the 8 symmetries and the 8-fold augmentation of the training set is built
//! into the features.
//!
//! Features per position ([`FEATURES_PER_POSITION`] = 65): 46 disc-pattern instances (corner
//! 3×3 ×4, corner 2×5 ×8, edge + 2 X-squares ×4, rows/columns 2, 3, 4 ×4 each, diagonals of
//! length 8 ×2 and of lengths 7, 6, 5, 4 ×4 each); 8 mobility-pattern instances (edge + 2
//! X-squares ×4 and corner 3×3 ×4 read from the legal-move bitboards: digit 1 where the side to
//! move can play, 2 where only the opponent can), the mobility of each side, the potential
//! mobility (empties next to the other side's discs) of each side, parity (empties mod 2 and the
//! number of quadrants with an odd number of empties), per quadrant its empties (capped at 4)
//! and whether each side can play there, the corners each side can take, and a bias.
//!
//! Indices are read with BMI2 `pext` straight from the bitboards where it is fast (the
//! `flank_pext` cfg of build.rs; one
//! 1,024-entry digit table per instance turns the extracted bits into the group's base-order
//! ternary index), else as sums of per-square weight vectors: each disc (or legal move) adds
//! its square's digit weight in every instance at once, a few vector adds
//! ([`DiscDigits::by_squares`]). A third way, transforming the bitboards by the 8 symmetries and
//! gathering each base pattern with shifts and masks ([`raw_indices_by_gather`]), is the tests'
//! reference.

use std::sync::LazyLock;

use crate::othello::board::{Board, Symmetry, neighbours};
use crate::othello::movegen::get_moves;

/// Number of game phases; a position's phase is [`phase`] of its empties.
pub const NUM_PHASES: usize = 30;
/// Empties per phase bucket.
pub const PHASE_WIDTH: u32 = 2;
/// Pattern instances per position.
pub const PATTERN_INSTANCES: usize = 54;
/// Disc-pattern instances per position (the first ones; the rest read the legal moves).
pub const DISC_INSTANCES: usize = 46;
/// Features per position: the pattern instances plus 6 global features.
pub const FEATURES_PER_POSITION: usize = PATTERN_INSTANCES + 11;

/// Mobility values are capped at this (a table of `MOBILITY_CAP + 1` weights per side).
pub const MOBILITY_CAP: u32 = 35;
/// Potential mobility values are capped at this.
pub const POTENTIAL_CAP: u32 = 47;
/// Parity table size: 2 (empties mod 2) × 5 (odd quadrants 0–4).
const PARITY_SIZE: u32 = 10;

/// The phase (0…[`NUM_PHASES`]−1) of a position with `empties` empty squares.
#[inline]
pub fn phase(empties: u32) -> usize {
    (empties.min(PHASE_WIDTH * NUM_PHASES as u32 - 1) / PHASE_WIDTH) as usize
}

/// Pattern groups: a name and the ordered base squares (0 = a1 … 63 = h8). Digit k of an
/// instance's ternary index is the contents of its k-th square.
const GROUPS: [(&str, &[u8]); 13] = [
    ("corner3x3", &[0, 1, 2, 8, 9, 10, 16, 17, 18]),
    ("corner2x5", &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12]),
    ("edge+2x", &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14]),
    ("row2", &[8, 9, 10, 11, 12, 13, 14, 15]),
    ("row3", &[16, 17, 18, 19, 20, 21, 22, 23]),
    ("row4", &[24, 25, 26, 27, 28, 29, 30, 31]),
    ("diag8", &[0, 9, 18, 27, 36, 45, 54, 63]),
    ("diag7", &[1, 10, 19, 28, 37, 46, 55]),
    ("diag6", &[2, 11, 20, 29, 38, 47]),
    ("diag5", &[3, 12, 21, 30, 39]),
    ("diag4", &[4, 13, 22, 31]),
    ("mob-edge+2x", &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14]),
    ("mob-corner3x3", &[0, 1, 2, 8, 9, 10, 16, 17, 18]),
];
/// The first group read from the legal-move bitboards (digit 1: the side to move can play
/// there, 2: only the opponent can) instead of the discs.
const FIRST_MOBILITY_GROUP: usize = 11;

/// One pattern group with its instances and index folding.
#[derive(Debug)]
pub struct Group {
    /// Short name (`corner3x3`, `diag5`, …).
    pub name: &'static str,
    /// Base squares, digit order.
    pub squares: &'static [u8],
    /// Indices into [`Symmetry::ALL`]: instance i is the base pattern read from the board
    /// transformed by `syms[i]`.
    pub syms: Vec<usize>,
    /// First raw index of this group in a phase's raw table.
    pub raw_offset: u32,
    /// First compact feature id of this group.
    pub compact_offset: u32,
    /// Number of distinct (canonical) indices.
    pub compact_len: u32,
}

/// The feature layout: groups, raw table size (3^n per group, plus globals) and the fold from
/// raw indices to compact feature ids (shared by symmetric indices).
#[derive(Debug)]
pub struct Layout {
    /// The pattern groups, in `GROUPS` order.
    pub groups: Vec<Group>,
    /// Raw indices per phase: Σ 3^n over groups plus the global tables.
    pub raw_len: usize,
    /// Compact feature ids per phase.
    pub compact_len: usize,
    /// Raw index → compact feature id.
    pub raw_to_compact: Vec<u32>,
    /// Raw index of the first global table (mobility of the side to move).
    pub global_raw: u32,
}

/// Raw-index offsets of the global tables relative to [`Layout::global_raw`].
const MOB_P: u32 = 0;
const MOB_O: u32 = MOB_P + MOBILITY_CAP + 1;
const POT_P: u32 = MOB_O + MOBILITY_CAP + 1;
const POT_O: u32 = POT_P + POTENTIAL_CAP + 1;
const PARITY: u32 = POT_O + POTENTIAL_CAP + 1;
const QUAD: u32 = PARITY + PARITY_SIZE;
/// Quadrant table: empties in the quadrant (0–4, capped) × side to move has a move there ×
/// opponent has a move there.
const QUAD_SIZE: u32 = 5 * 4;
const CORNER_MOVES: u32 = QUAD + QUAD_SIZE;
/// Corner-move table: corners the side to move can take (0–4) × corners the opponent could.
const CORNER_MOVES_SIZE: u32 = 25;
const BIAS: u32 = CORNER_MOVES + CORNER_MOVES_SIZE;
const GLOBAL_LEN: u32 = BIAS + 1;

fn pow3(n: usize) -> u32 {
    3u32.pow(n as u32)
}

/// The set of squares (as a bitboard) that instance `sym` of `squares` reads: the squares that
/// the symmetry maps onto the base squares.
fn instance_set(squares: &[u8], sym: Symmetry) -> u64 {
    (0..64u32)
        .filter(|&sq| {
            let img = sym.apply(1u64 << sq).trailing_zeros() as u8;
            squares.contains(&img)
        })
        .fold(0, |m, sq| m | (1u64 << sq))
}

/// The square that symmetry `s` maps onto square `q` (0 = a1 … 63 = h8).
fn preimage(s: Symmetry, q: u8) -> u8 {
    (0..64u8)
        .find(|&x| s.apply(1u64 << x) == 1u64 << q)
        .unwrap_or(q)
}

impl Layout {
    fn build() -> Layout {
        let mut groups = Vec::new();
        let mut raw_to_compact = Vec::new();
        let mut raw_offset = 0u32;
        let mut compact_offset = 0u32;
        for (name, squares) in GROUPS {
            let base = instance_set(squares, Symmetry::Identity);
            // Instances: symmetries giving distinct square sets.
            let mut sets: Vec<u64> = Vec::new();
            let mut syms = Vec::new();
            // Stabiliser permutations: digit k of the reading under s is digit perm[k] of the
            // reading of the untransformed board.
            let mut perms: Vec<Vec<usize>> = Vec::new();
            for (i, &s) in Symmetry::ALL.iter().enumerate() {
                let set = instance_set(squares, s);
                if !sets.contains(&set) {
                    sets.push(set);
                    syms.push(i);
                }
                if set == base {
                    // Reading board s(b) at squares[k] reads b at s⁻¹(squares[k]).
                    let perm = squares
                        .iter()
                        .map(|&q| {
                            let pre = preimage(s, q);
                            squares.iter().position(|&y| y == pre).unwrap_or(0)
                        })
                        .collect();
                    perms.push(perm);
                }
            }
            let n = squares.len();
            let size = pow3(n);
            let powers: Vec<u32> = (0..n).map(pow3).collect();
            // Each index's canonical reading (the least over the stabiliser) gets the next id
            // at its first appearance; `id_of[canon]` remembers it (u32::MAX: none yet).
            let mut id_of = vec![u32::MAX; size as usize];
            let mut compact_len = 0u32;
            let mut digits = [0u32; 16];
            raw_to_compact.reserve(size as usize);
            for idx in 0..size {
                for (k, d) in digits.iter_mut().enumerate().take(n) {
                    *d = idx / powers[k] % 3;
                }
                let canon = perms
                    .iter()
                    .map(|perm| (0..n).map(|k| digits[perm[k]] * powers[k]).sum::<u32>())
                    .min()
                    .unwrap_or(idx);
                let id = &mut id_of[canon as usize];
                if *id == u32::MAX {
                    *id = compact_len;
                    compact_len += 1;
                }
                raw_to_compact.push(compact_offset + *id);
            }
            groups.push(Group {
                name,
                squares,
                syms,
                raw_offset,
                compact_offset,
                compact_len,
            });
            raw_offset += size;
            compact_offset += compact_len;
        }
        let global_raw = raw_offset;
        for i in 0..GLOBAL_LEN {
            raw_to_compact.push(compact_offset + i);
        }
        Layout {
            groups,
            raw_len: (raw_offset + GLOBAL_LEN) as usize,
            compact_len: (compact_offset + GLOBAL_LEN) as usize,
            raw_to_compact,
            global_raw,
        }
    }
}

/// The feature layout, built on first use (about 10 ms).
pub static LAYOUT: LazyLock<Layout> = LazyLock::new(Layout::build);

/// `TERNARY[b]` is the base-3 number whose digits are the bits of `b` (b < 1024).
static TERNARY: LazyLock<[u32; 1024]> = LazyLock::new(|| {
    let mut t = [0u32; 1024];
    for (b, v) in t.iter_mut().enumerate() {
        *v = (0..10).filter(|k| b >> k & 1 == 1).map(pow3).sum();
    }
    t
});

/// Packs the bits of `x` at the base squares of group `g` into bit k = square k (the fast
/// path of [`gather_slow`]; tests check that they agree).
#[inline(always)]
fn gather(g: usize, x: u64) -> u32 {
    const DIAG: u64 = 0x8040_2010_0804_0201;
    const SPREAD: u64 = 0x0101_0101_0101_0101;
    (match g {
        0 => (x & 7) | ((x >> 5) & 0x38) | ((x >> 10) & 0x1C0),
        1 => (x & 0x1F) | ((x >> 3) & 0x3E0),
        2 => (x & 0xFF) | ((x >> 1) & 0x100) | ((x >> 5) & 0x200),
        3 => (x >> 8) & 0xFF,
        4 => (x >> 16) & 0xFF,
        5 => (x >> 24) & 0xFF,
        6 => ((x & DIAG).wrapping_mul(SPREAD)) >> 56,
        7 => (((x >> 1) & (DIAG >> 9)).wrapping_mul(SPREAD)) >> 56,
        8 => (((x >> 2) & (DIAG >> 18)).wrapping_mul(SPREAD)) >> 56,
        9 => (((x >> 3) & (DIAG >> 27)).wrapping_mul(SPREAD)) >> 56,
        10 => (((x >> 4) & (DIAG >> 36)).wrapping_mul(SPREAD)) >> 56,
        11 => (x & 0xFF) | ((x >> 1) & 0x100) | ((x >> 5) & 0x200),
        _ => (x & 7) | ((x >> 5) & 0x38) | ((x >> 10) & 0x1C0),
    }) as u32
}

/// Reference version of `gather`: a loop over the group's squares.
pub fn gather_slow(g: usize, x: u64) -> u32 {
    GROUPS[g]
        .1
        .iter()
        .enumerate()
        .map(|(k, &sq)| ((x >> sq) as u32 & 1) << k)
        .sum()
}

/// Fast gather for group `g` (exposed for the test that checks it against [`gather_slow`]).
pub fn gather_fast(g: usize, x: u64) -> u32 {
    gather(g, x)
}

/// The pattern instances read straight from the untransformed bitboards with `pext` (the fast
/// path of [`raw_indices`] with `flank_pext`), in [`raw_indices`] order.
struct Instances {
    /// The squares of each instance on the untransformed board.
    mask: [u64; PATTERN_INSTANCES],
    /// First raw index of each instance's group.
    raw_offset: [u32; PATTERN_INSTANCES],
    /// `digits[DIGITS_STRIDE * i + bits]`: instance i's base-order ternary value (digit 1 for
    /// each set bit) of the `pext` bits of its mask (bit j = the j-th lowest square).
    digits: Vec<u16>,
    /// Instances `mobility_from..` read the legal-move bitboards rather than the discs.
    mobility_from: usize,
}

/// Entries per instance in [`Instances::digits`] (patterns have at most 10 squares).
const DIGITS_STRIDE: usize = 1024;

impl Instances {
    /// Instance `i`'s base-order ternary value of the squares of `bits` it holds (digit 1 for
    /// each set square), by `pext` and the digit table.
    #[cfg(flank_pext)]
    #[inline(always)]
    fn digits_of(&self, i: usize, bits: u64) -> u16 {
        // SAFETY: `flank_pext` is set only for targets with BMI2 (build.rs).
        let b = unsafe { std::arch::x86_64::_pext_u64(bits, self.mask[i]) };
        self.digits[DIGITS_STRIDE * i + b as usize]
    }

    /// Instance `i`'s raw index for the sides `a` (digit 1) and `c` (digit 2).
    #[cfg(flank_pext)]
    #[inline(always)]
    fn index_of(&self, i: usize, a: u64, c: u64) -> u32 {
        self.raw_offset[i] + self.digits_of(i, a) as u32 + 2 * self.digits_of(i, c) as u32
    }
}

static INSTANCES: LazyLock<Instances> = LazyLock::new(|| {
    let layout = &*LAYOUT;
    let mut t = Instances {
        mask: [0; PATTERN_INSTANCES],
        raw_offset: [0; PATTERN_INSTANCES],
        digits: vec![0; DIGITS_STRIDE * PATTERN_INSTANCES],
        mobility_from: PATTERN_INSTANCES,
    };
    let mut i = 0;
    for (g, group) in layout.groups.iter().enumerate() {
        if g == FIRST_MOBILITY_GROUP {
            t.mobility_from = i;
        }
        for &si in &group.syms {
            let s = Symmetry::ALL[si];
            // Digit k reads the transformed board at squares[k], i.e. the original board at
            // the preimage of squares[k].
            let pre: Vec<u32> = group
                .squares
                .iter()
                .map(|&q| preimage(s, q) as u32)
                .collect();
            let mask = pre.iter().fold(0u64, |m, &x| m | 1u64 << x);
            for bits in 0..1usize << pre.len() {
                let mut v = 0u32;
                let mut rest = mask;
                for j in 0..pre.len() {
                    let sq = rest.trailing_zeros();
                    rest &= rest - 1;
                    if bits >> j & 1 == 1 {
                        v += pow3(pre.iter().position(|&x| x == sq).unwrap_or(0));
                    }
                }
                t.digits[DIGITS_STRIDE * i + bits] = v as u16;
            }
            t.mask[i] = mask;
            t.raw_offset[i] = group.raw_offset;
            i += 1;
        }
    }
    t
});

/// Lanes of one side of [`DiscDigits`]: the [`DISC_INSTANCES`] disc-pattern instances padded
/// to 48 (three 256-bit vectors of `u16`), so that adding a square's weights is one
/// fixed-length loop that the compiler vectorises.
const DIGIT_LANES: usize = 48;
/// Lanes of the mobility-pattern digits (the instances after the disc patterns).
const MOBILITY_LANES: usize = PATTERN_INSTANCES - DISC_INSTANCES;

/// For each square, its digit weight (3^k where it is digit k, else 0) in every pattern
/// instance: what one disc (or one legal move, for the mobility patterns) on that square adds
/// to each instance's ternary value. 7 KiB, so it stays in L1.
struct SquareWeights {
    disc: [[u16; DIGIT_LANES]; 64],
    mobility: [[u16; MOBILITY_LANES]; 64],
}

static SQUARE_WEIGHTS: LazyLock<SquareWeights> = LazyLock::new(|| {
    let t = &*INSTANCES;
    assert_eq!(t.mobility_from, DISC_INSTANCES);
    let mut s = SquareWeights {
        disc: [[0; DIGIT_LANES]; 64],
        mobility: [[0; MOBILITY_LANES]; 64],
    };
    for i in 0..PATTERN_INSTANCES {
        let mask = t.mask[i];
        let mut rest = mask;
        while rest != 0 {
            let sq = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let j = (mask & ((1u64 << sq) - 1)).count_ones();
            let w = t.digits[DIGITS_STRIDE * i + (1usize << j)];
            if i < DISC_INSTANCES {
                s.disc[sq][i] = w;
            } else {
                s.mobility[sq][i - DISC_INSTANCES] = w;
            }
        }
    }
    s
});

/// The sum of the rows of `table` of the squares set in `bits`, lane by lane.
#[inline(always)]
fn sum_rows<const N: usize>(table: &[[u16; N]; 64], bits: u64) -> [u16; N] {
    let mut acc = [0u16; N];
    let mut m = bits;
    while m != 0 {
        let row = &table[m.trailing_zeros() as usize & 63];
        m &= m - 1;
        for k in 0..N {
            acc[k] = acc[k].wrapping_add(row[k]);
        }
    }
    acc
}

/// The disc-pattern digits of a position: per disc-pattern instance, the ternary value of the
/// side to move's discs alone (`p`, digit 1 per disc) and of the opponent's (`o`); the
/// instance's index is `p + 2 o`. Both are linear in the discs, so a child's digits follow
/// from its parent's by the squares a move changes ([`DiscDigits::child`]): the cheap way to
/// evaluate every child of a node (Edax updates its feature indices in make-move the same
/// way). Used with `PatternEval::evaluate_child`. Lanes from [`DISC_INSTANCES`] on are 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiscDigits {
    p: [u16; DIGIT_LANES],
    o: [u16; DIGIT_LANES],
}

impl DiscDigits {
    /// The digits of the position with `p` the side to move's discs and `o` the opponent's.
    #[inline]
    pub fn new(p: u64, o: u64) -> DiscDigits {
        #[cfg(flank_pext)]
        {
            let t = &*INSTANCES;
            let read = |bits| {
                std::array::from_fn(|i| {
                    if i < DISC_INSTANCES {
                        t.digits_of(i, bits)
                    } else {
                        0
                    }
                })
            };
            DiscDigits {
                p: read(p),
                o: read(o),
            }
        }
        #[cfg(not(flank_pext))]
        DiscDigits::by_squares(p, o)
    }

    /// [`DiscDigits::new`] summed square by square, a vector of every instance's weights per
    /// disc (the portable path).
    #[inline]
    pub fn by_squares(p: u64, o: u64) -> DiscDigits {
        let w = &SQUARE_WEIGHTS.disc;
        DiscDigits {
            p: sum_rows(w, p),
            o: sum_rows(w, o),
        }
    }

    /// [`DiscDigits::new`] gathered instance by instance from the bitboards transformed by
    /// the 8 symmetries (the reference of the tests).
    pub fn by_gather(p: u64, o: u64) -> DiscDigits {
        let mut d = DiscDigits {
            p: [0; DIGIT_LANES],
            o: [0; DIGIT_LANES],
        };
        gather_digits(p, 0..FIRST_MOBILITY_GROUP, &mut d.p);
        gather_digits(o, 0..FIRST_MOBILITY_GROUP, &mut d.o);
        d
    }

    /// The digits of the child after the side to move plays square `x` (0–63) flipping the
    /// discs `flipped`: the opponent is then to move, so the sides swap.
    #[inline]
    pub fn child(&self, x: u32, flipped: u64) -> DiscDigits {
        // The child's side to move is the parent's opponent, who loses the flipped discs; the
        // child's opponent is the parent's mover, who gains them and x.
        let w = &SQUARE_WEIGHTS.disc;
        let f = sum_rows(w, flipped);
        let wx = &w[x as usize & 63];
        DiscDigits {
            p: std::array::from_fn(|k| self.o[k].wrapping_sub(f[k])),
            o: std::array::from_fn(|k| self.p[k].wrapping_add(f[k]).wrapping_add(wx[k])),
        }
    }

    /// Writes the raw indices of the disc-pattern instances (`out[..DISC_INSTANCES]`).
    #[inline(always)]
    fn write_indices(&self, out: &mut [u32; FEATURES_PER_POSITION]) {
        let t = &*INSTANCES;
        for (i, x) in out[..DISC_INSTANCES].iter_mut().enumerate() {
            *x = t.raw_offset[i] + self.p[i] as u32 + 2 * self.o[i] as u32;
        }
    }
}

/// [`raw_indices`] of `b` given its disc digits `d` ([`DiscDigits`] of `b`) and `lp`, the side
/// to move's legal moves; the result is the same.
#[inline]
pub fn raw_indices_with(
    b: &Board,
    d: &DiscDigits,
    lp: u64,
    out: &mut [u32; FEATURES_PER_POSITION],
) {
    d.write_indices(out);
    let lo = get_moves(b.opponent, b.player);
    mobility_indices(lp, lo & !lp, out);
    global_indices(b, lp, lo, out);
}

/// Writes the raw table indices (into one phase's table of [`Layout::raw_len`] weights) of all
/// [`FEATURES_PER_POSITION`] features of `b` into `out`.
#[inline]
pub fn raw_indices(b: &Board, out: &mut [u32; FEATURES_PER_POSITION]) {
    let (p, o) = (b.player, b.opponent);
    raw_indices_with(b, &DiscDigits::new(p, o), get_moves(p, o), out);
}

/// The raw indices of the mobility-pattern instances (`out[DISC_INSTANCES..PATTERN_INSTANCES]`)
/// of the legal moves `lp` of the side to move (digit 1) and `lo_only` of the opponent only
/// (digit 2): by `pext` where it is fast, else summed square by square.
#[inline(always)]
fn mobility_indices(lp: u64, lo_only: u64, out: &mut [u32; FEATURES_PER_POSITION]) {
    #[cfg(flank_pext)]
    {
        let t = &*INSTANCES;
        for (i, x) in out[..PATTERN_INSTANCES]
            .iter_mut()
            .enumerate()
            .skip(DISC_INSTANCES)
        {
            *x = t.index_of(i, lp, lo_only);
        }
    }
    #[cfg(not(flank_pext))]
    {
        let w = &SQUARE_WEIGHTS.mobility;
        write_mobility_indices(&sum_rows(w, lp), &sum_rows(w, lo_only), out);
    }
}

/// Writes the raw indices of the mobility-pattern instances from their digits: `a` of the
/// side to move's legal moves (digit 1), `c` of the opponent's only (digit 2).
#[inline(always)]
fn write_mobility_indices(
    a: &[u16; MOBILITY_LANES],
    c: &[u16; MOBILITY_LANES],
    out: &mut [u32; FEATURES_PER_POSITION],
) {
    let t = &*INSTANCES;
    for k in 0..MOBILITY_LANES {
        let i = DISC_INSTANCES + k;
        out[i] = t.raw_offset[i] + a[k] as u32 + 2 * c[k] as u32;
    }
}

/// The base-order ternary digits (digit 1 for each set square) of `bits` in every instance
/// of the pattern groups `groups`, in instance order, into `out`: each instance gathered from
/// the bitboard transformed by its symmetry.
fn gather_digits(bits: u64, groups: std::ops::Range<usize>, out: &mut [u16]) {
    let layout = &*LAYOUT;
    let tern = &*TERNARY;
    let images = Symmetry::ALL.map(|s| s.apply(bits));
    let mut n = 0;
    for g in groups {
        for &s in &layout.groups[g].syms {
            out[n] = tern[gather(g, images[s]) as usize] as u16;
            n += 1;
        }
    }
}

/// [`raw_indices`] by another method, the reference of the tests: transforms the bitboards by
/// the 8 symmetries and gathers each base pattern by shifts and masks.
pub fn raw_indices_by_gather(b: &Board, out: &mut [u32; FEATURES_PER_POSITION]) {
    let (p, o) = (b.player, b.opponent);
    let (lp, lo) = (get_moves(p, o), get_moves(o, p));
    DiscDigits::by_gather(p, o).write_indices(out);
    let mobility = FIRST_MOBILITY_GROUP..LAYOUT.groups.len();
    let (mut a, mut c) = ([0u16; MOBILITY_LANES], [0u16; MOBILITY_LANES]);
    gather_digits(lp, mobility.clone(), &mut a);
    gather_digits(lo & !lp, mobility, &mut c);
    write_mobility_indices(&a, &c, out);
    global_indices(b, lp, lo, out);
}

/// The raw indices of the global features (after the pattern instances); `lp` and `lo` are the
/// legal moves of the side to move and of the opponent.
#[inline]
fn global_indices(b: &Board, lp: u64, lo: u64, out: &mut [u32; FEATURES_PER_POSITION]) {
    let layout = &*LAYOUT;
    let (p, o) = (b.player, b.opponent);
    let empty = !(p | o);
    let mp = lp.count_ones().min(MOBILITY_CAP);
    let mo = lo.count_ones().min(MOBILITY_CAP);
    let pp = (neighbours(o) & empty).count_ones().min(POTENTIAL_CAP);
    let po = (neighbours(p) & empty).count_ones().min(POTENTIAL_CAP);
    const QUADRANTS: [u64; 4] = [
        0x0000_0000_0F0F_0F0F,
        0x0000_0000_F0F0_F0F0,
        0x0F0F_0F0F_0000_0000,
        0xF0F0_F0F0_0000_0000,
    ];
    let odd = QUADRANTS
        .iter()
        .filter(|&&q| (empty & q).count_ones() & 1 == 1)
        .count() as u32;
    let g0 = layout.global_raw;
    out[PATTERN_INSTANCES] = g0 + MOB_P + mp;
    out[PATTERN_INSTANCES + 1] = g0 + MOB_O + mo;
    out[PATTERN_INSTANCES + 2] = g0 + POT_P + pp;
    out[PATTERN_INSTANCES + 3] = g0 + POT_O + po;
    out[PATTERN_INSTANCES + 4] = g0 + PARITY + (empty.count_ones() & 1) * 5 + odd;
    out[PATTERN_INSTANCES + 5] = g0 + BIAS;
    for (k, &q) in QUADRANTS.iter().enumerate() {
        let e = (empty & q).count_ones().min(4);
        let code = e * 4 + 2 * u32::from(lp & q != 0) + u32::from(lo & q != 0);
        out[PATTERN_INSTANCES + 6 + k] = g0 + QUAD + code;
    }
    const CORNERS: u64 = 0x8100_0000_0000_0081;
    out[PATTERN_INSTANCES + 10] =
        g0 + CORNER_MOVES + (lp & CORNERS).count_ones() * 5 + (lo & CORNERS).count_ones();
}

/// Writes the compact feature ids of `b` (see [`Layout::raw_to_compact`]) into `out`.
pub fn compact_features(b: &Board, out: &mut [u32; FEATURES_PER_POSITION]) {
    raw_indices(b, out);
    let map = &LAYOUT.raw_to_compact;
    for x in out.iter_mut() {
        *x = map[*x as usize];
    }
}

/// Fixed-point scale of the weights: a weight of [`SCALE`] is one disc.
pub const SCALE: i32 = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_counts() {
        let l = &*LAYOUT;
        let inst: usize = l.groups.iter().map(|g| g.syms.len()).sum();
        assert_eq!(inst, PATTERN_INSTANCES);
        let per: Vec<usize> = l.groups.iter().map(|g| g.syms.len()).collect();
        assert_eq!(per, vec![4, 8, 4, 4, 4, 4, 2, 4, 4, 4, 4, 4, 4]);
        // The 3×3 corner folds under the diagonal mirror: (3^9 + 3^6) / 2 classes.
        assert_eq!(l.groups[0].compact_len, (19683 + 729) / 2);
        // The 2×5 corner has no self-symmetry.
        assert_eq!(l.groups[1].compact_len, 59049);
        // A row folds under the mirror: (3^8 + 3^4) / 2.
        assert_eq!(l.groups[3].compact_len, (6561 + 81) / 2);
    }

    /// The indices of the build's path (`pext`, or the per-square weight vectors without it)
    /// equal those of the gather over the 8 transformed bitboards on random positions.
    #[test]
    fn indices_match_the_gather() {
        let mut b = Board::start();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..3000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let moves = b.moves();
            if moves == 0 {
                b = if b.opponent_moves() == 0 {
                    Board::start()
                } else {
                    b.pass()
                };
                continue;
            }
            let k = (x % moves.count_ones() as u64) as usize;
            let sq = b.legal_moves().nth(k).expect("k < move count");
            b = b.make_move(sq);
            let (mut fast, mut slow) =
                ([0u32; FEATURES_PER_POSITION], [0u32; FEATURES_PER_POSITION]);
            raw_indices(&b, &mut fast);
            raw_indices_by_gather(&b, &mut slow);
            assert_eq!(fast, slow, "{b:?}");
        }
    }

    #[test]
    fn gather_matches_reference() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for g in 0..GROUPS.len() {
                assert_eq!(
                    gather_fast(g, x),
                    gather_slow(g, x),
                    "group {g} board {x:#x}"
                );
            }
        }
    }
}
