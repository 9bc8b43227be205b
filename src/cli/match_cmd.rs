//! `flank match`: the settings of a match between two engines (GTP or NBoard) turned into a
//! [`MatchSpec`] (engine command lines and protocols, openings, handicap, SPRT, stakes,
//! names), the match run with one line per game on stdout, and its summary as text or JSON.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};

use crate::data::data_file;
use crate::matchplay::child::{kill_all_engines, split_command};
use crate::matchplay::nboard_process::{self, NBoardProcess};
use crate::matchplay::player::{Fault, Player};
use crate::matchplay::process::GtpProcess;
use crate::matchplay::referee::RefereeConfig;
use crate::matchplay::runner::{self, GameReport, MatchSpec, Opening, Side};
use crate::matchplay::stakes::parse_stake;
use crate::matchplay::stats::Sprt;
use crate::notation::clip;
use crate::othello::game::handicap_position;
use crate::othello::position::Position;
use crate::othello::square::Color;

/// The protocol an engine of `flank match` speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineProtocol {
    /// GTP ([`GtpProcess`]).
    #[default]
    Gtp,
    /// NBoard version 2 ([`NBoardProcess`], sent `set depth` [`nboard_process::DEFAULT_DEPTH`]).
    NBoard,
}

/// The settings of `flank match` (see `docs/match.md`).
#[derive(Clone, Debug)]
pub struct MatchSettings {
    /// Player A's engine command line, split like a shell would.
    pub engine_a: String,
    /// Player B's engine command line.
    pub engine_b: String,
    /// The protocol player A's engine speaks (`--protocol-a`).
    pub protocol_a: EngineProtocol,
    /// The protocol player B's engine speaks (`--protocol-b`).
    pub protocol_b: EngineProtocol,
    /// A's name in records (`None`: the engine's `name` answer with -A appended).
    pub name_a: Option<String>,
    /// B's name in records (`None`: the engine's `name` answer with -B appended).
    pub name_b: Option<String>,
    /// Openings: a file with one transcript per line, or `xot` / `xot-large` (the data
    /// directory's XOT lists); `None`: the built-in openings (with a handicap: the handicap
    /// position itself).
    pub openings: Option<String>,
    /// Games to play (`None`: every opening twice).
    pub games: Option<u64>,
    /// Games played at once (`None`: [`runner::default_concurrency`]).
    pub concurrency: Option<usize>,
    /// Each player's clock for the whole game, ms.
    pub time_ms: u64,
    /// Player A's clock in ms, overriding `time_ms` for A only (time odds).
    pub time_a_ms: Option<u64>,
    /// Player B's clock in ms, overriding `time_ms` for B only.
    pub time_b_ms: Option<u64>,
    /// Send `time_settings`/`time_left` in seconds with millisecond precision.
    pub decimal_time: bool,
    /// Append each game as one GGF line to this file.
    pub ggf: Option<PathBuf>,
    /// Print the summary (with every game) as JSON on stdout instead of text.
    pub json: bool,
    /// Stop early by SPRT: `elo0,elo1,alpha,beta`.
    pub sprt: Option<String>,
    /// Play rounds until a player has this many points.
    pub target_points: Option<u32>,
    /// Play for this stake per game (text such as `5.00`).
    pub stake: Option<String>,
    /// Let each player offer a draw through `flank-draw_offer`.
    pub draw_offers: bool,
    /// Ask about draws only with at most this many empty squares.
    pub draw_offer_empties: u32,
    /// Corners (1-4) given to `handicap_side` before each game.
    pub handicap: Option<u32>,
    /// The player receiving the handicap corners.
    pub handicap_side: Side,
}

