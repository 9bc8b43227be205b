//! Perft counts from the start position against the published references (`shared/docs/perft.md`).

use flank::Board;
use flank::othello::perft::{PassRule, perft};

/// Convention A: a pass counts as a ply; a finished game is one leaf (A. Bik, 2009).
const PLY: [u64; 13] = [
    1,
    4,
    12,
    56,
    244,
    1_396,
    8_200,
    55_092,
    390_216,
    3_005_288,
    24_571_284,
    212_258_800,
    1_939_886_636,
];

/// Convention B: a pass uses no depth; a finished game is one leaf.
const FREE: [u64; 12] = [
    1,
    4,
    12,
    56,
    244,
    1_396,
    8_200,
    55_092,
    390_216,
    3_005_320,
    24_571_420,
    212_260_880,
];

/// Checks depths 1–11 of the start position under `rule` against `expected`.
fn check_depths_1_to_11(rule: PassRule, expected: &[u64]) {
    for d in 1..=11 {
        let n = perft(&Board::start(), d, rule);
        assert_eq!(n, expected[d as usize], "{rule:?} rule, depth {d}");
    }
}

#[test]
fn perft_ply_rule_depths_1_to_11() {
    check_depths_1_to_11(PassRule::Ply, &PLY);
}

#[test]
fn perft_free_rule_depths_1_to_11() {
    check_depths_1_to_11(PassRule::Free, &FREE);
}

#[test]
fn perft_ply_rule_depth_12() {
    assert_eq!(perft(&Board::start(), 12, PassRule::Ply), PLY[12]);
}
