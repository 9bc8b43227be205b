//! `flank train`: builds the pattern weights from WTHOR games and flank's own self-play games.
//!
//! Pipeline ([`run_train`]):
//! 1. **WTHOR** ([`load_wthor`]): every `.wtb` file under `$FLANK_DATA/games/wthor` is read
//!    with the `wthor` crate and replayed. Each game records the perfect-play score from 24
//!    empties (the "theoretical score"). Positions with ≥ 24 empties are labelled with it (the
//!    standard approximation: the score the game would end with if both sides played
//!    perfectly from 24 empties on); positions with at most
//!    [`TrainOptions::wthor_solve_empties`] empties are solved exactly by flank's solver, and
//!    the positions in between get a label interpolated by empties between the two. Optional
//!    random deviations ([`TrainOptions::deviation_plies`]) add solved positions after random
//!    moves. Games through a position of the evaluation's test set
//!    ([`TrainOptions::test_positions`], `endgame/hard-20.obf`) are left out.
//! 2. **Self-play** ([`selfplay`]): games from XOT openings (`openings/xot_large.txt`; random
//!    8-ply openings if missing) played by flank at a fixed depth with the active evaluator
//!    (`flank train` uses the classic one unless `--eval` says otherwise), with 10 % random
//!    moves. At [`TrainOptions::solve_empties`] and below every position is solved exactly
//!    by flank's solver (its label is its exact score); earlier positions get the exact score
//!    of the first solved position (as WTHOR's theoretical score).
//! 3. **Search leaves** ([`leaf_samples`]): positions with 2-9 empties reached by random and
//!    greedy walks from the training positions, solved exactly: the kind of position a
//!    depth-limited search evaluates at its leaves.
//! 4. **Fit** ([`fit`]): per phase, regularised least squares on the compact features of
//!    [`crate::eval::pattern`] (ridge towards the neighbouring phase's weights, which smooths across
//!    phases), solved by Jacobi-preconditioned conjugate gradients on the normal equations,
//!    with the samples of the phase's empties plus half a phase either side; rayon over fixed
//!    sample chunks, summed in a fixed order, so the result does not depend on the thread
//!    count. 8-fold symmetry augmentation is implicit: the features of a position and of its
//!    7 symmetric images are the same multiset. A held-out validation split (by game) is
//!    evaluated per phase with the quantised weights exactly as the search sees them. Each
//!    empties count contributes at most [`LINEAR_CAP`] training samples (evenly spaced), so
//!    the many search leaves the nets need do not slow the linear fit or swell its memory.
//! 5. **Residual nets** ([`train_nets`]): one per empties count in
//!    [`TrainOptions::net_empties`] (2-9 by default, where exact labels are plentiful and a
//!    depth-limited search puts its leaves near the end of the game; a net of its own per
//!    count learns the parity of the empties), and one per phase in
//!    [`TrainOptions::net_phases`] (none by default), a small network ([`crate::eval::net`]) on
//!    the same features is fitted by SGD to what the linear fit leaves (`label − linear
//!    evaluation`); it captures interactions between patterns that a sum of weights cannot
//!    (held-out error at 5 empties 5.02 -> 3.76 discs). `--base FILE` skips the linear fit
//!    and trains only the nets on top of FILE's linear weights.
//!
//! Everything is deterministic from [`TrainOptions::seed`] and the binary: the search-leaf
//! walks follow [`TrainOptions::leaf_eval`] (the built-in weights by default), and the exact
//! solver's choice between equally good self-play moves may change with the solver's move
//! ordering, so a newer binary retrains weights of the same quality, not the same bytes.

pub mod calibrate;
pub mod evalset;

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use crate::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use crate::eval::net::{FloatNet, HIDDEN, Nets, PhaseNet, empties_slot, slot_empties};
use crate::eval::pattern::{
    FEATURES_PER_POSITION, LAYOUT, NUM_PHASES, PHASE_WIDTH, PatternEval, SCALE, compact_features,
    phase,
};
use crate::eval::weights;
use crate::eval::{Evaluator, classic};
use crate::notation::{parse_problem_line, parse_transcript};
use crate::othello::Position;
use crate::othello::board::{Board, Score, Symmetry};
use crate::othello::square::{Color, Move, Square};

/// Settings of a training run.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The shared data directory (`$FLANK_DATA`).
    pub data_dir: PathBuf,
    /// Where the weights file is written.
    pub out: PathBuf,
    /// Seed of every random choice (split, openings, random moves).
    pub seed: u64,
    /// Use at most this many WTHOR games (an evenly spaced subset); `None` = all.
    pub wthor_games: Option<usize>,
    /// Self-play games to play.
    pub selfplay_games: usize,
    /// Midgame search depth of the self-play moves, in plies.
    pub selfplay_depth: u32,
    /// Self-play positions with at most this many empties are solved exactly.
    pub solve_empties: u32,
    /// WTHOR positions with at most this many empties are solved exactly.
    pub wthor_solve_empties: u32,
    /// Random deviations: from every solved WTHOR position, this many random legal moves
    /// (the first one differs from the game's move when it can) are played and each position
    /// reached is solved and kept as a sample, so that the training set also holds the
    /// positions after weak moves that a search tree is full of.
    pub deviation_plies: u32,
    /// Search-leaf samples ([`leaf_samples`]): positions with [`LEAF_EMPTIES`] empties reached
    /// by random and greedy walks from training positions, solved exactly.
    pub leaf_samples: usize,
    /// The evaluation whose greedy moves the search-leaf walks follow: `classic`, `trained`
    /// (the weights built into the binary; the default) or a weights file.
    pub leaf_eval: String,
    /// The evaluation's test set (`$FLANK_DATA/endgame/hard-20.obf` by default): WTHOR games
    /// passing through any of its positions (in any of the 8 symmetries) are left out, so the
    /// figures measured on it are not measured on training games. A missing file leaves out
    /// nothing.
    pub test_positions: Option<PathBuf>,
    /// Conjugate-gradient iterations per phase (at most).
    pub iterations: usize,
    /// A file caching the labelled samples: read if it exists (skipping WTHOR and self-play),
    /// written after labelling otherwise.
    pub samples_cache: Option<PathBuf>,
    /// Ridge strength: pseudo-observations pulling each weight towards its neighbour phase's.
    pub lambda: f64,
    /// Percentage of games held out for validation.
    pub validation_percent: u64,
    /// Take the linear pattern weights from this weights file instead of fitting them (only
    /// the residual nets are trained).
    pub base: Option<PathBuf>,
    /// Phases that get a residual net ([`crate::eval::net`]) on top of the linear fit, for all
    /// their empties; empty: none.
    pub net_phases: Vec<usize>,
    /// Empties counts (0-60) that get a residual net of their own, which takes precedence
    /// over a phase net at that count ([`crate::eval::net::Nets::for_empties`]); empty: none.
    pub net_empties: Vec<u32>,
    /// Hidden units of the nets this run trains (one of [`crate::eval::net::WIDTHS`]).
    pub net_hidden: usize,
    /// Extra search-leaf walks ([`leaf_samples`]) ending at the [`TrainOptions::net_empties`]
    /// counts, for the nets only (the linear fit never sees them; not cached); 0 = none.
    pub net_leaf_samples: usize,
    /// SGD epochs per net.
    pub net_epochs: usize,
    /// SGD learning rate at the start (decays linearly to a tenth).
    pub net_rate: f32,
}

