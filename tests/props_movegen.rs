//! Property tests: bitboard move generation and flips equal a naive square-by-square reference
//! on random reachable positions; symmetries commute with move generation.

use flank::Board;
use flank::othello::board::Symmetry;
use flank::othello::movegen::{flips, get_moves};
use proptest::prelude::*;

const DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// Naive flips: walk each of the 8 directions square by square.
fn naive_flips(p: u64, o: u64, sq: u32) -> u64 {
    if (p | o) & (1 << sq) != 0 {
        return 0;
    }
    let (c0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut all = 0;
    for (dc, dr) in DIRS {
        let (mut c, mut r) = (c0 + dc, r0 + dr);
        let mut line = 0u64;
        while (0..8).contains(&c) && (0..8).contains(&r) {
            let bit = 1u64 << (r * 8 + c);
            if o & bit != 0 {
                line |= bit;
            } else {
                if p & bit != 0 {
                    all |= line;
                }
                break;
            }
            c += dc;
            r += dr;
        }
    }
    all
}

fn naive_moves(p: u64, o: u64) -> u64 {
    (0..64)
        .filter(|&s| naive_flips(p, o, s) != 0)
        .fold(0, |m, s| m | (1 << s))
}

/// A position reached from the start by playing `choices` (each picks among the legal moves;
/// passes are played when forced), stopping at game over.
fn reachable(choices: &[u8]) -> Board {
    let mut b = Board::start();
    for &c in choices {
        if b.is_game_over() {
            break;
        }
        let moves: Vec<_> = b.legal_moves().collect();
        b = if moves.is_empty() {
            b.pass()
        } else {
            b.make_move(moves[c as usize % moves.len()])
        };
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn moves_and_flips_match_naive(choices in proptest::collection::vec(any::<u8>(), 0..64)) {
        let b = reachable(&choices);
        for (p, o) in [(b.player, b.opponent), (b.opponent, b.player)] {
            prop_assert_eq!(get_moves(p, o), naive_moves(p, o));
            for sq in 0..64 {
                if (p | o) & (1 << sq) == 0 {
                    prop_assert_eq!(flips(p, o, sq), naive_flips(p, o, sq), "square {}", sq);
                }
            }
        }
    }

    #[test]
    fn moves_match_naive_on_random_bitboards(a in any::<u64>(), b in any::<u64>()) {
        // Not reachable positions, but move generation must hold for any disjoint pair.
        let (p, o) = (a & !b, b);
        prop_assert_eq!(get_moves(p, o), naive_moves(p, o));
    }

    #[test]
    fn symmetries_commute_with_move_generation(choices in proptest::collection::vec(any::<u8>(), 0..60)) {
        let b = reachable(&choices);
        for s in Symmetry::ALL {
            let t = b.transform(s);
            prop_assert_eq!(t.moves(), s.apply(b.moves()));
            prop_assert_eq!(t.final_score(), b.final_score());
            prop_assert_eq!(t.empties(), b.empties());
        }
    }
}
