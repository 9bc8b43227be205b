//! Exactness of the parallel solver: a fixed CI-sized subset of `hard-20.obf` (20 empties)
//! solved with 1 and 2 threads (YBWC), with a tiny colliding transposition table and with one
//! grown between solves, every score and best move checked against the file; WLD signs with 2
//! threads.

mod common;

use common::{data_file, flank};

use flank::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use flank::notation::{Problem, parse_problem_line};

/// Every 35th position of `hard-20.obf` (8 positions).
fn subset() -> Option<Vec<Problem>> {
    let text = data_file("endgame/hard-20.obf")?;
    let ps: Vec<Problem> = text
        .lines()
        .filter_map(|l| parse_problem_line(l).expect("hard-20.obf line parses"))
        .collect();
    assert!(ps.len() >= 250, "hard-20.obf has {} positions", ps.len());
    Some(ps.into_iter().step_by(35).collect())
}

/// Solves `ps` with `engine` in `mode`, checking scores (signs for WLD) and best moves.
fn check(engine: &mut Engine, ps: &[Problem], mode: SolveMode, what: &str) {
    let limits = SearchLimits {
        mode,
        ..Default::default()
    };
    for (i, p) in ps.iter().enumerate() {
        let b = p.position.board;
        let r = engine.search(&b, &limits, &mut |_| {});
        assert!(r.exact, "{what}, position {i}");
        let e = p.expected.expect("hard-20.obf lists scores");
        let listed = p
            .move_scores
            .iter()
            .find(|(m, _)| *m == r.best)
            .map(|&(_, s)| s);
        if mode == SolveMode::Wld {
            assert_eq!(r.score, e.signum(), "{what}, position {i}: {}", p.position);
            assert_eq!(listed.map(|s| s.signum()), Some(e.signum()), "{what}, {i}");
            // The PV is a whole line with the proven result (a win or a loss too, not only
            // a draw, whose score is exact).
            assert_eq!(r.pv.first(), Some(&r.best), "{what}, {i}");
            let end = play_pv(&b, &r.pv, &format!("{what}, {i}"));
            assert_eq!(
                end.signum(),
                r.score,
                "{what}, {i}: PV {:?} ends {end}",
                r.pv
            );
        } else {
            assert_eq!(r.score, e, "{what}, position {i}: {}", p.position);
            assert!(
                p.best_moves().contains(&r.best),
                "{what}, position {i}: {} not in {:?}",
                r.best,
                p.best_moves()
            );
            assert_eq!(r.pv.first(), Some(&r.best), "{what}, {i}");
            assert_pv_plays_to(&b, &r.pv, r.score, &format!("{what}, {i}"));
        }
    }
}

/// Plays `pv` from `board`: every move legal (a pass only when the side to move has no move)
/// and the game over at its end with the final disc difference `score` (`board`'s side to
/// move's view).
fn assert_pv_plays_to(board: &flank::Board, pv: &[flank::Move], score: i32, what: &str) {
    assert_eq!(play_pv(board, pv, what), score, "{what}: PV's final score");
}

/// Plays `pv` from `board` as [`assert_pv_plays_to`] checks it, and returns the final disc
/// difference from `board`'s side to move's view.
fn play_pv(board: &flank::Board, pv: &[flank::Move], what: &str) -> i32 {
    let mut b = *board;
    let mut sign = 1;
    for (k, m) in pv.iter().enumerate() {
        match m {
            flank::Move::Pass => {
                assert!(!b.has_moves(), "{what}: pass at ply {k} with moves");
                b = b.pass();
            }
            flank::Move::Play(sq) => {
                assert!(b.moves() & (1u64 << sq.index()) != 0, "{what}: {sq} at {k}");
                b = b.make_move(*sq);
            }
        }
        sign = -sign;
    }
    assert!(
        b.is_game_over(),
        "{what}: PV of {} plies ends early",
        pv.len()
    );
    sign * b.final_score()
}

/// A wipe-out (+64, the top of the window) still gets its whole PV: FFO #59 after 12 moves of
/// its main line (22 empties), which black wins 64–0.
#[test]
fn wipe_out_pv_reaches_the_end() {
    let Some(text) = data_file("endgame/fforum-40-59.obf") else {
        return;
    };
    let p = text
        .lines()
        .filter_map(|l| parse_problem_line(l).expect("fforum-40-59.obf line parses"))
        .nth(19)
        .expect("FFO #59 is the 20th position");
    let mut b = p.position.board;
    for m in "h4 g8 e8 b7 b5 b4 b8 pass a5 a4 h2 a7 a8".split(' ') {
        b = match m {
            "pass" => b.pass(),
            sq => b.make_move(sq.parse().expect("square")),
        };
    }
    assert_eq!(b.empties(), 22);
    let mut e = Engine::new(EngineConfig {
        hash_mb: 16,
        threads: 1,
    });
    let limits = SearchLimits {
        mode: SolveMode::Exact,
        ..Default::default()
    };
    let r = e.search(&b, &limits, &mut |_| {});
    assert!(r.exact);
    assert_eq!(r.score.abs(), 64, "{b:?}");
    assert!(r.pv.len() > 1, "PV {:?}", r.pv);
    assert_pv_plays_to(&b, &r.pv, r.score, "FFO #59 + 12");
}