impl TrainOptions {
    /// The full run (all WTHOR games, 4,000 self-play games).
    pub fn full(data_dir: PathBuf, out: PathBuf) -> TrainOptions {
        TrainOptions {
            test_positions: Some(data_dir.join("endgame/hard-20.obf")),
            data_dir,
            out,
            seed: 1,
            wthor_games: None,
            selfplay_games: 4000,
            selfplay_depth: 4,
            solve_empties: 16,
            wthor_solve_empties: 14,
            deviation_plies: 0,
            leaf_samples: 48_000_000,
            leaf_eval: "trained".into(),
            iterations: 60,
            lambda: 20.0,
            samples_cache: None,
            validation_percent: 5,
            base: None,
            net_phases: Vec::new(),
            net_empties: (2..=9).collect(),
            net_hidden: HIDDEN,
            net_leaf_samples: 0,
            net_epochs: 12,
            net_rate: 0.001,
        }
    }

    /// `--quick`: a small subset for CI and tests (well under 2 minutes on 2 cores).
    pub fn quick(data_dir: PathBuf, out: PathBuf) -> TrainOptions {
        TrainOptions {
            wthor_games: Some(6000),
            selfplay_games: 100,
            selfplay_depth: 2,
            solve_empties: 12,
            wthor_solve_empties: 10,
            iterations: 30,
            leaf_samples: 5_000,
            ..TrainOptions::full(data_dir, out)
        }
    }
}

/// One labelled training position.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The position, side to move's view.
    pub board: Board,
    /// Target: final disc difference for the side to move under (approximately) perfect play.
    pub label: i8,
    /// Game number (WTHOR games first, then self-play), for the validation split.
    pub game: u32,
}

/// Counts from reading WTHOR.
#[derive(Clone, Debug, Default)]
pub struct WthorStats {
    /// `.wtb` files read.
    pub files: usize,
    /// Games in those files.
    pub games: usize,
    /// Games used (after the subset).
    pub used: usize,
    /// Games dropped: an illegal move, or a theoretical score out of range.
    pub bad: usize,
    /// Games left out because they pass through a test position
    /// ([`TrainOptions::test_positions`]).
    pub test_games: usize,
    /// Games whose final score equals the theoretical score.
    pub exact_tail: usize,
    /// Labelled positions.
    pub positions: usize,
}

pub(crate) fn bar(len: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if !std::io::stderr().is_terminal() {
        // indicatif hides bars off a terminal; a log still gets a line now and then.
        pb.set_draw_target(ProgressDrawTarget::term_like_with_hz(
            Box::new(LogLines::default()),
            1,
        ));
    }
    pb.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} {elapsed}<{eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb.set_message(what.to_string());
    pb
}

/// A progress target for stderr when it is not a terminal (a log file, a pipe): indicatif's
/// redraws are collected and each bar's text is written as a plain line at most every
/// [`LOG_LINE_INTERVAL`] (the first after one interval), with no cursor movement.
#[derive(Debug, Default)]
struct LogLines {
    /// The text of the redraw being written, and when a line was last printed (or the bar
    /// first drawn).
    state: std::sync::Mutex<(String, Option<Instant>)>,
}

/// Time between two progress lines of [`LogLines`].
const LOG_LINE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(60);

impl LogLines {
    fn push(&self, text: &str) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.0.push_str(text);
    }
}

impl indicatif::TermLike for LogLines {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, line: &str) -> std::io::Result<()> {
        // Lines of one redraw are joined by a space into one log line.
        self.push(&format!("{line} "));
        Ok(())
    }
    fn write_str(&self, text: &str) -> std::io::Result<()> {
        self.push(text);
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        let now = Instant::now();
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let text = std::mem::take(&mut st.0);
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        match st.1 {
            None => st.1 = Some(now),
            Some(t) if now.duration_since(t) >= LOG_LINE_INTERVAL => {
                st.1 = Some(now);
                eprintln!("{text}");
            }
            Some(_) => {}
        }
        Ok(())
    }
}

/// The engine of one labelling worker: 1 thread, an 8 MiB TT.
pub(crate) fn worker_engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 8,
        threads: 1,
    })
}

/// SplitMix64's output function (Steele, Lea & Flood 2014): a well-mixed `u64` from `x`,
/// the seeded pseudo-random step of training and calibration sampling.
pub(crate) fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Replays one WTHOR game. Returns the positions before each move (passes inserted as
/// needed) and black's final disc difference if the game ran to its end; `None` if a move is
/// illegal.
pub fn replay_wthor(
    moves: &[wthor::game_archive::Position],
) -> Option<(Vec<Position>, Option<Score>)> {
    let mut pos = Position::start();
    let mut out = Vec::with_capacity(60);
    for m in moves {
        if m.rank > 7 || m.file > 7 {
            return None;
        }
        if !pos.board.has_moves() {
            if pos.board.is_game_over() {
                return None;
            }
            pos = pos.play(Move::Pass)?;
        }
        out.push(pos);
        pos = pos.play(Move::Play(Square::from_index(m.rank * 8 + m.file)))?;
    }
    let fin = pos
        .board
        .is_game_over()
        .then(|| black_view(pos.side, pos.board.final_score()));
    Some((out, fin))
}

fn black_view(side: Color, score: Score) -> Score {
    match side {
        Color::Black => score,
        Color::White => -score,
    }
}

/// The `.wtb` files of `dir`, sorted by name.
pub fn wthor_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read WTHOR directory {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("wtb")))
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no .wtb files in {}", dir.display());
    }
    Ok(files)
}

