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

/// Parses JSON bytes; errors name the file as `label`, with line and column.
pub(crate) fn parse(bytes: &[u8], label: &Path) -> Result<Value> {
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

/// Which upsert configuration to attach, and how strictly.
#[derive(Debug, Clone)]
pub struct UpsertFile {
    /// `upserts.json` (absent: no upserts).
    pub path: PathBuf,
    /// An entry that does not fit the schema is an error (the vendored
    /// schema) rather than a warning that leaves the entry out (a preview of
    /// another revision).
    pub strict: bool,
}

impl UpsertFile {
    /// `dir/upserts.json`, strict: the vendored directory's own configuration.
    pub fn beside(dir: &Path) -> UpsertFile {
        UpsertFile { path: dir.join("upserts.json"), strict: true }
    }
}

/// The protocol version of a schema file, from its path in the directory:
/// `v1/...`, `v2/...`, or the pre-2.0 `schema.json` (v1).
pub fn version_of(rel: &str) -> &str {
    match rel.split_once('/') {
        Some((v, _)) => v,
        None => "v1",
    }
}

/// Definitions only one protocol version has, whatever the release: the
/// payloads of `session/update`, `session/cancel` and authentication, which
/// v2 renamed (`SessionNotification` became `UpdateSessionNotification`).
const V1_ONLY: &[&str] = &["SessionNotification", "CancelNotification", "AuthenticateRequest"];
const V2_ONLY: &[&str] = &["UpdateSessionNotification", "CancelSessionNotification", "LoginAuthRequest"];

/// The protocol version a schema file is written for, read from the file
/// itself: the definitions only one version has (`SessionNotification` in
/// v1, `UpdateSessionNotification` in v2, ...) and, where those are absent,
/// which version its documentation links point to (`/protocol/v2/...`).
/// Returns the version and what decided it, or `None` when the file says
/// nothing (or contradicts itself).
pub fn protocol_of(json: &Value) -> Option<(&'static str, String)> {
    let defs = json.get("$defs").and_then(Value::as_object);
    let has = |names: &[&str]| -> Vec<String> {
        names.iter().filter(|n| defs.is_some_and(|d| d.contains_key(**n))).map(|n| format!("`{n}`")).collect()
    };
    let (one, two) = (has(V1_ONLY), has(V2_ONLY));
    match (one.is_empty(), two.is_empty()) {
        (true, false) => return Some(("v2", format!("it defines {}", two.join(", ")))),
        (false, true) => return Some(("v1", format!("it defines {}", one.join(", ")))),
        (false, false) => return None,
        (true, true) => {}
    }
    let text = json.to_string();
    let links = |v: &str| text.matches(&format!("/protocol/{v}/")).count();
    match (links("v1"), links("v2")) {
        (0, 0) => None,
        (a, 0) => Some(("v1", format!("its {a} documentation links point to /protocol/v1/"))),
        (0, b) => Some(("v2", format!("its {b} documentation links point to /protocol/v2/"))),
        _ => None,
    }
}

/// The schema files of one protocol version in a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionFiles {
    /// `v1` or `v2`.
    pub version: &'static str,
    /// The stable schema, if the directory has it.
    pub stable: Option<&'static str>,
    /// The unstable schema, if the directory has it.
    pub unstable: Option<&'static str>,
}

/// The versions a schema directory holds, in either layout: `v1/` and `v2/`
/// with `schema.json` and `schema.unstable.json` (2.0 on), or the pre-2.0
/// `schema.json` (v1) with `v2/schema.unstable.json` (1.x). A version with
/// only one of its two files is listed with that one.
pub fn versions(dir: &Path) -> Vec<VersionFiles> {
    let has = |rel: &str| dir.join(rel).is_file();
    let pick = |candidates: &[&'static str]| candidates.iter().copied().find(|r| has(r));
    [
        VersionFiles {
            version: "v1",
            stable: pick(&["v1/schema.json", crate::lock::LEGACY_FILE]),
            unstable: pick(&["v1/schema.unstable.json"]),
        },
        VersionFiles { version: "v2", stable: pick(&["v2/schema.json"]), unstable: pick(&["v2/schema.unstable.json"]) },
    ]
    .into_iter()
    .filter(|v| v.stable.is_some() || v.unstable.is_some())
    .collect()
}

/// Reads `dir/rel` (checked against `lock` when given) and lowers it with the
/// upsert configuration `dir/upserts.json` of its protocol version, if that
/// file exists. Paths in messages and in the module are shown relative to
/// `root`.
pub fn module(root: &Path, dir: &Path, rel: &str, lock: Option<&Lock>) -> Result<Module> {
    module_with(root, dir, rel, lock, &UpsertFile::beside(dir))
}

/// [`module`] with the upsert configuration given.
pub fn module_with(root: &Path, dir: &Path, rel: &str, lock: Option<&Lock>, upserts: &UpsertFile) -> Result<Module> {
    module_in(root, dir, rel, lock, upserts, crate::lower::Mode::Strict)
}

/// [`module_with`] in the given lowering mode (lenient for the schema diff
/// and `ir`: definitions the generator does not understand are kept opaque).
pub fn module_in(
    root: &Path,
    dir: &Path,
    rel: &str,
    lock: Option<&Lock>,
    upserts: &UpsertFile,
    mode: crate::lower::Mode,
) -> Result<Module> {
    module_as(root, dir, rel, version_of(rel), lock, upserts, mode)
}

/// [`module_in`] for a file of the given protocol version, whatever its path
/// says (a lone file handed to the schema diff).
pub fn module_as(
    root: &Path,
    dir: &Path,
    rel: &str,
    version: &str,
    lock: Option<&Lock>,
    upserts: &UpsertFile,
    mode: crate::lower::Mode,
) -> Result<Module> {
    lower_as(root, read_schema(dir, rel, lock)?, version, upserts, mode)
}

/// Lowers a schema file already read as the given protocol version, with
/// that version's upsert configuration.
pub fn lower_as(
    root: &Path,
    file: SchemaFile,
    version: &str,
    upserts: &UpsertFile,
    mode: crate::lower::Mode,
) -> Result<Module> {
    let config_label = display_path(root, &upserts.path);
    let configs =
        if upserts.path.is_file() { crate::upserts::read(&upserts.path, &config_label)? } else { Default::default() };
    let applied = configs.get(version).map(|config| crate::upserts::Applied {
        config,
        label: config_label.as_path(),
        strict: upserts.strict,
    });
    crate::lower::lower_in(&display_path(root, &file.path), &file.json, applied, mode)
}

/// `path` relative to `root` when it is inside it (for headers and messages).
pub fn display_path(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
}
