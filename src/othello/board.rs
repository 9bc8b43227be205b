//! The position on bitboards: a `(player, opponent)` pair of `u64`, legal moves (mobility), flips, copy-make, symmetries and hashing.
//!
//! Layout: bit `8 * row + col` holds the square with column `col` (a = 0 … h = 7) and row `row`
//! (row 1 = 0 … row 8 = 7), so bit 0 is a1, bit 7 is h1, bit 63 is h8, and row 1 is drawn at the top.
//! The board never knows colours: `player` is the side to move, `opponent` the other side; the
//! [`crate::othello::game::Game`] layer maps them back to black and white.
//!
//! Move generation is the Kogge–Stone style parallel prefix over the 8 directions (as in Edax's
//! `get_moves` and most bitboard engines); flips use the same fill from the played square.

use crate::othello::movegen::{flips, get_moves};
use crate::othello::square::Square;

/// A disc difference, player minus opponent, in discs (range −64…64). Search may use values
/// outside that range only as sentinels (see [`SCORE_INF`]).
pub type Score = i32;

/// A bound larger than any real score, for alpha–beta windows.
pub const SCORE_INF: Score = 127;

/// Mask that removes column a: used after shifts that move discs towards column h.
const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
/// Mask that removes column h: used after shifts that move discs towards column a.
const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// The standard start position's discs for black (d5, e4) and white (d4, e5).
const START_BLACK: u64 = (1 << 28) | (1 << 35); // e4, d5
const START_WHITE: u64 = (1 << 27) | (1 << 36); // d4, e5

/// A position: the discs of the side to move (`player`) and of the other side (`opponent`).
///
/// `Copy`, 16 bytes; search uses copy-make ([`Board::make_move`], [`Board::pass`]). The two
/// bitboards never overlap for boards built through this module's API.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board {
    /// Discs of the side to move, one bit per square (bit 0 = a1).
    pub player: u64,
    /// Discs of the side not to move.
    pub opponent: u64,
}

/// One of the 8 symmetries of the square (the dihedral group D4), see [`Board::transform`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Symmetry {
    /// Leaves the board as it is.
    Identity,
    /// Mirrors rows (row 1 ↔ row 8).
    FlipVertical,
    /// Mirrors columns (a ↔ h).
    FlipHorizontal,
    /// Mirrors in the a1–h8 diagonal.
    FlipDiagonal,
    /// Mirrors in the h1–a8 anti-diagonal.
    FlipAntiDiagonal,
    /// Rotates by 90°.
    Rotate90,
    /// Rotates by 180°.
    Rotate180,
    /// Rotates by 270°.
    Rotate270,
}

impl Symmetry {
    /// All 8 symmetries, identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::FlipVertical,
        Symmetry::FlipHorizontal,
        Symmetry::FlipDiagonal,
        Symmetry::FlipAntiDiagonal,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
    ];

    /// Applies the symmetry to one bitboard.
    #[inline]
    pub fn apply(self, b: u64) -> u64 {
        match self {
            Symmetry::Identity => b,
            Symmetry::FlipVertical => flip_vertical(b),
            Symmetry::FlipHorizontal => flip_horizontal(b),
            Symmetry::FlipDiagonal => flip_diagonal(b),
            Symmetry::FlipAntiDiagonal => flip_vertical(flip_horizontal(flip_diagonal(b))),
            Symmetry::Rotate90 => flip_vertical(flip_diagonal(b)),
            Symmetry::Rotate180 => flip_vertical(flip_horizontal(b)),
            Symmetry::Rotate270 => flip_diagonal(flip_vertical(b)),
        }
    }

    /// Applies the symmetry to one square index (0–63).
    #[inline]
    pub fn apply_square(self, sq: Square) -> Square {
        Square::from_index(self.apply(sq.bit()).trailing_zeros() as u8)
    }
}

/// Mirrors rows: row 1 ↔ row 8.
#[inline]
pub fn flip_vertical(b: u64) -> u64 {
    b.swap_bytes()
}

/// Mirrors columns: a ↔ h.
#[inline]
pub fn flip_horizontal(b: u64) -> u64 {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let mut x = b;
    x = ((x >> 1) & K1) | ((x & K1) << 1);
    x = ((x >> 2) & K2) | ((x & K2) << 2);
    ((x >> 4) & K4) | ((x & K4) << 4)
}

