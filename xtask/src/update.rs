//! `cargo xtask schema update`: vendor a release of the schema, regenerate the
//! bindings, and diff the new schema against the one it replaced.

use std::path::Path;

use crate::error::{Error, Result};
use crate::generate::{self, Layout};
use crate::pull::{self, Source};

/// What an update did.
#[derive(Debug)]
pub struct Updated {
    /// `package@version (N files)`: what was vendored.
    pub vendored: String,
    /// What `cargo xtask codegen` prints: a line per version module, then the conversions.
    pub stats: Vec<String>,
    /// The schema diff against the schema it replaced, as Markdown (the old
    /// side named `schema@<its version>`).
    pub diff: String,
    /// The same as a section for `CHANGELOG.md` (`## Schema <old> -> <new>`,
    /// [`crate::diff::changelog`]).
    pub changelog: String,
}

/// Vendors `version` (from npm, or a local package with [`Source::Local`])
/// into `root/schema`, regenerates the bindings and diffs the new schema
/// against the one it replaced. The replaced schema is copied aside first and
/// the copy removed afterwards, whatever happened. A step that fails after
/// the vendoring says so ([`Error::AfterVendoring`]).
pub fn update(root: &Path, version: &str, source: &Source) -> Result<Updated> {
    let schema = root.join("schema");
    let before = std::env::temp_dir().join(format!("acp-schema-before-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&before);
    let result = copy_aside(&schema, &before).and_then(|()| vendor_and_regenerate(root, &before, version, source));
    let _ = std::fs::remove_dir_all(&before);
    result
}

/// Copies the vendored schema files into `before`.
fn copy_aside(schema: &Path, before: &Path) -> Result<()> {
    for rel in crate::lock::ALL_FILES {
        let src = schema.join(rel);
        if src.is_file() {
            let dst = before.join(rel);
            let bytes = std::fs::read(&src).map_err(|source| Error::Read { file: src.clone(), source })?;
            std::fs::create_dir_all(dst.parent().unwrap_or(before))
                .and_then(|()| std::fs::write(&dst, bytes))
                .map_err(|source| Error::Write { path: dst, source })?;
        }
    }
    Ok(())
}

fn vendor_and_regenerate(root: &Path, before: &Path, version: &str, source: &Source) -> Result<Updated> {
    let schema = root.join("schema");
    let previous = crate::lock::Lock::read(&schema).map(|l| l.version).unwrap_or_else(|_| "unknown".into());
    let lock = pull::pull(&schema, version, source)?;
    let vendored = format!("{}@{} ({} files)", lock.package, lock.version, lock.files.len());
    let after_vendoring = |e: Error| Error::AfterVendoring { vendored: vendored.clone(), source: Box::new(e) };
    let output = generate::generate(&Layout::repo(root)).map_err(after_vendoring)?;
    generate::write_all(&output).map_err(after_vendoring)?;
    let mut stats: Vec<String> = output.stats.iter().map(ToString::to_string).collect();
    stats.extend(output.convert.iter().map(ToString::to_string));
    let mut reports = crate::diff::diff_sides(root, before, &schema).map_err(after_vendoring)?;
    // Name the old side by the version it was, not the scratch copy.
    let prefix = before.display().to_string();
    for r in &mut reports {
        r.old = r.old.replace(&prefix, &format!("schema@{previous}"));
    }
    let changelog = crate::diff::changelog(&format!("Schema {previous} -> {}", lock.version), &reports);
    Ok(Updated { vendored, stats, diff: crate::diff::markdown(&reports), changelog })
}
