//! The exact and WLD endgame solver: null-window search (NWS) with PVS at PV nodes,
//! fastest-first ordering (weighing the child's evaluation from 12 empties, shallow midgame
//! searches with ProbCut from 17), quadrant parity near the leaves, special code for the last 1–4
//! empties, stability cutoffs (both signs) and the shared transposition table (TT).
//!
//! The structure follows the well-known design of Edax and Zebra (Gunnar Andersson's
//! endgame notes): scores are final disc differences (empties to the winner); WLD is the same
//! search with the window (−1, 1). [`Searcher`] is the per-thread search state (node count,
//! stop flag, deadline) and is shared with [`crate::search::midgame`].
//!
//! An exact root solve at [`probcut::MPC_ROOT_EMPTIES`]–[`probcut::MPC_ROOT_MAX_EMPTIES`]
//! empties (to [`probcut::MPC_ROOT_MAX_EMPTIES_LARGE_TT`] with a table of at least
//! [`probcut::MPC_LARGE_TT_BUCKETS`] buckets) first runs selective pre-searches with endgame
//! multi-ProbCut (MPC) at increasing confidence ([`crate::search::probcut`]); they leave best moves,
//! selective bounds (marked by their level in the TT, never trusted by the exact pass) and
//! proven results below
//! [`probcut::MPC_MIN_EMPTIES`] for the final exact pass, and the last one's score centres its
//! aspiration window.

use std::mem::MaybeUninit;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;

use crate::eval::{ChildEval, evaluate};
use crate::othello::board::{Board, SCORE_INF, Score, neighbours};
use crate::othello::square::{Move, Square};
use crate::search::probcut;
use crate::search::tt::{Bound, TranspositionTable};

/// Empties at and above which the endgame NWS probes and stores the TT. 8 since session 18
/// (was 7, chosen in session 3 by instruction counts at 64 MiB, which do not see memory
/// latency): with a 1 GiB table nearly every probe at 7 empties waits for memory, and not
/// probing there costs +7.4 % nodes but saves 6–12 % time on each of FFO #40–#51 (1 thread,
/// `--hash 1024`, two interleaved runs each; `flank bench` at 64 MiB about −5 %).
pub const TT_MIN_EMPTIES: u32 = 8;
/// Empties at and above which moves are sorted fastest-first (below: parity ordering).
pub const FASTEST_FIRST_EMPTIES: u32 = 7;
/// Empties at and above which the root solve uses an aspiration window.
pub const ASPIRATION_SOLVE_EMPTIES: u32 = 16;

/// Empties at and above which the NWS tries an enhanced transposition cutoff.
pub const ETC_EMPTIES: u32 = 10;

/// Empties at and above which moves are ordered by a shallow midgame search (below, down to
/// [`FASTEST_FIRST_EMPTIES`], fastest-first with the evaluation of [`EVAL_ORDER_EMPTIES`]).
/// 17 since session 25 (was 16), with the deeper [`order_depth`] schedule and
/// [`ORDER_MPC_T`].
pub const SEARCH_ORDER_EMPTIES: u32 = 17;

/// Empties at and above which the exact pass skips the ordering searches (fastest-first
/// instead) at a node whose selective TT bound (from the MPC pre-searches) is at or below
/// alpha: an expected ALL node, whose moves are all searched whatever their order. FFO
/// #40–#48 (1 thread, 256 MiB) −1.3 % nodes; from 16 it cost 0.4–0.7 % on roots of 18–21
/// empties (the ordering searches are 3+ plies from 19).
pub const EXPECT_ALL_EMPTIES: u32 = 19;

/// Empties at and above which (up to [`SEARCH_ORDER_EMPTIES`]) the fastest-first keys also
/// weigh the child's static evaluation, [`EVAL_ORDER_WEIGHT`] key units per disc (one
/// opponent move is 64), as Edax's `movelist_evaluate` mixes evaluation and mobility. On FFO
/// #40–#48 (1 thread, 256 MiB) 522.3 M → 473.3 M nodes (−9.4 %), #45–#52 2,841 M → 2,562 M
/// (−9.8 %), time about the same (the evaluations cost what the nodes saved); from 11
/// empties −12.4 % nodes but +31 % time; weights 6–11 within 0.3 % of each other.
pub const EVAL_ORDER_EMPTIES: u32 = 12;

/// Key units per disc of the child's evaluation in the ordering of [`EVAL_ORDER_EMPTIES`].
pub const EVAL_ORDER_WEIGHT: i32 = 8;

/// Depth in plies of the ordering searches from [`SEARCH_ORDER_EMPTIES`] (17) empties: 2 at
/// 17, 3 at 18, 4 at 19, 5 at 20–22, 6 at 23–26, 7 from 27 (session 17's schedule, which
/// searched fewer nodes but took more time, plus 7 plies from 27; session 25 made it pay
/// with [`ORDER_MPC_T`]; 8 plies from 29 did not pay). Below 17 (no ordering search) 1.
pub fn order_depth(empties: u32) -> i32 {
    match empties {
        0..SEARCH_ORDER_EMPTIES => 1,
        17 => 2,
        18 => 3,
        19 => 4,
        20..23 => 5,
        23..27 => 6,
        _ => 7,
    }
}

/// Confidence `t` (standard deviations) of the midgame multi-ProbCut inside the solver's
/// ordering searches (`Searcher::search_order`; the calibration of the active evaluation,
/// none with `--eval classic`). The ordering needs only an estimate, so its searches cut as
/// the midgame search does; the exact result never depends on it. With the deeper
/// [`order_depth`] (up to 6 plies instead of 4), FFO #45–#52 (1 thread, 1 GiB) 2,698.7 M →
/// 1,928.6 M nodes (without the ProbCut 1,951.4 M) in 17 % less time (7 % without); `t`
/// 1.0 and 2.0 within 1 % of 1.5 in nodes.
pub const ORDER_MPC_T: f64 = 1.5;

/// Empties at and above which a parallel NWS node splits its moves after the first (YBWC).
pub const SPLIT_EMPTIES: u32 = 12;

/// Plies at and above which a node of the parallel midgame search splits its moves after the
/// first (YBWC, [`Searcher::set_mid_split`]).
pub const MID_SPLIT_DEPTH: i32 = 4;

/// The cutoff flag of one YBWC split point, chained to the split points above it: a search
/// under a split point stops as soon as any flag on its chain is set.
struct Cut {
    flag: AtomicBool,
    parent: Option<Arc<Cut>>,
}

impl Cut {
    /// True if this split point or one above it was cut off.
    fn is_set(&self) -> bool {
        let mut c = self;
        loop {
            if c.flag.load(Ordering::Relaxed) {
                return true;
            }
            match &c.parent {
                Some(p) => c = p,
                None => return false,
            }
        }
    }
}

/// The 8-neighbourhood of each square: a move there can only flip if an opponent disc is in it.
const NEIGHBOUR: [u64; 64] = {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let x = 1u64 << sq;
        let h = ((x << 1) & 0xFEFE_FEFE_FEFE_FEFE) | ((x >> 1) & 0x7F7F_7F7F_7F7F_7F7F);
        let v = x | h;
        t[sq] = h | (v << 8) | (v >> 8);
        sq += 1;
    }
    t
};

/// Discs of `o` flipped when `p` plays the empty square `x` (0–63); 0 if the move is illegal.
/// The same result as [`crate::othello::board::flips`]; with AVX2 the 8 rays are done 4 at a time
/// without branches (see `flips_avx2`), else per ray by [`crate::othello::board::flips_rays`].
#[inline(always)]
pub fn flips(p: u64, o: u64, x: u32) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        flips_avx2(p, o, x)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        crate::othello::board::flips_rays(p, o, x)
    }
}

/// Legal moves of `p` against `o` as a bitboard: the same result as
/// [`crate::othello::board::get_moves`]; with AVX2 the 4 directions of each sense are filled at once
/// (Kogge–Stone fills with per-lane shifts 1, 8, 9, 7).
#[inline(always)]
pub fn get_moves(p: u64, o: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        use std::arch::x86_64::*;
        // SAFETY: AVX2 is enabled at compile time (cfg above); only register operations.
        unsafe {
            let pp = _mm256_set1_epi64x(p as i64);
            // Opponent discs that may be jumped: columns a and h excluded except vertically.
            let om = _mm256_and_si256(
                _mm256_set1_epi64x(o as i64),
                _mm256_set_epi64x(
                    0x7E7E_7E7E_7E7E_7E7E,
                    0x7E7E_7E7E_7E7E_7E7E,
                    -1,
                    0x7E7E_7E7E_7E7E_7E7E,
                ),
            );
            let sh = _mm256_set_epi64x(7, 9, 8, 1);
            let sh2 = _mm256_add_epi64(sh, sh);
            // Towards higher indices.
            let mut f = _mm256_and_si256(om, _mm256_sllv_epi64(pp, sh));
            f = _mm256_or_si256(f, _mm256_and_si256(om, _mm256_sllv_epi64(f, sh)));
            let pre_up = _mm256_and_si256(om, _mm256_sllv_epi64(om, sh));
            f = _mm256_or_si256(f, _mm256_and_si256(pre_up, _mm256_sllv_epi64(f, sh2)));
            f = _mm256_or_si256(f, _mm256_and_si256(pre_up, _mm256_sllv_epi64(f, sh2)));
            let mut m = _mm256_sllv_epi64(f, sh);
            // Towards lower indices (the pairs of jumpable discs are the same pairs shifted).
            let mut f = _mm256_and_si256(om, _mm256_srlv_epi64(pp, sh));
            f = _mm256_or_si256(f, _mm256_and_si256(om, _mm256_srlv_epi64(f, sh)));
            let pre = _mm256_srlv_epi64(pre_up, sh);
            f = _mm256_or_si256(f, _mm256_and_si256(pre, _mm256_srlv_epi64(f, sh2)));
            f = _mm256_or_si256(f, _mm256_and_si256(pre, _mm256_srlv_epi64(f, sh2)));
            m = _mm256_or_si256(m, _mm256_srlv_epi64(f, sh));
            let h = _mm_or_si128(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
            let h = _mm_or_si128(h, _mm_unpackhi_epi64(h, h));
            (_mm_cvtsi128_si64(h) as u64) & !(p | o)
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        crate::othello::board::get_moves(p, o)
    }
}

/// [`LAST_RAYS`] aligned for 256-bit loads: the 4 rays towards higher indices, then the 4
/// towards lower indices.
#[repr(C, align(32))]
struct AlignedRays([[u64; 8]; 64]);
static RAYS_ALIGNED: AlignedRays = AlignedRays(LAST_RAYS);

/// [`flips`] with AVX2, the 4 rays of each half in the 4 lanes of a 256-bit vector.
/// Rays towards higher indices: the first square not holding an opponent disc is the lowest
/// set bit of `ray & !o` (`b & -b`); the flips are the ray below it if it holds a disc of `p`.
/// Rays towards lower indices: the first such square is the highest set bit, found by
/// smearing the bits down the ray (`s |= s >> d, 2d, 4d` for the ray's step d, 1, 8, 9 or 7:
/// a ray has at most 7 squares); it is the one square of the smear not in the smear shifted
/// by one more step, and the flips are the ray above the smear if that square holds a disc of
/// `p`. The idea of vectorising the directions follows Toshihiko Okuhara's AVX2 flips for
/// Edax (our own code).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
pub fn flips_avx2(p: u64, o: u64, x: u32) -> u64 {
    use std::arch::x86_64::*;
    let rays = &RAYS_ALIGNED.0[x as usize & 63];
    // SAFETY: AVX2 is enabled at compile time (cfg above); the loads read 32 bytes from a
    // 32-byte aligned `[u64; 8]` row (offsets 0 and 4).
    unsafe {
        let pp = _mm256_set1_epi64x(p as i64);
        let oo = _mm256_set1_epi64x(o as i64);
        let zero = _mm256_setzero_si256();
        let up = _mm256_load_si256(rays.as_ptr() as *const __m256i);
        let dn = _mm256_load_si256(rays.as_ptr().add(4) as *const __m256i);
        // Towards higher indices.
        let bl = _mm256_andnot_si256(oo, up);
        let first = _mm256_and_si256(bl, _mm256_sub_epi64(zero, bl));
        let out = _mm256_and_si256(first, pp);
        let below = _mm256_add_epi64(out, _mm256_cmpeq_epi64(zero, zero));
        let f_up = _mm256_and_si256(
            _mm256_andnot_si256(_mm256_cmpeq_epi64(out, zero), below),
            up,
        );
        // Towards lower indices, each lane shifting by its direction's step d (1, 8, 9, 7).
        let d1 = _mm256_set_epi64x(7, 9, 8, 1);
        let d2 = _mm256_add_epi64(d1, d1);
        let d4 = _mm256_add_epi64(d2, d2);
        let bl = _mm256_andnot_si256(oo, dn);
        let mut sm = _mm256_or_si256(bl, _mm256_srlv_epi64(bl, d1));
        sm = _mm256_or_si256(sm, _mm256_srlv_epi64(sm, d2));
        sm = _mm256_or_si256(sm, _mm256_srlv_epi64(sm, d4));
        let out = _mm256_andnot_si256(_mm256_srlv_epi64(sm, d1), _mm256_and_si256(dn, pp));
        let f_dn = _mm256_andnot_si256(_mm256_cmpeq_epi64(out, zero), _mm256_andnot_si256(sm, dn));
        let f = _mm256_or_si256(f_up, f_dn);
        let h = _mm_or_si128(_mm256_castsi256_si128(f), _mm256_extracti128_si256(f, 1));
        let h = _mm_or_si128(h, _mm_unpackhi_epi64(h, h));
        _mm_cvtsi128_si64(h) as u64
    }
}

/// Flips of `p` playing `x` against `o`, skipping the full computation when no opponent disc
/// touches `x`.
#[inline(always)]
fn flips_near(p: u64, o: u64, x: u32) -> u64 {
    if NEIGHBOUR[x as usize & 63] & o == 0 {
        0
    } else {
        flips(p, o, x)
    }
}

/// For each square, its 8 rays (squares in one direction, nearest first, edge excluded):
/// the first 4 towards higher indices (E, N, NE, NW as a1 → h8 runs), the last 4 towards lower.
const LAST_RAYS: [[u64; 8]; 64] = {
    let mut t = [[0u64; 8]; 64];
    // (column step, row step): increasing-index directions first.
    let dirs: [(i32, i32); 8] = [
        (1, 0),
        (0, 1),
        (1, 1),
        (-1, 1),
        (-1, 0),
        (0, -1),
        (-1, -1),
        (1, -1),
    ];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (dc, dr) = dirs[d];
            let (mut c, mut r) = ((sq % 8) as i32 + dc, (sq / 8) as i32 + dr);
            let mut m = 0u64;
            while c >= 0 && c < 8 && r >= 0 && r < 8 {
                m |= 1u64 << (r * 8 + c);
                c += dc;
                r += dr;
            }
            t[sq][d] = m;
            d += 1;
        }
        sq += 1;
    }
    t
};

