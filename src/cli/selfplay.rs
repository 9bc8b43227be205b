//! `flank selfplay`: plays training games (see [`crate::train::selfplay_records`]) and
//! appends them to a file; the summary goes to stderr.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::data::data_root;
use crate::train::selfplay_records::{Openings, SelfplaySettings, run};

/// The options of `flank selfplay` as given on the command line.
#[derive(Clone, Debug)]
pub struct SelfplayOptions {
    /// Output file (created, or extended with the same settings).
    pub out: PathBuf,
    /// Games to play.
    pub games: u64,
    /// First game index.
    pub first: u64,
    /// Seed.
    pub seed: u64,
    /// Search depth per move, in plies.
    pub depth: u32,
    /// Exact solve from this many empties.
    pub solve_empties: u32,
    /// Softmax-noisy moves after the opening.
    pub noise_plies: u32,
    /// Softmax temperature in discs.
    pub temperature: f64,
    /// `xot`, `random` or a file of transcripts.
    pub openings: String,
    /// Games at once.
    pub threads: usize,
    /// Table per game, in MiB.
    pub hash_mb: usize,
    /// The `--eval` given (`None`: the built-in weights).
    pub eval: Option<String>,
}

/// Runs `flank selfplay`.
///
/// # Errors
/// `xot` without a data directory, an openings file that cannot be read, an output file that
/// holds games of other settings or cannot be written.
pub fn run_selfplay(o: &SelfplayOptions) -> Result<()> {
    let (openings, openings_name) = match o.openings.as_str() {
        "random" => (Openings::Random, "random".to_string()),
        "xot" => {
            let data = data_root().map_err(anyhow::Error::msg)?;
            (
                Openings::File(data.join("openings/xot_large.txt")),
                "xot".to_string(),
            )
        }
        file => (
            Openings::File(PathBuf::from(file)),
            file_name(Path::new(file)),
        ),
    };
    let eval_name = match o.eval.as_deref() {
        None | Some("trained") => "trained".to_string(),
        Some("classic") => "classic".to_string(),
        Some(f) => file_name(Path::new(f)),
    };
    let settings = SelfplaySettings {
        seed: o.seed,
        first: o.first,
        games: o.games,
        depth: o.depth,
        solve_empties: o.solve_empties,
        noise_plies: o.noise_plies,
        temperature: o.temperature,
        openings,
        openings_name,
        eval_name,
        threads: o.threads,
        hash_mb: o.hash_mb,
    };
    let start = std::time::Instant::now();
    let s = run(&settings, &o.out)?;
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "selfplay: {} games played ({} positions) in {:.1} s, {:.2} games/s; {} already in {}",
        s.played,
        s.positions,
        secs,
        s.played as f64 / secs.max(1e-9),
        s.skipped,
        o.out.display()
    );
    Ok(())
}

/// The last component of `p` (the whole path if it has none), for a header.
fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
