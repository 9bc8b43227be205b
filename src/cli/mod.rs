//! The subcommands of the command line, one module each: every one takes plain values or a
//! settings struct (the binary's clap definitions build them) and does the work, writing to
//! stdout and stderr as `flank` does; [`values`] parses the options' values.

pub mod analyze;
pub mod args;
pub mod bench;
pub mod book;
pub mod ensemble;
pub mod eval_error;
pub mod eval_swing;
pub mod evalset;
pub mod gtp;
pub mod match_cmd;
pub mod mpc_calibrate;
pub mod nboard;
pub mod perft;
pub mod selfplay;
pub mod solve;
pub mod train;
pub mod values;

use anyhow::Result;

use crate::eval::{Evaluator, active, set_evaluator};

/// The number of cores (1 if unknown): the default thread count of `gtp` and `solve`.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Makes `spec` (`trained`, `classic` or a weights file; `None`: the default) the
/// process-wide evaluation, which must happen before any search; with `decode_now` the
/// weights are decoded at once (the built-in weights' linear part, about 0.03 s; their nets
/// are decoded at their first use), not inside the first search, where it would count against
/// the game clock or the first solve's time.
///
/// # Errors
/// A `spec` that names no evaluation or a weights file that cannot be read or decoded.
pub fn select_eval(spec: Option<&str>, decode_now: bool) -> Result<()> {
    if let Some(spec) = spec {
        let e = Evaluator::from_spec(spec)?;
        // Nothing has evaluated yet, so this cannot fail; ignore it if it somehow did.
        let _ = set_evaluator(e);
    }
    if decode_now {
        let _ = active();
    }
    Ok(())
}
