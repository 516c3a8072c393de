//! Every published schema the repository vendors under `schema/releases/`
//! (npm `@agentclientprotocol/sdk` 1.0.0 to 2.3.0; 2.4.0 is `schema/` itself)
//! generates with the project's reviewed `schema/upserts.json`, as a
//! `cargo xtask codegen --schema <release> --out <dir>` preview does, and the
//! generated crate of every 2.x release (runtime, reducer and the `acp-tools`
//! replay included) compiles, with default and with all features. A 1.x
//! package ships the v1 `schema.json` (and, from 1.3.0, an early
//! `v2/schema.unstable.json`): it generates, and its diff with the next
//! release runs (`tests/tests/codegen/diff.rs`), but the crate around the
//! version modules (reducer, peers, tools) is written for 2.x.
//!
//! Each release whose files differ from the one before is vendored; the
//! releases in [`SAME_FILES`] ship byte-identical schema files (checked by
//! their SHA-256 when they were vendored) and are covered by the one named.
//!
//! The compile check is one cargo workspace under `target/releases/`, one
//! member pair (bindings, tools) per release, checked in one `cargo check`
//! per feature set, so the dependencies build once.

use std::path::{Path, PathBuf};

use xtask::generate::{self, Layout};
use xtask::load::UpsertFile;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// Published releases whose schema files are byte for byte those of a vendored one.
pub const SAME_FILES: &[(&str, &str)] = &[
    ("1.1.0", "1.0.0"),
    ("1.2.1", "1.2.0"),
    ("1.5.1", "1.5.0"),
    ("1.6.1", "1.6.0"),
    ("1.7.0", "1.6.0"),
    ("2.0.1", "2.0.0"),
    ("2.0.2", "2.0.0"),
];

