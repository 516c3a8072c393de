//! The TypeScript package (`ts/`) against the crate, through their two CLIs:
//! `node ts/dist/src/cli.js` and `acp-tools` give the same lines and exit
//! codes on the corpus, the traces and their replays; on every corpus
//! message mutated at every property they give the same verdict (the corpus,
//! mutation, broken-JSON and repeated-name groups run in one Node process per test,
//! `ts/tools/cli-batch.ts`, rather than start Node for each). Also the
//! package's own tests (`npm test`), and its example agent and client against
//! the official TypeScript and Python SDKs' examples and the project's Rust
//! examples (the Python SDK is installed from PyPI into `target/interop/venv`).
//!
//! Node 20 and npm are needed; `npm ci` installs the package's pinned
//! dependencies (TypeScript, and the official SDK the agent is tested with).

use crate::common;
use common::{example, node::node_batched, Scratch};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn ts() -> PathBuf {
    root().join("ts")
}

fn log(o: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// `npm ci` (unless `ts/node_modules` holds what the lock pins) and `npm run
/// build` in `ts/`, once for every test of this binary.
#[must_use = "hold the guard while the test runs ts/dist/"]
fn built() -> std::sync::RwLockReadGuard<'static, ()> {
    common::ts_built(&root())
}

/// `--unstable` when this `acp-tools` has the unstable types (`cargo test --workspace` builds it so).
fn unstable() -> &'static [&'static str] {
    if cfg!(feature = "unstable") {
        &["--unstable"]
    } else {
        &[]
    }
}

/// Runs `acp-tools ARGS` and `node ts/dist/src/cli.js ARGS`, the latter by `node`:
/// [`node_process`], as a user starts it, or [`node_batched`] (one process for many).
fn both(args: &[&str], node: fn(&[&str]) -> Output) -> (Output, Output) {
    let _dist = built();
    let rust = Command::new(env!("CARGO_BIN_EXE_acp-tools")).args(args).output().expect("acp-tools runs");
    (rust, node(args))
}

fn node_process(args: &[&str]) -> Output {
    Command::new("node").arg(ts().join("dist/src/cli.js")).args(args).output().expect("node runs")
}

fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("acp-ts-{}-{name}", std::process::id()))
}

/// Every corpus input, by version and definition: `(version, type) -> inputs`.
fn corpus() -> BTreeMap<(String, String), Vec<Value>> {
    let mut out: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
    for version in ["v1", "v2"] {
        let dir = root().join("tests/corpus").join(version);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "json")) {
            let case: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            let key = (version.to_owned(), case["type"].as_str().unwrap().to_owned());
            out.entry(key).or_default().push(case["input"].clone());
        }
    }
    out
}

/// Writes each group as a `.jsonl` trace; runs both CLIs with `flag`
/// (`--type`: each group is of the definition its key names; `--method`:
/// of responses to that method, or messages when the key names none) and
/// hands their outputs to `compare`.
fn check_groups(
    dir: &Path,
    flag: &str,
    groups: &BTreeMap<(String, String), Vec<Value>>,
    compare: impl Fn(&str, &Output, &Output),
) {
    check_groups_worded(dir, flag, groups, compare, false);
}

/// [`check_groups`]; with `json`, the TypeScript CLI is also run with
/// `--wording json` and its lines checked by [`json_words`] against its
/// lines in the crate's words.
fn check_groups_worded(
    dir: &Path,
    flag: &str,
    groups: &BTreeMap<(String, String), Vec<Value>>,
    compare: impl Fn(&str, &Output, &Output),
    json: bool,
) {
    for (i, ((version, name), inputs)) in groups.iter().enumerate() {
        let path = dir.join(format!("{i}.jsonl"));
        let text: String = inputs.iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(&path, text).unwrap();
        let mut args = vec!["check-messages", "--protocol", version.as_str()];
        if !name.is_empty() {
            args.extend([flag, name.as_str()]);
        }
        args.extend(unstable());
        args.push(path.to_str().unwrap());
        let (rust, node) = both(&args, node_batched);
        let what = format!("{version} {flag} {name:?}");
        compare(&what, &rust, &node);
        if json {
            let worded = node_batched(&[&args[..], &["--wording", "json"]].concat());
            json_words(&what, &node, &worded);
        }
    }
}

