//! All-or-nothing file output, shared by `codegen` and `schema pull`.
//!
//! Every new text goes to a temporary file beside its target first. Only when
//! all of them are written are the targets replaced: each existing target is
//! first moved aside to a backup, then the temporary takes its place. If any
//! step fails, every target already replaced is restored from its backup (or
//! removed, if it did not exist before), and every temporary and backup is
//! deleted, so the directory is left exactly as it was. Files to delete
//! (stale generated files) are moved aside the same way and only really
//! deleted once everything else succeeded.

use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Writes `files` and deletes `remove`, all or nothing.
pub fn write_all(files: &[(PathBuf, Vec<u8>)], remove: &[PathBuf]) -> Result<()> {
    write_all_with(files, remove, &mut |_| Ok(()))
}

/// [`write_all`] with a hook called before each target is replaced or
/// removed; an error from the hook is treated as a failure of that step
/// (for tests that inject failures).
#[doc(hidden)]
pub fn write_all_with(
    files: &[(PathBuf, Vec<u8>)],
    remove: &[PathBuf],
    hook: &mut dyn FnMut(&Path) -> io::Result<()>,
) -> Result<()> {
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let mut temps: Vec<PathBuf> = Vec::new();
    for (path, bytes) in files {
        let res = create_parents(path, &mut created_dirs).and_then(|()| {
            let tmp = sibling(path, "tmp");
            temps.push(tmp.clone());
            std::fs::write(&tmp, bytes)
        });
        if let Err(source) = res {
            discard(&temps, &created_dirs);
            return Err(Error::Write { path: path.clone(), source });
        }
    }
    // Replace (or remove) the targets, remembering how to undo each step.
    let mut done: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let steps = files.iter().map(|(p, _)| (p, true)).chain(remove.iter().map(|p| (p, false)));
    for (i, (path, write)) in steps.enumerate() {
        let res = hook(path).and_then(|()| {
            let backup = if path.exists() {
                let b = sibling(path, "bak");
                std::fs::rename(path, &b)?;
                Some(b)
            } else {
                None
            };
            done.push((path.clone(), backup));
            if write {
                std::fs::rename(&temps[i], path)?;
            }
            Ok(())
        });
        if let Err(source) = res {
            rollback(&done);
            discard(&temps, &created_dirs);
            return Err(Error::Write { path: path.clone(), source });
        }
    }
    for (_, backup) in &done {
        if let Some(b) = backup {
            let _ = std::fs::remove_file(b);
        }
    }
    Ok(())
}

fn create_parents(path: &Path, created: &mut Vec<PathBuf>) -> io::Result<()> {
    let Some(parent) = path.parent() else { return Ok(()) };
    let mut missing = Vec::new();
    let mut p = parent;
    while !p.as_os_str().is_empty() && !p.exists() {
        missing.push(p.to_path_buf());
        match p.parent() {
            Some(up) => p = up,
            None => break,
        }
    }
    created.extend(missing);
    std::fs::create_dir_all(parent)?;
    Ok(())
}

/// Puts every replaced target back, newest first.
fn rollback(done: &[(PathBuf, Option<PathBuf>)]) {
    for (path, backup) in done.iter().rev() {
        match backup {
            Some(b) => {
                let _ = std::fs::remove_file(path);
                let _ = std::fs::rename(b, path);
            }
            None => {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

fn discard(temps: &[PathBuf], created_dirs: &[PathBuf]) {
    for t in temps {
        let _ = std::fs::remove_file(t);
    }
    // Deepest first: a directory is empty once those below it are gone.
    let mut dirs: Vec<&PathBuf> = created_dirs.iter().collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for d in dirs {
        let _ = std::fs::remove_dir(d);
    }
}

/// A hidden file beside `path`, unique to this process.
fn sibling(path: &Path, what: &str) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    path.with_file_name(format!(".{name}.xtask-{}.{what}", std::process::id()))
}
