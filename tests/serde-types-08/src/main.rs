//! Writes schemars 0.8's draft-07 schema of the fixture types to
//! `schema/fixtures/schemars_08.json` (or checks it with `--check`).
//!
//! `cargo run -p acp-serde-types-08` before `cargo xtask codegen`, whenever
//! the fixture types or schemars 0.8 change.

fn main() -> std::process::ExitCode {
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/fixtures/schemars_08.json");
    acp_serde_types::write_or_check(&target, &acp_serde_types_08::schema_text())
}
