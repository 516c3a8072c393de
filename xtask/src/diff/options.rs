//! The command line of the diff, shared by `cargo xtask diff` and
//! `acp-tools diff`, and the gate it exits by.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::{Change, Level, Report, RustLevel};

/// What changed between two schema revisions, classified by who it breaks.
/// Each side is a schema file, a directory in the layout of `schema/`,
/// `npm:<version>`, `git:<rev>` (this repository's vendored schema at a
/// revision) or `git:<rev>:<path>` (a file or directory of the current
/// repository at a revision).
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// The old side.
    pub old: String,
    /// The new side.
    pub new: String,
    /// `markdown` (a pull-request comment), `json` (an array with one report per file
    /// compared), `github` (workflow annotations with file and line) or `changelog`
    /// (a release's section for CHANGELOG.md).
    #[arg(long, default_value = "markdown", value_parser = ["markdown", "json", "github", "changelog"])]
    pub format: String,
    /// Exit 1 if a change not accepted meets any of these: `breaking` or `dangerous`
    /// (a wire level or worse), `rust-breaking` (the generated Rust API breaks, whatever
    /// the wire level). Repeat the flag or separate with commas.
    #[arg(long, value_delimiter = ',', value_parser = ["breaking", "dangerous", "rust-breaking"])]
    pub fail_on: Vec<String>,
    /// Fingerprints a reviewer accepted (one per line; `#` starts a comment):
    /// those changes are still reported but do not fail the run.
    #[arg(long, value_name = "FILE")]
    pub accept: Option<PathBuf>,
    /// Read lone schema files as this protocol version, which decides the upsert
    /// rules that apply (by default a file's version is read from its contents:
    /// the definitions only one version has, or its documentation links).
    /// Directories take the version from their layout.
    #[arg(long, value_parser = ["v1", "v2"])]
    pub protocol: Option<String>,
}

/// Whether a change meets `--fail-on`: `breaking` or `dangerous` (that wire
/// level or worse), `rust-breaking` (the generated API breaks).
pub fn meets(c: &Change, fail_on: &[String]) -> bool {
    fail_on.iter().any(|f| match f.as_str() {
        "breaking" => c.level >= Level::Breaking,
        "dangerous" => c.level >= Level::Dangerous,
        "rust-breaking" => c.rust.level == RustLevel::Breaking,
        _ => false,
    })
}

/// Whether a change of the reports that is not accepted meets `--fail-on`.
pub fn fails(reports: &[Report], fail_on: &[String], accepted: &BTreeSet<String>) -> bool {
    reports.iter().flat_map(|r| &r.changes).filter(|c| !accepted.contains(&c.fingerprint)).any(|c| meets(c, fail_on))
}
