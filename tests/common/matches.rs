//! Running `flank match` from the match tests: the binary, its output, its JSON summary, and
//! temporary paths.

use serde_json::Value;

/// The `flank` binary under test.
pub fn flank_bin() -> &'static str {
    env!("CARGO_BIN_EXE_flank")
}

/// Runs `flank match ARGS`; returns (exit code, stdout, stderr).
pub fn run_match(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(flank_bin())
        .arg("match")
        .args(args)
        .output()
        .expect("flank runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON summary `flank match --json` wrote to stdout.
pub fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("bad JSON ({e}): {stdout}"))
}

/// A path in the temporary directory unique to this test process: `flank-match-PID-NAME`.
pub fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("flank-match-{}-{name}", std::process::id()))
}