/// The vendored releases, oldest first.
fn releases() -> Vec<(String, PathBuf)> {
    let dir = root().join("schema/releases");
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    out.sort_by_key(|(v, _)| v.split('.').map(|n| n.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>());
    out
}

fn layout(release: &Path, out: &Path, registry: Option<PathBuf>) -> Layout {
    let root = root();
    Layout {
        messages: None,
        upserts: UpsertFile { path: root.join("schema/upserts.json"), strict: false },
        root,
        schema_dir: release.to_path_buf(),
        // The vendored releases are hash-locked like `schema/`.
        locked: true,
        out_dir: out.join("src"),
        fixtures: None,
        convert: None,
        mode: xtask::lower::Mode::Strict,
        typescript: None,
        python: None,
        registry,
    }
}

/// What each release gives: the files read, the items emitted and every
/// warning (the upsert rules the release's schema does not fit).
#[test]
fn every_vendored_release_generates() {
    let releases = releases();
    let names: Vec<&str> = releases.iter().map(|(v, _)| v.as_str()).collect();
    assert_eq!(
        names,
        ["1.0.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0", "1.8.0", "1.9.0", "2.0.0", "2.1.0", "2.2.0", "2.3.0"]
    );
    for (same, vendored) in SAME_FILES {
        assert!(names.contains(vendored) && !names.contains(same), "{same} stands for {vendored}");
    }
    for (version, dir) in &releases {
        let out = generate::generate(&layout(dir, Path::new("/nonexistent"), None))
            .unwrap_or_else(|e| panic!("release {version} does not generate: {e}"));
        let mut report = String::new();
        for s in &out.stats {
            let files: Vec<String> =
                s.schemas.iter().map(|f| f.rsplit("releases/").next().unwrap().to_owned()).collect();
            let defs: Vec<String> = s.defs.iter().map(ToString::to_string).collect();
            report.push_str(&format!("{}: {} defs, {} items\n", files.join(" + "), defs.join(" + "), s.items));
        }
        for w in &out.warnings {
            report.push_str(&format!("warning: {w}\n"));
        }
        insta::assert_snapshot!(format!("release_{}", version.replace('.', "_")), report);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// Rewrites a member manifest of this repository for the releases workspace.
fn manifest(path: &Path, replacements: &[(&str, String)]) {
    let mut text = std::fs::read_to_string(path).unwrap();
    for (from, to) in replacements {
        assert!(text.contains(from), "{}: no `{from}`", path.display());
        text = text.replacen(from, to, 1);
    }
    std::fs::write(path, text).unwrap();
}

/// `acp-tools`' `convert` module in a release's workspace: the same interface,
/// reporting that conversions exist for the vendored schema only.
const RELEASE_CONVERT_STUB: &str = r#"//! Conversions are generated for the vendored schema only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction { V1ToV2, V2ToV1 }
pub fn run(_: &std::path::Path, _: Direction, _: bool, _: Option<&std::path::Path>) -> u8 {
    eprintln!("error: v1/v2 conversions are built for the vendored schema only");
    2
}
"#;

#[test]
fn every_vendored_release_compiles_with_runtime_reducer_and_replay() {
    let root = root();
    let ws = root.join("target/releases/ws");
    let _ = std::fs::remove_dir_all(&ws);
    std::fs::create_dir_all(&ws).unwrap();
    // The workspace manifest: this repository's shared package settings and
    // dependency versions, one bindings and one tools member per release.
    let main = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let shared = &main[main.find("[workspace.package]").expect("workspace.package")..];
    let mut members = Vec::new();
    for (version, dir) in releases().into_iter().filter(|(v, _)| v.starts_with("2.")) {
        let tag = format!("r{}", version.replace('.', "-"));
        let base = ws.join(&tag);
        copy_dir(&root.join("generated"), &base.join("bindings"));
        copy_dir(&root.join("tools/src"), &base.join("tools/src"));
        std::fs::copy(root.join("tools/Cargo.toml"), base.join("tools/Cargo.toml")).unwrap();
        // The bindings' version modules, and `acp-tools`' by-name registry.
        let registry = Some(base.join("tools/src/registry.rs"));
        let out = generate::generate(&layout(&dir, &base.join("bindings"), registry))
            .unwrap_or_else(|e| panic!("release {version} does not generate: {e}"));
        for (path, text) in out.files {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
        // The v1 <-> v2 conversions (`acp-bindings-convert`) are written for
        // the vendored schema (their hand-written rules name its types): a
        // release's tools go without them, and its `acp-tools convert` says so.
        std::fs::write(base.join("tools/src/convert.rs"), RELEASE_CONVERT_STUB).unwrap();
        // So is the bridge, which is made of the conversions.
        std::fs::remove_file(base.join("tools/src/bridge.rs")).unwrap();
        std::fs::remove_dir_all(base.join("tools/src/bin")).unwrap();
        // The schema diff (`acp-tools diff`) is made of the generator, not of a
        // release's bindings: a release's tools go without it.
        std::fs::remove_file(base.join("tools/src/schema_diff.rs")).unwrap();
        manifest(
            &base.join("tools/src/lib.rs"),
            &[("pub mod bridge;\n", String::new()), ("pub mod schema_diff;\n", String::new())],
        );
        let runtime = root.join("runtime").display().to_string();
        manifest(
            &base.join("bindings/Cargo.toml"),
            &[
                ("name = \"acp-bindings\"", format!("name = \"acp-bindings-{tag}\"")),
                ("path = \"../runtime\"", format!("path = {runtime:?}")),
            ],
        );
        manifest(
            &base.join("tools/Cargo.toml"),
            &[
                ("name = \"acp-tools\"", format!("name = \"acp-tools-{tag}\"")),
                (
                    "acp-bindings = { path = \"../generated\", features = [\"v2\"] }",
                    format!(
                        "acp-bindings = {{ package = \"acp-bindings-{tag}\", path = \"../bindings\", features = [\"v2\"] }}"
                    ),
                ),
                ("acp-bindings-convert = { path = \"../convert\" }\n", String::new()),
                ("acp-bindings-runtime = { path = \"../runtime\" }", format!("acp-bindings-runtime = {{ path = {runtime:?} }}")),
                ("xtask = { path = \"../xtask\" }\n", String::new()),
                // The bridge's binary, removed above.
                ("[[bin]]\nname = \"acp-bridge\"\npath = \"src/bin/acp-bridge.rs\"\ntest = false\n", String::new()),
                (", \"acp-bindings-convert/unstable\"", String::new()),
            ],
        );
        members.push(format!("\"{tag}/bindings\", \"{tag}/tools\""));
    }
    let manifest_text = format!("[workspace]\nresolver = \"2\"\nmembers = [{}]\n\n{shared}", members.join(", "));
    std::fs::write(ws.join("Cargo.toml"), manifest_text).unwrap();
    std::fs::copy(root.join("Cargo.lock"), ws.join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    for features in [&[][..], &["--all-features"][..]] {
        let out = std::process::Command::new(&cargo)
            .args(["check", "--quiet", "--offline", "--workspace", "--lib", "--manifest-path"])
            .arg(ws.join("Cargo.toml"))
            .args(features)
            .arg("--target-dir")
            .arg(root.join("target/releases/target"))
            .env_remove("CARGO_TARGET_DIR")
            // Checks made once and removed: no incremental caches (slower to write, and large).
            .env("CARGO_INCREMENTAL", "0")
            .env("RUSTFLAGS", "-D warnings")
            .output()
            .expect("cargo runs");
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "the releases do not compile ({features:?}):\n{log}");
    }
    // Nothing else reads the releases' workspace or its builds: the disk
    // goes back before the rest of the suite runs (kept when a check failed).
    let _ = std::fs::remove_dir_all(root.join("target/releases"));
}
