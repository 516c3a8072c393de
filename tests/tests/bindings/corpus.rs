//! The round-trip corpus runner, shared by the workspace's `bindings` test
//! and the standalone crate in `tests/standalone` (which builds the bindings
//! as a user does).
//!
//! Each case file names a definition (`type`), an `input`, and either the
//! exact re-encoding (`expect`, default: the input itself) or a rejection
//! (`reject`: a substring of the error). With `"order": true` the
//! re-encoding must also keep every object's key order (compared as text).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Decodes a payload by definition name and encodes it again.
pub type Reencode = fn(&str, &str) -> Option<Result<Value, acp_bindings::runtime::rpc::DispatchError>>;

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    #[serde(rename = "type")]
    type_name: String,
    #[serde(default)]
    unstable: bool,
    note: String,
    input: Value,
    expect: Option<Value>,
    reject: Option<String>,
    #[serde(default)]
    order: bool,
}

fn corpus(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// Runs every case of the corpus directory `dir` (named after its version);
/// returns how many there were. `key_order`: whether the bindings keep the
/// key order of free-form objects (their `preserve_order` feature); without
/// it the cases that check the bytes (`order`) compare values only.
pub fn run(dir: &Path, reencode: Reencode, key_order: bool) -> usize {
    let version = dir.file_name().unwrap().to_string_lossy();
    let files = corpus(dir);
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let case: Case = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
            .unwrap_or_else(|e| panic!("{name}: malformed case: {e}"));
        let _ = case.unstable; // both test crates build the bindings with `unstable`
        let text = case.input.to_string();
        let Some(result) = reencode(&case.type_name, &text) else {
            failures.push(format!("{name}: no type `{}` in {version}", case.type_name));
            continue;
        };
        match (result, &case.reject) {
            (Ok(out), None) => {
                let want = case.expect.as_ref().unwrap_or(&case.input);
                let text = |v: &Value| serde_json::to_string(v).expect("a Value encodes");
                if &out != want || (key_order && case.order && text(&out) != text(want)) {
                    failures.push(format!("{name} ({}):\n  want {want}\n  got  {out}", case.note));
                }
            }
            (Ok(out), Some(needle)) => {
                failures.push(format!("{name} ({}): expected rejection `{needle}`, decoded to {out}", case.note))
            }
            (Err(e), Some(needle)) if e.to_string().contains(needle.as_str()) => {}
            (Err(e), _) => failures.push(format!("{name} ({}): {e}", case.note)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} {version} cases failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    files.len()
}
