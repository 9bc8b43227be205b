//! Edax `.dat` books: the shared Edax book read and checked against every line of what Edax
//! prints for it (`books/edax-test-book.expected`), the round trip through flank's formats,
//! truncated and corrupted files (an error naming a byte offset, never a panic), and the CLI
//! (`book import`, `book export`, `--book FILE.dat`).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::flank;
use flank::book::Book;
use flank::book::edax::{self, EdaxExtra};
use flank::notation::parse_transcript;
use flank::othello::{Board, Color, Position, Square};

const DAT: &str = "books/edax-test-book.dat";
const EXPECTED: &str = "books/edax-test-book.expected";

use common::data_bytes;

/// A temporary directory of this test (removed first if a previous run left it).
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flank-edax-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `+1` / `-7` / `0` as a number.
fn num(t: &str) -> i32 {
    t.trim()
        .parse()
        .unwrap_or_else(|_| panic!("bad number '{t}'"))
}

/// `[d3:+0]` or `<c4:-7>` without its brackets, as (move, score).
fn move_score(t: &str) -> (Square, i32) {
    let (m, v) = t[1..t.len() - 1].split_once(':').unwrap();
    (m.parse().unwrap(), num(v))
}

/// What one line of the expected file states about a position (every field the line has).
#[derive(Debug, Default)]
struct Expected {
    moves: String,
    side: String,
    in_book: bool,
    best: i32,
    bounds: (i32, i32),
    links: BTreeSet<(Square, i32)>,
    leaf: Option<(Square, i32)>,
    level: Option<u8>,
    full_games: Option<u64>,
    percents: Option<(u64, u64, u64)>,
    incomplete: Option<u64>,
}

/// Parses a line `moves | side | best [lower,upper] | moves listed   (counts)` or
/// `moves | side | not in the book`; panics on anything else, so no line goes unchecked.
fn parse_expected(line: &str) -> Expected {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let mut e = Expected {
        moves: if fields[0] == "start" {
            String::new()
        } else {
            fields[0].replace(' ', "")
        },
        side: fields[1].to_string(),
        ..Expected::default()
    };
    if fields.len() == 3 {
        assert_eq!(fields[2], "not in the book", "{line}");
        return e;
    }
    assert_eq!(fields.len(), 4, "{line}");
    e.in_book = true;
    let (best, bounds) = fields[2].split_once(' ').unwrap();
    e.best = num(best);
    let (lo, up) = bounds
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split_once(',')
        .unwrap();
    e.bounds = (num(lo), num(up));
    let (moves, counts) = match fields[3].split_once('(') {
        Some((m, c)) => (m, Some(c.trim_end_matches(')'))),
        None => (fields[3], None),
    };
    for t in moves.split_whitespace() {
        match t.as_bytes()[0] {
            b'[' => assert!(e.links.insert(move_score(t)), "{line}"),
            b'<' => {
                assert!(e.leaf.is_none(), "{line}");
                e.leaf = Some(move_score(t));
            }
            _ => panic!("unknown move '{t}' in: {line}"),
        }
    }
    for item in counts.into_iter().flat_map(|c| c.split(';')).map(str::trim) {
        let words: Vec<&str> = item.split_whitespace().collect();
        if let ["level", l] = words[..] {
            e.level = Some(l.parse().unwrap());
        } else if item.ends_with("incomplete lines") {
            e.incomplete = Some(words[0].parse().unwrap());
        } else if let Some((games, pct)) = item.split_once(':') {
            assert!(games.ends_with("full games"), "{item}");
            e.full_games = Some(games.split_whitespace().next().unwrap().parse().unwrap());
            let p: Vec<u64> = pct
                .split(',')
                .map(|x| x.split_whitespace().next().unwrap().parse().unwrap())
                .collect();
            assert!(
                pct.contains("% win") && pct.contains("% draw") && pct.contains("% loss"),
                "{item}"
            );
            e.percents = Some((p[0], p[1], p[2]));
        } else if item.ends_with("full games") {
            e.full_games = Some(words[0].parse().unwrap());
        } else {
            panic!("unknown count '{item}' in: {line}");
        }
    }
    e
}

/// `part` of `whole` in whole percent, rounded.
fn percent(part: u32, whole: u64) -> u64 {
    (f64::from(part) * 100.0 / whole as f64).round() as u64
}

