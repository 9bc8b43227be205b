//! The text protocols flank speaks on stdin/stdout: GTP.

pub mod gtp;
