//! `acp-tools diff OLD NEW`: the schema diff of `cargo xtask diff`, outside
//! this repository, with the reviewed configuration (`schema/upserts.json`,
//! `schema/conversions.json`) this binary was built with, and a mode for a
//! GitHub Actions job (`--github-action`: the job summary, annotations,
//! step outputs and a pull-request comment body, in one run).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use xtask::diff::{self, Report};

/// The configuration the diff reads, as reviewed in this repository when the
/// binary was built.
const UPSERTS: &str = include_str!("../../schema/upserts.json");
const CONVERSIONS: &str = include_str!("../../schema/conversions.json");

/// What `acp-tools diff` was asked.
pub struct Args {
    /// The options `cargo xtask diff` takes too.
    pub options: diff::Options,
    /// A directory holding `schema/upserts.json` and `schema/conversions.json`
    /// to read instead of the built-in ones.
    pub config: Option<PathBuf>,
    /// Write what a GitHub Actions job shows: the job summary, the step
    /// outputs, the annotations and the comment body.
    pub github_action: bool,
    /// Where `--github-action` writes the pull-request comment's body.
    pub comment_file: Option<PathBuf>,
}

/// A side as given and where it was read from: `git:<rev>:<path>` is read
/// from a copy of the revision's files and named as `<path>`.
struct Side {
    spec: String,
    path: PathBuf,
    /// The copy's top directory: a file under it is named by its path from there.
    renamed: Option<PathBuf>,
}

/// Runs the diff; the exit status: 0, 1 when a change not accepted meets
/// `--fail-on`, 2 for bad arguments or an unreadable side.
pub fn run(args: &Args) -> u8 {
    match diff_and_write(args) {
        Ok(fails) => u8::from(fails),
        Err(e) => {
            for line in e.lines() {
                eprintln!("error: {line}");
            }
            2
        }
    }
}

fn diff_and_write(args: &Args) -> Result<bool, String> {
    let o = &args.options;
    let root = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    // The copies of `git:` and `npm:` sides: a directory of this run's own
    // (two runs at once must not write one copy), removed when it ends.
    let cache = Scratch(std::env::temp_dir().join(format!("acp-tools-diff-{}", std::process::id())));
    let cache = &cache.0;
    let side = |spec: &str| -> Result<Side, String> {
        let path = diff::resolve_side_in(&root, cache, spec).map_err(|e| e.to_string())?;
        let renamed = spec.strip_prefix("git:").and_then(|r| r.split_once(':')).map(|(_, p)| {
            let p = p.trim_end_matches('/');
            path.to_string_lossy().strip_suffix(p).map(PathBuf::from).unwrap_or_else(|| path.clone())
        });
        Ok(Side { spec: spec.to_owned(), path, renamed })
    };
    let (old, new) = (side(&o.old)?, side(&o.new)?);
    let config = Config::new(args.config.as_deref())?;
    let result = diff::diff_sides_with(&root, config.dir(), &old.path, &new.path, o.protocol.as_deref());
    drop(config);
    let reports = result.map_err(|e| e.to_string())?;
    let accepted = match &o.accept {
        Some(p) => diff::read_accepted(p).map_err(|e| e.to_string())?,
        None => BTreeSet::new(),
    };
    let name = |f: &str| -> String {
        for s in [&old, &new] {
            if let Some(base) = &s.renamed {
                if let Ok(rel) = Path::new(f).strip_prefix(base) {
                    return rel.display().to_string();
                }
            }
        }
        f.to_owned()
    };
    let shown: Vec<Report> = reports
        .iter()
        .cloned()
        .map(|mut r| {
            r.old = name(&r.old);
            r.new = name(&r.new);
            r
        })
        .collect();
    let fails = diff::fails(&shown, &o.fail_on, &accepted);
    // The annotations read the schema files again for their lines: only when shown.
    let annotations = || diff::github_named(&root, &reports, &name);
    if args.github_action {
        github_action(args, (&old.spec, &new.spec), &shown, &annotations(), fails)?;
        return Ok(fails);
    }
    let text = match o.format.as_str() {
        "json" => serde_json::to_string_pretty(&shown).map_err(|e| e.to_string())? + "\n",
        "github" => annotations(),
        "changelog" => diff::changelog(&format!("Schema {} -> {}", o.old, o.new), &shown),
        _ => diff::markdown(&shown),
    };
    std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| format!("stdout: {e}"))?;
    Ok(fails)
}