/// The words of Rust and serde that the package's JSON wording replaces
/// (`a sequence`, `map`, an untagged arm's variant name), and the integer
/// types it says as ranges (`u16`, as a word of its own).
const RUST_WORDS: &[&str] = &[
    "a sequence",
    "struct ",
    "sequence,",
    "a map",
    "map,",
    "a list",
    "a tuple",
    "Option value",
    "a character",
    "Str:",
    "Number:",
    "Null:",
];
const RUST_INTEGERS: &[&str] = &["u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128"];

/// A message without what it quotes (strings as `"..."`, values in backticks), where a received value's text may say anything.
fn unquoted(message: &str) -> String {
    let (mut out, mut quote, mut escaped) = (String::new(), None, false);
    for c in message.chars() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '`' => quote = Some(c),
            None => out.push(c),
        }
    }
    out
}

/// The TypeScript CLI's lines in JSON's words (`json`) against the same
/// run in the crate's words (`crate_words`): the same verdicts at the same
/// pointers and exit code, and no message with a word of [`RUST_WORDS`].
fn json_words(what: &str, crate_words: &Output, json: &Output) {
    assert_eq!(json.status.code(), crate_words.status.code(), "{what}");
    let (ours, theirs) = (verdicts(json), verdicts(crate_words));
    assert_eq!(ours.len(), theirs.len(), "{what}: {}", log(json));
    for (i, (j, c)) in ours.iter().zip(&theirs).enumerate() {
        let (Some(j), Some(c)) = (j.strip_prefix("rejected at "), c.strip_prefix("rejected at ")) else {
            assert_eq!(j, c, "{what}, line {}", i + 1);
            continue;
        };
        let ((jp, jm), (cp, _)) = (j.split_once(": ").unwrap(), c.split_once(": ").unwrap());
        assert_eq!(jp, cp, "{what}, line {}", i + 1);
        let bare = unquoted(jm);
        let words: Vec<&str> = bare.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        let found: Vec<&&str> = RUST_WORDS
            .iter()
            .filter(|w| bare.contains(**w))
            .chain(RUST_INTEGERS.iter().filter(|w| words.contains(w)))
            .collect();
        assert!(found.is_empty(), "{what}, line {}: {found:?} in the JSON-worded message {jm:?}", i + 1);
    }
}

fn same_output(what: &str, rust: &Output, node: &Output) {
    assert_eq!(
        (String::from_utf8_lossy(&node.stdout), String::from_utf8_lossy(&node.stderr), node.status.code()),
        (String::from_utf8_lossy(&rust.stdout), String::from_utf8_lossy(&rust.stderr), rust.status.code()),
        "{what}: the TypeScript CLI (left) and acp-tools (right) differ"
    );
}

#[test]
fn npm_test_passes() {
    // `npm test` recompiles dist/ (`tsc -p .`): no other test of this binary runs it meanwhile.
    let _dist = common::ts_rebuilding(&root());
    let o = Command::new("npm").args(["test"]).current_dir(ts()).output().expect("npm runs");
    assert!(o.status.success(), "`npm test` in ts/ failed:\n{}", log(&o));
}

/// The Python package reads the decoding tables the TypeScript modules hold
/// (`python/src/acp_bindings/_tables/*.json`, written from the same plan):
/// member for member the same shapes, methods, upserts and reducer.
#[test]
fn the_python_tables_are_the_typescript_modules_tables() {
    let _dist = built();
    let script = "const [ts, py] = process.argv.slice(1);\n\
        const fs = require('fs');\n\
        const sorted = (x) => JSON.stringify(x, (k, v) => v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v);\n\
        import(ts).then((m) => {\n\
          const theirs = { shapes: m.shapes, methods: m.methods, upserts: m.upserts ?? {}, reducer: m.reducer ?? {} };\n\
          const ours = JSON.parse(fs.readFileSync(py, 'utf8'));\n\
          if (sorted(theirs) !== sorted(ours)) { console.error(`${py} differs from ${ts}`); process.exit(1); }\n\
        });\n";
    for module in ["v1", "v2", "v1.unstable", "v2.unstable"] {
        let ts_module = ts().join(format!("dist/src/generated/{module}.js"));
        let py_tables = root().join(format!("python/src/acp_bindings/_tables/{module}.json"));
        let o = Command::new("node").args(["-e", script]).arg(&ts_module).arg(&py_tables).output().expect("node runs");
        assert!(o.status.success(), "{module}: {}", log(&o));
    }
}

