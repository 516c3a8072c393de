//! The Python package (`python/`): built into a virtual environment of its
//! pinned development dependencies (`python/requirements-dev.txt`, in
//! `target/python/venv`, made again when that file changes), where its tests
//! run (`pytest`; also with the oldest msgspec it allows, from
//! `python/requirements-min.txt`), mypy checks it strictly and ruff lints it (and checks the
//! hand-written files' format); and its wheel, installed into a fresh virtual
//! environment outside the repository, runs the README's example; and its
//! CLI (`python -m acp_bindings`) gives the lines and exit codes of
//! `acp-tools` and of the TypeScript CLI on the corpus, the traces and their
//! mutations (`python/tests/differential.py`).
//!
//! CPython 3.11 or later with `venv` and pip is needed, and PyPI for the
//! pinned packages.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn package() -> PathBuf {
    root().join("python")
}

fn log(o: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn run(what: &str, command: &mut Command) -> Output {
    let o = command.output().unwrap_or_else(|e| panic!("{what} runs: {e}"));
    assert!(o.status.success(), "{what} failed:\n{}", log(&o));
    o
}

/// A virtual environment at `dir` with `requirements` installed.
fn venv(dir: &Path, requirements: &[&str]) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    run("python3 -m venv", Command::new("python3").args(["-m", "venv"]).arg(dir));
    let python = dir.join("bin/python");
    run(
        "pip install",
        Command::new(&python)
            .args(["-m", "pip", "install", "-q", "--no-cache-dir", "--disable-pip-version-check"])
            .args(requirements),
    );
    python
}

/// The development environment, with the package built and installed from
/// `python/` (not editable: the tests use what a user installs), once per run.
fn python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| environment("venv", "requirements-dev.txt")).clone()
}

/// A virtual environment `target/python/<name>` of the pinned `requirements`
/// (made again when that file changes), with the package installed from `python/`.
fn environment(name: &str, requirements: &str) -> PathBuf {
    let dir = root().join("target/python").join(name);
    let requirements = package().join(requirements);
    let pins = std::fs::read_to_string(&requirements).unwrap();
    let stamp = dir.join("requirements.txt");
    let python = if std::fs::read_to_string(&stamp).ok().as_ref() == Some(&pins) {
        dir.join("bin/python")
    } else {
        let python = venv(&dir, &["-r", requirements.to_str().unwrap()]);
        std::fs::write(&stamp, &pins).unwrap();
        python
    };
    let pip = ["-m", "pip", "install", "-q", "--no-cache-dir", "--disable-pip-version-check", "--no-build-isolation"];
    run("pip install python/", Command::new(&python).args(pip).args(["--no-deps", "--force-reinstall"]).arg(package()));
    python
}

/// Runs a tool of the development environment in `python/`, its caches under `target/python`.
fn tool(args: &[&str]) -> Output {
    let python = python();
    let mut c = Command::new(&python);
    c.args(args).current_dir(package()).env("RUFF_CACHE_DIR", root().join("target/python/ruff-cache"));
    run(&args.join(" "), &mut c)
}

