//! endgame (to be written).
