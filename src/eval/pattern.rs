//! The trained pattern evaluator: the pattern weights of [`crate::eval::features`] expanded to
//! raw indices, one table per phase, with the residual nets of [`crate::eval::net`] added
//! where a phase has one.

use crate::eval::features::*;
use crate::eval::net::{LazyNets, Nets};
use crate::othello::board::Board;

/// A trained pattern evaluator: weights expanded to raw indices, one table per phase, and the
/// residual nets ([`crate::eval::net`]) of the phases that have one.
#[derive(Clone, Debug)]
pub struct PatternEval {
    /// `NUM_PHASES × raw_len` weights in 1/[`SCALE`] discs, phase-major.
    raw: Vec<i16>,
    raw_len: usize,
    nets: std::sync::Arc<LazyNets>,
    /// The midgame MPC calibration fitted with this evaluation (weights file version 4).
    mpc: Option<std::sync::Arc<crate::eval::mpc::MpcTable>>,
    /// The exact solver's own weights, if the file has them
    /// ([`SolverWeights`]).
    solver: Option<SolverLoader>,
}

/// The exact solver's own evaluation, as a weights file may hold it
/// ([`crate::eval::weights`]): linear weights and the midgame MPC table that the solver's
/// move ordering (child evaluations and shallow ordering searches), its ProbCut and its root
/// estimate use, with the file's nets. A refit of the midgame keeps its base's solver
/// weights, so that changing the midgame evaluation does not change how the solver searches
/// (Egaroucid, too, tunes its endgame move ordering apart from its midgame evaluation).
#[derive(Clone, Debug, PartialEq)]
pub struct SolverWeights {
    /// Compact linear weights, `phase * compact_len + id`, in 1/[`SCALE`] discs (length
    /// `NUM_PHASES × compact_len`).
    pub linear: Vec<i16>,
    /// The MPC table fitted with these weights, if any.
    pub mpc: Option<crate::eval::mpc::MpcTable>,
}

/// Produces the exact solver's weights of an evaluator on first use (`None` if they cannot
/// be decoded; the loader reports why).
#[derive(Clone)]
pub struct SolverLoader(pub std::sync::Arc<dyn Fn() -> Option<SolverWeights> + Send + Sync>);

impl std::fmt::Debug for SolverLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SolverLoader")
    }
}

impl PatternEval {
    /// Builds an evaluator from compact weights: `compact[phase * compact_len + id]`, in
    /// 1/[`SCALE`] discs. `None` if the length is not `NUM_PHASES × Layout::compact_len`.
    pub fn from_compact(compact: &[i16]) -> Option<PatternEval> {
        let layout = &*LAYOUT;
        let cl = layout.compact_len;
        if compact.len() != NUM_PHASES * cl {
            return None;
        }
        let mut raw = Vec::with_capacity(NUM_PHASES * layout.raw_len);
        for ph in 0..NUM_PHASES {
            let w = &compact[ph * cl..(ph + 1) * cl];
            raw.extend(layout.raw_to_compact.iter().map(|&c| w[c as usize]));
        }
        Some(PatternEval {
            raw,
            raw_len: layout.raw_len,
            nets: Default::default(),
            mpc: None,
            solver: None,
        })
    }

    /// This evaluator with residual nets added (replacing any it had).
    pub fn with_nets(mut self, nets: Nets) -> PatternEval {
        self.nets = std::sync::Arc::new(nets.into());
        self
    }

    /// This evaluator with nets that are decoded on first use ([`LazyNets::packed`]).
    pub fn with_lazy_nets(mut self, nets: LazyNets) -> PatternEval {
        self.nets = std::sync::Arc::new(nets);
        self
    }

    /// This evaluator with the exact solver's own weights, loaded by `loader` when
    /// [`PatternEval::solver_eval`] first asks.
    pub fn with_solver(mut self, loader: Option<SolverLoader>) -> PatternEval {
        self.solver = loader;
        self
    }

