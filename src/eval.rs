//! eval (to be written).
