//! `cargo xtask diff`: the fixture pair (every level, both upgrade orders),
//! the published releases one after another, and the JSON output against its
//! own schema.

use std::path::{Path, PathBuf};

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
fn every_change_kind_has_a_fixture_in_both_directions() {
    let levels = root().join("schema/fixtures/diff/levels");
    let kinds = root().join("schema/fixtures/diff/kinds");
    let forward = diff::diff_sides(&root(), &kinds.join("old"), &kinds.join("new")).unwrap();
    let backward = diff::diff_sides(&root(), &kinds.join("new"), &kinds.join("old")).unwrap();
    validate_json(&forward);
    validate_json(&backward);
    let mut seen: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    let lv = diff::diff_sides(&root(), &levels.join("old.json"), &levels.join("new.json")).unwrap();
    for r in forward.iter().chain(&backward).chain(&lv) {
        seen.extend(r.changes.iter().map(|c| c.kind));
    }
    let causes = root().join("schema/fixtures/diff/causes");
    for c in std::fs::read_dir(&causes).unwrap() {
        let (old, new) = cause_sides(&c.unwrap().path());
        for r in diff::diff_sides(&root(), &old, &new).unwrap() {
            seen.extend(r.changes.iter().map(|c| c.kind));
        }
    }
    let missing: Vec<&&str> = diff::KINDS.iter().filter(|k| !seen.contains(**k)).collect();
    assert!(missing.is_empty(), "change kinds without a fixture: {missing:?}");
    // The report schema lists exactly these kinds.
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("schema/diff-report.schema.json")).unwrap()).unwrap();
    let listed: Vec<&str> = schema["$defs"]["Change"]["properties"]["kind"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(listed, diff::KINDS);

    let find = |rs: &[diff::Report], def: &str, kind: &str| -> diff::Change {
        rs.iter()
            .flat_map(|r| &r.changes)
            .find(|c| c.def == def && c.kind == kind)
            .unwrap_or_else(|| panic!("no {kind} on {def}"))
            .clone()
    };
    // Openness flips are judged by who reads the value.
    assert_eq!(find(&forward, "Mode", "enum_openness_changed").level, Level::Compatible);
    assert_eq!(find(&forward, "Level", "enum_openness_changed").breaks, ["old clients"]);
    assert_eq!(find(&forward, "Event", "union_openness_changed").level, Level::Breaking);
    assert_eq!(find(&backward, "Event", "union_openness_changed").level, Level::Compatible);
    // A closed enum read only through lenient properties: dangerous, not breaking.
    let p = find(&forward, "Priority", "enum_value_added");
    assert_eq!((p.level, p.breaks.as_slice()), (Level::Dangerous, ["old agents".to_owned()].as_slice()));
    // A description that changes what a patch means, with no structural change.
    assert_eq!(find(&forward, "UserMessage", "patch_description_changed").level, Level::Dangerous);
    assert_eq!(find(&forward, "UserMessage", "patch_semantics_changed").level, Level::Dangerous);
    // The capability property the adapters read is v1's (schema/conversions.json).
    let c = find(&forward[..1], "ClientSessionCapabilities", "capability_description_changed");
    assert_eq!(c.level, Level::Dangerous);
    assert!(!forward[1].changes.iter().any(|c| c.kind == "capability_description_changed"));
    // A reworded description of a property nobody configured stays compatible.
    assert!(forward[0].changes.iter().any(|c| c.def == "ClientSessionCapabilities"
        && c.kind == "description_changed"
        && c.level == Level::Compatible));

    // What the revision does to the v1 <-> v2 conversions.
    let effect = |rs: &[diff::Report], name: &str| -> &'static str {
        rs.iter()
            .flat_map(|r| &r.conversions)
            .find(|c| c.v2.as_deref() == Some(name) || c.v1.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no conversion change for {name}"))
            .effect
    };
    assert_eq!(effect(&forward, "Fresh"), "newly possible");
    assert_eq!(effect(&forward, "Legacy"), "no longer possible");
    assert_eq!(effect(&forward, "Settings"), "becomes lossy");
    assert_eq!(effect(&forward, "Item"), "needs a hand-written rule");
    assert_eq!(effect(&backward, "Settings"), "becomes lossless");
    assert!(find(&forward, "Settings", "additional_properties_changed").convert.unwrap().starts_with("becomes lossy"));
    // A lone file has no other version to convert to.
    assert!(lv.iter().all(|r| r.conversions.is_empty()));

    insta::assert_snapshot!("diff_kinds_markdown", diff::markdown(&forward));
    insta::assert_json_snapshot!("diff_kinds_json", forward);
    insta::assert_snapshot!("diff_kinds_backward_markdown", diff::markdown(&backward));
    insta::assert_json_snapshot!("diff_kinds_backward_json", backward);
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

/// A change the stable and the unstable file of a version both make is one
/// finding in the summary (issue 54); the file-by-file counts follow it.
#[test]
fn a_change_both_files_of_a_version_make_is_one_finding() {
    let r = root();
    let reports = diff::diff_sides(&r, &r.join("schema/releases/2.0.0"), &r.join("schema/releases/2.1.0")).unwrap();
    let by_file: usize = reports.iter().map(|x| x.summary.dangerous).sum();
    let one = diff::findings(&reports);
    let gating: Vec<&diff::Change> = reports
        .iter()
        .flat_map(|x| &x.changes)
        .filter(|c| c.def == "SetSessionConfigOptionRequest" && c.kind == "capability_gating_changed")
        .collect();
    assert_eq!(gating.len(), 2, "{gating:#?}");
    // Counted by hand: distinct (version, fingerprint, reason) among the dangerous changes.
    let mut distinct = std::collections::BTreeSet::new();
    for x in &reports {
        for c in x.changes.iter().filter(|c| c.level == Level::Dangerous) {
            distinct.insert((x.applied.new.protocol.clone(), c.fingerprint.clone(), c.reason.clone()));
        }
    }
    assert_eq!(one.dangerous, distinct.len());
    assert!(one.dangerous < by_file, "{one:?} against {by_file}");
    let md = diff::markdown(&reports);
    assert!(md.contains(&format!("**{} dangerous**", one.dangerous)), "{md}");
    let breaking: usize = reports.iter().map(|x| x.summary.breaking).sum();
    assert!(md.contains(&format!("file by file: {breaking} breaking, {by_file} dangerous")), "{md}");
    // One file alone: its findings are its counts.
    let stable: Vec<diff::Report> = reports.into_iter().filter(|x| x.old.ends_with("v2/schema.json")).collect();
    assert_eq!(diff::findings(&stable), stable[0].summary);
    assert!(!diff::markdown(&stable).contains("counted once"));
}

/// `--format changelog`: a release's section for CHANGELOG.md, each finding
/// once (a change only the unstable file makes marked so), then the Rust API.
#[test]
fn the_changelog_section_of_a_release() {
    let r = root();
    let reports = diff::diff_sides(&r, &r.join("schema/releases/2.2.0"), &r.join("schema/releases/2.3.0")).unwrap();
    let text = diff::changelog("Schema 2.2.0 -> 2.3.0", &reports);
    assert!(text.starts_with("## Schema 2.2.0 -> 2.3.0\n\n### Wire: dangerous (3)\n"), "{text}");
    let one = diff::findings(&reports);
    let described = reports.iter().flat_map(|x| &x.changes).filter(|c| c.kind == "description_changed").count();
    assert!(described > 0);
    // Every finding but the description-only ones is a line.
    let lines = text.lines().filter(|l| l.starts_with("- v")).count();
    let docs = {
        let mut seen = std::collections::BTreeSet::new();
        for x in &reports {
            for c in x.changes.iter().filter(|c| c.kind == "description_changed") {
                seen.insert((x.applied.new.protocol.clone(), c.fingerprint.clone(), c.reason.clone()));
            }
        }
        seen.len()
    };
    assert_eq!(lines, one.breaking + one.dangerous + one.compatible - docs);
    assert!(text.contains(", unstable only: "), "{text}");
    assert!(text.contains("\n### Rust API\n\n- added, v1: `AgentAuthCapabilities::status`\n"), "{text}");
    insta::assert_snapshot!("changelog_2_2_0_to_2_3_0", text);
}

/// Every vendored release diffs with the next, 1.x included (a v1
/// `schema.json` of 1.x against the `v1/` files of 2.0.0), and the generator
/// understands every definition of each: no change is `not_understood`.
#[test]
fn every_release_diffs_with_the_next_and_is_understood() {
    let r = root();
    let mut sides: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir(r.join("schema/releases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_str().unwrap().split('.').map(|n| n.parse().unwrap()).collect(), p))
        .collect();
    sides.sort();
    sides.push((vec![], r.join("schema")));
    assert!(sides.len() >= 13, "{} sides", sides.len());
    for w in sides.windows(2) {
        let (old, new) = (&w[0].1, &w[1].1);
        let reports = diff::diff_sides(&r, old, new)
            .unwrap_or_else(|e| panic!("{} -> {}: the diff refuses: {e}", old.display(), new.display()));
        validate_json(&reports);
        assert!(!reports.is_empty(), "{} -> {}: nothing compared", old.display(), new.display());
        for c in reports.iter().flat_map(|x| &x.changes) {
            assert_ne!(c.kind, "not_understood", "{} -> {}: {}", old.display(), new.display(), c.reason);
        }
    }
}

/// Every published schema file tells its protocol version by its contents,
/// the same as its place in the layout says.
#[test]
fn every_published_file_tells_its_version_by_its_contents() {
    let r = root();
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(r.join("schema/releases")).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.push(r.join("schema"));
    let mut seen = 0;
    for dir in dirs {
        for v in xtask::load::versions(&dir) {
            for rel in [v.stable, v.unstable].into_iter().flatten() {
                let path = dir.join(rel);
                let json = xtask::load::read_json(&path, &path).unwrap();
                let found = xtask::load::protocol_of(&json).map(|(v, _)| v);
                assert_eq!(found, Some(v.version), "{}", path.display());
                seen += 1;
            }
        }
    }
    assert!(seen >= 30, "{seen} files");
}

#[test]
fn sides_of_different_versions_are_an_error() {
    let r = root();
    let e = diff::diff_sides(&r, &r.join("schema/v1/schema.json"), &r.join("schema/v2/schema.json")).unwrap_err();
    assert!(e.to_string().contains("no schema of the same protocol version"), "{e}");
    let e = diff::diff_sides(&r, &r.join("schema/nope"), &r.join("schema")).unwrap_err();
    assert!(e.to_string().contains("no such schema file or directory"), "{e}");
}

#[test]
fn a_capability_entry_the_schema_lacks_is_a_codegen_error() {
    let r = root();
    let dir = r.join("schema");
    let load = |rel: &str| xtask::load::module(&r, &dir, rel, None).unwrap();
    let (v1, v1u, v2, v2u) = (
        load("v1/schema.json"),
        load("v1/schema.unstable.json"),
        load("v2/schema.json"),
        load("v2/schema.unstable.json"),
    );
    let label = Path::new("schema/conversions.json");
    let config = xtask::convert::Config::read(&r.join(label), label).unwrap();
    assert!(xtask::convert::generate((&v1, &v1u), (&v2, &v2u), &config, label).is_ok());
    let mut bad = config.clone();
    bad.capabilities.entry("ClientSessionCapabilities".into()).or_default().insert("telepathy".into(), "x".into());
    let e = xtask::convert::generate((&v1, &v1u), (&v2, &v2u), &bad, label).err().unwrap();
    assert_eq!(
        e.to_string(),
        "schema/conversions.json: #/capabilities/ClientSessionCapabilities/telepathy: `ClientSessionCapabilities` has no property `telepathy`"
    );
    let mut bad = config;
    bad.capabilities.insert("NoSuchCapabilities".into(), Default::default());
    let e = xtask::convert::generate((&v1, &v1u), (&v2, &v2u), &bad, label).err().unwrap();
    assert!(e.to_string().contains("no definition `NoSuchCapabilities`"), "{e}");
}

/// The diff never refuses a schema it can parse: every bad fixture (each a
/// construct or contradiction the generator refuses) is diffed against
/// itself with no change, and against a copy in which the refused definition
/// changed, with that change reported as `not_understood` (dangerous, with
/// the reason).
#[test]
fn the_diff_never_refuses_a_schema_it_can_parse() {
    let bad = root().join("schema/fixtures/bad");
    let scratch = std::env::temp_dir().join(format!("acp-diff-lenient-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut seen = 0;
    for entry in std::fs::read_dir(&bad).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(mut json) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let same = diff::diff_sides(&root(), &path, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(same.iter().all(|r| r.changes.is_empty()), "{name}: {:?}", same[0].changes);
        // Every definition the strict lowering refuses is opaque in the lenient one.
        let opaque: Vec<String> = xtask::lower::lower_in(&path, &json, None, xtask::lower::Mode::Lenient)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .defs
            .iter()
            .filter(|d| matches!(d.kind, xtask::model::Kind::Opaque(_)))
            .map(|d| d.name.clone())
            .collect();
        let Some(first) = opaque.first() else { continue };
        json["$defs"][first.as_str()]["description"] = "changed".into();
        let copy = scratch.join(&name);
        std::fs::write(&copy, serde_json::to_string(&json).unwrap()).unwrap();
        let changed = diff::diff_sides(&root(), &path, &copy).unwrap_or_else(|e| panic!("{name}: {e}"));
        validate_json(&changed);
        let c = changed[0].changes.iter().find(|c| &c.def == first).unwrap_or_else(|| panic!("{name}: {first}"));
        assert_eq!((c.kind, c.level), ("not_understood", Level::Dangerous), "{name}");
        assert!(c.reason.starts_with("not understood: #/$defs/"), "{name}: {}", c.reason);
        seen += 1;
    }
    std::fs::remove_dir_all(&scratch).unwrap();
    assert!(seen >= 12, "{seen} bad fixtures with a definition the generator refuses");
}

/// A typed `additionalProperties` (a flattened typed map) whose type changes
/// is breaking both ways; becoming typed is a change of `additionalProperties`.
#[test]
fn a_typed_rest_that_changes_type_is_reported() {
    let dir = std::env::temp_dir().join(format!("acp-diff-rest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let side = |name: &str, rest: serde_json::Value| {
        let schema = serde_json::json!({"$defs": {"Counts": {
            "type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": rest
        }}});
        let path = dir.join(name);
        std::fs::write(&path, schema.to_string()).unwrap();
        path
    };
    let (a, b, c) = (
        side("a.json", serde_json::json!({"type": "integer"})),
        side("b.json", serde_json::json!({"type": "string"})),
        side("c.json", serde_json::json!(true)),
    );
    let changes = |old: &Path, new: &Path| -> Vec<(String, Level)> {
        let r = diff::diff_sides(&root(), old, new).unwrap();
        r.iter().flat_map(|x| &x.changes).map(|c| (c.kind.to_owned(), c.level)).collect()
    };
    assert_eq!(changes(&a, &b), [("additional_properties_changed".to_owned(), Level::Breaking)]);
    assert_eq!(changes(&c, &a).len(), 1, "`true` -> a schema");
    assert!(changes(&a, &a).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The two sides of a fixture pair under `schema/fixtures/diff/causes/`: two
/// files, or two directories in the layout of `schema/`.
fn cause_sides(dir: &Path) -> (PathBuf, PathBuf) {
    if dir.join("old.json").is_file() {
        (dir.join("old.json"), dir.join("new.json"))
    } else {
        (dir.join("old"), dir.join("new"))
    }
}

/// Each cause of a false alarm or a miss the diff had, as a fixture pair
/// with its markdown, JSON and GitHub snapshots, and what must hold of it.
#[test]
fn each_false_alarm_cause_is_fixed_by_its_fixture_pair() {
    let causes = root().join("schema/fixtures/diff/causes");
    let mut names: Vec<String> =
        std::fs::read_dir(&causes).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert!(names.len() >= 13, "{names:?}");
    for name in &names {
        let (old, new) = cause_sides(&causes.join(name));
        let reports = diff::diff_sides(&root(), &old, &new).unwrap();
        validate_json(&reports);
        let changes: Vec<&diff::Change> = reports.iter().flat_map(|r| &r.changes).collect();
        let known = false_alarm_cause(name, &changes)
            || silent_loss_cause(name, &changes, (&old, &new), &reports)
            || reading_cause(name, &changes, &reports)
            || issue_54_cause(name, &changes);
        assert!(known, "fixture pair `{name}` has no assertions here");
        insta::assert_snapshot!(format!("cause_{name}_markdown"), diff::markdown(&reports));
        insta::assert_json_snapshot!(format!("cause_{name}_json"), reports);
        insta::assert_snapshot!(format!("cause_{name}_github"), diff::github(&root(), &reports));
    }
}

/// The change of `kind` on `member` in a fixture pair's report.
fn change<'c>(name: &str, changes: &[&'c diff::Change], kind: &str, member: &str) -> &'c diff::Change {
    changes
        .iter()
        .find(|c| c.kind == kind && c.member == member)
        .unwrap_or_else(|| panic!("{name}: no {kind} on `{member}` in {changes:#?}"))
}

/// The causes of false alarms: what must hold of each pair (false when `name` is not one).
fn false_alarm_cause(name: &str, changes: &[&diff::Change]) -> bool {
    let find = |kind: &str, member: &str| change(name, changes, kind, member);
    match name {
        "semantic_string_types" => {
            // A property that now names a string type: the same JSON, a new Rust type.
            for m in ["cwd", "mimeType", "cursor", "roots"] {
                let c = find("rust_type_changed", m);
                assert_eq!((c.level, c.rust.level), (Level::Compatible, diff::RustLevel::Breaking), "{m}");
                assert!(c.breaks.is_empty());
            }
            // A named type that adds a pattern narrows what new readers accept.
            let c = find("string_rule_changed", "sessionId");
            assert_eq!((c.level, c.breaks.as_slice()), (Level::Breaking, ["old agents".to_owned()].as_slice()));
            assert!(!changes.iter().any(|c| c.kind == "field_type_changed"));
        }
        "content_encoding" => {
            let c = find("rust_type_changed", "blob");
            assert_eq!(c.level, Level::Compatible);
            assert!(changes.iter().all(|c| c.level == Level::Compatible));
        }
        "meta_only_response_renamed" => {
            let c = find("definition_renamed", "SetProviderResponse");
            assert_eq!((c.level, c.rust.level), (Level::Compatible, diff::RustLevel::Breaking));
            assert!(!changes.iter().any(|c| c.kind == "method_removed" || c.kind == "method_added"));
        }
        "identical_shape_ref" => {
            let c = find("rust_type_changed", "stop");
            assert_eq!(c.level, Level::Compatible);
            assert!(c.reason.contains("SessionCloseCapabilities"), "{}", c.reason);
            // The accompanying description change is judged on its own (a plain one here).
            assert_eq!(find("description_changed", "stop").level, Level::Compatible);
            assert!(!changes.iter().any(|c| c.kind == "field_type_changed"));
        }
        "meta_by_key_upsert" => {
            let c = find("patch_description_changed", "_meta");
            assert_eq!(c.level, Level::Dangerous);
            assert!(
                c.reason.contains("A new object replaces the stored one.") && c.reason.contains("is removed"),
                "{}",
                c.reason
            );
        }
        "patch_phrase_line_break" => {
            let c = find("patch_description_changed", "");
            assert_eq!(c.level, Level::Dangerous);
            assert!(
                c.reason.contains("now speaks of patch semantics")
                    && c.reason.contains("Each update has patch semantics:"),
                "{}",
                c.reason
            );
        }
        "method_renamed" => {
            let renames: Vec<&&diff::Change> = changes.iter().filter(|c| c.kind == "method_renamed").collect();
            assert_eq!(renames.len(), 2, "one per method, not one per payload: {renames:#?}");
            let c = find("method_renamed", "session/stop");
            assert_eq!(c.level, Level::Breaking);
            assert!(
                c.rust.items.iter().any(|i| i == "StopSessionRequest -> CloseSessionRequest"),
                "{:?}",
                c.rust.items
            );
            assert!(!changes.iter().any(|c| c.kind.starts_with("method_") && c.kind != "method_renamed"));
            assert!(!changes.iter().any(|c| c.kind == "method_changed"));
        }
        "message_families" => {
            let c = find("message_family_removed", "");
            assert_eq!(
                (c.def.as_str(), c.level, c.breaks.as_slice()),
                ("ClientBatchCall", Level::Breaking, ["old clients".to_owned()].as_slice())
            );
            assert_eq!(find("message_family_added", "").def, "Proxy");
            assert_eq!(changes.len(), 2, "a new family's own arms are part of it: {changes:#?}");
        }
        _ => return false,
    }
    true
}

/// The causes of silent losses (issue 41): a removed optional property, and the
/// protocol version of lone files.
fn silent_loss_cause(
    name: &str,
    changes: &[&diff::Change],
    (old, new): (&Path, &Path),
    reports: &[diff::Report],
) -> bool {
    let find = |kind: &str, member: &str| change(name, changes, kind, member);
    match name {
        "optional_property_removed" => {
            // A removed optional property: upgraded readers drop what old senders put
            // there, old readers stop getting it.
            let c = find("field_removed", "models");
            assert_eq!(c.level, Level::Dangerous);
            assert_eq!(c.breaks, ["old agents", "old clients"]);
            assert_eq!(find("field_removed", "fork").level, Level::Dangerous, "a capability");
            // The definition that disappears with it.
            let c = changes.iter().find(|c| c.kind == "definition_removed").expect("SessionModelState removed");
            assert_eq!((c.def.as_str(), c.level), ("SessionModelState", Level::Dangerous));
            assert!(c.reason.contains("NewSessionResponse.models"), "{}", c.reason);
            // A definition that keeps what it does not name carries the value through.
            assert_eq!(find("field_removed", "note").level, Level::Compatible);
            // Adding an optional property is how the protocol extends.
            assert_eq!(find("field_added", "modes").level, Level::Compatible);
        }
        "lone_v2_file" => {
            // Two lone files: the version comes from the file, so the v2 upsert rules apply.
            let r = &reports[0];
            for reading in [&r.applied.old, &r.applied.new] {
                assert_eq!((reading.protocol.as_str(), reading.decided_by), ("v2", "contents"));
                assert!(reading.evidence.contains("UpdateSessionNotification"), "{}", reading.evidence);
                assert_eq!(reading.upserts, ["SessionInfoUpdate"]);
                assert_eq!(reading.upsert_config.as_deref(), Some("schema/upserts.json"));
            }
            assert_eq!(find("patch_description_changed", "_meta").level, Level::Dangerous);
            // The same pair read as v1 (`--protocol v1`) has no upsert rules to check.
            let as_v1 = diff::diff_sides_as(&root(), old, new, Some("v1")).unwrap();
            assert_eq!((as_v1[0].applied.new.protocol.as_str(), as_v1[0].applied.new.decided_by), ("v1", "option"));
            assert!(as_v1[0].applied.new.evidence.contains("as v2 does"), "{}", as_v1[0].applied.new.evidence);
            assert!(as_v1[0].applied.new.upserts.is_empty());
            assert!(as_v1[0].changes.iter().all(|c| c.kind != "patch_description_changed"), "{:#?}", as_v1[0].changes);
            // A directory takes its version from its layout: the option is refused there.
            let dir = root().join("schema/fixtures/diff/causes/meta_by_key_upsert");
            let e = diff::diff_sides_as(&root(), &dir.join("old"), &dir.join("new"), Some("v2")).unwrap_err();
            assert!(e.to_string().contains("layout"), "{e}");
        }
        _ => return false,
    }
    true
}

/// The causes of issue 54: obligations compared rather than words, a
/// changed default judged by who reads it, a catch-all arm's properties.
fn issue_54_cause(name: &str, changes: &[&diff::Change]) -> bool {
    let find = |kind: &str, member: &str| change(name, changes, kind, member);
    match name {
        "defaults_and_catch_all" => {
            // Issue 54: a default is judged by who reads it.
            let default = |member: &str| {
                changes
                    .iter()
                    .find(|c| c.kind == "default_changed" && c.member == member)
                    .unwrap_or_else(|| panic!("no default_changed on {member}: {changes:#?}"))
            };
            assert_eq!(default("mode").level, Level::Dangerous);
            assert!(default("mode").reason.contains("from `\"fast\"` to `\"careful\"`"), "{}", default("mode").reason);
            // Required on both sides: never omitted, so never defaulted.
            assert_eq!(default("level").level, Level::Compatible);
            // Only the member of a removed property differs.
            assert_eq!(default("caps").level, Level::Compatible);
            // The catch-all arm's declared properties.
            let arm = |kind: &str, member: &str| {
                changes
                    .iter()
                    .find(|c| c.def == "Event" && c.kind == kind && c.member == member)
                    .unwrap_or_else(|| panic!("no {kind} on Event.{member}: {changes:#?}"))
            };
            assert_eq!(arm("field_removed", "note").level, Level::Compatible, "the arm keeps other properties");
            assert_eq!(arm("field_added", "id").level, Level::Dangerous, "required now");
            assert_eq!(arm("field_type_changed", "extra").level, Level::Dangerous);
        }
        "obligation_rewording" => {
            // Issue 54: obligations compared, not words. A capability spelled
            // out with its path, variants written as their tags, a list named
            // by its property: the same obligation, compatible.
            for (def, member) in [("CompactionUpdate", ""), ("LoginRequest", "")] {
                let c = changes.iter().find(|c| c.def == def && c.member == member).expect(def);
                assert_eq!((c.kind, c.level), ("description_changed", Level::Compatible), "{c:#?}");
                assert!(c.reason.contains("the same in other words"), "{}", c.reason);
            }
            // A capability changed is a gating change; a handling rule changed
            // or added is an obligation change.
            let gating = find("capability_gating_changed", "");
            assert_eq!((gating.def.as_str(), gating.level), ("Notice", Level::Dangerous));
            let status = changes.iter().find(|c| c.def == "Status").expect("Status");
            assert_eq!((status.kind, status.level), ("obligation_changed", Level::Dangerous));
            assert!(status.reason.contains("as `idle`"), "{}", status.reason);
            // The baseline reworded, and a rejection rule added beside it: only
            // the added rule is quoted.
            let prompt =
                changes.iter().find(|c| c.def == "PromptRequest" && c.member.is_empty()).expect("PromptRequest");
            assert_eq!((prompt.kind, prompt.level), ("obligation_changed", Level::Dangerous));
            assert!(prompt.reason.contains("was nothing") && prompt.reason.contains("-32602"), "{}", prompt.reason);
        }
        _ => return false,
    }
    true
}

/// The causes read through the prose and the readers (issue 41): capability
/// gating, discriminators judged through holders, arms re-keyed.
fn reading_cause(name: &str, changes: &[&diff::Change], reports: &[diff::Report]) -> bool {
    let find = |kind: &str, member: &str| change(name, changes, kind, member);
    match name {
        "capability_gating_prose" => {
            // In v1 as in v2.
            for r in reports {
                let gating: Vec<&diff::Change> =
                    r.changes.iter().filter(|c| c.kind == "capability_gating_changed").collect();
                let of = |def: &str, member: &str| {
                    gating
                        .iter()
                        .find(|c| c.def == def && c.member == member)
                        .unwrap_or_else(|| panic!("{}: no gating change on {def}.{member}: {gating:#?}", r.new))
                };
                assert_eq!(of("McpServer", "http").level, Level::Dangerous);
                assert_eq!(of("SetSessionConfigOptionRequest", "").level, Level::Dangerous);
                assert_eq!(of("PromptCapabilities", "").level, Level::Dangerous);
                // The re-keyed arm is compared with its predecessor.
                let c = of("McpServer", "stdio");
                assert!(c.reason.contains("All Agents MUST support this transport.") && c.reason.contains("mcp.stdio"));
                assert!(c.reason.contains("(was `Stdio`)"), "{}", c.reason);
                // A heading reworded above an unchanged gating sentence, and a
                // capability described in other words, are not gating changes.
                assert!(!gating.iter().any(|c| c.member == "sse" || c.member == "image"), "{gating:#?}");
                assert!(r.changes.iter().any(|c| c.member == "sse" && c.kind == "description_changed"));
            }
        }
        "union_tag_lenient_holders" => {
            let tag = |def: &str| {
                changes.iter().find(|c| c.def == def && c.kind == "union_tag_changed").expect("union_tag_changed")
            };
            // Every holder of `Shape` absorbs the failure: dangerous, not breaking.
            assert_eq!(tag("Shape").level, Level::Dangerous);
            assert_eq!(tag("Mark").level, Level::Breaking);
        }
        "untagged_arm_tagged" => {
            let rekeyed = |def: &str| {
                changes.iter().find(|c| c.def == def && c.kind == "union_arm_rekeyed").expect("union_arm_rekeyed")
            };
            // The old untagged arm lacks `type`: the new reader, whose catch-all requires it,
            // rejects what old clients send; the old reader takes the new arm.
            let c = rekeyed("McpServer");
            assert_eq!((c.member.as_str(), c.level), ("stdio", Level::Breaking));
            assert_eq!(c.breaks, ["old clients"]);
            // Its items always carried `type: "string"`: read both ways.
            assert_eq!(rekeyed("MultiSelectItems").level, Level::Compatible);
            let t = changes.iter().find(|c| c.kind == "union_tag_changed").expect("union_tag_changed");
            assert_eq!((t.def.as_str(), t.level), ("MultiSelectItems", Level::Compatible));
            assert!(
                !changes
                    .iter()
                    .any(|c| c.def == "MultiSelectItems"
                        && (c.kind == "union_arm_added" || c.kind == "union_arm_removed"))
            );
            // An arm removed whose objects the untagged default arm takes: misread.
            let c = find("union_arm_removed", "env_var");
            assert_eq!(c.level, Level::Breaking);
            assert!(c.reason.contains("misread its objects as `Agent`"), "{}", c.reason);
        }
        _ => return false,
    }
    true
}

/// A change the revision did not touch keeps its fingerprint: every change
/// recorded before the Rust axis and the wire shapes that is still reported
/// with the same kind, definition and level has the same fingerprint, so a
/// reviewer's `--accept` file keeps working.
#[test]
fn accepted_fingerprints_of_unchanged_changes_stay_stable() {
    let r = root();
    let text = std::fs::read_to_string(r.join("tests/diff-eval/fingerprints-before.txt")).unwrap();
    let sides = [
        ("schema/fixtures/diff/levels/old.json", "schema/fixtures/diff/levels/new.json"),
        ("schema/fixtures/diff/kinds/old", "schema/fixtures/diff/kinds/new"),
        ("schema/releases/2.0.0", "schema/releases/2.1.0"),
        ("schema/releases/1.8.0", "schema/releases/1.9.0"),
    ];
    type Key = (String, String, String, String, String);
    let mut now: Vec<(String, Key)> = Vec::new();
    for (a, b) in sides {
        for rep in diff::diff_sides(&r, &r.join(a), &r.join(b)).unwrap() {
            for c in rep.changes {
                let key = (rep.old.clone(), c.level.as_str().into(), c.kind.into(), c.def.clone(), c.member.clone());
                now.push((c.fingerprint.clone(), key));
            }
        }
    }
    let (mut kept, mut same_key) = (0, 0);
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.splitn(6, ' ').collect();
        let [fp, file, level, kind, def, member] = f[..] else { panic!("bad line {line}") };
        let key: Key = (file.into(), level.into(), kind.into(), def.into(), member.into());
        let same: Vec<&String> = now.iter().filter(|n| n.1 == key).map(|n| &n.0).collect();
        if same.is_empty() {
            continue;
        }
        same_key += 1;
        assert!(same.iter().any(|n| *n == fp), "{line}: still reported, with another fingerprint");
        kept += 1;
    }
    assert_eq!(kept, same_key);
    assert!(kept > 900, "only {kept} changes still reported as they were");
}