/// The positions of an OBF test file (`path`) in all 8 symmetries, as (player, opponent)
/// bitboards: games through them are left out of training. A missing file gives an empty
/// set; an unreadable or malformed one is an error.
pub fn load_test_positions(path: &Path) -> Result<HashSet<(u64, u64)>> {
    let mut set = HashSet::new();
    if !path.exists() {
        return Ok(set);
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    for (i, line) in text.lines().enumerate() {
        let problem = parse_problem_line(line)
            .map_err(|e| anyhow::anyhow!("{} line {}: {e}", path.display(), i + 1))?;
        if let Some(p) = problem {
            for s in Symmetry::ALL {
                let b = p.position.board.transform(s);
                set.insert((b.player, b.opponent));
            }
        }
    }
    Ok(set)
}

/// Reads every game of the `.wtb` files of `dir` (in file-name order, so a game's index is
/// its game number); returns the file count and the games.
pub fn read_wthor_games(dir: &Path) -> Result<(usize, Vec<wthor::game_archive::Game>)> {
    let files = wthor_files(dir)?;
    let mut games = Vec::new();
    let pb = bar(files.len() as u64, "wthor");
    for f in &files {
        let bytes = std::fs::read(f).with_context(|| format!("cannot read {}", f.display()))?;
        let archive = wthor::parse::<wthor::game_archive::GameArchive>(&bytes)
            .map_err(|e| anyhow::anyhow!("bad WTHOR file {}: {e:?}", f.display()))?;
        games.extend(archive.games);
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok((files.len(), games))
}

/// Reads and labels WTHOR games (see the module header). `limit` keeps an evenly spaced
/// subset of that many games; games through a position of `test` are left out. Game numbers
/// start at 0.
pub fn load_wthor(
    dir: &Path,
    limit: Option<usize>,
    solve_empties: u32,
    deviation_plies: u32,
    test: &HashSet<(u64, u64)>,
) -> Result<(Vec<Sample>, WthorStats)> {
    let (files, mut games) = read_wthor_games(dir)?;
    let mut stats = WthorStats {
        files,
        games: games.len(),
        ..WthorStats::default()
    };
    if let Some(n) = limit
        && n < games.len()
    {
        let step = games.len() as f64 / n as f64;
        games = (0..n)
            .map(|i| games[(i as f64 * step) as usize].clone())
            .collect();
    }
    stats.used = games.len();
    let pb = bar(games.len() as u64, "wthor");
    let per_game: Vec<GameLabels> = games
        .par_iter()
        .enumerate()
        .map_init(worker_engine, |engine, (gi, g)| {
            pb.inc(1);
            if !test.is_empty()
                && replay_wthor(&g.moves).is_some_and(|(ps, _)| {
                    ps.iter()
                        .any(|p| test.contains(&(p.board.player, p.board.opponent)))
                })
            {
                return GameLabels::Test;
            }
            match label_wthor_game(engine, g, gi as u32, solve_empties, deviation_plies) {
                Some((s, tail)) => GameLabels::Used(s, tail),
                None => GameLabels::Bad,
            }
        })
        .collect();
    pb.finish_and_clear();
    let mut samples = Vec::new();
    for r in per_game {
        match r {
            GameLabels::Bad => stats.bad += 1,
            GameLabels::Test => stats.test_games += 1,
            GameLabels::Used(s, tail) => {
                stats.exact_tail += tail as usize;
                samples.extend(s);
            }
        }
    }
    stats.positions = samples.len();
    Ok((samples, stats))
}

/// What became of one WTHOR game.
enum GameLabels {
    /// Unusable (an illegal move, a theoretical score out of range).
    Bad,
    /// Left out: it passes through a test position.
    Test,
    /// Its labelled positions, and whether its final score equals the theoretical one.
    Used(Vec<Sample>, bool),
}

/// Labels the positions of one WTHOR game (see the module header): `None` if the game is
/// unusable. Also says whether the final score equals the theoretical score.
fn label_wthor_game(
    engine: &mut Engine,
    g: &wthor::game_archive::Game,
    game: u32,
    solve_empties: u32,
    deviation_plies: u32,
) -> Option<(Vec<Sample>, bool)> {
    if g.theoretical_score > 64 {
        return None;
    }
    let t = 2 * g.theoretical_score as Score - 64;
    let (positions, fin) = replay_wthor(&g.moves)?;
    let exact_tail = fin == Some(t);
    engine.new_game();
    let exact = SearchLimits {
        mode: SolveMode::Exact,
        ..SearchLimits::default()
    };
    // Exact scores (black's view) of the positions with few empties.
    let solved: Vec<Option<Score>> = positions
        .iter()
        .map(|p| {
            (p.board.empties() <= solve_empties).then(|| {
                let r = engine.search(&p.board, &exact, &mut |_| {});
                black_view(p.side, r.score)
            })
        })
        .collect();
    let anchor = solved.iter().flatten().next().copied();
    let mut deviations = Vec::new();
    for (ply, (p, s)) in positions.iter().zip(&solved).enumerate() {
        if s.is_none() || deviation_plies == 0 {
            continue;
        }
        let played = g.moves.get(ply).map(|m| m.rank * 8 + m.file);
        let mut rng = splitmix(((game as u64) << 8) ^ ply as u64 ^ 0xD1B5_4A32_D192_ED03);
        let mut b = p.board;
        for d in 0..deviation_plies {
            if b.is_game_over() {
                break;
            }
            if !b.has_moves() {
                b = b.pass();
            }
            let mut moves = b.moves();
            if d == 0
                && let Some(x) = played
                && moves.count_ones() > 1
            {
                moves &= !(1u64 << x);
            }
            rng = splitmix(rng);
            let k = (rng % moves.count_ones() as u64) as u32;
            let mut m = moves;
            for _ in 0..k {
                m &= m - 1;
            }
            b = b.make_move(Square::from_index(m.trailing_zeros() as u8));
            if b.is_game_over() {
                break;
            }
            if !b.has_moves() {
                b = b.pass();
            }
            let r = engine.search(&b, &exact, &mut |_| {});
            deviations.push(Sample {
                board: b,
                label: r.score as i8,
                game,
            });
        }
    }
    let samples = positions
        .iter()
        .zip(&solved)
        .map(|(p, s)| {
            let e = p.board.empties();
            let black = match (s, anchor) {
                (Some(v), _) => *v,
                _ if e >= 24 => t,
                // Between the anchors: interpolate by empties.
                (None, Some(a)) => {
                    let span = (24 - solve_empties) as i32;
                    let k = e as i32 - solve_empties as i32;
                    a + ((t - a) * k + span / 2) / span
                }
                (None, None) => t,
            };
            Sample {
                board: p.board,
                label: black_view(p.side, black) as i8,
                game,
            }
        })
        .chain(deviations)
        .collect();
    Some((samples, exact_tail))
}

/// Empties of the search-leaf samples (inclusive range).
pub const LEAF_EMPTIES: (u32, u32) = (2, 9);

/// Training samples per empties count the linear fit uses at most (evenly spaced over the
/// samples of that count): the search leaves (6 M per count at 2-9 empties by default) are
/// for the nets; the linear fit gained nothing from more than about 1 M per count (session 4:
/// 1.5 M and 5.9 M leaves at 3-8 empties fitted equally well).
pub const LINEAR_CAP: usize = 1_250_000;

/// Empties of the positions the search-leaf walks start from (inclusive range).
pub const LEAF_ROOT_EMPTIES: (u32, u32) = (9, 22);

/// Search-leaf samples: `opts.leaf_samples` positions of the kind a depth-limited search
/// evaluates at its leaves, solved exactly.
///
/// Game positions are what good players reach; the leaves of a search tree are mostly
/// positions after one side's weak moves (every move is tried, most are refuted), and the
/// evaluation trained on game positions alone is about a disc worse on them (mean absolute
/// error at 5 empties: 4.7 on game positions, 5.3-5.8 on such leaves). Sample `i` starts
/// from a training position with [`LEAF_ROOT_EMPTIES`] empties picked by a hash of the seed
/// and `i`, and walks down to a target in [`LEAF_EMPTIES`]: half of the walks play uniformly
/// random moves, the other half mostly greedy moves by `policy` (with a little noise, and one
/// move in four random). The position reached is solved exactly and keeps the root's game
/// number (so the validation split is by game as for the rest). Deterministic from the seed
/// and `policy`, whatever the thread count (every walk has its own hash-derived random
/// stream, labels are exact).
///
/// The greedy walks follow the evaluation a search would use ([`TrainOptions::leaf_eval`],
/// the built-in trained weights by default), so the samples resemble the leaves its own
/// search visits: on hard-20 at depth 15, walks greedy by the trained evaluation gave 73.2 %
/// best moves, walks greedy by the classic one 71.4 % (against 70.7 % without leaf samples).
pub fn leaf_samples(samples: &[Sample], opts: &TrainOptions, policy: &Evaluator) -> Vec<Sample> {
    let targets: Vec<u32> = (LEAF_EMPTIES.0..=LEAF_EMPTIES.1).collect();
    leaf_walks(
        samples,
        opts,
        policy,
        opts.leaf_samples,
        &targets,
        0x1EAF_5A3B_7E11_D00D,
    )
}

/// `count` search-leaf walks as in [`leaf_samples`], each to a target drawn uniformly from
/// `targets`, with their own random streams named by `stream` (another stream gives other
/// walks from the same seed).
pub fn leaf_walks(
    samples: &[Sample],
    opts: &TrainOptions,
    policy: &Evaluator,
    count: usize,
    targets: &[u32],
    stream: u64,
) -> Vec<Sample> {
    let roots: Vec<&Sample> = samples
        .iter()
        .filter(|s| {
            let e = s.board.empties();
            (LEAF_ROOT_EMPTIES.0..=LEAF_ROOT_EMPTIES.1).contains(&e) && s.board.has_moves()
        })
        .collect();
    if roots.is_empty() || count == 0 || targets.is_empty() {
        return Vec::new();
    }
    let exact = SearchLimits {
        mode: SolveMode::Exact,
        ..SearchLimits::default()
    };
    let pb = bar(count as u64, "leaves");
    let out: Vec<Option<Sample>> = (0..count)
        .into_par_iter()
        .map_init(worker_engine, |engine, i| {
            if i % 4096 == 0 {
                pb.inc(4096.min((count - i) as u64));
            }
            let mut rng = splitmix(splitmix(opts.seed ^ stream) ^ i as u64);
            let root = roots[(rng % roots.len() as u64) as usize];
            rng = splitmix(rng);
            let target = targets[(rng % targets.len() as u64) as usize];
            let uniform = (rng >> 32) & 1 == 0;
            let mut b = root.board;
            while b.empties() > target && !b.is_game_over() {
                if !b.has_moves() {
                    b = b.pass();
                    continue;
                }
                rng = splitmix(rng);
                let moves = b.moves();
                let x = if uniform || rng.is_multiple_of(4) {
                    nth_square(moves, ((rng >> 8) % moves.count_ones() as u64) as u32)
                } else {
                    // Greedy: the child worst for the opponent, keys with 0-3 discs of noise.
                    let mut best = (i32::MAX, 0);
                    let mut m = moves;
                    let mut noise = rng >> 8;
                    while m != 0 {
                        let x = m.trailing_zeros();
                        m &= m - 1;
                        let key = policy.evaluate(&b.make_move(Square::from_index(x as u8)))
                            + (noise & 3) as i32;
                        noise >>= 2;
                        if key < best.0 {
                            best = (key, x);
                        }
                    }
                    best.1
                };
                b = b.make_move(Square::from_index(x as u8));
            }
            if !b.has_moves() {
                return None;
            }
            let r = engine.search(&b, &exact, &mut |_| {});
            Some(Sample {
                board: b,
                label: r.score as i8,
                game: root.game,
            })
        })
        .collect();
    pb.finish_and_clear();
    out.into_iter().flatten().collect()
}

/// The square of the `k`-th set bit (from bit 0) of `moves`.
fn nth_square(moves: u64, k: u32) -> u32 {
    let mut m = moves;
    for _ in 0..k {
        m &= m - 1;
    }
    m.trailing_zeros()
}

/// Reads XOT openings (one transcript per line) from `path`, or `None` if it is missing.
pub fn load_openings(path: &Path) -> Result<Option<Vec<Position>>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(_) => return Ok(None),
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (_, pos) = parse_transcript(line)
            .with_context(|| format!("{}:{}: bad opening", path.display(), i + 1))?;
        out.push(pos);
    }
    Ok(Some(out))
}

