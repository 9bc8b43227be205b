//! `flank book build|learn|show`: making, extending and reading opening books, and the book
//! a playing command uses (`--book FILE|off`, the built-in one by default).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use rayon::prelude::*;

use crate::book::Book;
use crate::book::build::{BuildOptions, build, file_openings};
use crate::notation::{parse_board_string, parse_transcript};
use crate::othello::Position;
use crate::othello::board::Board;
use crate::train::{read_wthor_games, replay_wthor};

/// The book a playing command uses for `--book VALUE`: `None` (the default) or `default` is
/// the built-in book, `off` none, anything else a book file.
///
/// # Errors
/// An unreadable or malformed book file (`cannot read book FILE: line 7: …`).
pub fn load_book(value: Option<&str>) -> Result<Option<Arc<Book>>> {
    match value {
        None | Some("default") => Ok(Some(Arc::new(Book::embedded()))),
        Some("off") => Ok(None),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read book {path}"))?;
            let book = Book::parse(&text).with_context(|| format!("cannot read book {path}"))?;
            Ok(Some(Arc::new(book)))
        }
    }
}

/// The openings of the WTHOR games in `dir`: each game's positions before its first `plies`
/// moves.
///
/// # Errors
/// A missing directory or an unreadable archive.
pub fn wthor_openings(dir: &std::path::Path, plies: u32) -> Result<Vec<Vec<Board>>> {
    let (_, games) = read_wthor_games(dir)?;
    Ok(games
        .par_iter()
        .filter_map(|g| replay_wthor(&g.moves))
        .map(|(positions, _)| {
            positions
                .iter()
                .take(plies as usize)
                .map(|p| p.board)
                .collect()
        })
        .collect())
}

/// Reads the book file `path`.
///
/// # Errors
/// `cannot read book PATH`, with the I/O or format error.
pub fn read_book_file(path: &std::path::Path) -> Result<Book> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read book {}", path.display()))?;
    Book::parse(&text).with_context(|| format!("cannot read book {}", path.display()))
}

/// Settings of `flank book build` and `flank book learn`.
#[derive(Clone, Debug)]
pub struct BookBuildSettings {
    /// The book written (for `learn`, also the book read first).
    pub out: PathBuf,
    /// For `learn`: extend `out`; for `build`: start empty.
    pub extend: bool,
    /// The WTHOR directory to take games from, if any.
    pub wthor_dir: Option<PathBuf>,
    /// Game files (transcripts or GGF, one game a line).
    pub games: Vec<PathBuf>,
    /// What enters the book and how deep it is searched.
    pub options: BuildOptions,
    /// Search threads (rayon), 0 = all cores.
    pub threads: usize,
}

/// Runs `flank book build` / `flank book learn`: reads the games, builds on the book (empty or
/// `out`'s), writes `out` (through a temporary file, so a failed run leaves it as it was) and
/// prints a summary line to `out_text`.
///
/// # Errors
/// Unreadable inputs, a malformed book or game line, or a write failure.
pub fn run_book_build(s: &BookBuildSettings, out_text: &mut dyn Write) -> Result<()> {
    let base = if s.extend {
        read_book_file(&s.out)?
    } else {
        Book::default()
    };
    let mut games = Vec::new();
    if let Some(dir) = &s.wthor_dir {
        games.extend(wthor_openings(dir, s.options.plies)?);
    }
    for f in &s.games {
        games.extend(file_openings(f, s.options.plies)?);
    }
    if games.is_empty() && !s.extend {
        bail!("no games to build a book from");
    }
    let before = base.len();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(s.threads)
        .build()
        .context("cannot start the threads")?;
    let start = std::time::Instant::now();
    let book = pool.install(|| build(base, &games, &s.options, true));
    let tmp = crate::book::temp_path(&s.out);
    std::fs::write(&tmp, book.to_text())
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &s.out).with_context(|| format!("cannot write {}", s.out.display()))?;
    writeln!(
        out_text,
        "book: {} positions ({} new) from {} games, depth {}, {:.1} s -> {}",
        book.len(),
        book.len() - before,
        games.len(),
        book.depth,
        start.elapsed().as_secs_f64(),
        s.out.display()
    )?;
    Ok(())
}

/// The position `text` names: a board string, or a transcript from the start position
/// (`f5d6`; empty = the start).
///
/// # Errors
/// Text that is neither (the transcript's error is given).
pub fn parse_position(text: &str) -> Result<Position> {
    if let Ok(p) = parse_board_string(text) {
        return Ok(p);
    }
    let (_, p) = parse_transcript(text).with_context(|| {
        format!(
            "'{}' is neither a board string nor a transcript",
            crate::notation::clip(text)
        )
    })?;
    Ok(p)
}

/// Runs `flank book show`: the position's entry and its book moves, best first, one a line
/// (`d6 +0 1234 games`), then the best move out of the book (`leaf -2`), or `not in the book`.
///
/// # Errors
/// A bad position or an unreadable book.
pub fn run_book_show(book: &Book, position: &str, out: &mut dyn Write) -> Result<()> {
    let pos = parse_position(position)?;
    let Some(e) = book.get(&pos.board) else {
        writeln!(out, "{pos}: not in the book")?;
        return Ok(());
    };
    writeln!(
        out,
        "{pos}: value {:+} ({} games, book depth {})",
        e.value, e.games, book.depth
    )?;
    for m in book.moves(&pos.board) {
        writeln!(out, "{} {:+} {} games", m.mv, m.value, m.games)?;
    }
    match e.leaf {
        Some(l) => writeln!(out, "leaf {l:+}")?,
        None => writeln!(out, "leaf none (every move is in the book)")?,
    }
    Ok(())
}

/// The book file a show reads: `default` (or none) for the built-in one.
///
/// # Errors
/// As [`load_book`]; `off` is refused.
pub fn book_for_show(value: Option<&str>) -> Result<Arc<Book>> {
    match load_book(value)? {
        Some(b) => Ok(b),
        None => bail!("no book to show ('off')"),
    }
}