/// The marker the pull-request comment starts with, which finds it again.
pub const COMMENT_MARKER: &str = "<!-- acp-schema-diff -->";

/// What a GitHub Actions job shows of a diff: the markdown report appended to
/// `$GITHUB_STEP_SUMMARY`, the annotations on stdout (GitHub reads workflow
/// commands there, whether the step then fails or not), `breaking`,
/// `dangerous`, `compatible`, `rust-breaking` (findings: a change both the
/// stable and the unstable file make counts once) and `failed` appended to
/// `$GITHUB_OUTPUT`, and the comment's body (the marker, then the report)
/// written to `--comment-file`.
fn github_action(
    args: &Args,
    (old, new): (&str, &str),
    reports: &[Report],
    annotations: &str,
    fails: bool,
) -> Result<(), String> {
    let markdown = diff::markdown(reports);
    let one = diff::findings(reports);
    let gate = if args.options.fail_on.is_empty() {
        "no `fail-on` given".to_owned()
    } else if fails {
        format!("**failed**: a change not accepted meets `fail-on: {}`", args.options.fail_on.join(","))
    } else {
        format!("passed `fail-on: {}`", args.options.fail_on.join(","))
    };
    let body = format!("{markdown}\n<sub>`{old}` -> `{new}`; {gate}.</sub>\n");
    let append = |var: &str, text: &str| -> Result<(), String> {
        let Some(path) = std::env::var_os(var) else {
            return Err(format!("--github-action: ${var} is not set (it is in a GitHub Actions job)"));
        };
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| format!("${var} ({}): {e}", PathBuf::from(&path).display()))
    };
    append("GITHUB_STEP_SUMMARY", &body)?;
    let outputs = format!(
        "breaking={}\ndangerous={}\ncompatible={}\nrust-breaking={}\nfailed={fails}\n",
        one.breaking, one.dangerous, one.compatible, one.rust_breaking
    );
    append("GITHUB_OUTPUT", &outputs)?;
    if let Some(path) = &args.comment_file {
        write_whole(path, &format!("{COMMENT_MARKER}\n{body}"))?;
    }
    std::io::stdout().lock().write_all(annotations.as_bytes()).map_err(|e| format!("stdout: {e}"))?;
    Ok(())
}

/// Writes a file whole: to a sibling first, then renamed over it, so a
/// failed write leaves no half-written file.
fn write_whole(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, path)).map_err(|e| format!("{}: {e}", path.display()))
}

/// A directory removed with everything in it when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The configuration the diff reads: a directory given with `--config`, or
/// the built-in files written to a private directory removed on drop.
struct Config {
    dir: PathBuf,
    owned: bool,
}

impl Config {
    fn new(given: Option<&Path>) -> Result<Config, String> {
        if let Some(d) = given {
            for f in ["schema/upserts.json", "schema/conversions.json"] {
                if !d.join(f).is_file() {
                    return Err(format!("--config {}: no {f} there", d.display()));
                }
            }
            return Ok(Config { dir: d.to_path_buf(), owned: false });
        }
        let dir = std::env::temp_dir().join(format!("acp-tools-config-{}", std::process::id()));
        let schema = dir.join("schema");
        std::fs::create_dir_all(&schema)
            .and_then(|_| std::fs::write(schema.join("upserts.json"), UPSERTS))
            .and_then(|_| std::fs::write(schema.join("conversions.json"), CONVERSIONS))
            .map_err(|e| format!("{}: {e}", schema.display()))?;
        Ok(Config { dir, owned: true })
    }

    fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Config {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
