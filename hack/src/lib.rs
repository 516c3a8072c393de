//! No code: this crate's dependencies and their features are what it is for
//! (see its `Cargo.toml`).
