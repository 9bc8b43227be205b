//! The evaluation entry point: the process-wide active evaluator (the trained pattern
//! evaluation by default, or the hand-written [`classic`] one) and [`evaluate`], which the
//! search calls at its leaves.
//!
//! The active evaluator is chosen once per process, before any search: `flank --eval
//! classic|trained|FILE` calls [`set_evaluator`] at startup; without that, the first call of
//! [`evaluate`] installs the weights embedded in the binary ([`crate::eval::weights::EMBEDDED`]).

pub mod classic;
pub mod features;
pub mod mpc;
pub mod net;
pub mod pattern;
pub mod weights;

use std::path::Path;

use std::sync::OnceLock;

use crate::eval::features::DiscDigits;
use crate::eval::pattern::PatternEval;
use crate::othello::board::{Board, Score};

/// An evaluation function.
#[derive(Clone, Debug)]
pub enum Evaluator {
    /// The hand-written evaluation of [`classic`].
    Classic,
    /// A trained pattern evaluation ([`crate::eval::pattern`]).
    Pattern(Box<PatternEval>),
}

impl Evaluator {
    /// The trained weights built into the binary (their nets decoded on first use,
    /// [`weights::embedded`]).
    pub fn embedded() -> Result<Evaluator, weights::WeightsError> {
        Ok(Evaluator::Pattern(Box::new(weights::embedded()?)))
    }

    /// Parses an `--eval` value: `classic`, `trained` (the embedded weights) or the path of a
    /// weights file. Errors name the file and the reason; for a path that does not exist they
    /// also list the two names (`Classic` is a misspelling more often than a file).
    pub fn from_spec(spec: &str) -> anyhow::Result<Evaluator> {
        match spec {
            "classic" => Ok(Evaluator::Classic),
            "trained" => Ok(Evaluator::embedded()
                .map_err(|e| anyhow::anyhow!("embedded weights unusable: {e}"))?),
            path => match weights::load_file(Path::new(path)) {
                Ok(p) => Ok(Evaluator::Pattern(Box::new(p))),
                // `Classic`, `TRAINED`: a misspelt name rather than a missing file.
                Err(e) if !Path::new(path).exists() => Err(anyhow::anyhow!(
                    "{e} (the evaluation is classic, trained or a weights file)"
                )),
                Err(e) => Err(e),
            },
        }
    }

    /// Evaluates `b` for the side to move, in discs, clamped to −63…63.
    #[inline]
    pub fn evaluate(&self, b: &Board) -> Score {
        match self {
            Evaluator::Classic => classic::evaluate(b),
            Evaluator::Pattern(p) => p.evaluate(b),
        }
    }

    /// The midgame MPC calibration of this evaluator (`None` for the classic evaluation or
    /// weights without one).
    pub fn mpc(&self) -> Option<&crate::eval::mpc::MpcTable> {
        match self {
            Evaluator::Pattern(p) => p.mpc(),
            Evaluator::Classic => None,
        }
    }

    /// A short name for logs: `classic` or `trained`.
    pub fn name(&self) -> &'static str {
        match self {
            Evaluator::Classic => "classic",
            Evaluator::Pattern(_) => "trained",
        }
    }
}

static ACTIVE: OnceLock<Evaluator> = OnceLock::new();
static SOLVER: OnceLock<Option<Evaluator>> = OnceLock::new();

/// Installs `e` as the process-wide evaluator. Fails (returning `e`) if an evaluator is
/// already active, i.e. after [`set_evaluator`] or the first [`evaluate`].
pub fn set_evaluator(e: Evaluator) -> Result<(), Evaluator> {
    ACTIVE.set(e)
}

/// The active evaluator (installing the embedded weights on first use; should they ever fail
/// to decode, the classic evaluation is used and the reason printed on stderr).
pub fn active() -> &'static Evaluator {
    ACTIVE.get_or_init(|| {
        Evaluator::embedded().unwrap_or_else(|e| {
            eprintln!("flank: embedded weights unusable ({e}); using the classic evaluation");
            Evaluator::Classic
        })
    })
}

/// The evaluation the exact solver orders its moves and cuts with (its ordering searches,
/// child evaluations, ProbCut and root estimate): the active weights' own solver weights
/// ([`weights::SolverWeights`]) if they have them, else the active evaluator. Built on first
/// use.
pub fn solver() -> &'static Evaluator {
    SOLVER
        .get_or_init(|| match active() {
            Evaluator::Pattern(p) => p.solver_eval().map(|e| Evaluator::Pattern(Box::new(e))),
            Evaluator::Classic => None,
        })
        .as_ref()
        .unwrap_or_else(active)
}

/// The midgame MPC calibration of the active evaluator ([`crate::eval::mpc::MpcTable`]):
/// the one stored with its weights, `None` for the classic evaluation or a weights file
/// without one (the midgame search then runs without ProbCut).
pub fn mpc_table() -> Option<&'static crate::eval::mpc::MpcTable> {
    active().mpc()
}

/// Evaluates `board` for the side to move with the active evaluator, in discs (an estimate of
/// the final disc difference), clamped to −63…63 so that it never ties with a decisive final
/// score of ±64.
#[inline]
pub fn evaluate(board: &Board) -> Score {
    active().evaluate(board)
}

/// Evaluates the children of one position: [`evaluate`] of each child, the same values, with
/// the trained evaluation's disc-pattern indices updated from the parent's by the squares each
/// move changes ([`DiscDigits::child`]) instead of read again. For move ordering, where every
/// child of a node is evaluated.
pub struct ChildEval {
    /// The evaluator.
    eval: &'static Evaluator,
    /// The parent's disc digits (`None` under the classic evaluation).
    digits: Option<DiscDigits>,
}

impl ChildEval {
    /// Prepares to evaluate with `eval` the children of the position with `p` the side to
    /// move's discs and `o` the opponent's.
    #[inline]
    pub fn new(eval: &'static Evaluator, p: u64, o: u64) -> ChildEval {
        ChildEval {
            eval,
            digits: match eval {
                Evaluator::Pattern(_) => Some(DiscDigits::new(p, o)),
                Evaluator::Classic => None,
            },
        }
    }

    /// The evaluator.
    #[inline]
    pub fn evaluator(&self) -> &'static Evaluator {
        self.eval
    }

    /// The evaluation of the child `(cp, co)` (the parent's opponent to move) reached by playing
    /// square `x` flipping `flipped`; `child_moves` are the child's legal moves and must not
    /// be empty.
    #[inline]
    pub fn evaluate(&self, cp: u64, co: u64, x: u32, flipped: u64, child_moves: u64) -> Score {
        let b = Board {
            player: cp,
            opponent: co,
        };
        match (self.eval, &self.digits) {
            (Evaluator::Pattern(pe), Some(d)) => {
                pe.evaluate_child(&b, &d.child(x, flipped), child_moves)
            }
            (e, _) => e.evaluate(&b),
        }
    }
}
