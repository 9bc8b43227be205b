//! game (to be written).
