//! `flank selfplay` records: games flank plays against itself for training data, one text line
//! a game (moves, each position's search value, the game's exact value), generated in
//! parallel, deterministic per seed and game index, appended as they finish and resumable.
//!
//! A game ([`play_game`]) starts from an opening (an XOT line or a random one), plays
//! [`SelfplaySettings::noise_plies`] moves drawn from a softmax over the moves' search values
//! (temperature in discs, [`SelfplaySettings::temperature`]) so that positions are varied, then
//! the best move of a depth-[`SelfplaySettings::depth`] search, and from
//! [`SelfplaySettings::solve_empties`] empties an exact solve, whose perfect moves finish the
//! game. Every position after the opening is stored with its search value (exact once solved),
//! and the game with the exact score of its first solved position: perfect play keeps that
//! value, so it is every later position's exact value and the best known label of the earlier
//! ones (as WTHOR's theoretical score at 24 empties).
//!
//! File format, version 1 (text, `#` lines are comments):
//! ```text
//! # flank selfplay v1 seed=1 depth=8 solve-empties=22 noise-plies=10 temperature=2 openings=xot eval=trained
//! 17<TAB>8<TAB>f5f6e6f4g5d6e3g4...<TAB>+4<TAB>+1,-2,+3,...
//! ```
//! Fields: the game index (its random stream is `splitmix(seed ^ splitmix(index))`), the
//! opening's plies, the whole transcript from the start position (passes implicit), the exact
//! score from black's view, and one search value per move played after the opening (passes
//! skipped) from the view of the side that played it. The header holds every setting that
//! changes the games; a file is only ever extended with the same header.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;
use rayon::prelude::*;

use super::progress::bar;
use super::splitmix;
use crate::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use crate::notation::parse_transcript;
use crate::othello::Position;
use crate::othello::board::Score;
use crate::othello::square::{Color, Move, Square};

/// Version of the record format written in the header.
pub const FORMAT_VERSION: u32 = 1;

/// Where a game's opening comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Openings {
    /// Lines of an XOT-style file (a transcript from the start position per line), one chosen
    /// at random per game.
    File(PathBuf),
    /// [`RANDOM_OPENING_PLIES`] uniformly random moves from the start position.
    Random,
}

/// Plies of a random opening.
pub const RANDOM_OPENING_PLIES: usize = 8;

/// The settings of a self-play run; every field but `threads`, `hash_mb` and `out` is in the
/// file's header.
#[derive(Clone, Debug)]
pub struct SelfplaySettings {
    /// Seed of every random choice.
    pub seed: u64,
    /// First game index (a shard of a larger run starts here).
    pub first: u64,
    /// Games wanted: indices `first .. first + games`.
    pub games: u64,
    /// Midgame search depth of each move, in plies.
    pub depth: u32,
    /// Positions with at most this many empties are solved exactly.
    pub solve_empties: u32,
    /// Moves after the opening drawn from the softmax of their values.
    pub noise_plies: u32,
    /// Softmax temperature in discs (a move `t` discs worse is `e` times less likely).
    pub temperature: f64,
    /// The openings.
    pub openings: Openings,
    /// The openings' name in the header (`xot`, `random` or the file name).
    pub openings_name: String,
    /// The evaluation's name in the header (`trained`, `classic` or the file name).
    pub eval_name: String,
    /// Parallel games (one search thread each).
    pub threads: usize,
    /// Transposition table per game worker, in MiB.
    pub hash_mb: usize,
}

impl SelfplaySettings {
    /// The header line (without newline) that identifies the games of these settings.
    pub fn header(&self) -> String {
        format!(
            "# flank selfplay v{FORMAT_VERSION} seed={} depth={} solve-empties={} noise-plies={} temperature={} openings={} eval={}",
            self.seed,
            self.depth,
            self.solve_empties,
            self.noise_plies,
            self.temperature,
            self.openings_name,
            self.eval_name
        )
    }
}