fn random_opening(rng: &mut StdRng) -> Position {
    let mut pos = Position::start();
    for _ in 0..8 {
        let moves: Vec<Square> = pos.board.legal_moves().collect();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.gen_range(0..moves.len())];
        pos = pos.play(Move::Play(m)).unwrap_or(pos);
    }
    pos
}

/// Plays and labels one self-play game (see the module header) with `engine`.
fn selfplay_game(
    engine: &mut Engine,
    opts: &TrainOptions,
    openings: Option<&[Position]>,
    index: usize,
    game: u32,
) -> Vec<Sample> {
    engine.new_game();
    let mut rng = StdRng::seed_from_u64(splitmix(opts.seed ^ splitmix(index as u64)));
    let mut pos = match openings {
        Some(o) if !o.is_empty() => o[rng.gen_range(0..o.len())],
        _ => random_opening(&mut rng),
    };
    let mut early: Vec<Position> = Vec::new();
    let mut out = Vec::new();
    let mut anchor: Option<Score> = None; // black's view, first solved position
    while !pos.board.is_game_over() {
        if !pos.board.has_moves() {
            pos = pos.play(Move::Pass).unwrap_or(pos);
            continue;
        }
        let moves: Vec<Square> = pos.board.legal_moves().collect();
        let random = rng.gen_bool(0.1);
        let best = if pos.board.empties() <= opts.solve_empties {
            let limits = SearchLimits {
                mode: SolveMode::Exact,
                ..SearchLimits::default()
            };
            let r = engine.search(&pos.board, &limits, &mut |_| {});
            if r.exact {
                anchor.get_or_insert(black_view(pos.side, r.score));
                out.push(Sample {
                    board: pos.board,
                    label: r.score as i8,
                    game,
                });
            }
            r.best
        } else {
            early.push(pos);
            if random {
                Move::Play(moves[0])
            } else {
                let limits = SearchLimits {
                    mode: SolveMode::Midgame,
                    depth: Some(opts.selfplay_depth),
                    ..SearchLimits::default()
                };
                engine.search(&pos.board, &limits, &mut |_| {}).best
            }
        };
        let mv = if random {
            Move::Play(moves[rng.gen_range(0..moves.len())])
        } else {
            best
        };
        pos = match pos.play(mv) {
            Some(p) => p,
            None => break,
        };
    }
    if let Some(a) = anchor {
        out.extend(early.iter().map(|p| Sample {
            board: p.board,
            label: black_view(p.side, a) as i8,
            game,
        }));
    }
    out
}

/// Plays `opts.selfplay_games` labelled self-play games in parallel (one engine with an
/// 8 MiB TT per worker, cleared before each game, so each game is deterministic). Game
/// numbers start at `first_game`.
pub fn selfplay(opts: &TrainOptions, first_game: u32) -> Result<Vec<Sample>> {
    let openings = load_openings(&opts.data_dir.join("openings/xot_large.txt"))?;
    let pb = bar(opts.selfplay_games as u64, "self-play");
    let games: Vec<Vec<Sample>> = (0..opts.selfplay_games)
        .into_par_iter()
        .map_init(worker_engine, |engine, i| {
            let s = selfplay_game(engine, opts, openings.as_deref(), i, first_game + i as u32);
            pb.inc(1);
            s
        })
        .collect();
    pb.finish_and_clear();
    Ok(games.into_iter().flatten().collect())
}

