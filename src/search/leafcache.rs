//! The leaf cache: a small per-thread cache of the solver's proven bounds at the empties
//! below the shared transposition table's reach (6 to
//! [`TT_MIN_EMPTIES`](crate::search::endgame::TT_MIN_EMPTIES) − 1), sized to stay in the
//! core's own L2 cache.
//!
//! Direct-mapped, keyed by the whole position (so a hit is never a collision) and by the
//! epoch of the table the search uses ([`TranspositionTable::epoch`]), always replacing. The
//! epoch makes the caches part of the table's contents: a new or cleared table sees none of
//! the bounds cached before (so one-thread node counts stay deterministic), without touching
//! the other threads' caches.
//!
//! [`TranspositionTable::epoch`]: crate::search::tt::TranspositionTable::epoch

use std::cell::UnsafeCell;

use crate::othello::board::Score;
use crate::search::tt::Bound;

/// Entries of each thread's cache (direct-mapped; 24 bytes each: 192 KiB). 16 Ki and 32 Ki
/// entries take within 0.4 % of the nodes of 8 Ki on FFO #45, #48, #49, #51, #52.
pub const LEAF_CACHE_ENTRIES: usize = 1 << 13;

/// One cached position (`player`, `opponent` bitboards) of a table's `epoch` and the bounds
/// proven for it: its exact score lies in `lower..=upper` (disc difference, ±64).
#[derive(Clone, Copy)]
#[repr(C)]
struct Entry {
    player: u64,
    opponent: u64,
    epoch: u32,
    lower: i8,
    upper: i8,
}

const EMPTY_ENTRY: Entry = Entry {
    player: 0,
    opponent: 0,
    epoch: 0,
    lower: -64,
    upper: 64,
};

const _: () = assert!(std::mem::size_of::<Entry>() == 24);

thread_local! {
    static CACHE: UnsafeCell<[Entry; LEAF_CACHE_ENTRIES]> =
        const { UnsafeCell::new([EMPTY_ENTRY; LEAF_CACHE_ENTRIES]) };
}

/// The entry of `(p, o)`: the top bits of a multiplicative (Fibonacci) hash of both bitboards.
#[inline]
fn index(p: u64, o: u64) -> usize {
    let h = p.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ o.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (h >> (64 - LEAF_CACHE_ENTRIES.trailing_zeros())) as usize
}

/// The bounds `(lower, upper)` proven for `(p, o)` on this thread under the table epoch
/// `epoch`, if cached.
#[inline]
pub fn probe(p: u64, o: u64, epoch: u32) -> Option<(Score, Score)> {
    let i = index(p, o);
    CACHE.with(|c| {
        // SAFETY: the cache is this thread's own and no reference to it outlives this call.
        let e = unsafe { &(*c.get())[i] };
        (e.player == p && e.opponent == o && e.epoch == epoch)
            .then_some((e.lower as Score, e.upper as Score))
    })
}

/// Records that the exact score of `(p, o)` is bounded by `score` (disc difference, ±64) as
/// `bound` says, under the table epoch `epoch` (merged with the bounds already cached for the
/// same position and epoch, else replacing the entry).
#[inline]
pub fn store(p: u64, o: u64, epoch: u32, score: Score, bound: Bound) {
    let (lower, upper) = match bound {
        Bound::Lower => (score, 64),
        Bound::Upper => (-64, score),
        Bound::Exact => (score, score),
    };
    let i = index(p, o);
    CACHE.with(|c| {
        // SAFETY: as in `probe`.
        let e = unsafe { &mut (*c.get())[i] };
        if e.player == p && e.opponent == o && e.epoch == epoch {
            e.lower = e.lower.max(lower as i8);
            e.upper = e.upper.min(upper as i8);
        } else {
            *e = Entry {
                player: p,
                opponent: o,
                epoch,
                lower: lower as i8,
                upper: upper as i8,
            };
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_merge_for_one_position_and_a_colliding_one_replaces_them() {
        // Positions with 7 empties at 0–6 (distinct keys for this test's thread).
        let p = 0x00FF_00FF_00FF_0F80u64;
        let o = !p & !0x7Fu64;
        assert_eq!(probe(p, o, 1), None);
        store(p, o, 1, 10, Bound::Upper);
        assert_eq!(probe(p, o, 1), Some((-64, 10)));
        store(p, o, 1, 4, Bound::Lower);
        assert_eq!(probe(p, o, 1), Some((4, 10)));
        store(p, o, 1, 6, Bound::Upper);
        assert_eq!(probe(p, o, 1), Some((4, 6)));
        // The same squares with the colours swapped: another position, another entry.
        assert_eq!(probe(o, p, 1), None);
        // Another table's epoch sees nothing, and its store replaces the entry.
        assert_eq!(probe(p, o, 2), None);
        store(p, o, 2, 0, Bound::Upper);
        assert_eq!(probe(p, o, 2), Some((-64, 0)));
        assert_eq!(probe(p, o, 1), None);
        store(p, o, 1, 4, Bound::Lower);
        store(p, o, 1, 6, Bound::Upper);
        // A position sharing the entry replaces it.
        let mut q = p;
        loop {
            q = q.wrapping_add(0x100) & !0x7F;
            if index(q, !q & !0x7F) == index(p, o) && q != p {
                break;
            }
        }
        store(q, !q & !0x7F, 1, -2, Bound::Exact);
        assert_eq!(probe(q, !q & !0x7F, 1), Some((-2, -2)));
        assert_eq!(probe(p, o, 1), None);
    }
}
