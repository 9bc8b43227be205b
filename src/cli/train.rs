//! `flank train`: the command line's settings of a training run turned into
//! [`TrainOptions`], and the run on its own worker threads with its report on stdout.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::data::data_root;
use crate::train::{TrainOptions, check_writable, run_train as train};

/// The settings of `flank train`; `None` keeps the default of the run kind
/// ([`TrainOptions::full`], or [`TrainOptions::quick`] with `quick`).
#[derive(Clone, Debug, Default)]
pub struct TrainSettings {
    /// A small, fast run (a WTHOR subset, few self-play games) for CI and tests.
    pub quick: bool,
    /// Output weights file (default `weights/flank-eval.bin`; required with `quick`).
    pub out: Option<PathBuf>,
    /// Seed of the validation split, openings, random moves and search-leaf walks.
    pub seed: u64,
    /// Self-play games.
    pub games: Option<usize>,
    /// Use at most this many WTHOR games.
    pub wthor_games: Option<usize>,
    /// Solve self-play positions with at most this many empties exactly.
    pub solve_empties: Option<u32>,
    /// Solve WTHOR positions with at most this many empties exactly.
    pub wthor_solve_empties: Option<u32>,
    /// Random plies played (and solved) from every solved WTHOR position.
    pub deviation_plies: Option<u32>,
    /// Search-leaf samples (walks down to 2-9 empties, solved).
    pub leaf_samples: Option<usize>,
    /// Evaluation whose greedy moves the search-leaf walks follow (`classic`, `trained` or a
    /// weights file).
    pub leaf_eval: Option<String>,
    /// Conjugate-gradient iterations per phase.
    pub iterations: Option<usize>,
    /// Ridge strength; must be a positive number up to 1e6.
    pub lambda: Option<f64>,
    /// Cache of the labelled samples: read if it exists, written otherwise.
    pub samples: Option<PathBuf>,
    /// Worker threads (`None`: all cores).
    pub jobs: Option<usize>,
    /// Phases (of 2 empties each) that get a residual net.
    pub net_phases: Option<Vec<usize>>,
    /// Empties counts that get a residual net of their own.
    pub net_empties: Option<Vec<usize>>,
    /// Hidden units of the nets this run trains.
    pub net_hidden: Option<usize>,
    /// Extra search-leaf walks ending at the `net_empties` counts, for the nets only.
    pub net_leaf_samples: Option<usize>,
    /// Weights file (or `trained`) whose linear weights and unlisted nets are kept.
    pub base: Option<PathBuf>,
    /// SGD epochs per residual net.
    pub net_epochs: Option<usize>,
    /// SGD learning rate of the residual nets at the start, in (0, 1].
    pub net_rate: Option<f32>,
}

/// Runs `flank train` with `settings`: checks the output path, finds the data directory,
/// builds the [`TrainOptions`] and trains on `jobs` worker threads, writing the report to
/// stdout (a reader that stops reading it does not stop the training).
///
/// # Errors
/// `quick` without `out`, an unwritable output path, no data directory, a `lambda` out of
/// range, threads that cannot start, or the training's own errors.
pub fn run_train(settings: TrainSettings) -> Result<()> {
    let s = settings;
    let out = match (s.out, s.quick) {
        (Some(out), _) => out,
        (None, false) => PathBuf::from("weights/flank-eval.bin"),
        (None, true) => anyhow::bail!(
            "--quick needs --out FILE (it must not overwrite the built-in weights/flank-eval.bin)"
        ),
    };
    // flank's own arguments are checked before the data directory is looked up, so that a
    // bad output path is reported as such on a machine without the data too.
    check_writable(&out, "output file")?;
    let data = data_root().map_err(anyhow::Error::msg)?;
    let mut opts = if s.quick {
        TrainOptions::quick(data, out)
    } else {
        TrainOptions::full(data, out)
    };
    opts.seed = s.seed;
    if let Some(g) = s.games {
        opts.selfplay_games = g;
    }
    opts.samples_cache = s.samples;
    if let Some(i) = s.iterations {
        opts.iterations = i;
    }
    if let Some(l) = s.lambda {
        if !(l.is_finite() && l > 0.0 && l <= 1e6) {
            anyhow::bail!("--lambda must be a positive number up to 1e6 (see flank train --help)");
        }
        opts.lambda = l;
    }
    if let Some(e) = s.solve_empties {
        opts.solve_empties = e;
    }
    if let Some(e) = s.wthor_solve_empties {
        opts.wthor_solve_empties = e;
    }
    if let Some(d) = s.deviation_plies {
        opts.deviation_plies = d;
    }
    if let Some(n) = s.leaf_samples {
        opts.leaf_samples = n;
    }
    if let Some(e) = s.leaf_eval {
        opts.leaf_eval = e;
    }
    if s.wthor_games.is_some() {
        opts.wthor_games = s.wthor_games;
    }
    if let Some(p) = s.net_phases {
        opts.net_phases = p;
    }
    if let Some(e) = s.net_empties {
        opts.net_empties = e.into_iter().map(|e| e as u32).collect();
    }
    if let Some(h) = s.net_hidden {
        opts.net_hidden = h;
    }
    if let Some(n) = s.net_leaf_samples {
        opts.net_leaf_samples = n;
    }
    opts.base = s.base;
    if let Some(e) = s.net_epochs {
        opts.net_epochs = e;
    }
    if let Some(r) = s.net_rate {
        opts.net_rate = r;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(s.jobs.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    pool.install(|| {
        // The product is the weights file: a reader that stops reading the report (`flank
        // train | head`) must not stop the training, so report write errors are ignored.
        let mut out = ReportSink(io::stdout(), true);
        train(&opts, &mut out).map(|_| ())
    })?;
    Ok(())
}

/// A writer that passes bytes on until the first write error and then drops the rest
/// silently (the `flank train` report).
struct ReportSink<W: Write>(W, bool);

impl<W: Write> Write for ReportSink<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.1 && self.0.write_all(buf).and_then(|_| self.0.flush()).is_err() {
            self.1 = false;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