#[test]
fn every_line_of_what_edax_prints_for_the_shared_book() {
    let Some((_, bytes)) = data_bytes(DAT) else {
        return;
    };
    let Some(expected) = common::data_file(EXPECTED) else {
        return;
    };
    let book = Book::from_edax(&bytes).unwrap();
    let mut checked = 0;
    let mut counts_checked = 0;
    for line in expected.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let e = parse_expected(line);
        let (_, pos) = parse_transcript(&e.moves).unwrap();
        let side = match pos.side {
            Color::Black => "black",
            Color::White => "white",
        };
        assert_eq!(side, e.side, "{line}");
        checked += 1;
        if !e.in_book {
            assert!(book.get(&pos.board).is_none(), "{line}");
            assert!(book.edax_position(&pos.board).is_none(), "{line}");
            continue;
        }
        let entry = book
            .get(&pos.board)
            .unwrap_or_else(|| panic!("not found: {line}"));
        let x: EdaxExtra = book.edax_position(&pos.board).unwrap();
        assert_eq!(entry.value, e.best, "{line}");
        assert_eq!((i32::from(x.lower), i32::from(x.upper)), e.bounds, "{line}");
        // The links, as the position after these moves sees them.
        let links: BTreeSet<(Square, i32)> =
            x.links.iter().map(|l| (l.mv, i32::from(l.score))).collect();
        assert_eq!(links, e.links, "{line}");
        // flank's own book moves (children found in the book) are the same moves and scores.
        let moves: BTreeSet<(Square, i32)> = book
            .moves(&pos.board)
            .iter()
            .map(|m| (m.mv, m.value))
            .collect();
        assert_eq!(moves, e.links, "{line}");
        assert_eq!(
            x.leaf_move.map(|m| (m, i32::from(x.leaf_score))),
            e.leaf,
            "{line}"
        );
        assert_eq!(entry.leaf, e.leaf.map(|l| l.1), "{line}");
        if let Some(l) = e.level {
            assert_eq!(x.level, l, "{line}");
            counts_checked += 1;
        }
        let full = x.full_games();
        if let Some(f) = e.full_games {
            assert_eq!(full, f, "{line}");
            counts_checked += 1;
        }
        if let Some(p) = e.percents {
            let got = (
                percent(x.wins, full),
                percent(x.draws, full),
                percent(x.losses, full),
            );
            assert_eq!(got, p, "{line}");
            counts_checked += 1;
        }
        if let Some(i) = e.incomplete {
            assert_eq!(u64::from(entry.games) - full, i, "{line}");
            counts_checked += 1;
        }
    }
    assert_eq!(checked, 8, "lines of the expected file");
    assert!(counts_checked >= 8, "{counts_checked} counts checked");
    // `flank book show` prints the same for a position in another orientation's transcript.
    let (code, out, err) = flank(&["book", "show", "--book", s(&data_path()), "f5f6"], "");
    assert_eq!(code, 0, "{err}");
    let line = expected
        .lines()
        .find(|l| l.starts_with("f5 f6 ") && l.contains('['))
        .unwrap();
    let e = parse_expected(line);
    let edax_line = out.lines().find(|l| l.starts_with("edax ")).unwrap();
    assert!(
        edax_line.starts_with(&format!(
            "edax {:+} [{:+},{:+}] | ",
            e.best, e.bounds.0, e.bounds.1
        )),
        "{out}"
    );
    let (leaf, score) = e.leaf.unwrap();
    assert!(edax_line.contains(&format!("<{leaf}:{score:+}>")), "{out}");
    assert!(out.contains(&format!("leaf {leaf} {score:+}\n")), "{out}");
}

/// The path of the shared Edax book (the caller has checked it exists).
fn data_path() -> PathBuf {
    flank::data::data_file(DAT).unwrap()
}

