//! gtp (to be written).