#[test]
fn the_package_passes_its_tests() {
    let o = tool(&["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(" passed"), "{out}");
}

/// The development environment with msgspec at the version
/// `python/requirements-min.txt` pins, made once (again when that file or
/// the development environment changes): `target/python/venv-min`, a
/// virtual environment without pip whose own `site-packages` holds that
/// msgspec alone and names the development environment's `site-packages`
/// after it (a `.pth` file), so that its `import msgspec` finds the pinned
/// version and every other import (the package, pytest and the rest) finds
/// the development environment's copy. Installing the same pins a second
/// time took 16.5 s (15.9 s of CPU) on a two-core machine.
fn oldest_msgspec_environment() -> PathBuf {
    let dev = python();
    let dir = root().join("target/python/venv-min");
    let pins = std::fs::read_to_string(package().join("requirements-min.txt")).unwrap();
    let dev_pins = std::fs::read_to_string(package().join("requirements-dev.txt")).unwrap();
    let stamp = dir.join("requirements.txt");
    let made = format!("{pins}\n# over requirements-dev.txt:\n{dev_pins}");
    let python = dir.join("bin/python");
    if std::fs::read_to_string(&stamp).ok().as_ref() == Some(&made) {
        return python;
    }
    let _ = std::fs::remove_dir_all(&dir);
    run("python3 -m venv --without-pip", Command::new("python3").args(["-m", "venv", "--without-pip"]).arg(&dir));
    let purelib = |python: &Path| {
        let o = run(
            "sysconfig",
            Command::new(python).args(["-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]),
        );
        PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
    };
    let (own, shared) = (purelib(&python), purelib(&dev));
    std::fs::write(own.join("acp-development-environment.pth"), format!("{}\n", shared.display())).unwrap();
    run(
        "pip install --target (oldest msgspec)",
        Command::new(&dev)
            .args(["-m", "pip", "install", "-q", "--no-cache-dir", "--disable-pip-version-check", "--no-deps"])
            .arg("--target")
            .arg(&own)
            .arg("-r")
            .arg(package().join("requirements-min.txt")),
    );
    std::fs::write(&stamp, &made).unwrap();
    python
}

/// The package's tests with the oldest msgspec `pyproject.toml` allows
/// (pinned in `python/requirements-min.txt`), over the development
/// environment's other packages ([`oldest_msgspec_environment`]).
#[test]
fn the_package_passes_its_tests_with_the_oldest_msgspec_it_allows() {
    let python = oldest_msgspec_environment();
    let pins = std::fs::read_to_string(package().join("requirements-min.txt")).unwrap();
    let pyproject = std::fs::read_to_string(package().join("pyproject.toml")).unwrap();
    let lowest =
        pyproject.split("\"msgspec>=").nth(1).and_then(|r| r.split('"').next()).expect("a msgspec lower bound");
    let pinned = pins
        .lines()
        .find_map(|l| l.strip_prefix("msgspec=="))
        .filter(|v| v.starts_with(lowest))
        .unwrap_or_else(|| panic!("requirements-min.txt pins msgspec {lowest}"));
    // The environment imports that msgspec, from its own directory, and the
    // package from the development environment.
    let o = run(
        "python (oldest msgspec)",
        Command::new(&python).args([
            "-c",
            "import msgspec, acp_bindings, sys; print(msgspec.__version__); print(msgspec.__file__.startswith(sys.prefix))",
        ]),
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), format!("{pinned}\nTrue\n"));
    let o = run(
        "pytest (oldest msgspec)",
        Command::new(&python).args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]).current_dir(package()),
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(" passed"), "{out}");
}

#[test]
fn the_package_passes_mypy_strict_and_ruff() {
    let cache = root().join("target/python/mypy-cache");
    tool(&["-m", "mypy", "--cache-dir", cache.to_str().unwrap()]);
    tool(&["-m", "ruff", "check", "."]);
    tool(&["-m", "ruff", "format", "--check", "."]);
}

#[test]
fn the_wheel_installs_outside_the_repository_and_its_readme_example_runs() {
    let python = python();
    let scratch = std::env::temp_dir().join(format!("acp-python-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    run(
        "pip wheel python/",
        Command::new(&python)
            .args(["-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-build-isolation", "--no-deps"])
            .arg(package())
            .arg("-w")
            .arg(&scratch),
    );
    let wheel = std::fs::read_dir(&scratch)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("a wheel");
    // The wheel holds the package and its metadata, nothing of the tests.
    let listing = run("the wheel's listing", Command::new(&python).args(["-m", "zipfile", "-l"]).arg(&wheel));
    let listing = String::from_utf8_lossy(&listing.stdout);
    for file in ["acp_bindings/v2.py", "acp_bindings/unstable/v1.py", "acp_bindings/py.typed", "LICENSE"] {
        assert!(listing.contains(file), "{file} is not in the wheel:\n{listing}");
    }
    assert!(!listing.contains("tests/"), "the wheel holds tests:\n{listing}");
    // A user's environment: the wheel and what it depends on, from PyPI.
    let user = venv(&scratch.join("venv"), &[wheel.to_str().unwrap()]);
    let readme = std::fs::read_to_string(package().join("README.md")).unwrap();
    let examples: Vec<&str> = readme.split("```python\n").skip(1).filter_map(|r| r.split("```").next()).collect();
    assert!(examples.len() >= 3, "the package's README has {} Python examples", examples.len());
    for example in examples {
        run("the README's example", Command::new(&user).args(["-c", example]).current_dir(&scratch));
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// `acp_bindings.parse` refuses broken JSON exactly where the crate's reader
/// does, in its words, line and column ([`common::broken_lines`]), through
/// `acp-tools check-messages` (its `malformed JSON:` lines) and the package,
/// line for line.
#[test]
fn the_reader_refuses_broken_json_as_the_crate_does() {
    let python = python();
    let lines = common::broken_lines(&root());
    assert!(lines.len() > 5_000, "only {} lines", lines.len());
    let dir = root().join("target/python");
    let file = dir.join("broken.jsonl");
    std::fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let crate_out = Command::new(env!("CARGO_BIN_EXE_acp-tools"))
        .args(["check-messages", "--protocol", "v2", "--type", "ContentBlock"])
        .arg(&file)
        .output()
        .expect("acp-tools runs");
    let theirs: Vec<Option<String>> = String::from_utf8_lossy(&crate_out.stdout)
        .lines()
        .filter(|l| l.contains(".jsonl:"))
        .map(|l| l.split_once("malformed JSON: ").map(|(_, m)| m.to_owned()))
        .collect();
    let script = "import sys\nfrom acp_bindings import DecodeError, parse\n\
                  for line in open(sys.argv[1], encoding='utf-8').read().split('\\n')[:-1]:\n\
                  \x20   try:\n\
                  \x20       parse(line, duplicates='last')\n\
                  \x20       print('-')\n\
                  \x20   except DecodeError as e:\n\
                  \x20       print(e.message if e.syntax else '-')\n";
    let o = run("the package's reader", Command::new(&python).args(["-c", script]).arg(&file));
    let ours: Vec<Option<String>> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| (l != "-").then(|| l.to_owned())).collect();
    assert_eq!(ours.len(), lines.len());
    assert_eq!(theirs.len(), lines.len(), "{}", log(&crate_out));
    let mut malformed = 0;
    for (i, (o, t)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(o, t, "line {}: {:?}", i + 1, lines[i]);
        malformed += usize::from(t.is_some());
    }
    assert!(malformed > 4_000, "only {malformed} broken lines");
}

/// `python -m acp_bindings check-messages|replay` against `acp-tools` and the
/// TypeScript CLI (`python/tests/differential.py`, which says what it
/// compares): every corpus group, trace and replay, the errors of use, every
/// corpus and trace message with each property mutated, the broken JSON,
/// the repeated names and traces as bytes (line ends, malformed UTF-8); in
/// the crate's wording, and in the package's own against the TypeScript
/// package's.
#[test]
fn the_cli_gives_the_lines_of_acp_tools_and_of_the_typescript_cli() {
    // The Python environment (pip) and the TypeScript build (npm, tsc) are
    // each mostly one core's work: on a fresh checkout they are made side by
    // side (this test is the first to need either, by name).
    let python = std::thread::scope(|s| {
        s.spawn(|| drop(common::ts_built(&root())));
        python()
    });
    let _dist = common::ts_built(&root());
    let mut c = Command::new(&python);
    c.arg(package().join("tests/differential.py")).arg("--tools").arg(env!("CARGO_BIN_EXE_acp-tools"));
    if cfg!(feature = "unstable") {
        c.arg("--tools-unstable");
    }
    let o = run("tests/differential.py", c.current_dir(package()));
    let out = String::from_utf8_lossy(&o.stdout);
    eprintln!("{out}");
    // Each part compared something, against both CLIs.
    let parts = [
        "corpus",
        "traces",
        "mutated corpus",
        "mutated traces",
        "broken JSON",
        "repeated names",
        "line ends and bytes",
    ];
    for part in parts {
        for against in ["", " (acp-tools)"] {
            let line = out
                .lines()
                .find(|l| l.starts_with(&format!("{part}{against}: ")))
                .unwrap_or_else(|| panic!("no {part}{against}:\n{out}"));
            assert!(!line.contains(" 0 lines compared") && line.ends_with(" 0 differences"), "{line}");
        }
    }
}

/// The commands the documentation shows tagged `# [python]` (in `sh` blocks of
/// `README.md` and `docs/*.md`), run from the repository's root with the
/// package's environment first on `PATH` (so `python` is its Python): each
/// ends with the exit code its comment says (`exit N`), else 0, and prints
/// something. (`tests/tests/docs.rs` requires every other command to be run
/// there or tagged.)
#[test]
fn the_documented_python_commands_run() {
    let python = python();
    let bin = python.parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut docs = vec![root().join("README.md")];
    docs.extend(
        std::fs::read_dir(root().join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    let mut ran = 0;
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap();
        let mut in_sh = false;
        for line in text.lines() {
            if line.starts_with("```") {
                in_sh = line == "```sh";
                continue;
            }
            let Some((command, comment)) = line.split_once("# [python]").filter(|_| in_sh) else { continue };
            let want: i32 = comment
                .split_once("exit ")
                .and_then(|(_, r)| r.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
                .unwrap_or(0);
            let o = Command::new("sh")
                .args(["-c", command.trim()])
                .current_dir(root())
                .env("PATH", &path)
                .output()
                .expect("sh runs");
            let what = format!("{}: `{}`", doc.display(), command.trim());
            assert_eq!(o.status.code(), Some(want), "{what}:\n{}", log(&o));
            assert!(!o.stdout.is_empty() || !o.stderr.is_empty(), "{what} printed nothing");
            ran += 1;
        }
    }
    assert!(ran >= 3, "only {ran} documented Python commands");
}

/// What a client printed of a turn with the example agent (`python/examples/agent.py
/// --protocol VERSION`, run by the package's environment), which must end it with exit 0.
fn turn(client: &mut Command, version: &str) -> Vec<String> {
    let python = python();
    let o = client
        .arg(&python)
        .arg(package().join("examples/agent.py"))
        .args(["--protocol", version])
        .env("ACP_NODE_MODULES", root().join("ts/node_modules"))
        .output()
        .expect("the client runs");
    assert!(o.status.success(), "{version}: {}", log(&o));
    String::from_utf8_lossy(&o.stdout).lines().map(str::to_owned).collect()
}

/// The example agent (`python/examples/agent.py`, on the package's `Connection`) completes a
/// prompt turn with a tool call and a permission request against the official TypeScript SDK's
/// client (v1 and v2), the official Python SDK's client (v1; the SDK has no v2) and the Rust
/// example clients (v1 and v2).
#[test]
fn the_example_agent_completes_a_turn_with_the_sdk_and_rust_clients() {
    let _dist = common::ts_built(&root());
    let mut runs: Vec<(&str, &str, Command)> = Vec::new();
    for version in ["v1", "v2"] {
        let mut node = Command::new("node");
        node.arg(root().join("interop/node/client.mjs")).args(["--protocol", version]);
        runs.push(("the TypeScript SDK's client", version, node));
    }
    let mut py = Command::new(python());
    py.arg(root().join("interop/python/client.py"));
    runs.push(("the Python SDK's client", "v1", py));
    runs.push(("the Rust client", "v1", Command::new(common::example("client_v1"))));
    runs.push(("the Rust client", "v2", Command::new(common::example("client"))));
    for (who, version, mut client) in runs {
        let out = turn(&mut client, version);
        let what = format!("{who}, {version}: {out:#?}");
        assert!(out.first().is_some_and(|l| l.starts_with("initialized: py-bindings-agent")), "{what}");
        for line in [
            "agent: Let me look at README.md.",
            "tool call call-1: Read README.md [pending]",
            "agent: README.md starts with \"# ACP bindings toolkit\".",
            "turn ended: end_turn",
        ] {
            assert!(out.iter().any(|l| l == line), "no `{line}`: {what}");
        }
        assert!(out.iter().any(|l| l.starts_with("permission: ") && l.ends_with("-> Allow")), "{what}");
        assert!(out.iter().any(|l| l.starts_with("tool call call-1: ") && l.ends_with("[completed]")), "{what}");
    }
}
