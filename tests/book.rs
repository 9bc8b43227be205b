//! The opening book: `flank book build|learn|show` on small game files (the same book at any
//! thread count), bad input, and the book in play: GTP `genmove` and NBoard `go`, `hint`,
//! `learn`.

mod common;

use std::path::{Path, PathBuf};

use common::flank;
use flank::book::Book;
use flank::notation::parse_transcript;
use flank::othello::Position;
use flank::othello::square::{Move, Square};

/// A temporary directory of this test (removed first if a previous run left it).
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flank-book-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `n` legal games of `plies` moves from the start, as transcripts: game `g` plays, at ply
/// `p`, legal move number `(g * 7 + p * 3) % count`, but the first `shared` plies of every
/// game follow game 0's line (so the games share an opening).
fn games(n: usize, plies: usize, shared: usize) -> Vec<String> {
    (0..n)
        .map(|g| {
            let mut pos = Position::start();
            let mut t = String::new();
            for p in 0..plies {
                let moves = pos.board.moves();
                if moves == 0 {
                    break;
                }
                let count = moves.count_ones() as usize;
                let k = if p < shared {
                    p % count
                } else {
                    (g * 7 + p * 3) % count
                };
                let mut bits = moves;
                for _ in 0..k {
                    bits &= bits - 1;
                }
                let sq = Square::from_index(bits.trailing_zeros() as u8);
                t.push_str(&sq.to_string());
                pos = pos.play(Move::Play(sq)).unwrap();
            }
            t
        })
        .collect()
}

