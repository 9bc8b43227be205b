//! Building and extending an opening book: the positions the source games reach often
//! enough in their first plies, each position's best move out of the book searched at a set
//! depth, and the values propagated by negamax ([`Book::propagate`]).
//!
//! The method follows Edax's and Logistello's books (main lines from played games, the best
//! deviation of every book position searched, negamax over the tree); the code is flank's own.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::{Book, Entry, key};
use crate::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use crate::notation::ggf::parse_ggf;
use crate::notation::parse_transcript;
use crate::othello::board::{Board, Score};
use crate::othello::{Position, square::Move};

/// What goes into a book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Positions up to this many plies from the start (passes not counted) are candidates.
    pub plies: u32,
    /// A candidate enters the book when at least this many source games reach it.
    pub min_games: u32,
    /// Search depth of each position's best move out of the book, in plies (the move
    /// included).
    pub depth: u32,
    /// Transposition table per search thread, MiB.
    pub hash_mb: usize,
}

/// The positions before each move of a game (passes stepped over, so a position always has a
/// move), up to `plies` of them.
pub fn opening_positions(moves: &[Move], plies: u32) -> Vec<Board> {
    let mut pos = Position::start();
    let mut out = Vec::new();
    for &m in moves {
        if out.len() as u32 >= plies {
            break;
        }
        if m != Move::Pass && pos.board.has_moves() {
            out.push(pos.board);
        }
        match pos.play(m) {
            Some(next) => pos = next,
            None => break,
        }
    }
    out
}

/// The openings of a games file: one game a line, a transcript from the start position
/// (`f5d6c3…`) or a GGF record from the start position; empty lines and lines starting with
/// `#` or `%` are skipped.
///
/// # Errors
/// An unreadable file, or a line that is neither (with its line number).
pub fn file_openings(path: &Path, plies: u32) -> Result<Vec<Vec<Board>>> {
    let text =
        crate::data::read_text(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
            continue;
        }
        let moves: Vec<Move> = if line.starts_with("(;") {
            let g = parse_ggf(line).with_context(|| format!("{}:{}", path.display(), i + 1))?;
            if g.start != Position::start() {
                bail!(
                    "{}:{}: the game does not start from the standard position",
                    path.display(),
                    i + 1
                );
            }
            g.moves.iter().map(|m| m.mv).collect()
        } else {
            parse_transcript(line)
                .with_context(|| format!("{}:{}", path.display(), i + 1))?
                .0
        };
        out.push(opening_positions(&moves, plies));
    }
    Ok(out)
}

/// The value of `board`'s best move whose child (through a pass) is not in `inside`, from
/// `engine`'s search of each such child to `depth − 1` plies (`depth − 2` where that would
/// end on an odd number of empties); `None` when every move leads into the book.
fn best_leaf(
    engine: &mut Engine,
    board: &Board,
    inside: &HashMap<(u64, u64), u32>,
    depth: u32,
) -> Option<Score> {
    // Every leaf search ends at an even number of empties, so that the evaluation's parity
    // bias (a search ending on the other side's move scores differently) is the same for
    // every leaf of the book: depth − 1 or depth − 2 plies below the child.
    let child_empties = board.empties().saturating_sub(1);
    let mut d = depth.saturating_sub(1).max(1);
    if (child_empties.saturating_sub(d)) % 2 == 1 && d > 1 {
        d -= 1;
    }
    let limits = SearchLimits {
        depth: Some(d),
        mode: SolveMode::Midgame,
        ..SearchLimits::default()
    };
    board
        .legal_moves()
        .filter_map(|sq| {
            let child = board.make_move(sq);
            let (after, sign) = if !child.has_moves() && !child.is_game_over() {
                (child.pass(), 1)
            } else {
                (child, -1)
            };
            if inside.contains_key(&key(&after)) {
                return None;
            }
            let v = if after.is_game_over() {
                after.final_score()
            } else {
                engine.search(&after, &limits, &mut |_| {}).score
            };
            Some(sign * v)
        })
        .max()
}

/// A progress bar on stderr over `n` searches, hidden unless `show`.
fn progress_bar(n: u64, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(n);
    if let Ok(style) =
        ProgressStyle::with_template("book {bar:40} {pos}/{len} positions, {per_sec}, ETA {eta}")
    {
        pb.set_style(style);
    }
    pb
}

/// Builds a book from `games` (each game's opening positions) on top of `base` (an empty book
/// for a new one): every position reached by at least `min_games` games enters; the base's
/// positions stay, with the new games added to their counts. Positions new to the book, and
/// book positions one of whose moves now leads into the book, get their best move out of the
/// book searched (in parallel on rayon's threads, each position with a cleared table, so the
/// book does not depend on the threads); then every value is propagated by negamax.
pub fn build(base: Book, games: &[Vec<Board>], opts: &BuildOptions, show_progress: bool) -> Book {
    // Without a stop flag the build always runs to its end.
    build_until(base, games, opts, show_progress, None).unwrap_or_default()
}

