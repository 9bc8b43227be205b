//! The fixed `flank bench` search fingerprint: a built-in set of positions searched at a fixed
//! depth or solved exactly on one thread; the total node count identifies the search.

use std::io::{self, Write};
use std::time::Instant;

use crate::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use crate::notation::parse_board_string;

/// Midgame positions (44 empties), reached by the pseudo-random transcripts in the comments.
const MIDGAME: [&str; 4] = [
    // e6f4c3d6c6e7g3c5f6b7b6b4e3d3c4d2
    "-----------O------OOX-X--OXXXX----XXX----XXOXX---O--O----------- X",
    // f5f6c4g5g6g7f7c3h4d6h5g4h6e6f8d3
    "------------------OO------XOO-OX---OOOOX---OOXXX-----XX------X-- X",
    // f5d6c3f4f6d3c4b4g3g5a5g4c5h2e7c7
    "---------------O--XO--O--XXOOOO-X-XOOOO----O-X----O-X----------- X",
    // f5f6c4c3f7c5b2e3c6b4d3d2f3e2c2g4
    "---------XXOO-----XXXO---OXXX-O---XXXX----X--X-------X---------- X",
];

/// Endgame positions (18–20 empties), solved exactly; reached by the transcripts shown.
const ENDGAME: [&str; 4] = [
    // e6f4e3f6c4b4f3f2f5c6f1g6c3g3h6g4a4e1c5e7d6b6h2d7d1g7h8f7c7g8g5h3g2b7e2a3a7a6b5d2c2
    "---XXX----XXXXXXO-X-XXXOXOXXXXX--XXXXOX-OXXOOXXXXXXXXXX-------OX O",
    // e6f6c4e3e2c3g6e7e8b4a4c5d6f4f3c7d7b5d3g7g8d2g3h2c2f1b7b3a5b8f5g4b2f8h3c1h1b6c6h5
    "--O--O-X-XOOO--X-XOXOOXXXXOOOOO-XXOXXX-O-OXXXOX--OOXO-X--O--XOX- X",
    // e6d6c7f3c3d7f4f7g2e3e7c5c4b8d3g3g7b4b5f2a3d2d1h2g1a4f6h7a5f5g6g5h1b2c2b1h4a6h3f1d8b6
    "-O-X-OXX-OOX-OXXX-XOXOXXXXOOOO-XXOOXOOX-OO-XXXO---OXXOOO-O-X---- X",
    // e6f4e3d6c5e2e7b6e1f7g7d7c3c4a7c2d8d2g3f6b3a2b2g5a3c1d1c8c7e8a1f5d3h8b4b5h7h2g4a5g2
    "X-OXX---XXXXX-XOXXXXO-X--XXXXXX-OOOOOXO--O-XXO--X-OXOXXX--OOO--O O",
];

/// Default midgame depth of the bench, in plies.
pub const DEFAULT_BENCH_DEPTH: u32 = 10;

/// What a bench run measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchReport {
    /// Positions searched.
    pub positions: usize,
    /// Total nodes: the search fingerprint (deterministic for a given depth and hash size).
    pub nodes: u64,
    /// Wall time in ms.
    pub time_ms: u64,
    /// Nodes per second.
    pub nps: u64,
}

/// Runs the bench on one thread with a `hash_mb` MiB TT (cleared before each position): the
/// midgame positions to `depth` plies, then the endgame positions solved exactly.
pub fn run_bench(hash_mb: usize, depth: u32) -> BenchReport {
    run_positions(hash_mb, depth, &MIDGAME, &ENDGAME)
}

/// Runs the bench ([`run_bench`]) and writes its line to `out`, then flushes: `bench: P
/// positions, N nodes, T ms, R nodes/s`.
///
/// # Errors
/// A failed write or flush.
pub fn write_bench<W: Write>(out: &mut W, hash_mb: usize, depth: u32) -> io::Result<()> {
    let r = run_bench(hash_mb, depth);
    writeln!(
        out,
        "bench: {} positions, {} nodes, {} ms, {} nodes/s",
        r.positions, r.nodes, r.time_ms, r.nps
    )?;
    out.flush()
}

/// [`run_bench`] over given board strings: `midgame` searched to `depth`, `endgame` solved.
fn run_positions(hash_mb: usize, depth: u32, midgame: &[&str], endgame: &[&str]) -> BenchReport {
    let mut engine = Engine::new(EngineConfig {
        hash_mb,
        threads: 1,
    });
    let start = Instant::now();
    let mut nodes = 0;
    let jobs = midgame
        .iter()
        .map(|s| (s, SolveMode::Midgame))
        .chain(endgame.iter().map(|s| (s, SolveMode::Exact)));
    let mut positions = 0;
    for (text, mode) in jobs {
        let pos = parse_board_string(text).expect("built-in bench positions parse");
        engine.new_game();
        let limits = SearchLimits {
            depth: Some(depth),
            mode,
            ..Default::default()
        };
        nodes += engine.search(&pos.board, &limits, &mut |_| {}).nodes;
        positions += 1;
    }
    let time_ms = start.elapsed().as_millis() as u64;
    BenchReport {
        positions,
        nodes,
        time_ms,
        nps: nodes * 1000 / time_ms.max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_have_the_intended_empties() {
        for s in MIDGAME {
            assert_eq!(parse_board_string(s).unwrap().board.empties(), 44);
        }
        for s in ENDGAME {
            let e = parse_board_string(s).unwrap().board.empties();
            assert!((18..=20).contains(&e), "{e}");
        }
    }

    #[test]
    fn shallow_bench_is_deterministic() {
        // Node counts with one thread depend only on the search, never on timing.
        // A 16-empties position reached from the first endgame position by first moves.
        let end = "--OXXXXX--XOXXXXO-X-OXOOXOXXXOO--XXXXOO-OXXOOXOXXXXXXXO-------OX X";
        let a = run_positions(1, 6, &MIDGAME, &[end]);
        let b = run_positions(1, 6, &MIDGAME, &[end]);
        assert_eq!(a.positions, 5);
        assert!(a.nodes > 1000);
        assert_eq!(a.nodes, b.nodes);
    }
}
