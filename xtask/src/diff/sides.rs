//! The two sides of a diff: a schema file, a directory in the `schema/`
//! layout, `npm:<version>` or `git:<rev>`, loaded and paired file by file,
//! with the v1 ⇄ v2 conversions that change.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{diff_files, Applied, ConversionChange, Reading, Report};
use crate::error::{Error, Result};
use crate::model::Module;

/// One schema file of a side: its key (its path in the layout; a lone file
/// by its protocol version only, so that any two files of one version
/// compare), its model and how it was read.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub key: String,
    pub module: Module,
    pub reading: Reading,
}

/// Loads one side: a schema file, or a directory in the `schema/` layout.
///
/// A directory's files take their protocol version from their place in the
/// layout. A lone file takes it from `protocol` when given, else from its
/// contents ([`crate::load::protocol_of`]: the definitions only one version
/// has, or its documentation links), else it is read as v1. The version
/// decides which upsert rules of `schema/upserts.json` apply, and so whether
/// the v2 patch-semantics checks run.
pub fn load_side(root: &Path, side: &Path, protocol: Option<&str>) -> Result<Vec<Loaded>> {
    load_side_with(root, root, side, protocol)
}

/// [`load_side`] with the configuration (`schema/upserts.json`) read under
/// `config` rather than `root`.
pub fn load_side_with(root: &Path, config: &Path, side: &Path, protocol: Option<&str>) -> Result<Vec<Loaded>> {
    // The upsert rules are the project's; a rule that does not fit a side is left out.
    let upserts = crate::load::UpsertFile { path: config.join("schema/upserts.json"), strict: false };
    let label = crate::load::display_path(config, &upserts.path).display().to_string();
    // The versions the configuration has rules for (read once for the side).
    let configured: Vec<String> = if upserts.path.is_file() {
        crate::upserts::read(&upserts.path, Path::new(&label))?.into_keys().collect()
    } else {
        Vec::new()
    };
    let config_for = |version: &str| configured.iter().any(|v| v == version).then(|| label.clone());
    if side.is_file() {
        let dir = side.parent().unwrap_or(Path::new("."));
        let rel = side.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let file = crate::load::read_schema(dir, rel, None)?;
        let (version, decided_by, evidence) = match (protocol, crate::load::protocol_of(&file.json)) {
            (Some(v), Some((found, why))) if found != v => {
                (v, "option", format!("--protocol {v}, although {why}, as {found} does"))
            }
            (Some(v), _) => (v, "option", format!("--protocol {v}")),
            (None, Some((v, why))) => (v, "contents", why),
            (None, None) => {
                ("v1", "default", "nothing in the file tells v1 from v2; pass --protocol v2 for a v2 file".to_owned())
            }
        };
        let module = crate::load::lower_as(root, file, version, &upserts, crate::lower::Mode::Lenient)?;
        let reading = Reading::of(&module, version, decided_by, evidence, config_for(version));
        return Ok(vec![Loaded { key: version.to_owned(), module, reading }]);
    }
    if !side.is_dir() {
        return Err(Error::Read {
            file: side.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such schema file or directory"),
        });
    }
    if let Some(v) = protocol {
        return Err(Error::Usage {
            message: format!(
                "--protocol {v}: {} is a directory, whose files take their version from the layout (`v1/`, `v2/`); the option is for lone files",
                side.display()
            ),
        });
    }
    let mut out = Vec::new();
    for v in crate::load::versions(side) {
        for rel in [v.stable, v.unstable].into_iter().flatten() {
            let module = crate::load::module_in(root, side, rel, None, &upserts, crate::lower::Mode::Lenient)?;
            let key = if rel == crate::lock::LEGACY_FILE { "v1/schema.json".to_owned() } else { rel.to_owned() };
            let evidence = if rel == crate::lock::LEGACY_FILE {
                format!("`{rel}` at the top of a pre-2.0 directory is v1")
            } else {
                format!("`{rel}`")
            };
            let reading = Reading::of(&module, v.version, "layout", evidence, config_for(v.version));
            out.push(Loaded { key, module, reading });
        }
    }
    if out.is_empty() {
        return Err(Error::Read {
            file: side.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no schema files in the directory"),
        });
    }
    Ok(out)
}