#[test]
fn hard_20_subset_one_thread() {
    let Some(ps) = subset() else { return };
    let mut e = Engine::new(EngineConfig {
        hash_mb: 16,
        threads: 1,
    });
    check(&mut e, &ps, SolveMode::Exact, "1 thread");
}

#[test]
fn hard_20_subset_two_threads() {
    let Some(ps) = subset() else { return };
    let mut e = Engine::new(EngineConfig {
        hash_mb: 16,
        threads: 2,
    });
    check(&mut e, &ps, SolveMode::Exact, "2 threads");
    check(&mut e, &ps[..4], SolveMode::Wld, "2 threads, WLD");
}

/// A table grown between solves (as `flank solve` does without `--hash`): the first half
/// solved with 1 MiB, the rest with the 64 MiB it grows to; a smaller size keeps the table.
#[test]
fn hard_20_subset_grown_table() {
    let Some(ps) = subset() else { return };
    let mut e = Engine::new(EngineConfig {
        hash_mb: 1,
        threads: 2,
    });
    check(&mut e, &ps[..4], SolveMode::Exact, "1 MiB table");
    e.grow_table(64).expect("64 MiB");
    assert_eq!(e.config().hash_mb, 64);
    e.grow_table(16).expect("kept");
    assert_eq!(e.config().hash_mb, 64, "a smaller size keeps the table");
    check(&mut e, &ps[4..], SolveMode::Exact, "grown to 64 MiB");
}

#[test]
fn hard_20_subset_tiny_tt() {
    let Some(ps) = subset() else { return };
    // 32 buckets of 4 slots (3 KiB): nearly every store evicts another position.
    for threads in [1, 2] {
        let mut e = Engine::with_tt_bytes(
            EngineConfig {
                hash_mb: 0,
                threads,
            },
            3 * 1024,
        );
        let what = format!("tiny TT, {threads} threads");
        check(&mut e, &ps[..4], SolveMode::Exact, &what);
    }
}

/// The selective pre-searches (multi-ProbCut passes, forced on at 20 empties) before the exact
/// solve, with a 3 KiB TT (nearly every store evicts another position, selective and exact
/// entries mixed) at 1 and 2 threads: every score and best move stays right.
#[test]
fn hard_20_selective_pre_search_tiny_tt() {
    use flank::search::Searcher;
    use flank::search::tt::TranspositionTable;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    let Some(ps) = subset() else { return };
    for threads in [1, 2] {
        let pool = (threads > 1).then(|| {
            Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("thread pool"),
            )
        });
        for (i, p) in ps[..3].iter().enumerate() {
            let what = format!("{threads} threads, position {i}: {}", p.position);
            let tt = Arc::new(TranspositionTable::with_bytes(3 * 1024));
            let mut s = Searcher::new(tt, Arc::new(AtomicBool::new(false)), None);
            s.set_pool(pool.clone());
            s.set_mpc_root_empties(20, 20);
            let r = s.solve(&p.position.board, -64, 64).expect("not stopped");
            assert!(
                s.selective_nodes > 0 && s.selective_nodes < s.nodes,
                "{what}: {} of {} nodes selective",
                s.selective_nodes,
                s.nodes
            );
            assert_eq!(Some(r.score), p.expected, "{what}");
            let best = flank::Move::Play(match r.best {
                flank::Move::Play(sq) => sq,
                flank::Move::Pass => panic!("{what}: pass"),
            });
            assert!(p.best_moves().contains(&best), "{what}: {best}");
            assert_eq!(r.pv.first(), Some(&r.best), "{what}");
        }
    }
}

#[test]
fn one_thread_node_counts_are_deterministic() {
    let Some(ps) = subset() else { return };
    let limits = SearchLimits {
        mode: SolveMode::Exact,
        ..Default::default()
    };
    let nodes = || {
        let mut e = Engine::new(EngineConfig {
            hash_mb: 16,
            threads: 1,
        });
        ps[..3]
            .iter()
            .map(|p| e.search(&p.position.board, &limits, &mut |_| {}).nodes)
            .collect::<Vec<u64>>()
    };
    let first = nodes();
    assert!(first.iter().all(|&n| n > 1000), "{first:?}");
    assert_eq!(first, nodes());
}

#[test]
fn solve_cli_two_threads_and_clean_streams() {
    let Some(text) = data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    let lines: Vec<&str> = text.lines().take(4).collect();
    let (code, out, err) = flank(
        &["solve", "--threads", "2", "--hash", "8", "--json", "-"],
        &lines.join("\n"),
    );
    assert_eq!(code, 0, "stderr: {err}");
    // stdout holds only the JSON records; stderr (not a terminal) holds no progress display.
    let recs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(recs.len(), 4);
    assert!(
        recs.iter()
            .all(|r| r["ok"] == serde_json::Value::Bool(true))
    );
    assert_eq!(err, "");
    let (code, _, err) = flank(&["solve", "--threads", "0", "-"], "");
    assert_eq!(code, 2);
    assert!(err.contains("threads"), "{err}");
}

