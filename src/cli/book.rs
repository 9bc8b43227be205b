//! `flank book build|learn|show|import|export`: making, extending, reading and converting
//! opening books (flank's text format and Edax's `.dat`), and the book a playing command uses
//! (`--book FILE|off`, the built-in one by default; a file in either format).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use rayon::prelude::*;

use crate::book::build::{BuildOptions, build, file_openings};
use crate::book::{Book, edax};
use crate::notation::{parse_board_string, parse_transcript};
use crate::othello::Position;
use crate::othello::board::Board;
use crate::train::{read_wthor_games, replay_wthor};

/// The book a playing command uses for `--book VALUE`: `None` (the default) or `default` is
/// the built-in book, `off` none, anything else a book file (flank's text or Edax's `.dat`,
/// see [`read_book_file`]).
///
/// # Errors
/// An unreadable or malformed book file (`cannot read book FILE: line 7: …`,
/// `cannot read book FILE: byte 38: …`).
pub fn load_book(value: Option<&str>) -> Result<Option<Arc<Book>>> {
    match value {
        None | Some("default") => Ok(Some(Arc::new(Book::embedded()))),
        Some("off") => Ok(None),
        Some(path) => Ok(Some(Arc::new(read_book_file(Path::new(path))?))),
    }
}

/// True if the file `path` starts like an Edax file (see [`edax::is_edax`]); false when it
/// does not or cannot be read.
pub fn is_edax_book(path: &Path) -> bool {
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| edax::is_edax(&head))
}

/// Writes `bytes` to `path` through [`crate::data::write_atomically`].
///
/// # Errors
/// A write or rename failure, with the path.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::data::write_atomically(path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
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

/// Reads the book file `path`: an Edax book when it starts with Edax's magic bytes
/// ([`Book::from_edax`]), else a flank text book ([`Book::parse`]).
///
/// # Errors
/// `cannot read book PATH`, with the I/O or format error (a line number for a text book, a
/// byte offset for an Edax book).
pub fn read_book_file(path: &Path) -> Result<Book> {
    let context = || format!("cannot read book {}", path.display());
    let bytes = crate::data::read_bytes(path, edax::MAX_FILE_BYTES).with_context(context)?;
    if edax::is_edax(&bytes) {
        return Book::from_edax(&bytes).with_context(context);
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("not UTF-8 text and not an Edax book"))
        .with_context(context)?;
    Book::parse(&text).with_context(context)
}

/// Runs `flank book import`: reads the Edax book `input` and writes it to `out` as a flank
/// text book (every Edax field kept, see [`crate::book::edax`]); prints a summary line to
/// `out_text`. Nothing is written when `input` is not a valid Edax book.
///
/// # Errors
/// An unreadable or malformed Edax book, or a write failure.
pub fn run_book_import(input: &Path, out: &Path, out_text: &mut dyn Write) -> Result<()> {
    let context = || format!("cannot read book {}", input.display());
    let bytes = crate::data::read_bytes(input, edax::MAX_FILE_BYTES).with_context(context)?;
    let book = Book::from_edax(&bytes).with_context(context)?;
    write_atomically(out, book.to_text().as_bytes())?;
    let version = book.edax_header().map_or(String::new(), |h| {
        format!(", Edax {}.{}", h.version, h.release)
    });
    writeln!(
        out_text,
        "book: {} positions from {}{version}, depth {} -> {}",
        book.len(),
        input.display(),
        book.depth,
        out.display()
    )?;
    Ok(())
}

/// Runs `flank book export`: writes `book` to `out` in Edax's format
/// ([`Book::to_edax`]); prints a summary line to `out_text`.
///
/// # Errors
/// A write failure.
pub fn run_book_export(book: &Book, out: &Path, out_text: &mut dyn Write) -> Result<()> {
    let bytes = book.to_edax()?;
    write_atomically(out, &bytes)?;
    writeln!(
        out_text,
        "book: {} positions -> {} (Edax format, {} bytes)",
        book.len(),
        out.display(),
        bytes.len()
    )?;
    Ok(())
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
    if s.extend && is_edax_book(&s.out) {
        bail!(
            "{} is an Edax book: learn into a flank book (flank book import {} --out BOOK.txt)",
            s.out.display(),
            s.out.display()
        );
    }
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
    write_atomically(&s.out, book.to_text().as_bytes())?;
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
/// (`d6 +0 1234 games`), then the best move out of the book (`leaf -2`, or `leaf c4 -7` when
/// the book names the move), or `not in the book`. A position read from an Edax book ends
/// with an `edax` line: its value, bounds, links `[move:score]` and leaf `<move:score>` (best
/// first), level, finished games (wins, draws, losses) and incomplete lines.
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
    let extra = book.edax_position(&pos.board);
    let leaf_move = extra.as_ref().and_then(|x| x.leaf_move);
    match (e.leaf, leaf_move) {
        (Some(l), Some(m)) => writeln!(out, "leaf {m} {l:+}")?,
        (Some(l), None) => writeln!(out, "leaf {l:+}")?,
        (None, _) => writeln!(out, "leaf none (every move is in the book)")?,
    }
    if let Some(x) = extra {
        writeln!(out, "{}", edax_line(e.value, e.games, &x))?;
    }
    Ok(())
}

/// `edax +0 [-2,+2] | [d3:+0] <d6:+0> | level 21; 16 full games: 8 wins, 8 draws, 0 losses;
/// 264 incomplete lines`: an Edax position of value `value` and `lines` lines as `show`
/// prints it (moves best first, the leaf after the links it ties with).
fn edax_line(value: crate::othello::board::Score, lines: u32, x: &edax::EdaxExtra) -> String {
    let mut moves: Vec<(i8, bool, String)> = x
        .links
        .iter()
        .map(|l| (l.score, false, format!("[{}:{:+}]", l.mv, l.score)))
        .collect();
    if let Some(m) = x.leaf_move {
        moves.push((x.leaf_score, true, format!("<{m}:{:+}>", x.leaf_score)));
    }
    moves.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let moves: Vec<String> = moves.into_iter().map(|m| m.2).collect();
    let full = x.full_games();
    let incomplete = u64::from(lines).saturating_sub(full);
    format!(
        "edax {value:+} [{:+},{:+}] | {} | level {}; {full} full games: {} wins, {} draws, {} losses; {incomplete} incomplete lines",
        x.lower,
        x.upper,
        moves.join(" "),
        x.level,
        x.wins,
        x.draws,
        x.losses
    )
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
