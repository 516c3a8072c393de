//! `cargo xtask schema pull`: vendors the schema files of the npm package
//! `@agentclientprotocol/sdk` and records their hashes.
//!
//! Packages from 2.0 on ship four files (`v1/` and `v2/`, each with
//! `schema.json` and `schema.unstable.json`); earlier ones ship the v1
//! `schema.json` alone, with `v2/schema.unstable.json` from 1.x on. Whatever
//! subset a package has is vendored; schema files of the directory that the
//! package does not have are removed, so the directory is the package's.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::lock::{sha256, Lock, ALL_FILES, LOCK_FILE};

/// The npm package the schema is published in.
pub const PACKAGE: &str = "@agentclientprotocol/sdk";

/// Where the package comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// `npm pack <package>@<version>` with the user's npm configuration.
    Npm,
    /// An unpacked package directory, its `schema/` directory, or a `.tgz`.
    Local(PathBuf),
}

/// Fetches the files and writes them and the lock into `schema_dir`, all or nothing.
pub fn pull(schema_dir: &Path, version: &str, source: &Source) -> Result<Lock> {
    if version.is_empty() || !version.chars().all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c)) {
        return Err(Error::Usage { message: format!("--version `{version}` is not an npm version") });
    }
    let files = match source {
        Source::Npm => {
            let scratch = Scratch(std::env::temp_dir().join(format!("acp-schema-pull-{}", std::process::id())));
            let tmp = &scratch.0;
            std::fs::create_dir_all(tmp).map_err(|source| Error::Write { path: tmp.clone(), source })?;
            let spec = format!("{PACKAGE}@{version}");
            let out =
                Command::new("npm").args(["pack", &spec, "--silent", "--pack-destination"]).arg(tmp).output().map_err(
                    |e| Error::Command {
                        what: "`npm pack`".into(),
                        message: format!("cannot run: {e} (is npm installed? `--from <dir or .tgz>` works offline)"),
                    },
                )?;
            if !out.status.success() {
                return Err(Error::Command {
                    what: format!("`npm pack {spec}`"),
                    message: format!("failed: {}", String::from_utf8_lossy(&out.stderr).trim()),
                });
            }
            let name = String::from_utf8_lossy(&out.stdout).trim().lines().last().unwrap_or_default().to_owned();
            let tgz = tmp.join(name);
            from_tgz(&tgz)?
        }
        Source::Local(path) if path.is_dir() => from_dir(path)?,
        Source::Local(path) => from_tgz(path)?,
    };
    let lock = Lock {
        package: PACKAGE.to_owned(),
        version: version.to_owned(),
        files: files.iter().map(|(rel, bytes)| (rel.clone(), sha256(bytes))).collect(),
    };
    for (rel, bytes) in &files {
        crate::load::parse(bytes, Path::new(rel))?;
    }
    let stale: Vec<PathBuf> = ALL_FILES
        .iter()
        .filter(|rel| !files.contains_key(**rel))
        .map(|rel| schema_dir.join(rel))
        .filter(|p| p.is_file())
        .collect();
    let mut outputs: Vec<(PathBuf, Vec<u8>)> = files.into_iter().map(|(rel, b)| (schema_dir.join(rel), b)).collect();
    outputs.push((schema_dir.join(LOCK_FILE), lock.render().into_bytes()));
    crate::write::write_all(&outputs, &stale)?;
    Ok(lock)
}

fn from_dir(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let base = if dir.join("schema").is_dir() { dir.join("schema") } else { dir.to_path_buf() };
    let mut out = BTreeMap::new();
    for rel in ALL_FILES {
        let path = base.join(rel);
        if path.is_file() {
            let bytes = std::fs::read(&path).map_err(|source| Error::Read { file: path.clone(), source })?;
            out.insert(rel.to_owned(), bytes);
        }
    }
    if out.is_empty() {
        return Err(Error::Input {
            file: base,
            message: format!("no schema files (looked for {})", ALL_FILES.join(", ")),
        });
    }
    Ok(out)
}

fn from_tgz(path: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let file = std::fs::File::open(path).map_err(|source| Error::Read { file: path.to_path_buf(), source })?;
    let input =
        |what: &str, e: std::io::Error| Error::Input { file: path.to_path_buf(), message: format!("{what}: {e}") };
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut out = BTreeMap::new();
    for entry in archive.entries().map_err(|e| input("not a .tgz", e))? {
        let mut entry = entry.map_err(|e| input("corrupt archive", e))?;
        let name = entry.path().map_err(|e| input("corrupt archive", e))?.to_string_lossy().into_owned();
        if let Some(rel) = name.strip_prefix("package/schema/") {
            if ALL_FILES.contains(&rel) {
                let mut bytes = Vec::new();
                entry.read_to_end(&mut bytes).map_err(|e| input(&format!("corrupt archive (at {name})"), e))?;
                out.insert(rel.to_owned(), bytes);
            }
        }
    }
    if out.is_empty() {
        return Err(Error::Input {
            file: path.to_path_buf(),
            message: format!("the package has no schema files (looked for `schema/{}`)", ALL_FILES.join("`, `schema/")),
        });
    }
    Ok(out)
}

/// A scratch directory removed when dropped, on every path out of `pull`.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
