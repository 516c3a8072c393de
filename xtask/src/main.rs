//! `cargo xtask`: the maintainer command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use xtask::generate::{self, Layout};
use xtask::pull::{self, Source};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Generator and maintainer tools for the ACP Rust bindings")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate the v1 and v2 bindings (and the fixture outputs) from the schema.
    Codegen {
        /// Write nothing; exit 1 and name the stale files if the committed output differs.
        #[arg(long)]
        check: bool,
        /// Read schemas from this directory (same layout as `schema/`), or this one
        /// schema file (its `$defs`, any layout: a file schemars wrote, say); no lock check.
        #[arg(long, requires = "out")]
        schema: Option<PathBuf>,
        /// Write `v1/mod.rs` and `v2/mod.rs` into this directory (for a schema file:
        /// `{file stem}.rs`, a module that builds on the `acp-bindings-runtime` crate alone).
        #[arg(long, requires = "schema")]
        out: Option<PathBuf>,
        /// The upsert configuration of a `--schema` preview (default: the project's
        /// reviewed `schema/upserts.json`); an entry that does not fit the previewed
        /// schema is a warning and is left out.
        #[arg(long, requires = "schema")]
        upserts: Option<PathBuf>,
        /// A `--schema` preview only: a definition the generator does not understand
        /// becomes `serde_json::Value` with a warning, instead of an error.
        #[arg(long, requires = "schema")]
        lenient: bool,
    },
    /// Print the schema model of one schema file as JSON: every definition with its
    /// JSON pointers, references, direction (methods, senders, readers) and upsert rules;
    /// a definition the generator does not understand is shown as `opaque`, with why.
    Ir {
        /// Read schemas from this directory (same layout as `schema/`); no lock check.
        #[arg(long)]
        schema: Option<PathBuf>,
        /// The protocol version.
        #[arg(value_parser = ["v1", "v2"])]
        version: String,
        /// Read `schema.unstable.json` instead of `schema.json`.
        #[arg(long, conflicts_with = "plan")]
        unstable: bool,
        /// Print the Rust plan of the version instead (both schemas merged: each
        /// item's gate and each field's representation).
        #[arg(long)]
        plan: bool,
        /// The upsert configuration of a `--schema` preview (default: the project's
        /// reviewed `schema/upserts.json`); an entry that does not fit is a warning.
        #[arg(long, requires = "schema")]
        upserts: Option<PathBuf>,
        /// Only these definitions (by schema name); all when none is given.
        defs: Vec<String>,
    },
    /// Check captured messages against the bindings (runs `acp-tools check-messages`):
    /// `--protocol v1|v2 [--unstable] [--method M] [--type DEF] PATH...`.
    #[command(disable_help_flag = true)]
    CheckMessages {
        /// Arguments for `acp-tools check-messages`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Fold a v2 trace with the session reducer and print the final state (runs `acp-tools replay`):
    /// `--protocol v2 [--unstable] TRACE.jsonl`.
    #[command(disable_help_flag = true)]
    Replay {
        /// Arguments for `acp-tools replay`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Convert a trace between protocol versions (runs `acp-tools convert`):
    /// `--from v1|v2 --to v2|v1 [--strict] [--losses-json FILE] TRACE.jsonl`.
    #[command(disable_help_flag = true)]
    Convert {
        /// Arguments for `acp-tools convert`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// What changed between two schema revisions, classified by who it breaks.
    /// Each side is a schema file, a directory in the layout of `schema/`,
    /// `npm:<version>`, `git:<rev>` (the vendored schema at a revision) or
    /// `git:<rev>:<path>`.
    Diff(xtask::diff::Options),
    /// Run the fuzz targets in `fuzz/` (cargo-fuzz on the nightly toolchain; installs
    /// cargo-fuzz when missing): each for `--seconds`, on seeds built from
    /// `tests/corpus`, `tests/traces` and the schemas. A crash or a difference is
    /// saved in `fuzz/artifacts/<target>/` and fails the run.
    Fuzz {
        /// One target (`json_decode`, `json_encode`, `peer`, `lower`, `convert`,
        /// `patch`); all when none is given.
        target: Option<String>,
        /// How long each target runs.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Fuzzing processes per target (libFuzzer's `-fork`).
        #[arg(long, default_value_t = 1)]
        jobs: u32,
        /// Print the targets and what each checks, and exit.
        #[arg(long)]
        list: bool,
        /// Only write the seed corpora (`fuzz/corpus/<target>/`) and the dictionary
        /// (`fuzz/corpus/acp.dict`), for running the fuzz binaries by hand.
        #[arg(long)]
        seeds: bool,
        /// When the nightly toolchain is missing, say so and succeed (for CI
        /// machines without nightly) instead of failing.
        #[arg(long)]
        if_nightly: bool,
    },
    /// Run the project's example peers and the official SDKs' peers (`interop/`: Python
    /// `agent-client-protocol`, TypeScript `@agentclientprotocol/sdk`) against each other,
    /// through `acp-bridge` across versions; needs python3 and node/npm (installs the SDKs
    /// under `target/interop/`). Exit 1 if a pairing does not complete a prompt turn.
    Interop,
    /// Run the `json` module's unit tests (its `unsafe` code) under Miri on the
    /// nightly toolchain (installs the `miri` component when missing).
    Miri {
        /// A test-name filter.
        #[arg(default_value = "json::")]
        filter: String,
    },
    /// Manage the vendored schema.
    Schema {
        #[command(subcommand)]
        command: SchemaCommand,
    },
}

#[derive(Subcommand)]
enum SchemaCommand {
    /// Vendor `@agentclientprotocol/sdk@<version>` into `schema/` and update the lock.
    Pull {
        /// The npm package version.
        #[arg(long)]
        version: String,
        /// Use an unpacked package directory or a `.tgz` instead of `npm pack`.
        #[arg(long)]
        from: Option<PathBuf>,
        /// Vendor into this directory instead of the repository's `schema/`.
        #[arg(long)]
        schema_dir: Option<PathBuf>,
    },
    /// The whole spec update: pull the version, regenerate, and print the
    /// markdown diff against the schema vendored before; review the result
    /// with `git diff` and `cargo insta review`.
    Update {
        /// The npm package version.
        #[arg(long)]
        version: String,
        /// Use an unpacked package directory or a `.tgz` instead of `npm pack`.
        #[arg(long)]
        from: Option<PathBuf>,
    },
}

/// The upsert configuration of a `--schema` preview: the given file, or the
/// project's reviewed one; entries that do not fit are warnings.
fn preview_upserts(root: &Path, file: Option<PathBuf>) -> xtask::load::UpsertFile {
    xtask::load::UpsertFile { path: file.unwrap_or_else(|| root.join("schema/upserts.json")), strict: false }
}

fn repo_root() -> PathBuf {
    // xtask/ lives directly under the workspace root.
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = repo_root();
    match cli.command {
        Command::Codegen { check, schema: Some(file), out: Some(out), upserts, lenient } if file.is_file() => {
            codegen_file(check, &file, &out, upserts.is_some(), lenient)
        }
        Command::Codegen { check, schema, out, upserts, lenient } => {
            codegen(&root, check, schema, out, upserts, lenient)
        }
        Command::Ir { schema, version, unstable, plan, upserts, defs } => {
            ir(&root, schema, &version, unstable, plan, upserts, &defs)
        }
        Command::CheckMessages { args } => forward(&root, "check-messages", &args),
        Command::Replay { args } => forward(&root, "replay", &args),
        Command::Convert { args } => forward(&root, "convert", &args),
        Command::Diff(options) => diff(&root, &options),
        Command::Fuzz { target, seconds, jobs, list, seeds, if_nightly } => {
            fuzz(&root, target, FuzzRun { seconds, jobs, list, seeds, if_nightly })
        }
        Command::Interop => match xtask::interop::run(&root) {
            Ok(pairings) => {
                print!("{}", xtask::interop::table(&pairings));
                let failed = pairings.iter().filter(|p| p.passed == Some(false)).count();
                let skipped = pairings.iter().filter(|p| p.passed.is_none()).count();
                eprintln!("interop: {} pairings, {failed} failed, {skipped} skipped", pairings.len());
                if failed > 0 {
                    ExitCode::from(1)
                } else {
                    ExitCode::SUCCESS
                }
            }
            Err(e) => fail(&e),
        },
        Command::Miri { filter } => match xtask::fuzz::miri(&root, &filter) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        },
        Command::Schema { command: SchemaCommand::Update { version, from } } => {
            let source = from.map_or(Source::Npm, Source::Local);
            match xtask::update::update(&root, &version, &source) {
                Ok(u) => {
                    println!("vendored {}", u.vendored);
                    for line in &u.stats {
                        println!("{line}");
                    }
                    println!("\n{}", u.diff);
                    println!("For CHANGELOG.md (under `## Unreleased`):\n\n{}", u.changelog);
                    println!(
                        "next: `cargo test --workspace`, then `cargo insta review` and `git diff schema/ generated/`"
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        Command::Schema { command: SchemaCommand::Pull { version, from, schema_dir } } => {
            let source = from.map_or(Source::Npm, Source::Local);
            let dir = schema_dir.unwrap_or_else(|| root.join("schema"));
            match pull::pull(&dir, &version, &source) {
                Ok(lock) => {
                    println!("vendored {}@{} ({} files)", lock.package, lock.version, lock.files.len());
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
    }
}

/// `cargo xtask codegen --schema FILE --out DIR`: one module from one schema file.
fn codegen_file(check: bool, file: &Path, out: &Path, upserts: bool, lenient: bool) -> ExitCode {
    if upserts {
        eprintln!("error: `--upserts` configures an ACP schema directory (by protocol version), not one schema file");
        return ExitCode::from(2);
    }
    let mode = if lenient { xtask::lower::Mode::Lenient } else { xtask::lower::Mode::Strict };
    let base = std::env::current_dir().unwrap_or_default();
    let (module, text) = match generate::single_file(&base, file, mode) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    for w in &module.warnings {
        eprintln!("warning: {w}");
    }
    let path = out.join(format!("{}.rs", generate::module_stem(file)));
    println!("{}: {} defs read", file.display(), module.defs.len());
    if check {
        if std::fs::read_to_string(&path).is_ok_and(|t| t == text) {
            println!("generated code is up to date");
            return ExitCode::SUCCESS;
        }
        eprintln!("stale: {}", path.display());
        eprintln!("error: generated code is out of date: run the same command without `--check`");
        return ExitCode::from(1);
    }
    if let Err(e) = xtask::write::write_all(&[(path.clone(), text.into_bytes())], &[]) {
        return fail(&e);
    }
    println!("wrote {}", path.display());
    ExitCode::SUCCESS
}

/// `cargo xtask codegen`: the vendored schema (or a directory given with
/// `--schema` and `--out`) into the bindings, or `--check` that they are current.
fn codegen(
    root: &Path,
    check: bool,
    schema: Option<PathBuf>,
    out: Option<PathBuf>,
    upserts: Option<PathBuf>,
    lenient: bool,
) -> ExitCode {
    let layout = match (schema, out) {
        (Some(schema_dir), Some(out_dir)) => Layout {
            messages: None,
            root: std::env::current_dir().unwrap_or_default(),
            schema_dir,
            locked: false,
            upserts: preview_upserts(root, upserts),
            out_dir,
            fixtures: None,
            convert: None,
            mode: if lenient { xtask::lower::Mode::Lenient } else { xtask::lower::Mode::Strict },
            typescript: None,
            python: None,
            registry: None,
        },
        _ => Layout::repo(root),
    };
    let output = match generate::generate(&layout) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    for s in &output.stats {
        println!("{s}");
    }
    if let Some(c) = &output.convert {
        println!("{c}");
    }
    for w in &output.warnings {
        eprintln!("warning: {w}");
    }
    if check {
        let stale = generate::stale_files(&output);
        if stale.is_empty() {
            println!("generated code is up to date");
            return ExitCode::SUCCESS;
        }
        for p in &stale {
            eprintln!("stale: {}", p.strip_prefix(root).unwrap_or(p).display());
        }
        eprintln!("error: generated code is out of date: run `cargo xtask codegen`");
        return ExitCode::from(1);
    }
    match generate::write_all(&output) {
        Ok(written) => println!("wrote {written} of {} files (the others were up to date)", output.files.len()),
        Err(e) => return fail(&e),
    }
    ExitCode::SUCCESS
}

/// `cargo xtask ir`: the schema model (or, with `--plan`, the Rust plan) of one version.
fn ir(
    root: &Path,
    schema: Option<PathBuf>,
    version: &str,
    unstable: bool,
    plan: bool,
    upserts: Option<PathBuf>,
    defs: &[String],
) -> ExitCode {
    let preview = schema.is_some();
    let (dir, lock) = match schema {
        Some(dir) => (dir, None),
        None => {
            let dir = root.join("schema");
            match xtask::lock::Lock::read(&dir) {
                Ok(lock) => (dir, Some(lock)),
                Err(e) => return fail(&e),
            }
        }
    };
    let upserts = if preview { preview_upserts(root, upserts) } else { xtask::load::UpsertFile::beside(&dir) };
    // The file of that version the directory has (either layout).
    let held = xtask::load::versions(&dir).into_iter().find(|v| v.version == version);
    let rel = match held.and_then(|v| if unstable { v.unstable } else { v.stable }) {
        Some(rel) => rel.to_owned(),
        None => format!("{version}/{}", if unstable { "schema.unstable.json" } else { "schema.json" }),
    };
    let base = if dir.starts_with(root) { root.to_path_buf() } else { std::env::current_dir().unwrap_or_default() };
    let rendered = if plan {
        xtask::ir::render_plan(&base, &dir, version, lock.as_ref(), &upserts, defs)
    } else {
        xtask::ir::render(&base, &dir, &rel, lock.as_ref(), &upserts, defs)
    };
    match rendered {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

/// `cargo xtask diff OLD NEW`: the schema diff in a format, and its exit code by the gates.
fn diff(root: &Path, o: &xtask::diff::Options) -> ExitCode {
    let sides = xtask::diff::resolve_side(root, &o.old).and_then(|a| Ok((a, xtask::diff::resolve_side(root, &o.new)?)));
    let (old, new) = match sides {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let reports = match xtask::diff::diff_sides_as(root, &old, &new, o.protocol.as_deref()) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let accepted = match o.accept.as_deref().map(xtask::diff::read_accepted).transpose() {
        Ok(a) => a.unwrap_or_default(),
        Err(e) => return fail(&e),
    };
    match o.format.as_str() {
        "json" => match serde_json::to_string_pretty(&reports) {
            Ok(t) => println!("{t}"),
            Err(e) => return fail(&e),
        },
        "github" => print!("{}", xtask::diff::github(root, &reports)),
        "changelog" => print!("{}", xtask::diff::changelog(&format!("Schema {} -> {}", o.old, o.new), &reports)),
        _ => print!("{}", xtask::diff::markdown(&reports)),
    }
    if xtask::diff::fails(&reports, &o.fail_on, &accepted) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The options of `cargo xtask fuzz`.
struct FuzzRun {
    seconds: u64,
    jobs: u32,
    list: bool,
    seeds: bool,
    if_nightly: bool,
}

/// `cargo xtask fuzz`: builds the targets once, then runs each in turn and
/// prints its executions and coverage.
fn fuzz(root: &Path, target: Option<String>, run: FuzzRun) -> ExitCode {
    use xtask::fuzz::{self, TARGETS};
    let FuzzRun { seconds, jobs, list, seeds, if_nightly } = run;
    if list {
        for t in TARGETS {
            println!("{:12} {}", t.name, t.about);
        }
        return ExitCode::SUCCESS;
    }
    let targets = match target.as_deref().map(fuzz::target) {
        None => TARGETS.to_vec(),
        Some(Ok(t)) => vec![t],
        Some(Err(e)) => return fail(&e),
    };
    if seeds {
        for t in &targets {
            match fuzz::write_seeds(root, t.name) {
                Ok((dir, n)) => println!("{}: {n} seeds in {}", t.name, dir.display()),
                Err(e) => return fail(&e),
            }
        }
        return match fuzz::write_dictionary(root) {
            Ok(path) => {
                println!("dictionary: {}", path.display());
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        };
    }
    if let Err(e) = fuzz::nightly() {
        if if_nightly {
            println!("fuzzing skipped: {e}");
            return ExitCode::SUCCESS;
        }
        return fail(&e);
    }
    if let Err(e) = fuzz::build(root) {
        return fail(&e);
    }
    for t in targets {
        match fuzz::fuzz(root, t, seconds, jobs) {
            Ok(s) => println!(
                "fuzz {}: {} runs in {seconds} s, coverage {} edges, {} features, corpus {}",
                t.name, s.execs, s.cov, s.features, s.corpus
            ),
            Err(e) => return fail(&e),
        }
    }
    ExitCode::SUCCESS
}

/// Runs an `acp-tools` command. The tools live in their own package so that
/// the generator never depends on the code it generates.
fn forward(root: &Path, command: &str, args: &[String]) -> ExitCode {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = std::process::Command::new(cargo);
    // `--bin`: the package has two binaries (`acp-tools` and `acp-bridge`).
    cmd.args(["run", "--quiet", "--package", "acp-tools", "--bin", "acp-tools", "--manifest-path"])
        .arg(root.join("Cargo.toml"));
    if args.iter().any(|a| a == "--unstable") {
        // `as-tested` does nothing for the tools; with it the build is the one
        // `cargo test --workspace` makes, so a contributor's tools are built
        // once, not once more here.
        cmd.args(["--features", "unstable,as-tested"]);
    }
    cmd.arg("--").arg(command).args(args);
    match cmd.status() {
        Ok(status) => ExitCode::from(status.code().map_or(2, |c| u8::try_from(c).unwrap_or(2))),
        Err(e) => fail(&format!("cannot run acp-tools: {e}")),
    }
}

/// Prints `e` (each of several problems on a line of its own) and exits 2.
fn fail(e: &dyn std::fmt::Display) -> ExitCode {
    for line in e.to_string().lines() {
        eprintln!("error: {line}");
    }
    ExitCode::from(2)
}
