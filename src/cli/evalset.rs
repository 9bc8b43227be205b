//! `flank evalset`: builds a held-out evaluation test set (OBF lines: WTHOR positions solved
//! or searched, or self-play test positions with their games' results) and writes it to
//! stdout or, all at once when complete, to a file; the summary goes to stderr.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::data::data_root;
use crate::train::evalset::{EvalSetOptions, EvalSetStats, build, selfplay_set};

/// The settings of `flank evalset`.
#[derive(Clone, Debug)]
pub struct EvalsetSettings {
    /// Empties of the positions, an inclusive range (1-59).
    pub empties: (u32, u32),
    /// Label by a midgame search of this depth instead of exact solving (required above 24
    /// empties).
    pub label_depth: Option<u32>,
    /// Positions wanted, evenly spaced over the candidates (fewer if fewer exist).
    pub count: usize,
    /// The `flank train --seed` whose validation split the positions come from.
    pub seed: u64,
    /// Output file, written when the set is complete (`None` or `-`: stdout).
    pub out: Option<PathBuf>,
    /// Solving threads (`None`: all cores).
    pub threads: Option<usize>,
    /// Self-play record files: when any is given the set is their test games' positions
    /// labelled by the games' exact results ([`selfplay_set`]) instead of WTHOR's.
    pub selfplay: Vec<PathBuf>,
    /// The self-play test games: one in this many by index (`flank refit
    /// --selfplay-test-every`).
    pub test_every: u64,
}

/// Runs `flank evalset` with `settings`: the positions come from the WTHOR games of the data
/// directory (`games/wthor`) that `flank train` holds out for validation (5 %), games through
/// a position of `endgame/hard-20.obf` left out; or, with self-play files, from their test
/// games (no data directory needed).
///
/// # Errors
/// No data directory (WTHOR sets), an output file that cannot be written (`cannot write FILE`; an
/// existing file is then left as it was), threads that cannot start, the building's own
/// errors, or a failed write to stdout (except a closed pipe).
pub fn run_evalset(settings: &EvalsetSettings) -> Result<()> {
    let opts = if settings.selfplay.is_empty() {
        let data = data_root().map_err(anyhow::Error::msg)?;
        Some(EvalSetOptions {
            wthor_dir: data.join("games/wthor"),
            empties: settings.empties,
            count: settings.count,
            label_depth: settings.label_depth,
            seed: settings.seed,
            validation_percent: 5,
            test_positions: Some(data.join("endgame/hard-20.obf")),
        })
    } else {
        None
    };
    // `--out FILE`: written whole by `data::write_atomically` (a failed or interrupted run
    // leaves an existing FILE as it was); checked first, so an unwritable path fails before
    // the work. `None`: stdout.
    let out = settings.out.as_ref().filter(|p| p.as_os_str() != "-");
    if let Some(out) = out {
        crate::data::check_writable(out)
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    let threads = settings.threads.unwrap_or(0);
    let built = if let Some(opts) = &opts {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .context("cannot start the solving threads")
            .and_then(|pool| pool.install(|| build(opts)))
            .map(|(lines, stats)| {
                let summary = wthor_summary(settings, opts, &stats, lines.len());
                (lines, summary)
            })
    } else {
        selfplay_set(
            &settings.selfplay,
            settings.test_every,
            settings.empties,
            settings.count,
        )
        .map(|(lines, stats)| {
            let summary = format!(
                "evalset: {} self-play games, {} test game{} (one in {} by index); {} positions with {} empties; wrote {} labelled by the games' exact results",
                stats.games,
                stats.test_games,
                if stats.test_games == 1 { "" } else { "s" },
                settings.test_every,
                stats.candidates,
                empties_name(settings.empties),
                lines.len()
            );
            (lines, summary)
        })
    };
    let (lines, summary) = built?;
    let mut text = lines.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    match out {
        Some(out) => crate::data::write_atomically(out, text.as_bytes())
            .with_context(|| format!("cannot write {}", out.display()))?,
        None => {
            let mut o = io::stdout().lock();
            match o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
                // A closed pipe (`| head`) only means nobody wants the rest.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
                r => r.context("cannot write to stdout")?,
            }
        }
    }
    eprintln!("{summary}");
    if lines.len() < settings.count {
        eprintln!(
            "evalset: note: {} positions asked, only {} exist",
            settings.count,
            lines.len()
        );
    }
    Ok(())
}

/// `14` or `30-50`.
fn empties_name((lo, hi): (u32, u32)) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}-{hi}")
    }
}

/// The summary of a WTHOR set (with a note first when no hard-20 file left games out).
fn wthor_summary(
    settings: &EvalsetSettings,
    opts: &EvalSetOptions,
    stats: &EvalSetStats,
    written: usize,
) -> String {
    let note = if opts.test_positions.as_ref().is_some_and(|p| p.exists()) {
        ""
    } else {
        "evalset: note: endgame/hard-20.obf not found, no test games left out\n"
    };
    format!(
        "{note}evalset: {} WTHOR games, {} held out (seed {}), {} of them through a hard-20 position left out; {} distinct positions with {} empties; wrote {written}{}",
        stats.games,
        stats.held_out,
        settings.seed,
        stats.test_games,
        stats.candidates,
        empties_name(settings.empties),
        match settings.label_depth {
            Some(d) => format!(" labelled by depth-{d} searches"),
            None => " solved exactly".to_string(),
        }
    )
}
