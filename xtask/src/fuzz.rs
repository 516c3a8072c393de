//! `cargo xtask fuzz` and `cargo xtask miri`: the fuzz targets in `fuzz/`
//! (cargo-fuzz, libFuzzer, nightly only) with seed corpora and a dictionary
//! built from the repository, and the `json` module's unit tests under Miri.
//!
//! Seeds are written in the targets' input form (see `fuzz/props/src/lib.rs`): a
//! header line naming what the input is, then its JSON. They come from
//! `tests/corpus` (every case, as its definition), `tests/traces` (every line
//! as a message; every trace as a peer's and an adapter's stream), the
//! fixture schemas and every definition of the vendored schemas with what it
//! references (for the lowering). The dictionary holds every property name,
//! string constant and definition name of the vendored schemas, the
//! headers, and JSON's own tokens.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::error::{Error, Result};

/// One fuzz target: its name and the longest input libFuzzer makes for it.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The target's name (`fuzz/fuzz_targets/<name>.rs`).
    pub name: &'static str,
    /// `-max_len` in bytes.
    pub max_len: usize,
    /// What it checks, one line.
    pub about: &'static str,
}

/// Every target, in the order `cargo xtask fuzz` runs them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "json_decode",
        max_len: 16 * 1024,
        about: "json::from_str gives serde_json's value or error; Message::decode's paths agree; a repeated name fails",
    },
    Target { name: "json_encode", max_len: 16 * 1024, about: "json::to_string writes serde_json's bytes" },
    Target { name: "peer", max_len: 32 * 1024, about: "the peers never panic, never lose a pending request" },
    Target { name: "lower", max_len: 64 * 1024, about: "any JSON as a schema: errors of one line, never a panic" },
    Target { name: "convert", max_len: 32 * 1024, about: "the adapters never panic; valid input, valid output" },
    Target { name: "patch", max_len: 8 * 1024, about: "apply/diff/then laws of AcpPatch patches" },
];

/// The target named `name`.
pub fn target(name: &str) -> Result<Target> {
    match TARGETS.iter().find(|t| t.name == name) {
        Some(t) => Ok(*t),
        None => {
            let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
            Err(Error::Usage { message: format!("no fuzz target `{name}`; the targets are {}", names.join(", ")) })
        }
    }
}

fn read_json(path: &Path) -> Result<Value> {
    crate::load::read_json(path, path)
}

fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| Error::Read { file: path.to_path_buf(), source })
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Write { path: dir.to_path_buf(), source })
}

fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    std::fs::write(path, bytes).map_err(|source| Error::Write { path: path.to_path_buf(), source })
}

fn sorted_files(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| Error::Read { file: dir.to_path_buf(), source })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    Ok(out)
}

/// `(version, definition, input)` of every case in `tests/corpus`.
fn corpus_cases(root: &Path) -> Result<Vec<(&'static str, String, Value)>> {
    let mut out = Vec::new();
    for version in ["v1", "v2"] {
        for f in sorted_files(&root.join("tests/corpus").join(version), "json")? {
            let case = read_json(&f)?;
            let Some(name) = case.get("type").and_then(Value::as_str) else {
                return Err(Error::Input { file: f, message: "a corpus case without a `type`".into() });
            };
            out.push((version, name.to_owned(), case.get("input").cloned().unwrap_or(Value::Null)));
        }
    }
    Ok(out)
}

/// `(version, lines)` of every trace in `tests/traces` (JSON lines only).
fn traces(root: &Path) -> Result<Vec<(&'static str, Vec<String>)>> {
    let mut out = Vec::new();
    for f in sorted_files(&root.join("tests/traces"), "jsonl")? {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let version = if name.starts_with("v1") { "v1" } else { "v2" };
        let text = std::fs::read_to_string(&f).map_err(|source| Error::Read { file: f.clone(), source })?;
        out.push((version, text.lines().filter(|l| l.starts_with('{')).map(str::to_owned).collect()));
    }
    Ok(out)
}

fn seed(head: &str, body: &str) -> Vec<u8> {
    format!("{head}\n{body}").into_bytes()
}