/// The package's metadata passes the ecosystem's package linters: `publint`
/// (strict: a warning fails) and are-the-types-wrong (the `esm-only`
/// profile: the package is ESM, a CommonJS project `import()`s it).
#[test]
fn the_package_passes_publint_and_are_the_types_wrong() {
    let _dist = built();
    let o = Command::new("npm").args(["run", "--silent", "lint:package"]).current_dir(ts()).output().expect("npm runs");
    assert!(o.status.success(), "`npm run lint:package` in ts/ failed:\n{}", log(&o));
    // What the registry would take, without uploading (the build is `built()`'s: no script runs,
    // so that `prepublishOnly` does not rewrite dist/ under the other tests).
    let o = Command::new("npm")
        .args(["publish", "--dry-run", "--ignore-scripts", "--json"])
        .current_dir(ts())
        .output()
        .expect("npm runs");
    assert!(o.status.success(), "`npm publish --dry-run` in ts/ failed:\n{}", log(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("npm publish --json prints JSON");
    assert_eq!(report["acp-bindings"]["name"], "acp-bindings", "{report}");
}

#[test]
fn every_corpus_message_gets_the_same_lines_from_both_clis() {
    let dir = scratch("corpus");
    let groups = corpus();
    assert!(groups.values().map(Vec::len).sum::<usize>() >= 100);
    check_groups(&dir, "--type", &groups, same_output);
}

#[test]
fn every_trace_checks_and_replays_the_same_in_both_clis() {
    let traces = root().join("tests/traces");
    let mut n = 0;
    for entry in std::fs::read_dir(&traces).unwrap() {
        let path = entry.unwrap().path();
        let p = path.to_str().unwrap();
        for version in ["v1", "v2"] {
            let mut args = vec!["check-messages", "--protocol", version];
            args.extend(unstable());
            args.push(p);
            let (rust, node) = both(&args, node_process);
            same_output(&format!("check-messages {version} {p}"), &rust, &node);
        }
        let mut args = vec!["replay", "--protocol", "v2"];
        args.extend(unstable());
        args.push(p);
        let (rust, node) = both(&args, node_process);
        same_output(&format!("replay {p}"), &rust, &node);
        // The replay is JSON, key order included.
        assert!(serde_json::from_slice::<Value>(&node.stdout).is_ok(), "{}", log(&node));
        args.insert(3, "--compact");
        let (rust, node) = both(&args, node_process);
        same_output(&format!("replay --compact {p}"), &rust, &node);
        n += 1;
    }
    assert!(n >= 3, "only {n} traces");
    // Errors of use: the same messages and exit codes.
    for args in [
        &["replay", "--protocol", "v1", "nowhere.jsonl"][..],
        &["replay", "--protocol", "v2", "nowhere.jsonl"],
        &["check-messages", "--protocol", "v2", "nowhere.json"],
        &["check-messages", "--protocol", "v2", "--type", "NoSuchDefinition", "Cargo.toml"],
    ] {
        let (rust, node) = both(args, node_process);
        same_output(&args.join(" "), &rust, &node);
    }
}

/// The replacements every property of every corpus message is mutated to.
fn replacements() -> Vec<Value> {
    serde_json::from_str(
        r#"[null, 0, 1.5, 2.0, -1, 70000, "x", "", true, [], {}, [1], {"a": 1}, [null], ["x"], [{}], {"type": "text"}]"#,
    )
    .unwrap()
}

/// `v` with the value at `path` replaced (`None`: removed).
fn mutated(v: &Value, path: &[Value], with: Option<&Value>) -> Value {
    let mut out = v.clone();
    let Some((last, parents)) = path.split_last() else { return with.cloned().unwrap_or(Value::Null) };
    let mut at = &mut out;
    for p in parents {
        at = match p {
            Value::String(k) => &mut at[k.as_str()],
            Value::Number(i) => &mut at[i.as_u64().unwrap() as usize],
            _ => unreachable!(),
        };
    }
    match (at, last, with) {
        (Value::Object(o), Value::String(k), Some(w)) => drop(o.insert(k.clone(), w.clone())),
        (Value::Object(o), Value::String(k), None) => {
            *o = o.iter().filter(|(key, _)| *key != k).map(|(key, v)| (key.clone(), v.clone())).collect();
        }
        (Value::Array(a), Value::Number(i), Some(w)) => a[i.as_u64().unwrap() as usize] = w.clone(),
        (Value::Array(a), Value::Number(i), None) => drop(a.remove(i.as_u64().unwrap() as usize)),
        _ => unreachable!(),
    }
    out
}

fn paths(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(at.clone());
    match v {
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            at.push(Value::from(k.as_str()));
            paths(x, at, out);
            at.pop();
        }),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| {
            at.push(Value::from(i));
            paths(x, at, out);
            at.pop();
        }),
        _ => {}
    }
}