    /// The evaluator the exact solver orders and cuts with: this one's solver weights with
    /// its nets (shared, not copied); `None` if it has no solver weights (or they cannot be
    /// decoded), and the solver then uses this evaluator.
    pub fn solver_eval(&self) -> Option<PatternEval> {
        let sw = (self.solver.as_ref()?.0)()?;
        let mut e = PatternEval::from_compact(&sw.linear)?.with_mpc(sw.mpc);
        e.nets = self.nets.clone();
        Some(e)
    }

    /// This evaluator with the midgame MPC calibration `mpc` (replacing any it had).
    pub fn with_mpc(mut self, mpc: Option<crate::eval::mpc::MpcTable>) -> PatternEval {
        self.mpc = mpc.map(std::sync::Arc::new);
        self
    }

    /// The midgame MPC calibration stored with these weights, if any.
    pub fn mpc(&self) -> Option<&crate::eval::mpc::MpcTable> {
        self.mpc.as_deref()
    }

    /// The residual nets (empty when the evaluation is purely linear).
    pub fn nets(&self) -> &LazyNets {
        &self.nets
    }

    /// The linear pattern sum of `b` for the side to move in 1/[`SCALE`] discs, without the
    /// residual net (what the nets are trained to correct).
    #[inline]
    pub fn linear_fine(&self, b: &Board) -> i32 {
        let mut idx = [0u32; FEATURES_PER_POSITION];
        raw_indices(b, &mut idx);
        self.linear_at(phase(b.empties()), &idx)
    }

    /// The linear sum of phase `ph`'s weights at the raw indices `idx`.
    #[inline(always)]
    fn linear_at(&self, ph: usize, idx: &[u32; FEATURES_PER_POSITION]) -> i32 {
        let w = &self.raw[ph * self.raw_len..(ph + 1) * self.raw_len];
        idx.iter().map(|&i| w[i as usize] as i32).sum()
    }

    /// The evaluation of `b` for the side to move in 1/[`SCALE`] discs (not clamped): the
    /// linear pattern sum plus the residual net correction of its empties, if there is a net
    /// ([`Nets::for_empties`]).
    #[inline]
    pub fn evaluate_fine(&self, b: &Board) -> i32 {
        let mut idx = [0u32; FEATURES_PER_POSITION];
        raw_indices(b, &mut idx);
        self.fine_at(b.empties(), &idx)
    }

    /// The linear sum plus the net correction, in 1/[`SCALE`] discs, of a position with
    /// `empties` empties and raw indices `idx`.
    #[inline(always)]
    fn fine_at(&self, empties: u32, idx: &[u32; FEATURES_PER_POSITION]) -> i32 {
        let linear = self.linear_at(phase(empties), idx);
        match self.nets.for_empties(empties) {
            Some(net) => linear + net.correction(idx),
            None => linear,
        }
    }

    /// [`PatternEval::evaluate`] of `b` given its disc digits `d` and `lp`, the side to move's
    /// legal moves (non-zero); the same value, computed without reading the discs again.
    #[inline]
    pub fn evaluate_child(&self, b: &Board, d: &DiscDigits, lp: u64) -> i32 {
        let mut idx = [0u32; FEATURES_PER_POSITION];
        raw_indices_with(b, d, lp, &mut idx);
        Self::round(self.fine_at(b.empties(), &idx))
    }

    /// A fine value (1/[`SCALE`] disc) rounded to nearest disc and clamped to −63…63.
    #[inline]
    fn round(v: i32) -> i32 {
        ((v + SCALE / 2).div_euclid(SCALE)).clamp(-63, 63)
    }

    /// The evaluation of `b` for the side to move in discs, rounded to nearest and clamped to
    /// −63…63 (a decisive final score of ±64 stays better than any estimate).
    #[inline]
    pub fn evaluate(&self, b: &Board) -> i32 {
        Self::round(self.evaluate_fine(b))
    }
}
