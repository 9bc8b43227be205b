//! The opening book: positions with their negamax values, looked up by any of the 8
//! symmetries, the move choice from it (best, or at random within an error bound), and its
//! text file format; [`build`] makes and extends books.
//!
//! A book holds positions (never a game-over or a must-pass position). Each has
//! - `value`: its value in discs for the side to move, the negamax of its book children's
//!   values and its leaf;
//! - `leaf`: the value of its best move whose child is not in the book, from a search at the
//!   book's depth (`None` when every legal move leads into the book);
//! - `games`: how many source games went through it.
//!
//! The moves of a position are its legal moves whose child is in the book, each worth minus
//! the child's value (passes are looked through: a child whose side to move must pass counts
//! by the position after the pass). Like Edax's books (deviations searched, values propagated
//! by negamax), with flank's own format.
//!
//! File format (text, one position a line, `#` starts a comment line):
//!
//! ```text
//! # flank book v1 depth=12
//! <64 cells> <X|O> <value> <leaf|-> <games>
//! ```
//!
//! The board string is a position in its canonical orientation (the least of its 8
//! symmetries); values are whole discs, −64…64. A book read from Edax's format ([`edax`])
//! keeps Edax's fields: a `# edax …` comment line after the header
//! ([`edax::EdaxHeader::to_comment`]) and a sixth word on each line
//! ([`edax::EdaxExtra::to_field`]).

pub mod build;
pub mod edax;

use std::collections::HashMap;

use rand::Rng;

use crate::notation::{ParseError, parse_board_string};
use crate::othello::Position;
use crate::othello::board::{Board, Score, Symmetry};
use crate::othello::square::{Color, Square};
use edax::{EdaxExtra, EdaxHeader};

/// The built-in book (see `docs/book.md` for how it was built).
const EMBEDDED: &str = include_str!("../../book/flank-book.txt");

/// The deepest leaf search a book may name, in plies (`depth=` of the header).
pub const MAX_DEPTH: u32 = 30;

/// The first line of a book file, before its settings.
pub const HEADER: &str = "# flank book v1";

/// One book position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Negamax value in discs, side to move's view.
    pub value: Score,
    /// The best value of a move leading out of the book, if any move does.
    pub leaf: Option<Score>,
    /// Source games through the position.
    pub games: u32,
}

/// A move the book knows, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub mv: Square,
    /// Its value in discs from the mover's view (minus the child's value).
    pub value: Score,
    /// Source games through the child.
    pub games: u32,
}

/// An opening book (see the module header).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    entries: HashMap<(u64, u64), Entry>,
    /// The search depth of the leaves, in plies (from the file header).
    pub depth: u32,
    /// The Edax fields of positions read from an Edax book, by canonical key, moves as on the
    /// canonical board; dropped when the entry is replaced or the values change.
    edax: HashMap<(u64, u64), EdaxExtra>,
    /// The header of the Edax book the book was read from.
    edax_header: Option<EdaxHeader>,
}

/// The canonical key of `board`: the least (player, opponent) pair over the 8 symmetries.
pub fn key(board: &Board) -> (u64, u64) {
    Symmetry::ALL
        .iter()
        .map(|&s| {
            let b = board.transform(s);
            (b.player, b.opponent)
        })
        .min()
        .unwrap_or((board.player, board.opponent))
}

/// `board` if its side to move has a move, else the position after the pass (a game-over
/// position stays as it is).
fn through_pass(board: &Board) -> Board {
    if !board.has_moves() && !board.is_game_over() {
        board.pass()
    } else {
        *board
    }
}

