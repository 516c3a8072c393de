//! The ACP bindings generator and maintainer tools behind `cargo xtask`.
//!
//! The pipeline reads the vendored schema ([`load`], checked against
//! [`lock`]), lowers it into the generator's own model ([`model`], built by
//! [`lower`]), emits Rust tokens ([`emit`]) and writes formatted files all at
//! once ([`codegen`]).

pub mod codegen;
pub mod emit;
pub mod error;
pub mod ir;
pub mod load;
pub mod lock;
pub mod lower;
pub mod model;
pub mod plan;
pub mod pull;
pub mod rpc;
pub mod upserts;
pub mod write;
