//! timeman (to be written).