/// Runs `flank match` with `settings`. Ctrl-C or SIGTERM ends every engine's process group
/// and exits with status 130.
///
/// # Errors
/// A signal handler that cannot be installed, an engine command line that cannot be split,
/// openings that cannot be read or parsed, a bad SPRT, stake or name, the match's own errors
/// (an engine that cannot start, ...), or a failed write to stdout.
pub fn run_match(settings: MatchSettings) -> Result<()> {
    let args = settings;
    // Ctrl-C / SIGTERM: end every engine's process group, then exit 130 (128 + SIGINT).
    ctrlc::set_handler(|| {
        let n = kill_all_engines();
        eprintln!("flank: match interrupted; killed {n} engine process group(s)");
        std::process::exit(130);
    })
    .context("cannot install the SIGINT/SIGTERM handler")?;
    let argv = [
        split_command(&args.engine_a).map_err(|e| anyhow!("--engine-a: {e}"))?,
        split_command(&args.engine_b).map_err(|e| anyhow!("--engine-b: {e}"))?,
    ];
    let openings = openings(args.openings.as_deref(), args.handicap)?;
    let sprt = args
        .sprt
        .as_deref()
        .map(Sprt::parse)
        .transpose()
        .map_err(|e| anyhow!(e))?;
    for (flag, name) in [("--name-a", &args.name_a), ("--name-b", &args.name_b)] {
        if let Some(n) = name
            && n.chars().any(char::is_control)
        {
            return Err(anyhow!(
                "{flag}: control characters (newline, tab, escape) are not allowed in names"
            ));
        }
        if let Some(n) = name
            && n.trim().is_empty()
        {
            return Err(anyhow!(
                "{flag}: empty name (leave the option out for the engine's own name)"
            ));
        }
    }
    if let (Some(a), Some(b)) = (&args.name_a, &args.name_b)
        && a == b
    {
        return Err(anyhow!(
            "--name-a and --name-b are both '{}': the players' names must differ",
            clip(a)
        ));
    }
    let stake = args
        .stake
        .as_deref()
        .map(parse_stake)
        .transpose()
        .map_err(|e| anyhow!("--stake: {e}"))?;
    let spec = MatchSpec {
        games: args.games,
        concurrency: args.concurrency.unwrap_or_else(runner::default_concurrency),
        time_ms: [
            args.time_a_ms.unwrap_or(args.time_ms),
            args.time_b_ms.unwrap_or(args.time_ms),
        ],
        openings,
        referee: RefereeConfig {
            draw_offers: args.draw_offers,
            offer_max_empties: args.draw_offer_empties,
            command_timeout: runner::COMMAND_TIMEOUT,
            ..RefereeConfig::default()
        },
        handicap: args.handicap.map(|n| (args.handicap_side, n)),
        sprt,
        target_points: args.target_points,
        stake,
        names: [
            args.name_a.unwrap_or_default(),
            args.name_b.unwrap_or_default(),
        ],
        ggf: args.ggf,
        // indicatif draws only when stderr is a terminal.
        progress: true,
    };
    // One-line notes on schedules that are not balanced.
    if let Some(n) = args.games {
        if n % 2 == 1 {
            eprintln!(
                "flank: note: --games {n} is odd, so colours are unbalanced (A plays black once more)"
            );
        }
        if n > 2 * spec.openings.len() as u64 {
            eprintln!(
                "flank: note: --games {n} exceeds 2 x {} openings, so openings repeat",
                spec.openings.len()
            );
        }
    }
    let decimal_time = args.decimal_time;
    let protocols = [args.protocol_a, args.protocol_b];
    let factory = |side: Side| -> Result<Box<dyn Player>, Fault> {
        let k = match side {
            Side::A => 0,
            Side::B => 1,
        };
        Ok(match protocols[k] {
            EngineProtocol::Gtp => {
                let mut p = GtpProcess::start(argv[k].clone())?;
                p.set_decimal_time(decimal_time);
                Box::new(p)
            }
            EngineProtocol::NBoard => Box::new(NBoardProcess::start(
                argv[k].clone(),
                nboard_process::DEFAULT_DEPTH,
            )?),
        })
    };
    let json = args.json;
    // A failed write of a game line (stdout closed: `flank match ... | head -1`) stops the
    // match; the error is kept so that a broken pipe ends quietly, as in `flank solve`.
    let mut write_error: Option<io::Error> = None;
    let mut on_game = |spec: &MatchSpec, r: &GameReport| -> Result<(), String> {
        if json {
            return Ok(());
        }
        let mut out = io::stdout().lock();
        writeln!(out, "{}", runner::game_line(spec, r))
            .and_then(|_| out.flush())
            .map_err(|e| {
                let text = format!("cannot write to stdout: {e}");
                write_error = Some(e);
                text
            })
    };
    let result = runner::run_match(&spec, &factory, &mut on_game);
    if let Some(e) = write_error {
        return Err(e.into());
    }
    let summary = result.map_err(|e| anyhow!(e))?;
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &summary).map_err(io::Error::from)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", runner::summary_text(&summary))?;
    }
    out.flush()?;
    Ok(())
}

/// The openings of a match: `name` is `None` (the built-in openings; with a handicap of `n`
/// corners, the handicap position itself), `xot` / `xot-large` (the data directory's
/// `openings/xot_small.txt` / `xot_large.txt`) or a file with one transcript per line. With
/// a handicap an opening must be legal whichever colour holds the corners; the others are
/// skipped with a note on stderr.
///
/// # Errors
/// A handicap position that cannot be set up, an XOT list not found, a file that cannot be
/// read, an opening that cannot be parsed (naming the file).
fn openings(name: Option<&str>, handicap: Option<u32>) -> Result<Vec<Opening>> {
    let starts = match handicap {
        Some(n) => vec![
            handicap_position(Color::White, n)?,
            handicap_position(Color::Black, n)?,
        ],
        None => vec![Position::start()],
    };
    let start = starts[0];
    Ok(match name {
        None if handicap.is_some() => {
            vec![runner::parse_opening(start, "").map_err(|e| anyhow!(e))?]
        }
        None => runner::BUILTIN_OPENINGS
            .iter()
            .map(|t| runner::parse_opening(start, t))
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow!(e))?,
        Some(name) => {
            let path = match name {
                "xot" | "xot-large" => {
                    let file = if name == "xot" {
                        "openings/xot_small.txt"
                    } else {
                        "openings/xot_large.txt"
                    };
                    data_file(file).map_err(|e| anyhow!("--openings {name}: {e}"))?
                }
                _ => PathBuf::from(name),
            };
            let text = crate::data::read_text(&path)
                .with_context(|| format!("cannot read openings {}", path.display()))?;
            match handicap {
                Some(n) => {
                    let (kept, skipped) = runner::parse_openings_for_handicap(&starts, &text)
                        .map_err(|e| {
                            anyhow!("openings {} (with --handicap {n}): {e}", path.display())
                        })?;
                    if skipped > 0 {
                        eprintln!(
                            "flank: skipped {skipped} of {} openings in {} that cannot be played with --handicap {n}",
                            skipped + kept.len(),
                            path.display()
                        );
                    }
                    kept
                }
                None => runner::parse_openings(start, &text)
                    .map_err(|e| anyhow!("openings {}: {e}", path.display()))?,
            }
        }
    })
}
