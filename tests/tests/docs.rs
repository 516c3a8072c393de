//! The commands the documentation shows, run as written.
//!
//! Every line of a `sh` block in `README.md`, `docs/*.md` and
//! `interop/README.md` is a command. A command is either run here, through
//! `sh` in a scratch directory inside the workspace holding the files it
//! names (so `cargo xtask ...` finds the workspace's own binaries), with its
//! exit code and its output (normalised: paths, times) checked against a
//! snapshot; or it carries a tag in its comment saying why a test cannot run
//! it:
//!
//! - `[network]`: it needs the npm registry or PyPI;
//! - `[nightly]`: it needs the nightly toolchain;
//! - `[long]`: a release build and a measurement or a long run (minutes);
//! - `[installs]`: it changes the machine (`cargo install`);
//! - `[your program]`: it starts a program of yours (`my-v1-agent`);
//! - `[the tests]`: it is this test run (`cargo test --workspace`);
//! - `[python]`: it runs in the Python package's environment, so
//!   `tools/tests/it/python.rs` runs it there (with the exit code its comment
//!   says, `exit N`, or 0).
//!
//! A command with neither a case here nor a tag fails the test, and so does
//! a case whose command no document shows any more.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tags that say why a documented command is not run here.
const TAGS: &[&str] = &["[network]", "[nightly]", "[long]", "[installs]", "[your program]", "[the tests]", "[python]"];

/// Where a case runs.
#[derive(Clone, Copy)]
enum Dir {
    /// The repository root (the command names files of the checkout).
    Root,
    /// A scratch directory of its own under `target/doc-commands/`, with
    /// the files listed (name in the scratch directory, path in the repository).
    Scratch(&'static [(&'static str, &'static str)]),
}

/// A documented command and how it is run.
struct Case {
    /// The command, as the document shows it (without its comment).
    command: &'static str,
    dir: Dir,
    /// The exit code it must end with.
    status: i32,
    /// Files the command must have written (relative to its directory).
    writes: &'static [&'static str],
}

const V2_TRACE: (&str, &str) = ("trace.jsonl", "tests/traces/v2-prompt-turn.jsonl");
const V1_TRACE: (&str, &str) = ("trace.jsonl", "tests/traces/v1-tool-call.jsonl");

