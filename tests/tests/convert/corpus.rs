//! The corpus, payload by payload: every message of `tests/corpus` converted to the
//! other version and validated, and every pair both ways.

use super::*;

fn corpus(version: &str) -> Vec<(String, String, Value)> {
    let dir = root().join("tests/corpus").join(version);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let case: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                case["type"].as_str().unwrap().to_owned(),
                case["input"].clone(),
            )
        })
        .collect()
}

fn target_name(from: &str, name: &str) -> Option<String> {
    let pairs =
        convert::GENERATED_PAIRS.iter().map(|(a, b, _)| (*a, *b)).chain(convert::HAND_WRITTEN_PAIRS.iter().copied());
    for (a, b) in pairs {
        if from == "v1" && a == name {
            return Some(b.to_owned());
        }
        if from == "v2" && b == name {
            return Some(a.to_owned());
        }
    }
    None
}

/// Converts every accepted corpus case; validates the output against the
/// target's schema; snapshots what happened to each case.
fn corpus_direction(from: &str) -> String {
    let to = if from == "v1" { "v2" } else { "v1" };
    let mut lines = Vec::new();
    let mut invalid = Vec::new();
    for (file, ty, input) in corpus(from) {
        let text = input.to_string();
        let r = if from == "v1" { by_name::to_v2(&ty, &text, false) } else { by_name::to_v1(&ty, &text, false) };
        let Some(r) = r else {
            lines.push(format!("{file}: `{ty}` has no {to} counterpart"));
            continue;
        };
        match r {
            Err(by_name::Failed::Rejected(_)) => lines.push(format!("{file}: rejected by the {from} bindings")),
            Err(by_name::Failed::NotConverted(e)) => {
                lines.push(format!("{file}: not converted"));
                lines.extend(e.losses.iter().map(|l| format!("    {l}")));
            }
            Ok(c) => {
                let target = target_name(from, &ty).unwrap();
                let errs = schema(to).check(&target, &c.value);
                invalid.extend(errs.iter().map(|e| format!("{file}: {e}")));
                lines.push(format!(
                    "{file}: converted to {target}{}",
                    if c.losses.is_empty() { "" } else { ", with losses" }
                ));
                lines.extend(c.losses.iter().map(|l| format!("    {l}")));
                // Strict mode: converts exactly when there is no loss.
                let strict =
                    if from == "v1" { by_name::to_v2(&ty, &text, true) } else { by_name::to_v1(&ty, &text, true) };
                assert_eq!(strict.unwrap().is_ok(), c.losses.is_empty(), "{file}: strict mode");
            }
        }
    }
    assert!(invalid.is_empty(), "converted {to} payloads the {to} schema rejects:\n{}", invalid.join("\n"));
    lines.join("\n")
}

#[test]
fn v1_corpus_converts_to_valid_v2() {
    insta::assert_snapshot!("corpus_v1_to_v2", corpus_direction("v1"));
}

#[test]
fn v2_corpus_converts_to_valid_v1() {
    insta::assert_snapshot!("corpus_v2_to_v1", corpus_direction("v2"));
}

#[test]
fn every_pair_converts_both_ways() {
    // Identical pairs round-trip exactly on their default value.
    assert!(convert::GENERATED_PAIRS.len() >= 100, "{}", convert::GENERATED_PAIRS.len());
    let c = convert::to_v2(acp_bindings::v1::SessionId::new("s")).unwrap();
    assert_eq!(c.value.as_str(), "s");
    assert!(c.losses.is_empty());
    let lossy = convert::to_v1(acp_bindings::v2::ToolCallStatus::Cancelled).unwrap_err();
    assert_eq!(lossy.losses[0].kind, LossKind::Unconvertible);
}