#[test]
fn the_file_is_read_whole_in_edaxs_layout() {
    let Some((_, bytes)) = data_bytes(DAT) else {
        return;
    };
    let (header, records) = edax::read(&bytes).unwrap();
    // The header's count is the number of records, and they fill the file exactly.
    let count = u32::from_le_bytes(bytes[38..42].try_into().unwrap());
    assert_eq!(records.len(), count as usize);
    let sizes: usize = records
        .iter()
        .map(|r| edax::RECORD_MIN_BYTES + 2 * r.extra.links.len())
        .sum();
    assert_eq!(edax::HEADER_BYTES + sizes, bytes.len());
    assert_eq!(
        (header.version, header.release),
        (bytes[8], bytes[9]),
        "{header:?}"
    );
    // Edax stores every position in its least symmetric form: flank's key, so the bit
    // layouts agree (bit 0 = a1, bit 7 = h1).
    for r in &records {
        assert_eq!(
            flank::book::key(&r.board),
            (r.board.player, r.board.opponent),
            "position at byte {}",
            r.offset
        );
    }
    assert!(records.iter().any(|r| r.board == Board::start()));
    let book = Book::from_edax(&bytes).unwrap();
    assert_eq!(book.len(), records.len());
    assert_eq!(book.edax_header(), Some(&header));
    assert_eq!(book.depth, header.level.clamp(1, 30) as u32);
}

#[test]
fn import_export_import_keeps_every_position_and_value() {
    let Some((path, bytes)) = data_bytes(DAT) else {
        return;
    };
    let book = Book::from_edax(&bytes).unwrap();
    let out = book.to_edax().unwrap();
    assert_eq!(out.len(), bytes.len());
    let again = Book::from_edax(&out).unwrap();
    assert_eq!(again, book);
    // Record by record, whatever the order of the file.
    let canonical = |b: &[u8]| {
        let (h, records) = edax::read(b).unwrap();
        let set: BTreeSet<String> = records
            .into_iter()
            .map(|r| format!("{:?} {} {} {:?}", r.board, r.value, r.lines, r.extra))
            .collect();
        (h, set)
    };
    assert_eq!(canonical(&out), canonical(&bytes));
    for (b, e) in book.iter() {
        assert_eq!(again.get(&b), Some(e));
        assert_eq!(again.edax_position(&b), book.edax_position(&b));
    }
    // Through flank's text format too, with the same bytes out.
    let text = book.to_text();
    let from_text = Book::parse(&text).unwrap();
    assert_eq!(from_text, book);
    assert_eq!(from_text.to_edax().unwrap(), out);

    // The CLI: import, export, import gives the same flank file; export of the .dat itself
    // gives the same bytes as export of its import.
    let dir = temp_dir("round-trip");
    let (a, b, c, d) = (
        dir.join("a.txt"),
        dir.join("b.dat"),
        dir.join("c.txt"),
        dir.join("d.dat"),
    );
    let (code, stdout, err) = flank(&["book", "import", s(&path), "--out", s(&a)], "");
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.starts_with(&format!(
            "book: {} positions from {}",
            book.len(),
            path.display()
        )),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), text);
    let (code, _, err) = flank(&["book", "export", "--book", s(&a), s(&b)], "");
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = flank(&["book", "import", s(&b), "--out", s(&c)], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&c).unwrap()
    );
    let (code, _, err) = flank(&["book", "export", "--book", s(&path), s(&d)], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&b).unwrap(), std::fs::read(&d).unwrap());
    assert_eq!(std::fs::read(&d).unwrap(), out);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_built_in_book_goes_to_edax_and_back() {
    let book = Book::embedded();
    let bytes = book.to_edax().unwrap();
    let again = Book::from_edax(&bytes).unwrap();
    assert_eq!(again.len(), book.len());
    for (b, e) in book.iter() {
        assert_eq!(again.get(&b), Some(e), "{b:?}");
        // Its book moves are the links Edax gets, with their values.
        let links: BTreeSet<(Square, i32)> = again
            .edax_position(&b)
            .unwrap()
            .links
            .iter()
            .map(|l| (l.mv, i32::from(l.score)))
            .collect();
        let moves: BTreeSet<(Square, i32)> =
            book.moves(&b).iter().map(|m| (m.mv, m.value)).collect();
        assert_eq!(links, moves);
    }
    // The same moves from the start either way.
    let start = Position::start().board;
    assert_eq!(again.moves(&start), book.moves(&start));
}

/// Reading `bytes` never panics; it gives an error that names a byte offset inside (or at the
/// end of) the input, or a book that writes and reads back as itself.
fn read_or_error(bytes: &[u8], what: &str) -> Result<Book, String> {
    let r = std::panic::catch_unwind(|| Book::from_edax(bytes))
        .unwrap_or_else(|_| panic!("{what}: the reader panicked"));
    match r {
        Ok(book) => {
            let out = book.to_edax().unwrap();
            assert_eq!(Book::from_edax(&out).unwrap(), book, "{what}");
            Ok(book)
        }
        Err(e) => {
            assert!(e.offset <= bytes.len(), "{what}: {e}");
            let text = e.to_string();
            assert!(text.starts_with(&format!("byte {}: ", e.offset)), "{text}");
            assert!(!text.contains('\n'), "{what}: {text}");
            Err(text)
        }
    }
}

