//! Criterion benchmark of the evaluations: evaluations per second of the trained pattern
//! evaluation (embedded weights) and of the classic one, over a fixed set of positions, and of the two ways of reading the pattern indices.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use flank::Board;
use flank::eval::Evaluator;
use flank::pattern::{self, FEATURES_PER_POSITION};

/// 1,024 positions from deterministic pseudo-random games (every ply of each game).
fn positions() -> Vec<Board> {
    let mut out = Vec::new();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    while out.len() < 1024 {
        let mut b = Board::start();
        while !b.is_game_over() && out.len() < 1024 {
            out.push(b);
            let moves: Vec<_> = b.legal_moves().collect();
            if moves.is_empty() {
                b = b.pass();
                continue;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b = b.make_move(moves[(x % moves.len() as u64) as usize]);
        }
    }
    out
}

fn bench_eval(c: &mut Criterion) {
    let boards = positions();
    let trained = Evaluator::embedded().expect("embedded weights decode");
    let mut g = c.benchmark_group("evaluate");
    g.throughput(Throughput::Elements(boards.len() as u64));
    for (name, e) in [("trained", &trained), ("classic", &Evaluator::Classic)] {
        g.bench_function(name, |bench| {
            bench.iter(|| {
                let mut s = 0i32;
                for b in &boards {
                    s += e.evaluate(black_box(b));
                }
                s
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("pattern-indices");
    g.throughput(Throughput::Elements(boards.len() as u64));
    type IndexFn = fn(&Board, &mut [u32; FEATURES_PER_POSITION]);
    let paths: [(&str, IndexFn); 2] = [
        ("pext", pattern::raw_indices),
        ("portable", pattern::raw_indices_portable),
    ];
    for (name, f) in paths {
        g.bench_function(name, |bench| {
            bench.iter(|| {
                let mut s = 0u32;
                let mut idx = [0u32; FEATURES_PER_POSITION];
                for b in &boards {
                    f(black_box(b), &mut idx);
                    s = s.wrapping_add(idx[7]);
                }
                s
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
