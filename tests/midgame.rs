//! The midgame search's multi-ProbCut: the calibration stored with the built-in weights,
//! fewer nodes with it than without at equal depth (one thread, deterministic), the same
//! answers from exact solves either way, and `flank solve --time` on positions it must
//! solve exactly.

mod common;

use common::{data_file, flank};

use flank::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use flank::eval::mpc::{MID_MIN_SAMPLES, mid_shallow_depth};
use flank::notation::{Problem, parse_problem_line};
use flank::othello::board::Board;
use flank::othello::square::Move;
use flank::search::probcut::{self, MID_MPC_MIN_DEPTH};

/// The built-in weights carry a calibration with a fit for every depth the search cuts at
/// (3 to 12, each with its shallow search) in every empties bucket, with plausible values:
/// a positive slope (below 1 in the opening, where scores are small and noisy) and a
/// residual of a few discs, larger for the static evaluation than for a search.
#[test]
fn built_in_weights_carry_a_plausible_calibration() {
    let table = flank::eval::mpc_table().expect("the built-in weights carry an MPC table");
    for empties in [14, 20, 26, 32, 38, 44, 50, 56] {
        for deep in MID_MPC_MIN_DEPTH..=12 {
            let d = mid_shallow_depth(deep);
            let f = table
                .fit(empties, deep, d)
                .unwrap_or_else(|| panic!("no fit at {empties} empties, {deep}/{d}"));
            assert!(f.n >= MID_MIN_SAMPLES, "{empties} {deep}: {f:?}");
            assert!((0.3..1.5).contains(&f.a), "{empties} {deep}: {f:?}");
            assert!((0.5..12.0).contains(&f.sigma), "{empties} {deep}: {f:?}");
        }
        // The static evaluation predicts depth 12 worse than depth 6 does.
        let far = table.fit(empties, 12, 0).unwrap();
        let near = table.fit(empties, 12, 6).unwrap();
        assert!(far.sigma > near.sigma, "{empties}: {far:?} vs {near:?}");
    }
}

/// Midgame positions of 40-52 empties, reached from the start by a fixed rule (the k-th
/// move takes the legal move number (7k + 3) mod the count, in square order).
fn midgame_boards() -> Vec<Board> {
    let mut b = Board::start();
    let mut out = Vec::new();
    for k in 0..20 {
        let moves: Vec<_> = b.legal_moves().collect();
        assert!(!moves.is_empty(), "the rule reaches no pass in 20 plies");
        b = b.make_move(moves[(7 * k + 3) % moves.len()]);
        if k >= 7 && k % 4 == 3 {
            out.push(b);
        }
    }
    assert_eq!(out.len(), 4);
    out
}

fn search(engine: &mut Engine, b: &Board, depth: u32) -> flank::engine::SearchResult {
    engine.new_game();
    let limits = SearchLimits {
        depth: Some(depth),
        mode: SolveMode::Midgame,
        ..Default::default()
    };
    engine.search(b, &limits, &mut |_| {})
}

/// At equal depth, ProbCut searches fewer nodes (one thread: node counts are deterministic)
/// and still answers a legal move; off, it is the full-width search.
#[test]
fn probcut_prunes_at_equal_depth() {
    let config = EngineConfig {
        hash_mb: 16,
        threads: 1,
    };
    let mut on = Engine::new(config.clone());
    assert_eq!(on.mid_mpc(), Some(probcut::MID_DEFAULT_T));
    let mut off = Engine::new(config);
    off.set_mid_mpc(None);
    let (mut n_on, mut n_off) = (0, 0);
    for b in midgame_boards() {
        let a = search(&mut on, &b, 9);
        let c = search(&mut off, &b, 9);
        for r in [&a, &c] {
            let Move::Play(sq) = r.best else {
                panic!("no move")
            };
            assert!(b.moves() & (1u64 << sq.index()) != 0);
            assert_eq!(r.depth, 9);
        }
        n_on += a.nodes;
        n_off += c.nodes;
    }
    assert!(
        n_on * 10 < n_off * 9,
        "ProbCut {n_on} vs full width {n_off}"
    );
}

/// Exact solves never use the midgame ProbCut: the same scores, moves and node counts.
#[test]
fn solves_are_the_same_with_probcut_on_or_off() {
    let Some(text) = data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    let ps: Vec<Problem> = text
        .lines()
        .filter_map(|l| parse_problem_line(l).unwrap())
        .take(6)
        .collect();
    let config = EngineConfig {
        hash_mb: 16,
        threads: 1,
    };
    let mut on = Engine::new(config.clone());
    let mut off = Engine::new(config);
    off.set_mid_mpc(None);
    let limits = SearchLimits {
        mode: SolveMode::Exact,
        ..Default::default()
    };
    for p in &ps {
        on.new_game();
        off.new_game();
        let a = on.search(&p.position.board, &limits, &mut |_| {});
        let b = off.search(&p.position.board, &limits, &mut |_| {});
        assert_eq!(Some(a.score), p.expected);
        assert_eq!((a.score, a.best, a.nodes), (b.score, b.best, b.nodes));
    }
}