/// Number of discs flipped when the side owning `p` plays `x`, the board's only empty square
/// (every other square not in `p` belongs to the opponent). Counts without building the
/// flipped set. With BMI2: for each of the 4 lines through `x`, the line's discs of `p` are
/// gathered into an 8-bit pattern (`pext`) and a table gives the flips on that line (the
/// table idea is Edax's `count_last_flip`); else [`last_flip_count_rays`].
#[inline(always)]
pub fn last_flip_count(p: u64, x: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        use std::arch::x86_64::_pext_u64;
        let l = &LAST_FLIP_LINES[x as usize & 63];
        // SAFETY: BMI2 is enabled at compile time (cfg above).
        unsafe {
            (l.row[0][_pext_u64(p, l.mask[0]) as usize & 255]
                + l.row[1][_pext_u64(p, l.mask[1]) as usize & 255]
                + l.row[2][_pext_u64(p, l.mask[2]) as usize & 255]
                + l.row[3][_pext_u64(p, l.mask[3]) as usize & 255]) as u32
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        last_flip_count_rays(p, x)
    }
}

/// The 4 lines (row, column, a1–h8 diagonal, h1–a8 diagonal) through a square: their masks
/// and the square's position among each line's squares in index order.
#[derive(Clone, Copy)]
struct Lines {
    mask: [u64; 4],
    pos: [u8; 4],
}

