//! Endgame multi-ProbCut (MPC): the confidence levels of the selective pre-searches that run
//! before an exact solve (by default at 18–27 empties, to 34 with a large table), the
//! shallow-search depth per empties and the error model sigma(empties, depth) of a shallow
//! midgame search against the exact final score.
//!
//! ProbCut is Michael Buro's (1995, multi-ProbCut 1997); its use in selective pre-searches
//! before an exact endgame solve follows Edax and Egaroucid (ideas only). At a null-window
//! node (alpha, alpha + 1) with at least [`MPC_MIN_EMPTIES`] empties, a shallow search of
//! [`shallow_depth`] plies predicts the exact score with a normal error of standard deviation
//! [`sigma`]; if it is at least `alpha + 1 + t * sigma` the node fails high, if at most
//! `alpha - t * sigma` it fails low, where `t` is the confidence of the pass ([`level_t`]).
//! Results of a selective pass carry its level in the TT
//! ([`crate::search::tt::TtEntry::selectivity`]); the exact pass (level 0) trusts only level-0
//! bounds, so exactness never depends on MPC: the passes only fill the TT with best moves and
//! give the final aspiration window.
//!
//! Calibration: `cargo test --release --test solver -- --ignored mpc_calibration
//! --nocapture` (see `tests/solver.rs`) solves WTHOR positions (not the FFO or hard-20 test
//! sets) at 12–22 empties and compares each shallow-search depth with the exact score; the
//! constants of [`sigma`] are its least-squares fit (docs/benchmarks.md, "Endgame ProbCut
//! calibration").

use crate::othello::board::Score;

pub use crate::eval::mpc::{MpcTable, mid_shallow_depth};

/// Empties at and above which a null-window node of a selective pass tries a ProbCut.
/// Measured on FFO #45, #46, #48, #49 at 1 thread (nodes: 14 −6 %, 12 −12.5 %, 10 −15 %
/// against no pre-search; 10 costs more CPU time than 12, whose time is about that of no
/// pre-search). Below it a selective pass searches exactly, and those results are stored as
/// proven: the exact pass reuses them.
pub const MPC_MIN_EMPTIES: u32 = 12;

/// Empties at and above which an exact root solve runs the selective pre-searches first (up
/// to [`MPC_ROOT_MAX_EMPTIES`]). From 18 rather than 22 (1 thread, nodes): hard-20 (276
/// positions of 20 empties, 64 MiB) −8.9 %, FFO #20–#39 (64 MiB) −2.8 %, FFO #40–#44
/// (256 MiB) −1.9 %; from 16 changes nothing more (FFO #13–#19, 16 empties, −1 %).
pub const MPC_ROOT_EMPTIES: u32 = 18;

/// Empties above which an exact root solve skips the selective pre-searches. At 22–25
/// empties they saved 11 % of the nodes of FFO #41–#48 (6 of 8 positions fewer); at 26–28
/// the results are mixed (#49 −19 %, #50 +1.7 %, #51 −13 %, #52 −11 %, #53 +19 %: the passes'
/// cost grows faster than the exact pass's saving on some positions), the loss #53's (28
/// empties) alone: at 26–27
/// they pay (then #49–#52 −4.0 %; re-measured with the exact pass skipping the ordering
/// searches at nodes a selective bound expects to fail low, FFO #49–#52 at 1 thread, 256 MiB:
/// 2,157.4 M → 2,057.1 M nodes, −4.6 %, every position fewer; #53 still 2,297 M → 2,799 M),
/// so they run up to 27 empties. With a table of at least [`MPC_LARGE_TT_BUCKETS`] buckets
/// they run up to [`MPC_ROOT_MAX_EMPTIES_LARGE_TT`] ([`root_max_empties`]).
pub const MPC_ROOT_MAX_EMPTIES: u32 = 27;

/// Empties above which an exact root solve skips the selective pre-searches when the
/// transposition table has at least [`MPC_LARGE_TT_BUCKETS`] buckets. At 28–34 empties with
/// `--hash 1024` (1 thread, one position per process, all right) they saved nodes on every
/// FFO position measured: #53 (28 empties) 2,438.9 M → 2,319.9 M (−4.9 %), #54 (28)
/// 6,461.6 M → 3,551.0 M (−45 %), #55 (29) 11,056.3 M → 10,035.9 M (−9.2 %), #56 (29)
/// 1,536.7 M → 845.5 M (−45 %), #57 (30) 1,882.6 M → 1,481.5 M (−21 %), #58 (30) 1,815.1 M →
/// 1,311.9 M (−28 %), #59 (34) 1,275.6 M → 20.9 M (the passes find +64 and the exact pass
/// only confirms it) (31–33 empties rest on #59 alone; docs/experiments.md).
/// With 256 MiB #53 loses (+19 % to +22 %), so smaller tables keep
/// [`MPC_ROOT_MAX_EMPTIES`].
pub const MPC_ROOT_MAX_EMPTIES_LARGE_TT: u32 = 34;

