//! solve (to be written).
