//! tt (to be written).
