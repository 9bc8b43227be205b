//! Helpers shared by the integration tests: running the `flank` binary, finding shared data.
#![allow(dead_code)] // each test crate uses its own subset

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Runs the `flank` binary with `args`, feeding `stdin`; returns (exit code, stdout, stderr).
pub fn flank(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_flank"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("flank starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The text of `rel` below `$FLANK_DATA` (default `../shared/data`), or `None` after printing
/// `SKIPPED: …` when it is missing. With `FLANK_REQUIRE_DATA=1` a missing file fails the test.
pub fn data_file(rel: &str) -> Option<String> {
    let root = std::env::var("FLANK_DATA").unwrap_or_else(|_| "../shared/data".into());
    let path = PathBuf::from(root).join(rel);
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) => {
            assert!(
                std::env::var("FLANK_REQUIRE_DATA").as_deref() != Ok("1"),
                "{} is required (FLANK_REQUIRE_DATA=1): {e}",
                path.display()
            );
            eprintln!("SKIPPED: {} not found (set FLANK_DATA)", path.display());
            None
        }
    }
}