/// Fit quality of one phase, in discs.
#[derive(Clone, Debug)]
pub struct PhaseReport {
    /// Phase number.
    pub phase: usize,
    /// Empties covered (inclusive range).
    pub empties: (u32, u32),
    /// Training samples (phase window, training games).
    pub train: usize,
    /// Validation samples (phase bucket, held-out games).
    pub valid: usize,
    /// Root mean square error on the training samples (unquantised weights).
    pub train_rmse: f64,
    /// Mean absolute error of the quantised, rounded evaluation on the validation samples.
    pub valid_mae: f64,
    /// Root mean square error of the same.
    pub valid_rmse: f64,
    /// Mean absolute error of the classic evaluation on the validation samples, for scale.
    pub classic_mae: f64,
}

/// Fixed number of sample chunks per pass (the reduction order does not depend on threads).
const CHUNKS: usize = 16;

type Feats = [u32; FEATURES_PER_POSITION];

/// Σ over chunks of per-chunk vectors, in chunk order: `Aᵀ (A p)` (or `Aᵀ v` with `v` given).
fn ata(feats: &[Feats], p: &[f64], v: Option<&[f64]>, n: usize) -> Vec<f64> {
    let size = feats.len().div_ceil(CHUNKS).max(1);
    let parts: Vec<Vec<f64>> = feats
        .par_chunks(size)
        .enumerate()
        .map(|(c, chunk)| {
            let mut q = vec![0.0; n];
            for (j, f) in chunk.iter().enumerate() {
                let s = match v {
                    Some(v) => v[c * size + j],
                    None => f.iter().map(|&i| p[i as usize]).sum(),
                };
                for &i in f {
                    q[i as usize] += s;
                }
            }
            q
        })
        .collect();
    let mut q = vec![0.0; n];
    for part in parts {
        for (a, b) in q.iter_mut().zip(part) {
            *a += b;
        }
    }
    q
}

