//! The lock-free transposition table (TT) shared by search threads.
//!
//! Each slot is three `AtomicU64` words: `player ^ data`, `opponent ^ data` and `data` (the
//! lockless XOR scheme of Hyatt and Mann, here with the full position instead of a hash key).
//! A probe recomputes `player` and `opponent` from the stored words and accepts the slot only
//! if both equal the probed position, so a hit is never a different position, and a slot torn
//! by two threads writing at once is rejected rather than misread. Correctness therefore never
//! depends on the table size: a table of one bucket only loses speed.
//!
//! Each entry keeps a lower and an upper bound on the score (as Edax's hash does): a result
//! stored for a position that already has an entry at the same depth (solved with solved, or
//! the same midgame depth) narrows the stored interval instead of replacing it, so the
//! searches of one position at different null windows (aspiration and PVS re-searches) all
//! leave their bound. The entry's move is the one that proves its lower bound (a fail-high's
//! cutting move, an exact result's PV move); a fail-low names only the best of upper bounds,
//! so its move is kept as a hint only while the entry has no lower bound.
//!
//! Slots are grouped in buckets of [`BUCKET_SLOTS`]; a position may live in any slot of the
//! bucket chosen by [`Board::hash`]. Replacement is depth-preferred with ageing: a slot from an
//! older search generation (see [`TranspositionTable::new_search`]) is replaced first, then
//! the shallowest.
//!
//! A table of at least [`NEAR_MIN_TABLE_BYTES`] keeps positions with at most
//! [`NEAR_MAX_EMPTIES`] empties apart, in a near region of [`NEAR_BUCKETS`] buckets that stays
//! in the CPU's cache: the solver probes such positions far more often than any other, and in a large
//! table nearly every one of those probes waits for memory.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use crate::othello::board::{Board, Score};

/// Slots per bucket.
pub const BUCKET_SLOTS: usize = 4;

/// Bytes of one slot (three `u64` words).
pub const SLOT_BYTES: usize = 24;

/// Positions with at most this many empties live in the table's near region (the solver's
/// entries at 9–10 empties, [`crate::search::endgame::TT_MIN_EMPTIES`] and up). 10 and 11
/// saved the same time, 9 less, when the TT started at 8 empties; each further empty costs
/// more nodes, since the region keeps an entry only briefly (FFO #50, #57 at 2 threads:
/// +1.6 % at 9, +6 % at 10, +13 % at 11; docs/benchmarks.md, "The near region").
pub const NEAR_MAX_EMPTIES: u32 = 10;

/// Buckets of the near region: 32,768 (3 MiB), small enough to stay in a core's L2 or the L3
/// cache. With a 1 GiB table it takes 10–20 % off the solver's time at 24–30 empties for a
/// few percent more nodes; 32 MiB, no longer cache-resident, gains little.
pub const NEAR_BUCKETS: usize = 1 << 15;

/// Tables of at least this many bytes (32 MiB) have a near region besides the main one;
/// smaller ones keep every position in one region.
pub const NEAR_MIN_TABLE_BYTES: usize = 32 << 20;

/// What a stored score says about the true value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The true value is at least `score` (a fail-high, beta cutoff).
    Lower,
    /// The true value is at most `score` (a fail-low).
    Upper,
    /// The score is the true value (at the stored depth, or exactly if solved).
    Exact,
}