/// Diffs two sides: two files of one protocol version, or every file present
/// in both directories. Sides of different protocol versions are an error.
pub fn diff_sides(root: &Path, old: &Path, new: &Path) -> Result<Vec<Report>> {
    diff_sides_as(root, old, new, None)
}

/// [`diff_sides`], reading lone files as the given protocol version
/// (`--protocol`) rather than deciding it from their contents.
pub fn diff_sides_as(root: &Path, old: &Path, new: &Path, protocol: Option<&str>) -> Result<Vec<Report>> {
    diff_sides_with(root, root, old, new, protocol)
}

/// [`diff_sides_as`] with the project's configuration (`schema/upserts.json`,
/// `schema/conversions.json`) read under `config`, and relative paths read
/// under `root`: how `acp-tools diff` runs outside this repository, with the
/// configuration it was built with.
pub fn diff_sides_with(
    root: &Path,
    config: &Path,
    old: &Path,
    new: &Path,
    protocol: Option<&str>,
) -> Result<Vec<Report>> {
    let (a, b) = (load_side_with(root, config, old, protocol)?, load_side_with(root, config, new, protocol)?);
    let lone = |k: &str| !k.contains('/');
    let label = Path::new("schema/conversions.json");
    let config = crate::convert::Config::read(&config.join(label), label)?;
    let mut out = Vec::new();
    let mut keys = Vec::new();
    for x in &a {
        for y in &b {
            let (key, k2) = (&x.key, &y.key);
            let same = if lone(key) || lone(k2) { key.split('/').next() == k2.split('/').next() } else { key == k2 };
            if same {
                // The capability properties the configuration names are v1's.
                let caps = if key.starts_with("v1") { config.clone() } else { crate::convert::Config::default() };
                let json = |m: &Module| -> Option<serde_json::Value> {
                    let p = Path::new(&m.source);
                    let text =
                        std::fs::read_to_string(if p.is_absolute() { p.to_path_buf() } else { root.join(p) }).ok()?;
                    serde_json::from_str(&text).ok()
                };
                let applied = Applied { old: x.reading.clone(), new: y.reading.clone() };
                let (a, b) = (json(&x.module), json(&y.module));
                out.push(diff_files((&x.module, &y.module), &caps, (a.as_ref(), b.as_ref()), applied));
                keys.push(key.clone());
            }
        }
    }
    let modules =
        |s: &[Loaded]| -> Vec<(String, Module)> { s.iter().map(|l| (l.key.clone(), l.module.clone())).collect() };
    let (ma, mb) = (modules(&a), modules(&b));
    if let (Some(x), Some(y)) = (conversions(&ma, &config), conversions(&mb, &config)) {
        for (bi, unstable) in [false, true].into_iter().enumerate() {
            let report_of =
                |version: &str| keys.iter().position(|k| k.starts_with(version) && k.contains("unstable") == unstable);
            attach(&mut out, conversion_changes(&x[bi], &y[bi]), report_of("v1/"), report_of("v2/"));
        }
    }
    if out.is_empty() || (a.len() == 1 && b.len() == 1 && out.len() != 1) {
        return Err(Error::Schema {
            file: new.to_path_buf(),
            pointer: String::new(),
            message: format!(
                "the sides hold no schema of the same protocol version (old: {}; new: {}); for two lone files, `--protocol` reads both as one version",
                a.iter().map(|l| l.key.as_str()).collect::<Vec<_>>().join(", "),
                b.iter().map(|l| l.key.as_str()).collect::<Vec<_>>().join(", ")
            ),
        });
    }
    Ok(out)
}

/// How every pair converts in the stable and the unstable build of a side
/// that holds both versions (`None` otherwise).
fn conversions(
    side: &[(String, Module)],
    config: &crate::convert::Config,
) -> Option<[BTreeMap<(String, String), crate::convert::Status>; 2]> {
    let get = |k: &str| side.iter().find(|(key, _)| key == k).map(|(_, m)| m);
    let v1 = get("v1/schema.json").or(get("v1/schema.unstable.json"))?;
    let v2 = get("v2/schema.json").or(get("v2/schema.unstable.json"))?;
    let v1 = (v1, get("v1/schema.unstable.json").unwrap_or(v1));
    let v2 = (v2, get("v2/schema.unstable.json").unwrap_or(v2));
    Some([false, true].map(|unstable| crate::convert::statuses(v1, v2, config, unstable)))
}

