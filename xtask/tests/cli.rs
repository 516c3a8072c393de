//! The `cargo xtask` command line: exit codes, one-line errors, nothing written on failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).output().expect("xtask runs")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("acp-xtask-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn check_passes_on_the_committed_tree_and_prints_one_line_per_schema() {
    let o = xtask(&["codegen", "--check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("defs read")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with("schema/v1/schema.json + schema/v1/schema.unstable.json: 178 + 252 defs read, "),
        "{out}"
    );
    assert!(lines.iter().all(|l| l.contains("items emitted") && l.ends_with(" ms")), "{out}");
}

#[test]
fn check_names_stale_files_and_exits_1() {
    let dir = scratch("stale");
    let out = dir.join("out");
    let schema = root().join("schema");
    let o = xtask(&["codegen", "--check", "--schema", schema.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("stale: ") && stderr(&o).contains("v1/mod.rs"), "{}", stderr(&o));
    assert!(!out.exists(), "--check writes nothing");
    // Generating into the folder and checking again succeeds.
    let o = xtask(&["codegen", "--schema", schema.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = xtask(&["codegen", "--check", "--schema", schema.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_schema_is_one_line_exit_2_nothing_written() {
    let dir = scratch("bad");
    let schema = dir.join("schema");
    for rel in ["v1/schema.json", "v1/schema.unstable.json", "v2/schema.json", "v2/schema.unstable.json"] {
        std::fs::create_dir_all(schema.join(rel).parent().unwrap()).unwrap();
        std::fs::copy(root().join("schema").join(rel), schema.join(rel)).unwrap();
    }
    std::fs::copy(root().join("schema/fixtures/bad/unsupported_keyword.json"), schema.join("v2/schema.json")).unwrap();
    let out = dir.join("out");
    let o = xtask(&["codegen", "--schema", schema.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("v2/schema.json: #/$defs/Headers/properties/values: unsupported keyword `patternProperties`"),
        "{err}"
    );
    assert!(!out.exists(), "nothing may be written");

    // A preview with `--lenient`: the definition is any JSON, with a warning.
    let o = xtask(&["codegen", "--schema", schema.to_str().unwrap(), "--out", out.to_str().unwrap(), "--lenient"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("warning: ")
            && err.contains("not understood, kept as any JSON: #/$defs/Headers/properties/values: unsupported keyword"),
        "{err}"
    );
    let rust = std::fs::read_to_string(out.join("v2/mod.rs")).unwrap();
    assert!(
        rust.contains("pub struct Headers(#[serde(deserialize_with = \"de::json\")] pub ::serde_json::Value);"),
        "{rust}"
    );
    // `--lenient` is for previews only.
    let o = xtask(&["codegen", "--lenient"]);
    assert_eq!(o.status.code(), Some(2));
    // `ir` shows the definition as opaque, with its schema and why.
    let o = xtask(&["ir", "--schema", schema.to_str().unwrap(), "v2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ir: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let headers = ir["defs"].as_array().unwrap().iter().find(|d| d["name"] == "Headers").unwrap();
    assert!(headers["kind"]["opaque"]["reason"].as_str().unwrap().contains("patternProperties"), "{headers}");
    assert_eq!(headers["kind"]["opaque"]["schema"]["type"], "object");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unwritable_output_is_exit_2() {
    let dir = scratch("unwritable");
    let out = dir.join("out");
    std::fs::write(&out, "a file, not a folder").unwrap();
    let schema = root().join("schema");
    let o = xtask(&["codegen", "--schema", schema.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "a file, not a folder");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_option_is_exit_2() {
    let o = xtask(&["codegen", "--frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--frobnicate"));
}

#[test]
fn schema_pull_from_a_directory_vendors_and_locks() {
    let dir = scratch("pull");
    let into = dir.join("schema");
    let from = root().join("schema");
    let o = xtask(&[
        "schema",
        "pull",
        "--version",
        "2.4.0",
        "--from",
        from.to_str().unwrap(),
        "--schema-dir",
        into.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(into.join("acp-schema.lock")).unwrap(),
        std::fs::read(from.join("acp-schema.lock")).unwrap()
    );
    // A source without the schema files is refused and leaves nothing behind.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let into2 = dir.join("schema2");
    let o = xtask(&[
        "schema",
        "pull",
        "--version",
        "2.4.0",
        "--from",
        empty.to_str().unwrap(),
        "--schema-dir",
        into2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("v1/schema.json"), "{}", stderr(&o));
    assert!(!into2.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn schema_pull_from_a_tarball() {
    let dir = scratch("tgz");
    let tgz = dir.join("sdk.tgz");
    {
        let file = std::fs::File::create(&tgz).unwrap();
        let mut archive = tar::Builder::new(flate2::write::GzEncoder::new(file, flate2::Compression::fast()));
        for rel in xtask::lock::SCHEMA_FILES {
            archive.append_path_with_name(root().join("schema").join(rel), format!("package/schema/{rel}")).unwrap();
        }
        archive.into_inner().unwrap().finish().unwrap();
    }
    let into = dir.join("schema");
    let o = xtask(&[
        "schema",
        "pull",
        "--version",
        "2.4.0",
        "--from",
        tgz.to_str().unwrap(),
        "--schema-dir",
        into.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(into.join("acp-schema.lock")).unwrap(),
        std::fs::read(root().join("schema/acp-schema.lock")).unwrap()
    );
    let o = xtask(&[
        "schema",
        "pull",
        "--version",
        "../2",
        "--from",
        tgz.to_str().unwrap(),
        "--schema-dir",
        into.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not an npm version"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ir_prints_the_model_with_direction_and_pointers() {
    let o = xtask(&["ir", "v2", "ToolCallUpdate"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("ir prints JSON");
    assert_eq!(v["source"], "schema/v2/schema.json");
    let d = &v["defs"][0];
    assert_eq!(d["pointer"], "/$defs/ToolCallUpdate");
    assert_eq!(d["direction"]["sent_by"], serde_json::json!(["agent"]));
    assert_eq!(d["direction"]["read_by"], serde_json::json!(["client"]));
    assert_eq!(d["upsert"]["state"], "ToolCall");

    let o = xtask(&["ir", "--plan", "v2", "SessionUpdate"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("ir --plan prints JSON");
    let gates: Vec<&str> = v["items"].as_array().unwrap().iter().map(|i| i["gate"].as_str().unwrap()).collect();
    // One item; the arms only the unstable schema has are gated one by one.
    assert_eq!(gates, ["always"]);
    let only = v["items"][0]["unstable_only"].as_array().expect("the unstable-only arms");
    assert!(only.iter().any(|e| e == "SessionUpdate.SubagentUpdate"), "{only:?}");

    let o = xtask(&["ir", "v2", "NoSuchType"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).trim(), "error: schema/v2/schema.json: #/$defs: no definition `NoSuchType`");

    let o = xtask(&["ir", "--schema", "schema/fixtures/bad-does-not-exist", "v1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `npm pack` that fails after leaving a partial download: the scratch
/// directory `schema pull` made for it must be gone afterwards.
#[cfg(unix)]
#[test]
fn schema_pull_removes_its_scratch_directory_when_npm_fails() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("npm-fails");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let record = dir.join("destination");
    let script = format!(
        "#!/bin/sh\n# fake npm: pack into the --pack-destination, then fail\nfor a; do last=\"$a\"; done\necho partial > \"$last/partial.tgz\"\necho \"$last\" > {}\necho 'npm ERR! 404' >&2\nexit 1\n",
        record.display()
    );
    std::fs::write(bin.join("npm"), script).unwrap();
    std::fs::set_permissions(bin.join("npm"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let into = dir.join("schema");
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["schema", "pull", "--version", "9.9.9", "--schema-dir", into.to_str().unwrap()])
        .env("PATH", path)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("npm ERR! 404"), "{}", stderr(&o));
    let used = std::fs::read_to_string(&record).expect("the fake npm ran");
    assert!(!Path::new(used.trim()).exists(), "scratch directory {} left behind", used.trim());
    assert!(!into.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Packages before 2.0 ship the v1 `schema.json` alone, with
/// `v2/schema.unstable.json` from 1.x on: pull vendors that subset (removing
/// the other layout's files), and a preview generates both versions, v2
/// behind `unstable` (it only has the unstable file).
#[test]
fn pre_2_0_layout_is_pulled_and_previewed() {
    let dir = scratch("legacy");
    let pkg = dir.join("pkg/schema");
    std::fs::create_dir_all(pkg.join("v2")).unwrap();
    std::fs::copy(root().join("schema/v1/schema.json"), pkg.join("schema.json")).unwrap();
    std::fs::copy(root().join("schema/v2/schema.unstable.json"), pkg.join("v2/schema.unstable.json")).unwrap();
    let into = dir.join("schema");
    let pull = |version: &str, from: &Path| {
        xtask(&[
            "schema",
            "pull",
            "--version",
            version,
            "--from",
            from.to_str().unwrap(),
            "--schema-dir",
            into.to_str().unwrap(),
        ])
    };
    let o = pull("2.4.0", &root().join("schema"));
    assert!(o.status.success(), "{}", stderr(&o));
    let o = pull("1.9.0", &dir.join("pkg"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("(2 files)"));
    assert!(into.join("schema.json").is_file() && into.join("v2/schema.unstable.json").is_file());
    for gone in ["v1/schema.json", "v1/schema.unstable.json", "v2/schema.json"] {
        assert!(!into.join(gone).exists(), "{gone} of the previous package must be removed");
    }
    let lock = std::fs::read_to_string(into.join("acp-schema.lock")).unwrap();
    assert!(lock.contains("\"schema.json\"") && lock.contains("1.9.0"), "{lock}");

    let out = dir.join("out");
    let o = xtask(&["codegen", "--schema", into.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("schema.json: 178 defs read"), "{stdout}");
    let v1 = std::fs::read_to_string(out.join("v1/mod.rs")).unwrap();
    assert!(v1.contains("schema.json`.") && !v1.contains("feature = \"unstable\""));
    let v2 = std::fs::read_to_string(out.join("v2/mod.rs")).unwrap();
    // Every item of v2 is behind `unstable` (`TYPE_NAMES` and the `rpc`
    // module gate their entries one by one).
    let file = syn::parse_file(&v2).expect("generated Rust parses");
    let ungated: Vec<String> = file
        .items
        .iter()
        .filter(|i| {
            let attrs = match i {
                syn::Item::Struct(x) => &x.attrs,
                syn::Item::Enum(x) => &x.attrs,
                syn::Item::Impl(x) => &x.attrs,
                syn::Item::Const(x) if x.ident != "TYPE_NAMES" => &x.attrs,
                syn::Item::Mod(x) if x.ident != "rpc" => &x.attrs,
                syn::Item::Type(x) => &x.attrs,
                _ => return false,
            };
            !attrs.iter().any(|a| quote::quote!(#a).to_string().contains("feature = \"unstable\""))
        })
        .map(|i| quote::quote!(#i).to_string().chars().take(80).collect())
        .collect();
    assert!(file.items.len() > 100);
    assert!(ungated.is_empty(), "items of an unstable-only version without the gate: {ungated:#?}");
    let o = xtask(&["ir", "--schema", into.to_str().unwrap(), "v1", "StopReason"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"name\": \"StopReason\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A preview uses the project's reviewed upsert configuration, or the one
/// given; an entry that does not fit is a warning and the output still builds
/// its other upserts.
#[test]
fn preview_upserts_that_do_not_fit_are_warnings() {
    let dir = scratch("preview-upserts");
    let conf = dir.join("upserts.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("schema/upserts.json")).unwrap()).unwrap();
    config["v2"]["ToolCallUpdate"]["fields"]["sparkle"] = serde_json::json!("replace");
    config["v2"]["NoSuchUpdate"] = serde_json::json!({"state": "NoSuch", "key": "id", "fields": {}});
    std::fs::write(&conf, config.to_string()).unwrap();
    let out = dir.join("out");
    let schema = root().join("schema");
    let args = [
        "codegen",
        "--schema",
        schema.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--upserts",
        conf.to_str().unwrap(),
    ];
    let o = xtask(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("#/v2/ToolCallUpdate/fields/sparkle: `ToolCallUpdate` has no property `sparkle`: rule left out"),
        "{err}"
    );
    let v2 = std::fs::read_to_string(out.join("v2/mod.rs")).unwrap();
    assert!(v2.contains("pub struct ToolCall "), "the upsert's other rules still apply");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn diff_exit_codes_fail_on_and_accepted_fingerprints() {
    let dir = root().join("schema/fixtures/diff/levels");
    let (old, new) = (dir.join("old.json"), dir.join("new.json"));
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let o = xtask(&["diff", old, new]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("## Schema diff"));
    let o = xtask(&["diff", old, new, "--fail-on", "breaking"]);
    assert_eq!(o.status.code(), Some(1));
    // Accepting every breaking and dangerous change lets the run pass.
    let o = xtask(&["diff", old, new, "--format", "json"]);
    let reports: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut accept = String::from("# reviewed\n");
    for c in reports[0]["changes"].as_array().unwrap() {
        if c["level"] != "compatible" {
            accept += &format!("{}  # {}\n", c["fingerprint"].as_str().unwrap(), c["kind"]);
        }
    }
    let scratch = scratch("diff-accept");
    let file = scratch.join("accepted.txt");
    std::fs::write(&file, accept).unwrap();
    let o = xtask(&["diff", old, new, "--fail-on", "dangerous", "--accept", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::write(&file, "not-a-fingerprint\n").unwrap();
    let o = xtask(&["diff", old, new, "--accept", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 1: `not-a-fingerprint` is not a fingerprint"), "{}", stderr(&o));
    std::fs::remove_dir_all(&scratch).unwrap();
    // The Rust axis has its own gate: a pair whose changes are all compatible on
    // the wire but rename a Rust type fails `rust-breaking` only.
    let c = root().join("schema/fixtures/diff/causes/semantic_string_types");
    let (co, cn) = (c.join("old.json"), c.join("new.json"));
    let (co, cn) = (co.to_str().unwrap(), cn.to_str().unwrap());
    let enc = root().join("schema/fixtures/diff/causes/content_encoding");
    let (eo, en) = (enc.join("old.json"), enc.join("new.json"));
    let (eo, en) = (eo.to_str().unwrap(), en.to_str().unwrap());
    assert_eq!(xtask(&["diff", eo, en, "--fail-on", "breaking,dangerous"]).status.code(), Some(0));
    assert_eq!(xtask(&["diff", eo, en, "--fail-on", "rust-breaking"]).status.code(), Some(1));
    assert_eq!(xtask(&["diff", co, cn, "--fail-on", "dangerous", "--fail-on", "rust-breaking"]).status.code(), Some(1));
    let o = xtask(&["diff", eo, en, "--fail-on", "rust"]);
    assert_eq!(o.status.code(), Some(2), "an unknown gate is a usage error");
    // Bad sides: one line, exit 2.
    let v2 = root().join("schema/v2/schema.json");
    let o = xtask(&["diff", v2.to_str().unwrap(), new]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    let o = xtask(&["diff", "/nonexistent", new]);
    assert_eq!(o.status.code(), Some(2));
    // A revision of this repository: the vendored schema as committed there.
    let schema = root().join("schema");
    let schema = schema.to_str().unwrap();
    let o = xtask(&["diff", "git:HEAD", schema, "--format", "json", "--fail-on", "dangerous"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let reports: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(reports.as_array().unwrap().len(), 4, "the four files");
    let o = xtask(&["diff", "git:no-such-revision-here", schema]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("git:no-such-revision-here: no such revision"), "{}", stderr(&o));
}

#[test]
fn the_schema_workflow_parses_and_uses_the_action_with_its_inputs() {
    use yaml_rust2::YamlLoader;
    let text = std::fs::read_to_string(root().join(".github/workflows/schema.yml")).unwrap();
    let docs = YamlLoader::load_from_str(&text).expect("the workflow is YAML");
    let w = &docs[0];
    let paths: Vec<&str> =
        w["on"]["pull_request"]["paths"].as_vec().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(paths, ["schema/**", "xtask/**", "macros/**", "codegen/**"]);
    assert_eq!(w["permissions"]["pull-requests"].as_str(), Some("write"), "the comment needs it");
    let steps = w["jobs"]["schema"]["steps"].as_vec().expect("steps");
    let step = steps
        .iter()
        .find(|s| s["uses"].as_str() == Some("./.github/actions/schema-diff"))
        .expect("the workflow uses the repository's own action");
    // The base revision must be in the clone for the default `old` side.
    assert_eq!(steps[0]["with"]["fetch-depth"].as_i64(), Some(0));
    // Every input it passes is one the action declares (tools/tests/it/action.rs runs the action).
    let action = std::fs::read_to_string(root().join(".github/actions/schema-diff/action.yml")).unwrap();
    let action = &YamlLoader::load_from_str(&action).expect("action.yml is YAML")[0];
    for (k, _) in step["with"].as_hash().expect("inputs") {
        let k = k.as_str().unwrap();
        assert!(!action["inputs"][k].is_badvalue(), "the action has no input `{k}`");
    }
    assert_eq!(step["with"]["comment"].as_str(), Some("true"));
}

/// `ci.yml` runs `.ci/run` (the drift check and the README's test command among
/// its steps) on every push and pull request, and checks the build with the
/// Rust version the workspace declares.
#[test]
fn the_ci_workflow_runs_the_ci_script_and_the_declared_rust_version() {
    use yaml_rust2::YamlLoader;
    let text = std::fs::read_to_string(root().join(".github/workflows/ci.yml")).unwrap();
    let docs = YamlLoader::load_from_str(&text).expect("the workflow is YAML");
    let w = &docs[0];
    assert!(!w["on"]["push"].is_badvalue() && !w["on"]["pull_request"].is_badvalue(), "every push and pull request");
    assert!(w["on"]["push"]["paths"].is_badvalue(), "no path filter: a change anywhere runs CI");
    let runs = |job: &str| -> Vec<String> {
        let steps = w["jobs"][job]["steps"].as_vec().unwrap_or_else(|| panic!("job {job}"));
        steps.iter().filter_map(|s| s["run"].as_str()).flat_map(str::lines).map(str::to_owned).collect()
    };
    assert!(runs("ci").contains(&".ci/run".to_owned()), "{:?}", runs("ci"));
    let script = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    for line in ["cargo xtask codegen --check", "cargo test --workspace"] {
        assert!(script.lines().any(|l| l.trim() == line), ".ci/run lacks `{line}`");
    }
    // The MSRV job installs the version every member inherits.
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let msrv =
        manifest.lines().find_map(|l| l.strip_prefix("rust-version = ")).expect("rust-version").trim_matches('"');
    let uses: Vec<&str> =
        w["jobs"]["msrv"]["steps"].as_vec().unwrap().iter().filter_map(|s| s["uses"].as_str()).collect();
    assert!(uses.contains(&format!("dtolnay/rust-toolchain@{msrv}").as_str()), "{uses:?} vs {msrv}");
    assert!(runs("msrv").iter().any(|l| l.starts_with("cargo check --workspace")), "{:?}", runs("msrv"));
    for member in
        ["generated", "macros", "xtask", "tests", "tools", "tests/serde-types", "tests/serde-types-08", "hack"]
    {
        let m = std::fs::read_to_string(root().join(member).join("Cargo.toml")).unwrap();
        assert!(m.contains("rust-version.workspace = true"), "{member} does not inherit rust-version");
        assert!(m.contains("[lints]\nworkspace = true"), "{member} does not inherit the workspace lints");
    }
}

/// `codegen --schema FILE --out DIR`: one module from a schema file of any
/// layout, the same Rust the fixture gets; `--check`, strict errors, `--lenient`.
#[test]
fn one_schema_file_generates_one_module() {
    let dir = scratch("file");
    let out = dir.join("out");
    let run =
        |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).current_dir(root()).output().unwrap();
    let o = run(&["codegen", "--schema", "schema/fixtures/serde_types.json", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written = std::fs::read_to_string(out.join("serde_types.rs")).unwrap();
    let fixture = std::fs::read_to_string(root().join("tests/generated/serde_types.rs")).unwrap();
    assert_eq!(written, fixture, "the module is the fixture's Rust");
    let o =
        run(&["codegen", "--check", "--schema", "schema/fixtures/serde_types.json", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A definition the generator does not understand: strict refuses with one
    // line naming file and pointer, and writes nothing; lenient makes it any JSON.
    let file = dir.join("odd-types.json");
    std::fs::write(
        &file,
        r#"{"$defs": {"Odd": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}}, "Fine": {"type": "string"}}}"#,
    )
    .unwrap();
    let o = run(&["codegen", "--schema", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("#/$defs/Odd: unsupported keyword `patternProperties`"), "{}", stderr(&o));
    assert!(!out.join("odd_types.rs").exists(), "nothing written on failure");
    let o = run(&["codegen", "--lenient", "--schema", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: ") && stderr(&o).contains("Odd"), "{}", stderr(&o));
    let odd = std::fs::read_to_string(out.join("odd_types.rs")).unwrap();
    assert!(
        odd.contains("pub struct Odd(#[serde(deserialize_with = \"de::json\")] pub ::serde_json::Value);"),
        "{odd}"
    );
    // `--upserts` configures an ACP schema directory, not a file.
    let o =
        run(&["codegen", "--schema", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--upserts", "x.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A warning of the lowering (a `discriminator` no arm fixes, ignored) is
/// printed by `codegen`, naming the file, the pointer and the property: for
/// one schema file, strict or lenient, and for a schema directory.
#[test]
fn codegen_prints_the_warnings_of_the_lowering() {
    let dir = scratch("hints");
    let out = dir.join("out");
    let run =
        |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).current_dir(root()).output().unwrap();
    let warning = "#/$defs/McpServer/discriminator: `discriminator` (`propertyName` `type`) names no property the \
                   arms fix with a `const`: ignored, the union is told apart by its arms";
    for lenient in [&[][..], &["--lenient"][..]] {
        let mut args = vec!["codegen", "--schema", "schema/fixtures/union_hints.json", "--out", out.to_str().unwrap()];
        args.extend(lenient);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let expected = format!("warning: schema/fixtures/union_hints.json: {warning}");
        assert_eq!(stderr(&o).lines().collect::<Vec<_>>(), vec![expected.as_str()], "{lenient:?}");
    }
    let written = std::fs::read_to_string(out.join("union_hints.rs")).unwrap();
    assert_eq!(written, std::fs::read_to_string(root().join("tests/generated/union_hints.rs")).unwrap());
    // A schema directory whose `v2/schema.json` has the construct.
    let schema = dir.join("schema");
    for rel in ["v1/schema.json", "v1/schema.unstable.json", "v2/schema.unstable.json"] {
        std::fs::create_dir_all(schema.join(rel).parent().unwrap()).unwrap();
        std::fs::copy(root().join("schema").join(rel), schema.join(rel)).unwrap();
    }
    std::fs::copy(root().join("schema/fixtures/union_hints.json"), schema.join("v2/schema.json")).unwrap();
    let o = run(&["codegen", "--schema", schema.to_str().unwrap(), "--out", dir.join("dir-out").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.lines().any(|l| l.starts_with("warning: ") && l.ends_with(&format!("v2/schema.json: {warning}"))),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The generated code and the generated fixtures (written by `cargo xtask
/// codegen`) are left out: their size follows the schemas.
/// What the generator writes says so in its first line; snapshots and build
/// output are not the project's code either.
fn hand_written(rel: &str, text: &str) -> bool {
    !text.starts_with("// @generated by `cargo xtask codegen`")
        && !rel.contains("/target/")
        && !rel.contains("/snapshots/")
}

fn rust_files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if rel.starts_with("target") || rel.starts_with('.') || rel.contains("/target") || rel.contains("node_modules")
        {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, root, out);
        } else if rel.ends_with(".rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            if hand_written(&rel, &text) {
                out.push((rel, text));
            }
        }
    }
}

/// The braces of a line that count: not inside a string, a character
/// literal or a comment. `in_str` carries a string across lines (`Some(n)`:
/// a raw string closed by `"` and `n` hashes).
fn braces(line: &str, in_str: &mut Option<Option<usize>>) -> i64 {
    let b = line.as_bytes();
    let (mut i, mut depth) = (0, 0);
    while i < b.len() {
        match *in_str {
            Some(None) => match b[i] {
                b'\\' => i += 1,
                b'"' => *in_str = None,
                _ => {}
            },
            Some(Some(n)) => {
                if b[i] == b'"' && b[i + 1..].iter().take(n).filter(|c| **c == b'#').count() == n {
                    *in_str = None;
                    i += n;
                }
            }
            None => match b[i] {
                b'/' if b.get(i + 1) == Some(&b'/') => break,
                b'"' => *in_str = Some(None),
                b'r' if (b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"'))
                    && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
                {
                    let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                    if b.get(i + 1 + hashes) == Some(&b'"') {
                        *in_str = Some(Some(hashes));
                        i += 1 + hashes;
                    }
                }
                // A character literal: `'{'`, `'\''`; a lifetime has no closing quote.
                b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
                b'\'' if b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') => i += 3,
                b'{' => depth += 1,
                b'}' => depth -= 1,
                _ => {}
            },
        }
        i += 1;
    }
    depth
}

/// The functions of a file longer than `max` lines: (first line, name, length).
fn long_functions(text: &str, max: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut in_str = None;
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        let words: Vec<&str> = t.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "fn");
        let is_fn = in_str.is_none()
            && at.is_some_and(|a| {
                words[..a].iter().all(|w| w.starts_with("pub") || ["const", "async", "unsafe", "extern"].contains(w))
            })
            && !t.starts_with("//");
        if !is_fn {
            braces(lines[i], &mut in_str);
            i += 1;
            continue;
        }
        let name = words[at.unwrap() + 1].split(['(', '<']).next().unwrap_or("").to_owned();
        let (start, mut depth, mut opened) = (i, 0i64, false);
        while i < lines.len() {
            let d = braces(lines[i], &mut in_str);
            opened |= d > 0 || lines[i].contains('{');
            depth += d;
            if (opened && depth <= 0) || (!opened && lines[i].trim_end().ends_with(';')) {
                break;
            }
            i += 1;
        }
        if opened && i - start + 1 > max {
            out.push((start + 1, name, i - start + 1));
        }
        i += 1;
    }
    out
}

/// Code a maintainer can change in one place: no hand-written function over
/// 100 lines, no hand-written file over 800.
#[test]
fn no_hand_written_function_is_over_100_lines_nor_a_file_over_800() {
    let root = root();
    let mut files = Vec::new();
    for dir in ["xtask", "macros", "generated", "tools", "tests", "fuzz/src", "fuzz/fuzz_targets"] {
        rust_files(&root.join(dir), &root, &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut problems = Vec::new();
    for (rel, text) in &files {
        let n = text.lines().count();
        if n > 800 {
            problems.push(format!("{rel}: {n} lines (at most 800)"));
        }
        for (line, name, len) in long_functions(text, 100) {
            problems.push(format!("{rel}:{line}: `{name}` is {len} lines (at most 100)"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_length_check_finds_a_long_function_and_skips_braces_in_strings() {
    let body = "    let s = \"{\";\n".repeat(101);
    let text = format!("fn long() {{\n{body}}}\n\nfn short() -> char {{\n    '{{'\n}}\n");
    let found = long_functions(&text, 100);
    assert_eq!(found, vec![(1, "long".to_owned(), 103)]);
}
