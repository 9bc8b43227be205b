//! Criterion benches of the search kernels: mobility, flips, the last-4-empties solver, a
//! small exact endgame solve, and the evaluation.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use flank::board::{Board, flips, flips_rays, get_moves};
use flank::endgame::Searcher;
use flank::eval::evaluate;
use flank::format::parse_board_string;
use flank::tt::TranspositionTable;

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

criterion_group!(benches, kernels);
criterion_main!(benches);