impl Bound {
    /// The bound a fail-soft search result `best` gives for the window (`alpha`, `beta`):
    /// lower at or above `beta`, upper at or below `alpha`, exact in between.
    #[inline]
    pub fn from_window(best: Score, alpha: Score, beta: Score) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// One decoded TT entry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TtEntry {
    /// Score in discs from the side to move's view (midgame estimate or exact endgame bound).
    pub score: Score,
    /// How `score` bounds the value.
    pub bound: Bound,
    /// Depth in plies the score was searched to (for a solved entry: the empties).
    pub depth: u32,
    /// Best or refutation move, a square index 0–63, if one was found.
    pub best: Option<u8>,
    /// True if the score comes from the exact endgame solver (exact or WLD window): a bound on
    /// the final disc difference, valid at any depth. False for a midgame (evaluation) score.
    pub solved: bool,
    /// Lower bound on the value (−[`NO_BOUND`] if none); `score` is this bound unless `bound` is
    /// [`Bound::Upper`].
    pub lower: Score,
    /// Upper bound on the value (+[`NO_BOUND`] if none); equal to `lower` for [`Bound::Exact`].
    pub upper: Score,
    /// Selectivity of a solved entry: 0 if the bounds are proven (exact solver), else the
    /// level (1–7, higher = less confident) of the endgame multi-ProbCut (MPC) pre-search that
    /// stored them (see [`crate::search::probcut`]): such bounds are only as sure as that MPC level's
    /// confidence. Always 0 for a midgame entry.
    pub selectivity: u8,
}

struct Slot {
    k1: AtomicU64,
    k2: AtomicU64,
    data: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Slot>() == SLOT_BYTES);

const NO_MOVE: u64 = 64;

/// No bound: the sentinels of [`TtEntry::lower`] and [`TtEntry::upper`]. Stored scores are
/// 16-bit, solved and midgame entries alike in discs (±64; the search's sentinels reach
/// ±[`crate::othello::board::SCORE_INF`]).
pub const NO_BOUND: Score = i16::MAX as Score;

/// The (lower, upper) interval a fail-soft `score` with `bound` gives.
fn interval(score: Score, bound: Bound) -> (Score, Score) {
    let s = score.clamp(-NO_BOUND + 1, NO_BOUND - 1);
    match bound {
        Bound::Lower => (s, NO_BOUND),
        Bound::Upper => (-NO_BOUND, s),
        Bound::Exact => (s, s),
    }
}

// The data word, from bit 0: bound code (2 bits), solved (1), depth (7), best move (7, 64 =
// none), generation (8), lower bound (i16), upper bound (i16), selectivity (3); bits 60-63 are
// zero.
const BOUND_SHIFT: u32 = 0;
const SOLVED_SHIFT: u32 = 2;
const DEPTH_SHIFT: u32 = 3;
const MOVE_SHIFT: u32 = 10;
const GEN_SHIFT: u32 = 17;
const LOWER_SHIFT: u32 = 25;
const UPPER_SHIFT: u32 = 41;
const SEL_SHIFT: u32 = 57;

/// The largest [`TtEntry::selectivity`] (3 bits).
pub const MAX_SELECTIVITY: u8 = 7;

fn pack(
    lower: Score,
    upper: Score,
    depth: u32,
    best: Option<u8>,
    solved: bool,
    generation: u8,
    selectivity: u8,
) -> u64 {
    // The bound code is never 0 (0 marks an empty slot): 3 exact, 2 upper only, else 1.
    let b = if lower == upper {
        3u64
    } else if lower == -NO_BOUND {
        2
    } else {
        1
    };
    let lo = (lower.clamp(-NO_BOUND, NO_BOUND) as i16 as u16) as u64;
    let hi = (upper.clamp(-NO_BOUND, NO_BOUND) as i16 as u16) as u64;
    let mv = best.map_or(NO_MOVE, |m| m as u64);
    (b << BOUND_SHIFT)
        | ((solved as u64) << SOLVED_SHIFT)
        | ((depth.min(127) as u64) << DEPTH_SHIFT)
        | (mv << MOVE_SHIFT)
        | ((generation as u64) << GEN_SHIFT)
        | (lo << LOWER_SHIFT)
        | (hi << UPPER_SHIFT)
        | (((selectivity & MAX_SELECTIVITY) as u64) << SEL_SHIFT)
}

