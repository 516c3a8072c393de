//! The fixture schemas' modules, as `cargo xtask codegen --schema FILE --out
//! DIR` writes them, compiled against `acp-bindings-runtime` alone.

#[path = "../../generated/mod.rs"]
pub mod schemas;
