//! Exactness of the parallel solver: a fixed CI-sized subset of `hard-20.obf` (20 empties)
//! solved with 1 and 2 threads (YBWC) and with a tiny colliding transposition table, every
//! score and best move checked against the file; WLD signs with 2 threads.

mod common;

use common::{data_file, flank};

use flank::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use flank::format::{Problem, parse_problem_line};

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
        } else {
            assert_eq!(r.score, e, "{what}, position {i}: {}", p.position);
            assert!(
                p.best_moves().contains(&r.best),
                "{what}, position {i}: {} not in {:?}",
                r.best,
                p.best_moves()
            );
            assert_eq!(r.pv.first(), Some(&r.best), "{what}, {i}");
        }
    }
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
