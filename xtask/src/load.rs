//! Reading schema files: JSON with line/column errors, and the lock check for
//! the vendored directory.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::lock::Lock;
use crate::model::Module;

/// One schema file read from disk.
#[derive(Debug, Clone)]
pub struct SchemaFile {
    /// The path as it should appear in messages and headers.
    pub path: PathBuf,
    /// The parsed JSON.
    pub json: Value,
}

fn read(path: &Path, label: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| Error::Read { file: label.to_path_buf(), source })
}

fn parse(bytes: &[u8], label: &Path) -> Result<Value> {
    serde_json::from_slice(bytes).map_err(|e| Error::Json {
        file: label.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: json_message(&e),
    })
}

/// Reads and parses one JSON file; errors name it as `label`.
pub fn read_json(path: &Path, label: &Path) -> Result<Value> {
    parse(&read(path, label)?, label)
}

/// Reads `dir/rel`, checking it against `lock` when given.
pub fn read_schema(dir: &Path, rel: &str, lock: Option<&Lock>) -> Result<SchemaFile> {
    let path = dir.join(rel);
    let bytes = read(&path, &path)?;
    if let Some(lock) = lock {
        lock.verify(dir, rel, &bytes)?;
    }
    let json = parse(&bytes, &path)?;
    Ok(SchemaFile { path, json })
}

/// serde_json's message without its trailing " at line L column C" (the
/// location is reported separately).
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

/// Reads `dir/rel` (checked against `lock` when given) and lowers it with the
/// upsert configuration `dir/upserts.json` of its protocol version (the first
/// path segment of `rel`), if that file exists. Paths in messages and in the
/// module are shown relative to `root`.
pub fn module(root: &Path, dir: &Path, rel: &str, lock: Option<&Lock>) -> Result<Module> {
    let file = read_schema(dir, rel, lock)?;
    let config_path = dir.join("upserts.json");
    let config_label = display_path(root, &config_path);
    let configs =
        if config_path.is_file() { crate::upserts::read(&config_path, &config_label)? } else { Default::default() };
    let version = rel.split('/').next().unwrap_or_default();
    let upserts = configs.get(version).map(|c| (c, config_label.as_path()));
    crate::lower::lower_with(&display_path(root, &file.path), &file.json, upserts)
}

/// `path` relative to `root` when it is inside it (for headers and messages).
pub fn display_path(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
}
