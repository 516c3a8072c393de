//! The derives' compile-fail cases: `tests/ui/*.rs`, each with the compiler's
//! output it must give (`.stderr`), built by `cargo test -p acp-misuse-tests`
//! with trybuild. The crate has no code of its own; it exists so that the
//! cases build against the runtime crate alone (see `Cargo.toml`).
