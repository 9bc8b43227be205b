//! `flank gtp` (and plain `flank`): the GTP loop of an engine on the process's stdin and
//! stdout.

use std::io::{self, BufReader};

use anyhow::{Context, Result};

use crate::engine::Engine;
use crate::protocol::gtp::{self, GtpOptions};

/// Runs the GTP loop of `engine` with `options` on stdin and stdout until `quit` or the end of
/// the input.
///
/// # Errors
/// `GTP I/O failed`, with the cause, when reading stdin or writing stdout fails.
pub fn run_gtp(engine: Engine, options: GtpOptions) -> Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    // The session reads its input on a thread of its own (so that a line can stop a search),
    // hence a `Send` reader rather than the locked stdin.
    let input = BufReader::new(io::stdin());
    gtp::run(input, &mut out, engine, options).context("GTP I/O failed")?;
    Ok(())
}
