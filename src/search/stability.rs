//! Stable discs: discs that can never be flipped (full lines, edges anchored to a corner),
//! for the solver's stability cutoffs.

/// The four corners.
pub(super) const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Masks of the 15 a1–h8 diagonals and 15 h1–a8 anti-diagonals of length ≥ 1.
#[cfg(test)]
pub(super) const fn diagonal_masks() -> [u64; 30] {
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
pub(super) const DIAGONALS: [u64; 30] = diagonal_masks();

/// The squares of `filled` whose a1–h8 diagonal (first) and h1–a8 diagonal (second) are
/// completely filled: in each direction, a square is kept if the next 1, then 2, then 4
/// squares along the line are filled or off the board (three doubling steps), as in Edax's
/// full-line computation.
#[inline]
pub(super) fn full_diagonals(filled: u64) -> (u64, u64) {
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
pub(super) const COL_A: u64 = 0x0101_0101_0101_0101;
/// Column h (the h1–h8 edge).
pub(super) const COL_H: u64 = 0x8080_8080_8080_8080;

/// The runs of `line` (an 8-bit edge, bit 0 at one corner) that start at either corner.
#[inline(always)]
pub(super) fn corner_runs(line: u64) -> u64 {
    let low = line & !(line + 1);
    let lead = (!line & 0xFF).leading_zeros() - 56;
    low | ((0xFF00 >> lead) & 0xFF)
}

/// The discs of `p` on the four edges that join an own corner through own discs along their
/// edge: stable, since the edge line holds them (no flip along it) and the board's border is
/// their neighbour on the other three axes. Found in one step instead of one square per
/// fixpoint round.
#[inline]
pub(super) fn edge_runs(p: u64) -> u64 {
    let rows = corner_runs(p & 0xFF) | (corner_runs(p >> 56) << 56);
    #[cfg(flank_pext)]
    let cols = {
        use std::arch::x86_64::{_pdep_u64, _pext_u64};
        // SAFETY: `flank_pext` is set only for targets with BMI2 (build.rs).
        unsafe {
            _pdep_u64(corner_runs(_pext_u64(p, COL_A)), COL_A)
                | _pdep_u64(corner_runs(_pext_u64(p, COL_H)), COL_H)
        }
    };
    #[cfg(not(flank_pext))]
    let cols = edge_runs_columns(p);
    rows | cols
}

/// The column part of [`edge_runs`] without `pext` (no `flank_pext`, build.rs): the runs up and down columns a and h grown
/// one square per round.
#[cfg_attr(flank_pext, allow(dead_code))]
pub(super) fn edge_runs_columns(p: u64) -> u64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_runs_are_the_corner_runs_grown_square_by_square() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(24);
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
}
