//! The search's fingerprint: `flank bench` searches a fixed set of positions on one thread, and
//! its node count changes exactly when the search does. A refactor keeps it; a commit that
//! changes the search updates it here and says so in its message.

mod common;

use common::flank;

/// The node total of `flank bench` with the built-in evaluation.
const BENCH_NODES: u64 = 45_687_695;

#[test]
fn bench_node_count_is_the_fingerprint() {
    let (code, out, err) = flank(&["bench"], "");
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("bench:"))
        .unwrap_or_else(|| panic!("no bench line in {out:?}"));
    let nodes: u64 = line
        .split(", ")
        .find_map(|f| f.strip_suffix(" nodes"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no node count in {line:?}"));
    assert_eq!(nodes, BENCH_NODES, "{line}");
}
