//! The generated v1 and v2 bindings on ACP messages: the corpus under
//! `tests/corpus/` (written from the spec pages and seeds) and direct checks.

use std::path::{Path, PathBuf};

#[path = "bindings/authoring.rs"]
mod authoring;
#[path = "bindings/compaction.rs"]
mod compaction;
#[path = "bindings/dispatch.rs"]
mod dispatch;
#[path = "bindings/reducer.rs"]
mod reducer;
#[path = "bindings/semantics.rs"]
mod semantics;

#[path = "bindings/corpus.rs"]
mod corpus;
#[path = "bindings/duplicate_members.rs"]
mod duplicate_members;
#[path = "bindings/fast_paths.rs"]
mod fast_paths;
#[path = "bindings/fuzz_findings.rs"]
mod fuzz_findings;
#[path = "bindings/peer_transcripts.rs"]
mod peer_transcripts;

fn corpus_dir(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(version)
}

#[test]
fn v1_corpus_round_trips() {
    let n = corpus::run(&corpus_dir("v1"), acp_tools::registry::v1::reencode, true);
    assert!(n >= 20, "the v1 corpus has only {n} cases");
}

#[test]
fn v2_corpus_round_trips() {
    let n = corpus::run(&corpus_dir("v2"), acp_tools::registry::v2::reencode, true);
    assert!(n >= 20, "the v2 corpus has only {n} cases");
}

/// Each protocol version is a feature of `acp-bindings` (`v1` on by default):
/// each builds alone, as a peer that speaks one version builds it, and a build
/// with neither stops with a message that names the features (`cargo check`
/// in the workspace, `-p acp-bindings` alone, so no other member's features
/// reach it).
#[test]
fn each_protocol_version_builds_alone_and_a_build_with_neither_says_so() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let check = |features: &[&str]| {
        let out = std::process::Command::new(&cargo)
            .args(["check", "--quiet", "--locked", "-p", "acp-bindings", "--no-default-features"])
            .args(features)
            // Checks of feature sets nothing else builds: no incremental caches.
            .env("CARGO_INCREMENTAL", "0")
            .current_dir(root)
            .output()
            .expect("cargo runs");
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    for version in ["v1", "v2"] {
        let (ok, log) = check(&["--features", &format!("{version},preserve_order")]);
        assert!(ok, "acp-bindings with `{version}` alone did not build:\n{log}");
    }
    let (ok, log) = check(&[]);
    assert!(!ok, "acp-bindings built with neither version");
    assert!(log.contains("acp-bindings has no protocol version to build: enable the `v1` or `v2` feature"), "{log}");
}

/// The corpus again, in a crate that depends on `acp-bindings` alone, outside
/// this workspace: no feature another workspace member switches on for a
/// shared dependency (`serde_json`'s `preserve_order`, enabled by `xtask`)
/// reaches it, exactly as for a user. Built in `target/standalone` (removed
/// when every build passed), twice, so that each of the two features a user
/// chooses is both on and off: the bindings' default features (the stable
/// schema, `preserve_order` on), and `unstable` without `preserve_order` (the
/// build in which what only the unstable schema adds is typed, and free-form
/// objects keep serde_json's sorted maps). Both on is the workspace's own
/// build. The same crate derives `AcpDeserialize`, `AcpUnion`, `AcpEnum` and
/// `AcpString` on types of its own (`standalone/tests/derives.rs`).
#[test]
fn corpus_round_trips_as_a_user_builds_the_bindings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let builds: [&[&str]; 2] = [
        &["--no-default-features", "--features", "preserve_order"],
        &["--no-default-features", "--features", "unstable"],
    ];
    for features in builds {
        let out = std::process::Command::new(&cargo)
            .args(["test", "--quiet", "--locked", "--manifest-path"])
            .arg(root.join("standalone/Cargo.toml"))
            .args(features)
            .arg("--target-dir")
            .arg(root.parent().unwrap().join("target/standalone"))
            .env_remove("CARGO_TARGET_DIR")
            // Builds made once and removed: no incremental caches (slower to write, and large).
            .env("CARGO_INCREMENTAL", "0")
            .output()
            .expect("cargo runs");
        let log = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "the standalone corpus test ({features:?}) failed:\n{log}");
        assert!(log.contains("test result: ok. 5 passed"), "{features:?}: {log}");
        // `tests/derives.rs`: the derives on the user's own types.
        assert!(log.contains("test result: ok. 3 passed"), "{features:?}: {log}");
    }
    // The conversions built without `unstable` on bindings built with it (a
    // feature another dependency turned on) would not know every field: the
    // build stops and says what to turn on. (A build, not a check, so that
    // the bindings built just above, with the same features, are reused.)
    let out = std::process::Command::new(&cargo)
        .args(["build", "--tests", "--quiet", "--locked", "--manifest-path"])
        .arg(root.join("standalone/Cargo.toml"))
        .args(["--no-default-features", "--features", "acp-bindings/unstable"])
        .arg("--target-dir")
        .arg(root.parent().unwrap().join("target/standalone"))
        .env_remove("CARGO_TARGET_DIR")
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .expect("cargo runs");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a build with mismatched `unstable` features compiled");
    assert!(log.contains("must be built with the same `unstable` feature"), "{log}");
    // Nothing else reads these builds (over 1 GB): the disk goes back before
    // the rest of the suite runs (kept when a check failed, to look at).
    let _ = std::fs::remove_dir_all(root.parent().unwrap().join("target/standalone"));
}