/// A verdict line without its location: `exact`, `differs ...` or `rejected at P: M`.
fn verdicts(o: &Output) -> Vec<String> {
    let text = String::from_utf8_lossy(&o.stdout);
    let mut lines: Vec<String> =
        text.lines().map(|l| l.split_once(".jsonl:").map_or(l, |(_, r)| r).to_owned()).collect();
    lines.pop(); // the tally
    lines.into_iter().map(|l| l.split_once(": ").map(|(_, r)| r.to_owned()).unwrap_or(l)).collect()
}

/// Each of `inputs` with every property replaced by each of
/// [`replacements`] or removed (the value itself replaced too).
fn mutations(inputs: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for input in inputs {
        let mut all = Vec::new();
        paths(input, &mut Vec::new(), &mut all);
        for path in &all {
            out.extend(replacements().iter().map(|r| mutated(input, path, Some(r))));
            if !path.is_empty() {
                out.push(mutated(input, path, None));
            }
        }
    }
    out
}

/// The same verdict, the same `differs` pointers, the same rejection
/// message; a rejection's pointer is the crate's or a deeper one (the crate
/// names the enclosing value where its decoder had buffered the one that
/// failed: an untagged or flattened union).
fn same_verdicts(what: &str, rust: &Output, node: &Output) {
    assert_eq!(node.status.code(), rust.status.code(), "{what}");
    let (ours, theirs) = (verdicts(node), verdicts(rust));
    assert_eq!(ours.len(), theirs.len(), "{what}: {}", log(node));
    for (i, (t, r)) in ours.iter().zip(theirs).enumerate() {
        let same = match (t.strip_prefix("rejected at "), r.strip_prefix("rejected at ")) {
            (Some(t), Some(r)) => {
                let (tp, tm) = t.split_once(": ").unwrap();
                let (rp, rm) = r.split_once(": ").unwrap();
                let (tp, rp) = (tp.replace("(root)", ""), rp.replace("(root)", ""));
                tm == rm && (tp == rp || tp.starts_with(&format!("{rp}/")))
            }
            _ => *t == r,
        };
        assert!(same, "{what}, line {}:\n  TypeScript: {t}\n  acp-tools:  {r}", i + 1);
    }
}

/// Broken JSON ([`common::broken_lines`]): the same verdicts from both CLIs
/// (the reader's words, line and column; a repeated name inside a kept
/// unknown member may be named one level deeper, as [`same_verdicts`] allows).
#[test]
fn broken_json_gets_the_same_lines_from_both_clis() {
    let lines = common::broken_lines(&root());
    assert!(lines.len() > 5_000, "only {} lines", lines.len());
    let dir = scratch("broken");
    let file = dir.join("broken.jsonl");
    std::fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let (rust, node) =
        both(&["check-messages", "--protocol", "v2", "--type", "ContentBlock", file.to_str().unwrap()], node_batched);
    same_verdicts("broken JSON", &rust, &node);
}

/// Every corpus message with every property mutated ([`mutations`]), by definition.
#[test]
fn mutated_corpus_messages_get_the_same_verdicts() {
    let groups: BTreeMap<(String, String), Vec<Value>> =
        corpus().into_iter().map(|(key, inputs)| (key, mutations(&inputs))).collect();
    let total: usize = groups.values().map(Vec::len).sum();
    assert!(total > 20_000, "only {total} mutated messages");
    check_groups_worded(&scratch("mutated"), "--type", &groups, same_verdicts, true);
}

/// Every message of every trace with every property mutated, the envelope's
/// included: requests and notifications together, responses by the method
/// of the request they answer (`--method`).
#[test]
fn mutated_trace_messages_get_the_same_verdicts() {
    let mut groups: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
    for entry in std::fs::read_dir(root().join("tests/traces")).unwrap() {
        let path = entry.unwrap().path();
        let version = if path.to_string_lossy().contains("v1") { "v1" } else { "v2" };
        let mut methods: BTreeMap<String, String> = BTreeMap::new();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let Ok(Value::Object(m)) = serde_json::from_str::<Value>(line) else { continue };
            let id = m.get("id").map(Value::to_string);
            let key = match (m.get("method").and_then(Value::as_str), id) {
                (Some(method), Some(id)) => {
                    methods.insert(id, method.to_owned());
                    String::new()
                }
                (Some(_), None) => String::new(),
                (None, Some(id)) => match methods.get(&id) {
                    Some(method) => method.clone(),
                    None => continue,
                },
                (None, None) => continue,
            };
            groups.entry((version.to_owned(), key)).or_default().extend(mutations(&[Value::Object(m)]));
        }
    }
    let total: usize = groups.values().map(Vec::len).sum();
    assert!(total > 3_000, "only {total} mutated messages");
    check_groups(&scratch("mutated-traces"), "--method", &groups, same_verdicts);
}

