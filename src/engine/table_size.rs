//! Sizing the transposition table to a job: from the empties of the positions a solve must
//! search and the machine's physical memory.

/// The table `flank solve` uses when `--hash` is not given, in MiB.
///
/// 64 MiB (the engine's default) up to 20 empties, doubling with every empty to 1 GiB at 24
/// empties and above; at most a quarter of the physical memory ([`physical_memory_bytes`]; 1
/// GiB when it cannot be read), rounded down to a power of two (the table's own rounding), and
/// never less than 64 MiB.
///
/// Where the size pays: from 28 empties a table of 1 GiB (768 MiB once rounded, 2^23 buckets)
/// lets the exact solve run its selective pre-searches
/// ([`crate::search::probcut::root_max_empties`]), which save 5–45 % of the nodes of FFO
/// #53–#58; at 24–27 empties the size hardly matters (FFO #45, #48–#52 at 1 thread: 1,887 M
/// nodes at 64 MiB, 1,893 M at 256 MiB and 1 GiB, 1,898 M at 4 GiB), so the table grows to
/// 1 GiB gradually and no further.
pub fn auto_table_mib(empties: u32) -> usize {
    let wanted = 64usize << empties.saturating_sub(20).min(4);
    let cap = physical_memory_bytes().map_or(1024, |b| ((b / 4) >> 20) as usize);
    let cap = if cap.is_power_of_two() {
        cap
    } else {
        cap.next_power_of_two() / 2
    };
    wanted.min(cap).max(64)
}

/// The machine's physical memory in bytes (`sysconf(_SC_PHYS_PAGES)` × the page size on Unix);
/// `None` where it cannot be read.
pub fn physical_memory_bytes() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads system configuration; it has no memory-safety
        // preconditions.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && page > 0 {
            return Some(pages as u64 * page as u64);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_doubles_from_20_to_24_empties_within_a_quarter_of_memory() {
        let quarter = ((physical_memory_bytes().unwrap() / 4) >> 20) as usize;
        let cap = if quarter.is_power_of_two() {
            quarter
        } else {
            quarter.next_power_of_two() / 2
        };
        for e in 0..=20 {
            assert_eq!(auto_table_mib(e), 64);
        }
        for (e, mib) in [
            (21, 128),
            (22, 256),
            (23, 512),
            (24, 1024),
            (28, 1024),
            (60, 1024),
        ] {
            assert_eq!(auto_table_mib(e), mib.min(cap).max(64), "{e} empties");
        }
    }
}