/// The definitions `def` reaches through `$ref`, itself included, by name.
fn closure(defs: &serde_json::Map<String, Value>, name: &str) -> serde_json::Map<String, Value> {
    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    if let Some(n) = r.strip_prefix("#/$defs/") {
                        out.push(n.to_owned());
                    }
                }
                m.values().for_each(|x| refs(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let mut out = serde_json::Map::new();
    let mut todo = vec![name.to_owned()];
    while let Some(n) = todo.pop() {
        if out.contains_key(&n) {
            continue;
        }
        if let Some(d) = defs.get(&n) {
            refs(d, &mut todo);
            out.insert(n, d.clone());
        }
    }
    out
}

/// The seed inputs of `target`, built from the repository.
pub fn seeds(root: &Path, target: &str) -> Result<Vec<Vec<u8>>> {
    match target {
        "json_decode" | "json_encode" => json_seeds(root),
        "peer" => peer_seeds(root),
        "convert" => convert_seeds(root),
        "lower" => lower_seeds(root),
        "patch" => patch_seeds(root),
        other => {
            self::target(other)?;
            Ok(Vec::new())
        }
    }
}

/// The codec targets: every corpus case and trace line, and JSON edge cases.
fn json_seeds(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for (version, name, input) in corpus_cases(root)? {
        out.push(seed(&format!("{version} {name}"), &input.to_string()));
    }
    for (version, lines) in traces(root)? {
        for l in lines {
            out.push(seed(&format!("{version} Message"), &l));
        }
    }
    for text in [r#"{"a\u00e9": [1, -2.5e-3, "\ud83d\ude00", null, true]}"#, "1e308", "-0", "[]"] {
        out.push(seed("Value", text));
    }
    out.push(seed("f64", "0.30000000000000004"));
    out.push(seed("u64", "18446744073709551615"));
    out.push(seed("i64", "-9223372036854775808"));
    out.push(seed("String", r#""\"\\\/\b\f\n\r\t\u0000\u001f""#));
    out.push(seed("Vec<Value>", "[[],{}]"));
    out.push(seed("Map", r#"{"k":{}}"#));
    out.push(seed("Option<bool>", "null"));
    Ok(out)
}

/// The peers: each trace as one side receives it, as sent, and with answers.
fn peer_seeds(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for (version, lines) in traces(root)? {
        let sent: Vec<String> = lines.iter().map(|l| if is_request(l) { format!(">{l}") } else { l.clone() }).collect();
        let answered: Vec<String> = lines
            .iter()
            .flat_map(|l| if is_request(l) { vec![l.clone(), "!".into()] } else { vec![l.clone()] })
            .collect();
        for side in ["agent", "client"] {
            let head = format!("{version} {side}");
            out.push(seed(&head, &lines.join("\n")));
            out.push(seed(&head, &sent.join("\n")));
            out.push(seed(&head, &answered.join("\n")));
        }
    }
    Ok(out)
}

/// The adapters: each trace whole and line by line.
fn convert_seeds(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for (version, lines) in traces(root)? {
        out.push(seed(version, &lines.join("\n")));
        for l in lines {
            out.push(seed(version, &l));
        }
    }
    Ok(out)
}

/// Lowering: the fixture schemas and each vendored definition with what it references.
fn lower_seeds(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for f in sorted_files(&root.join("schema/fixtures"), "json")? {
        out.push(read_bytes(&f)?);
    }
    for f in sorted_files(&root.join("schema/fixtures/bad"), "json")? {
        out.push(read_bytes(&f)?);
    }
    for rel in ["v1/schema.json", "v2/schema.unstable.json"] {
        let doc = read_json(&root.join("schema").join(rel))?;
        let Some(defs) = doc.get("$defs").and_then(Value::as_object) else {
            return Err(Error::Schema {
                file: Path::new("schema").join(rel),
                pointer: "#".into(),
                message: "no `$defs`".into(),
            });
        };
        for name in defs.keys() {
            let schema = json!({"$schema": doc.get("$schema"), "$defs": closure(defs, name)});
            let text = schema.to_string();
            if text.len() <= 64 * 1024 {
                out.push(text.into_bytes());
            }
        }
    }
    Ok(out)
}

/// The patches: v2 session updates as states and patches of every upsert type, and an extension struct's stream.
fn patch_seeds(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    // Every v2 session update as a state and as a patch of every
    // upsert type (the tag removed: the rest is the entity's fields).
    let updates: Vec<String> = corpus_cases(root)?
        .into_iter()
        .filter(|(v, name, _)| *v == "v2" && name == "UpdateSessionNotification")
        .filter_map(|(_, _, input)| {
            let mut u = input.get("update")?.as_object()?.clone();
            u.remove("sessionUpdate");
            Some(Value::Object(u).to_string())
        })
        .collect();
    let states = [
        "ToolCall",
        "UserMessageState",
        "AgentMessageState",
        "AgentThoughtState",
        "TerminalState",
        "SessionInfoState",
        "UsageState",
        "CompactionState",
        "SubagentState",
        "SessionMessageState",
    ];
    for (i, u) in updates.iter().enumerate() {
        let next = &updates[(i + 1) % updates.len()];
        for s in states {
            out.push(seed(s, &[u.as_str(), next, u, next, u].join("\n")));
        }
    }
    let editor = [
        r#"{"bufferId":"b","title":"t","mode":"insert","files":["a.rs"],"_meta":{"k":1},"cursor":{"line":3},"payload":[1],"tags":[1,2]}"#,
        r#"{"bufferId":"b","title":null,"mode":"normal","files":[],"cursor":{"line":4,"column":2},"payload":{}}"#,
        r#"{"bufferId":"b","title":null,"_meta":{"k":null,"j":2},"cursor":{"column":null},"tags":[1,"x",3]}"#,
        r#"{"bufferId":"b","files":["b.rs"],"_meta":null,"cursor":null}"#,
        r#"{"bufferId":"b","payload":null,"mode":"insert"}"#,
    ];
    out.push(seed("EditorState", &editor.join("\n")));
    Ok(out)
}

/// A request line (it has both `id` and `method`).
fn is_request(line: &str) -> bool {
    serde_json::from_str::<Value>(line).is_ok_and(|v| v.get("id").is_some() && v.get("method").is_some())
}

/// The dictionary's fixed tokens: JSON syntax and edge values, the JSON-RPC
/// and JSON Schema keywords, and the seed headers of the targets.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "null",
    "true",
    "false",
    "\\u0000",
    "\\ud800",
    "\\udc00",
    "\\\"",
    "1e999",
    "-0.0",
    "18446744073709551616",
    "\"2.0\"",
    "\"jsonrpc\"",
    "\"id\"",
    "\"method\"",
    "\"params\"",
    "\"result\"",
    "\"error\"",
    "\"code\"",
    "\"message\"",
    "\"data\"",
    "\"_meta\"",
    "\"$ref\"",
    "\"$defs\"",
    "\"#/$defs/\"",
    "\"anyOf\"",
    "\"oneOf\"",
    "\"allOf\"",
    "\"not\"",
    "\"type\"",
    "\"object\"",
    "\"string\"",
    "\"integer\"",
    "\"properties\"",
    "\"required\"",
    "\"additionalProperties\"",
    "\"items\"",
    "\"discriminator\"",
    "\"propertyName\"",
    "\"x-method\"",
    "\"x-side\"",
    "\"x-deserialize-default-on-error\"",
    ">",
    "!",
    "\n",
    "v1 Message\n",
    "v2 Message\n",
    "v1 agent\n",
    "v2 client\n",
];

/// Every property name, string constant and method name in a schema.
fn schema_strings(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(props)) = m.get("properties") {
                out.extend(props.keys().cloned());
            }
            for key in ["const", "enum"] {
                match m.get(key) {
                    Some(Value::String(s)) => {
                        out.insert(s.clone());
                    }
                    Some(Value::Array(a)) => out.extend(a.iter().filter_map(Value::as_str).map(str::to_owned)),
                    _ => {}
                }
            }
            if let Some(Value::String(method)) = m.get("x-method") {
                out.insert(method.clone());
            }
            m.values().for_each(|x| schema_strings(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| schema_strings(x, out)),
        _ => {}
    }
}

/// The libFuzzer dictionary: JSON tokens, the seed headers, and every
/// property name, string constant and definition name of the vendored schemas.
pub fn dictionary(root: &Path) -> Result<String> {
    let mut strings = BTreeSet::new();
    let mut names = BTreeSet::new();
    for rel in ["v1/schema.unstable.json", "v2/schema.unstable.json"] {
        let doc = read_json(&root.join("schema").join(rel))?;
        schema_strings(&doc, &mut strings);
        if let Some(defs) = doc.get("$defs").and_then(Value::as_object) {
            names.extend(defs.keys().cloned());
        }
    }
    let mut out = String::from("# ACP fuzz dictionary, written by `cargo xtask fuzz` from the vendored schemas.\n");
    let mut entry = |s: &str| {
        let escaped: String = s
            .bytes()
            .map(|b| match b {
                b'"' | b'\\' => format!("\\{}", b as char),
                0x20..=0x7e => (b as char).to_string(),
                _ => format!("\\x{b:02x}"),
            })
            .collect();
        out.push_str(&format!("\"{escaped}\"\n"));
    };
    for token in TOKENS {
        entry(token);
    }
    for s in &strings {
        entry(&format!("\"{s}\""));
    }
    for n in &names {
        entry(n);
        entry(&format!("v2 {n}\n"));
    }
    Ok(out)
}

/// Writes [`dictionary`] to `fuzz/corpus/acp.dict` and returns the path.
pub fn write_dictionary(root: &Path) -> Result<PathBuf> {
    let dir = root.join("fuzz/corpus");
    create_dir(&dir)?;
    let dict = dir.join("acp.dict");
    write_file(&dict, dictionary(root)?)?;
    Ok(dict)
}

/// FNV-1a, 64 bits: a seed file's name from its bytes.
fn fingerprint(bytes: &[u8]) -> String {
    format!("{:016x}", crate::hash::fnv1a(bytes.iter().copied()))
}

/// Writes the seeds of `target` into `fuzz/corpus/<target>/` (beside what
/// earlier runs found there) and returns the directory.
pub fn write_seeds(root: &Path, target: &str) -> Result<(PathBuf, usize)> {
    let dir = root.join("fuzz/corpus").join(target);
    create_dir(&dir)?;
    let seeds = seeds(root, target)?;
    for s in &seeds {
        let path = dir.join(format!("seed-{}", fingerprint(s)));
        write_file(&path, s)?;
    }
    Ok((dir, seeds.len()))
}

fn has_nightly() -> bool {
    Command::new("cargo").args(["+nightly", "--version"]).output().is_ok_and(|o| o.status.success())
}

const NO_NIGHTLY: &str = "the nightly toolchain is missing: install it with `rustup toolchain install nightly` \
                          (cargo-fuzz needs nightly's sanitizer and coverage flags)";

/// `Ok` when `cargo +nightly` runs; the error to print otherwise.
pub fn nightly() -> Result<()> {
    if has_nightly() {
        Ok(())
    } else {
        Err(Error::Command { what: "`cargo +nightly`".into(), message: NO_NIGHTLY.into() })
    }
}

fn run(cmd: &mut Command) -> Result<()> {
    let status =
        cmd.status().map_err(|e| Error::Command { what: format!("{cmd:?}"), message: format!("cannot run: {e}") })?;
    if !status.success() {
        return Err(Error::Command { what: format!("{cmd:?}"), message: format!("failed ({status})") });
    }
    Ok(())
}

/// Installs cargo-fuzz (from the Rust package registry) when `cargo fuzz`
/// is missing.
pub fn ensure_cargo_fuzz() -> Result<()> {
    let present = Command::new("cargo").args(["+nightly", "fuzz", "--version"]).output();
    if present.is_ok_and(|o| o.status.success()) {
        return Ok(());
    }
    eprintln!("cargo-fuzz is missing: installing it (cargo install cargo-fuzz --locked)");
    run(Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]))
}

/// What one run of a target reported.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Executions (`stat::number_of_executed_units`).
    pub execs: u64,
    /// Coverage: edges (`cov:` of the last status line).
    pub cov: u64,
    /// Features (`ft:` of the last status line).
    pub features: u64,
    /// Inputs in the corpus at the end.
    pub corpus: u64,
}