fn unpack(d: u64) -> Option<TtEntry> {
    let bound = match (d >> BOUND_SHIFT) & 3 {
        1 => Bound::Lower,
        2 => Bound::Upper,
        3 => Bound::Exact,
        _ => return None,
    };
    let mv = (d >> MOVE_SHIFT) & 127;
    let lower = data_lower(d);
    let upper = data_upper(d);
    Some(TtEntry {
        score: if bound == Bound::Upper { upper } else { lower },
        bound,
        depth: ((d >> DEPTH_SHIFT) & 127) as u32,
        best: (mv < 64).then_some(mv as u8),
        solved: (d >> SOLVED_SHIFT) & 1 == 1,
        lower,
        upper,
        selectivity: data_sel(d),
    })
}

fn data_lower(d: u64) -> Score {
    ((d >> LOWER_SHIFT) as u16) as i16 as Score
}

fn data_upper(d: u64) -> Score {
    ((d >> UPPER_SHIFT) as u16) as i16 as Score
}

fn data_sel(d: u64) -> u8 {
    ((d >> SEL_SHIFT) & MAX_SELECTIVITY as u64) as u8
}

fn data_gen(d: u64) -> u8 {
    (d >> GEN_SHIFT) as u8
}

/// The memory for a transposition table could not be allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtAllocError {
    /// Bytes asked for.
    pub bytes: usize,
}

impl TtAllocError {
    fn layout(&self) -> std::alloc::Layout {
        std::alloc::Layout::from_size_align(self.bytes, 8)
            .unwrap_or(std::alloc::Layout::new::<u64>())
    }
}

impl std::fmt::Display for TtAllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot allocate {} MiB for the transposition table",
            self.bytes >> 20
        )
    }
}

impl std::error::Error for TtAllocError {}

/// Asks Linux to back the table's memory (`len` bytes from address `start`, not yet
/// touched) with 2 MiB transparent huge pages (`madvise(MADV_HUGEPAGE)`, for systems whose
/// THP mode is `madvise`): every probe of a large table lands on a random page, and with 4 KiB
/// pages nearly each one also misses the TLB. A hint: if the kernel declines, nothing changes
/// but speed. Only the 2 MiB-aligned part of the range is advised; elsewhere a no-op.
fn advise_huge_pages(start: usize, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let lo = start.next_multiple_of(HUGE);
        let hi = (start + len) / HUGE * HUGE;
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the allocation the caller just reserved (and owns);
            // MADV_HUGEPAGE changes only how the kernel backs those pages, not their contents
            // or validity.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

/// `n` (at least 1) empty slots from the allocator's zeroed memory. For a large table that is
/// fresh memory from the kernel, already zero: the allocation takes no time whatever the size,
/// and each page costs only when the search first touches it (so `flank` starts at once with a
/// table of gigabytes). `None` if the memory cannot be had.
fn zeroed_slots(n: usize) -> Option<Vec<Slot>> {
    let layout = std::alloc::Layout::array::<Slot>(n).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout has a non-zero size (checked above). All-zero bytes are a valid `Slot`
    // (three `AtomicU64` holding 0, which is the empty slot). The pointer comes from the global
    // allocator with the layout of `n` slots, so `Vec::from_raw_parts` with length and
    // capacity `n` owns it and frees it with the same layout.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<Slot>();
        if ptr.is_null() {
            return None;
        }
        advise_huge_pages(ptr as usize, layout.size());
        Some(Vec::from_raw_parts(ptr, n, n))
    }
}

/// The transposition table: a fixed array of buckets of [`BUCKET_SLOTS`] lock-free slots, the
/// near region's buckets (if any) first, then the main region's.
///
/// Shared between threads as `Arc<TranspositionTable>`; every method takes `&self`.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    /// Buckets of the main region − 1 (a power of two − 1).
    bucket_mask: usize,
    /// Buckets of the near region − 1 (meaningless when `near_slots` is 0).
    near_mask: usize,
    /// Slots of the near region: 0 (no near region) or a power of two × [`BUCKET_SLOTS`].
    near_slots: usize,
    generation: AtomicU8,
    /// This table's contents' identity for the threads' leaf caches
    /// ([`crate::search::leafcache`]): unique to the table and renewed by every
    /// [`TranspositionTable::clear`], so that no search sees bounds cached before it.
    epoch: AtomicU32,
}

