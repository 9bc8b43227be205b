//! Property tests of the search: symmetric positions solve alike, the solver agrees with a
//! plain negamax near the end (also each null-window answer on lopsided positions), best
//! moves are legal, and the midgame returns legal moves.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use flank::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use flank::othello::board::{Board, Score, Symmetry};
use flank::othello::square::Move;
use flank::search::Searcher;
use flank::search::tt::TranspositionTable;
use proptest::prelude::*;

/// Plays random legal moves (choices taken modulo the move count) from the start until
/// `empties` empties remain or the game ends.
fn random_position(choices: &[u8], empties: u32) -> Board {
    let mut b = Board::start();
    for &c in choices {
        if b.empties() <= empties || b.is_game_over() {
            break;
        }
        let moves: Vec<_> = b.legal_moves().collect();
        if moves.is_empty() {
            b = b.pass();
            continue;
        }
        b = b.make_move(moves[c as usize % moves.len()]);
    }
    b
}

/// Plain negamax without pruning: the exact score with empties to the winner.
fn negamax(b: &Board) -> Score {
    let moves: Vec<_> = b.legal_moves().collect();
    if moves.is_empty() {
        if b.opponent_moves() == 0 {
            return b.final_score();
        }
        return -negamax(&b.pass());
    }
    moves
        .into_iter()
        .map(|m| -negamax(&b.make_move(m)))
        .max()
        .expect("at least one move")
}

fn exact(e: &mut Engine, b: &Board) -> (Score, Move) {
    let limits = SearchLimits {
        mode: SolveMode::Exact,
        ..Default::default()
    };
    let r = e.search(b, &limits, &mut |_| {});
    assert!(r.exact);
    (r.score, r.best)
}

fn is_legal(b: &Board, m: Move) -> bool {
    match m {
        Move::Play(sq) => b.try_make_move(sq).is_some(),
        Move::Pass => !b.has_moves(),
    }
}

fn engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 4,
        threads: 1,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn symmetries_solve_alike(choices in prop::collection::vec(any::<u8>(), 60), empties in 10u32..=14) {
        let b = random_position(&choices, empties);
        let mut e = engine();
        let (s0, m0) = exact(&mut e, &b);
        prop_assert!(is_legal(&b, m0));
        for s in Symmetry::ALL {
            e.new_game();
            let t = b.transform(s);
            let (v, m) = exact(&mut e, &t);
            prop_assert_eq!(v, s0, "symmetry {:?}", s);
            prop_assert!(is_legal(&t, m));
        }
    }

    #[test]
    fn solver_matches_naive_negamax(choices in prop::collection::vec(any::<u8>(), 64), empties in 1u32..=8) {
        let b = random_position(&choices, empties);
        let mut e = engine();
        let (v, m) = exact(&mut e, &b);
        prop_assert_eq!(v, negamax(&b));
        prop_assert!(is_legal(&b, m) || b.is_game_over());
        // WLD has the same sign.
        let limits = SearchLimits { mode: SolveMode::Wld, ..Default::default() };
        let w = e.search(&b, &limits, &mut |_| {});
        prop_assert_eq!(w.score, v.signum());
    }

    #[test]
    fn midgame_and_auto_return_legal_moves(choices in prop::collection::vec(any::<u8>(), 60), empties in 12u32..=50) {
        let b = random_position(&choices, empties);
        let mut e = engine();
        for mode in [SolveMode::Midgame, SolveMode::Auto] {
            let limits = SearchLimits { depth: Some(4), mode, ..Default::default() };
            let r = e.search(&b, &limits, &mut |_| {});
            if b.is_game_over() {
                prop_assert_eq!(r.best, Move::Pass);
            } else {
                prop_assert!(is_legal(&b, r.best), "{:?} {}", mode, r.best);
            }
            prop_assert!(r.score.abs() <= 64);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A midgame search as deep as the empties sees every game end: it is the exact score.
    #[test]
    fn full_depth_midgame_is_exact(choices in prop::collection::vec(any::<u8>(), 64), empties in 1u32..=7) {
        let b = random_position(&choices, empties);
        let mut e = engine();
        let limits = SearchLimits { depth: Some(b.empties()), mode: SolveMode::Midgame, ..Default::default() };
        let r = e.search(&b, &limits, &mut |_| {});
        prop_assert_eq!(r.score, negamax(&b), "{:x} {:x} e{}", b.player, b.opponent, b.empties());
    }
}

/// Depth-limited negamax with the midgame search's leaf rule: a finished game scores its
/// final disc difference, a side without moves passes (passes use no depth), and the leaves
/// are scored by the active evaluation (of the opponent, negated, if the side to move must
/// pass).
fn negamax_depth(b: &Board, depth: u32) -> Score {
    let moves: Vec<_> = b.legal_moves().collect();
    if moves.is_empty() {
        if b.opponent_moves() == 0 {
            return b.final_score();
        }
        return -negamax_depth(&b.pass(), depth);
    }
    if depth == 0 {
        return flank::eval::evaluate(b);
    }
    moves
        .into_iter()
        .map(|m| -negamax_depth(&b.make_move(m), depth - 1))
        .max()
        .expect("at least one move")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Up to depth 3 no position can be reached twice inside the tree, so the PVS with its
    /// aspiration windows, TT cutoffs and move ordering must return exactly the negamax value.
    #[test]
    fn shallow_midgame_is_plain_negamax(choices in prop::collection::vec(any::<u8>(), 60), empties in 12u32..=50, depth in 1u32..=3) {
        let b = random_position(&choices, empties);
        prop_assume!(!b.is_game_over() && b.has_moves());
        let mut e = engine();
        let limits = SearchLimits { depth: Some(depth), mode: SolveMode::Midgame, ..Default::default() };
        let r = e.search(&b, &limits, &mut |_| {});
        prop_assert_eq!(r.score, negamax_depth(&b, depth));
    }
}

/// The solver's NWS on lopsided positions (one side sparse and owning a corner, so that the
/// stability cutoffs of both signs and wipeout windows come into play): every answer falls on
/// the right side of its alpha.
#[test]
fn nws_agrees_with_negamax_on_lopsided_positions() {
    let mut r: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        r
    };
    let tt = Arc::new(TranspositionTable::new(1));
    for i in 0..400 {
        let mut empty = 0u64;
        while empty.count_ones() < 7 + (i % 3) {
            empty |= (1 << (next() & 63)) & !1;
        }
        // A corner (a stable disc) and a few more discs for the sparse side.
        let sparse = (1 | (next() & next() & next() & next())) & !empty;
        let (p, o) = if i % 2 == 0 {
            (sparse, !sparse & !empty)
        } else {
            (!sparse & !empty, sparse)
        };
        let b = Board {
            player: p,
            opponent: o,
        };
        let exact = negamax(&b);
        let mut s = Searcher::new(tt.clone(), Arc::new(AtomicBool::new(false)), None);
        for alpha in -64..64 {
            let v = s.nws(&b, alpha, empty.count_ones());
            assert_eq!(
                v > alpha,
                exact > alpha,
                "{p:x} {o:x} alpha {alpha} exact {exact}"
            );
        }
    }
}