/// [`Lines`] of each square.
const LINES: [Lines; 64] = {
    let mut t = [Lines {
        mask: [0; 4],
        pos: [0; 4],
    }; 64];
    let mut sq = 0;
    while sq < 64 {
        let (c, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut m = [0u64; 4];
        let mut i = 0usize;
        while i < 64 {
            let (ci, ri) = ((i % 8) as i32, (i / 8) as i32);
            if ri == r {
                m[0] |= 1 << i;
            }
            if ci == c {
                m[1] |= 1 << i;
            }
            if ci - ri == c - r {
                m[2] |= 1 << i;
            }
            if ci + ri == c + r {
                m[3] |= 1 << i;
            }
            i += 1;
        }
        let mut k = 0;
        while k < 4 {
            t[sq].mask[k] = m[k];
            t[sq].pos[k] = (m[k] & ((1u64 << sq) - 1)).count_ones() as u8;
            k += 1;
        }
        sq += 1;
    }
    t
};

/// [`LINE_FLIP_COUNT`] as a static, so that [`LAST_FLIP_LINES`] can point into it.
static LINE_FLIP_COUNT_ROWS: [[u8; 256]; 8] = LINE_FLIP_COUNT;

/// For each square, the masks of its 4 lines and, for each line, the row of
/// [`LINE_FLIP_COUNT`] for the square's position on it (one 64-byte cache line per square:
/// [`last_flip_count`] needs no position arithmetic).
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct LastFlipLines {
    mask: [u64; 4],
    row: [&'static [u8; 256]; 4],
}

/// [`LastFlipLines`] of each square, from [`LINES`].
static LAST_FLIP_LINES: [LastFlipLines; 64] = {
    let mut t = [LastFlipLines {
        mask: [0; 4],
        row: [&LINE_FLIP_COUNT_ROWS[0]; 4],
    }; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut k = 0;
        while k < 4 {
            t[sq].mask[k] = LINES[sq].mask[k];
            t[sq].row[k] = &LINE_FLIP_COUNT_ROWS[LINES[sq].pos[k] as usize];
            k += 1;
        }
        sq += 1;
    }
    t
};

/// `LINE_FLIP_COUNT[pos][pattern]`: discs flipped on a line of 8 by a move at `pos` when
/// `pattern` has the mover's discs and every other square holds an opponent disc. Squares past
/// the end of a shorter line read as opponent discs, which a move can never bracket.
const LINE_FLIP_COUNT: [[u8; 256]; 8] = {
    let mut t = [[0u8; 256]; 8];
    let mut pos = 0;
    while pos < 8 {
        let mut pat = 0;
        while pat < 256 {
            let mut n = 0;
            // Towards lower positions.
            let mut j = pos as i32 - 1;
            let mut run = 0;
            while j >= 0 && pat & (1 << j) == 0 {
                run += 1;
                j -= 1;
            }
            if j >= 0 {
                n += run;
            }
            // Towards higher positions.
            let mut j = pos + 1;
            let mut run = 0;
            while j < 8 && pat & (1 << j) == 0 {
                run += 1;
                j += 1;
            }
            if j < 8 {
                n += run;
            }
            t[pos][pat] = n as u8;
            pat += 1;
        }
        pos += 1;
    }
    t
};

/// [`last_flip_count`] ray by ray: on each ray the flips are the opponent discs before the
/// nearest disc of `p`.
#[inline(always)]
pub fn last_flip_count_rays(p: u64, x: u32) -> u32 {
    let rays = &LAST_RAYS[x as usize];
    let mut n = 0;
    for r in &rays[..4] {
        let mine = r & p;
        // Squares of the ray below the nearest own disc (all of it if none: then no flips).
        let before = mine.wrapping_sub(1) & !mine & r;
        n += if mine != 0 { before.count_ones() } else { 0 };
    }
    for r in &rays[4..] {
        let mine = r & p;
        if mine != 0 {
            let above = r & !((1u64 << (63 - mine.leading_zeros())) << 1).wrapping_sub(1);
            n += above.count_ones();
        }
    }
    n
}

/// Nodes between two checks of the stop flag and the deadline.
const CHECK_INTERVAL: u64 = 4096;

const CORNERS: u64 = 0x8100_0000_0000_0081;
const X_AND_C: u64 = 0x42C3_0000_0000_C342;
/// Move priority groups for parity ordering: corners, then plain squares, then X/C-squares.
const PRIORITY: [u64; 3] = [CORNERS, !(CORNERS | X_AND_C), X_AND_C];
/// The four 4×4 quadrants (a1–d4, e1–h4, a5–d8, e5–h8), the reference for [`odd_quadrants`].
#[cfg(test)]
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0F0F_0F0F,
    0x0000_0000_F0F0_F0F0,
    0x0F0F_0F0F_0000_0000,
    0xF0F0_F0F0_0000_0000,
];

/// Union of the quadrants that hold an odd number of empties (quadrant parity). Without
/// popcounts: the xor-folds put each quadrant's parity in the bit of its a1-most square
/// (a1, e1, a5, e5: columns folded by 1 and 2, rows by 8 and 16), and a multiply spreads each
/// such bit over its quadrant.
#[inline]
pub fn odd_quadrants(empty: u64) -> u64 {
    let mut x = empty ^ (empty >> 1);
    x ^= x >> 2;
    x ^= x >> 8;
    x ^= x >> 16;
    (x & 0x0000_0011_0000_0011).wrapping_mul(0x0F0F_0F0F)
}

/// The final disc difference of `(p, o)` (empties to the winner), as [`Board::final_score`].
#[inline]
fn final_score(p: u64, o: u64) -> Score {
    Board {
        player: p,
        opponent: o,
    }
    .final_score()
}

/// [`crate::search::midgame::leaf_eval`] of `(p, o)` given `moves`, the side to move's moves (only
/// whether it is 0 matters): the evaluation, minus the evaluation after a pass, or the final
/// score.
#[inline]
pub(crate) fn leaf_value(p: u64, o: u64, moves: u64) -> Score {
    if moves != 0 {
        evaluate(&Board {
            player: p,
            opponent: o,
        })
    } else if get_moves(o, p) != 0 {
        -evaluate(&Board {
            player: o,
            opponent: p,
        })
    } else {
        final_score(p, o)
    }
}

/// [`leaf_value`] of the child `(cp, co)` of a position, reached by playing `x` flipping
/// `flipped`, given the child's moves `cm` and the parent's [`ChildEval`]: the same value.
#[inline]
fn child_value(ce: &ChildEval, cp: u64, co: u64, x: u32, flipped: u64, cm: u64) -> Score {
    if cm != 0 {
        ce.evaluate(cp, co, x, flipped, cm)
    } else {
        leaf_value(cp, co, 0)
    }
}

/// Masks of the 15 a1–h8 diagonals and 15 h1–a8 anti-diagonals of length ≥ 1.
#[cfg(test)]
const fn diagonal_masks() -> [u64; 30] {
    let mut out = [0u64; 30];
    let mut sq: i32 = 0;
    while sq < 64 {
        let c = sq % 8;
        let r = sq / 8;
        out[(c - r + 7) as usize] |= 1u64 << sq;
        out[15 + (c + r) as usize] |= 1u64 << sq;
        sq += 1;
    }
    out
}
#[cfg(test)]
const DIAGONALS: [u64; 30] = diagonal_masks();

/// The squares of `filled` whose a1–h8 diagonal (first) and h1–a8 diagonal (second) are
/// completely filled: in each direction, a square is kept if the next 1, then 2, then 4
/// squares along the line are filled or off the board (three doubling steps), as in Edax's
/// full-line computation.
#[inline]
fn full_diagonals(filled: u64) -> (u64, u64) {
    // +9 (towards h8): squares whose next 1, 2, 4 squares leave the board.
    let mut u = filled & ((filled >> 9) | 0xFF80_8080_8080_8080);
    u &= (u >> 18) | 0xFFFF_C0C0_C0C0_C0C0;
    u &= (u >> 36) | 0xFFFF_FFFF_F0F0_F0F0;
    // −9 (towards a1).
    let mut d = filled & ((filled << 9) | 0x0101_0101_0101_01FF);
    d &= (d << 18) | 0x0303_0303_0303_FFFF;
    d &= (d << 36) | 0x0F0F_0F0F_FFFF_FFFF;
    // +7 (towards a8).
    let mut u7 = filled & ((filled >> 7) | 0xFF01_0101_0101_0101);
    u7 &= (u7 >> 14) | 0xFFFF_0303_0303_0303;
    u7 &= (u7 >> 28) | 0xFFFF_FFFF_0F0F_0F0F;
    // −7 (towards h1).
    let mut d7 = filled & ((filled << 7) | 0x8080_8080_8080_80FF);
    d7 &= (d7 << 14) | 0xC0C0_C0C0_C0C0_FFFF;
    d7 &= (d7 << 28) | 0xF0F0_F0F0_FFFF_FFFF;
    (u & d, u7 & d7)
}

/// Column a (the a1–a8 edge).
const COL_A: u64 = 0x0101_0101_0101_0101;
/// Column h (the h1–h8 edge).
const COL_H: u64 = 0x8080_8080_8080_8080;

/// The runs of `line` (an 8-bit edge, bit 0 at one corner) that start at either corner.
#[inline(always)]
fn corner_runs(line: u64) -> u64 {
    let low = line & !(line + 1);
    let lead = (!line & 0xFF).leading_zeros() - 56;
    low | ((0xFF00 >> lead) & 0xFF)
}

/// The discs of `p` on the four edges that join an own corner through own discs along their
/// edge: stable, since the edge line holds them (no flip along it) and the board's border is
/// their neighbour on the other three axes. Found in one step instead of one square per
/// fixpoint round.
#[inline]
fn edge_runs(p: u64) -> u64 {
    let rows = corner_runs(p & 0xFF) | (corner_runs(p >> 56) << 56);
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    let cols = {
        use std::arch::x86_64::{_pdep_u64, _pext_u64};
        // SAFETY: the `bmi2` target feature is enabled at compile time.
        unsafe {
            _pdep_u64(corner_runs(_pext_u64(p, COL_A)), COL_A)
                | _pdep_u64(corner_runs(_pext_u64(p, COL_H)), COL_H)
        }
    };
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    let cols = edge_runs_columns(p);
    rows | cols
}

/// The column part of [`edge_runs`] without BMI2: the runs up and down columns a and h grown
/// one square per round.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
fn edge_runs_columns(p: u64) -> u64 {
    let (mut a1, mut a8, mut h1, mut h8) = (p & 1, p & (1 << 56), p & (1 << 7), p & (1 << 63));
    for _ in 0..7 {
        a1 |= p & COL_A & (a1 << 8);
        a8 |= p & COL_A & (a8 >> 8);
        h1 |= p & COL_H & (h1 << 8);
        h8 |= p & COL_H & (h8 >> 8);
    }
    a1 | a8 | h1 | h8
}

/// Discs of `p` that can never be flipped by either side (a sound under-estimate of the stable
/// discs): a disc is stable if along each of the 4 axes its line is full, or a neighbour on the
/// axis is the board edge or a stable disc of the same colour. Iterated to a fixpoint.
pub fn stable_discs(p: u64, o: u64) -> u64 {
    const ROW_1: u64 = 0xFF;
    const ROW_8: u64 = 0xFF << 56;
    const EDGE: u64 = COL_A | COL_H | ROW_1 | ROW_8;
    const NOT_A: u64 = !COL_A;
    const NOT_H: u64 = !COL_H;
    let filled = p | o;
    let mut h = filled & (filled >> 1);
    h &= h >> 2;
    h &= h >> 4;
    let full_h = (h & COL_A) * 0xFF;
    let mut v = filled & filled.rotate_right(8);
    v &= v.rotate_right(16);
    v &= v.rotate_right(32);
    let full_v = v;
    let (full_d9, full_d7) = full_diagonals(filled);
    let ax_h = full_h | COL_A | COL_H;
    let ax_v = full_v | ROW_1 | ROW_8;
    let ax_9 = full_d9 | EDGE;
    let ax_7 = full_d7 | EDGE;
    let mut stable = p & ax_h & ax_v & ax_9 & ax_7;
    if stable == 0 {
        return 0;
    }
    // Corners are always in `stable` here; their edge runs save a fixpoint round per square.
    if stable & CORNERS != 0 {
        stable |= edge_runs(p);
    }
    loop {
        let sh = ax_h | ((stable << 1) & NOT_A) | ((stable >> 1) & NOT_H);
        let sv = ax_v | (stable << 8) | (stable >> 8);
        let s9 = ax_9 | ((stable << 9) & NOT_A) | ((stable >> 9) & NOT_H);
        let s7 = ax_7 | ((stable << 7) & NOT_H) | ((stable >> 7) & NOT_A);
        let next = p & sh & sv & s9 & s7;
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

/// True once the stop flag is set or the deadline has passed ([`Searcher::check_stop`]'s test
/// of both). A YBWC task also checks it before it starts: a searcher checks only every
/// [`CHECK_INTERVAL`] of its own nodes, and under nested
/// splits most tasks search fewer nodes than that themselves, so without this check a
/// parallel iteration could run on to its end past the deadline (seen once in a 2-thread
/// game: a move of 4.0 s against a hard limit under 1 s).
fn past_limits(stop: &AtomicBool, deadline: Option<Instant>) -> bool {
    stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d)
}

/// Per-thread search state: node counter, the shared TT, the stop flag and the hard deadline.
pub struct Searcher {
    /// The transposition table, shared with other threads.
    pub tt: Arc<TranspositionTable>,
    /// Nodes visited (positions at which a move or the score was decided).
    pub nodes: u64,
    /// Set once the stop flag or the deadline was seen; results after that are garbage.
    pub stopped: bool,
    /// The part of `nodes` spent in the selective (multi-ProbCut) pre-searches of root
    /// solves ([`Searcher::set_mpc_root_empties`]).
    pub selective_nodes: u64,
    stop: Arc<AtomicBool>,
    deadline: Option<Instant>,
    next_check: u64,
    /// The split point this searcher works under (YBWC helpers only).
    cut: Option<Arc<Cut>>,
    /// The thread pool a parallel solve runs on (`None`: one thread, deterministic).
    pool: Option<Arc<rayon::ThreadPool>>,
    /// True while running inside `pool`: NWS nodes at ≥ [`SPLIT_EMPTIES`] may split.
    split: bool,
    /// True in the midgame iterations of a search with a pool: [`Searcher::order_pvs`] nodes
    /// of ≥ [`MID_SPLIT_DEPTH`] plies split their moves after the first (YBWC).
    mid_split: bool,
    /// A live node total shared with a progress display (updated at each stop check).
    progress: Option<Arc<AtomicU64>>,
    /// The part of `nodes` already added to `progress`.
    published: u64,
    /// The selectivity of the running pass: 0 for an exact search, else the multi-ProbCut
    /// level of a selective pre-search ([`crate::search::probcut`]).
    selectivity: u8,
    /// The empties (inclusive range) at which an exact root solve runs the selective
    /// pre-searches first.
    mpc_root_empties: (u32, u32),
    /// The midgame ProbCut of [`Searcher::order_pvs`]: the calibration and its confidence `t`
    /// (standard deviations); `None` = off (off in solves; their ordering searches
    /// ([`Searcher::search_order`]) turn it on at [`ORDER_MPC_T`] for their own duration).
    mid_mpc: Option<(&'static probcut::MpcTable, f64)>,
}

/// Result of a root solve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveResult {
    /// Score: the exact final disc difference for an exact solve; for a WLD solve a value whose
    /// sign is the game-theoretic result.
    pub score: Score,
    /// Best move ([`Move::Pass`] if the side to move must pass or the game is over).
    pub best: Move,
    /// Principal variation, first move first.
    pub pv: Vec<Move>,
}

/// Moves with their ordering keys, each packed as `key * 64 + square` in one `i32`.
struct MoveList {
    n: usize,
    /// Entries `0..n` (the rest uninitialised: clearing 256 bytes per node costs more than
    /// the list's use).
    item: [MaybeUninit<i32>; 64],
    /// The moves of the child after each square's move, by square: written by
    /// [`Searcher::fastest_first`] for every square it lists (read with
    /// [`MoveList::child_moves`]), so the child need not recompute them. Not zeroed: a
    /// 512-byte clear per node costs more than it saves.
    child_moves: [MaybeUninit<u64>; 64],
    /// The discs flipped by each square's move, by square, written with `child_moves`.
    flips: [MaybeUninit<u64>; 64],
    /// The squares whose `child_moves` and `flips` entries were written.
    has_child_moves: u64,
    /// The squares whose `flips` entry was written (by [`Searcher::etc`], for
    /// [`Searcher::fastest_first`] to reuse).
    has_flips: u64,
}

/// Adds the static evaluation of each child (opponent to move, so a higher value is a worse
/// move), [`EVAL_ORDER_WEIGHT`] key units per disc, to the fastest-first keys of `list`
/// (every entry keyed by [`Searcher::fastest_first`] for the position `(p, o)`).
#[inline]
fn eval_order(list: &mut MoveList, p: u64, o: u64) {
    let ce = ChildEval::new(p, o);
    for i in 0..list.n {
        let x = list.sq(i);
        let (f, cm) = list.child(x);
        let v = child_value(&ce, o ^ f, p ^ f ^ (1 << x), x, f, cm);
        list.add_key(i, EVAL_ORDER_WEIGHT * v);
    }
}

/// The key of the TT move: before every other key.
const FIRST_KEY: i32 = -(1 << 24);

impl MoveList {
    #[inline]
    fn new() -> MoveList {
        // Only the two counters are written: a struct literal with uninitialised arrays
        // still gets cleared whole (LLVM merges the stores into one 1,296-byte memset).
        let mut l = MaybeUninit::<MoveList>::uninit();
        let ptr = l.as_mut_ptr();
        // SAFETY: `n`, `has_child_moves` and `has_flips` are written; every other field is an array of
        // `MaybeUninit`, which needs no initialisation.
        unsafe {
            std::ptr::addr_of_mut!((*ptr).n).write(0);
            std::ptr::addr_of_mut!((*ptr).has_child_moves).write(0);
            std::ptr::addr_of_mut!((*ptr).has_flips).write(0);
            l.assume_init()
        }
    }
    /// Appends square `sq` (0–63) with `key` (|key| < 2^24).
    #[inline]
    fn push(&mut self, sq: u32, key: i32) {
        self.item[self.n] = MaybeUninit::new(key * 64 + sq as i32);
        self.n += 1;
    }
    /// Packed entry `i` (`i` < `n`).
    #[inline]
    fn at(&self, i: usize) -> i32 {
        assert!(i < self.n);
        // SAFETY: entries below `n` were written by `push` (and `sort` only permutes them).
        unsafe { self.item[i].assume_init() }
    }
    /// Square of entry `i`.
    #[inline]
    fn sq(&self, i: usize) -> u32 {
        (self.at(i) & 63) as u32
    }
    /// Key of entry `i`.
    #[inline]
    fn key(&self, i: usize) -> i32 {
        self.at(i) >> 6
    }
    /// The flips of the move `sq` and the moves of the child it reaches, for a square of
    /// the list keyed by [`Searcher::fastest_first`].
    #[inline]
    fn child(&self, sq: u32) -> (u64, u64) {
        assert!(self.has_child_moves & (1u64 << sq) != 0);
        // SAFETY: the bit of `sq` in `has_child_moves` is set only after `flips[sq]` and
        // `child_moves[sq]` were written (in `fastest_first`).
        unsafe {
            (
                self.flips[sq as usize & 63].assume_init(),
                self.child_moves[sq as usize & 63].assume_init(),
            )
        }
    }
    /// Records the flips `f` of the move `sq` and the moves `cm` of the child it reaches,
    /// for [`MoveList::child`].
    #[inline]
    fn set_child(&mut self, sq: u32, f: u64, cm: u64) {
        self.flips[sq as usize & 63] = MaybeUninit::new(f);
        self.child_moves[sq as usize & 63] = MaybeUninit::new(cm);
        self.has_child_moves |= 1u64 << sq;
    }
    /// The flips of the move `sq`, for a square whose flips [`Searcher::etc`] left.
    #[inline]
    fn flip(&self, sq: u32) -> u64 {
        assert!(self.has_flips & (1u64 << sq) != 0);
        // SAFETY: the bit of `sq` in `has_flips` is set only after `flips[sq]` was written.
        unsafe { self.flips[sq as usize & 63].assume_init() }
    }
    /// Adds `d` to the key of entry `i`.
    #[inline]
    fn add_key(&mut self, i: usize, d: i32) {
        self.item[i] = MaybeUninit::new(self.at(i) + d * 64);
    }
    /// The squares from entry `from` on, in list order.
    fn squares(&self, from: usize) -> Vec<u32> {
        (from..self.n).map(|i| self.sq(i)).collect()
    }
    /// Moves the entry with the smallest packed value (key, then square) among entries
    /// `i..n` to position `i`. For a list pushed in square order, as by
    /// [`Searcher::fastest_first`], repeated selection gives the order of [`MoveList::sort`].
    #[inline]
    fn select(&mut self, i: usize) {
        let mut best = self.at(i);
        let mut at = i;
        for j in i + 1..self.n {
            let v = self.at(j);
            if v < best {
                best = v;
                at = j;
            }
        }
        self.item[at] = self.item[i];
        self.item[i] = MaybeUninit::new(best);
    }
    /// Sorts entries `i..n` by packed value (key, then square).
    fn sort_from(&mut self, i: usize) {
        for k in i + 1..self.n {
            let v = self.at(k);
            let mut j = k;
            while j > i && self.at(j - 1) > v {
                self.item[j] = self.item[j - 1];
                j -= 1;
            }
            self.item[j] = MaybeUninit::new(v);
        }
    }
    /// Insertion sort, smallest key first (stable: equal keys keep their order).
    #[inline]
    fn sort(&mut self) {
        for i in 1..self.n {
            let k = self.at(i);
            let mut j = i;
            while j > 0 && self.at(j - 1) >> 6 > k >> 6 {
                self.item[j] = self.item[j - 1];
                j -= 1;
            }
            self.item[j] = MaybeUninit::new(k);
        }
    }
}

impl Searcher {
    /// A searcher using `tt`, stopping when `stop` is set or at `deadline`.
    pub fn new(
        tt: Arc<TranspositionTable>,
        stop: Arc<AtomicBool>,
        deadline: Option<Instant>,
    ) -> Searcher {
        Searcher {
            nodes: 0,
            stopped: false,
            selective_nodes: 0,
            stop,
            deadline,
            next_check: CHECK_INTERVAL,
            cut: None,
            pool: None,
            split: false,
            mid_split: false,
            progress: None,
            published: 0,
            selectivity: 0,
            mpc_root_empties: (
                probcut::MPC_ROOT_EMPTIES,
                probcut::root_max_empties(tt.buckets()),
            ),
            mid_mpc: None,
            tt,
        }
    }

    /// Adds this searcher's nodes (and those of its YBWC helpers) to `counter` as it goes,
    /// every few thousand nodes, for a progress display; `None` stops that.
    pub fn set_progress(&mut self, counter: Option<Arc<AtomicU64>>) {
        self.progress = counter;
        self.published = self.nodes;
    }

    /// Adds the nodes not yet published to the progress counter.
    fn publish(&mut self) {
        if let Some(p) = &self.progress {
            p.fetch_add(self.nodes - self.published, Ordering::Relaxed);
            self.published = self.nodes;
        }
    }

    /// Lets [`Searcher::solve`] run on `pool` with the young brothers wait concept (YBWC):
    /// at NWS nodes with ≥ [`SPLIT_EMPTIES`] empties, once the first move failed to cut off,
    /// the other moves are searched in parallel (rayon work stealing) by helper searchers
    /// sharing the TT; a fail-high of one stops the others. `None` (or a one-thread pool)
    /// keeps the solve sequential and its node count deterministic.
    pub fn set_pool(&mut self, pool: Option<Arc<rayon::ThreadPool>>) {
        self.pool = pool.filter(|p| p.current_num_threads() > 1);
    }

    /// Lets the midgame search (`Searcher::order_pvs`, and so [`Searcher::iterate`]) run on
    /// the pool of [`Searcher::set_pool`] with YBWC: at nodes of ≥ [`MID_SPLIT_DEPTH`] plies,
    /// once the first move has been searched without a cutoff, the other moves get a null
    /// window around alpha in parallel (helper searchers sharing the TT; a fail-high at a
    /// null-window node stops the others), and the fail-highs of a PV node are re-searched
    /// with the full window in order afterwards. Off (or without a pool) the search is
    /// sequential and deterministic. The solver's ordering searches never split.
    pub fn set_mid_split(&mut self, on: bool) {
        self.mid_split = on && self.pool.is_some();
    }

    /// Sets the empties, `min..=max`, at which an exact root solve ([`Searcher::solve`]
    /// with a window wider than WLD's) first runs the selective multi-ProbCut pre-searches of
    /// [`probcut::PASSES`] (default [`probcut::MPC_ROOT_EMPTIES`] to
    /// [`probcut::root_max_empties`] of the table: 27, or 34 with a table of at least
    /// [`probcut::MPC_LARGE_TT_BUCKETS`] buckets; `min > max`: never). The result stays exact
    /// either way; only the node count changes.
    pub fn set_mpc_root_empties(&mut self, min: u32, max: u32) {
        self.mpc_root_empties = (min, max);
    }

    /// Turns the multi-ProbCut of the midgame search (`Searcher::order_pvs`) on with confidence `t`
    /// (standard deviations, > 0) and the active evaluation's calibration
    /// ([`crate::eval::mpc_table`]), or off with `None` (or without a calibration). The
    /// midgame iterations set it; a solve must run with it off.
    pub fn set_mid_mpc(&mut self, t: Option<f64>) {
        self.mid_mpc = match t {
            Some(t) if t > 0.0 => crate::eval::mpc_table().map(|table| (table, t)),
            _ => None,
        };
    }

    /// Changes the hard deadline (e.g. between the midgame and the solve of one search).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The hard deadline ([`Searcher::set_deadline`]).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Checks the stop flag and deadline every `CHECK_INTERVAL` (4096) nodes; true once stopped.
    #[inline]
    pub fn check_stop(&mut self) -> bool {
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_INTERVAL;
            self.publish();
            if past_limits(&self.stop, self.deadline)
                || self.cut.as_ref().is_some_and(|c| c.is_set())
            {
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Score with one empty square `x`: direct flip counting, no make-move.
    #[inline(always)]
    fn last1(&mut self, p: u64, o: u64, x: u32) -> Score {
        self.nodes += 1;
        let pc = p.count_ones() as Score;
        // Every square but `x` is filled, so a count is 0 when no opponent disc touches `x`.
        let n = last_flip_count(p, x);
        if n != 0 {
            return 2 * (pc + n as Score + 1) - 64;
        }
        let n = last_flip_count(o, x);
        if n != 0 {
            return 2 * (pc - n as Score) - 64;
        }
        let d = 2 * pc - 63;
        if d > 0 { d + 1 } else { d - 1 }
    }

    /// NWS (alpha, alpha + 1) with two empties `x1`, `x2`.
    #[inline(always)]
    fn last2(&mut self, p: u64, o: u64, alpha: Score, x1: u32, x2: u32) -> Score {
        self.nodes += 1;
        let mut best = -SCORE_INF;
        let f = flips_near(p, o, x1);
        if f != 0 {
            best = -self.last1(o ^ f, p ^ f ^ (1 << x1), x2);
            if best > alpha {
                return best;
            }
        }
        let f = flips_near(p, o, x2);
        if f != 0 {
            return best.max(-self.last1(o ^ f, p ^ f ^ (1 << x2), x1));
        }
        if best > -SCORE_INF {
            return best;
        }
        // The side to move passes: the opponent minimises.
        self.nodes += 1;
        let mut best = SCORE_INF;
        let f = flips_near(o, p, x1);
        if f != 0 {
            best = self.last1(p ^ f, o ^ f ^ (1 << x1), x2);
            if best <= alpha {
                return best;
            }
        }
        let f = flips_near(o, p, x2);
        if f != 0 {
            return best.min(self.last1(p ^ f, o ^ f ^ (1 << x2), x1));
        }
        if best < SCORE_INF {
            return best;
        }
        Board {
            player: p,
            opponent: o,
        }
        .final_score()
    }

    /// NWS with three empties, odd-quadrant squares first.
    fn last3(&mut self, p: u64, o: u64, alpha: Score, x1: u32, x2: u32, x3: u32) -> Score {
        self.last3_inline(p, o, alpha, x1, x2, x3)
    }

    /// [`Searcher::last3`] inlined into [`Searcher::last4`]'s move loop (a call per 3-empties
    /// node costs a prologue saving 6 registers).
    #[inline(always)]
    fn last3_inline(&mut self, p: u64, o: u64, alpha: Score, x1: u32, x2: u32, x3: u32) -> Score {
        // Two squares share a quadrant when their indices agree in bits 2 (column ≥ 4) and
        // 5 (row ≥ 4); the square alone in its quadrant (an odd one) goes first.
        let same = |a: u32, b: u32| (a ^ b) & 0b10_0100 == 0;
        let (x1, x2, x3) = if same(x1, x2) && !same(x1, x3) {
            (x3, x1, x2)
        } else if same(x1, x3) && !same(x1, x2) {
            (x2, x1, x3)
        } else {
            (x1, x2, x3)
        };
        self.last3_ordered(p, o, alpha, x1, x2, x3, true)
    }

    /// The 3-empties NWS after the side to move passed: not inlined (rare).
    #[inline(never)]
    fn last3_passed(&mut self, p: u64, o: u64, alpha: Score, x1: u32, x2: u32, x3: u32) -> Score {
        self.last3_ordered(p, o, alpha, x1, x2, x3, false)
    }

    /// NWS with the three empties `x1`, `x2`, `x3` tried in that order; `may_pass` false
    /// after a pass (a second pass ends the game).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn last3_ordered(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        x1: u32,
        x2: u32,
        x3: u32,
        may_pass: bool,
    ) -> Score {
        self.nodes += 1;
        let mut best = -SCORE_INF;
        macro_rules! try_move {
            ($x:expr, $a:expr, $b:expr) => {
                let f = flips_near(p, o, $x);
                if f != 0 {
                    let v = -self.last2(o ^ f, p ^ f ^ (1 << $x), -alpha - 1, $a, $b);
                    if v > alpha {
                        return v;
                    }
                    best = best.max(v);
                }
            };
        }
        try_move!(x1, x2, x3);
        try_move!(x2, x1, x3);
        try_move!(x3, x1, x2);
        if best > -SCORE_INF {
            return best;
        }
        if may_pass && get_moves(o, p) != 0 {
            return -self.last3_passed(o, p, -alpha - 1, x1, x2, x3);
        }
        Board {
            player: p,
            opponent: o,
        }
        .final_score()
    }

    /// NWS with four empties, odd-quadrant squares first.
    fn last4(&mut self, p: u64, o: u64, alpha: Score, may_pass: bool) -> Score {
        self.nodes += 1;
        let empty = !(p | o);
        let in_odd = empty & odd_quadrants(empty);
        // Odd-quadrant squares first, each group in square order. With 4 empties the odd
        // quadrants hold none, all, or (quadrant sizes 2, 1, 1) two of them: only the last
        // case reorders.
        let (first, second) = if in_odd == 0 || in_odd == empty {
            (empty, 0)
        } else {
            (in_odd, empty & !in_odd)
        };
        let e1 = first & (first - 1);
        let (x1, x2) = (first.trailing_zeros(), e1.trailing_zeros());
        let rest = (e1 & (e1 - 1)) | second;
        let e3 = rest & (rest - 1);
        let xs = [x1, x2, rest.trailing_zeros(), e3.trailing_zeros()];
        let mut best = -SCORE_INF;
        for i in 0..4 {
            let x = xs[i];
            let f = flips_near(p, o, x);
            if f != 0 {
                let r: [u32; 3] = match i {
                    0 => [xs[1], xs[2], xs[3]],
                    1 => [xs[0], xs[2], xs[3]],
                    2 => [xs[0], xs[1], xs[3]],
                    _ => [xs[0], xs[1], xs[2]],
                };
                let v = -self.last3_inline(o ^ f, p ^ f ^ (1 << x), -alpha - 1, r[0], r[1], r[2]);
                if v > best {
                    best = v;
                    if v > alpha {
                        return v;
                    }
                }
            }
        }
        if best > -SCORE_INF {
            return best;
        }
        if may_pass && get_moves(o, p) != 0 {
            return -self.last4(o, p, -alpha - 1, false);
        }
        Board {
            player: p,
            opponent: o,
        }
        .final_score()
    }

    /// The NWS of a node whose side to move has no move: the opponent's NWS after a pass
    /// (`may_pass` false stops a second pass), or the final score if neither side can move.
    #[inline]
    fn nws_no_move(&mut self, p: u64, o: u64, alpha: Score, empties: u32, may_pass: bool) -> Score {
        if may_pass {
            let om = get_moves(o, p);
            if om != 0 {
                return -self.nws_m(o, p, om, -alpha - 1, empties, false);
            }
        }
        Board {
            player: p,
            opponent: o,
        }
        .final_score()
    }

    /// Stability cutoff for an NWS at alpha: `Some(bound)` if the opponent's stable discs
    /// already prove the score ≤ alpha (an upper bound), or the side to move's stable discs
    /// prove it > alpha (a lower bound).
    ///
    /// With s stable discs a side ends with at least s discs, so its final score is at least
    /// 2s − 64 (empties go to the winner); the opponent's s stable discs cap the score at
    /// 64 − 2s. The upper-bound test is Edax's; the lower-bound one matters when the side to
    /// move is losing heavily, above all in wipeout proofs (a window just below +64, as in
    /// FFO #59), where every defender node is refuted by one stable disc instead of a search
    /// of its replies.
    #[inline]
    fn stability_cutoff(&self, p: u64, o: u64, alpha: Score) -> Option<Score> {
        // The best possible score is 64 − 2 × (opponent's stable discs) ≤ 64 − 2 × (a count
        // we only know after computing); skip the computation when it cannot cut.
        let o_count = o.count_ones() as Score;
        if alpha >= 64 - 2 * o_count.min(64) && alpha >= 0 {
            let upper = 64 - 2 * stable_discs(o, p).count_ones() as Score;
            if upper <= alpha {
                return Some(upper);
            }
        }
        // Symmetrically, the worst possible score is 2 × (own stable discs) − 64.
        let p_count = p.count_ones() as Score;
        if alpha < 2 * p_count - 64 && alpha < 0 {
            let lower = 2 * stable_discs(p, o).count_ones() as Score - 64;
            if lower > alpha {
                return Some(lower);
            }
        }
        None
    }

    /// Exact NWS below [`FASTEST_FIRST_EMPTIES`]: parity ordering, no TT.
    fn nws_shallow(&mut self, p: u64, o: u64, alpha: Score, empties: u32, may_pass: bool) -> Score {
        if empties <= 4 {
            return self.nws_tiny(p, o, alpha, empties);
        }
        self.nws_shallow_m(p, o, get_moves(p, o), alpha, empties, may_pass)
    }

    /// [`Searcher::nws_shallow`] at 5–6 empties given the moves `moves` of `(p, o)`.
    fn nws_shallow_m(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        alpha: Score,
        empties: u32,
        may_pass: bool,
    ) -> Score {
        self.nodes += 1;
        if moves == 0 {
            return self.nws_no_move(p, o, alpha, empties, may_pass);
        }
        if let Some(s) = self.stability_cutoff(p, o, alpha) {
            return s;
        }
        let odd = odd_quadrants(!(p | o));
        let mut best = -SCORE_INF;
        for par in [odd, !odd] {
            for pr in PRIORITY {
                let mut m = moves & par & pr;
                while m != 0 {
                    let x = m.trailing_zeros();
                    m &= m - 1;
                    let f = flips(p, o, x);
                    let v =
                        -self.nws_shallow(o ^ f, p ^ f ^ (1 << x), -alpha - 1, empties - 1, true);
                    if v > best {
                        best = v;
                        if v > alpha {
                            return v;
                        }
                    }
                }
            }
        }
        best
    }

    /// NWS with 0–4 empties.
    #[inline]
    fn nws_tiny(&mut self, p: u64, o: u64, alpha: Score, empties: u32) -> Score {
        let empty = !(p | o);
        match empties {
            0 => {
                self.nodes += 1;
                Board {
                    player: p,
                    opponent: o,
                }
                .final_score()
            }
            1 => self.last1(p, o, empty.trailing_zeros()),
            2 => {
                let x1 = empty.trailing_zeros();
                let x2 = (empty & (empty - 1)).trailing_zeros();
                self.last2(p, o, alpha, x1, x2)
            }
            3 => {
                let x1 = empty.trailing_zeros();
                let e = empty & (empty - 1);
                let x2 = e.trailing_zeros();
                let x3 = (e & (e - 1)).trailing_zeros();
                self.last3(p, o, alpha, x1, x2, x3)
            }
            _ => self.last4(p, o, alpha, true),
        }
    }

    /// Orders the moves of `(p, o)` fastest-first: fewest opponent replies (corners counted
    /// twice), then fewest opponent potential mobility; the TT move `tt_move` first. With
    /// `FLIPS_KNOWN` the flips of the moves are read from `list` (left there by
    /// [`Searcher::etc`]) instead of computed.
    #[inline]
    fn fastest_first<const FLIPS_KNOWN: bool>(
        &self,
        list: &mut MoveList,
        p: u64,
        o: u64,
        moves: u64,
        tt_move: Option<u8>,
        prefetch: bool,
    ) {
        // The counters stay in registers; the list's are written once at the end.
        let empty = !(p | o);
        let odd = odd_quadrants(empty);
        let mut n = 0usize;
        let mut written = 0u64;
        let mut m = moves;
        // The TT move is listed first: with its unique key the order is that of pushing the
        // moves in square order (`select` and the stable `sort` order by key, then square).
        if let Some(t) = tt_move
            && moves & (1u64 << t) != 0
        {
            list.item[0] = MaybeUninit::new(FIRST_KEY * 64 + t as i32);
            n = 1;
            m &= !(1u64 << t);
        }
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let f = if FLIPS_KNOWN {
                list.flip(x)
            } else {
                let f = flips(p, o, x);
                list.flips[x as usize & 63] = MaybeUninit::new(f);
                f
            };
            let np = o ^ f;
            let no = p ^ f ^ (1 << x);
            let om = get_moves(np, no);
            list.child_moves[x as usize & 63] = MaybeUninit::new(om);
            written |= 1u64 << x;
            if prefetch {
                self.tt.prefetch(&Board {
                    player: np,
                    opponent: no,
                });
            }
            let pot = (neighbours(no) & empty & !(1u64 << x)).count_ones() as i32;
            let mut k = 64 * (om.count_ones() + (om & CORNERS).count_ones()) as i32 + 6 * pot;
            if (1u64 << x) & odd != 0 {
                k -= 16;
            }
            if (1u64 << x) & CORNERS != 0 {
                k -= 48;
            }
            list.item[n & 63] = MaybeUninit::new(k * 64 + x as i32);
            n += 1;
        }
        list.n = n;
        list.has_child_moves |= written;
    }

    /// Enhanced transposition cutoff (ETC): if the TT proves some child scores ≤ −alpha − 1
    /// for its side to move, this node fails high without a search: `Break` with that bound.
    /// Else `Continue((skip, low, low_move))`: `skip` holds the moves whose child the TT
    /// proves cannot raise alpha (they need no search), `low` the highest of their upper
    /// bounds (−[`SCORE_INF`] if none) and `low_move` its move (64 if none). The flips of
    /// every move are left in `list` (its `flips`, marked in `has_flips`).
    fn etc(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        alpha: Score,
        list: &mut MoveList,
    ) -> ControlFlow<Score, (u64, Score, u32)> {
        // All the children's buckets are requested from memory first, then probed.
        let mut children = [MaybeUninit::<(Board, usize, u32)>::uninit(); 64];
        let mut n = 0;
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let f = flips(p, o, x);
            list.flips[x as usize & 63] = MaybeUninit::new(f);
            let c = Board {
                player: o ^ f,
                opponent: p ^ f ^ (1 << x),
            };
            let slot = self.tt.bucket_start(&c);
            self.tt.prefetch_at(slot);
            children[n & 63] = MaybeUninit::new((c, slot, x));
            n += 1;
        }
        list.has_flips = moves;
        let mut skip = 0u64;
        let mut low = -SCORE_INF;
        let mut low_move = 64;
        for c in &children[..n.min(64)] {
            // SAFETY: the first `n` entries were written just above.
            let (c, slot, x) = unsafe { c.assume_init_ref() };
            if let Some(e) = self.tt.probe_at(*slot, c)
                && e.solved
                && e.selectivity <= self.selectivity
            {
                if -e.upper > alpha {
                    return ControlFlow::Break(-e.upper);
                }
                if -e.lower <= alpha {
                    skip |= 1u64 << x;
                    if -e.lower > low {
                        low = -e.lower;
                        low_move = *x;
                    }
                }
            }
        }
        ControlFlow::Continue((skip, low, low_move))
    }

    /// Move ordering at high empties: fastest-first keys plus a shallow midgame search of
    /// each child ([`order_depth`] plies: 2 at 17 empties up to 7 from 27, with the midgame
    /// ProbCut at [`ORDER_MPC_T`]), as Edax does far from the leaves; TT move first.
    fn search_order(
        &mut self,
        list: &mut MoveList,
        b: &Board,
        moves: u64,
        tt_move: Option<u8>,
        empties: u32,
    ) {
        self.fastest_first::<false>(list, b.player, b.opponent, moves, tt_move, false);
        list.sort();
        let depth = order_depth(empties);
        let w = 128;
        // The ordering searches cut with the midgame ProbCut (the caller's setting returns).
        let saved = self.mid_mpc;
        self.set_mid_mpc(Some(ORDER_MPC_T));
        for i in 0..list.n {
            if list.key(i) == FIRST_KEY {
                continue;
            }
            let x = list.sq(i);
            let c = b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x));
            let (v, _) = self.order_pvs(c.player, c.opponent, -SCORE_INF, SCORE_INF, depth, true);
            list.add_key(i, w * v);
        }
        self.mid_mpc = saved;
        list.sort();
    }

    /// The midgame PVS ([`Searcher::mid_pvs`] at depth ≥ 1, and the shallow searches of
    /// [`Searcher::search_order`]): fail-soft PVS of `(p, o)` to `depth` ≥ 1 plies with the
    /// window (alpha, beta), without per-node allocations: moves are ordered in a
    /// [`MoveList`] (TT move first, then by the child's evaluation at depth ≥ 3, else by the
    /// opponent's mobility; ties in square order), and depth-1 nodes go to
    /// [`Searcher::order_d1`]. Returns the score and the best move square (64 if none).
    pub(crate) fn order_pvs(
        &mut self,
        p: u64,
        o: u64,
        mut alpha: Score,
        beta: Score,
        depth: i32,
        may_pass: bool,
    ) -> (Score, u32) {
        if depth <= 1 {
            return self.order_d1(p, o, get_moves(p, o), alpha, beta, may_pass);
        }
        self.nodes += 1;
        if self.check_stop() {
            return (0, 64);
        }
        let moves = get_moves(p, o);
        if moves == 0 {
            if may_pass && get_moves(o, p) != 0 {
                let (v, _) = self.order_pvs(o, p, -beta, -alpha, depth, false);
                return (-v, 64);
            }
            return (final_score(p, o), 64);
        }
        let b = Board {
            player: p,
            opponent: o,
        };
        let tt_move = match self.tt.probe(&b) {
            Some(e) => {
                if (e.solved || e.depth >= depth as u32)
                    && match e.bound {
                        Bound::Exact => true,
                        Bound::Lower => e.score >= beta,
                        Bound::Upper => e.score <= alpha,
                    }
                {
                    return (e.score, e.best.map_or(64, |m| m as u32));
                }
                e.best.filter(|&m| moves & (1u64 << m) != 0)
            }
            None => None,
        };
        if depth >= probcut::MID_MPC_MIN_DEPTH
            && beta == alpha + 1
            && self.mid_mpc.is_some()
            && let Some(v) = self.mid_probcut(p, o, alpha, depth)
        {
            return (v, tt_move.map_or(64, u32::from));
        }
        let alpha0 = alpha;
        // Ordering; at depth 2 the children's moves are kept for their depth-1 searches.
        let mut list = MoveList::new();
        let mut child_moves = [0u64; 64];
        let ce = (depth >= 3).then(|| ChildEval::new(p, o));
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let key = if tt_move == Some(x as u8) {
                FIRST_KEY
            } else {
                let f = flips(p, o, x);
                let (cp, co) = (o ^ f, p ^ f ^ (1 << x));
                if let Some(ce) = &ce {
                    child_value(ce, cp, co, x, f, get_moves(cp, co))
                } else {
                    let cm = get_moves(cp, co);
                    child_moves[x as usize] = cm;
                    cm.count_ones() as i32
                }
            };
            list.push(x, key);
        }
        list.sort();
        let mut best = -SCORE_INF;
        let mut best_move = list.sq(0);
        for i in 0..list.n {
            if i == 1 && self.mid_split && depth >= MID_SPLIT_DEPTH && list.n > 2 {
                let (v, x) = self.mid_split(p, o, alpha, beta, depth, &list.squares(1));
                if self.stopped {
                    return (0, 64);
                }
                if v > best {
                    best = v;
                    best_move = x;
                }
                break;
            }
            let x = list.sq(i);
            let f = flips(p, o, x);
            let (cp, co) = (o ^ f, p ^ f ^ (1 << x));
            let v = if depth == 2 {
                let cm = if list.key(i) == FIRST_KEY {
                    get_moves(cp, co)
                } else {
                    child_moves[x as usize]
                };
                if i == 0 {
                    -self.order_d1(cp, co, cm, -beta, -alpha, true).0
                } else {
                    let mut v = -self.order_d1(cp, co, cm, -alpha - 1, -alpha, true).0;
                    if v > alpha && v < beta && !self.stopped {
                        v = -self.order_d1(cp, co, cm, -beta, -v, true).0;
                    }
                    v
                }
            } else if i == 0 {
                -self.order_pvs(cp, co, -beta, -alpha, depth - 1, true).0
            } else {
                let mut v = -self
                    .order_pvs(cp, co, -alpha - 1, -alpha, depth - 1, true)
                    .0;
                if v > alpha && v < beta && !self.stopped {
                    v = -self.order_pvs(cp, co, -beta, -v, depth - 1, true).0;
                }
                v
            };
            if self.stopped {
                return (0, 64);
            }
            if v > best {
                best = v;
                best_move = x;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let bound = Bound::from_window(best, alpha0, beta);
        self.tt
            .store(&b, best, bound, depth as u32, Some(best_move as u8), false);
        (best, best_move)
    }

    /// [`Searcher::order_pvs`] at depth 1, given the moves `moves` of `(p, o)`: the children
    /// are leaves, each evaluated once (a PVS re-search of a leaf counts its node again, as
    /// in [`Searcher::mid_pvs`], but reuses the value).
    fn order_d1(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        mut alpha: Score,
        beta: Score,
        may_pass: bool,
    ) -> (Score, u32) {
        self.nodes += 1;
        if self.check_stop() {
            return (0, 64);
        }
        if moves == 0 {
            let om = get_moves(o, p);
            if may_pass && om != 0 {
                let (v, _) = self.order_d1(o, p, om, -beta, -alpha, false);
                return (-v, 64);
            }
            return (final_score(p, o), 64);
        }
        let b = Board {
            player: p,
            opponent: o,
        };
        let tt_move = match self.tt.probe(&b) {
            Some(e) => {
                // Every stored entry has depth ≥ 1.
                if match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score >= beta,
                    Bound::Upper => e.score <= alpha,
                } {
                    return (e.score, e.best.map_or(64, |m| m as u32));
                }
                e.best.filter(|&m| moves & (1u64 << m) != 0)
            }
            None => None,
        };
        let alpha0 = alpha;
        let mut list = MoveList::new();
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let key = if tt_move == Some(x as u8) {
                FIRST_KEY
            } else {
                let f = flips(p, o, x);
                let cm = get_moves(o ^ f, p ^ f ^ (1 << x));
                list.set_child(x, f, cm);
                cm.count_ones() as i32
            };
            list.push(x, key);
        }
        list.sort();
        let mut best = -SCORE_INF;
        let mut best_move = list.sq(0);
        // The children after the first are evaluated from the parent's pattern digits.
        let mut ce: Option<ChildEval> = None;
        for i in 0..list.n {
            let x = list.sq(i);
            let (f, cm) = if list.key(i) == FIRST_KEY {
                let f = flips(p, o, x);
                (f, get_moves(o ^ f, p ^ f ^ (1 << x)))
            } else {
                list.child(x)
            };
            let (cp, co) = (o ^ f, p ^ f ^ (1 << x));
            self.nodes += 1;
            if self.check_stop() {
                return (0, 64);
            }
            let v = if i == 0 {
                -leaf_value(cp, co, cm)
            } else {
                let ce = ce.get_or_insert_with(|| ChildEval::new(p, o));
                -child_value(ce, cp, co, x, f, cm)
            };
            if i > 0 && v > alpha && v < beta {
                // The PVS re-search of the leaf.
                self.nodes += 1;
                if self.check_stop() {
                    return (0, 64);
                }
            }
            if v > best {
                best = v;
                best_move = x;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let bound = Bound::from_window(best, alpha0, beta);
        self.tt
            .store(&b, best, bound, 1, Some(best_move as u8), false);
        (best, best_move)
    }

    /// Exact null-window search: is the score of `b` (with `empties` empties) above `alpha`?
    /// Fail-soft: returns a value ≤ alpha (an upper bound) or > alpha (a lower bound).
    pub fn nws(&mut self, b: &Board, alpha: Score, empties: u32) -> Score {
        self.nws_p(b.player, b.opponent, alpha, empties, true)
    }

    fn nws_p(&mut self, p: u64, o: u64, alpha: Score, empties: u32, may_pass: bool) -> Score {
        if empties <= 4 {
            return self.nws_tiny(p, o, alpha, empties);
        }
        self.nws_m(p, o, get_moves(p, o), alpha, empties, may_pass)
    }

    /// [`Searcher::nws_p`] at ≥ 5 empties given the moves `moves` of `(p, o)` (often known
    /// from the parent's fastest-first ordering).
    fn nws_m(
        &mut self,
        p: u64,
        o: u64,
        moves: u64,
        alpha: Score,
        empties: u32,
        may_pass: bool,
    ) -> Score {
        if empties < FASTEST_FIRST_EMPTIES {
            return self.nws_shallow_m(p, o, moves, alpha, empties, may_pass);
        }
        self.nodes += 1;
        if self.check_stop() {
            return 0;
        }
        if moves == 0 {
            return self.nws_no_move(p, o, alpha, empties, may_pass);
        }
        if let Some(s) = self.stability_cutoff(p, o, alpha) {
            return s;
        }
        let b = Board {
            player: p,
            opponent: o,
        };
        let use_tt = empties >= TT_MIN_EMPTIES;
        let slot = if use_tt { self.tt.bucket_start(&b) } else { 0 };
        let mut tt_move = None;
        // A selective bound (not trusted here) predicting a fail-low: an expected ALL node,
        // whose moves are all searched whatever their order (see EXPECT_ALL_EMPTIES).
        let mut expect_all = false;
        if use_tt && let Some(e) = self.tt.probe_at(slot, &b) {
            if e.solved && e.selectivity <= self.selectivity {
                if e.lower > alpha {
                    return e.lower;
                }
                if e.upper <= alpha {
                    return e.upper;
                }
            }
            expect_all = self.selectivity == 0
                && e.solved
                && e.upper <= alpha
                && empties >= EXPECT_ALL_EMPTIES;
            tt_move = e.best.filter(|&m| moves & (1u64 << m) != 0);
        }
        let mut list = MoveList::new();
        let etc = empties >= ETC_EMPTIES;
        let mut best = -SCORE_INF;
        let mut best_move = 0;
        let mut moves = moves;
        if etc {
            match self.etc(p, o, moves, alpha, &mut list) {
                ControlFlow::Break(v) => return v,
                ControlFlow::Continue((skip, low, low_move)) => {
                    if skip != 0 {
                        best = low;
                        best_move = low_move;
                        moves &= !skip;
                        tt_move = tt_move.filter(|&m| moves & (1u64 << m) != 0);
                        if moves == 0 {
                            if use_tt {
                                self.store_solved(slot, &b, best, Bound::Upper, empties, best_move);
                            }
                            return best;
                        }
                    }
                }
            }
        }
        if self.selectivity != 0
            && empties >= probcut::MPC_MIN_EMPTIES
            && let Some((v, bound)) = self.probcut(p, o, alpha, empties)
        {
            if use_tt {
                self.tt
                    .store_sel_at(slot, &b, v, bound, empties, tt_move, true, self.selectivity);
            }
            return v;
        }
        let mut rest = moves;
        // The TT move first, before the other moves are ordered: at a cut node it usually
        // suffices, and the ordering work (shallow searches at high empties) is saved.
        if let Some(m) = tt_move
            && moves & (moves - 1) != 0
        {
            let x = m as u32;
            let f = if etc { list.flip(x) } else { flips(p, o, x) };
            let v = -self.nws_p(o ^ f, p ^ f ^ (1 << x), -alpha - 1, empties - 1, true);
            if v > best {
                best = v;
                best_move = x;
            }
            rest &= !(1u64 << x);
        }
        if best > alpha || self.stopped {
            // Cut off by the TT move (or stopped: nothing is stored below).
        } else if rest & (rest - 1) == 0 {
            let x = rest.trailing_zeros();
            let f = if etc { list.flip(x) } else { flips(p, o, x) };
            let v = -self.nws_p(o ^ f, p ^ f ^ (1 << x), -alpha - 1, empties - 1, true);
            if v > best {
                best = v;
                best_move = x;
            }
        } else {
            // A fastest-first list is not sorted: each next move is selected when needed
            // (most nodes search one or two moves; the selection has no data-dependent
            // branches, unlike an insertion sort).
            let select = empties < SEARCH_ORDER_EMPTIES || expect_all;
            if select {
                // Children probe the TT from TT_MIN_EMPTIES; from ETC_EMPTIES the ETC has
                // already brought their buckets into the cache.
                let prefetch = empties > TT_MIN_EMPTIES && empties < ETC_EMPTIES;
                if etc {
                    self.fastest_first::<true>(&mut list, p, o, rest, None, false);
                } else {
                    self.fastest_first::<false>(&mut list, p, o, rest, None, prefetch);
                }
                if empties >= EVAL_ORDER_EMPTIES {
                    eval_order(&mut list, p, o);
                }
            } else {
                self.search_order(&mut list, &b, rest, None, empties);
            }
            // YBWC: split once one move (the TT move, else the first listed) has been searched.
            let split_at = if rest == moves { 1 } else { 0 };
            for i in 0..list.n {
                if select {
                    list.select(i);
                }
                if i == split_at && self.split && empties >= SPLIT_EMPTIES {
                    if select {
                        list.sort_from(i);
                    }
                    if let Some((v, x)) = self.nws_split(p, o, alpha, empties, &list.squares(i))
                        && v > best
                    {
                        best = v;
                        best_move = x;
                    }
                    break;
                }
                let x = list.sq(i);
                let (f, cm) = list.child(x);
                let (cp, co) = (o ^ f, p ^ f ^ (1 << x));
                // At 7 empties straight to the 6-empties search (nws_m's frame is large).
                let v = if empties - 1 < FASTEST_FIRST_EMPTIES {
                    -self.nws_shallow_m(cp, co, cm, -alpha - 1, empties - 1, true)
                } else {
                    -self.nws_m(cp, co, cm, -alpha - 1, empties - 1, true)
                };
                if v > best {
                    best = v;
                    best_move = x;
                    if v > alpha {
                        break;
                    }
                }
            }
        }
        if self.stopped {
            return 0;
        }
        if use_tt {
            let bound = if best > alpha {
                Bound::Lower
            } else {
                Bound::Upper
            };
            self.store_solved(slot, &b, best, bound, empties, best_move);
        }
        best
    }

    /// Stores a searched result of the solver (bucket `slot` of `b`, `empties` empties) with
    /// the selectivity [`Searcher::store_selectivity`] gives it.
    #[inline]
    fn store_solved(
        &self,
        slot: usize,
        b: &Board,
        best: Score,
        bound: Bound,
        empties: u32,
        best_move: u32,
    ) {
        self.tt.store_sel_at(
            slot,
            b,
            best,
            bound,
            empties,
            Some(best_move as u8),
            true,
            self.store_selectivity(empties),
        );
    }

    /// The [`crate::search::tt::TtEntry::selectivity`] of a result at `empties`: the pass's level,
    /// except below [`probcut::MPC_MIN_EMPTIES`], where no ProbCut can have cut the subtree
    /// (and only such entries were trusted), so the result is proven.
    #[inline]
    fn store_selectivity(&self, empties: u32) -> u8 {
        if empties >= probcut::MPC_MIN_EMPTIES {
            self.selectivity
        } else {
            0
        }
    }

    /// Multi-ProbCut at a null-window node (alpha, alpha + 1) of `(p, o)` in a selective pass:
    /// the static evaluation chooses the test; a shallow search of
    /// [`probcut::shallow_depth`] plies at least `alpha + 1 + margin` fails the node high
    /// (returns alpha + 1, a lower bound), one at most `alpha - margin` fails it low (returns
    /// alpha, an upper bound); the margin is `t * sigma` of [`probcut::margin`]. `None` if
    /// neither.
    fn probcut(&mut self, p: u64, o: u64, alpha: Score, empties: u32) -> Option<(Score, Bound)> {
        let depth = probcut::shallow_depth(empties);
        let margin = probcut::margin(self.selectivity, empties, depth)?;
        let beta = alpha + 1;
        let eval = evaluate(&Board {
            player: p,
            opponent: o,
        });
        if eval >= beta {
            let bound = beta + margin;
            if bound > 64 {
                return None;
            }
            let v = if depth == 0 {
                eval
            } else {
                self.order_pvs(p, o, bound - 1, bound, depth, true).0
            };
            (v >= bound && !self.stopped).then_some((beta, Bound::Lower))
        } else {
            let bound = alpha - margin;
            if bound < -64 {
                return None;
            }
            let v = if depth == 0 {
                eval
            } else {
                self.order_pvs(p, o, bound, bound + 1, depth, true).0
            };
            (v <= bound && !self.stopped).then_some((alpha, Bound::Upper))
        }
    }

    /// Midgame multi-ProbCut (Buro 1997) at a null-window node (alpha, alpha + 1) of `(p, o)`
    /// searched to `depth` plies: with the fit deep ≈ a × shallow + b ± sigma of
    /// [`probcut::MpcTable::fit`] for [`probcut::mid_shallow_depth`], a shallow search
    /// predicting at least beta + t × sigma fails the node high (returns beta), one
    /// predicting at most alpha − t × sigma fails it low (returns alpha). The static
    /// evaluation chooses which test is tried (at or above beta: the high one). `None` if
    /// neither cuts, or without a fit.
    fn mid_probcut(&mut self, p: u64, o: u64, alpha: Score, depth: i32) -> Option<Score> {
        let (table, t) = self.mid_mpc?;
        let empties = 64 - (p | o).count_ones();
        let d = probcut::mid_shallow_depth(depth);
        let f = table.fit(empties, depth, d)?;
        let (a, b, margin) = (f.a as f64, f.b as f64, t * f.sigma as f64);
        let beta = alpha + 1;
        let eval = evaluate(&Board {
            player: p,
            opponent: o,
        });
        if eval >= beta {
            let bound = ((beta as f64 + margin - b) / a).ceil();
            if bound > 64.0 {
                return None;
            }
            let bound = (bound as Score).max(-63);
            let v = self.order_pvs(p, o, bound - 1, bound, d, true).0;
            (v >= bound && !self.stopped).then_some(beta)
        } else {
            let bound = ((alpha as f64 - margin - b) / a).floor();
            if bound < -64.0 {
                return None;
            }
            let bound = (bound as Score).min(63);
            let v = self.order_pvs(p, o, bound, bound + 1, d, true).0;
            (v <= bound && !self.stopped).then_some(alpha)
        }
    }

    /// The YBWC split of a midgame node of `(p, o)` at `depth` plies ([`Searcher::order_pvs`]
    /// with the window (alpha, beta) after its first move failed low): the moves `rest` get
    /// null-window searches around `alpha` in parallel on the pool; one failing high at a
    /// null-window node (beta = alpha + 1) cuts the others off through a [`Cut`] flag. Then,
    /// in `rest`'s order, each fail-high that still beats the raised alpha is re-searched with
    /// the window (alpha, beta), as the sequential PVS would. Returns the best value and move
    /// (−[`SCORE_INF`] and 64 if nothing completed); sets `stopped` if the split was
    /// abandoned from above (a cut-off above it, the stop flag or the deadline).
    fn mid_split(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        beta: Score,
        depth: i32,
        rest: &[u32],
    ) -> (Score, u32) {
        let results = self.split_search(rest, beta, |s, x| {
            let f = flips(p, o, x);
            -s.order_pvs(o ^ f, p ^ f ^ (1 << x), -alpha - 1, -alpha, depth - 1, true)
                .0
        });
        let mut best = -SCORE_INF;
        let mut best_move = 64;
        let mut a = alpha;
        for &(i, v) in &results {
            let x = rest[i];
            let mut v = v;
            if v > alpha && v < beta {
                // A PV node's fail-high (a lower bound above alpha, which may not beat the
                // alpha `a` raised since): searched again with the window (a, beta), as the
                // sequential PVS would after its null-window search at `a`.
                let f = flips(p, o, x);
                v = -self
                    .order_pvs(o ^ f, p ^ f ^ (1 << x), -beta, -a, depth - 1, true)
                    .0;
                if self.stopped {
                    return (0, 64);
                }
            }
            if v > best {
                best = v;
                best_move = x;
                if v > a {
                    a = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_move)
    }

    /// The YBWC split of an NWS node of `(p, o)` at `alpha`: searches the moves `rest` in
    /// parallel, each by a helper searcher under a new split point, and stops them all once
    /// one fails high. Returns the best (score, move) among the completed searches (`None` if
    /// none completed); sets `self.stopped` if the split was abandoned from above (stop
    /// flag, deadline or a cutoff at an enclosing split point).
    fn nws_split(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        empties: u32,
        rest: &[u32],
    ) -> Option<(Score, u32)> {
        let results = self.split_search(rest, alpha + 1, |s, x| {
            let f = flips(p, o, x);
            -s.nws_p(o ^ f, p ^ f ^ (1 << x), -alpha - 1, empties - 1, true)
        });
        let mut best: Option<(Score, u32)> = None;
        for (i, v) in results {
            if best.is_none_or(|(bv, _)| v > bv) {
                best = Some((v, rest[i]));
            }
        }
        best
    }

    /// The parallel part of a YBWC split ([`Searcher::nws_split`], [`Searcher::mid_split`]):
    /// `search(helper, x)` for every move `x` of `rest` at once (rayon work stealing, on
    /// this searcher's pool if it has one), each by a helper searcher with this one's
    /// settings (table, stop flag, deadline, selectivity, splits, midgame ProbCut) under a new
    /// split point; a value ≥ `beta` cuts the others off. Returns the completed searches as
    /// (index in `rest`, value) in `rest`'s order, and adds their nodes. Sets `stopped` if the
    /// split was abandoned from above (stop flag, deadline, or a cut-off at an enclosing split
    /// point) and no value reached `beta`.
    fn split_search<F>(&mut self, rest: &[u32], beta: Score, search: F) -> Vec<(usize, Score)>
    where
        F: Fn(&mut Searcher, u32) -> Score + Sync,
    {
        let cut = Arc::new(Cut {
            flag: AtomicBool::new(false),
            parent: self.cut.clone(),
        });
        let results: Mutex<Vec<(usize, Score)>> = Mutex::new(Vec::with_capacity(rest.len()));
        let nodes = AtomicU64::new(0);
        let aborted = AtomicBool::new(false);
        let this = &*self;
        let run = || {
            rest.par_iter()
                .enumerate()
                .with_max_len(1)
                .for_each(|(i, &x)| {
                    if cut.is_set() || past_limits(&this.stop, this.deadline) {
                        if !cut.flag.load(Ordering::Relaxed) {
                            aborted.store(true, Ordering::Relaxed);
                        }
                        return;
                    }
                    let mut s = Searcher::new(this.tt.clone(), this.stop.clone(), this.deadline);
                    s.selectivity = this.selectivity;
                    s.cut = Some(cut.clone());
                    s.pool = this.pool.clone();
                    s.split = this.split;
                    s.mid_split = this.mid_split;
                    s.mid_mpc = this.mid_mpc;
                    s.set_progress(this.progress.clone());
                    let v = search(&mut s, x);
                    s.publish();
                    nodes.fetch_add(s.nodes, Ordering::Relaxed);
                    if s.stopped {
                        if !cut.flag.load(Ordering::Relaxed) {
                            aborted.store(true, Ordering::Relaxed);
                        }
                        return;
                    }
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, v));
                    if v >= beta {
                        cut.flag.store(true, Ordering::Relaxed);
                    }
                });
        };
        match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        }
        // The helpers published their nodes already.
        let n = nodes.load(Ordering::Relaxed);
        self.nodes += n;
        self.published += n;
        let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        results.sort_unstable_by_key(|&(i, _)| i);
        if aborted.load(Ordering::Relaxed) && !results.iter().any(|&(_, v)| v >= beta) {
            self.stopped = true;
        }
        results
    }

    /// Exact principal-variation search (PVS) with the window (alpha, beta): the first move
    /// with the full window, the others with an NWS and a re-search on a fail-high.
    /// Fail-soft; exact when the result lies strictly inside the window.
    pub fn pvs(&mut self, b: &Board, alpha: Score, beta: Score) -> Score {
        let empties = b.empties();
        if beta <= alpha + 1 {
            return self.nws_p(b.player, b.opponent, alpha, empties, true);
        }
        self.pvs_node(b, alpha, beta, empties, true).0
    }

    /// PVS node returning the score and the best move square (64 if none).
    fn pvs_node(
        &mut self,
        b: &Board,
        mut alpha: Score,
        mut beta: Score,
        empties: u32,
        may_pass: bool,
    ) -> (Score, u32) {
        if empties == 0 {
            self.nodes += 1;
            return (b.final_score(), 64);
        }
        self.nodes += 1;
        if self.check_stop() {
            return (0, 64);
        }
        let (p, o) = (b.player, b.opponent);
        let moves = get_moves(p, o);
        if moves == 0 {
            if may_pass && get_moves(o, p) != 0 {
                let (v, _) = self.pvs_node(&b.pass(), -beta, -alpha, empties, false);
                return (-v, 64);
            }
            return (b.final_score(), 64);
        }
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(b) {
            tt_move = e.best.filter(|&m| moves & (1u64 << m) != 0);
            if e.solved && e.selectivity <= self.selectivity {
                let cut = if e.lower == e.upper || e.lower >= beta {
                    Some(e.lower)
                } else if e.upper <= alpha {
                    Some(e.upper)
                } else {
                    None
                };
                if let Some(v) = cut {
                    return (v, e.best.map_or(64, |m| m as u32));
                }
                // A known interval narrows the window.
                alpha = alpha.max(e.lower - 1);
                beta = beta.min(e.upper + 1);
            }
        }
        let alpha0 = alpha;
        let mut list = MoveList::new();
        if empties >= SEARCH_ORDER_EMPTIES {
            self.search_order(&mut list, b, moves, tt_move, empties);
        } else {
            self.fastest_first::<false>(&mut list, p, o, moves, tt_move, false);
            list.sort();
        }
        let Some((best, best_move)) = self.pvs_moves(
            b,
            &list.squares(0),
            alpha,
            beta,
            |s, c, a, bb| s.pvs_node(c, a, bb, empties - 1, true).0,
            |s, c, a| s.nws_p(c.player, c.opponent, a, empties - 1, true),
        ) else {
            return (0, 64);
        };
        let bound = Bound::from_window(best, alpha0, beta);
        self.store_solved(self.tt.bucket_start(b), b, best, bound, empties, best_move);
        (best, best_move)
    }

    /// The move loop of a principal-variation search (PVS) node, shared by the midgame and the
    /// endgame: the first move of `order` with the window (alpha, beta) through `pv`, the
    /// others with a null window through `nws` (its argument is the child's alpha; the window
    /// is (alpha, alpha + 1)) and a `pv` re-search when that fails high inside the window.
    /// Fail-soft; returns the best score and its move, or `None` once stopped.
    #[inline(always)]
    pub(crate) fn pvs_moves(
        &mut self,
        b: &Board,
        order: &[u32],
        mut alpha: Score,
        beta: Score,
        mut pv: impl FnMut(&mut Searcher, &Board, Score, Score) -> Score,
        mut nws: impl FnMut(&mut Searcher, &Board, Score) -> Score,
    ) -> Option<(Score, u32)> {
        let mut best = -SCORE_INF;
        let mut best_move = order[0];
        for (i, &x) in order.iter().enumerate() {
            let child = b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x));
            let v = if i == 0 {
                -pv(self, &child, -beta, -alpha)
            } else {
                let mut v = -nws(self, &child, -alpha - 1);
                if v > alpha && v < beta && !self.stopped {
                    v = -pv(self, &child, -beta, -v);
                }
                v
            };
            if self.stopped {
                return None;
            }
            if v > best {
                best = v;
                best_move = x;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        Some((best, best_move))
    }

    /// Solves `b` at the root with the window (alpha, beta): (−64, 64) for an exact solve,
    /// (−1, 1) for WLD. Returns `None` if stopped (flag or deadline) before the end.
    ///
    /// The score is exact if it lies strictly inside the window, otherwise a bound with the
    /// right sign (so a WLD result's sign is exact). The PV is rebuilt from the TT and
    /// confirmed with null-window searches, so it is always a legal line to the end of the
    /// game achieving the score (for a bound, a WLD win or loss: a line keeping the bound,
    /// each winning step proven by a null-window search; it ends early only if stopped).
    pub fn solve(&mut self, b: &Board, alpha: Score, beta: Score) -> Option<SolveResult> {
        match self.pool.clone() {
            Some(pool) => {
                self.split = true;
                let r = pool.install(|| self.solve_here(b, alpha, beta));
                self.split = false;
                r
            }
            None => self.solve_here(b, alpha, beta),
        }
    }

    /// [`Searcher::solve`] on the current thread (splitting if `self.split`).
    fn solve_here(&mut self, b: &Board, alpha: Score, beta: Score) -> Option<SolveResult> {
        let empties = b.empties();
        if b.is_game_over() {
            self.nodes += 1;
            return Some(SolveResult {
                score: b.final_score(),
                best: Move::Pass,
                pv: Vec::new(),
            });
        }
        let (score, sq) = self.aspiration_solve(b, alpha, beta, empties);
        if self.stopped {
            return None;
        }
        let moves = b.moves();
        let best = if moves == 0 {
            Move::Pass
        } else if sq < 64 && moves & (1u64 << sq) != 0 {
            Move::Play(Square::from_index(sq as u8))
        } else {
            // A root TT hit without a usable move: find a move reaching the score's bound.
            let mut found = moves.trailing_zeros();
            let mut m = moves;
            while m != 0 {
                let x = m.trailing_zeros();
                m &= m - 1;
                let c = b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x));
                if -self.nws_p(c.player, c.opponent, -score, empties - 1, true) >= score {
                    found = x;
                    break;
                }
            }
            Move::Play(Square::from_index(found as u8))
        };
        // Inside the window the score is exact; so is a ±64 at the window's edge, since no
        // score lies beyond it (a wipe-out found with beta = 64 still has its PV rebuilt).
        let exact = (score > alpha || score <= -64) && (score < beta || score >= 64);
        let pv = if exact {
            self.exact_pv(b, score)
        } else {
            // A bound (a WLD win or loss): the best move, then a line keeping the bound.
            let child = match best {
                Move::Pass => b.pass(),
                Move::Play(sq) => b.make_move(sq),
            };
            let mut pv = vec![best];
            if score >= beta {
                pv.extend(self.bound_pv(&child, -beta, false));
            } else {
                pv.extend(self.bound_pv(&child, -alpha, true));
            }
            pv
        };
        if self.stopped {
            return None;
        }
        // The PV's first move is proven to reach the score (two NWS per step): it is the
        // answer, whatever move the root's search or TT entry named.
        let best = match pv.first() {
            Some(&m) if exact => m,
            _ => best,
        };
        Some(SolveResult { score, best, pv })
    }

    /// The root PVS, at ≥ [`ASPIRATION_SOLVE_EMPTIES`] empties with an aspiration window
    /// around a shallow midgame estimate, widened on failure until the result is exact inside
    /// (alpha, beta) or a bound beyond it.
    fn aspiration_solve(
        &mut self,
        b: &Board,
        alpha: Score,
        beta: Score,
        empties: u32,
    ) -> (Score, u32) {
        if empties < ASPIRATION_SOLVE_EMPTIES {
            return self.pvs_node(b, alpha, beta, empties, true);
        }
        let depth = if empties >= 20 { 10 } else { 6 };
        // Half-width of the first window: (est − 1, est + 1). Tuned on FFO #40–#49 and
        // #20–#39 with eval v2 (w = 1, 2, 4, 8; 1 searched the fewest nodes: −3 to −6 % on
        // #40–#47 and #20–#39, −19 % on #48–#49, against 4).
        let w = 1;
        // The midgame search also leaves its best moves in the TT for the solve's ordering,
        // so a WLD solve (too narrow a window for aspiration) runs it too.
        let (est, _) = self.order_pvs(b.player, b.opponent, -SCORE_INF, SCORE_INF, depth, true);
        if beta - alpha <= 2 {
            return self.pvs_node(b, alpha, beta, empties, true);
        }
        let mut est = est;
        if (self.mpc_root_empties.0..=self.mpc_root_empties.1).contains(&empties) {
            let n0 = self.nodes;
            // Selective pre-searches (multi-ProbCut, least confident first): each fills the
            // TT with best moves and selective bounds for the next and refines the estimate.
            for &level in &probcut::PASSES {
                self.selectivity = level;
                let (v, _) = self.aspiration_loop(b, alpha, beta, empties, est, w);
                self.selectivity = 0;
                if self.stopped {
                    self.selective_nodes += self.nodes - n0;
                    return (0, 64);
                }
                est = v.clamp(-64, 64);
            }
            self.selective_nodes += self.nodes - n0;
        }
        self.aspiration_loop(b, alpha, beta, empties, est, w)
    }

    /// The root PVS of [`Searcher::aspiration_solve`] from the window (est − w, est + w),
    /// widened on failure. A selective pass ([`Searcher::selectivity`] > 0) may be unstable
    /// (a fail-low then a fail-high at the same score); after 4 windows it searches the whole
    /// window (alpha, beta).
    fn aspiration_loop(
        &mut self,
        b: &Board,
        alpha: Score,
        beta: Score,
        empties: u32,
        est: Score,
        w: Score,
    ) -> (Score, u32) {
        let mut lo = (est - w).max(alpha);
        let mut hi = (est + w).min(beta);
        if lo >= hi {
            lo = alpha;
            hi = beta;
        }
        let mut tries = 0;
        loop {
            let (v, x) = self.pvs_node(b, lo, hi, empties, true);
            if self.stopped {
                return (v, x);
            }
            tries += 1;
            if self.selectivity != 0 && tries >= 4 && (lo > alpha || hi < beta) {
                lo = alpha;
                hi = beta;
                continue;
            }
            if v <= lo && lo > alpha {
                hi = v + 1;
                lo = (v - 2 * w).max(alpha);
            } else if v >= hi && hi < beta {
                lo = v - 1;
                hi = (v + 2 * w).min(beta);
            } else {
                return (v, x);
            }
        }
    }

    /// The moves `moves` of `b` in the order the PV rebuilders try them: the TT move first,
    /// then the others in square order. Never empty when `moves` is not.
    fn pv_order(&self, b: &Board, moves: u64) -> Vec<u32> {
        let tt_move = self
            .tt
            .probe(b)
            .and_then(|e| e.best)
            .filter(|&m| moves & (1u64 << m) != 0)
            .map(|m| m as u32);
        let mut order: Vec<u32> = tt_move.into_iter().collect();
        let mut m = moves & !tt_move.map_or(0, |x| 1u64 << x);
        while m != 0 {
            order.push(m.trailing_zeros());
            m &= m - 1;
        }
        order
    }

    /// A line from `b` to the end of the game that keeps a proven bound on its score: the
    /// score is ≥ `t` if `lower`, else ≤ `t` (a WLD win is ≥ 1, a loss ≤ −1). Where the
    /// side to move holds a lower bound, each step is a move whose child is ≤ −t (the TT move
    /// first, each candidate tested by one NWS); where it holds an upper bound every move
    /// keeps it, and the TT move (else the first move) is taken. Ends early only if stopped.
    fn bound_pv(&mut self, b: &Board, t: Score, lower: bool) -> Vec<Move> {
        let mut pv = Vec::new();
        let (mut b, mut t, mut lower) = (*b, t, lower);
        while !b.is_game_over() && !self.stopped {
            let moves = b.moves();
            if moves == 0 {
                pv.push(Move::Pass);
                (b, t, lower) = (b.pass(), -t, !lower);
                continue;
            }
            let order = self.pv_order(&b, moves);
            let mut chosen = None;
            if lower {
                for x in order {
                    let c = b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x));
                    // The child is ≤ −t: its NWS at −t fails low.
                    if self.nws_p(c.player, c.opponent, -t, b.empties() - 1, true) <= -t {
                        chosen = Some((x, c));
                        break;
                    }
                }
            } else {
                let x = order[0];
                chosen = Some((
                    x,
                    b.make_move_with_flips(1 << x, flips(b.player, b.opponent, x)),
                ));
            }
            let Some((x, c)) = chosen else { break };
            pv.push(Move::Play(Square::from_index(x as u8)));
            (b, t, lower) = (c, -t, !lower);
        }
        pv
    }

    /// Rebuilds the principal variation of a position whose exact score is `score`: at each
    /// step the TT move first, then the other moves, are tested with two NWS calls until one
    /// whose child scores exactly −score is found.
    fn exact_pv(&mut self, b: &Board, score: Score) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut b = *b;
        let mut score = score;
        while !b.is_game_over() && !self.stopped {
            let moves = b.moves();
            if moves == 0 {
                pv.push(Move::Pass);
                b = b.pass();
                score = -score;
                continue;
            }
            let order = self.pv_order(&b, moves);
            let empties = b.empties();
            let mut found = None;
            for x in order {
                let f = flips(b.player, b.opponent, x);
                let c = b.make_move_with_flips(1 << x, f);
                // Child value must be exactly -score: not above -score, and above -score-1.
                let hi = self.nws_p(c.player, c.opponent, -score, empties - 1, true);
                if hi > -score {
                    continue;
                }
                let lo = self.nws_p(c.player, c.opponent, -score - 1, empties - 1, true);
                if lo > -score - 1 {
                    found = Some((x, c));
                    break;
                }
            }
            match found {
                Some((x, c)) => {
                    pv.push(Move::Play(Square::from_index(x as u8)));
                    b = c;
                    score = -score;
                }
                None => break,
            }
        }
        pv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stability_cutoff_bounds_both_ways() {
        // The side to move owns the whole first row (8 stable discs): it ends with at least
        // 8 discs, so no NWS below 2 × 8 − 64 = −48 can fail low.
        let p = 0xFF;
        let o = 0x00FF_FF00_FF00_FF00;
        let s = Searcher::new(
            Arc::new(TranspositionTable::new(1)),
            Arc::new(AtomicBool::new(false)),
            None,
        );
        let lower = 2 * stable_discs(p, o).count_ones() as Score - 64;
        assert!(lower >= -48);
        assert_eq!(s.stability_cutoff(p, o, -50), Some(lower));
        assert_eq!(s.stability_cutoff(p, o, lower), None);
        // Seen from the other side, the same discs cap the score at 64 − 2 × 8 = 48.
        let upper = 64 - 2 * stable_discs(p, o).count_ones() as Score;
        assert_eq!(s.stability_cutoff(o, p, 50), Some(upper));
        assert_eq!(s.stability_cutoff(o, p, upper - 1), None);
    }

    #[test]
    fn edge_runs_are_the_corner_runs_grown_square_by_square() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(24);
        const EDGES: u64 = 0xFF81_8181_8181_81FF;
        for _ in 0..20_000 {
            // Dense edges, so that long runs occur.
            let p = rng.r#gen::<u64>() | rng.r#gen::<u64>() | rng.r#gen::<u64>();
            let mut want = edge_runs_columns(p);
            for (corner, step) in [(0, 1i32), (7, -1), (56, 1), (63, -1)] {
                let mut x = corner;
                while (0..64).contains(&x)
                    && p >> x & 1 == 1
                    && (x == corner || x / 8 == corner / 8)
                {
                    want |= 1u64 << x;
                    x += step;
                }
            }
            assert_eq!(edge_runs(p) & EDGES, want, "{p:x}");
            assert_eq!(edge_runs(p) & !EDGES, 0);
        }
    }

    #[test]
    fn stable_discs_of_full_and_corner_boards() {
        // A full board: every disc is stable.
        let p = 0x0000_0000_FFFF_FFFF;
        assert_eq!(stable_discs(p, !p), p);
        // A lone corner is stable, a lone centre disc is not.
        assert_eq!(stable_discs(1, 1 << 27), 1);
        assert_eq!(stable_discs(1 << 27, 1), 0);
        // A row-1 edge run from a1 is stable.
        assert_eq!(stable_discs(0b111, 1 << 20), 0b111);
    }

    #[test]
    fn last_flip_count_equals_flips_on_one_empty_boards() {
        let mut s: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = (s >> 58) as u32;
            let p = s & !(1u64 << x);
            let o = !p & !(1u64 << x);
            assert_eq!(
                last_flip_count(p, x),
                flips(p, o, x).count_ones(),
                "{p:x} {x}"
            );
            assert_eq!(
                last_flip_count(o, x),
                flips(o, p, x).count_ones(),
                "{p:x} {x}"
            );
            assert_eq!(last_flip_count_rays(p, x), last_flip_count(p, x));
        }
    }

    #[test]
    fn flips_equal_board_flips_on_random_positions() {
        for (a, b) in crate::othello::board::random_bitboard_pairs(20_000) {
            let mut e = !(a | b);
            while e != 0 {
                let x = e.trailing_zeros();
                e &= e - 1;
                let want = crate::othello::board::flips(a, b, x);
                assert_eq!(flips(a, b, x), want, "{a:x} {b:x} {x}");
                assert_eq!(
                    crate::othello::board::flips_rays(a, b, x),
                    want,
                    "{a:x} {b:x} {x}"
                );
            }
            assert_eq!(get_moves(a, b), crate::othello::board::get_moves(a, b));
            assert_eq!(get_moves(b, a), crate::othello::board::get_moves(b, a));
        }
    }

    #[test]
    fn full_diagonals_equal_line_masks() {
        let mut s: u64 = 0x2545_F491_4F6C_DD1D;
        for i in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // Dense boards, so that many diagonals are full.
            let filled = if i % 2 == 0 {
                s | (s >> 3) | (s << 5)
            } else {
                !0 ^ (1 << (s & 63))
            };
            let (mut d9, mut d7) = (0, 0);
            for m in &DIAGONALS[..15] {
                if filled & m == *m {
                    d9 |= m;
                }
            }
            for m in &DIAGONALS[15..] {
                if filled & m == *m {
                    d7 |= m;
                }
            }
            assert_eq!(full_diagonals(filled), (d9, d7), "{filled:x}");
        }
    }

    /// [`stable_discs`] square by square: the same rule, iterated to its fixpoint.
    fn stable_discs_reference(p: u64, o: u64) -> u64 {
        let mut stable = 0;
        let filled = p | o;
        let full = |m: &[u64]| m.iter().filter(|&&l| filled & l == l).fold(0, |a, l| a | l);
        let rows: Vec<u64> = (0..8).map(|r| 0xFFu64 << (8 * r)).collect();
        let cols: Vec<u64> = (0..8).map(|c| 0x0101_0101_0101_0101u64 << c).collect();
        let (full_h, full_v) = (full(&rows), full(&cols));
        let (full_9, full_7) = (full(&DIAGONALS[..15]), full(&DIAGONALS[15..]));
        loop {
            let mut next = 0;
            for sq in 0..64 {
                let b = 1u64 << sq;
                if p & b == 0 {
                    continue;
                }
                let (c, r) = (sq % 8, sq / 8);
                // Along an axis (dc, dr): full line, an edge, or a stable neighbour.
                let ok = |dc: i32, dr: i32, full_axis: u64| {
                    if full_axis & b != 0 {
                        return true;
                    }
                    [(dc, dr), (-dc, -dr)].iter().any(|&(x, y)| {
                        let (nc, nr) = (c + x, r + y);
                        !(0..8).contains(&nc)
                            || !(0..8).contains(&nr)
                            || stable & (1u64 << (nr * 8 + nc)) != 0
                    })
                };
                if ok(1, 0, full_h) && ok(0, 1, full_v) && ok(1, 1, full_9) && ok(-1, 1, full_7) {
                    next |= b;
                }
            }
            if next == stable {
                return stable;
            }
            stable = next;
        }
    }

    #[test]
    fn stable_discs_equal_a_square_by_square_fixpoint() {
        let mut with_edge_runs = 0;
        for (i, (a, b)) in crate::othello::board::random_bitboard_pairs(5_000)
            .into_iter()
            .enumerate()
        {
            // Dense boards with filled edges, so that edge runs and full lines are common.
            let fill = if i % 2 == 0 {
                0xFF81_8181_8181_81FF
            } else {
                !0
            };
            let (a, b) = (
                a | (!(a | b) & fill & (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                b,
            );
            let (a, b) = (a, b & !a);
            let s = stable_discs(a, b);
            with_edge_runs += (s & 0x7E00_0000_0000_007E != 0) as u32;
            assert_eq!(s, stable_discs_reference(a, b), "{a:x} {b:x}");
            assert_eq!(
                stable_discs(b, a),
                stable_discs_reference(b, a),
                "{a:x} {b:x}"
            );
        }
        assert!(with_edge_runs > 100, "{with_edge_runs}");
    }

    #[test]
    fn odd_quadrants_equals_popcount_parity() {
        for (a, b) in crate::othello::board::random_bitboard_pairs(20_000) {
            for empty in [a, b, !(a | b), a ^ b] {
                let mut want = 0;
                for q in QUADRANTS {
                    if (empty & q).count_ones() % 2 == 1 {
                        want |= q;
                    }
                }
                assert_eq!(odd_quadrants(empty), want, "{empty:x}");
            }
        }
    }

    #[test]
    fn odd_quadrants_counts_parity() {
        // Empties a1 (quadrant 0) and h8 + g8 (quadrant 3): only quadrant 0 is odd.
        let empty = 1 | (1 << 63) | (1 << 62);
        assert_eq!(odd_quadrants(empty), QUADRANTS[0]);
    }
}
