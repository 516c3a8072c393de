//! Errors of the generator: each names the file and the JSON pointer.

use std::path::PathBuf;

/// A problem with a schema or with the generator's inputs or outputs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Read { file: PathBuf, source: std::io::Error },
    /// The file is not valid JSON.
    #[error("{file}:{line}:{column}: invalid JSON: {message}")]
    Json { file: PathBuf, line: usize, column: usize, message: String },
    /// The schema has a construct the generator does not support, or contradicts itself.
    #[error("{file}: {p}: {m}", p = one_line(.pointer), m = one_line(.message))]
    Schema { file: PathBuf, pointer: String, message: String },
    /// A vendored file does not match `schema/acp-schema.lock`.
    #[error("{file}: sha256 {actual} does not match {expected} in {lock}; run `cargo xtask schema pull` instead of editing vendored files")]
    Tampered { file: PathBuf, lock: PathBuf, expected: String, actual: String },
    /// The lock file itself is missing or malformed.
    #[error("{file}: {message}")]
    Lock { file: PathBuf, message: String },
    /// Writing the output failed.
    #[error("{path}: cannot write: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    /// The emitted Rust did not parse (a generator bug).
    #[error("{file}: generated Rust does not parse: {message}")]
    Emit { file: String, message: String },
}

/// `text` with its control characters escaped (`\n`, `\u{1b}`): messages
/// quote names and keywords from the schema, and an error stays one line.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect::<String>()
        .into()
}

/// A result with this crate's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