/// `solve --time` on positions of 14 empties: the engine's own search solves them exactly at
/// once (whatever the machine's speed), so every best move is right and `exact` is true.
#[test]
fn solve_with_a_time_limit_solves_few_empties_exactly() {
    let Some(text) = data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    let first_two: String = text
        .lines()
        .filter(|l| !l.starts_with('%') && !l.trim().is_empty())
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect();
    let args = ["solve", "--time", "60000", "--json", "--threads", "1", "-"];
    let (code, out, err) = flank(&args, &first_two);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with('{')).collect();
    assert_eq!(rows.len(), 2, "{out}");
    for (row, best) in rows.iter().zip(["\"best\":\"g8\"", "\"best\":\"a4\""]) {
        assert!(row.contains(best), "{row}");
        assert!(
            row.contains("\"exact\":true") && row.contains("\"ok\":true"),
            "{row}"
        );
    }
}

/// A bad `--mpc` value is a one-line error with exit status 2, negative numbers included.
#[test]
fn bad_mpc_values_are_one_line_errors() {
    for bad in ["-1", "0", "abc", "11"] {
        let (code, out, err) = flank(&["--mpc", bad], "");
        assert_eq!(code, 2, "--mpc {bad}: {err}");
        assert!(out.is_empty(), "--mpc {bad}: {out}");
        assert_eq!(err.trim().lines().count(), 1, "--mpc {bad}: {err}");
        assert!(err.contains("standard deviations"), "--mpc {bad}: {err}");
    }
}

/// The parallel midgame search (YBWC on 2 threads, splitting at nodes of
/// [`flank::search::endgame::MID_SPLIT_DEPTH`] plies and more) is exact where the midgame search must
/// be: without ProbCut and to a depth of the empties, every leaf is a finished game, so the
/// score is the position's exact score, whichever thread searched which move. 60 positions
/// of `random-10-empties-1k.txt`, each with its known score; a fresh table for each.
#[test]
fn parallel_midgame_search_to_the_end_is_exact() {
    let Some(text) = data_file("endgame/random-10-empties-1k.txt") else {
        return;
    };
    let ps: Vec<Problem> = text
        .lines()
        .filter_map(|l| parse_problem_line(l).unwrap())
        .take(60)
        .collect();
    assert_eq!(ps.len(), 60);
    let mut e = Engine::new(EngineConfig {
        hash_mb: 4,
        threads: 2,
    });
    e.set_mid_mpc(None);
    let mut splits_possible = 0;
    for p in &ps {
        let b = p.position.board;
        let r = search(&mut e, &b, b.empties());
        assert!(!r.exact, "a midgame search, not a solve");
        assert_eq!(r.depth, b.empties());
        assert_eq!(Some(r.score), p.expected, "{}", p.position);
        if b.moves().count_ones() > 2 {
            splits_possible += 1;
        }
    }
    assert!(splits_possible > 30, "most roots have moves to split");
}

/// A depth-limited midgame search reports a legal PV starting with the best move, at most as
/// deep as the search and complete at 1–3 plies, where its last ply comes from a depth-1
/// node (which stores its result only as a PV node, and not after a null-window re-search).
/// Both with and without ProbCut.
#[test]
fn midgame_pv_is_legal_and_reaches_the_leaves_at_shallow_depths() {
    for mpc in [false, true] {
        let mut engine = Engine::new(EngineConfig {
            hash_mb: 16,
            threads: 1,
        });
        if !mpc {
            engine.set_mid_mpc(None);
        }
        for b in midgame_boards() {
            for depth in [1, 2, 3, 6, 9, 12] {
                let r = search(&mut engine, &b, depth);
                assert_eq!(r.depth, depth);
                // The PV is read from the TT: deeper searches may lose its tail to replaced
                // entries, never its first three plies here.
                assert!(
                    r.pv.len() <= depth as usize && r.pv.len() >= (depth as usize).min(3),
                    "depth {depth} mpc {mpc}: {:?}",
                    r.pv
                );
                assert_eq!(r.pv[0], r.best);
                let mut c = b;
                for &m in &r.pv {
                    c = match m {
                        Move::Play(sq) => {
                            assert!(c.moves() & (1u64 << sq.index()) != 0, "{:?}", r.pv);
                            c.make_move(sq)
                        }
                        Move::Pass => {
                            assert!(!c.has_moves(), "{:?}", r.pv);
                            c.pass()
                        }
                    };
                }
            }
        }
    }
}