/// One self-play game as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Game index.
    pub index: u64,
    /// Plies of the opening (the first moves of `moves`, passes included).
    pub opening_plies: usize,
    /// Every move from the start position, passes included.
    pub moves: Vec<Move>,
    /// Exact final disc difference under perfect play from the first solved position, black's
    /// view (±64).
    pub exact: Score,
    /// Search value (disc difference, side to move's view) of each position after the opening
    /// where a move was played, in order.
    pub values: Vec<Score>,
}

/// A labelled position of a record (see [`GameRecord::positions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelledPosition {
    /// The position before the move.
    pub position: Position,
    /// The move played there.
    pub played: Move,
    /// The search value, side to move's view.
    pub value: Score,
    /// The game's exact value, side to move's view.
    pub exact: Score,
}

impl GameRecord {
    /// The record's line (without newline).
    pub fn line(&self) -> String {
        let moves: String = self
            .moves
            .iter()
            .filter_map(|m| match m {
                Move::Play(s) => Some(s.to_string()),
                Move::Pass => None,
            })
            .collect();
        let values: Vec<String> = self.values.iter().map(|v| format!("{v:+}")).collect();
        format!(
            "{}\t{}\t{}\t{:+}\t{}",
            self.index,
            self.opening_plies,
            moves,
            self.exact,
            values.join(",")
        )
    }

    /// Parses a record line.
    ///
    /// # Errors
    /// A line without five tab-separated fields, an illegal transcript, or values whose count
    /// does not match the moves after the opening.
    pub fn parse(line: &str) -> Result<GameRecord> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 5 {
            bail!("expected 5 tab-separated fields, found {}", f.len());
        }
        let index: u64 = f[0].parse().context("bad game index")?;
        let opening_plies: usize = f[1].parse().context("bad opening plies")?;
        let (moves, _) = parse_transcript(f[2]).map_err(|e| anyhow::anyhow!("{e}"))?;
        let exact: Score = f[3].parse().context("bad exact score")?;
        if !(-64..=64).contains(&exact) {
            bail!("exact score {exact} out of range");
        }
        let values = if f[4].is_empty() {
            Vec::new()
        } else {
            f[4].split(',')
                .map(|v| v.parse::<Score>().context("bad value"))
                .collect::<Result<Vec<_>>>()?
        };
        if opening_plies > moves.len() {
            bail!(
                "opening of {opening_plies} plies in a game of {}",
                moves.len()
            );
        }
        let played = moves[opening_plies..]
            .iter()
            .filter(|m| **m != Move::Pass)
            .count();
        if played != values.len() {
            bail!(
                "{} values for {played} moves after the opening",
                values.len()
            );
        }
        Ok(GameRecord {
            index,
            opening_plies,
            moves,
            exact,
            values,
        })
    }

    /// Every position after the opening where a move was played, with its search value and the
    /// game's exact value, both from the side to move's view.
    pub fn positions(&self) -> Vec<LabelledPosition> {
        let mut out = Vec::with_capacity(self.values.len());
        let mut pos = Position::start();
        let mut values = self.values.iter();
        for (ply, &m) in self.moves.iter().enumerate() {
            if ply >= self.opening_plies
                && m != Move::Pass
                && let Some(&value) = values.next()
            {
                out.push(LabelledPosition {
                    position: pos,
                    played: m,
                    value,
                    exact: side_view(pos.side, self.exact),
                });
            }
            match pos.play(m) {
                Some(p) => pos = p,
                None => break,
            }
        }
        out
    }
}

/// Whether game `index` belongs to the test games of a split that holds out one game in
/// `every`: the last of each run of `every` indices (`index % every == every - 1`), so that
/// the test games are the same whichever shards a corpus has and however a training run
/// subsamples the rest (by `index % k == 0`, which never picks a test game when `k` divides
/// `every`). `every` 0: no test games.
pub fn is_test_game(index: u64, every: u64) -> bool {
    every > 0 && index % every == every - 1
}

/// `black_score` from `side`'s view.
fn side_view(side: Color, black_score: Score) -> Score {
    match side {
        Color::Black => black_score,
        Color::White => -black_score,
    }
}

/// An opening: its moves and the position they reach.
type Opening = (Vec<Move>, Position);

