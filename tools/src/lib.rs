//! Tools built on the generated bindings.

pub mod check;
pub mod convert;
pub mod diff;
pub mod pairing;
pub mod replay;
#[rustfmt::skip]
pub mod registry;
pub mod bridge;
