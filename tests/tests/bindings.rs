//! The generated v1 and v2 bindings on ACP messages: the corpus under
//! `tests/corpus/` (written from the spec pages and seeds) and direct checks.

use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "bindings/dispatch.rs"]
mod dispatch;
#[path = "bindings/reducer.rs"]
mod reducer;
#[path = "bindings/semantics.rs"]
mod semantics;

type Reencode = fn(&str, &str) -> Option<Result<Value, acp_bindings::runtime::rpc::DispatchError>>;

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
}

fn corpus(version: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(version);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// Runs every case; returns how many there were.
fn run(version: &str, reencode: Reencode) -> usize {
    let files = corpus(version);
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let case: Case = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
            .unwrap_or_else(|e| panic!("{name}: malformed case: {e}"));
        let _ = case.unstable; // the test crate builds the bindings with `unstable`
        let text = case.input.to_string();
        let Some(result) = reencode(&case.type_name, &text) else {
            failures.push(format!("{name}: no type `{}` in {version}", case.type_name));
            continue;
        };
        match (result, &case.reject) {
            (Ok(out), None) => {
                let want = case.expect.as_ref().unwrap_or(&case.input);
                if &out != want {
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

#[test]
fn v1_corpus_round_trips() {
    let n = run("v1", acp_tools::registry::v1::reencode);
    assert!(n >= 20, "the v1 corpus has only {n} cases");
}

#[test]
fn v2_corpus_round_trips() {
    let n = run("v2", acp_tools::registry::v2::reencode);
    assert!(n >= 20, "the v2 corpus has only {n} cases");
}
