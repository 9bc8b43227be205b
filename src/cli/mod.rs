//! The batch commands of the command line that are more than a call of the engine: `flank
//! solve` and `flank bench`.

pub mod bench;
pub mod solve;