/// Mirrors in the a1–h8 diagonal (square (col, row) ↔ (row, col)).
#[inline]
pub fn flip_diagonal(b: u64) -> u64 {
    // Chess Programming Wiki's flipDiagA1H8 for the same little-endian rank-file layout.
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0F0F_0F0F_0000_0000;
    let mut x = b;
    let mut t = K4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = K2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = K1 & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    x
}

/// Squares 8-adjacent to any disc of `b` (used for potential mobility and frontier).
#[inline]
pub fn neighbours(b: u64) -> u64 {
    let h = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    let v = b | h;
    h | (v << 8) | (v >> 8)
}

impl Board {
    /// The standard start position: white d4 and e5, black d5 and e4, black (the player) to move.
    pub const fn start() -> Board {
        Board {
            player: START_BLACK,
            opponent: START_WHITE,
        }
    }

    /// Builds a board from the side to move's and the other side's discs.
    /// Returns `None` if the two overlap.
    pub fn new(player: u64, opponent: u64) -> Option<Board> {
        (player & opponent == 0).then_some(Board { player, opponent })
    }

    /// Empty squares as a bitboard.
    #[inline]
    pub fn empty(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// Number of empty squares (0–64).
    #[inline]
    pub fn empties(&self) -> u32 {
        self.empty().count_ones()
    }

    /// Legal moves of the side to move as a bitboard.
    #[inline]
    pub fn moves(&self) -> u64 {
        get_moves(self.player, self.opponent)
    }

    /// Legal moves of the side not to move as a bitboard.
    #[inline]
    pub fn opponent_moves(&self) -> u64 {
        get_moves(self.opponent, self.player)
    }

    /// True if the side to move has at least one legal move.
    #[inline]
    pub fn has_moves(&self) -> bool {
        self.moves() != 0
    }

    /// True if neither side can move: the game is over.
    #[inline]
    pub fn is_game_over(&self) -> bool {
        self.moves() == 0 && self.opponent_moves() == 0
    }

    /// Discs flipped if the side to move plays `sq`; 0 if the move is illegal or `sq` is occupied.
    #[inline]
    pub fn flips(&self, sq: Square) -> u64 {
        if self.empty() & sq.bit() == 0 {
            return 0;
        }
        flips(self.player, self.opponent, sq.index() as u32)
    }

    /// Copy-make: the position after the side to move plays `sq`, which must be legal
    /// (flips ≠ 0); the new side to move is the former opponent. Not checked in release builds.
    #[inline]
    pub fn make_move(&self, sq: Square) -> Board {
        let f = flips(self.player, self.opponent, sq.index() as u32);
        debug_assert!(f != 0 && self.empty() & sq.bit() != 0);
        self.make_move_with_flips(sq.bit(), f)
    }

    /// Copy-make with the move as a one-bit mask and its precomputed flips.
    #[inline(always)]
    pub fn make_move_with_flips(&self, bit: u64, flipped: u64) -> Board {
        Board {
            player: self.opponent ^ flipped,
            opponent: self.player ^ flipped ^ bit,
        }
    }

    /// The position after the side to move plays `sq`, or `None` if `sq` is occupied or flips nothing.
    #[inline]
    pub fn try_make_move(&self, sq: Square) -> Option<Board> {
        let f = self.flips(sq);
        (f != 0).then(|| self.make_move_with_flips(sq.bit(), f))
    }

    /// The position after the side to move passes: the sides swap, the discs stay.
    #[inline]
    pub fn pass(&self) -> Board {
        Board {
            player: self.opponent,
            opponent: self.player,
        }
    }

    /// Discs of the side to move.
    #[inline]
    pub fn player_discs(&self) -> u32 {
        self.player.count_ones()
    }

    /// Discs of the side not to move.
    #[inline]
    pub fn opponent_discs(&self) -> u32 {
        self.opponent.count_ones()
    }

    /// Final score for the side to move, in discs: player minus opponent discs, with the
    /// empty squares given to the winner (the world-championship rule; a draw stays 0).
    #[inline]
    pub fn final_score(&self) -> Score {
        let p = self.player_discs() as Score;
        let o = self.opponent_discs() as Score;
        let e = 64 - p - o;
        match p.cmp(&o) {
            std::cmp::Ordering::Greater => p - o + e,
            std::cmp::Ordering::Less => p - o - e,
            std::cmp::Ordering::Equal => 0,
        }
    }

    /// The board under one of the 8 symmetries; the side to move is unchanged.
    #[inline]
    pub fn transform(&self, s: Symmetry) -> Board {
        Board {
            player: s.apply(self.player),
            opponent: s.apply(self.opponent),
        }
    }

    /// A 64-bit hash of the position (a splitmix64-style mixer of both bitboards). Equal
    /// positions hash equal; the transposition table verifies the full position on a hit.
    #[inline]
    pub fn hash(&self) -> u64 {
        #[inline(always)]
        fn mix(mut z: u64) -> u64 {
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        mix(self.player ^ mix(self.opponent.wrapping_add(0x9E37_79B9_7F4A_7C15)))
    }

    /// Iterates the legal moves of the side to move in square order (a1, b1, … h8).
    pub fn legal_moves(&self) -> impl Iterator<Item = Square> {
        BitIter(self.moves()).map(|i| Square::from_index(i as u8))
    }
}

/// Iterates the set bits of a bitboard, lowest first, as indices 0–63.
#[derive(Clone, Copy, Debug)]
pub struct BitIter(pub u64);

impl Iterator for BitIter {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            None
        } else {
            let i = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(i)
        }
    }
}

