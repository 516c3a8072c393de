//! `acp-tools diff` gives the reports of `cargo xtask diff`: on every fixture
//! pair of the diff and on a pair of published releases, its JSON, run from
//! a directory outside the repository on copies of the sides, equals what
//! the diff library gives in the repository (file names aside: each names
//! the sides as it was given them). Also: `git:<rev>:<path>` sides, the exit
//! codes, and errors.

use crate::common;

use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

/// A directory outside the repository, emptied (and removed when the test passes).
fn outside(name: &str) -> Scratch {
    Scratch::new(&format!("acp-tools-diff-test-{}-{name}", std::process::id()))
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
}

fn acp_tools(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_acp-tools")).args(["diff"]).args(args).current_dir(dir).output().unwrap()
}

/// The pairs: (old, new) relative to the repository.
fn pairs() -> Vec<(String, String)> {
    let mut out = vec![
        ("schema/fixtures/diff/levels/old.json".to_owned(), "schema/fixtures/diff/levels/new.json".to_owned()),
        ("schema/fixtures/diff/kinds/old".to_owned(), "schema/fixtures/diff/kinds/new".to_owned()),
        ("schema/releases/2.2.0".to_owned(), "schema/releases/2.3.0".to_owned()),
    ];
    let causes = root().join("schema/fixtures/diff/causes");
    let mut names: Vec<String> =
        std::fs::read_dir(&causes).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    for n in names {
        let d = format!("schema/fixtures/diff/causes/{n}");
        if root().join(&d).join("old").exists() {
            out.push((format!("{d}/old"), format!("{d}/new")));
        } else {
            out.push((format!("{d}/old.json"), format!("{d}/new.json")));
        }
    }
    out
}

#[test]
fn outside_the_repository_it_gives_the_reports_of_the_library() {
    let repo = root();
    let dir = outside("pairs");
    let pairs = pairs();
    assert!(pairs.len() >= 16, "{pairs:?}");
    for (i, (old, new)) in pairs.iter().enumerate() {
        let here = dir.join(i.to_string());
        let ext = |p: &str| if p.ends_with(".json") { ".json" } else { "" };
        let (o, n) = (format!("old{}", ext(old)), format!("new{}", ext(new)));
        copy(&repo.join(old), &here.join(&o));
        copy(&repo.join(new), &here.join(&n));
        let out = acp_tools(&here, &[&o, &n, "--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{old}: {}", String::from_utf8_lossy(&out.stderr));
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let reports = xtask::diff::diff_sides(&repo, &repo.join(old), &repo.join(new)).unwrap();
        let want = serde_json::to_string(&reports).unwrap().replace(old.as_str(), &o).replace(new.as_str(), &n);
        let want: serde_json::Value = serde_json::from_str(&want).unwrap();
        assert_eq!(got, want, "{old} -> {new}");
        let md = acp_tools(&here, &[&o, &n]);
        let want = xtask::diff::markdown(&reports).replace(old.as_str(), &o).replace(new.as_str(), &n);
        assert_eq!(String::from_utf8_lossy(&md.stdout), want, "{old} -> {new}: markdown");
    }
}

#[test]
fn git_sides_exit_codes_and_errors() {
    let repo = root();
    let dir = outside("git");
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    git(&["init", "-q"]);
    copy(&repo.join("schema/releases/2.2.0/v2"), &dir.join("specs/v2"));
    git(&["add", "-A"]);
    git(&["commit", "-qm", "2.2.0"]);
    std::fs::remove_dir_all(dir.join("specs/v2")).unwrap();
    copy(&repo.join("schema/releases/2.3.0/v2"), &dir.join("specs/v2"));
    // `git:<rev>:<path>` is the path at the revision, named as the repository's file.
    let out = acp_tools(&dir, &["git:HEAD:specs", "specs", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let reports: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<(&str, &str)> =
        reports.as_array().unwrap().iter().map(|r| (r["old"].as_str().unwrap(), r["new"].as_str().unwrap())).collect();
    assert_eq!(
        files,
        [
            ("specs/v2/schema.json", "specs/v2/schema.json"),
            ("specs/v2/schema.unstable.json", "specs/v2/schema.unstable.json")
        ]
    );
    // The same changes as the two directories give.
    let direct =
        xtask::diff::diff_sides(&repo, &repo.join("schema/releases/2.2.0"), &repo.join("schema/releases/2.3.0"))
            .unwrap();
    let v2: Vec<&xtask::diff::Report> = direct.iter().filter(|r| r.new.contains("/v2/")).collect();
    for (got, want) in reports.as_array().unwrap().iter().zip(&v2) {
        let got: Vec<&str> =
            got["changes"].as_array().unwrap().iter().map(|c| c["fingerprint"].as_str().unwrap()).collect();
        let want: Vec<&str> = want.changes.iter().map(|c| c.fingerprint.as_str()).collect();
        assert_eq!(got, want);
    }
    // A lone file at a revision; --fail-on; exit 1 when met (a dangerous change of v2's stable file).
    let out = acp_tools(
        &dir,
        &["git:HEAD:specs/v2/schema.json", "specs/v2/schema.json", "--fail-on", "dangerous", "--format", "github"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.starts_with("::warning file=specs/v2/schema.json,line=")), "{text}");
    // Errors: exit 2 and one line saying what and where.
    for (args, says) in [
        (vec!["git:no-such-rev:specs", "specs"], "git:no-such-rev:specs: no such revision"),
        (vec!["git:HEAD:nothing-here", "specs"], "no `.json` file at `nothing-here`"),
        (vec!["missing", "specs"], "missing"),
        (vec!["specs", "specs", "--config", "."], "--config .: no schema/upserts.json there"),
    ] {
        let out = acp_tools(&dir, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: ") && err.contains(says), "{args:?}: {err}");
    }
    // --github-action outside a job says what is missing.
    let out = acp_tools(&dir, &["specs", "specs", "--github-action"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("$GITHUB_STEP_SUMMARY is not set"));
}