impl Book {
    /// The built-in book.
    pub fn embedded() -> Book {
        // The embedded file is checked by the tests.
        Book::parse(EMBEDDED).unwrap_or_default()
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if the book holds no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of `board` (any orientation), if it is in the book.
    pub fn get(&self, board: &Board) -> Option<&Entry> {
        self.entries.get(&key(board))
    }

    /// Sets the entry of `board` (dropping any Edax fields it was read with: see
    /// [`Book::edax_position`]).
    pub fn insert(&mut self, board: &Board, entry: Entry) {
        let k = key(board);
        self.edax.remove(&k);
        self.entries.insert(k, entry);
    }

    /// Every position, as (canonical board, entry), in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Board, &Entry)> {
        self.entries.iter().map(|(&(p, o), e)| {
            (
                Board {
                    player: p,
                    opponent: o,
                },
                e,
            )
        })
    }

    /// The book moves of `board` (legal moves whose child, through a pass, is in the book),
    /// best first (ties by more games).
    pub fn moves(&self, board: &Board) -> Vec<BookMove> {
        let mut out: Vec<BookMove> = board
            .legal_moves()
            .filter_map(|sq| {
                let child = board.make_move(sq);
                let after = through_pass(&child);
                let passed = after != child;
                self.get(&after).map(|e| BookMove {
                    mv: sq,
                    value: if passed { e.value } else { -e.value },
                    games: e.games,
                })
            })
            .collect();
        out.sort_by(|a, b| b.value.cmp(&a.value).then(b.games.cmp(&a.games)));
        out
    }

    /// The move to play from the book in `board`, or `None` (not in the book, or the best
    /// move leads out of it: the search decides). With `randomness` = 0 the best book move
    /// (the most played among equals); otherwise any book move within `randomness` discs of
    /// the position's value, drawn uniformly from `rng`.
    pub fn choose<R: Rng>(&self, board: &Board, randomness: u32, rng: &mut R) -> Option<BookMove> {
        let entry = self.get(board)?;
        let moves = self.moves(board);
        let best = moves.first()?;
        if entry.leaf.is_some_and(|l| l > best.value) {
            return None;
        }
        let floor = i64::from(entry.value.max(best.value)) - i64::from(randomness);
        let near: Vec<&BookMove> = moves
            .iter()
            .filter(|m| i64::from(m.value) >= floor)
            .collect();
        if randomness == 0 || near.len() <= 1 {
            return Some(*best);
        }
        Some(*near[rng.gen_range(0..near.len())])
    }

