//! The `flank` binary's command line: outputs, exit statuses and one-line errors.

mod common;

use common::flank;

#[test]
fn perft_prints_the_leaf_count() {
    let (code, out, _) = flank(&["perft", "8"], "");
    assert_eq!(code, 0);
    assert!(
        out.starts_with("perft 8 (Ply pass rule): 390216 leaves"),
        "{out}"
    );
    let (code, out, _) = flank(&["perft", "9", "--pass-rule", "free"], "");
    assert_eq!(code, 0);
    assert!(out.contains(" 3005320 leaves"), "{out}");
}

#[test]
fn bad_arguments_exit_non_zero_with_a_reason() {
    let (code, _, err) = flank(&["perft", "9", "--pass-rule", "sideways"], "");
    assert_ne!(code, 0);
    assert!(err.contains("unknown pass rule 'sideways'"), "{err}");
    let (code, _, err) = flank(&["solve", "/nonexistent/file.obf"], "");
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot open /nonexistent/file.obf"), "{err}");
}

#[test]
fn malformed_solve_input_names_the_line() {
    let (code, out, err) = flank(&["solve", "-"], "% comment\n\nXXXX X\n");
    assert_eq!(code, 2);
    assert_eq!(out, "");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains("has 5 cells, expected 64"), "{err}");
}
