//! Tools built on the generated bindings.

pub mod check;
pub mod convert;
pub mod diff;
pub mod lines;
pub mod pairing;
pub mod replay;
pub mod schema_diff;
#[rustfmt::skip]
pub mod registry;
pub mod bridge;