/// The pairs whose conversion differs between two revisions.
fn conversion_changes(
    old: &BTreeMap<(String, String), crate::convert::Status>,
    new: &BTreeMap<(String, String), crate::convert::Status>,
) -> Vec<ConversionChange> {
    use crate::convert::Status;
    let absent = |k: &(String, String)| if k.0.is_empty() { Status::V2Only } else { Status::V1Only };
    let keys: BTreeSet<&(String, String)> = old.keys().chain(new.keys()).collect();
    let mut out = Vec::new();
    for k in keys {
        let (was, now) = (old.get(k).cloned(), new.get(k).cloned());
        if was == now {
            continue;
        }
        // A definition that appears or disappears with its pair is reported as
        // the pair; its one-version key on the other side says nothing more.
        let (was, now) = (was.unwrap_or_else(|| absent(k)), now.unwrap_or_else(|| absent(k)));
        let one_version = |s: &Status| matches!(s, Status::V1Only | Status::V2Only);
        // Identical and reference-only differ only through a referenced
        // definition, whose own change is reported.
        if was == now || (one_version(&was) && one_version(&now)) || (was.lossless() && now.lossless()) {
            continue;
        }
        let effect = match (&was, &now) {
            (_, Status::Refused(_)) => "needs a hand-written rule",
            (w, n) if !w.converts() && n.converts() => "newly possible",
            (w, n) if w.converts() && !n.converts() => "no longer possible",
            (w, n) if w.lossless() && !n.lossless() => "becomes lossy",
            (w, n) if !w.lossless() && n.lossless() => "becomes lossless",
            _ => "changes",
        };
        let name = |n: &String| (!n.is_empty()).then(|| n.clone());
        out.push(ConversionChange {
            v1: name(&k.0),
            v2: name(&k.1),
            effect,
            was: was.to_string(),
            now: now.to_string(),
        });
    }
    out
}

/// Puts each conversion change into the report of a version with a change to
/// one of its definitions (else the v2 report), and notes it on those changes.
fn attach(reports: &mut [Report], changes: Vec<ConversionChange>, v1: Option<usize>, v2: Option<usize>) {
    for c in changes {
        let mut placed = false;
        for (i, name) in [(v1, &c.v1), (v2, &c.v2)] {
            let (Some(i), Some(name)) = (i, name) else { continue };
            let note = format!("{}: was {}; now {}", c.effect, c.was, c.now);
            let mut hit = false;
            for ch in reports[i].changes.iter_mut().filter(|ch| &ch.def == name) {
                ch.convert = Some(note.clone());
                hit = true;
            }
            if hit {
                reports[i].conversions.push(c.clone());
                placed = true;
            }
        }
        if !placed {
            if let Some(i) = v2.or(v1) {
                reports[i].conversions.push(c);
            }
        }
    }
}

/// Resolves a side given on the command line to a path: a file or directory
/// as is; `npm:<version>` fetched like `schema pull` into
/// `target/schema-diff/npm-<version>/` (kept as a cache); `git:<rev>` the
/// vendored `schema/` files at that revision of this repository, written to
/// `target/schema-diff/git-<rev>/`.
pub fn resolve_side(root: &Path, spec: &str) -> Result<std::path::PathBuf> {
    resolve_side_in(root, &root.join("target/schema-diff"), spec)
}

