//! `flank nboard`: the NBoard protocol loop of an engine on the process's stdin and stdout.

use std::io::{self, BufReader};

use anyhow::{Context, Result};

use crate::engine::Engine;
use crate::protocol::nboard::{self, NBoardOptions};

/// Runs the NBoard loop of `engine` with `options` on stdin and stdout until `quit` or the
/// end of the input.
///
/// # Errors
/// `NBoard I/O failed`, with the cause, when reading stdin or writing stdout fails.
pub fn run_nboard(engine: Engine, options: NBoardOptions) -> Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    // Read on a thread of its own (so that a line can stop a search): a `Send` reader.
    let input = BufReader::new(io::stdin());
    nboard::run(input, &mut out, engine, options).context("NBoard I/O failed")?;
    Ok(())
}
