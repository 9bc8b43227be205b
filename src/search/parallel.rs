//! Young brothers wait concept (YBWC): the parallel splits of the midgame search and of the
//! solver's NWS on a rayon pool; a fail-high sets its split point's cutoff flag (`Cut`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::othello::board::{SCORE_INF, Score};
use crate::othello::movegen::flips;
use crate::search::searcher::*;

impl Searcher {
    /// The YBWC split of a midgame node of `(p, o)` at `depth` plies ([`Searcher::mid_pvs_node`]
    /// with the window (alpha, beta) after its first move failed low): the moves `rest` get
    /// null-window searches around `alpha` in parallel on the pool; one failing high at a
    /// null-window node (beta = alpha + 1) cuts the others off through a [`Cut`] flag. Then,
    /// in `rest`'s order, each fail-high that still beats the raised alpha is re-searched with
    /// the window (alpha, beta), as the sequential PVS would. Returns the best value and move
    /// (−[`SCORE_INF`] and 64 if nothing completed); sets `stopped` if the split was
    /// abandoned from above (a cut-off above it, the stop flag or the deadline).
    pub(super) fn mid_split(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        beta: Score,
        depth: i32,
        rest: &[u32],
    ) -> (Score, u32) {
        let results = self.split_search(rest, beta, |s, x| {
            let f = flips(p, o, x);
            -s.mid_pvs_node(o ^ f, p ^ f ^ (1 << x), -alpha - 1, -alpha, depth - 1, true)
                .0
        });
        let mut best = -SCORE_INF;
        let mut best_move = 64;
        let mut a = alpha;
        for &(i, v) in &results {
            let x = rest[i];
            let mut v = v;
            if v > alpha && v < beta {
                // A PV node's fail-high (a lower bound above alpha, which may not beat the
                // alpha `a` raised since): searched again with the window (a, beta), as the
                // sequential PVS would after its null-window search at `a`.
                let f = flips(p, o, x);
                v = -self
                    .mid_pvs_node(o ^ f, p ^ f ^ (1 << x), -beta, -a, depth - 1, true)
                    .0;
                if self.stopped {
                    return (0, 64);
                }
            }
            if v > best {
                best = v;
                best_move = x;
                if v > a {
                    a = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_move)
    }

    /// The YBWC split of an NWS node of `(p, o)` at `alpha`: searches the moves `rest` in
    /// parallel, each by a helper searcher under a new split point, and stops them all once
    /// one fails high. Returns the best (score, move) among the completed searches (`None` if
    /// none completed); sets `self.stopped` if the split was abandoned from above (stop
    /// flag, deadline or a cutoff at an enclosing split point).
    pub(super) fn nws_split(
        &mut self,
        p: u64,
        o: u64,
        alpha: Score,
        empties: u32,
        rest: &[u32],
    ) -> Option<(Score, u32)> {
        let results = self.split_search(rest, alpha + 1, |s, x| {
            let f = flips(p, o, x);
            -s.nws_node(o ^ f, p ^ f ^ (1 << x), -alpha - 1, empties - 1, true)
        });
        let mut best: Option<(Score, u32)> = None;
        for (i, v) in results {
            if best.is_none_or(|(bv, _)| v > bv) {
                best = Some((v, rest[i]));
            }
        }
        best
    }

    /// The parallel part of a YBWC split ([`Searcher::nws_split`], [`Searcher::mid_split`]):
    /// `search(helper, x)` for every move `x` of `rest` at once (rayon work stealing, on
    /// this searcher's pool if it has one), each by a helper searcher with this one's
    /// settings (table, stop flag, deadline, selectivity, splits, midgame ProbCut) under a new
    /// split point; a value ≥ `beta` cuts the others off. Returns the completed searches as
    /// (index in `rest`, value) in `rest`'s order, and adds their nodes. Sets `stopped` if the
    /// split was abandoned from above (stop flag, deadline, or a cut-off at an enclosing split
    /// point) and no value reached `beta`.
    pub(super) fn split_search<F>(
        &mut self,
        rest: &[u32],
        beta: Score,
        search: F,
    ) -> Vec<(usize, Score)>
    where
        F: Fn(&mut Searcher, u32) -> Score + Sync,
    {
        let cut = Arc::new(Cut {
            flag: AtomicBool::new(false),
            parent: self.cut.clone(),
        });
        let results: Mutex<Vec<(usize, Score)>> = Mutex::new(Vec::with_capacity(rest.len()));
        let nodes = AtomicU64::new(0);
        let aborted = AtomicBool::new(false);
        let this = &*self;
        let run = || {
            rest.par_iter()
                .enumerate()
                .with_max_len(1)
                .for_each(|(i, &x)| {
                    if cut.is_set() || past_limits(&this.stop, this.deadline) {
                        if !cut.flag.load(Ordering::Relaxed) {
                            aborted.store(true, Ordering::Relaxed);
                        }
                        return;
                    }
                    let mut s = Searcher::new(this.tt.clone(), this.stop.clone(), this.deadline);
                    s.selectivity = this.selectivity;
                    s.cut = Some(cut.clone());
                    s.pool = this.pool.clone();
                    s.split = this.split;
                    s.mid_split = this.mid_split;
                    s.mid_mpc = this.mid_mpc;
                    s.eval = this.eval;
                    s.keep_pv = this.keep_pv;
                    s.set_progress(this.progress.clone());
                    let v = search(&mut s, x);
                    s.publish();
                    nodes.fetch_add(s.nodes, Ordering::Relaxed);
                    if s.stopped {
                        if !cut.flag.load(Ordering::Relaxed) {
                            aborted.store(true, Ordering::Relaxed);
                        }
                        return;
                    }
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, v));
                    if v >= beta {
                        cut.flag.store(true, Ordering::Relaxed);
                    }
                });
        };
        match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        }
        // The helpers published their nodes already.
        let n = nodes.load(Ordering::Relaxed);
        self.nodes += n;
        self.published += n;
        let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        results.sort_unstable_by_key(|&(i, _)| i);
        if aborted.load(Ordering::Relaxed) && !results.iter().any(|&(_, v)| v >= beta) {
            self.stopped = true;
        }
        results
    }
}