/// The figures of one run, read from libFuzzer's output (its status lines and `-print_final_stats`).
pub fn parse_stats(log: &str) -> Stats {
    let mut s = Stats::default();
    let field = |line: &str, key: &str| -> Option<u64> {
        let rest = line.split(key).nth(1)?;
        // `830`, `101/13Kb` (units/bytes): the leading digits.
        let word = rest.split_whitespace().next()?;
        let end = word.find(|c: char| !c.is_ascii_digit()).unwrap_or(word.len());
        word[..end].parse().ok()
    };
    for line in log.lines() {
        if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
            s.execs = n.trim().parse().unwrap_or(s.execs);
        }
        if line.starts_with('#') && line.contains(" cov: ") {
            s.cov = field(line, " cov: ").unwrap_or(s.cov);
            s.features = field(line, " ft: ").unwrap_or(s.features);
            s.corpus = field(line, " corp: ").unwrap_or(s.corpus);
        }
    }
    s
}

/// How the targets are built: optimised, with debug assertions and overflow
/// checks, AddressSanitizer (cargo-fuzz's default; the `json` reader has
/// `unsafe` code), and 16 codegen units. cargo-fuzz's default of one unit
/// made a build of the generated bindings take over 16 minutes here; 16 units
/// cost some speed per execution and save most of that.
const BUILD_FLAGS: &[&str] = &["-O", "-a", "--codegen-units", "16"];