/// The next [`TranspositionTable::epoch`].
static NEXT_EPOCH: AtomicU32 = AtomicU32::new(1);

/// A new epoch, never 0 (an empty leaf cache entry's, even once the counter wraps).
fn fresh_epoch() -> u32 {
    loop {
        let e = NEXT_EPOCH.fetch_add(1, Ordering::Relaxed);
        if e != 0 {
            return e;
        }
    }
}

impl TranspositionTable {
    /// A table of about `mib` MiB (rounded down to a power-of-two number of buckets; at least
    /// one bucket, so `0` gives the smallest table).
    pub fn new(mib: usize) -> TranspositionTable {
        TranspositionTable::with_bytes(mib.saturating_mul(1 << 20))
    }

    /// A table whose main region is the largest power-of-two number of buckets of
    /// [`BUCKET_SLOTS`] slots of [`SLOT_BYTES`] bytes within `bytes` (at least one bucket), with
    /// a near region of 3 MiB besides it from [`NEAR_MIN_TABLE_BYTES`] on. The whole stays
    /// within `bytes` where the main region leaves 3 MiB of it free (sizes of 2^k MiB: 64
    /// MiB gives 48 + 3 MiB) and exceeds it by up to 3 MiB elsewhere (48 MiB gives 51 MiB).
    /// Small sizes are for tests of replacement and collisions.
    /// Aborts if the memory cannot be had; [`TranspositionTable::try_with_bytes`] reports it.
    pub fn with_bytes(bytes: usize) -> TranspositionTable {
        TranspositionTable::try_with_bytes(bytes)
            .unwrap_or_else(|e| std::alloc::handle_alloc_error(e.layout()))
    }

    /// As [`TranspositionTable::with_bytes`], but an allocation failure is an error.
    pub fn try_with_bytes(bytes: usize) -> Result<TranspositionTable, TtAllocError> {
        let bucket_bytes = SLOT_BYTES * BUCKET_SLOTS;
        let floor_pow2 = |n: usize| 1usize << n.max(1).ilog2();
        let near_buckets = if bytes >= NEAR_MIN_TABLE_BYTES {
            NEAR_BUCKETS
        } else {
            0
        };
        let near_slots = near_buckets * BUCKET_SLOTS;
        let buckets = floor_pow2(bytes / bucket_bytes);
        let n = near_slots + buckets * BUCKET_SLOTS;
        let slots = zeroed_slots(n).ok_or(TtAllocError {
            bytes: n * SLOT_BYTES,
        })?;
        Ok(TranspositionTable {
            slots,
            bucket_mask: buckets - 1,
            near_mask: near_buckets.saturating_sub(1),
            near_slots,
            generation: AtomicU8::new(0),
            epoch: AtomicU32::new(fresh_epoch()),
        })
    }

    /// Number of buckets of the main region (a power of two).
    pub fn buckets(&self) -> usize {
        self.bucket_mask + 1
    }

    /// Size of the table in bytes, near region included ([`TranspositionTable::buckets`] ×
    /// [`BUCKET_SLOTS`] × [`SLOT_BYTES`], plus the near region's 3 MiB in a table of at least
    /// [`NEAR_MIN_TABLE_BYTES`]).
    pub fn bytes(&self) -> usize {
        self.slots.len() * SLOT_BYTES
    }

