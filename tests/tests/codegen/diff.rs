//! `cargo xtask diff`: the fixture pair (every level, both upgrade orders),
//! the published releases one after another, and the JSON output against its
//! own schema.

use std::path::Path;

use xtask::diff::{self, Level};

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn validate_json(reports: &[diff::Report]) {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("schema/diff-report.schema.json")).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let out = serde_json::to_value(reports).unwrap();
    let errors: Vec<String> = v.iter_errors(&out).map(|e| format!("{}: {e}", e.instance_path)).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn the_fixture_pair_has_every_level_in_both_orders() {
    let dir = root().join("schema/fixtures/diff/levels");
    let reports = diff::diff_sides(&root(), &dir.join("old.json"), &dir.join("new.json")).unwrap();
    validate_json(&reports);
    let r = &reports[0];
    for level in [Level::Breaking, Level::Dangerous, Level::Compatible] {
        assert!(r.changes.iter().any(|c| c.level == level), "{level:?}");
    }
    // Old senders break (a required property added), old readers break (a closed enum value added).
    assert!(r.changes.iter().any(|c| c.kind == "field_added" && c.breaks == ["old clients"]));
    assert!(r
        .changes
        .iter()
        .any(|c| c.kind == "enum_value_added" && c.level == Level::Breaking && c.breaks == ["old agents"]));
    insta::assert_snapshot!("diff_levels_markdown", diff::markdown(&reports));
    insta::assert_json_snapshot!("diff_levels_json", reports);
    // Annotations name the file and the line of the change's pointer.
    let gh = diff::github(&root(), &reports);
    assert!(gh.contains("file=schema/fixtures/diff/levels/new.json,line=13,"), "{gh}");
    insta::assert_snapshot!("diff_levels_github", gh);
}

#[test]
fn fingerprints_ignore_unrelated_edits() {
    let dir = root().join("schema/fixtures/diff/levels");
    let a = diff::diff_sides(&root(), &dir.join("old.json"), &dir.join("new.json")).unwrap();
    // The same change seen from a file with other edits keeps its fingerprint.
    let mut old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("old.json")).unwrap()).unwrap();
    old["$defs"]["Unrelated"] = serde_json::json!({"type": "object", "properties": {"x": {"type": "string"}}});
    old["$defs"]["PingRequest"]["description"] = "edited".into();
    let tmp = std::env::temp_dir().join(format!("acp-diff-{}.json", std::process::id()));
    std::fs::write(&tmp, old.to_string()).unwrap();
    let b = diff::diff_sides(&root(), &tmp, &dir.join("new.json")).unwrap();
    std::fs::remove_file(&tmp).unwrap();
    let fp = |r: &[diff::Report], kind: &str| {
        r[0].changes.iter().filter(|c| c.kind == kind).map(|c| c.fingerprint.clone()).collect::<Vec<_>>()
    };
    assert_eq!(fp(&a, "field_added"), fp(&b, "field_added"));
    assert_eq!(fp(&a, "enum_value_added"), fp(&b, "enum_value_added"));
}

#[test]
fn the_published_releases_one_after_another() {
    let r = root();
    let sides =
        ["schema/releases/2.0.0", "schema/releases/2.1.0", "schema/releases/2.2.0", "schema/releases/2.3.0", "schema"];
    let mut text = String::new();
    for w in sides.windows(2) {
        let reports = diff::diff_sides(&r, &r.join(w[0]), &r.join(w[1])).unwrap();
        validate_json(&reports);
        // Only the stable files: the unstable ones repeat most of it.
        let stable: Vec<diff::Report> = reports.into_iter().filter(|x| !x.old.contains("unstable")).collect();
        text += &diff::markdown(&stable);
    }
    insta::assert_snapshot!("diff_releases", text);
}

#[test]
fn sides_of_different_versions_are_an_error() {
    let r = root();
    let e = diff::diff_sides(&r, &r.join("schema/v1/schema.json"), &r.join("schema/v2/schema.json")).unwrap_err();
    assert!(e.to_string().contains("no schema of the same protocol version"), "{e}");
    let e = diff::diff_sides(&r, &r.join("schema/nope"), &r.join("schema")).unwrap_err();
    assert!(e.to_string().contains("no such schema file or directory"), "{e}");
}