/// Reads an openings file (a transcript per line; `#` lines and blank lines skipped).
///
/// # Errors
/// A file that cannot be read, a bad line (with its line number), or no opening at all.
pub fn read_openings(path: &Path) -> Result<Vec<Opening>> {
    let text =
        crate::data::read_text(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = parse_transcript(line)
            .map_err(|e| anyhow::anyhow!("{}:{}: bad opening: {e}", path.display(), i + 1))?;
        out.push(parsed);
    }
    if out.is_empty() {
        bail!("{}: no openings", path.display());
    }
    Ok(out)
}

/// Searches `pos` (which has a legal move) to `depth` plies; returns (best move, value).
fn search_depth(engine: &mut Engine, pos: &Position, depth: u32) -> (Move, Score) {
    let limits = SearchLimits {
        mode: SolveMode::Midgame,
        depth: Some(depth),
        ..SearchLimits::default()
    };
    let r = engine.search(&pos.board, &limits, &mut |_| {});
    (r.best, r.score)
}

/// A move drawn from the softmax of the moves' values (each child searched to `depth - 1`
/// plies, at least 1), and the position's value (the best child's).
fn softmax_move(
    engine: &mut Engine,
    pos: &Position,
    depth: u32,
    temperature: f64,
    rng: &mut ChaCha12Rng,
) -> (Move, Score) {
    let moves: Vec<Square> = pos.board.legal_moves().collect();
    let mut scored = Vec::with_capacity(moves.len());
    for &m in &moves {
        let child = pos.board.make_move(m);
        let value = if child.is_game_over() {
            -child.final_score()
        } else {
            let limits = SearchLimits {
                mode: SolveMode::Midgame,
                depth: Some(depth.saturating_sub(1).max(1)),
                ..SearchLimits::default()
            };
            -engine.search(&child, &limits, &mut |_| {}).score
        };
        scored.push((m, value));
    }
    let best = scored.iter().map(|&(_, v)| v).max().unwrap_or(0);
    let t = temperature.max(1e-6);
    let weights: Vec<f64> = scored
        .iter()
        .map(|&(_, v)| ((v - best) as f64 / t).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.gen_range(0.0..total);
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return (Move::Play(scored[i].0), best);
        }
        x -= w;
    }
    (Move::Play(scored[scored.len() - 1].0), best)
}

/// Plays game `index` of `settings` with `engine` (cleared first) from one of `openings`
/// (`None`: a random opening). Deterministic for a given binary and evaluation.
pub fn play_game(
    engine: &mut Engine,
    settings: &SelfplaySettings,
    openings: Option<&[Opening]>,
    index: u64,
) -> GameRecord {
    engine.new_game();
    let mut rng = ChaCha12Rng::seed_from_u64(splitmix(settings.seed ^ splitmix(index)));
    let (mut moves, mut pos) = match openings {
        Some(o) => o[rng.gen_range(0..o.len())].clone(),
        None => {
            let mut pos = Position::start();
            let mut moves = Vec::new();
            for _ in 0..RANDOM_OPENING_PLIES {
                let legal: Vec<Square> = pos.board.legal_moves().collect();
                if legal.is_empty() {
                    break;
                }
                let m = Move::Play(legal[rng.gen_range(0..legal.len())]);
                pos = pos.play(m).unwrap_or(pos);
                moves.push(m);
            }
            (moves, pos)
        }
    };
    let opening_plies = moves.len();
    let mut values = Vec::new();
    let mut exact: Option<Score> = None;
    let mut played = 0u32;
    while !pos.board.is_game_over() {
        let mv = if !pos.board.has_moves() {
            Move::Pass
        } else if pos.board.empties() <= settings.solve_empties {
            let limits = SearchLimits {
                mode: SolveMode::Exact,
                ..SearchLimits::default()
            };
            let r = engine.search(&pos.board, &limits, &mut |_| {});
            exact.get_or_insert(side_view(pos.side, r.score));
            values.push(r.score);
            r.best
        } else if played < settings.noise_plies {
            let (m, v) = softmax_move(engine, &pos, settings.depth, settings.temperature, &mut rng);
            values.push(v);
            m
        } else {
            let (m, v) = search_depth(engine, &pos, settings.depth);
            values.push(v);
            m
        };
        if mv != Move::Pass {
            played += 1;
        }
        pos = match pos.play(mv) {
            Some(p) => p,
            None => break,
        };
        moves.push(mv);
    }
    GameRecord {
        index,
        opening_plies,
        moves,
        // A game that ends before the solve threshold is exact at its end.
        exact: exact.unwrap_or_else(|| side_view(pos.side, pos.board.final_score())),
        values,
    }
}

