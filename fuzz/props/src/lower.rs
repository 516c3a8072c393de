//! Arbitrary JSON as a schema file: the generator (lowering, the Rust plan,
//! emission, formatting) and the schema diff never panic. What the generator
//! cannot take is reported as problems of one line each that name the file;
//! a schema diffed against itself has no changes. Lenient lowering (the
//! diff's) takes every schema whose root and `$defs` (or draft-07's
//! `definitions`, when there is no `$defs`) are objects, keeping
//! what it cannot lower as opaque definitions: exactly those the strict
//! lowering refused when it refused a definition.
//!
//! Input: the schema file's bytes (seeds: the vendored schemas' definitions
//! and the fixture schemas).

use std::path::Path;

use serde_json::Value;

/// The property, for one input (the fuzz target's body; a failure panics).
pub fn check(data: &[u8]) {
    let Ok(json) = serde_json::from_slice::<Value>(data) else { return };
    let file = Path::new("fuzz.json");
    let lenient = xtask::lower::lower_in(file, &json, None, xtask::lower::Mode::Lenient);
    let defs = json.as_object().and_then(|r| r.get("$defs").or_else(|| r.get("definitions")));
    let objects = defs.is_some_and(Value::is_object);
    match &lenient {
        Ok(module) => {
            let report = xtask::diff::diff(module, module);
            assert!(report.changes.is_empty(), "a lenient model differs from itself: {:?}", report.changes);
            let opaque = module.defs.iter().any(|d| matches!(d.kind, xtask::model::Kind::Opaque(_)));
            // Strict lowering refuses exactly when a definition is opaque or
            // the root has a keyword lenient lowering only warns about.
            match xtask::lower::lower(file, &json) {
                Ok(_) => assert!(!opaque, "opaque definitions where strict lowering succeeds"),
                Err(e) if !opaque => {
                    for p in e.each() {
                        let at_root = matches!(p, xtask::error::Error::Schema { pointer, .. } if pointer == "#");
                        assert!(at_root, "strict lowering refused what lenient lowering took whole: {p}");
                    }
                }
                Err(_) => {}
            }
        }
        Err(e) => assert!(!objects, "lenient lowering refused a schema with a `$defs` object: {e}"),
    }
    match xtask::generate::render_schema(file, &json, "fuzz") {
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
}
