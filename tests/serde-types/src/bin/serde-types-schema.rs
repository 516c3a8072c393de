//! Writes the schemars 1.x schema of the fixture types to
//! `schema/fixtures/serde_types.json` (or checks it with `--check`).
//!
//! `cargo run -p acp-serde-types` before `cargo xtask codegen`, whenever the
//! fixture types or schemars change.

fn main() -> std::process::ExitCode {
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/fixtures/serde_types.json");
    acp_serde_types::write_or_check(&target, &acp_serde_types::schema_text())
}
