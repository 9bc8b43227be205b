//! Move generation on bitboards: the legal moves (mobility), the flips of a move and the flip
//! count of the last empty square, with AVX2 and BMI2 `pext` paths chosen at compile time (`pext`
//! only where it is fast: the `flank_pext` cfg of build.rs) and portable ones otherwise.

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
/// The same result as [`flips_fills`]; with AVX2 the 8 rays are done 4 at a time
/// without branches (see `flips_avx2`), else per ray by [`flips_rays`].
#[inline(always)]
pub fn flips(p: u64, o: u64, x: u32) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        flips_avx2(p, o, x)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        flips_rays(p, o, x)
    }
}

/// Legal moves of `p` against `o` as a bitboard: the same result as
/// [`get_moves_fills`]; with AVX2 the 4 directions of each sense are filled at once
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
        get_moves_fills(p, o)
    }
}

/// [`LAST_RAYS`] aligned for 256-bit loads: the 4 rays towards higher indices, then the 4
/// towards lower indices.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[repr(C, align(32))]
struct AlignedRays([[u64; 8]; 64]);
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
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
pub fn flips_near(p: u64, o: u64, x: u32) -> u64 {
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

/// Number of discs flipped when the side owning `p` plays `x`, the board's only empty square (every
/// other square not in `p` belongs to the opponent). Counts without building the flipped set. With
/// `pext` (`flank_pext`, build.rs): for each of the 4 lines through `x`, the line's discs of `p`
/// are gathered into an 8-bit pattern (`pext`) and a table gives the flips on that line (the table
/// idea is Edax's `count_last_flip`); else [`last_flip_count_lines`].
#[inline(always)]
pub fn last_flip_count(p: u64, x: u32) -> u32 {
    #[cfg(flank_pext)]
    {
        use std::arch::x86_64::_pext_u64;
        let l = &LAST_FLIP_LINES[x as usize & 63];
        // SAFETY: `flank_pext` is set only for targets with BMI2 (build.rs).
        unsafe {
            (l.row[0][_pext_u64(p, l.mask[0]) as usize & 255]
                + l.row[1][_pext_u64(p, l.mask[1]) as usize & 255]
                + l.row[2][_pext_u64(p, l.mask[2]) as usize & 255]
                + l.row[3][_pext_u64(p, l.mask[3]) as usize & 255]) as u32
        }
    }
    #[cfg(not(flank_pext))]
    {
        last_flip_count_lines(p, x)
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
#[cfg(flank_pext)]
static LINE_FLIP_COUNT_ROWS: [[u8; 256]; 8] = LINE_FLIP_COUNT;

/// For each square, the masks of its 4 lines and, for each line, the row of
/// [`LINE_FLIP_COUNT`] for the square's position on it (one 64-byte cache line per square:
/// [`last_flip_count`] needs no position arithmetic).
#[cfg(flank_pext)]
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct LastFlipLines {
    mask: [u64; 4],
    row: [&'static [u8; 256]; 4],
}

/// [`LastFlipLines`] of each square, from [`LINES`].
#[cfg(flank_pext)]
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

/// [`last_flip_count`] without `pext`: each of the 4 lines through `x` gathered into one byte
/// by a shift or a multiply (a row by a shift; a column, bit by row, by the multiply that
/// moves column a's bits into the top byte; a diagonal, bit by column, by summing its bytes)
/// and the flips read from the `pext` path's table (`LINE_FLIP_COUNT`) by `x`'s position on
/// the line (Edax's kindergarten `count_last_flip`).
#[inline(always)]
pub fn last_flip_count_lines(p: u64, x: u32) -> u32 {
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    let (c, r) = ((x & 7) as usize, (x >> 3) as usize & 7);
    let d = &LINES[x as usize & 63].mask;
    let row = (p >> (8 * r)) as usize & 255;
    let col = (((p >> c) & FILE_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize;
    let diag = ((p & d[2]).wrapping_mul(FILE_A) >> 56) as usize;
    let anti = ((p & d[3]).wrapping_mul(FILE_A) >> 56) as usize;
    let t = &LINE_FLIP_COUNT;
    (t[c][row] + t[r][col] + t[c][diag] + t[c][anti]) as u32
}

/// Fills from `seed` through `prop` in the direction of a left shift by `d`, returning the
/// squares reached (not including `seed`). `prop` must already exclude wrap-around columns.
#[inline(always)]
fn fill_left(seed: u64, prop: u64, d: u32) -> u64 {
    let mut f = prop & (seed << d);
    f |= prop & (f << d);
    let p2 = prop & (prop << d);
    f |= p2 & (f << (2 * d));
    f |= p2 & (f << (2 * d));
    f
}

/// As [`fill_left`] for right shifts.
#[inline(always)]
fn fill_right(seed: u64, prop: u64, d: u32) -> u64 {
    let mut f = prop & (seed >> d);
    f |= prop & (f >> d);
    let p2 = prop & (prop >> d);
    f |= p2 & (f >> (2 * d));
    f |= p2 & (f >> (2 * d));
    f
}

/// Legal moves of `p` against `o` as a bitboard (the mobility set), by Kogge–Stone fills in
/// the 8 directions on plain 64-bit integers: the portable path of [`get_moves`].
#[inline]
pub fn get_moves_fills(p: u64, o: u64) -> u64 {
    let empty = !(p | o);
    let oh = o & 0x7E7E_7E7E_7E7E_7E7E; // opponent discs not on columns a or h
    let mut moves = 0;
    // Horizontal (±1), diagonals (±7, ±9) need the column mask; vertical (±8) does not.
    moves |= fill_left(p, oh, 1) << 1;
    moves |= fill_right(p, oh, 1) >> 1;
    moves |= fill_left(p, o, 8) << 8;
    moves |= fill_right(p, o, 8) >> 8;
    moves |= fill_left(p, oh, 7) << 7;
    moves |= fill_right(p, oh, 7) >> 7;
    moves |= fill_left(p, oh, 9) << 9;
    moves |= fill_right(p, oh, 9) >> 9;
    moves & empty
}

/// Discs of `o` flipped when `p` plays on the empty square `sq` (0–63); 0 if the move is illegal,
/// by the same fills as [`get_moves_fills`] (a reference for the tests of [`flips`]).
#[inline]
pub fn flips_fills(p: u64, o: u64, sq: u32) -> u64 {
    let x = 1u64 << sq;
    let oh = o & 0x7E7E_7E7E_7E7E_7E7E;
    let mut flipped = 0;
    macro_rules! dir {
        ($fill:ident, $prop:expr, $d:expr, $sh:tt) => {{
            let f = $fill(x, $prop, $d);
            if (f $sh $d) & p != 0 {
                flipped |= f;
            }
        }};
    }
    dir!(fill_left, oh, 1, <<);
    dir!(fill_right, oh, 1, >>);
    dir!(fill_left, o, 8, <<);
    dir!(fill_right, o, 8, >>);
    dir!(fill_left, oh, 7, <<);
    dir!(fill_right, oh, 7, >>);
    dir!(fill_left, oh, 9, <<);
    dir!(fill_right, oh, 9, >>);
    flipped
}

/// The 8 rays from each square, index `[square][direction]`, not including the square.
/// Directions 0–3 go towards higher bit indices (+1 east, +7 south-west, +8 south, +9
/// south-east); 4–7 towards lower ones (−1, −7, −8, −9).
const RAYS: [[u64; 8]; 64] = {
    let mut t = [[0u64; 8]; 64];
    let dc: [i32; 8] = [1, -1, 0, 1, -1, 1, 0, -1];
    let dr: [i32; 8] = [0, 1, 1, 1, 0, -1, -1, -1];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let mut c = (sq % 8) as i32 + dc[d];
            let mut r = (sq / 8) as i32 + dr[d];
            let mut m = 0u64;
            while c >= 0 && c < 8 && r >= 0 && r < 8 {
                m |= 1u64 << (r * 8 + c);
                c += dc[d];
                r += dr[d];
            }
            t[sq][d] = m;
            d += 1;
        }
        sq += 1;
    }
    t
};

/// Discs of `o` flipped when `p` plays the empty square `sq` (0–63), 0 if none: the same result as
/// [`flips_fills`], computed per ray with the first-blocker trick (lowest set bit for rays towards
/// higher indices, highest for the others) instead of parallel fills.
#[inline(always)]
pub fn flips_rays(p: u64, o: u64, sq: u32) -> u64 {
    let rays = &RAYS[sq as usize];
    let mut flipped = 0;
    let not_o = !o;
    for r in &rays[..4] {
        let blockers = r & not_o;
        let first = blockers & blockers.wrapping_neg();
        if first & p != 0 {
            flipped |= (first - 1) & r;
        }
    }
    for r in &rays[4..] {
        let blockers = r & not_o;
        if blockers != 0 {
            let first = 1u64 << (63 - blockers.leading_zeros());
            if first & p != 0 {
                flipped |= r & !((first << 1).wrapping_sub(1));
            }
        }
    }
    flipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::board::random_bitboard_pairs;

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
            assert_eq!(last_flip_count_lines(p, x), last_flip_count(p, x));
        }
    }

    #[test]
    fn flips_equal_board_flips_on_random_positions() {
        for (a, b) in crate::othello::board::random_bitboard_pairs(20_000) {
            let mut e = !(a | b);
            while e != 0 {
                let x = e.trailing_zeros();
                e &= e - 1;
                let want = flips_fills(a, b, x);
                assert_eq!(flips(a, b, x), want, "{a:x} {b:x} {x}");
                assert_eq!(flips_rays(a, b, x), want, "{a:x} {b:x} {x}");
            }
            assert_eq!(get_moves(a, b), get_moves_fills(a, b));
            assert_eq!(get_moves(b, a), get_moves_fills(b, a));
        }
    }

    #[test]
    fn flips_rays_equals_flips_on_random_positions() {
        // Every empty square of each position checked.
        for (a, b) in random_bitboard_pairs(20_000) {
            let mut e = !(a | b);
            while e != 0 {
                let x = e.trailing_zeros();
                e &= e - 1;
                assert_eq!(flips_rays(a, b, x), flips_fills(a, b, x), "{a:x} {b:x} {x}");
            }
        }
    }
}