/// [`build`], stopped early when `stop` is set: the searches under way end within
/// milliseconds, no new one starts, and `None` is returned (the base book is not changed).
/// `None` for `stop` is [`build`].
pub fn build_until(
    base: Book,
    games: &[Vec<Board>],
    opts: &BuildOptions,
    show_progress: bool,
    stop: Option<&AtomicBool>,
) -> Option<Book> {
    let mut counts: HashMap<(u64, u64), (Board, u32)> = HashMap::new();
    for g in games {
        let mut seen: Vec<(u64, u64)> = Vec::with_capacity(g.len());
        for b in g {
            let k = key(b);
            if seen.contains(&k) {
                continue;
            }
            seen.push(k);
            counts.entry(k).or_insert((*b, 0)).1 += 1;
        }
    }
    let mut inside: HashMap<(u64, u64), u32> = HashMap::new();
    let mut boards: HashMap<(u64, u64), Board> = HashMap::new();
    for (b, e) in base.iter() {
        inside.insert(key(&b), e.games);
        boards.insert(key(&b), b);
    }
    let mut new_keys = Vec::new();
    for (k, (b, n)) in &counts {
        if let Some(g) = inside.get_mut(k) {
            *g += n;
        } else if *n >= opts.min_games {
            inside.insert(*k, *n);
            boards.insert(*k, *b);
            new_keys.push(*k);
        }
    }
    // Positions to search: the new ones and the parents of new ones already in the book.
    let mut todo: Vec<(u64, u64)> = new_keys.clone();
    for (k, b) in &boards {
        if new_keys.contains(k) {
            continue;
        }
        let feeds_new = b.legal_moves().any(|sq| {
            let c = b.make_move(sq);
            let after = if !c.has_moves() && !c.is_game_over() {
                c.pass()
            } else {
                c
            };
            new_keys.contains(&key(&after))
        });
        if feeds_new {
            todo.push(*k);
        }
    }
    todo.sort();
    let pb = progress_bar(todo.len() as u64, show_progress);
    let never = AtomicBool::new(false);
    let stop = stop.unwrap_or(&never);
    // The stop flags of the searching engines, which `stop` is relayed to.
    let engines: Mutex<Vec<Arc<AtomicBool>>> = Mutex::new(Vec::new());
    let done = AtomicBool::new(false);
    let leaves: Vec<((u64, u64), Option<Score>)> = std::thread::scope(|scope| {
        scope.spawn(|| relay_stop(stop, &engines, &done));
        let leaves = todo
            .par_iter()
            .map_init(
                || {
                    let engine = Engine::new(EngineConfig {
                        hash_mb: opts.hash_mb,
                        threads: 1,
                    });
                    if let Ok(mut e) = engines.lock() {
                        e.push(engine.stop_handle());
                    }
                    engine
                },
                |engine, k| {
                    if stop.load(Ordering::Relaxed) {
                        return (*k, None);
                    }
                    // A cleared table per position: the same book whatever the threads' order.
                    engine.new_game();
                    let leaf = best_leaf(engine, &boards[k], &inside, opts.depth);
                    pb.inc(1);
                    (*k, leaf)
                },
            )
            .collect();
        done.store(true, Ordering::Relaxed);
        leaves
    });
    pb.finish_and_clear();
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut book = Book {
        depth: opts.depth.max(base.depth),
        ..Book::default()
    };
    let leaf_of: HashMap<(u64, u64), Option<Score>> = leaves.into_iter().collect();
    for (k, b) in &boards {
        let games = inside[k];
        let leaf = match leaf_of.get(k) {
            Some(l) => *l,
            None => base.get(b).and_then(|e| e.leaf),
        };
        book.insert(
            b,
            Entry {
                value: leaf.unwrap_or(0),
                leaf,
                games,
            },
        );
    }
    book.propagate();
    Some(book)
}

/// Until `done`, sets the stop flag of every engine in `engines` while `stop` is set (again
/// every 2 ms: a search clears its flag when it starts).
fn relay_stop(stop: &AtomicBool, engines: &Mutex<Vec<Arc<AtomicBool>>>, done: &AtomicBool) {
    while !done.load(Ordering::Relaxed) {
        if stop.load(Ordering::Relaxed)
            && let Ok(e) = engines.lock()
        {
            for flag in e.iter() {
                flag.store(true, Ordering::Relaxed);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_book_from_a_few_games_has_their_common_positions_with_searched_values() {
        let lines = ["f5d6c3d3c4", "f5d6c3d3c4f4", "f5f6e6f4", "f5d6c5"];
        let games: Vec<Vec<Board>> = lines
            .iter()
            .map(|t| opening_positions(&parse_transcript(t).unwrap().0, 4))
            .collect();
        let opts = BuildOptions {
            plies: 4,
            min_games: 2,
            depth: 2,
            hash_mb: 1,
        };
        let book = build(Book::default(), &games, &opts, false);
        // start (4 games), after f5 (4), f5d6 (3), f5d6c3 (2).
        assert_eq!(book.len(), 4);
        let start = book.get(&Board::start()).unwrap();
        assert_eq!(start.games, 4);
        // Every value is the negamax of the book moves and the leaf.
        for (b, e) in book.iter() {
            let best = book.moves(&b).first().map(|m| m.value);
            let want = match (best, e.leaf) {
                (Some(x), Some(l)) => x.max(l),
                (Some(x), None) => x,
                (None, l) => l.unwrap(),
            };
            assert_eq!(e.value, want);
        }
        // Learning one more game adds its positions with min_games 1.
        let more = vec![opening_positions(&parse_transcript("f5f6e6").unwrap().0, 4)];
        let bigger = build(
            book.clone(),
            &more,
            &BuildOptions {
                min_games: 1,
                ..opts
            },
            false,
        );
        assert_eq!(bigger.len(), 5);
        assert_eq!(bigger.get(&Board::start()).unwrap().games, 5);
    }
}