    /// Reads a book file (see the module header).
    ///
    /// Errors: a [`BookError`] with the line number for a line that is not
    /// `<board> <value> <leaf|-> <games>` with values in −64…64 (and, optionally, a sixth
    /// word `edax=…` whose moves are legal), a board that is over or must pass, a side other
    /// than `X`, a position listed twice (in any of its 8 symmetries), a header without
    /// `depth=1..30`, a malformed `# edax` line, or a file without the header line.
    pub fn parse(text: &str) -> Result<Book, BookError> {
        // A byte-order mark some editors write is not part of the header.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.lines().enumerate();
        let depth = match lines.next() {
            Some((_, h)) if h.starts_with(HEADER) => h
                .split_whitespace()
                .find_map(|w| w.strip_prefix("depth="))
                .and_then(|d| d.parse::<u32>().ok())
                .filter(|d| (1..=MAX_DEPTH).contains(d))
                .ok_or_else(|| BookError::Line {
                    line: 1,
                    what: format!("expected depth=1..{MAX_DEPTH} in the header"),
                })?,
            _ => return Err(BookError::Header),
        };
        let mut book = Book {
            depth,
            ..Book::default()
        };
        // The line each position was read from, to name both lines of a duplicate.
        let mut first_line: HashMap<(u64, u64), usize> = HashMap::new();
        for (i, line) in lines {
            let line = line.trim();
            let bad = |what: &str| BookError::Line {
                line: i + 1,
                what: what.to_string(),
            };
            if line.starts_with("# edax ") {
                if book.edax_header.is_some() {
                    return Err(bad("a second '# edax' line"));
                }
                book.edax_header = Some(EdaxHeader::parse_comment(line).map_err(|e| bad(&e))?);
                continue;
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() != 5 && fields.len() != 6 {
                return Err(bad("expected: board side value leaf games [edax=…]"));
            }
            if fields[1] != "X" {
                return Err(bad(&format!(
                    "side '{}': the side to move is written X (its discs X, the other side's O)",
                    fields[1]
                )));
            }
            let pos = parse_board_string(&format!("{} {}", fields[0], fields[1]))
                .map_err(|e: ParseError| bad(&e.to_string()))?;
            if !pos.board.has_moves() {
                return Err(bad("a position whose side to move has no move"));
            }
            let score = |s: &str| {
                s.parse::<Score>()
                    .ok()
                    .filter(|v| (-64..=64).contains(v))
                    .ok_or_else(|| bad(&format!("bad value '{s}' (expected -64..64)")))
            };
            let value = score(fields[2])?;
            let leaf = match fields[3] {
                "-" => None,
                s => Some(score(s)?),
            };
            let games = fields[4]
                .parse::<u32>()
                .map_err(|_| bad("bad game count"))?;
            if let Some(first) = first_line.insert(key(&pos.board), i + 1) {
                return Err(bad(&format!(
                    "the position of line {first} again (or a symmetric one)"
                )));
            }
            book.insert(&pos.board, Entry { value, leaf, games });
            if let Some(word) = fields.get(5) {
                let extra = EdaxExtra::parse_field(word, &pos.board).map_err(|e| bad(&e))?;
                if extra.leaf_value() != leaf {
                    return Err(bad("the edax leaf score differs from the leaf value"));
                }
                book.set_edax_position(&pos.board, &extra);
            }
        }
        Ok(book)
    }

    /// The book as a file: the header (and the `# edax` line of a book read from Edax's
    /// format), then one line a position, sorted by empties (most first) then board, so the
    /// same book always gives the same text; a position with Edax fields gets them as a sixth
    /// word.
    pub fn to_text(&self) -> String {
        let mut rows: Vec<(u32, String)> = self
            .iter()
            .map(|(b, e)| {
                let pos = Position {
                    board: b,
                    side: Color::Black,
                };
                let cells = pos.cells();
                let leaf = e.leaf.map_or("-".to_string(), |l| l.to_string());
                let mut row = format!("{cells} X {} {leaf} {}", e.value, e.games);
                if let Some(extra) = self.edax.get(&(b.player, b.opponent)) {
                    row.push(' ');
                    row.push_str(&extra.to_field());
                }
                (b.empties(), row)
            })
            .collect();
        rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut out = format!("{HEADER} depth={}\n", self.depth);
        if let Some(h) = &self.edax_header {
            out.push_str(&h.to_comment());
            out.push('\n');
        }
        for (_, r) in rows {
            out.push_str(&r);
            out.push('\n');
        }
        out
    }

    /// Recomputes every value by negamax from the leaves: positions with the fewest empties
    /// first, each worth the best of its leaf and its book moves. When a value changes, the
    /// Edax fields of every position are dropped (their link scores no longer hold).
    pub fn propagate(&mut self) {
        let mut changed = false;
        let mut keys: Vec<((u64, u64), u32)> = self
            .entries
            .keys()
            .map(|&(p, o)| ((p, o), 64 - (p | o).count_ones()))
            .collect();
        keys.sort_by_key(|&(k, e)| (e, k));
        for (k, _) in keys {
            let board = Board {
                player: k.0,
                opponent: k.1,
            };
            let best = self.moves(&board).first().map(|m| m.value);
            let entry = self.entries[&k];
            let value = match (best, entry.leaf) {
                (Some(b), Some(l)) => b.max(l),
                (Some(b), None) => b,
                (None, Some(l)) => l,
                (None, None) => entry.value,
            };
            if let Some(e) = self.entries.get_mut(&k) {
                changed |= e.value != value;
                e.value = value;
            }
        }
        if changed {
            self.edax.clear();
        }
    }
}

/// Why a book file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookError {
    /// The first line is not [`HEADER`]. Display: `not a flank book (expected '# flank book v1' first)`.
    Header,
    /// A bad line (1-based). Display: `line 7: bad value 'x' (expected -64..64)`.
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

impl std::fmt::Display for BookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BookError::Header => write!(f, "not a flank book (expected '{HEADER}' first)"),
            BookError::Line { line, what } => write!(f, "line {line}: {what}"),
        }
    }
}