/// Builds every target.
pub fn build(root: &Path) -> Result<()> {
    ensure_cargo_fuzz()?;
    run(Command::new("cargo").current_dir(root.join("fuzz")).args(["+nightly", "fuzz", "build"]).args(BUILD_FLAGS))
}

/// Runs `target` for `seconds` on its seeds and what earlier runs found;
/// a crash leaves its input in `fuzz/artifacts/<target>/` and is an error.
pub fn fuzz(root: &Path, target: Target, seconds: u64, jobs: u32) -> Result<Stats> {
    let (corpus, n) = write_seeds(root, target.name)?;
    let dict = write_dictionary(root)?;
    eprintln!("fuzz {}: {} ({n} seeds, {seconds} s)", target.name, target.about);
    let log = root.join("fuzz/corpus").join(format!("{}.log", target.name));
    let mut cmd = Command::new("cargo");
    cmd.current_dir(root.join("fuzz"))
        .args(["+nightly", "fuzz", "run"])
        .args(BUILD_FLAGS)
        .arg(target.name)
        .arg(&corpus)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-max_len={}", target.max_len))
        .arg(format!("-dict={}", dict.display()))
        .arg("-print_final_stats=1")
        .arg("-timeout=20")
        .arg("-rss_limit_mb=4096");
    if jobs > 1 {
        cmd.arg(format!("-fork={jobs}"));
    }
    let cannot_write = |source| Error::Write { path: log.clone(), source };
    let file = std::fs::File::create(&log).map_err(cannot_write)?;
    cmd.stderr(file.try_clone().map_err(cannot_write)?).stdout(file);
    let status = cmd.status().map_err(|e| Error::Command {
        what: format!("`cargo +nightly fuzz run {}`", target.name),
        message: format!("cannot run cargo fuzz: {e}"),
    })?;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let stats = parse_stats(&text);
    if !status.success() {
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(Error::Command {
            what: format!("fuzz target `{}`", target.name),
            message: format!(
                "failed ({status}); the input is in fuzz/artifacts/{}/, the log in {}:\n{}",
                target.name,
                log.display(),
                tail.join("\n")
            ),
        });
    }
    Ok(stats)
}

/// Runs the `json` module's unit tests (its `unsafe` code and what surrounds
/// it) under Miri, installing the `miri` and `rust-src` components of the
/// nightly toolchain when they are missing.
pub fn miri(root: &Path, filter: &str) -> Result<()> {
    nightly()?;
    let present = Command::new("cargo").args(["+nightly", "miri", "--version"]).output();
    if !present.is_ok_and(|o| o.status.success()) {
        eprintln!("Miri is missing: installing it (rustup component add miri rust-src --toolchain nightly)");
        run(Command::new("rustup").args(["component", "add", "miri", "rust-src", "--toolchain", "nightly"]))?;
    }
    run(Command::new("cargo").current_dir(root).env("MIRIFLAGS", "-Zmiri-strict-provenance").args([
        "+nightly",
        "miri",
        "test",
        "-p",
        "acp-bindings",
        "--lib",
        "--",
        filter,
    ]))
}
