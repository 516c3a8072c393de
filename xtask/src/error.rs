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
    #[error("{file}: {p}{m}", p = at_pointer(.pointer), m = one_line(.message))]
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
    /// An external program (npm, git, cargo, python3, node, pip) could not be
    /// started, or it failed: `what` names the command, `message` says what
    /// happened with what it printed (its stderr, or a fuzz log's tail, kept
    /// line for line).
    #[error("{what}: {message}")]
    Command { what: String, message: String },
    /// A command-line argument is not valid: an unknown fuzz target, a
    /// `--version` that is not an npm version, a diff side that is no revision.
    #[error("{m}", m = one_line(.message))]
    Usage { message: String },
    /// An input of a maintainer tool that is not a schema is unusable: a
    /// package (directory or `.tgz`) without schema files or not an archive,
    /// a corpus case without its `type`.
    #[error("{file}: {m}", m = one_line(.message))]
    Input { file: PathBuf, message: String },
    /// A side of `cargo xtask diff` given as `npm:<version>` could not be fetched.
    #[error("{spec}: {source}")]
    Side { spec: String, source: Box<Error> },
    /// `cargo xtask schema update` vendored the release, then a later step
    /// (generation, writing, the diff) failed.
    #[error("vendored {vendored}, then: {source}")]
    AfterVendoring { vendored: String, source: Box<Error> },
    /// Several problems of one file, found in one pass (lowering goes on past
    /// a definition or property it cannot take). Displayed one per line, each
    /// with its file and JSON pointer; never fewer than two.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Many(Vec<Error>),
}

impl Error {
    /// `Ok` when `errors` is empty, the error itself when there is one, and
    /// [`Error::Many`] (flattened: no `Many` inside another) otherwise.
    pub fn all(errors: Vec<Error>) -> Result<()> {
        let mut flat = Vec::with_capacity(errors.len());
        for e in errors {
            match e {
                Error::Many(inner) => flat.extend(inner),
                e => flat.push(e),
            }
        }
        match flat.len() {
            0 => Ok(()),
            1 => Err(flat.pop().expect("one error")),
            _ => Err(Error::Many(flat)),
        }
    }

    /// The problems this error stands for: itself, or each of [`Error::Many`].
    pub fn each(&self) -> Vec<&Error> {
        match self {
            Error::Many(inner) => inner.iter().collect(),
            e => vec![e],
        }
    }
}

/// `pointer: ` before a message about a place in a file; nothing when the
/// message is about the whole file.
fn at_pointer(pointer: &str) -> String {
    if pointer.is_empty() {
        String::new()
    } else {
        format!("{}: ", one_line(pointer))
    }
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
