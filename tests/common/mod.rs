//! Helpers shared by the integration tests: running the `flank` binary, finding shared data.
#![allow(dead_code)] // each test crate uses its own subset

pub mod matches;
pub mod script;

use std::io::Write;
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
    // flank may exit before reading its input (an argument error): a broken pipe is fine.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing flank's stdin: {e}"
        );
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The text of `rel` below the shared data directory (found by `flank::data::data_file`:
/// `$FLANK_DATA`, else `../shared/data`, else the project's sibling at build time), or `None`
/// after printing `SKIPPED <test>: …` ([`skipped`]) when it is missing. With
/// `FLANK_REQUIRE_DATA=1`, or with `FLANK_DATA` set (a data directory was named, so it must
/// hold the file), a missing file fails the test.
pub fn data_file(rel: &str) -> Option<String> {
    data_bytes(rel).map(|(path, bytes)| {
        String::from_utf8(bytes).unwrap_or_else(|_| panic!("{} is not UTF-8 text", path.display()))
    })
}

/// The path and bytes of `rel` below the shared data directory: [`data_file`] for files that
/// are not text.
#[allow(dead_code)]
pub fn data_bytes(rel: &str) -> Option<(std::path::PathBuf, Vec<u8>)> {
    let found = flank::data::data_file(rel).and_then(|path| {
        std::fs::read(&path)
            .map(|b| (path.clone(), b))
            .map_err(|e| format!("{}: {e}", path.display()))
    });
    match found {
        Ok(x) => Some(x),
        Err(e) => {
            assert!(
                std::env::var("FLANK_REQUIRE_DATA").as_deref() != Ok("1"),
                "{rel} is required (FLANK_REQUIRE_DATA=1): {e}"
            );
            assert!(
                std::env::var_os("FLANK_DATA").is_none_or(|v| v.is_empty()),
                "{rel} is required: FLANK_DATA names a data directory without it: {e}"
            );
            skipped(&e);
            None
        }
    }
}

/// Says `SKIPPED <test>: why` on the process's stderr directly, past the test harness's output
/// capture (which swallows `eprintln!` of passing tests), so a plain `cargo test` shows which
/// tests did not run.
pub fn skipped(why: &str) {
    use std::io::Write;
    // libtest names each test's thread after the test.
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?");
    // One write, so that parallel tests' lines do not interleave.
    let line = format!("\nSKIPPED {test}: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// Sends one GTP command that must succeed and returns its result text (without `= ` and the
/// blank line).
pub fn ok(g: &mut flank::protocol::gtp::Gtp, cmd: &str) -> String {
    let a = g.handle_line(cmd).expect("a command gets an answer");
    assert!(a.starts_with('='), "{cmd:?} failed: {a:?}");
    assert!(a.ends_with("\n\n"), "{a:?}");
    let body = &a[1..a.len() - 2];
    body.strip_prefix(' ').unwrap_or(body).to_string()
}

/// Sends one GTP command that must fail and returns the message.
pub fn err(g: &mut flank::protocol::gtp::Gtp, cmd: &str) -> String {
    let a = g.handle_line(cmd).expect("a command gets an answer");
    assert!(a.starts_with("? "), "{cmd:?} should fail: {a:?}");
    a[2..a.len() - 2].to_string()
}
