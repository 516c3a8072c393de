//! Tools built on the generated bindings.

pub mod check;
pub mod diff;
#[rustfmt::skip]
pub mod registry;
