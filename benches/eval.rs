//! Criterion benchmark of the evaluations: evaluations per second of the trained pattern
//! evaluation (embedded weights) and of the classic one, over a fixed set of positions, of the
//! trained evaluation with and without its residual net at 4-5 empties, and of the ways of
//! reading the pattern indices and the disc digits.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use flank::Board;
use flank::eval::Evaluator;
use flank::eval::features;
use flank::eval::features::FEATURES_PER_POSITION;

/// 1,024 positions with `empties` in `range` from deterministic pseudo-random games.
fn positions_in(range: std::ops::RangeInclusive<u32>) -> Vec<Board> {
    let mut out = Vec::new();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    while out.len() < 1024 {
        let mut b = Board::start();
        while !b.is_game_over() && out.len() < 1024 {
            if range.contains(&b.empties()) {
                out.push(b);
            }
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

/// 1,024 positions from deterministic pseudo-random games (every ply of each game).
fn positions() -> Vec<Board> {
    positions_in(0..=60)
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
    // At 4-5 empties (the leaves of a depth-15 search from 20 empties) the phase has a net.
    let late = positions_in(4..=5);
    let p = flank::eval::weights::evaluator_from_bytes(flank::eval::weights::EMBEDDED)
        .expect("embedded weights decode");
    let mut g = c.benchmark_group("evaluate-4-5-empties");
    g.throughput(Throughput::Elements(late.len() as u64));
    g.bench_function("linear+net", |bench| {
        bench.iter(|| {
            late.iter()
                .map(|b| p.evaluate_fine(black_box(b)))
                .sum::<i32>()
        })
    });
    g.bench_function("linear", |bench| {
        bench.iter(|| {
            late.iter()
                .map(|b| p.linear_fine(black_box(b)))
                .sum::<i32>()
        })
    });
    g.finish();
    let mut g = c.benchmark_group("pattern-indices");
    g.throughput(Throughput::Elements(boards.len() as u64));
    type IndexFn = fn(&Board, &mut [u32; FEATURES_PER_POSITION]);
    let paths: [(&str, IndexFn); 2] = [
        ("raw_indices", features::raw_indices),
        ("by_gather", features::raw_indices_by_gather),
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
    let mut g = c.benchmark_group("disc-digits");
    g.throughput(Throughput::Elements(boards.len() as u64));
    type DigitsFn = fn(u64, u64) -> features::DiscDigits;
    let paths: [(&str, DigitsFn); 3] = [
        ("new", features::DiscDigits::new),
        ("by_squares", features::DiscDigits::by_squares),
        ("by_gather", features::DiscDigits::by_gather),
    ];
    for (name, f) in paths {
        g.bench_function(name, |bench| {
            bench.iter(|| {
                for b in &boards {
                    black_box(f(black_box(b.player), black_box(b.opponent)));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