/// `n` pseudo-random disjoint bitboard pairs (player, opponent) of varied densities from a
/// fixed xorshift sequence, for tests that compare two implementations of a kernel.
#[cfg(test)]
pub(crate) fn random_bitboard_pairs(n: usize) -> Vec<(u64, u64)> {
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    (0..n)
        .map(|_| {
            let a = next() & next();
            (a, next() & !a)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn start_moves_are_d3_c4_f5_e6() {
        let b = Board::start();
        let mut moves: Vec<String> = b.legal_moves().map(|s| s.to_string()).collect();
        moves.sort();
        assert_eq!(moves, vec!["c4", "d3", "e6", "f5"]);
    }

    #[test]
    fn f5_flips_e5() {
        let b = Board::start();
        assert_eq!(b.flips(sq("f5")), sq("e5").bit());
        let a = b.make_move(sq("f5"));
        // Now white to move: white has d4 only, black has d5 e4 e5 f5.
        assert_eq!(a.player, sq("d4").bit());
        assert_eq!(a.opponent.count_ones(), 4);
    }

    #[test]
    fn symmetries_map_squares() {
        let a1 = sq("a1");
        assert_eq!(Symmetry::FlipVertical.apply_square(a1), sq("a8"));
        assert_eq!(Symmetry::FlipHorizontal.apply_square(a1), sq("h1"));
        assert_eq!(Symmetry::FlipDiagonal.apply_square(sq("b1")), sq("a2"));
        assert_eq!(Symmetry::FlipAntiDiagonal.apply_square(a1), sq("h8"));
        assert_eq!(Symmetry::Rotate180.apply_square(a1), sq("h8"));
        // Rotations compose: 90 twice is 180.
        for i in 0..64 {
            let s = Square::from_index(i);
            let r = Symmetry::Rotate90.apply_square(Symmetry::Rotate90.apply_square(s));
            assert_eq!(r, Symmetry::Rotate180.apply_square(s));
            let r3 = Symmetry::Rotate90.apply_square(Symmetry::Rotate180.apply_square(s));
            assert_eq!(r3, Symmetry::Rotate270.apply_square(s));
        }
    }

    #[test]
    fn final_score_gives_empties_to_winner() {
        // 3 player discs, 1 opponent disc, 60 empties: 3 - 1 + 60.
        let b = Board::new(0b111, 1 << 10).unwrap();
        assert_eq!(b.final_score(), 62);
        assert_eq!(b.pass().final_score(), -62);
        let d = Board::new(0b11, 0b1100).unwrap();
        assert_eq!(d.final_score(), 0);
    }
}
