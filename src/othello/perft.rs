//! Perft: leaf counts of the game tree, under the two pass conventions, with bulk counting.
//!
//! Conventions (see `shared/docs/perft.md`):
//! - [`PassRule::Ply`] (convention A, Aart Bik's 2009 counts and Egaroucid's default): a pass
//!   counts as a ply; a finished game is one leaf wherever it ends.
//! - [`PassRule::Free`] (convention B): a pass uses no depth; a finished game is one leaf.
//!
//! Bulk counting: at depth 1 the leaf count is the number of legal moves, so the last ply is
//! never made. The first plies are split over rayon's thread pool.

use rayon::prelude::*;

use crate::othello::board::{BitIter, Board};
use crate::othello::movegen::flips;

/// How a pass is counted by [`perft`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PassRule {
    /// A pass counts as a ply (convention A).
    Ply,
    /// A pass uses no depth (convention B).
    Free,
}

impl std::str::FromStr for PassRule {
    type Err = String;
    /// Parses `ply` or `free` (also `A`/`B`), any case.
    fn from_str(s: &str) -> Result<PassRule, String> {
        match s.to_ascii_lowercase().as_str() {
            "ply" | "a" => Ok(PassRule::Ply),
            "free" | "b" => Ok(PassRule::Free),
            _ => Err(format!("unknown pass rule '{s}' (expected ply or free)")),
        }
    }
}

/// Number of leaves of the game tree of `board` at `depth` plies under `rule`.
///
/// Depth 0 is one leaf. Plies below depth 8 from the root are searched in parallel.
pub fn perft(board: &Board, depth: u32, rule: PassRule) -> u64 {
    perft_par(board, depth, rule, 3)
}

fn perft_par(board: &Board, depth: u32, rule: PassRule, split: u32) -> u64 {
    if split == 0 || depth < 6 {
        return perft_seq(board, depth, rule);
    }
    let moves = board.moves();
    if moves == 0 {
        return pass_or_leaf(board, depth, rule, |b, d| perft_par(b, d, rule, split));
    }
    let children: Vec<Board> = BitIter(moves)
        .map(|sq| {
            let f = flips(board.player, board.opponent, sq);
            board.make_move_with_flips(1 << sq, f)
        })
        .collect();
    children
        .par_iter()
        .map(|c| perft_par(c, depth - 1, rule, split - 1))
        .sum()
}

/// The count when the side to move has no legal move: one leaf at game over, otherwise the
/// count after the pass (one ply used under [`PassRule::Ply`], none under [`PassRule::Free`]).
#[inline]
fn pass_or_leaf(board: &Board, depth: u32, rule: PassRule, f: impl Fn(&Board, u32) -> u64) -> u64 {
    if board.opponent_moves() == 0 {
        return 1;
    }
    match rule {
        PassRule::Ply => f(&board.pass(), depth - 1),
        PassRule::Free => f(&board.pass(), depth),
    }
}

fn perft_seq(board: &Board, depth: u32, rule: PassRule) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.moves();
    if moves == 0 {
        return pass_or_leaf(board, depth, rule, |b, d| perft_seq(b, d, rule));
    }
    if depth == 1 {
        return u64::from(moves.count_ones());
    }
    let mut total = 0;
    for sq in BitIter(moves) {
        let f = flips(board.player, board.opponent, sq);
        total += perft_seq(&board.make_move_with_flips(1 << sq, f), depth - 1, rule);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_counts_agree_under_both_rules() {
        let b = Board::start();
        let expect = [1u64, 4, 12, 56, 244, 1396, 8200, 55092];
        for (d, &n) in expect.iter().enumerate() {
            assert_eq!(perft(&b, d as u32, PassRule::Ply), n, "ply rule depth {d}");
            assert_eq!(
                perft(&b, d as u32, PassRule::Free),
                n,
                "free rule depth {d}"
            );
        }
    }
}