/// The official Python SDK (`interop/python/requirements.txt`) in `target/interop/venv`, where
/// `cargo xtask interop` installs it too; installed once, from PyPI, when missing.
fn python() -> PathBuf {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let venv = root().join("target/interop/venv");
        let python = venv.join("bin/python");
        if !python.exists() {
            let o = Command::new("python3").args(["-m", "venv"]).arg(&venv).output().expect("python3 runs");
            assert!(o.status.success(), "python3 -m venv failed:\n{}", log(&o));
            let o = Command::new(&python)
                .args(["-m", "pip", "install", "-q", "--disable-pip-version-check", "-r"])
                .arg(root().join("interop/python/requirements.txt"))
                .output()
                .expect("pip runs");
            assert!(o.status.success(), "pip install failed:\n{}", log(&o));
        }
        python
    })
    .clone()
}

fn turn(client: &mut Command, version: &str) -> Vec<String> {
    let _dist = built();
    let agent = ts().join("dist/examples/agent.js");
    let o = client
        .args(["node", agent.to_str().unwrap(), "--protocol", version])
        .env("ACP_NODE_MODULES", ts().join("node_modules"))
        .output()
        .expect("the client runs");
    assert!(o.status.success(), "{}", log(&o));
    String::from_utf8_lossy(&o.stdout).lines().map(str::to_owned).collect()
}

/// The hand-written and the generated TypeScript pass ESLint (typescript-eslint's `strict`), and
/// the hand-written is as Prettier writes it (`npm run lint`; the generated is as the generator
/// writes it, which `cargo xtask codegen --check` holds).
#[test]
fn the_typescript_passes_eslint_and_prettier() {
    let _dist = built();
    let o = Command::new("npm").args(["run", "--silent", "lint"]).current_dir(ts()).output().expect("npm runs");
    assert!(o.status.success(), "`npm run lint` in ts/ failed:\n{}", log(&o));
}

/// The example agent on the connection is no longer than the same agent on the official SDK.
#[test]
fn the_example_agent_is_no_longer_than_the_same_agent_on_the_sdk() {
    let lines =
        |p: PathBuf| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())).lines().count();
    let (ours, theirs) = (lines(ts().join("examples/agent.ts")), lines(root().join("interop/node/agent.mjs")));
    assert!(ours <= theirs, "ts/examples/agent.ts has {ours} lines, the SDK's agent {theirs}");
}

#[test]
fn the_example_agent_completes_a_turn_with_the_official_sdk_client_and_the_rust_clients() {
    for version in ["v1", "v2"] {
        let mut official = Command::new("node");
        official.arg(root().join("interop/node/client.mjs")).args(["--protocol", version]);
        let out = turn(&mut official, version);
        assert_eq!(
            out.first().map(String::as_str),
            Some(format!("initialized: ts-bindings-agent (protocol {})", &version[1..]).as_str())
        );
        for line in [
            "tool call call-1: Read README.md [pending]",
            "agent: README.md starts with \"# ACP bindings toolkit\".",
            "turn ended: end_turn",
        ] {
            assert!(out.iter().any(|l| l == line), "{version}, the official client: no `{line}` in {out:#?}");
        }
        assert!(out.iter().any(|l| l.starts_with("permission: ") && l.ends_with("-> Allow")), "{out:#?}");
        assert!(out.iter().any(|l| l.starts_with("tool call call-1: ") && l.ends_with("[completed]")), "{out:#?}");
    }
    // The Python SDK's client (v1; the SDK has no v2).
    let mut py = Command::new(python());
    py.arg(root().join("interop/python/client.py"));
    let out = turn(&mut py, "v1");
    assert_eq!(out.first().map(String::as_str), Some("initialized: ts-bindings-agent (protocol 1)"), "{out:#?}");
    assert!(out.iter().any(|l| l == "turn ended: end_turn"), "the Python SDK's client: {out:#?}");
    let out = turn(&mut Command::new(example("client_v1")), "v1");
    assert_eq!(
        out,
        [
            "initialized: ts-bindings-agent (protocol 1)",
            "session: session-1",
            "agent: Let me look at README.md.",
            "tool call call-1: Read README.md [pending]",
            "permission: call-1 -> Allow",
            "tool call call-1: [completed]",
            "agent: README.md starts with \"# ACP bindings toolkit\".",
            "turn ended: end_turn",
        ]
    );
    let out = turn(&mut Command::new(example("client")), "v2");
    assert_eq!(
        out,
        [
            "initialized: ts-bindings-agent 0.1.0",
            "session: session-1",
            "prompt acknowledged as user-1",
            "agent: Let me look at README.md.",
            "tool call call-1: Read README.md [pending]",
            "permission: Read README.md -> Allow",
            "tool call call-1:  [completed]",
            "agent: README.md starts with \"# ACP bindings toolkit\".",
            "turn ended: end_turn",
        ]
    );
}

