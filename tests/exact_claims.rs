//! Exact scores inside a game: the transcript of a real game whose 16-empties `genmove` once
//! answered a move worth −30 with the claim "score −2 exact" (the TT entry of that position
//! joined a fail-high's lower bound with a fail-low's move), replayed through the `flank`
//! binary; the same position solved from a table seeded with those two bounds; and a WLD
//! solve's progress report, which gives a sign, never a disc count called exact.

mod common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use common::flank;
use flank::notation::parse_board_string;
use flank::othello::square::{Move, Square};
use flank::search::Searcher;
use flank::search::tt::{Bound, TranspositionTable};

/// Black to move at 16 empties; h7 is the only move worth −2 (b2 is worth −30).
const POSITION: &str = "--O-O---O-OOOO---OOXXXX-XOOOXXXXXOOOOXX-XXOOOOX-X-OXXOO--OOOOOOO X";

/// Black's moves of the game before that position, as flank played them.
const BLACK_MOVES: [&str; 18] = [
    "f3", "e6", "f6", "b3", "g6", "c8", "e2", "b5", "a4", "a7", "c2", "d8", "e8", "g7", "f7", "h4",
    "g4", "g3",
];

fn sq(name: &str) -> Square {
    name.parse().expect("a square name")
}

#[test]
fn a_fail_low_move_never_answers_an_exact_score() {
    let b = parse_board_string(POSITION).unwrap().board;
    assert_eq!(b.empties(), 16);
    let tt = Arc::new(TranspositionTable::new(16));
    let mut s = Searcher::new(tt.clone(), Arc::new(AtomicBool::new(false)), None);
    // The game's table: a null-window search at -3 fails high (value >= -2, by h7) ...
    assert_eq!(s.nws(&b, -3, 16), -2);
    let e = tt.probe(&b).unwrap();
    assert_eq!((e.lower, e.best), (-2, Some(sq("h7").index() as u8)));
    // ... and a later one at -2 fails low, naming b2 (value <= -2 holds for every move).
    tt.store(&b, -2, Bound::Upper, 16, Some(sq("b2").index() as u8), true);
    let e = tt.probe(&b).unwrap();
    assert_eq!((e.bound, e.score), (Bound::Exact, -2));
    assert_eq!(
        e.best,
        Some(sq("h7").index() as u8),
        "the entry keeps the fail-high's move"
    );
    let r = s.solve(&b, -64, 64).unwrap();
    assert_eq!((r.best, r.score), (Move::Play(sq("h7")), -2));
    assert_eq!(r.pv.first(), Some(&r.best));
}

#[test]
fn the_game_transcript_plays_h7_at_16_empties() {
    // The transcript as recorded, with black's recorded move forced after each `genmove`
    // (`undo`, then `play`), so that a different choice under another load cannot change the
    // game; every search still leaves its entries in the table.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/wrong-exact-16-empties.gtp"
    ))
    .unwrap();
    let mut input = String::new();
    let mut genmoves = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        input.push_str(line);
        input.push('\n');
        if line.trim() == "genmove b" {
            genmoves += 1;
            if genmoves <= BLACK_MOVES.len() {
                input.push_str(&format!("undo\nplay b {}\n", BLACK_MOVES[genmoves - 1]));
            } else {
                // The position at the 19th genmove; nothing after it is needed.
                break;
            }
        }
    }
    input.push_str("quit\n");
    let (code, out, err) = flank(&["gtp", "--threads", "1", "--verbose"], &input);
    assert_eq!(code, 0, "{err}");
    let answers: Vec<&str> = out.split("\n\n").filter(|a| !a.trim().is_empty()).collect();
    assert!(answers.iter().all(|a| a.starts_with('=')), "{out}");
    let moves: Vec<&str> = answers
        .iter()
        .filter_map(|a| a.strip_prefix("= "))
        .collect();
    // Every genmove answered a move (the other commands answer `=` alone).
    assert_eq!(moves.len(), 19, "{out}");
    assert_eq!(moves[18], "h7", "{err}");
    let claims: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("flank: black"))
        .collect();
    assert_eq!(claims.len(), 19, "{err}");
    assert!(
        claims[18].starts_with("flank: black (level hard) h7 score -2 exact depth 16 "),
        "{}",
        claims[18]
    );
}

#[test]
fn a_wld_solve_reports_a_sign_not_a_disc_count() {
    use flank::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
    let b = parse_board_string(POSITION).unwrap().board;
    let mut engine = Engine::new(EngineConfig {
        hash_mb: 16,
        threads: 1,
    });
    let limits = SearchLimits {
        mode: SolveMode::Wld,
        ..Default::default()
    };
    let mut infos = Vec::new();
    let r = engine.search(&b, &limits, &mut |i| infos.push(i.clone()));
    // The position is lost by 2: a loss, proven only as such.
    assert_eq!((r.score, r.exact, r.wld), (-1, true, true));
    let last = infos.last().expect("the solve reports its result");
    assert_eq!((last.score, last.exact, last.wld), (-1, true, true));
    // An exact solve reports the disc count, not a WLD result.
    let limits = SearchLimits {
        mode: SolveMode::Exact,
        ..Default::default()
    };
    infos.clear();
    let r = engine.search(&b, &limits, &mut |i| infos.push(i.clone()));
    assert_eq!((r.best, r.score, r.wld), (Move::Play(sq("h7")), -2, false));
    let last = infos.last().unwrap();
    assert_eq!((last.score, last.exact, last.wld), (-2, true, false));
}
