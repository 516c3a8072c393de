//! Arbitrary JSON as a schema file: the generator (lowering, the Rust plan,
//! emission, formatting) and the schema diff never panic. What the generator
//! cannot take is reported as problems of one line each that name the file;
//! a schema diffed against itself has no changes.
//!
//! Input: the schema file's bytes (seeds: the vendored schemas' definitions
//! and the fixture schemas).

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<Value>(data) else { return };
    match xtask::codegen::render_schema(Path::new("fuzz.json"), &json, "fuzz") {
        Ok((module, text)) => {
            assert!(text.starts_with("// @generated"), "rendered Rust without its header");
            let report = xtask::diff::diff(&module, &module);
            assert!(report.changes.is_empty(), "a schema differs from itself: {:?}", report.changes);
        }
        Err(e) => {
            // Every problem of the file, each one line naming the file.
            let problems = e.each();
            assert!(!problems.is_empty());
            for p in problems {
                let message = p.to_string();
                assert!(!message.contains('\n'), "a problem of more than one line: {message}");
                assert!(message.starts_with("fuzz.json"), "a problem that does not name the file: {message}");
            }
        }
    }
});