const CASES: &[Case] = &[
    Case { command: "cargo xtask codegen", dir: Dir::Root, status: 0, writes: &[] },
    Case { command: "cargo xtask codegen --check", dir: Dir::Root, status: 0, writes: &[] },
    Case { command: "acp-tools diff git:main:schema schema --fail-on breaking", dir: Dir::Root, status: 0, writes: &[] },
    Case {
        command: "cd ts && npm ci --no-audit --no-fund --silent && npm run --silent build",
        dir: Dir::Root,
        status: 0,
        writes: &["ts/dist/src/cli.js"],
    },
    Case {
        command: "node ts/dist/src/cli.js check-messages --protocol v1 tests/traces/v1-tool-call.jsonl",
        dir: Dir::Root,
        status: 0,
        writes: &[],
    },
    Case {
        command: "node ts/dist/src/cli.js replay --protocol v2 tests/traces/v2-rfd-chunks.jsonl",
        dir: Dir::Root,
        status: 1,
        writes: &[],
    },
    Case {
        command: "node ts/dist/src/cli.js check-messages --protocol v2 tests/traces/v2-prompt-turn.jsonl",
        dir: Dir::Root,
        status: 1,
        writes: &[],
    },
    Case { command: "cargo xtask ir v2 ToolCallUpdate", dir: Dir::Root, status: 0, writes: &[] },
    Case { command: "cargo xtask ir v1 --unstable", dir: Dir::Root, status: 0, writes: &[] },
    Case {
        command: "cargo xtask ir --schema ../preview v2",
        // `../preview` is a copy of the layout of `schema/` beside the scratch directory.
        dir: Dir::Scratch(&[
            ("../preview/v2/schema.json", "schema/v2/schema.json"),
            ("../preview/v2/schema.unstable.json", "schema/v2/schema.unstable.json"),
        ]),
        status: 0,
        writes: &[],
    },
    Case { command: "cargo xtask ir --plan v2 ToolCallUpdate", dir: Dir::Root, status: 0, writes: &[] },
    Case {
        command: "cargo xtask codegen --schema my_types.schema.json --out src/generated",
        dir: Dir::Scratch(&[("my_types.schema.json", "schema/fixtures/serde_types.json")]),
        status: 0,
        writes: &["src/generated/my_types_schema.rs"],
    },
    Case {
        command: "cargo xtask replay --protocol v2 trace.jsonl",
        dir: Dir::Scratch(&[("trace.jsonl", "tests/traces/v2-rfd-chunks.jsonl")]),
        // The trace holds an update without its key, which is rejected.
        status: 1,
        writes: &[],
    },
    Case {
        command: "cargo xtask replay --protocol v2 --compact trace.jsonl",
        dir: Dir::Scratch(&[("trace.jsonl", "tests/traces/v2-rfd-chunks.jsonl")]),
        // The same rejected line; the stream of the rest.
        status: 1,
        writes: &[],
    },
    Case {
        command: "cargo xtask convert --from v1 --to v2 trace.jsonl > v2.jsonl",
        dir: Dir::Scratch(&[V1_TRACE]),
        status: 0,
        writes: &["v2.jsonl"],
    },
    Case {
        command: "cargo xtask convert --from v2 --to v1 --strict --losses-json losses.json trace.jsonl",
        dir: Dir::Scratch(&[V2_TRACE]),
        status: 1,
        writes: &["losses.json"],
    },
    Case {
        command: "cargo build -p acp-bindings -p acp-tools --examples --bins",
        dir: Dir::Root,
        status: 0,
        writes: &[],
    },
    Case {
        command: "ACP_NODE_MODULES=ts/node_modules node interop/node/client.mjs --protocol v2 node ts/dist/examples/agent.js --protocol v2",
        dir: Dir::Root,
        status: 0,
        writes: &[],
    },
    Case {
        command: "target/debug/examples/client_v1 node ts/dist/examples/agent.js --protocol v1",
        dir: Dir::Root,
        status: 0,
        writes: &[],
    },
    Case {
        command: "node ts/dist/examples/client.js --protocol v2 node ts/dist/examples/agent.js --protocol v2",
        dir: Dir::Root,
        status: 0,
        writes: &[],
    },
    Case {
        command: "target/debug/examples/client target/debug/acp-bridge --client v2 --agent v1 -- target/debug/examples/agent_v1",
        dir: Dir::Root,
        status: 0,
        writes: &[],
    },
    Case {
        command: "target/debug/examples/client_v1 target/debug/acp-bridge --client v1 --agent v2 -- target/debug/examples/agent",
        dir: Dir::Root,
        status: 0,
        writes: &[],
    },
    Case { command: "cargo xtask diff schema/releases/2.3.0 schema", dir: Dir::Root, status: 0, writes: &[] },
    Case {
        command: "cargo xtask diff old/v2/schema.json new/v2/schema.json --format json --fail-on breaking",
        dir: Dir::Scratch(&[
            ("old/v2/schema.json", "schema/releases/2.0.0/v2/schema.json"),
            ("new/v2/schema.json", "schema/v2/schema.json"),
        ]),
        status: 1,
        writes: &[],
    },
    Case { command: "cargo xtask diff git:main schema --fail-on rust-breaking", dir: Dir::Root, status: 0, writes: &[] },
    Case {
        command: "cargo xtask diff old.json new.json --protocol v2",
        dir: Dir::Scratch(&[("old.json", "schema/releases/2.2.0/v2/schema.json"), ("new.json", "schema/v2/schema.json")]),
        status: 0,
        writes: &[],
    },
    Case {
        command: "cargo xtask check-messages --protocol v2 trace.jsonl more.json",
        dir: Dir::Scratch(&[V2_TRACE, ("more.json", "tests/docs/more.json")]),
        // The trace holds lines that must be rejected (see tests/traces).
        status: 1,
        writes: &[],
    },
    Case {
        command: "cargo xtask check-messages --protocol v2 --method session/prompt response.json",
        dir: Dir::Scratch(&[("response.json", "tests/docs/response.json")]),
        status: 0,
        writes: &[],
    },
    Case {
        command: "cargo xtask check-messages --protocol v2 --type ContentBlock block.json",
        dir: Dir::Scratch(&[("block.json", "tests/docs/block.json")]),
        status: 0,
        writes: &[],
    },
    Case {
        command: "cargo xtask check-messages --protocol v2 --unstable trace.jsonl",
        dir: Dir::Scratch(&[V2_TRACE]),
        // The trace holds lines that must be rejected (see tests/traces).
        status: 1,
        writes: &[],
    },
    Case { command: "cargo xtask fuzz --list", dir: Dir::Root, status: 0, writes: &[] },
    Case { command: "cargo xtask fuzz --seeds", dir: Dir::Root, status: 0, writes: &["fuzz/corpus/acp.dict"] },
    Case { command: "git diff schema/ generated/", dir: Dir::Root, status: 0, writes: &[] },
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A command of a document: its text (comment removed, continuation lines
/// joined) and its comment.
#[derive(Debug)]
struct Shown {
    file: String,
    line: usize,
    command: String,
    comment: String,
}

/// The `#` that starts a comment: outside quotes, at the start or after a blank.
fn comment_start(line: &str) -> Option<usize> {
    let (mut quote, mut prev) = (None::<char>, ' ');
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev.is_whitespace() => return Some(i),
            _ => {}
        }
        prev = c;
    }
    None
}