/// Buckets of the smallest transposition table ([`crate::search::tt::TranspositionTable::buckets`])
/// with which the pre-searches run up to [`MPC_ROOT_MAX_EMPTIES_LARGE_TT`] empties: 2^23, the
/// table of `--hash 1024` (768 MiB; `--hash` from 768 MiB gives it).
pub const MPC_LARGE_TT_BUCKETS: usize = 1 << 23;

/// The default top of the empties range of the root pre-searches for a transposition table of
/// `tt_buckets` buckets: [`MPC_ROOT_MAX_EMPTIES_LARGE_TT`] from [`MPC_LARGE_TT_BUCKETS`],
/// else [`MPC_ROOT_MAX_EMPTIES`].
pub fn root_max_empties(tt_buckets: usize) -> u32 {
    if tt_buckets >= MPC_LARGE_TT_BUCKETS {
        MPC_ROOT_MAX_EMPTIES_LARGE_TT
    } else {
        MPC_ROOT_MAX_EMPTIES
    }
}

/// The selective passes of a root solve, least confident first: the selectivity levels
/// ([`crate::search::tt::TtEntry::selectivity`], 1–7) run before the exact pass (level 0); their `t`
/// are 1.1, 1.5, 2.0 and 2.6 ([`level_t`]). Fewer passes (2 only; 4, 2; 3, 1) searched more
/// nodes.
pub const PASSES: [u8; 4] = [4, 3, 2, 1];

/// The confidence `t` (in standard deviations) of selectivity level `level` (1–7); level 0 is
/// exact (no ProbCut) and gives infinity.
pub fn level_t(level: u8) -> f64 {
    match level {
        0 => f64::INFINITY,
        1 => 2.6,
        2 => 2.0,
        3 => 1.5,
        4 => 1.1,
        5 => 0.8,
        6 => 0.6,
        _ => 0.4,
    }
}

/// Plies of the shallow search that predicts the score of a node with `empties` empties: 2
/// below 18 empties, 4 from 18, 6 from 22 ([`sigma`] also covers 0 = the static evaluation,
/// which cut fewer nodes at 10–13 empties).
pub fn shallow_depth(empties: u32) -> i32 {
    match empties {
        0..18 => 2,
        18..22 => 4,
        _ => 6,
    }
}

/// Standard deviation, in discs, of the error of a `depth`-ply midgame search (pattern
/// evaluation at the leaves; 0 = the static evaluation) against the exact final score of a
/// position with `empties` empties: the least-squares fit of the root-mean-square errors
/// measured at 12–22 empties and depths 0–6 (about 8.5 discs for the evaluation, 6.0 at depth
/// 4, 4.7 at depth 6; the error barely depends on the empties), extrapolated above 22.
pub fn sigma(empties: u32, depth: i32) -> f64 {
    let (a, b, c) = (8.251, 0.0127, -0.6326);
    (a + b * empties as f64 + c * depth as f64).max(2.0)
}

/// The ProbCut margin `t * sigma` in whole discs (rounded up), or `None` at level 0.
pub fn margin(level: u8, empties: u32, depth: i32) -> Option<Score> {
    if level == 0 {
        return None;
    }
    Some((level_t(level) * sigma(empties, depth)).ceil() as Score)
}

// ---------------------------------------------------------------------------------------
// Midgame multi-ProbCut.

/// Depth (plies) from which a null-window node of the midgame search tries a ProbCut.
pub const MID_MPC_MIN_DEPTH: i32 = 3;

/// The default confidence `t` (standard deviations) of the midgame ProbCut (`--mpc`).
pub const MID_DEFAULT_T: f64 = 1.5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_max_empties_grows_with_a_large_table() {
        assert_eq!(root_max_empties(1 << 21), 27); // --hash 256
        assert_eq!(root_max_empties((1 << 23) - 1), 27);
        assert_eq!(root_max_empties(1 << 23), 34); // --hash 1024
        assert_eq!(root_max_empties(1 << 24), 34);
        // `--hash 1024` gives 2^23 buckets of 4 slots of 24 bytes (rounded down).
        let want =
            (1024usize << 20) / (crate::search::tt::SLOT_BYTES * crate::search::tt::BUCKET_SLOTS);
        assert_eq!(want.next_power_of_two() / 2, MPC_LARGE_TT_BUCKETS);
    }
}