/// The example client (`ts/examples/client.ts`, on the package's connection layer) completes a
/// turn with the official SDKs' example agents (TypeScript v1 and v2, Python v1), the project's
/// Rust example agents and the package's own example agent.
#[test]
fn the_example_client_completes_a_turn_with_the_sdk_python_and_rust_agents() {
    let _dist = built();
    let node_agent = root().join("interop/node/agent.mjs");
    let node_agent = node_agent.to_str().unwrap();
    let ts_agent = ts().join("dist/examples/agent.js");
    let ts_agent = ts_agent.to_str().unwrap();
    let py = python();
    let py_agent = root().join("interop/python/agent.py");
    let (rust_v1, rust_v2) = (example("agent_v1"), example("agent"));
    let agents: [(&str, &str, Vec<&str>); 7] = [
        ("v1", "ts-sdk-agent", vec!["node", node_agent, "--protocol", "v1"]),
        ("v2", "ts-sdk-agent", vec!["node", node_agent, "--protocol", "v2"]),
        ("v1", "python-sdk-agent", vec![py.to_str().unwrap(), py_agent.to_str().unwrap()]),
        ("v1", "", vec![rust_v1.to_str().unwrap()]),
        ("v2", "", vec![rust_v2.to_str().unwrap()]),
        ("v1", "ts-bindings-agent", vec!["node", ts_agent, "--protocol", "v1"]),
        ("v2", "ts-bindings-agent", vec!["node", ts_agent, "--protocol", "v2"]),
    ];
    for (version, name, agent) in agents {
        let o = Command::new("node")
            .arg(ts().join("dist/examples/client.js"))
            .args(["--protocol", version])
            .args(&agent)
            .env("ACP_NODE_MODULES", ts().join("node_modules"))
            .output()
            .expect("node runs");
        assert!(o.status.success(), "{version} {agent:?}:\n{}", log(&o));
        let out: Vec<String> = String::from_utf8_lossy(&o.stdout).lines().map(str::to_owned).collect();
        let first = format!("initialized: {name}");
        assert!(out.first().is_some_and(|l| l.starts_with(&first)), "{agent:?}: {out:#?}");
        assert!(out.iter().any(|l| l.starts_with("permission: ") && l.ends_with("-> Allow")), "{agent:?}: {out:#?}");
        assert!(out.iter().any(|l| l.starts_with("tool call call-1: ") && l.ends_with("[completed]")), "{out:#?}");
        assert_eq!(out.last().map(String::as_str), Some("turn ended: end_turn"), "{agent:?}: {out:#?}");
    }
}

/// The README's TypeScript example is the text `ts/test/readme.test.ts`
/// compiles and runs (`npm test`), the package's own path in its import.
#[test]
fn the_readme_shows_the_tested_typescript_example() {
    let tested = std::fs::read_to_string(ts().join("test/readme.test.ts")).unwrap();
    // The project's README and the package's own, which npm shows.
    for readme in [root().join("README.md"), ts().join("README.md")] {
        let text = std::fs::read_to_string(&readme).unwrap();
        let blocks: Vec<&str> =
            text.split("```ts\n").skip(1).map(|rest| rest.split("```").next().unwrap_or_default()).collect();
        assert!(!blocks.is_empty(), "{} shows no TypeScript", readme.display());
        for block in blocks {
            let block = block.replace("from \"acp-bindings\"", "from \"../src/index.js\"");
            assert!(
                tested.contains(&block),
                "ts/test/readme.test.ts does not hold {}'s example:\n{block}",
                readme.display()
            );
        }
    }
}

