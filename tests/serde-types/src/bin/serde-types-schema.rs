//! Writes the schemars schema of the fixture types to
//! `schema/fixtures/serde_types.json` (or checks it with `--check`).
//!
//! `cargo run -p acp-serde-types` before `cargo xtask codegen`, whenever the
//! fixture types or schemars change.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("error: unexpected argument `{other}` (usage: serde-types-schema [--check])");
            return ExitCode::from(2);
        }
    };
    let path = target();
    let text = acp_serde_types::schema_text();
    if check {
        return match std::fs::read_to_string(&path) {
            Ok(committed) if committed == text => ExitCode::SUCCESS,
            Ok(_) => {
                eprintln!("error: {} is stale: run `cargo run -p acp-serde-types`", path.display());
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                ExitCode::FAILURE
            }
        };
    }
    // All or nothing: write beside the file, then rename over it.
    let tmp = path.with_extension("json.tmp");
    let written = std::fs::write(&tmp, &text).and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        eprintln!("error: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!("wrote {}", path.display());
    ExitCode::SUCCESS
}

/// `schema/fixtures/serde_types.json` in the workspace this crate belongs to.
fn target() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.join("../../schema/fixtures/serde_types.json")
}
