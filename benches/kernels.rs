//! Criterion benches of the search kernels: mobility, flips, the last-move flip count, the
//! last-4-empties solver, a small exact endgame solve, a small endgame set (1 and 2 threads)
//! and the evaluation.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use flank::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use flank::eval::evaluate;
use flank::notation::parse_board_string;
use flank::othello::board::Board;
use flank::othello::movegen::last_flip_count;
use flank::othello::movegen::{flips, flips_fills, flips_rays, get_moves, get_moves_fills};
use flank::search::Searcher;
use flank::search::tt::TranspositionTable;

fn board(s: &str) -> Board {
    parse_board_string(s).expect("bench board parses").board
}

/// A midgame position (44 empties) and an endgame position (18 empties, from a pseudo-random
/// game) from which the 12- and 4-empties positions are reached by playing first moves.
const MID: &str = "-----------O------OOX-X--OXXXX----XXX----XXOXX---O--O----------- X";
const END18: &str = "---XXX----XXXXXXO-X-XXXOXOXXXXX--XXXXOX-OXXOOXXXXXXXXXX-------OX O";

/// Plays the first legal move (passing when needed) until `empties` empties remain.
fn down_to(mut b: Board, empties: u32) -> Board {
    while b.empties() > empties && !b.is_game_over() {
        let first = b.legal_moves().next();
        b = match first {
            Some(sq) => b.make_move(sq),
            None => b.pass(),
        };
    }
    b
}

fn kernels(c: &mut Criterion) {
    let mid = board(MID);
    c.bench_function("mobility", |b| {
        b.iter(|| get_moves(black_box(mid.player), black_box(mid.opponent)))
    });
    c.bench_function("mobility_fills", |b| {
        b.iter(|| get_moves_fills(black_box(mid.player), black_box(mid.opponent)))
    });
    let moves = mid.moves();
    c.bench_function("flips_all_moves", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            let mut m = black_box(moves);
            while m != 0 {
                acc ^= flips(mid.player, mid.opponent, m.trailing_zeros());
                m &= m - 1;
            }
            acc
        })
    });
    c.bench_function("flips_fills_all_moves", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            let mut m = black_box(moves);
            while m != 0 {
                acc ^= flips_fills(mid.player, mid.opponent, m.trailing_zeros());
                m &= m - 1;
            }
            acc
        })
    });
    c.bench_function("flips_rays_all_moves", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            let mut m = black_box(moves);
            while m != 0 {
                acc ^= flips_rays(mid.player, mid.opponent, m.trailing_zeros());
                m &= m - 1;
            }
            acc
        })
    });
    c.bench_function("evaluate", |b| b.iter(|| evaluate(black_box(&mid))));

    // Last-move flip counts on every square of a nearly full board (one empty each).
    let full = down_to(board(END18), 1);
    let p_full = full.player | full.empty();
    c.bench_function("last_flip_count_64", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for x in 0..64u32 {
                acc += last_flip_count(black_box(p_full & !(1u64 << x)), x);
            }
            acc
        })
    });

    let tt = Arc::new(TranspositionTable::new(16));
    let stop = Arc::new(AtomicBool::new(false));
    let end4 = down_to(board(END18), 4);
    c.bench_function("last4_nws", |b| {
        let mut s = Searcher::new(tt.clone(), stop.clone(), None);
        b.iter(|| s.nws(black_box(&end4), 0, end4.empties()))
    });
    let end12 = down_to(board(END18), 12);
    c.bench_function("solve_12_empties", |b| {
        b.iter(|| {
            tt.clear();
            let mut s = Searcher::new(tt.clone(), stop.clone(), None);
            s.pvs(black_box(&end12), -64, 64)
        })
    });
}

/// The built-in `flank solve` positions played down to 16 empties, solved exactly from an
/// empty TT, on 1 and 2 threads.
fn endgame_set(c: &mut Criterion) {
    let set: Vec<Board> = flank::cli::solve::builtin_problems()
        .iter()
        .map(|p| down_to(p.position.board, 16))
        .collect();
    let mut group = c.benchmark_group("endgame_set_16");
    group.sample_size(10);
    for threads in [1, 2] {
        group.bench_function(format!("{threads}_threads"), |b| {
            let mut e = Engine::new(EngineConfig {
                hash_mb: 16,
                threads,
            });
            let limits = SearchLimits {
                mode: SolveMode::Exact,
                ..Default::default()
            };
            b.iter(|| {
                e.new_game();
                set.iter()
                    .map(|x| e.search(black_box(x), &limits, &mut |_| {}).score)
                    .sum::<i32>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, kernels, endgame_set);
criterion_main!(benches);