/// What `npm pack` gives a user: the compiled runtime and tables, their
/// declarations, the README and the LICENSE, nothing else (no sources,
/// tests, benchmarks or examples).
/// Packing does not compile (the package has no `prepack`), so it never
/// rewrites `dist/` while the other tests of this binary run it.
fn packed() -> (Scratch, PathBuf, Vec<String>) {
    let _dist = built();
    let dir = scratch("pack");
    let o = Command::new("npm")
        .args(["pack", "--json", "--pack-destination"])
        .arg(&dir)
        .current_dir(ts())
        .output()
        .expect("npm runs");
    assert!(o.status.success(), "npm pack failed:\n{}", log(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("npm pack --json prints JSON");
    let files = report[0]["files"].as_array().expect("the packed files").iter();
    let files: Vec<String> = files.map(|f| f["path"].as_str().unwrap().to_owned()).collect();
    let tarball = dir.join(report[0]["filename"].as_str().expect("the tarball's name"));
    (dir, tarball, files)
}

#[test]
fn the_packed_package_holds_the_runtime_and_installs_and_type_checks_outside_the_repository() {
    let (_pack, tarball, files) = packed();
    let allowed = |f: &str| {
        ["package.json", "README.md", "LICENSE"].contains(&f)
            || (f.starts_with("dist/src/") && (f.ends_with(".js") || f.ends_with(".d.ts")))
    };
    let stray: Vec<&String> = files.iter().filter(|f| !allowed(f)).collect();
    assert!(stray.is_empty(), "the tarball holds more than the package: {stray:?}");
    for needed in
        ["dist/src/index.js", "dist/src/index.d.ts", "dist/src/unstable.js", "dist/src/cli.js", "README.md", "LICENSE"]
    {
        assert!(files.iter().any(|f| f == needed), "the tarball lacks {needed}: {files:?}");
    }
    // A project outside the repository installs the tarball alone (the package has no dependency).
    let user = scratch("consumer");
    std::fs::write(user.join("package.json"), r#"{"name":"consumer","private":true,"type":"module"}"#).unwrap();
    let o = Command::new("npm")
        .args(["install", "--offline", "--no-audit", "--no-fund"])
        .arg(&tarball)
        .current_dir(&user)
        .output()
        .expect("npm runs");
    assert!(o.status.success(), "installing the tarball failed:\n{}", log(&o));
    let line = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","title":null,"x-vendor":1}}}"#;
    let main = format!(
        "import {{ isKnown, v2 }} from \"acp-bindings\";\nimport * as unstable from \"acp-bindings/unstable\";\n\
         const m = v2.codec.decodeMessage({line:?}).value;\n\
         if (m.kind !== \"notification\" || !isKnown(m.params.update)) throw new Error(\"not decoded\");\n\
         if (typeof unstable.v2.codec.decodeMessage !== \"function\") throw new Error(\"no unstable entry point\");\n\
         process.stdout.write(v2.codec.encodeMessage(m));\n"
    );
    std::fs::write(user.join("main.mjs"), main).unwrap();
    let o = Command::new("node").arg("main.mjs").current_dir(&user).output().expect("node runs");
    assert!(o.status.success(), "the installed package does not run:\n{}", log(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), line, "written back as it came");
    // Its declarations, under each module resolution a user's project may have.
    let check = "import { isKnown, v2 } from \"acp-bindings\";\nimport type { v2 as unstableV2 } from \"acp-bindings/unstable\";\n\
                 export function title(line: string): string | null | undefined {\n\
                 const m = v2.codec.decodeMessage(line).value;\n\
                 if (m.kind === \"notification\" && m.method === \"session/update\" && isKnown(m.params.update)\n\
                 && m.params.update.sessionUpdate === \"tool_call_update\") return m.params.update.title;\n\
                 return undefined;\n}\nexport type Update = unstableV2.SessionUpdate;\n";
    std::fs::write(user.join("check.ts"), check).unwrap();
    // A misspelled member, when a value is built and when a property is read.
    let typo = "import type { v2 } from \"acp-bindings\";\n\
                export const r: v2.NewSessionResponse = { sessionId: \"s\", configOptons: [] };\n\
                export const t = (info: v2.Implementation) => info.titel;\n";
    std::fs::write(user.join("typo.ts"), typo).unwrap();
    // The oldest TypeScript the package supports (5.0, as its README says) and the one it is built with.
    for tsc in ["typescript-5.0", "typescript"].map(|d| ts().join("node_modules").join(d).join("bin/tsc")) {
        let run = |module: &str, resolution: &str, file: &str| {
            Command::new("node")
                .arg(&tsc)
                .args(["--strict", "--noEmit", "--skipLibCheck", "false", "--module", module])
                .args(["--moduleResolution", resolution, "--target", "es2022", file])
                .current_dir(&user)
                .output()
                .expect("tsc runs")
        };
        for (module, resolution) in [("node16", "node16"), ("nodenext", "nodenext"), ("esnext", "bundler")] {
            let o = run(module, resolution, "check.ts");
            assert!(
                o.status.success(),
                "{}: the declarations do not type-check under `{resolution}`:\n{}",
                tsc.display(),
                log(&o)
            );
        }
        let o = run("nodenext", "nodenext", "typo.ts");
        let out = log(&o);
        assert!(!o.status.success(), "{}: misspelled members type-check:\n{out}", tsc.display());
        assert!(out.contains("'configOptons' does not exist in type 'NewSessionResponse'"), "{out}");
        assert!(out.contains("Property 'titel' does not exist on type 'Implementation'"), "{out}");
    }
    let _ = std::fs::remove_dir_all(&user);
    let _ = std::fs::remove_dir_all(tarball.parent().unwrap());
}

/// `v` as JSON text, with the object at `target` naming its first member a
/// second time at its end (`{"a":1,"b":2,"a":1}`).
fn with_repeat(v: &Value, at: &mut Vec<Value>, target: &[Value]) -> String {
    match v {
        Value::Object(o) => {
            let mut members: Vec<String> = o
                .iter()
                .map(|(k, x)| {
                    at.push(Value::from(k.as_str()));
                    let text = format!("{}:{}", Value::from(k.as_str()), with_repeat(x, at, target));
                    at.pop();
                    text
                })
                .collect();
            if at.as_slice() == target {
                if let Some(first) = members.first().cloned() {
                    members.push(first);
                }
            }
            format!("{{{}}}", members.join(","))
        }
        Value::Array(a) => {
            let items: Vec<String> = a
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    at.push(Value::from(i));
                    let text = with_repeat(x, at, target);
                    at.pop();
                    text
                })
                .collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// Every corpus message with each of its objects repeating a member name:
/// both refuse it with the same message (an error of the whole message,
/// inside lenient members too). The pointers are not compared: the crate's
/// can land inside a key where its reader had a slice of the text. Like the
/// other bulk groups, run by one Node process ([`node_batched`]).
#[test]
fn repeated_member_names_are_refused_alike() {
    let dir = scratch("repeated");
    let mut n = 0;
    for ((version, type_name), inputs) in corpus() {
        let mut text = String::new();
        for input in &inputs {
            let mut all = Vec::new();
            paths(input, &mut Vec::new(), &mut all);
            for path in all.iter().filter(|p| mutated(input, p, None) != *input || p.is_empty()) {
                let object = path.iter().try_fold(input, |v, k| match k {
                    Value::String(k) => v.get(k.as_str()),
                    _ => v.get(k.as_u64().unwrap() as usize),
                });
                if object.is_some_and(|o| o.as_object().is_some_and(|o| !o.is_empty())) {
                    text.push_str(&with_repeat(input, &mut Vec::new(), path));
                    text.push('\n');
                    n += 1;
                }
            }
        }
        let path = dir.join(format!("{version}-{type_name}.jsonl"));
        std::fs::write(&path, text).unwrap();
        let mut args = vec!["check-messages", "--protocol", version.as_str(), "--type", type_name.as_str()];
        args.extend(unstable());
        args.push(path.to_str().unwrap());
        let (rust, node) = both(&args, node_batched);
        let message =
            |l: &String| l.strip_prefix("rejected at ").and_then(|r| r.split_once(": ")).map(|(_, m)| m.to_owned());
        for (t, r) in verdicts(&node).iter().zip(verdicts(&rust)) {
            assert_eq!(message(t), message(&r), "{version} {type_name}:\n  TypeScript: {t}\n  acp-tools:  {r}");
            assert!(t.starts_with("rejected"), "{t}");
        }
    }
    assert!(n > 300, "only {n} messages");
}
