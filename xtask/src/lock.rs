//! `schema/acp-schema.lock`: which package version the vendored files came from
//! and the sha256 of each, checked before anything reads them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The lock file name inside the schema directory.
pub const LOCK_FILE: &str = "acp-schema.lock";

/// The four schema files, relative to the schema directory.
pub const SCHEMA_FILES: [&str; 4] =
    ["v1/schema.json", "v1/schema.unstable.json", "v2/schema.json", "v2/schema.unstable.json"];

/// The v1 schema of packages before 2.0 (which ship it beside
/// `v2/schema.unstable.json` from 1.x on).
pub const LEGACY_FILE: &str = "schema.json";

/// Every schema file a published package may hold, in either layout.
pub const ALL_FILES: [&str; 5] =
    ["v1/schema.json", "v1/schema.unstable.json", "v2/schema.json", "v2/schema.unstable.json", LEGACY_FILE];

/// The contents of the lock file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// The npm package the files were taken from.
    pub package: String,
    /// Its version.
    pub version: String,
    /// `sha256` (hex) of each vendored file, by path relative to the schema directory.
    pub files: BTreeMap<String, String>,
}

/// Hex sha256 of some bytes.
pub fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

impl Lock {
    /// Reads `dir/acp-schema.lock`.
    pub fn read(dir: &Path) -> Result<Lock> {
        let file = dir.join(LOCK_FILE);
        let text = std::fs::read_to_string(&file).map_err(|source| Error::Read { file: file.clone(), source })?;
        serde_json::from_str(&text)
            .map_err(|e| Error::Lock { file: file.clone(), message: format!("malformed lock file: {e}") })
    }

    /// The file's text, as written (sorted keys, trailing newline).
    pub fn render(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("lock serializes");
        s.push('\n');
        s
    }

    /// Checks one file's bytes against the lock; names the file when they differ.
    pub fn verify(&self, dir: &Path, rel: &str, bytes: &[u8]) -> Result<()> {
        let file: PathBuf = dir.join(rel);
        let lock = dir.join(LOCK_FILE);
        let Some(expected) = self.files.get(rel) else {
            return Err(Error::Lock { file: lock, message: format!("no sha256 recorded for `{rel}`") });
        };
        let actual = sha256(bytes);
        if &actual != expected {
            return Err(Error::Tampered { file, lock, expected: expected.clone(), actual });
        }
        Ok(())
    }
}