/// The commands of every `sh` block of `text`.
fn commands_in(file: &str, text: &str) -> Vec<Shown> {
    let mut out = Vec::new();
    let (mut in_sh, mut pending): (bool, Option<Shown>) = (false, None);
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        if let Some(lang) = fence {
            in_sh = !in_sh && matches!(lang.trim(), "sh" | "bash" | "shell" | "console");
            continue;
        }
        if !in_sh {
            continue;
        }
        let (code, comment) = match comment_start(line) {
            Some(c) => (&line[..c], line[c..].trim_start_matches('#').trim()),
            None => (line, ""),
        };
        let code = code.trim();
        let Some(mut shown) = pending.take() else {
            if code.is_empty() {
                continue;
            }
            let shown =
                Shown { file: file.to_owned(), line: i + 1, command: String::new(), comment: comment.to_owned() };
            pending = Some(shown);
            push_code(&mut pending, &mut out, code);
            continue;
        };
        if shown.comment.is_empty() {
            shown.comment = comment.to_owned();
        }
        pending = Some(shown);
        push_code(&mut pending, &mut out, code);
    }
    out
}

/// Adds a line's code to the pending command; a command not continued with
/// `\` is complete.
fn push_code(pending: &mut Option<Shown>, out: &mut Vec<Shown>, code: &str) {
    let shown = pending.as_mut().expect("a pending command");
    let (code, continued) = match code.strip_suffix('\\') {
        Some(c) => (c.trim_end(), true),
        None => (code, false),
    };
    if !shown.command.is_empty() {
        shown.command.push(' ');
    }
    shown.command.push_str(code);
    if !continued {
        out.push(pending.take().expect("a pending command"));
    }
}

