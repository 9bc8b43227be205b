//! midgame (to be written).
