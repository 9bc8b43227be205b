//! Exact endgame solver tests against known scores: 1000 random 10-empties positions, FFO
//! #1–#19, WLD signs, and a tiny colliding transposition table.

mod common;

use common::data_file;

use flank::engine::{Engine, EngineConfig, SearchLimits, SearchResult, SolveMode};
use flank::notation::{Problem, parse_problem_line};
use flank::othello::board::Board;
use flank::othello::square::Move;

fn problems(text: &str) -> Vec<Problem> {
    text.lines()
        .filter_map(|l| parse_problem_line(l).expect("data file line parses"))
        .collect()
}

fn solve(engine: &mut Engine, b: &Board, mode: SolveMode) -> SearchResult {
    let limits = SearchLimits {
        mode,
        ..Default::default()
    };
    engine.search(b, &limits, &mut |_| {})
}

fn engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 16,
        threads: 1,
    })
}

#[test]
fn random_10_empties_scores_and_best_moves() {
    let Some(text) = data_file("endgame/random-10-empties-1k.txt") else {
        return;
    };
    let ps = problems(&text);
    assert_eq!(ps.len(), 1000);
    let mut e = engine();
    for (i, p) in ps.iter().enumerate() {
        let b = p.position.board;
        let r = solve(&mut e, &b, SolveMode::Exact);
        assert!(r.exact);
        assert_eq!(Some(r.score), p.expected, "position {i}: {}", p.position);
        assert_eq!(r.depth, b.empties());
        // The best move is consistent: its child solves to exactly -score.
        let child = match r.best {
            Move::Play(sq) => b.try_make_move(sq).expect("best move is legal"),
            Move::Pass => {
                assert!(!b.has_moves());
                b.pass()
            }
        };
        if !b.is_game_over() {
            let c = solve(&mut e, &child, SolveMode::Exact);
            assert_eq!(c.score, -r.score, "position {i}: best move {}", r.best);
        }
        // The PV is a legal line.
        let mut x = b;
        for m in &r.pv {
            x = match m {
                Move::Play(sq) => x.try_make_move(*sq).expect("PV move is legal"),
                Move::Pass => {
                    assert!(!x.has_moves());
                    x.pass()
                }
            };
        }
    }
}

#[test]
fn ffo_1_to_19_scores_and_best_moves() {
    let Some(text) = data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    let ps = problems(&text);
    assert_eq!(ps.len(), 19);
    let mut e = engine();
    for (i, p) in ps.iter().enumerate() {
        let r = solve(&mut e, &p.position.board, SolveMode::Exact);
        assert_eq!(Some(r.score), p.expected, "FFO #{}", i + 1);
        assert!(
            p.best_moves().contains(&r.best),
            "FFO #{}: {} not in {:?}",
            i + 1,
            r.best,
            p.best_moves()
        );
        // The PV starts with the best move.
        assert_eq!(r.pv.first(), Some(&r.best));
    }
}

#[test]
fn wld_agrees_in_sign_with_exact() {
    let Some(text) = data_file("endgame/random-10-empties-1k.txt") else {
        return;
    };
    let ps = problems(&text);
    let mut e = engine();
    for p in ps.iter().step_by(5) {
        let r = solve(&mut e, &p.position.board, SolveMode::Wld);
        assert!(r.exact);
        assert_eq!(
            Some(r.score),
            p.expected.map(|s| s.signum()),
            "{}",
            p.position
        );
    }
    let Some(text) = data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    for p in problems(&text).iter().take(8) {
        let r = solve(&mut e, &p.position.board, SolveMode::Wld);
        assert_eq!(
            Some(r.score),
            p.expected.map(|s| s.signum()),
            "{}",
            p.position
        );
        if r.score > 0 {
            // A winning WLD move is a winning move.
            let best = p.move_scores.iter().find(|(m, _)| *m == r.best);
            assert!(best.is_some_and(|(_, s)| *s > 0), "{}", p.position);
        }
        // The PV plays legally to the end of the game with the proven result.
        let (mut b, mut sign) = (p.position.board, 1);
        for m in &r.pv {
            b = match m {
                Move::Pass => b.pass(),
                Move::Play(sq) => {
                    assert!(b.moves() & (1u64 << sq.index()) != 0, "{}", p.position);
                    b.make_move(*sq)
                }
            };
            sign = -sign;
        }
        assert!(b.is_game_over(), "{}: PV {:?} ends early", p.position, r.pv);
        assert_eq!((sign * b.final_score()).signum(), r.score, "{}", p.position);
    }
}

