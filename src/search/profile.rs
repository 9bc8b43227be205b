//! A sampling profile of the exact solver by empties (cargo feature `empties-profile`): where a
//! solve's time goes, node by node, per number of empties. Without the feature every function
//! here compiles to nothing.
//!
//! Each solver node ([`enter`] at the NWS of 6 and more empties, the parity search at 5 and
//! `last4`, which holds the 1–3-empties code) marks its empties in one global cell until it
//! returns; a sampler thread reads the cell, sleeping [`SAMPLE_US`] µs between reads (about
//! every 160 µs in practice, which does not bias the shares). A node's time is its own
//! work, its midgame ordering and ProbCut searches included, without its solver children.
//! One global cell: meaningful with `--threads 1` only.

/// Microseconds the profile's sampler thread sleeps between two samples.
pub const SAMPLE_US: u64 = 100;

#[cfg(feature = "empties-profile")]
mod imp {
    use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
    use std::time::{Duration, Instant};

    /// Empties of the running solver node; 64 outside the solver's nodes.
    pub(super) static CURRENT: AtomicU32 = AtomicU32::new(64);
    /// Solver nodes entered, by empties.
    pub(super) static CALLS: [AtomicU64; 65] = [const { AtomicU64::new(0) }; 65];
    static SAMPLES: [AtomicU64; 65] = [const { AtomicU64::new(0) }; 65];
    static RUNNING: AtomicBool = AtomicBool::new(false);
    static STARTED: std::sync::Mutex<Option<Instant>> = std::sync::Mutex::new(None);

    /// Restores the caller's empties when the node returns.
    pub struct Guard(u32);

    impl Drop for Guard {
        #[inline(always)]
        fn drop(&mut self) {
            CURRENT.store(self.0, Relaxed);
        }
    }

    #[inline(always)]
    pub fn enter(empties: u32) -> Guard {
        let e = empties.min(64) as usize;
        // One searching thread: a plain load and store, not an atomic add.
        CALLS[e].store(CALLS[e].load(Relaxed) + 1, Relaxed);
        Guard(CURRENT.swap(empties.min(64), Relaxed))
    }

    pub fn start() {
        if RUNNING.swap(true, Relaxed) {
            return;
        }
        *STARTED.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        std::thread::spawn(|| {
            while RUNNING.load(Relaxed) {
                std::thread::sleep(Duration::from_micros(super::SAMPLE_US));
                let e = CURRENT.load(Relaxed) as usize;
                SAMPLES[e.min(64)].fetch_add(1, Relaxed);
            }
        });
    }

    pub fn report() -> String {
        RUNNING.store(false, Relaxed);
        let wall = STARTED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map_or(0.0, |t| t.elapsed().as_secs_f64());
        let total: u64 = SAMPLES.iter().map(|s| s.load(Relaxed)).sum();
        let mut out = format!(
            "empties-profile: {total} samples over {wall:.1} s\n{:>7} {:>14} {:>7} {:>9}\n",
            "empties", "nodes", "time %", "ns/node"
        );
        for e in 0..=64 {
            let (calls, samples) = (CALLS[e].load(Relaxed), SAMPLES[e].load(Relaxed));
            if calls == 0 && samples == 0 {
                continue;
            }
            let share = samples as f64 / total.max(1) as f64;
            let ns = if calls > 0 {
                share * wall * 1e9 / calls as f64
            } else {
                0.0
            };
            let label = if e == 64 {
                "other".to_string()
            } else {
                e.to_string()
            };
            out += &format!("{label:>7} {calls:>14} {:>7.2} {ns:>9.1}\n", 100.0 * share);
        }
        out
    }
}

#[cfg(not(feature = "empties-profile"))]
mod imp {
    pub struct Guard;

    #[inline(always)]
    pub fn enter(_empties: u32) -> Guard {
        Guard
    }

    pub fn start() {}

    pub fn report() -> String {
        String::new()
    }
}

/// Marks a solver node of `empties` empties as running until the returned guard drops (the
/// caller's empties return then). A no-op without the feature.
#[inline(always)]
pub fn enter(empties: u32) -> imp::Guard {
    imp::enter(empties)
}

/// Starts the sampler thread (once per process). A no-op without the feature.
pub fn start() {
    imp::start()
}

/// Stops the sampler and returns the profile as a text table: per empties, the solver nodes
/// entered (at 4 empties the `last4` calls, whose 1–3-empties nodes are inside them), the
/// share of the samples and the wall time per node in ns (the share of the wall time since
/// [`start`] divided by the nodes); "other" is the time outside the marked nodes: the root's
/// and the principal variation's PVS nodes with their ordering, and the time between solves.
/// The node column counts the marked nodes only (no PVS nodes, no 1–3-empties nodes), so it
/// sums to less than the solve's node count. With more than one search thread the cell mixes
/// the threads' nodes and the table is wrong (nothing warns). Empty without the feature.
pub fn report() -> String {
    imp::report()
}

#[cfg(all(test, feature = "empties-profile"))]
mod tests {
    use super::imp::{CALLS, CURRENT};
    use std::sync::atomic::Ordering::Relaxed;

    /// Reads the global cell: run this test alone (`.ci/run` does: `cargo test --lib
    /// --features empties-profile search::profile`), as other tests' searches write it.
    #[test]
    fn guards_mark_and_restore_the_empties() {
        let before = CALLS[12].load(Relaxed);
        {
            let _outer = super::enter(12);
            assert_eq!(CURRENT.load(Relaxed), 12);
            {
                let _inner = super::enter(11);
                assert_eq!(CURRENT.load(Relaxed), 11);
            }
            assert_eq!(CURRENT.load(Relaxed), 12);
        }
        assert_eq!(CURRENT.load(Relaxed), 64);
        assert_eq!(CALLS[12].load(Relaxed), before + 1);
        super::start();
        let text = super::report();
        assert!(text.starts_with("empties-profile: "), "{text}");
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().next() == Some("12")),
            "{text}"
        );
    }
}
