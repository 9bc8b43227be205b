//! The text protocols flank speaks on stdin/stdout: GTP and NBoard, on a shared input reader.

pub mod gtp;
pub(crate) mod input;
pub mod nboard;
