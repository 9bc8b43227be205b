//! Multi-PV analysis (`flank::engine::analyze`, `flank analyze`): exact scores of every move against
//! the FFO lines' listed move scores, midgame invariants, stopping, and the CLI.

mod common;

use common::flank;
use flank::engine::analyze::analyze;
use flank::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use flank::notation::parse_problem_line;
use flank::othello::square::Move;

fn engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 16,
        threads: 1,
    })
}

#[test]
fn exact_scores_of_every_move_match_ffo_1_to_19() {
    let Some(text) = common::data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    let mut e = engine();
    let limits = SearchLimits {
        mode: SolveMode::Exact,
        ..SearchLimits::default()
    };
    let mut n = 0;
    for line in text.lines() {
        let Some(p) = parse_problem_line(line).unwrap() else {
            continue;
        };
        let board = p.position.board;
        let legal = board.moves().count_ones() as usize;
        let a = analyze(&mut e, &board, 64, &limits, &mut |_| {});
        assert!(a.exact && a.depth == board.empties(), "{line}");
        assert_eq!(a.moves.len(), legal, "{line}");
        for m in &a.moves {
            assert!(m.exact);
            assert_eq!(m.pv[0], Move::Play(m.mv));
            let mut pos = p.position;
            for x in &m.pv {
                pos = pos.play(*x).expect("legal PV");
            }
            assert!(
                pos.board.is_game_over(),
                "an exact PV ends the game: {line}"
            );
            if let Some((_, s)) = p.move_scores.iter().find(|(x, _)| *x == Move::Play(m.mv)) {
                assert_eq!(m.score, *s, "{line}: {}", m.mv);
            }
        }
        // The top N listed scores, best first.
        let mut want: Vec<i32> = p.move_scores.iter().map(|x| x.1).collect();
        want.sort_by(|a, b| b.cmp(a));
        let got: Vec<i32> = a.moves.iter().map(|m| m.score).take(want.len()).collect();
        assert_eq!(got, want, "{line}");
        // Asking for 3 gives the first 3 of them.
        let top = analyze(&mut e, &board, 3, &limits, &mut |_| {});
        let got: Vec<i32> = top.moves.iter().map(|m| m.score).collect();
        assert_eq!(got, want[..3], "{line}");
        n += 1;
    }
    assert_eq!(n, 19);
}

#[test]
fn midgame_iterations_report_sorted_legal_moves_and_stop_on_demand() {
    let mut e = engine();
    let board = flank::Board::start().make_move("f5".parse().unwrap());
    let limits = SearchLimits {
        depth: Some(6),
        mode: SolveMode::Midgame,
        ..SearchLimits::default()
    };
    let mut depths = Vec::new();
    let a = analyze(&mut e, &board, 2, &limits, &mut |a| depths.push(a.depth));
    assert_eq!(depths, [1, 2, 3, 4, 5, 6]);
    assert_eq!(a.depth, 6);
    assert!(!a.exact);
    assert_eq!(a.moves.len(), 2);
    assert!(a.moves[0].score >= a.moves[1].score);
    assert_ne!(a.moves[0].mv, a.moves[1].mv);
    for m in &a.moves {
        assert_eq!(m.depth, 6);
        assert!(board.moves() & m.mv.bit() != 0);
        assert!(m.pv.len() <= 6 && m.pv[0] == Move::Play(m.mv));
    }
    // A stop from another thread ends an unbounded analysis with its last complete set.
    let stop = e.stop_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let forever = SearchLimits {
        depth: Some(60),
        mode: SolveMode::Midgame,
        time_ms: Some(3_600_000),
        ..SearchLimits::default()
    };
    let a = analyze(&mut e, &board, 3, &forever, &mut |_| {});
    stopper.join().unwrap();
    assert_eq!(a.moves.len(), 3);
    assert!(a.depth >= 1 && a.depth < 40, "{}", a.depth);
    // No legal move: an empty list.
    let blocked: flank::Position = format!("XO{} O", "-".repeat(62)).parse().unwrap();
    let a = analyze(&mut e, &blocked.board, 3, &forever, &mut |_| {});
    assert!(a.moves.is_empty() && !a.exact);
}

#[test]
fn cli_analyze_prints_the_best_moves_and_rejects_bad_input() {
    let Some(text) = common::data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    let first: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    let (code, out, err) = flank(&["analyze", "--moves", "2", "-"], &first);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert!(lines[0].starts_with(
        "1 --XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X: 14 empties, "
    ));
    assert!(lines[1].starts_with("  g8 +18 exact g8 "), "{out}");
    assert!(lines[2].starts_with("  h1 +12 exact h1 "), "{out}");
    assert!(lines[4].starts_with("  a4 +10 exact a4 "), "{out}");
    assert!(lines[5].starts_with("  b2 +0 exact b2 "), "{out}");
    assert_eq!(err, "");
    // JSON, a pass and a midgame depth.
    let input = "XO-------------------------------------------------------------- O\n\
                 ---------------------------OX------XO--------------------------- X\n";
    let (code, out, err) = flank(&["analyze", "--json", "--depth", "4", "-v", "-"], input);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["state"], "pass");
    assert_eq!(rows[0]["moves"].as_array().unwrap().len(), 0);
    let moves = rows[1]["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3);
    assert_eq!(rows[1]["depth"], 4);
    for m in moves {
        assert!(["d3", "c4", "f5", "e6"].contains(&m["move"].as_str().unwrap()));
        assert_eq!(m["exact"], false);
    }
    // --verbose: per-iteration info on stderr only.
    assert!(err.contains("info depth 4 multipv 1 score "), "{err}");
    assert!(err.lines().all(|l| l.starts_with("info depth ")), "{err}");
    // Bad input: exit 2, one line.
    for (args, stdin, reason) in [
        (
            vec!["analyze", "-"],
            "XXXX\n",
            "flank: line 1: board string has 4 cells, expected 64 then the side to move",
        ),
        (vec!["analyze", "-"], "", "flank: no position in -"),
        (
            vec!["analyze", "--moves", "0", "-"],
            "",
            "flank: invalid value '0' for '--moves <MOVES>': expected a whole number in 1..=64 (see flank analyze --help)",
        ),
    ] {
        let (code, out, err) = flank(&args, stdin);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(out, "");
        assert_eq!(err.trim_end(), reason);
    }
}