    /// Empties every slot. Not meant to run while a search uses the table (it is safe, but the
    /// search then loses its entries).
    pub fn clear(&self) {
        for s in &self.slots {
            s.data.store(0, Ordering::Relaxed);
            s.k1.store(0, Ordering::Relaxed);
            s.k2.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
        self.epoch.store(fresh_epoch(), Ordering::Relaxed);
    }

    /// The identity of this table's contents (since its creation or last
    /// [`TranspositionTable::clear`]) that keys the threads' leaf caches
    /// ([`crate::search::leafcache`]) as well: a searcher takes it when it is made.
    pub fn epoch(&self) -> u32 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// Starts a new search generation: entries of earlier searches become the first to be
    /// replaced (they stay usable until then).
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, b: &Board) -> usize {
        if self.near_slots != 0 && b.empties() <= NEAR_MAX_EMPTIES {
            (b.hash() as usize & self.near_mask) * BUCKET_SLOTS
        } else {
            self.near_slots + (b.hash() as usize & self.bucket_mask) * BUCKET_SLOTS
        }
    }

    /// The index of the first slot of the bucket of `b`, for [`TranspositionTable::probe_at`],
    /// [`TranspositionTable::store_at`] and [`TranspositionTable::prefetch_at`]: a search that
    /// probes and stores one position hashes it once.
    #[inline]
    pub fn bucket_start(&self, b: &Board) -> usize {
        self.bucket(b)
    }

