//! Tools built on the generated bindings.

pub mod check;
pub mod diff;