/// Reads a self-play file: its header (the first line) and its records. A file whose name
/// ends in `.gz` is read through gzip (the committed corpus shards are kept so).
///
/// # Errors
/// A file that cannot be read or decompressed, or a bad line (with its line number).
pub fn read_records(path: &Path) -> Result<(String, Vec<GameRecord>)> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let reader: Box<dyn BufRead> = if path.extension().is_some_and(|x| x == "gz") {
        Box::new(BufReader::new(flate2::read::GzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    let mut header = String::new();
    let mut records = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        if line.starts_with('#') {
            if i == 0 {
                header = line;
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let r = GameRecord::parse(&line)
            .with_context(|| format!("{}:{}: bad self-play record", path.display(), i + 1))?;
        records.push(r);
    }
    Ok((header, records))
}

/// Reads several self-play files as one corpus: each file's path and records, in order.
///
/// # Errors
/// Those of [`read_records`], or a game that two files (or one file twice) hold: the same
/// header (the same settings, so the same games) and the same index, which would count the
/// game twice in a fit or a test set.
pub fn read_corpus(files: &[PathBuf]) -> Result<Vec<(PathBuf, Vec<GameRecord>)>> {
    let mut seen: HashSet<(String, u64)> = HashSet::new();
    let mut out = Vec::with_capacity(files.len());
    for path in files {
        let (header, records) = read_records(path)?;
        if let Some(r) = records
            .iter()
            .find(|r| !seen.insert((header.clone(), r.index)))
        {
            bail!(
                "{}: game {} is already in the self-play files before it (a file given twice or overlapping shards)",
                path.display(),
                r.index
            );
        }
        out.push((path.clone(), records));
    }
    Ok(out)
}

/// What [`run`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SelfplaySummary {
    /// Games of the range already in the file (skipped).
    pub skipped: u64,
    /// Games played and appended.
    pub played: u64,
    /// Positions with a value among the games played.
    pub positions: u64,
}

/// Plays the games `settings.first .. first + games` that `out` does not hold yet and appends
/// them to `out` as they finish (creating it with its header). An interrupted run leaves at
/// most a partial last line, which the next run drops.
///
/// # Errors
/// An openings file that cannot be read, an `out` that holds games of other settings (its
/// header differs) or cannot be read or written, or threads that cannot start.
pub fn run(settings: &SelfplaySettings, out: &Path) -> Result<SelfplaySummary> {
    let openings = match &settings.openings {
        Openings::File(p) => Some(read_openings(p)?),
        Openings::Random => None,
    };
    let header = settings.header();
    let done = prepare_output(out, &header)?;
    let todo: Vec<u64> = (settings.first..settings.first + settings.games)
        .filter(|i| !done.contains(i))
        .collect();
    let skipped = settings.games - todo.len() as u64;
    let file = OpenOptions::new()
        .append(true)
        .open(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    let writer = Mutex::new(file);
    let pb = bar(todo.len() as u64, "self-play");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads)
        .build()
        .context("cannot start the self-play threads")?;
    let positions: Result<Vec<u64>> = pool.install(|| {
        todo.par_iter()
            .with_max_len(1)
            .map_init(
                || {
                    Engine::new(EngineConfig {
                        hash_mb: settings.hash_mb,
                        threads: 1,
                    })
                },
                |engine, &i| {
                    let g = play_game(engine, settings, openings.as_deref(), i);
                    let mut line = g.line();
                    line.push('\n');
                    let mut f = writer.lock().unwrap_or_else(|e| e.into_inner());
                    f.write_all(line.as_bytes())
                        .and_then(|_| f.flush())
                        .with_context(|| format!("cannot write {}", out.display()))?;
                    pb.inc(1);
                    Ok(g.values.len() as u64)
                },
            )
            .collect()
    });
    pb.finish_and_clear();
    let positions = positions?;
    Ok(SelfplaySummary {
        skipped,
        played: positions.len() as u64,
        positions: positions.iter().sum(),
    })
}

/// Makes `out` ready to be appended to: creates it with `header`, or checks that its header is
/// `header`, drops a partial last line, and returns the game indices it holds.
fn prepare_output(out: &Path, header: &str) -> Result<HashSet<u64>> {
    if out.extension().is_some_and(|x| x == "gz") {
        bail!(
            "{}: self-play appends plain text; gzip a finished file instead",
            out.display()
        );
    }
    if !out.exists() {
        std::fs::write(out, format!("{header}\n"))
            .with_context(|| format!("cannot write {}", out.display()))?;
        return Ok(HashSet::new());
    }
    let text =
        crate::data::read_text(out).with_context(|| format!("cannot read {}", out.display()))?;
    let first = text.lines().next().unwrap_or("");
    if first != header {
        bail!(
            "{} holds games of other settings ({first:?}; these are {header:?}): use another file",
            out.display()
        );
    }
    if !text.ends_with('\n') {
        // An interrupted write: keep the complete lines only.
        let keep = text.rfind('\n').map_or(0, |i| i + 1);
        let f = OpenOptions::new()
            .write(true)
            .open(out)
            .with_context(|| format!("cannot write {}", out.display()))?;
        f.set_len(keep as u64)
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    let (_, records) = read_records(out)?;
    Ok(records.iter().map(|r| r.index).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> SelfplaySettings {
        SelfplaySettings {
            seed: 3,
            first: 0,
            games: 2,
            depth: 2,
            solve_empties: 12,
            noise_plies: 4,
            temperature: 2.0,
            openings: Openings::Random,
            openings_name: "random".into(),
            eval_name: "classic".into(),
            threads: 1,
            hash_mb: 1,
        }
    }

    #[test]
    fn record_line_round_trips_and_positions_are_legal() {
        let mut engine = Engine::new(EngineConfig {
            hash_mb: 1,
            threads: 1,
        });
        let s = settings();
        let g = play_game(&mut engine, &s, None, 5);
        assert_eq!(g.opening_plies, RANDOM_OPENING_PLIES);
        let parsed = GameRecord::parse(&g.line()).unwrap();
        assert_eq!(parsed, g);
        // The game is played to the end: the final position is game over.
        let (_, end) = parse_transcript(g.line().split('\t').nth(2).unwrap()).unwrap();
        assert!(end.board.is_game_over());
        let pos = g.positions();
        assert_eq!(pos.len(), g.values.len());
        // From the solve on, every value is the game's exact value (perfect play keeps it).
        for p in pos
            .iter()
            .filter(|p| p.position.board.empties() <= s.solve_empties)
        {
            assert_eq!(p.value, p.exact, "{:?}", p.position);
        }
        // Deterministic: the same index gives the same game.
        assert_eq!(play_game(&mut engine, &s, None, 5), g);
    }

    #[test]
    fn test_games_are_the_last_of_each_run_of_every() {
        let test: Vec<u64> = (0..60).filter(|&i| is_test_game(i, 20)).collect();
        assert_eq!(test, vec![19, 39, 59]);
        assert!((0..100).all(|i| !is_test_game(i, 0)));
        assert!((0..100).all(|i| is_test_game(i, 1)));
    }

    #[test]
    fn bad_lines_are_rejected() {
        assert!(GameRecord::parse("1\t0\tf5d6\t+2").is_err());
        assert!(GameRecord::parse("1\t0\tf5a1\t+2\t+1,+1").is_err());
        assert!(GameRecord::parse("1\t0\tf5d6\t+2\t+1").is_err());
        assert!(GameRecord::parse("1\t0\tf5d6\t+99\t+1,+1").is_err());
        assert!(GameRecord::parse("1\t0\tf5d6\t+2\t+1,+1").is_ok());
    }
}