    /// Starts loading the bucket starting at slot `start` (from
    /// [`TranspositionTable::bucket_start`]) into the cache, so that a probe or store there a
    /// little later does not wait for memory. A hint only: no effect on any result.
    #[inline(always)]
    pub fn prefetch_at(&self, start: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let start = self.slots.as_ptr().wrapping_add(start) as *const i8;
            // A bucket is 96 bytes: its first and last bytes cover the two cache lines it
            // spans. SAFETY: a prefetch never faults and reads nothing into the program.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(start);
                _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(SLOT_BYTES * BUCKET_SLOTS - 1));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = start;
    }

    /// The entry stored for exactly this position, if any.
    #[inline]
    pub fn probe(&self, b: &Board) -> Option<TtEntry> {
        self.probe_at(self.bucket(b), b)
    }

    /// [`TranspositionTable::probe`] given `start`, the [`TranspositionTable::bucket_start`]
    /// of `b` (another value only misses; one past the table panics).
    #[inline]
    pub fn probe_at(&self, start: usize, b: &Board) -> Option<TtEntry> {
        for s in &self.slots[start..start + BUCKET_SLOTS] {
            let d = s.data.load(Ordering::Relaxed);
            if d != 0
                && s.k1.load(Ordering::Relaxed) ^ d == b.player
                && s.k2.load(Ordering::Relaxed) ^ d == b.opponent
            {
                return unpack(d);
            }
        }
        None
    }

    /// Stores a result for `b`. `depth` is in plies (the empties for a solved entry), `best` a
    /// square index 0–63, `solved` as in [`TtEntry::solved`]. An existing entry for the same
    /// position is overwritten unless it is solved and the new one is not; otherwise the slot
    /// of an older generation, then the shallowest slot, is replaced.
    #[inline]
    pub fn store(
        &self,
        b: &Board,
        score: Score,
        bound: Bound,
        depth: u32,
        best: Option<u8>,
        solved: bool,
    ) {
        self.store_at(self.bucket(b), b, score, bound, depth, best, solved);
    }

    /// [`TranspositionTable::store`] given `start`, the [`TranspositionTable::bucket_start`]
    /// of `b` (another value stores where probes of `b` do not look).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn store_at(
        &self,
        start: usize,
        b: &Board,
        score: Score,
        bound: Bound,
        depth: u32,
        best: Option<u8>,
        solved: bool,
    ) {
        self.store_sel_at(start, b, score, bound, depth, best, solved, 0);
    }

    /// [`TranspositionTable::store_at`] of a result with [`TtEntry::selectivity`]
    /// `selectivity` (0–[`MAX_SELECTIVITY`]; 0 = proven). For an existing entry of the same
    /// position: a less selective (more certain) one is kept (the new result is dropped), a
    /// more selective one is replaced, and one of equal selectivity, kind and depth narrows
    /// its interval as in [`TranspositionTable::store_at`].
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn store_sel_at(
        &self,
        start: usize,
        b: &Board,
        score: Score,
        bound: Bound,
        depth: u32,
        best: Option<u8>,
        solved: bool,
        selectivity: u8,
    ) {
        let selectivity = selectivity.min(MAX_SELECTIVITY);
        let generation = self.generation.load(Ordering::Relaxed);
        let (lower, upper) = interval(score, bound);
        let data = pack(lower, upper, depth, best, solved, generation, selectivity);
        let bucket = &self.slots[start..start + BUCKET_SLOTS];
        let mut victim = 0;
        let mut victim_prio = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let d = s.data.load(Ordering::Relaxed);
            if d == 0 {
                if victim_prio > -1 {
                    victim = i;
                    victim_prio = -1;
                }
                continue;
            }
            if s.k1.load(Ordering::Relaxed) ^ d == b.player
                && s.k2.load(Ordering::Relaxed) ^ d == b.opponent
            {
                let old_solved = (d >> SOLVED_SHIFT) & 1 == 1;
                let old_sel = data_sel(d);
                if old_solved && (!solved || old_sel < selectivity) {
                    return;
                }
                // Same kind, selectivity and depth: keep the narrower interval of the old and
                // new bounds. The entry's move is the one that proves its lower bound, so it
                // stays the old move when the old lower bound is the one kept (a fail-low's
                // move, the best of upper bounds only, must not join a fail-high's lower bound
                // to make an "exact" entry with a move that does not reach it).
                let old_depth = ((d >> DEPTH_SHIFT) & 127) as u32;
                let (data, keep_old_move) = if old_solved == solved
                    && old_sel == selectivity
                    && old_depth == depth.min(127)
                {
                    let old_lower = data_lower(d);
                    let lo = lower.max(old_lower);
                    let hi = upper.min(data_upper(d));
                    if lo <= hi {
                        (
                            pack(lo, hi, depth, best, solved, generation, selectivity),
                            old_lower > lower || best.is_none(),
                        )
                    } else {
                        (data, best.is_none())
                    }
                } else {
                    // A replaced entry keeps its move only as a hint for a result without one.
                    (data, best.is_none())
                };
                let data = if keep_old_move {
                    (data & !(127 << MOVE_SHIFT)) | (d & (127 << MOVE_SHIFT))
                } else {
                    data
                };
                Self::write(s, b, data);
                return;
            }
            let age_bonus = if data_gen(d) == generation { 256 } else { 0 };
            let prio = age_bonus
                + ((d >> DEPTH_SHIFT) & 127) as i32
                + 128 * ((d >> SOLVED_SHIFT) & 1) as i32;
            if prio < victim_prio {
                victim = i;
                victim_prio = prio;
            }
        }
        Self::write(&bucket[victim], b, data);
    }

    #[inline]
    fn write(s: &Slot, b: &Board, data: u64) {
        s.k1.store(b.player ^ data, Ordering::Relaxed);
        s.k2.store(b.opponent ^ data, Ordering::Relaxed);
        s.data.store(data, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_probe_round_trip_and_verification() {
        let tt = TranspositionTable::with_bytes(1024);
        let b = Board::start();
        assert_eq!(tt.probe(&b), None);
        tt.store(&b, -12, Bound::Lower, 9, Some(37), true);
        let e = tt.probe(&b).unwrap();
        assert_eq!(
            e,
            TtEntry {
                score: -12,
                bound: Bound::Lower,
                depth: 9,
                best: Some(37),
                solved: true,
                lower: -12,
                upper: NO_BOUND,
                selectivity: 0,
            }
        );
        // The same discs with the sides swapped are a different position.
        assert_eq!(tt.probe(&b.pass()), None);
        // A second solved bound narrows the interval: -12 <= value <= 3.
        tt.store(&b, 3, Bound::Upper, 9, Some(37), true);
        let e = tt.probe(&b).unwrap();
        assert_eq!(
            (e.lower, e.upper, e.bound, e.score),
            (-12, 3, Bound::Lower, -12)
        );
        // Meeting bounds make it exact.
        tt.store(&b, -12, Bound::Upper, 9, None, true);
        let e = tt.probe(&b).unwrap();
        assert_eq!((e.bound, e.score, e.best), (Bound::Exact, -12, Some(37)));
        // A heuristic result never overwrites a solved one.
        tt.store(&b, 5, Bound::Exact, 20, None, false);
        assert_eq!(tt.probe(&b).unwrap().score, -12);
        tt.clear();
        assert_eq!(tt.probe(&b), None);
    }

    #[test]
    fn selective_entries_yield_to_proven_ones() {
        let tt = TranspositionTable::with_bytes(1024);
        let b = Board::start();
        let at = tt.bucket_start(&b);
        // A selective (MPC level 3) bound is stored with its level.
        tt.store_sel_at(at, &b, 4, Bound::Lower, 20, Some(19), true, 3);
        let e = tt.probe(&b).unwrap();
        assert_eq!((e.lower, e.selectivity, e.best), (4, 3, Some(19)));
        // A bound of the same level narrows it.
        tt.store_sel_at(at, &b, 8, Bound::Upper, 20, Some(19), true, 3);
        let e = tt.probe(&b).unwrap();
        assert_eq!((e.lower, e.upper, e.selectivity), (4, 8, 3));
        // A more confident level replaces it (no narrowing across levels).
        tt.store_sel_at(at, &b, 2, Bound::Upper, 20, Some(26), true, 1);
        let e = tt.probe(&b).unwrap();
        assert_eq!((e.lower, e.upper, e.selectivity), (-NO_BOUND, 2, 1));
        // A proven bound replaces that; a selective one never replaces a proven one.
        tt.store(&b, 0, Bound::Exact, 20, Some(37), true);
        tt.store_sel_at(at, &b, 6, Bound::Lower, 20, Some(19), true, 2);
        let e = tt.probe(&b).unwrap();
        assert_eq!(
            (e.score, e.bound, e.selectivity, e.best),
            (0, Bound::Exact, 0, Some(37))
        );
        // The level saturates at MAX_SELECTIVITY and does not spill into other fields.
        let c = b.pass();
        tt.store_sel_at(
            tt.bucket_start(&c),
            &c,
            -64,
            Bound::Upper,
            60,
            None,
            true,
            200,
        );
        let e = tt.probe(&c).unwrap();
        assert_eq!(
            (e.upper, e.lower, e.depth, e.selectivity),
            (-64, -NO_BOUND, 60, MAX_SELECTIVITY)
        );
    }

    #[test]
    fn the_move_stays_with_the_lower_bound() {
        let tt = TranspositionTable::with_bytes(1024);
        let b = Board::start();
        // A fail-high proves value >= -2 with move 55; a later fail-low at the same depth
        // proves value <= -2 and names move 9, the best of its upper bounds. The merged entry
        // is exact, and its move must be the one that reaches -2.
        tt.store(&b, -2, Bound::Lower, 16, Some(55), true);
        tt.store(&b, -2, Bound::Upper, 16, Some(9), true);
        let e = tt.probe(&b).unwrap();
        assert_eq!((e.bound, e.score, e.best), (Bound::Exact, -2, Some(55)));
        // The other order gives the same entry.
        let c = b.pass();
        tt.store(&c, -2, Bound::Upper, 16, Some(9), true);
        tt.store(&c, -2, Bound::Lower, 16, Some(55), true);
        let e = tt.probe(&c).unwrap();
        assert_eq!((e.bound, e.score, e.best), (Bound::Exact, -2, Some(55)));
        // A weaker lower bound does not bring its move; a stronger one does.
        tt.store(&c, -5, Bound::Lower, 16, Some(20), true);
        assert_eq!(tt.probe(&c).unwrap().best, Some(55));
        let d = Board::new(1, 2).unwrap();
        tt.store(&d, 3, Bound::Lower, 10, Some(20), false);
        tt.store(&d, 6, Bound::Lower, 10, Some(21), false);
        let e = tt.probe(&d).unwrap();
        assert_eq!((e.lower, e.best), (6, Some(21)));
        // Upper bounds alone: the newest move is the hint.
        let u = Board::new(4, 8).unwrap();
        tt.store(&u, 3, Bound::Upper, 10, Some(20), false);
        tt.store(&u, 1, Bound::Upper, 10, Some(22), false);
        let e = tt.probe(&u).unwrap();
        assert_eq!((e.upper, e.best), (1, Some(22)));
    }

    #[test]
    fn bounds_survive_late_generations() {
        // The generation has 8 bits of its own: from the 128th search on it once spilled
        // into the upper bound, turning an upper bound of 4 into 5.
        let tt = TranspositionTable::with_bytes(1024);
        let b = Board::start();
        for _ in 0..200 {
            tt.new_search();
        }
        tt.store(&b, 4, Bound::Upper, 9, Some(19), true);
        let e = tt.probe(&b).unwrap();
        assert_eq!((e.lower, e.upper, e.score), (-NO_BOUND, 4, 4));
        // Scores beyond ±127 round-trip (16-bit bounds).
        let c = b.pass();
        tt.store(&c, -300, Bound::Lower, 3, None, false);
        let e = tt.probe(&c).unwrap();
        assert_eq!((e.lower, e.upper), (-300, NO_BOUND));
    }

    #[test]
    fn positions_near_the_end_live_in_the_near_region() {
        // 64 MiB: the main region has 512 Ki buckets (48 MiB), the near region 32 Ki buckets
        // (3 MiB).
        let tt = TranspositionTable::new(64);
        assert_eq!(tt.buckets(), 1 << 19);
        assert_eq!(
            tt.bytes(),
            ((1 << 19) + (1 << 15)) * BUCKET_SLOTS * SLOT_BYTES
        );
        let near_slots = (1 << 15) * BUCKET_SLOTS;
        // Positions with 8 to 20 empties: filled squares from a1 on, alternating colours.
        for empties in 8..=20u32 {
            let filled = u64::MAX >> empties;
            let p = filled & 0x5555_5555_5555_5555;
            let b = Board::new(p, filled & !p).unwrap();
            assert_eq!(b.empties(), empties);
            let start = tt.bucket_start(&b);
            assert_eq!(
                start < near_slots,
                empties <= NEAR_MAX_EMPTIES,
                "{empties} empties"
            );
            assert!(start + BUCKET_SLOTS <= near_slots + tt.buckets() * BUCKET_SLOTS);
            tt.store(&b, empties as Score, Bound::Lower, empties, Some(63), true);
            let e = tt.probe(&b).unwrap();
            assert_eq!(
                (e.score, e.bound, e.depth),
                (empties as Score, Bound::Lower, empties)
            );
        }
        // 48 MiB: the main region fills it (512 Ki buckets), the near region comes on top.
        let tt = TranspositionTable::new(48);
        assert_eq!(tt.buckets(), 1 << 19);
        assert_eq!(tt.bytes(), 51 << 20);
        // Below NEAR_MIN_TABLE_BYTES there is one region.
        let small = TranspositionTable::new(16);
        assert_eq!(small.bytes(), small.buckets() * BUCKET_SLOTS * SLOT_BYTES);
    }

    #[test]
    fn one_bucket_table_keeps_only_four_positions() {
        let tt = TranspositionTable::with_bytes(1);
        assert_eq!(tt.buckets(), 1);
        let boards: Vec<Board> = (0..6u64)
            .map(|i| Board::new(1 << i, 1 << 40).unwrap())
            .collect();
        for (i, b) in boards.iter().enumerate() {
            tt.store(b, i as Score, Bound::Exact, i as u32, None, false);
        }
        let found = boards.iter().filter(|b| tt.probe(b).is_some()).count();
        assert_eq!(found, BUCKET_SLOTS);
        // Depth-preferred: the deepest entry survives.
        assert_eq!(tt.probe(&boards[5]).unwrap().score, 5);
    }
}