/// Multi-ProbCut calibration (ignored: several CPU minutes; run with `cargo test --release
/// --test solver -- --ignored mpc_calibration --nocapture`). Positions: WTHOR games
/// (`$FLANK_DATA/games/wthor`, not the FFO or hard-20 test sets: positions found in those
/// files, in any symmetry, are skipped), the position at E empties of every k-th game, for E
/// = 12, 14, …, 22 (`MPC_CAL_N` positions per E, default 120; fewer at 22). Each is solved
/// exactly, and its d-ply midgame search (d = 0: the static evaluation) is compared with the
/// exact score. Prints, per (E, d), the mean and the root-mean-square error, then the
/// least-squares fit of the RMS error to `a + b * E + c * d` (the constants of
/// `flank::search::probcut::sigma`). Scores are side-to-move disc differences.
#[test]
#[ignore]
fn mpc_calibration() {
    use flank::othello::board::{Board, SCORE_INF};
    use flank::search::Searcher;
    use flank::search::tt::TranspositionTable;
    use rayon::prelude::*;
    use std::collections::HashSet;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    let Ok(dir) = flank::data::data_file("games/wthor") else {
        common::skipped("games/wthor not found (set FLANK_DATA)");
        return;
    };
    let mut test: HashSet<(u64, u64)> = HashSet::new();
    for f in [
        "endgame/hard-20.obf",
        "endgame/fforum-1-19.obf",
        "endgame/fforum-20-39.obf",
        "endgame/fforum-40-59.obf",
        "endgame/fforum-60-79.obf",
    ] {
        if let Ok(p) = flank::data::data_file(f) {
            test.extend(flank::train::load_test_positions(&p).expect("test set loads"));
        }
    }
    let mut games = Vec::new();
    for f in flank::train::wthor_files(&dir).expect("WTHOR files") {
        let bytes = std::fs::read(&f).expect("WTHOR file reads");
        let archive =
            wthor::parse::<wthor::game_archive::GameArchive>(&bytes).expect("WTHOR file parses");
        games.extend(archive.games);
    }
    let n: usize = std::env::var("MPC_CAL_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    const DEPTHS: i32 = 7;
    let empties_list = [12u32, 14, 16, 18, 20, 22];
    let mut table = Vec::new();
    for (ei, &e) in empties_list.iter().enumerate() {
        let want = if e >= 22 { n * 2 / 3 } else { n };
        let stride = games.len() / (want * 2);
        let mut boards = Vec::new();
        let mut gi = ei * 7;
        while boards.len() < want && gi < games.len() {
            if let Some((ps, _)) = flank::train::replay_wthor(&games[gi].moves)
                && let Some(p) = ps.iter().find(|p| p.board.empties() == e)
                && p.board.has_moves()
                && !test.contains(&(p.board.player, p.board.opponent))
            {
                boards.push(p.board);
            }
            gi += stride;
        }
        let errs: Vec<Vec<i32>> = boards
            .par_iter()
            .map(|b: &Board| {
                let stop = Arc::new(AtomicBool::new(false));
                let mut s =
                    Searcher::new(Arc::new(TranspositionTable::new(16)), stop.clone(), None);
                let exact = s.solve(b, -64, 64).expect("solve").score;
                let mut m = Searcher::new(Arc::new(TranspositionTable::new(2)), stop, None);
                (0..DEPTHS)
                    .map(|d| {
                        let v = if d == 0 {
                            flank::search::midgame::leaf_eval(b)
                        } else {
                            m.mid_pvs(b, -SCORE_INF, SCORE_INF, d, true).0
                        };
                        v - exact
                    })
                    .collect()
            })
            .collect();
        for d in 0..DEPTHS as usize {
            let k = errs.len() as f64;
            let mean = errs.iter().map(|v| v[d] as f64).sum::<f64>() / k;
            let rms = (errs.iter().map(|v| (v[d] * v[d]) as f64).sum::<f64>() / k).sqrt();
            println!(
                "E {e:2} d {d} n {} mean {mean:+.2} rms {rms:.2}",
                errs.len()
            );
            table.push((e as f64, d as f64, rms));
        }
    }
    // Least squares for rms = a + b E + c d (normal equations, 3x3, Cramer's rule).
    let mut m = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for &(e, d, y) in &table {
        let x = [1.0, e, d];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += x[i] * x[j];
            }
            r[i] += x[i] * y;
        }
    }
    let det = |m: &[[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d0 = det(&m);
    let coef: Vec<f64> = (0..3)
        .map(|k| {
            let mut mk = m;
            for i in 0..3 {
                mk[i][k] = r[i];
            }
            det(&mk) / d0
        })
        .collect();
    println!(
        "fit: sigma = {:.3} + {:.4} * E + {:.4} * d",
        coef[0], coef[1], coef[2]
    );
    for &(e, d, y) in &table {
        println!(
            "E {e:2} d {d} rms {y:.2} fit {:.2}",
            coef[0] + coef[1] * e + coef[2] * d
        );
    }
    assert!(coef.iter().all(|c| c.is_finite()));
}