impl std::error::Error for BookError {}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn after(t: &str) -> Board {
        crate::notation::parse_transcript(t).unwrap().1.board
    }

    #[test]
    fn symmetric_positions_share_an_entry_and_moves_come_back_oriented() {
        let mut book = Book {
            depth: 4,
            ..Book::default()
        };
        let e = |v| Entry {
            value: v,
            leaf: Some(v),
            games: 1,
        };
        book.insert(&Board::start(), e(0));
        // The four first moves are symmetric: one entry.
        book.insert(&after("f5"), e(0));
        assert_eq!(book.len(), 2);
        assert!(book.get(&after("d3")).is_some());
        let moves = book.moves(&Board::start());
        assert_eq!(moves.len(), 4);
        book.insert(&after("f5d6"), e(-3));
        book.insert(&after("f5f6"), e(1));
        book.propagate();
        // f5: white's best is f6 (worth 3 - ... ) the negamax of the children.
        let f5 = book.get(&after("f5")).unwrap();
        assert_eq!(f5.value, 3);
        assert_eq!(book.get(&Board::start()).unwrap().value, 0);
        let m = book.moves(&after("f5"));
        assert_eq!(m[0].mv.to_string(), "d6");
        assert_eq!(m[0].value, 3);
        // Round trip through the text form.
        let again = Book::parse(&book.to_text()).unwrap();
        assert_eq!(again.to_text(), book.to_text());
        // A position listed twice, as written or in another orientation, is refused.
        let text = book.to_text();
        let first = text.lines().nth(1).unwrap();
        let e = Book::parse(&format!("{text}{first}\n"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "line 6: the position of line 2 again (or a symmetric one)"
        );
        let f5 = Position {
            board: after("f5"),
            side: Color::Black,
        };
        let d3 = Position {
            board: after("d3"),
            side: Color::Black,
        };
        let one = |p: &Position| format!("{} X 0 - 1\n", p.cells());
        let e = Book::parse(&format!(
            "# flank book v1 depth=4\n{}{}",
            one(&f5),
            one(&d3)
        ))
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "line 3: the position of line 2 again (or a symmetric one)"
        );
        // The side to move is always written X; a byte-order mark before the header is fine.
        let e = Book::parse(&format!(
            "# flank book v1 depth=4\n{} O 0 - 1\n",
            f5.cells()
        ))
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("line 2: side 'O'"), "{e}");
        let bom = format!("\u{feff}{}", book.to_text());
        assert_eq!(Book::parse(&bom).unwrap().to_text(), book.to_text());
        let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(1);
        assert_eq!(
            book.choose(&after("f5"), 0, &mut rng)
                .unwrap()
                .mv
                .to_string(),
            "d6"
        );
    }

    #[test]
    fn bad_files_name_the_line() {
        assert_eq!(Book::parse("x").unwrap_err(), BookError::Header);
        let e = Book::parse(&format!("{HEADER} depth=4\n{} X 99 - 1\n", "-".repeat(64)));
        assert!(e.unwrap_err().to_string().starts_with("line 2:"));
        for header in ["depth=0", "depth=31", "depth=999", ""] {
            let e = Book::parse(&format!("{HEADER} {header}\n")).unwrap_err();
            assert_eq!(e.to_string(), "line 1: expected depth=1..30 in the header");
        }
    }

    #[test]
    fn the_embedded_book_reads() {
        let b = Book::parse(EMBEDDED).expect("the embedded book is well formed");
        assert!(b.len() > 100, "{} positions", b.len());
        assert!(b.get(&Board::start()).is_some());
    }
}