/// Minimises Σ (y − A x)² + λ ‖x − prior‖² by preconditioned conjugate gradients.
fn solve_phase(
    feats: &[Feats],
    y: &[f64],
    prior: &[f64],
    lambda: f64,
    iterations: usize,
    pb: &ProgressBar,
) -> Vec<f64> {
    let n = prior.len();
    // Residual targets against the prior; solve for the change d.
    let resid: Vec<f64> = feats
        .par_iter()
        .zip(y)
        .map(|(f, &t)| t - f.iter().map(|&i| prior[i as usize]).sum::<f64>())
        .collect();
    let b = ata(feats, prior, Some(&resid), n);
    let mut diag = vec![lambda; n];
    for f in feats {
        for &i in f {
            diag[i as usize] += 1.0;
        }
    }
    let mut d = vec![0.0; n];
    let mut r = b.clone();
    let mut z: Vec<f64> = r.iter().zip(&diag).map(|(r, m)| r / m).collect();
    let mut p = z.clone();
    let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
    let rz0 = rz.max(1e-300);
    for _ in 0..iterations {
        pb.inc(1);
        if rz <= rz0 * 1e-10 {
            break;
        }
        let mut q = ata(feats, &p, None, n);
        for (qi, pi) in q.iter_mut().zip(&p) {
            *qi += lambda * pi;
        }
        let pq: f64 = p.iter().zip(&q).map(|(a, b)| a * b).sum();
        if pq <= 0.0 {
            break;
        }
        let alpha = rz / pq;
        for i in 0..n {
            d[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = r[i] / diag[i];
        }
        let rz_new: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        let beta = rz_new / rz;
        rz = rz_new;
        for i in 0..n {
            p[i] = z[i] + beta * p[i];
        }
    }
    d.iter().zip(prior).map(|(d, p)| d + p).collect()
}

fn quantise(x: f64) -> i16 {
    (x * SCALE as f64).round().clamp(-32767.0, 32767.0) as i16
}

/// Whether game `game` is held out for validation.
fn is_validation(opts: &TrainOptions, game: u32) -> bool {
    is_held_out(opts.seed, opts.validation_percent, game)
}

/// Whether game number `game` falls in the validation split of a training run with `seed`
/// that holds out `percent` % of the games (a hash of the seed and the game number).
pub fn is_held_out(seed: u64, percent: u64, game: u32) -> bool {
    splitmix(splitmix(seed) ^ game as u64) % 100 < percent
}

/// Fits the weights to `samples`; returns the compact quantised weights (`phase *
/// compact_len + id`) and the per-phase report. Phases are fitted from the middle phase
/// outwards, each regularised towards the previous one's weights.
pub fn fit(samples: &[Sample], opts: &TrainOptions) -> (Vec<i16>, Vec<PhaseReport>) {
    let n = LAYOUT.compact_len;
    let mut weights = vec![0i16; NUM_PHASES * n];
    let mut solved: Vec<Option<Vec<f64>>> = vec![None; NUM_PHASES];
    let mid = NUM_PHASES / 2;
    let order: Vec<(usize, Option<usize>)> = std::iter::once((mid, None))
        .chain((0..mid).rev().map(|p| (p, Some(p + 1))))
        .chain((mid + 1..NUM_PHASES).map(|p| (p, Some(p - 1))))
        .collect();
    let pb = bar((NUM_PHASES * opts.iterations) as u64, "fit");
    let mut reports = Vec::new();
    for (ph, from) in order {
        // The phase's own empties plus half a phase width either side (inclusive).
        let lo = (ph as u32 * PHASE_WIDTH).saturating_sub(PHASE_WIDTH / 2);
        let hi = ph as u32 * PHASE_WIDTH + PHASE_WIDTH - 1 + PHASE_WIDTH / 2;
        let train: Vec<&Sample> = samples
            .iter()
            .filter(|s| {
                let e = s.board.empties();
                e >= lo && (e <= hi || (ph == NUM_PHASES - 1)) && !is_validation(opts, s.game)
            })
            .collect();
        let train = cap_per_empties(train, LINEAR_CAP);
        let feats: Vec<Feats> = train
            .par_iter()
            .map(|s| {
                let mut f = [0u32; FEATURES_PER_POSITION];
                compact_features(&s.board, &mut f);
                f
            })
            .collect();
        let y: Vec<f64> = train.iter().map(|s| s.label as f64).collect();
        let prior = match from.and_then(|f| solved[f].clone()) {
            Some(p) => p,
            None => vec![0.0; n],
        };
        let x = solve_phase(&feats, &y, &prior, opts.lambda, opts.iterations, &pb);
        let mse = feats
            .par_iter()
            .zip(&y)
            .map(|(f, t)| {
                let e = t - f.iter().map(|&i| x[i as usize]).sum::<f64>();
                e * e
            })
            .sum::<f64>()
            / feats.len().max(1) as f64;
        for (i, &v) in x.iter().enumerate() {
            weights[ph * n + i] = quantise(v);
        }
        solved[ph] = Some(x);
        reports.push(PhaseReport {
            phase: ph,
            empties: (
                ph as u32 * PHASE_WIDTH,
                if ph == NUM_PHASES - 1 {
                    60
                } else {
                    ph as u32 * PHASE_WIDTH + PHASE_WIDTH - 1
                },
            ),
            train: feats.len(),
            valid: 0,
            train_rmse: mse.sqrt(),
            valid_mae: 0.0,
            valid_rmse: 0.0,
            classic_mae: 0.0,
        });
    }
    pb.finish_and_clear();
    reports.sort_by_key(|r| r.phase);
    if let Some(ev) = PatternEval::from_compact(&weights) {
        for r in reports.iter_mut() {
            let valid: Vec<&Sample> = samples
                .iter()
                .filter(|s| phase(s.board.empties()) == r.phase && is_validation(opts, s.game))
                .collect();
            let (ae, se, ce) = valid
                .par_iter()
                .map(|s| {
                    let e = (s.label as i32 - ev.evaluate(&s.board)) as f64;
                    let c = (s.label as i32 - classic::evaluate(&s.board)) as f64;
                    (e.abs(), e * e, c.abs())
                })
                .reduce(|| (0.0, 0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
            let m = valid.len().max(1) as f64;
            r.valid = valid.len();
            r.valid_mae = ae / m;
            r.valid_rmse = (se / m).sqrt();
            r.classic_mae = ce / m;
        }
    }
    (weights, reports)
}

/// At most `cap` of `samples` per empties count, evenly spaced among those of that count
/// (in their order), the order otherwise kept.
fn cap_per_empties(samples: Vec<&Sample>, cap: usize) -> Vec<&Sample> {
    let mut count = [0usize; 61];
    for s in &samples {
        count[s.board.empties() as usize] += 1;
    }
    if count.iter().all(|&c| c <= cap) {
        return samples;
    }
    let mut seen = [0usize; 61];
    samples
        .into_iter()
        .filter(|s| {
            let e = s.board.empties() as usize;
            let (i, n) = (seen[e], count[e]);
            seen[e] += 1;
            // Keep sample i of n when it starts a new one of `cap` equal strides.
            n <= cap || (i * cap) / n != ((i + 1) * cap) / n
        })
        .collect()
}

/// Quality of one residual net on its held-out samples.
#[derive(Clone, Debug)]
pub struct NetReport {
    /// The net's slot ([`crate::eval::net::NUM_SLOTS`]: a phase, or `NUM_PHASES + empties`).
    pub slot: usize,
    /// The empties it applies to (inclusive range).
    pub empties: (u32, u32),
    /// Training samples (the slot's empties, training games).
    pub train: usize,
    /// Validation samples (the slot's empties, held-out games).
    pub valid: usize,
    /// Mean absolute error (discs) of the linear pattern evaluation alone, rounded and clamped
    /// as the search sees it.
    pub linear_mae: f64,
    /// The same with the quantised net's correction added.
    pub net_mae: f64,
}

/// Trains one residual net ([`crate::eval::net`]) for `slot` by plain SGD on the residual
/// `label − linear evaluation` (absolute-error-like loss: the gradient is the error clipped
/// to ±[`NET_CLIP`] discs). Single-threaded and seeded, so deterministic.
fn train_net(
    samples: &[Sample],
    opts: &TrainOptions,
    linear: &PatternEval,
    slot: usize,
    pb: &ProgressBar,
) -> (PhaseNet, NetReport) {
    let n = LAYOUT.compact_len;
    let (lo, hi) = slot_empties(slot);
    let in_slot = |s: &Sample| (lo..=hi).contains(&s.board.empties());
    // Boards, not feature ids (16 bytes against 260 a sample): the ids are read again in
    // every epoch, which costs little beside the SGD step and lets a net train on 10^8 leaves.
    let mut train: Vec<(Board, f32)> = samples
        .iter()
        .filter(|s| in_slot(s) && !is_validation(opts, s.game))
        .map(|s| {
            let base = linear.linear_fine(&s.board) as f32 / SCALE as f32;
            (s.board, s.label as f32 - base)
        })
        .collect();
    let mut rng = StdRng::seed_from_u64(splitmix(opts.seed ^ (0x4E45_5400 + slot as u64)));
    let hidden = opts.net_hidden;
    let mut net = FloatNet {
        hidden,
        rows: (0..n * hidden)
            .map(|_| (rng.r#gen::<f32>() - 0.5) * 0.02)
            .collect(),
        bias: vec![0.0; hidden],
        out: (0..hidden)
            .map(|_| (rng.r#gen::<f32>() - 0.5) * 0.2)
            .collect(),
        out_bias: 0.0,
    };
    let mut touched = vec![false; n];
    let epochs = opts.net_epochs;
    for ep in 0..epochs {
        let lr = opts.net_rate * (1.0 - ep as f32 / epochs as f32).max(0.1);
        train.shuffle(&mut rng);
        match hidden {
            192 => sgd_epoch::<192>(&mut net, &train, lr, &mut touched),
            128 => sgd_epoch::<128>(&mut net, &train, lr, &mut touched),
            64 => sgd_epoch::<64>(&mut net, &train, lr, &mut touched),
            _ => sgd_epoch::<32>(&mut net, &train, lr, &mut touched),
        }
        pb.inc(1);
    }
    // Rows no training sample reached keep their random start: zero them (no noise, and
    // the file compresses).
    for (id, t) in touched.iter().enumerate() {
        if !t {
            net.rows[id * hidden..id * hidden + hidden].fill(0.0);
        }
    }
    let q = net
        .quantise()
        .expect("--net-hidden is one of the widths a net may have");
    let mut nets = Nets::none();
    nets.set(slot, q.clone());
    let with = linear.clone().with_nets(nets);
    let (mut la, mut na, mut count) = (0.0, 0.0, 0usize);
    for s in samples
        .iter()
        .filter(|s| in_slot(s) && is_validation(opts, s.game))
    {
        la += (s.label as i32 - linear.evaluate(&s.board)).abs() as f64;
        na += (s.label as i32 - with.evaluate(&s.board)).abs() as f64;
        count += 1;
    }
    let m = count.max(1) as f64;
    let report = NetReport {
        slot,
        empties: (lo, hi),
        train: train.len(),
        valid: count,
        linear_mae: la / m,
        net_mae: na / m,
    };
    (q, report)
}

/// One SGD epoch over `train` (positions and residual target) for a net of `H` hidden units
/// (`net.hidden` must be `H`; the width is a constant so the inner loops unroll), marking
/// the feature rows it touches.
fn sgd_epoch<const H: usize>(
    net: &mut FloatNet,
    train: &[(Board, f32)],
    lr: f32,
    touched: &mut [bool],
) {
    debug_assert_eq!(net.hidden, H);
    let mut h = [0f32; H];
    let mut f = [0u32; FEATURES_PER_POSITION];
    for (b, r) in train {
        compact_features(b, &mut f);
        h.copy_from_slice(&net.bias);
        for &id in &f {
            let row = &net.rows[id as usize * H..id as usize * H + H];
            for (a, b) in h.iter_mut().zip(row) {
                *a += b;
            }
        }
        let mut y = net.out_bias;
        for (w, a) in net.out.iter().zip(&h) {
            y += w * a.max(0.0);
        }
        let g = (y - r).clamp(-NET_CLIP, NET_CLIP);
        net.out_bias -= lr * g;
        let mut gh = [0f32; H];
        for k in 0..H {
            if h[k] > 0.0 {
                gh[k] = g * net.out[k];
                net.out[k] -= lr * g * h[k];
            }
        }
        for (b, d) in net.bias.iter_mut().zip(&gh) {
            *b -= lr * d;
        }
        for &id in &f {
            touched[id as usize] = true;
            let row = &mut net.rows[id as usize * H..id as usize * H + H];
            for (w, d) in row.iter_mut().zip(&gh) {
                *w -= lr * d;
            }
        }
    }
}

/// Gradient clip of the nets' SGD, in discs.
const NET_CLIP: f32 = 8.0;

/// Trains the residual nets of [`TrainOptions::net_phases`] and
/// [`TrainOptions::net_empties`] on top of the linear evaluation `linear` (one net per slot,
/// the slots in parallel, each deterministic). A net whose held-out error is not below the
/// linear evaluation's is dropped (its report stays, sorted by slot).
pub fn train_nets(
    samples: &[Sample],
    opts: &TrainOptions,
    linear: &PatternEval,
) -> (Nets, Vec<NetReport>) {
    let slots = net_slots(opts);
    let pb = bar((slots.len() * opts.net_epochs) as u64, "nets");
    let trained: Vec<(usize, PhaseNet, NetReport)> = slots
        .par_iter()
        .map(|&slot| {
            let (net, rep) = train_net(samples, opts, linear, slot, &pb);
            (slot, net, rep)
        })
        .collect();
    pb.finish_and_clear();
    let mut nets = Nets::none();
    let mut reports = Vec::new();
    for (ph, net, rep) in trained {
        // A net that does not lower the held-out error is not worth its cost.
        if rep.net_mae < rep.linear_mae {
            nets.set(ph, net);
        }
        reports.push(rep);
    }
    reports.sort_by_key(|r| r.slot);
    (nets, reports)
}

/// The net slots a run trains: its phases, then its empties counts.
pub fn net_slots(opts: &TrainOptions) -> Vec<usize> {
    let mut v: Vec<usize> = opts.net_phases.clone();
    v.extend(opts.net_empties.iter().map(|&e| empties_slot(e)));
    v
}

const SAMPLES_MAGIC: &[u8; 8] = b"FLANKSMP";

/// Writes labelled samples to `path` (magic, sample count u64, WTHOR sample count u64, then
/// per sample: player u64, opponent u64, label i8, game u32; little-endian).
fn write_samples(path: &Path, samples: &[Sample], wthor_positions: usize) -> Result<()> {
    let mut buf = Vec::with_capacity(24 + samples.len() * 21);
    buf.extend_from_slice(SAMPLES_MAGIC);
    buf.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    buf.extend_from_slice(&(wthor_positions as u64).to_le_bytes());
    for s in samples {
        buf.extend_from_slice(&s.board.player.to_le_bytes());
        buf.extend_from_slice(&s.board.opponent.to_le_bytes());
        buf.push(s.label as u8);
        buf.extend_from_slice(&s.game.to_le_bytes());
    }
    std::fs::write(path, buf).with_context(|| format!("cannot write {}", path.display()))
}

/// Reads samples written by [`write_samples`]; returns them and the WTHOR sample count.
fn read_samples(path: &Path) -> Result<(Vec<Sample>, usize)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let bad = || anyhow::anyhow!("{} is not a flank samples file", path.display());
    if bytes.len() < 24 || &bytes[..8] != SAMPLES_MAGIC {
        return Err(bad());
    }
    let u64_at = |at: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(a)
    };
    let n = u64_at(8) as usize;
    let wthor = u64_at(16) as usize;
    if bytes.len() != 24 + n.checked_mul(21).ok_or_else(bad)? || wthor > n {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let at = 24 + 21 * i;
        let board = Board::new(u64_at(at), u64_at(at + 8)).ok_or_else(bad)?;
        let label = bytes[at + 16] as i8;
        let game = u32::from_le_bytes([
            bytes[at + 17],
            bytes[at + 18],
            bytes[at + 19],
            bytes[at + 20],
        ]);
        out.push(Sample { board, label, game });
    }
    Ok((out, wthor))
}

/// What a training run produced.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    /// WTHOR reading counts.
    pub wthor: WthorStats,
    /// Self-play samples.
    pub selfplay_positions: usize,
    /// Per-phase fit quality.
    pub phases: Vec<PhaseReport>,
    /// Per-phase quality of the residual nets (empty without nets).
    pub nets: Vec<NetReport>,
    /// Size of the written weights file in bytes.
    pub file_bytes: usize,
    /// Wall time in ms.
    pub time_ms: u64,
}

/// Checks up front that `path` can be written: not a directory, and its parent directory
/// exists (nothing is created), so that a long run does not fail at its end. `what` names
/// the path in the error (e.g. "output file").
///
/// Errors: `path` is a directory, or its parent directory does not exist.
pub fn check_writable(path: &Path, what: &str) -> Result<()> {
    if path.is_dir() {
        bail!("{what} {} is a directory", path.display());
    }
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
        && !dir.is_dir()
    {
        bail!(
            "{what} {}: directory {} does not exist",
            path.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Runs the whole pipeline and writes the weights file; prints the report on `out`.
///
/// Errors: an output or samples path that cannot be written (checked before any work), no
/// training samples, unreadable data, a write failure.
pub fn run_train(opts: &TrainOptions, out: &mut dyn Write) -> Result<TrainSummary> {
    let start = Instant::now();
    check_writable(&opts.out, "output file")?;
    if let Some(path) = &opts.samples_cache
        && !path.exists()
    {
        check_writable(path, "samples file")?;
    }
    // The base weights (`--base`) are read before any work, so that a bad path fails at once.
    let base = match &opts.base {
        Some(path) if path.as_os_str() == "trained" => Some(
            weights::decode(weights::EMBEDDED)
                .map_err(|e| anyhow::anyhow!("--base trained: embedded weights unusable: {e}"))?,
        ),
        Some(path) => Some(
            weights::decode(
                &std::fs::read(path)
                    .with_context(|| format!("cannot read --base {}", path.display()))?,
            )
            .with_context(|| format!("--base {}", path.display()))?,
        ),
        None => None,
    };
    let cached = match &opts.samples_cache {
        Some(path) if path.exists() => Some(read_samples(path)?),
        _ => None,
    };
    let leaf_policy = match cached {
        Some(_) => None,
        None => Some(
            Evaluator::from_spec(&opts.leaf_eval)
                .with_context(|| format!("--leaf-eval {}", opts.leaf_eval))?,
        ),
    };
    let fresh = cached.is_none();
    let (samples, wthor, selfplay_positions) = match cached {
        Some((samples, wthor_positions)) => {
            writeln!(
                out,
                "samples: {} labelled positions read from {} ({} from WTHOR, the rest self-play and search leaves; the labelling options, --wthor-*, --games, --solve-empties, --deviation-plies, --leaf-*, and the test set, do not apply: the cache holds what the run that wrote it used)",
                samples.len(),
                opts.samples_cache
                    .as_deref()
                    .unwrap_or(Path::new(""))
                    .display(),
                wthor_positions
            )?;
            let wthor = WthorStats {
                positions: wthor_positions,
                ..WthorStats::default()
            };
            let sp = samples.len() - wthor_positions;
            (samples, wthor, sp)
        }
        None => {
            let test = match &opts.test_positions {
                Some(path) => {
                    let set = load_test_positions(path)?;
                    if !path.exists() {
                        writeln!(
                            out,
                            "test set {} not found: no WTHOR game is left out",
                            path.display()
                        )?;
                    }
                    set
                }
                None => HashSet::new(),
            };
            let (mut samples, wthor) = load_wthor(
                &opts.data_dir.join("games/wthor"),
                opts.wthor_games,
                opts.wthor_solve_empties,
                opts.deviation_plies,
                &test,
            )?;
            writeln!(
                out,
                "wthor: {} files, {} games, {} used, {} dropped, {} of them left out (they pass through a test position), {} with final = theoretical score, {} positions",
                wthor.files,
                wthor.games,
                wthor.used,
                wthor.bad,
                wthor.test_games,
                wthor.exact_tail,
                wthor.positions
            )?;
            let sp = selfplay(opts, wthor.used as u32)?;
            writeln!(
                out,
                "self-play: {} games at depth {}, exact labels at <= {} empties, {} positions ({} s so far)",
                opts.selfplay_games,
                opts.selfplay_depth,
                opts.solve_empties,
                sp.len(),
                start.elapsed().as_secs()
            )?;
            let selfplay_positions = sp.len();
            samples.extend(sp);
            if opts.leaf_samples == 0 {
                writeln!(out, "search leaves: off (--leaf-samples 0)")?;
            } else if let Some(policy) = &leaf_policy {
                let leaves = leaf_samples(&samples, opts, policy);
                writeln!(
                    out,
                    "search leaves: {} of {} walks kept (a walk that ends in a pass or a finished game is dropped), {}-{} empties, greedy by the {} evaluation, solved ({} s so far)",
                    leaves.len(),
                    opts.leaf_samples,
                    LEAF_EMPTIES.0,
                    LEAF_EMPTIES.1,
                    if opts.leaf_eval == "classic" || opts.leaf_eval == "trained" {
                        opts.leaf_eval.clone()
                    } else {
                        format!("{} ({})", policy.name(), opts.leaf_eval)
                    },
                    start.elapsed().as_secs()
                )?;
                samples.extend(leaves);
            }
            (samples, wthor, selfplay_positions)
        }
    };
    if samples.iter().all(|s| is_validation(opts, s.game)) {
        bail!("no training samples (no WTHOR games and no self-play games were used)");
    }
    // Only a run that labelled samples writes the cache, and only once they are usable.
    if fresh && let Some(path) = &opts.samples_cache {
        write_samples(path, &samples, wthor.positions)?;
    }
    let (w, base_nets, phases) = match base {
        Some((w, nets)) => {
            writeln!(
                out,
                "linear weights: taken from {} (not refitted; --iterations and --lambda do not apply; its held-out figures below are only held out if the base was trained on the same games with the same seed)",
                opts.base.as_deref().unwrap_or(Path::new("")).display()
            )?;
            (w, nets, Vec::new())
        }
        None => {
            let (w, phases) = fit(&samples, opts);
            (w, Nets::none(), phases)
        }
    };
    // Extra leaves at the nets' empties counts: for the nets only, after the linear fit.
    let mut samples = samples;
    if opts.net_leaf_samples > 0 && !opts.net_empties.is_empty() {
        let policy = Evaluator::from_spec(&opts.leaf_eval)
            .with_context(|| format!("--leaf-eval {}", opts.leaf_eval))?;
        let extra = leaf_walks(
            &samples,
            opts,
            &policy,
            opts.net_leaf_samples,
            &opts.net_empties,
            0x4E45_5445_1EAF_0002,
        );
        writeln!(
            out,
            "extra search leaves for the nets: {} of {} walks kept, empties {:?}, greedy by the {} evaluation ({} s so far)",
            extra.len(),
            opts.net_leaf_samples,
            opts.net_empties,
            opts.leaf_eval,
            start.elapsed().as_secs()
        )?;
        samples.extend(extra);
    }
    let (mut nets, net_reports) = match PatternEval::from_compact(&w) {
        Some(linear) if !net_slots(opts).is_empty() => train_nets(&samples, opts, &linear),
        _ => (Nets::none(), Vec::new()),
    };
    // The base's nets stay in the slots that were not retrained, except a phase net whose
    // every empties count now has a net of its own (it would never be used).
    let retrained = net_slots(opts);
    let shadowed = |slot: usize| {
        let (lo, hi) = slot_empties(slot);
        slot < NUM_PHASES && (lo..=hi).all(|e| nets.get(empties_slot(e)).is_some())
    };
    let kept_from_base: Vec<usize> = base_nets
        .slot_list()
        .into_iter()
        .filter(|&p| !retrained.contains(&p) && !shadowed(p))
        .collect();
    for &p in &kept_from_base {
        if let Some(net) = base_nets.get(p) {
            nets.set(p, net.clone());
        }
    }
    let bytes = weights::encode(&w, &nets);
    std::fs::write(&opts.out, &bytes)
        .with_context(|| format!("cannot write {}", opts.out.display()))?;
    if !phases.is_empty() {
        writeln!(
            out,
            "phase  empties   train   valid  train-RMSE  valid-MAE  valid-RMSE  classic-MAE"
        )?;
    }
    for r in &phases {
        writeln!(
            out,
            "{:>5}  {:>2}-{:<2}  {:>8}  {:>6}  {:>10.2}  {:>9.2}  {:>10.2}  {:>11.2}",
            r.phase,
            r.empties.0,
            r.empties.1,
            r.train,
            r.valid,
            r.train_rmse,
            r.valid_mae,
            r.valid_rmse,
            r.classic_mae
        )?;
    }
    if net_reports.is_empty() {
        writeln!(out, "residual nets: none trained")?;
    } else {
        writeln!(
            out,
            "residual nets ({} hidden units, epochs: {}); a net that does not lower the held-out error is dropped:",
            opts.net_hidden, opts.net_epochs
        )?;
        writeln!(
            out,
            " slot  empties     train   valid  linear-MAE  net-MAE  kept"
        )?;
        for r in &net_reports {
            writeln!(
                out,
                "{:>5}  {:>2}-{:<2}  {:>8}  {:>6}  {:>10.2}  {:>7.2}  {}",
                r.slot,
                r.empties.0,
                r.empties.1,
                r.train,
                r.valid,
                r.linear_mae,
                r.net_mae,
                if nets.get(r.slot).is_some() {
                    "yes"
                } else {
                    "no"
                }
            )?;
        }
    }
    if !kept_from_base.is_empty() {
        writeln!(
            out,
            "residual nets kept from the base: slots {kept_from_base:?}"
        )?;
    }
    let time_ms = start.elapsed().as_millis() as u64;
    writeln!(
        out,
        "wrote {} ({} bytes) in {:.1} s",
        opts.out.display(),
        bytes.len(),
        time_ms as f64 / 1000.0
    )?;
    Ok(TrainSummary {
        wthor,
        selfplay_positions,
        phases,
        nets: net_reports,
        file_bytes: bytes.len(),
        time_ms,
    })
}
