//! The hand-written midgame evaluation: mobility, potential mobility, corners, X/C-squares and
//! late disc difference, from the side to move's view, in discs (`flank --eval classic`).

use crate::othello::board::{Board, Score, neighbours};
use crate::othello::movegen::get_moves;

const CORNERS: u64 = 0x8100_0000_0000_0081;
/// X-squares (b2, g2, b7, g7) indexed like [`CORNER_LIST`].
const X_SQUARES: [u64; 4] = [1 << 9, 1 << 14, 1 << 49, 1 << 54];
/// C-squares next to each corner (a1: b1 a2; h1: g1 h2; a8: a7 b8; h8: h7 g8).
const C_SQUARES: [u64; 4] = [
    (1 << 1) | (1 << 8),
    (1 << 6) | (1 << 15),
    (1 << 48) | (1 << 57),
    (1 << 55) | (1 << 62),
];
/// Corner bits a1, h1, a8, h8.
const CORNER_LIST: [u64; 4] = [1, 1 << 7, 1 << 56, 1 << 63];

/// Evaluates `board` for the side to move, in discs (a heuristic disc difference), clamped to
/// −63…63 so that it never ties with a decisive final score of ±64.
///
/// In quarter-disc units before the final division: 8 × mobility difference, 3 × potential
/// mobility difference (empties next to the opponent's discs), 40 × corners, −20 × X-squares
/// and −8 × C-squares next to an empty corner, and with 16 or fewer empties a disc-difference
/// term that grows as the board fills. The terms are the classic ones of Rosenbloom's IAGO.
pub fn evaluate(board: &Board) -> Score {
    let p = board.player;
    let o = board.opponent;
    let empty = board.empty();
    let mob = get_moves(p, o).count_ones() as i32 - get_moves(o, p).count_ones() as i32;
    let pot =
        (neighbours(o) & empty).count_ones() as i32 - (neighbours(p) & empty).count_ones() as i32;
    let corners = (p & CORNERS).count_ones() as i32 - (o & CORNERS).count_ones() as i32;
    let mut xc = 0;
    for i in 0..4 {
        if empty & CORNER_LIST[i] != 0 {
            xc -= 20
                * ((p & X_SQUARES[i]).count_ones() as i32 - (o & X_SQUARES[i]).count_ones() as i32);
            xc -= 8
                * ((p & C_SQUARES[i]).count_ones() as i32 - (o & C_SQUARES[i]).count_ones() as i32);
        }
    }
    let mut v = 8 * mob + 3 * pot + 40 * corners + xc;
    let empties = empty.count_ones() as i32;
    if empties <= 16 {
        let discs = p.count_ones() as i32 - o.count_ones() as i32;
        v += discs * (17 - empties) / 4;
    }
    (v / 4).clamp(-63, 63)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::board::Symmetry;

    #[test]
    fn start_is_balanced_and_symmetric() {
        let b = Board::start();
        assert_eq!(evaluate(&b), 0);
        // Any position evaluates the same under the 8 symmetries.
        let mut x = b;
        for m in ["f5", "d6", "c3", "d3", "c4"] {
            x = x.make_move(m.parse().unwrap());
        }
        let v = evaluate(&x);
        for s in Symmetry::ALL {
            assert_eq!(evaluate(&x.transform(s)), v);
        }
    }

    #[test]
    fn owning_a_corner_is_good() {
        // Player owns a1, opponent a disc in the middle; otherwise empty.
        let b = Board::new(1, 1 << 27).unwrap();
        assert!(evaluate(&b) > 0);
        assert!(evaluate(&b.pass()) < 0);
    }
}