/// [`resolve_side`] with the cache in `cache`; `git:<rev>:<path>` is the file
/// or directory `<path>` of the repository `root` is in, at `<rev>` (the
/// layout of `schema/` or a lone file), written under `cache` as it was.
pub fn resolve_side_in(root: &Path, cache: &Path, spec: &str) -> Result<std::path::PathBuf> {
    if let Some((rev, path)) = spec.strip_prefix("git:").and_then(|r| r.split_once(':')) {
        return git_path(root, cache, spec, rev, path);
    }
    if let Some(version) = spec.strip_prefix("npm:") {
        let dir = cache.join(format!("npm-{version}"));
        if !dir.join("acp-schema.lock").is_file() {
            crate::pull::pull(&dir, version, &crate::pull::Source::Npm)
                .map_err(|e| Error::Side { spec: spec.to_owned(), source: Box::new(e) })?;
        }
        return Ok(dir);
    }
    if let Some(rev) = spec.strip_prefix("git:") {
        if rev.is_empty() || rev.starts_with('-') {
            return Err(Error::Usage { message: format!("{spec}: not a revision") });
        }
        let dir = rev_dir(cache, rev);
        let _ = std::fs::remove_dir_all(&dir);
        let mut found = 0;
        for rel in crate::lock::ALL_FILES {
            let out = git(root, spec, &["show", &format!("{rev}:schema/{rel}")])?;
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                // A file the revision does not have is fine; a revision that does not exist is not.
                if err.contains("invalid object name")
                    || err.contains("unknown revision")
                    || err.contains("bad revision")
                {
                    return Err(Error::Usage { message: format!("{spec}: no such revision") });
                }
                continue;
            }
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap_or(&dir))
                .and_then(|_| std::fs::write(&path, &out.stdout))
                .map_err(|source| Error::Write { path: path.clone(), source })?;
            found += 1;
        }
        if found == 0 {
            return Err(Error::Usage { message: format!("{spec}: no schema files under schema/ at that revision") });
        }
        return Ok(dir);
    }
    Ok(std::path::PathBuf::from(spec))
}

/// The copy of a revision's files: `cache/git-<rev>`, the revision's name
/// made safe for a path.
fn rev_dir(cache: &Path, rev: &str) -> std::path::PathBuf {
    let safe: String =
        rev.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect();
    cache.join(format!("git-{safe}"))
}

/// Runs git in `root`; its output, or the error naming the side and the command.
fn git(root: &Path, spec: &str, args: &[&str]) -> Result<std::process::Output> {
    std::process::Command::new("git").arg("-C").arg(root).args(args).output().map_err(|e| Error::Command {
        what: format!("{spec}: `git {}`", args.join(" ")),
        message: format!("cannot run git: {e}"),
    })
}

/// `git:<rev>:<path>`: every `.json` file at or under `path` at `rev`,
/// written under `cache/git-<rev>/` at the same relative place; the path of
/// `path` there.
fn git_path(root: &Path, cache: &Path, spec: &str, rev: &str, path: &str) -> Result<std::path::PathBuf> {
    if rev.is_empty() || rev.starts_with('-') || path.starts_with('-') {
        return Err(Error::Usage { message: format!("{spec}: not a revision and a path") });
    }
    let path = path.trim_end_matches('/');
    let prefix = git(root, spec, &["rev-parse", "--show-prefix"])?;
    let prefix = String::from_utf8_lossy(&prefix.stdout).trim().to_owned();
    let listed = git(root, spec, &["ls-tree", "-r", "--name-only", "--full-name", rev, "--", path])?;
    if !listed.status.success() {
        return Err(Error::Usage { message: format!("{spec}: no such revision") });
    }
    let names: Vec<String> =
        String::from_utf8_lossy(&listed.stdout).lines().filter(|n| n.ends_with(".json")).map(str::to_owned).collect();
    if names.is_empty() {
        return Err(Error::Usage { message: format!("{spec}: no `.json` file at `{path}` at that revision") });
    }
    let dir = rev_dir(cache, rev);
    let _ = std::fs::remove_dir_all(&dir);
    for name in &names {
        let out = git(root, spec, &["show", &format!("{rev}:{name}")])?;
        if !out.status.success() {
            return Err(Error::Usage { message: format!("{spec}: cannot read `{name}` at that revision") });
        }
        let file = dir.join(name);
        std::fs::create_dir_all(file.parent().unwrap_or(&dir))
            .and_then(|_| std::fs::write(&file, &out.stdout))
            .map_err(|source| Error::Write { path: file.clone(), source })?;
    }
    // `path` is relative to where git runs, the names to the repository's top.
    Ok(dir.join(format!("{prefix}{path}")))
}
