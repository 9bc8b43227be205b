//! perft (to be written).
