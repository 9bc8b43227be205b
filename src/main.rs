//! The `flank` binary: command-line entry point (to be written).
fn main() {}
