//! bench (to be written).