#[test]
fn tiny_tt_gives_the_same_scores() {
    let Some(text) = data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    // One bucket of four slots: every position collides.
    let mut e = Engine::with_tt_bytes(
        EngineConfig {
            hash_mb: 0,
            threads: 1,
        },
        1,
    );
    for (i, p) in problems(&text).iter().enumerate().take(6) {
        let r = solve(&mut e, &p.position.board, SolveMode::Exact);
        assert_eq!(Some(r.score), p.expected, "FFO #{} with a tiny TT", i + 1);
    }
    let Some(text) = data_file("endgame/random-10-empties-1k.txt") else {
        return;
    };
    for p in problems(&text).iter().step_by(10) {
        let r = solve(&mut e, &p.position.board, SolveMode::Exact);
        assert_eq!(Some(r.score), p.expected, "{}", p.position);
    }
}

#[test]
fn pass_and_game_over_positions() {
    // Game over: a full board, 40 black (to move) vs 24 white.
    let b = Board::new(0x0000_00FF_FFFF_FFFF, 0xFFFF_FF00_0000_0000).unwrap();
    let mut e = engine();
    let r = solve(&mut e, &b, SolveMode::Exact);
    assert_eq!((r.best, r.score, r.exact), (Move::Pass, 16, true));
    // Positions where the side to move must pass: children of the data positions.
    let Some(text) = data_file("endgame/random-10-empties-1k.txt") else {
        return;
    };
    let mut found = 0;
    for p in problems(&text).iter().take(300) {
        let b = p.position.board;
        for sq in b.legal_moves() {
            let c = b.make_move(sq);
            if c.has_moves() || c.is_game_over() {
                continue;
            }
            let r = solve(&mut e, &c, SolveMode::Exact);
            let passed = solve(&mut e, &c.pass(), SolveMode::Exact);
            assert_eq!(r.best, Move::Pass);
            assert_eq!(r.score, -passed.score);
            assert_eq!(r.pv.first(), Some(&Move::Pass));
            assert!(r.exact);
            found += 1;
        }
    }
    assert!(found > 0, "no pass position among the children");
}

#[test]
fn lazy_smp_gives_the_same_scores() {
    let Some(text) = data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    let mut e = Engine::new(EngineConfig {
        hash_mb: 16,
        threads: 2,
    });
    for (i, p) in problems(&text).iter().enumerate().take(8) {
        let r = solve(&mut e, &p.position.board, SolveMode::Exact);
        assert_eq!(Some(r.score), p.expected, "FFO #{} with 2 threads", i + 1);
        assert!(p.best_moves().contains(&r.best), "FFO #{}", i + 1);
        let w = solve(&mut e, &p.position.board, SolveMode::Wld);
        assert_eq!(Some(w.score), p.expected.map(|s| s.signum()));
    }
}

#[test]
fn passed_deadline_still_gives_a_legal_move() {
    let Some(text) = data_file("endgame/fforum-20-39.obf") else {
        return;
    };
    let mut e = engine();
    for p in problems(&text).iter().skip(10).take(3) {
        let b = p.position.board;
        for mode in [
            SolveMode::Exact,
            SolveMode::Wld,
            SolveMode::Auto,
            SolveMode::Midgame,
        ] {
            let limits = SearchLimits {
                mode,
                time_ms: Some(0),
                deadline: Some(std::time::Instant::now()),
                ..Default::default()
            };
            let r = e.search(&b, &limits, &mut |_| {});
            let Move::Play(sq) = r.best else {
                panic!("{mode:?}: pass with legal moves")
            };
            assert!(b.try_make_move(sq).is_some(), "{mode:?}: illegal {sq}");
            // A solve cut off by the deadline does not claim to be exact.
            assert!(!r.exact, "{mode:?}");
        }
    }
}

#[test]
fn ffo_21_to_24_scores_and_best_moves() {
    // 15–19 empties: exercises the root aspiration window and shallow-search ordering.
    let Some(text) = data_file("endgame/fforum-20-39.obf") else {
        return;
    };
    let ps = problems(&text);
    let mut e = engine();
    for (i, p) in ps.iter().enumerate().skip(1).take(4) {
        let r = solve(&mut e, &p.position.board, SolveMode::Exact);
        assert_eq!(Some(r.score), p.expected, "FFO #{}", 20 + i);
        assert!(p.best_moves().contains(&r.best), "FFO #{}", 20 + i);
        assert_eq!(r.pv.first(), Some(&r.best));
    }
}