#[test]
fn truncated_and_corrupted_files_give_an_error_or_a_valid_book() {
    let Some((_, bytes)) = data_bytes(DAT) else {
        return;
    };
    // Every 7th length, and one byte short: always an error (the count no longer fits).
    for cut in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
        let r = read_or_error(&bytes[..cut], &format!("cut at {cut}"));
        assert!(r.is_err(), "cut at {cut}");
    }
    // Every byte flipped (all bits, then the lowest): an error or a valid book.
    let mut errors = 0;
    let mut books = 0;
    for i in 0..bytes.len() {
        for mask in [0xFF, 0x01] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            match read_or_error(&b, &format!("byte {i} ^ {mask:#x}")) {
                Ok(_) => books += 1,
                Err(_) => errors += 1,
            }
        }
    }
    // Both happen: counters flip harmlessly, discs and moves do not.
    assert!(errors > 0 && books > 0, "{errors} errors, {books} books");
    // A stated count beyond what the file can hold is refused before anything is allocated.
    let mut huge = bytes.clone();
    huge[38..42].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = Book::from_edax(&huge).unwrap_err();
    assert_eq!(e.offset, 38, "{e}");
    // An extra byte at the end is refused, with its offset.
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(Book::from_edax(&longer).unwrap_err().offset, bytes.len());
}

#[test]
fn the_cli_reads_edax_books_and_refuses_bad_ones_in_one_line() {
    let Some((path, bytes)) = data_bytes(DAT) else {
        return;
    };
    let dir = temp_dir("cli");
    let short = dir.join("short.dat");
    std::fs::write(&short, &bytes[..1000]).unwrap();
    let out = dir.join("out.txt");
    // A truncated book: one line naming the byte, nothing written.
    for args in [
        vec!["book", "import", s(&short), "--out", s(&out)],
        vec!["book", "show", "--book", s(&short)],
        vec!["book", "export", "--book", s(&short), s(&out)],
        vec!["gtp", "--book", s(&short)],
        vec!["nboard", "--book", s(&short)],
    ] {
        let (code, _, err) = flank(&args, "quit\n");
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("flank: cannot read book {}: byte ", s(&short))),
            "{args:?}: {err}"
        );
        assert!(!out.exists(), "{args:?}");
    }
    // Importing a flank text book is refused; nothing is written.
    let text = dir.join("flank.txt");
    std::fs::write(&text, Book::embedded().to_text()).unwrap();
    let (code, _, err) = flank(&["book", "import", s(&text), "--out", s(&out)], "");
    assert_eq!(code, 2);
    assert!(err.contains("byte 0: not an Edax book"), "{err}");
    assert!(!out.exists());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        2,
        "no temporary file left"
    );
    // Learning into an Edax book is refused (its file would lose Edax's form); exporting no
    // book too.
    let copy = dir.join("copy.dat");
    std::fs::write(&copy, &bytes).unwrap();
    let games = dir.join("games.txt");
    std::fs::write(&games, "f5d6c3d3c4\n").unwrap();
    let (code, _, err) = flank(&["book", "learn", "--book", s(&copy), s(&games)], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is an Edax book"), "{err}");
    assert_eq!(std::fs::read(&copy).unwrap(), bytes);
    let (code, _, err) = flank(&["book", "export", "--book", "off", s(&out)], "");
    assert_eq!((code, err.trim()), (2, "flank: no book to export ('off')"));
    // GTP plays from an Edax book: the start's links are d3, c4, f5, e6, all worth 0.
    let (code, stdout, err) = flank(
        &["gtp", "--book", s(&path), "--threads", "1"],
        "genmove b\nquit\n",
    );
    assert_eq!(code, 0, "{err}");
    let mv = stdout.lines().next().unwrap().trim_start_matches("= ");
    let book = Book::from_edax(&bytes).unwrap();
    let links: Vec<String> = book
        .edax_position(&Board::start())
        .unwrap()
        .links
        .iter()
        .map(|l| l.mv.to_upper())
        .collect();
    assert!(links.contains(&mv.to_ascii_uppercase()), "{mv} {links:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
