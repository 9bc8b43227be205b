//! WTHOR game archives: the `.wtb` files of a directory, their games, replaying a game into
//! its positions, and the positions of the test set whose games training leaves out.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::black_view;
use super::progress::bar;
use crate::notation::parse_problem_line;
use crate::othello::Position;
use crate::othello::board::{Score, Symmetry};
use crate::othello::square::{Move, Square};

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
        crate::data::read_text(path).with_context(|| format!("cannot read {}", path.display()))?;
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

/// Keeps `n` evenly spaced games of `games` (the game at `⌊i × len / n⌋` for `i < n`); all of
/// them when `n` is `None` or not below their count (`--wthor-games`).
pub(super) fn evenly_spaced<T: Clone>(games: Vec<T>, n: Option<usize>) -> Vec<T> {
    match n {
        Some(n) if n < games.len() => {
            let step = games.len() as f64 / n as f64;
            (0..n)
                .map(|i| games[(i as f64 * step) as usize].clone())
                .collect()
        }
        _ => games,
    }
}