fn write_games(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Builds a book from `games` at `threads` threads; returns its path and the summary line.
fn build(dir: &Path, games: &Path, out: &str, threads: &str) -> (PathBuf, String) {
    let out = dir.join(out);
    let (code, stdout, stderr) = flank(
        &[
            "book",
            "build",
            "--no-wthor",
            "--games",
            s(games),
            "--plies",
            "6",
            "--min-games",
            "2",
            "--depth",
            "4",
            "--hash",
            "1",
            "--threads",
            threads,
            "--out",
            s(&out),
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    (out, stdout)
}

fn read_book(p: &Path) -> Book {
    Book::parse(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn build_show_learn_and_the_same_book_at_any_thread_count() {
    let dir = temp_dir("build");
    let g = write_games(&dir, "games.txt", &games(12, 12, 3));
    let (b1, summary) = build(&dir, &g, "b1.txt", "2");
    let (b2, _) = build(&dir, &g, "b2.txt", "1");
    assert_eq!(
        std::fs::read_to_string(&b1).unwrap(),
        std::fs::read_to_string(&b2).unwrap()
    );
    let book = read_book(&b1);
    let n = book.len();
    assert!(
        summary.starts_with(&format!(
            "book: {n} positions ({n} new) from 12 games, depth 4, "
        )),
        "{summary}"
    );
    assert!(
        summary
            .trim_end()
            .ends_with(&format!(" s -> {}", b1.display())),
        "{summary}"
    );
    // The shared opening (3 plies: 3 positions) is in; every position reached by one game
    // only is not.
    assert!(book.len() >= 3);
    let start = book.get(&Position::start().board).unwrap();
    assert_eq!(start.games, 12);
    // `show` lists the entry and the book moves, best first, with their values.
    let (code, out, _) = flank(&["book", "show", "--book", s(&b1)], "");
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with(&format!(
        "{}: value {:+} (12 games, book depth 4)",
        Position::start(),
        start.value
    )));
    let moves = book.moves(&Position::start().board);
    assert_eq!(
        lines[1],
        format!(
            "{} {:+} {} games",
            moves[0].mv, moves[0].value, moves[0].games
        )
    );
    // A transcript names a position too; one outside the book says so.
    let far = &games(1, 12, 0)[0];
    let (code, out, _) = flank(&["book", "show", "--book", s(&b1), far], "");
    assert_eq!(code, 0);
    assert!(out.trim_end().ends_with("not in the book"), "{out}");
    // `learn` adds every position of the new games' first plies.
    let more = write_games(&dir, "more.txt", std::slice::from_ref(far));
    let (code, out, err) = flank(
        &[
            "book",
            "learn",
            "--book",
            s(&b1),
            "--plies",
            "8",
            "--hash",
            "1",
            s(&more),
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("book: "), "{out}");
    let learned = read_book(&b1);
    assert!(learned.len() > book.len());
    let (_, far_pos) = parse_transcript(&far[..14]).unwrap();
    assert!(learned.get(&far_pos.board).is_some());
    assert_eq!(learned.get(&Position::start().board).unwrap().games, 13);
}

#[test]
fn bad_books_and_inputs_exit_2_with_one_line() {
    let dir = temp_dir("bad");
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        format!("# flank book v1 depth=4\n{} X 99 - 1\n", "-".repeat(64)),
    )
    .unwrap();
    let missing = dir.join("missing.txt");
    let x = dir.join("x.txt");
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["book", "show", "--book", s(&missing)],
            format!("cannot read book {}", s(&missing)),
        ),
        (
            vec!["book", "show", "--book", s(&bad)],
            format!("cannot read book {}: line 2:", s(&bad)),
        ),
        (
            vec!["book", "show", "--book", "off"],
            "no book to show".to_string(),
        ),
        (
            vec!["book", "show", "z9z9"],
            "neither a board string nor a transcript".to_string(),
        ),
        (
            vec!["book", "build", "--no-wthor", "--out", s(&x)],
            "no games to build a book from".to_string(),
        ),
        (vec!["gtp", "--book", s(&bad)], "line 2:".to_string()),
        (
            vec!["nboard", "--book", s(&missing)],
            "cannot read book".to_string(),
        ),
    ];
    for (args, want) in cases {
        let (code, out, err) = flank(&args, "quit\n");
        assert_eq!(code, 2, "{args:?}: {out} {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(&want), "{args:?}: {err}");
    }
    let g = write_games(&dir, "g.txt", &["f5d6c3".to_string(), "f5z9".to_string()]);
    let (code, _, err) = flank(
        &[
            "book",
            "build",
            "--no-wthor",
            "--games",
            s(&g),
            "--out",
            s(&dir.join("y.txt")),
        ],
        "",
    );
    assert_eq!(code, 2);
    assert!(err.contains("g.txt:2"), "{err}");
}

#[test]
fn gtp_and_nboard_play_from_the_book() {
    let dir = temp_dir("play");
    let g = write_games(&dir, "games.txt", &games(12, 12, 3));
    let (b, _) = build(&dir, &g, "b.txt", "1");
    let book = read_book(&b);
    let best = book.moves(&Position::start().board)[0];
    // GTP: the best book move at once, any level but easy.
    let (code, out, _) = flank(
        &["gtp", "--book", s(&b), "--threads", "1"],
        "genmove b\nquit\n",
    );
    assert_eq!(code, 0);
    assert_eq!(out, format!("= {}\n\n=\n\n", best.mv));
    // With randomness every answer is still a book move within the bound.
    let within: Vec<String> = book
        .moves(&Position::start().board)
        .iter()
        .filter(|m| m.value >= best.value - 64)
        .map(|m| m.mv.to_string())
        .collect();
    for seed in ["1", "2", "3"] {
        let args = [
            "gtp",
            "--book",
            s(&b),
            "--book-randomness",
            "64",
            "--seed",
            seed,
            "--threads",
            "1",
        ];
        let (_, a, _) = flank(&args, "genmove b\n");
        let (_, again, _) = flank(&args, "genmove b\n");
        assert_eq!(a, again, "the same seed, the same move");
        let mv = a.trim().trim_start_matches("= ");
        assert!(within.contains(&mv.to_string()), "{a}");
    }
    // NBoard: the seed of the book's randomness gives the same first move every time.
    let first = |seed: &str| {
        let (_, out, _) = flank(
            &[
                "nboard",
                "--book",
                s(&b),
                "--book-randomness",
                "64",
                "--seed",
                seed,
            ],
            "set depth 4\ngo\n",
        );
        out.lines().last().unwrap_or("").to_string()
    };
    assert_eq!(first("5"), first("5"));
    assert!(first("5").starts_with("=== "));
    // NBoard: `go` answers the book move with a book line; `hint` lists the book moves.
    let start = "set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *];)";
    let (code, out, _) = flank(
        &["nboard", "--book", s(&b), "--threads", "1"],
        &format!("nboard 2\nset depth 4\n{start}\ngo\nhint 4\nping 1\n"),
    );
    assert_eq!(code, 0);
    let l: Vec<&str> = out.lines().collect();
    let up = best.mv.to_upper();
    assert_eq!(
        l[1],
        format!("book {up} {:.2} {} 4", f64::from(best.value), best.games)
    );
    assert!(
        l[2].starts_with(&format!("=== {up}/{:.2}/", f64::from(best.value))),
        "{out}"
    );
    let hints: Vec<&&str> = l
        .iter()
        .skip(3)
        .take_while(|x| x.starts_with("book "))
        .collect();
    assert_eq!(
        hints.len(),
        book.moves(&Position::start().board).len(),
        "{out}"
    );
    assert_eq!(*l.last().unwrap(), "pong 1");
    // `learn` adds the game to the book file.
    let far = &games(1, 20, 0)[0];
    let tags: String = parse_transcript(far)
        .unwrap()
        .0
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{}[{}]", if i % 2 == 0 { "B" } else { "W" }, m))
        .collect();
    let before = book.len();
    let (code, out, _) = flank(
        &["nboard", "--book", s(&b), "--threads", "1"],
        &format!("nboard 2\nset game (;GM[Othello]{tags};)\nlearn\nping 2\n"),
    );
    assert_eq!(code, 0);
    assert_eq!(out, "set myname flank\nlearned\npong 2\n");
    assert!(read_book(&b).len() > before);
}
