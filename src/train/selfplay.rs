//! Self-play positions: games from XOT openings played by flank, labelled by exact solves.

use std::path::Path;

use anyhow::{Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;
use rayon::prelude::*;

use super::progress::bar;
use super::{Sample, TrainOptions, black_view, splitmix, worker_engine};
use crate::engine::{Engine, SearchLimits, SolveMode};
use crate::notation::parse_transcript;
use crate::othello::Position;
use crate::othello::board::Score;
use crate::othello::square::{Move, Square};

/// Reads XOT openings (one transcript per line) from `path`, or `None` if it is missing.
pub fn load_openings(path: &Path) -> Result<Option<Vec<Position>>> {
    let text = match crate::data::read_text(path) {
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

/// A random 8-ply opening from the start position (shorter if the side to move has no legal
/// move).
fn random_opening(rng: &mut ChaCha12Rng) -> Position {
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
    let mut rng = ChaCha12Rng::seed_from_u64(splitmix(opts.seed ^ splitmix(index as u64)));
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