fn documents() -> Vec<(String, String)> {
    let root = root();
    let mut files = vec![root.join("README.md"), root.join("interop/README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap().display().to_string();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

fn shown_commands() -> Vec<Shown> {
    documents().iter().flat_map(|(file, text)| commands_in(file, text)).collect()
}

#[test]
fn the_command_reader_joins_continuations_and_reads_tags() {
    let text =
        "x\n```sh\na b   # [network] why\n\nc \\\n  d # e\n# only a comment\n```\n```rust\nnot = a_command;\n```\n";
    let got: Vec<(String, String)> = commands_in("f", text).into_iter().map(|s| (s.command, s.comment)).collect();
    let want: Vec<(String, String)> = vec![("a b".into(), "[network] why".into()), ("c d".into(), "e".into())];
    assert_eq!(got, want);
    assert_eq!(comment_start("echo '#' \"a # b\" # c"), Some(17));
}

#[test]
fn every_documented_command_is_run_here_or_tagged() {
    let cases: BTreeMap<&str, &Case> = CASES.iter().map(|c| (c.command, c)).collect();
    let shown = shown_commands();
    let mut problems = Vec::new();
    for s in &shown {
        let tagged = TAGS.iter().any(|t| s.comment.starts_with(t));
        match (cases.contains_key(s.command.as_str()), tagged) {
            (true, true) => problems.push(format!("{}:{}: `{}` is tagged and run", s.file, s.line, s.command)),
            (false, false) => problems.push(format!(
                "{}:{}: `{}` is neither run by tests/tests/docs.rs nor tagged with one of {TAGS:?}",
                s.file, s.line, s.command
            )),
            _ => {}
        }
    }
    for c in CASES {
        if !shown.iter().any(|s| s.command == c.command) {
            problems.push(format!("`{}` has a case but no document shows it", c.command));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The scratch directory of case `i`, with its files.
fn scratch(i: usize, files: &[(&str, &str)]) -> PathBuf {
    let base = root().join("target/doc-commands");
    let dir = base.join(format!("case-{i:02}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, from) in files {
        let to = dir.join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root().join(from), &to).unwrap_or_else(|e| panic!("{from}: {e}"));
    }
    dir
}

/// The output with what changes from run to run or machine to machine
/// replaced: the repository's path, durations.
fn normalise(text: &str, root: &Path, cwd: &Path) -> String {
    let mut out = text.replace(&cwd.display().to_string(), "[CWD]").replace(&root.display().to_string(), "[ROOT]");
    let re = regex_lite::Regex::new(r"\b\d+(\.\d+)? ?(ms|s)\b").unwrap();
    out = re.replace_all(&out, "[TIME]").into_owned();
    out
}

/// At most the first 40 lines of `text`, and how many there were.
fn head(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 40 {
        return text.to_owned();
    }
    format!("{}\n[... {} lines in all]\n", lines[..40].join("\n"), lines.len())
}

/// Whether a case is the TypeScript package's alone: its `npm` build in
/// `ts/` and the commands that run what that build wrote with `node` and
/// nothing of cargo's. Those run in their order on a thread of their own,
/// beside the cargo cases (the build, about 15 s, is mostly one core's
/// work); a case that also needs that build (a Rust example talking to the
/// TypeScript one) waits for them.
fn typescript_only(command: &str) -> bool {
    command.starts_with("cd ts ") || command.starts_with("node ts/")
}

/// Runs every case and checks each: the cargo cases in turn (they share the
/// workspace's target directory, so running them at once would only wait on
/// cargo's lock), the TypeScript package's beside them ([`typescript_only`]).
#[test]
fn documented_commands_work_as_shown() {
    let root = root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let cargo_dir = Path::new(&cargo).parent().map(Path::to_path_buf).unwrap_or_default();
    // `acp-tools` as `cargo install --path tools` puts it on the PATH: the
    // workspace's build of it.
    let path = std::env::join_paths(
        [cargo_dir, root.join("target/debug")]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let generated_before = generated_files(&root);
    let cases: Vec<(usize, &Case)> = CASES.iter().enumerate().collect();
    let (typescript, rest): (Vec<_>, Vec<_>) = cases.into_iter().partition(|(_, c)| typescript_only(c.command));
    let failures = std::thread::scope(|scope| {
        let typescript = scope
            .spawn(|| -> Vec<String> { typescript.iter().flat_map(|&(i, c)| run_case(i, c, &root, &path)).collect() });
        let mut typescript = Some(typescript);
        let mut failures: Vec<String> = Vec::new();
        for (i, case) in rest {
            if case.command.contains("ts/") {
                if let Some(t) = typescript.take() {
                    failures.extend(t.join().expect("the TypeScript cases' thread"));
                }
            }
            failures.extend(run_case(i, case, &root, &path));
        }
        if let Some(t) = typescript {
            failures.extend(t.join().expect("the TypeScript cases' thread"));
        }
        failures
    });
    // The README's first command regenerates the committed files: it must
    // find nothing to change.
    assert_eq!(generated_before, generated_files(&root), "`cargo xtask codegen` changed the committed generated files");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs case `i` and checks its exit code, the files it writes and its
/// output against the snapshot: what differs, one text each.
fn run_case(i: usize, case: &Case, root: &Path, path: &std::ffi::OsStr) -> Vec<String> {
    let mut failures = Vec::new();
    // A copy of the sources that is not a git checkout (a crate
    // package, say) has no history to diff against.
    if (case.command.starts_with("git ") || case.command.contains("git:")) && !has_main(root) {
        return failures;
    }
    let cwd = match case.dir {
        Dir::Root => root.to_path_buf(),
        Dir::Scratch(files) => scratch(i, files),
    };
    let t0 = std::time::Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(case.command)
        .current_dir(&cwd)
        .env("PATH", path)
        .env_remove("CARGO_MAKEFLAGS")
        // The contributor's own `CARGO_INCREMENTAL` reaches the commands, as it
        // does when they type them: cargo hashes it into every workspace
        // crate's build, so with another value than the test build's the
        // commands would build `xtask`, `acp-tools` and what is between them
        // again instead of reusing the test build's (`cargo xtask` shares the
        // test build's crates; see hack/Cargo.toml and `forward` in xtask).
        .output()
        .expect("sh runs");
    eprintln!("{:>6.1} s  {}", t0.elapsed().as_secs_f64(), case.command);
    let status = out.status.code().unwrap_or(-1);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if status != case.status {
        failures.push(format!(
            "`{}` exited with {status}, the docs expect {}\nstdout:\n{}\nstderr:\n{}",
            case.command,
            case.status,
            head(&stdout),
            head(&stderr)
        ));
        return failures;
    }
    for w in case.writes {
        if !cwd.join(w).exists() {
            failures.push(format!("`{}` did not write {w}", case.command));
        }
    }
    if case.command.starts_with("git ") || case.command.starts_with("cargo build") {
        return failures;
    }
    let transcript = format!(
        "$ {}\nexit: {status}\n--- stdout\n{}--- stderr\n{}",
        case.command,
        head(&normalise(&stdout, root, &cwd)),
        head(&normalise(&stderr, root, &cwd))
    );
    let name = slug(case.command);
    let r = std::panic::catch_unwind(|| insta::assert_snapshot!(name.clone(), transcript));
    if r.is_err() {
        failures.push(format!("`{}`: its output differs from the snapshot {name}", case.command));
    }
    failures
}

/// Whether `root` is a git checkout with a branch `main`.
fn has_main(root: &Path) -> bool {
    Command::new("git")
        .args(["rev-parse", "--verify", "--quiet", "main"])
        .current_dir(root)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A snapshot name for a command: its words, lowercase, joined by `-`.
fn slug(command: &str) -> String {
    let words: Vec<String> = command
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let mut s = words.join("-");
    s.truncate(80);
    s
}

/// The generated files and their bytes.
fn generated_files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for dir in ["generated/src/v1", "generated/src/v2", "convert/src", "tests/generated", "tools/src"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "rs") {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}
