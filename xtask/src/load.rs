//! Reading schema files: JSON with line/column errors, and the lock check for
//! the vendored directory.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::lock::Lock;

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
