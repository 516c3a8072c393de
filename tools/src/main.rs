//! `acp-tools`: the commands behind `cargo xtask check-messages`, `replay` and `convert`,
//! and the schema diff of `cargo xtask diff` for use outside this repository.

use std::path::PathBuf;
use std::process::ExitCode;

use acp_tools::check::{check_file, Options, Protocol, Summary};
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "acp-tools", about = "Check ACP messages against the generated bindings")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProtocolArg {
    V1,
    V2,
}

#[derive(Subcommand)]
enum Command {
    /// Decode each message, re-encode it, and report exact / differs / rejected.
    CheckMessages {
        /// The protocol version.
        #[arg(long, value_enum)]
        protocol: ProtocolArg,
        /// Use the unstable schema's types (needs a build with the `unstable` feature).
        #[arg(long)]
        unstable: bool,
        /// The method of the request a lone response answers.
        #[arg(long)]
        method: Option<String>,
        /// Decode bare payloads as this definition (e.g. `ContentBlock`).
        #[arg(long = "type", value_name = "DEF")]
        type_name: Option<String>,
        /// `.json` files (one message each) and `.jsonl` traces.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Convert a trace to the other protocol version: the converted messages on
    /// stdout (JSONL), each loss on stderr as `line N: POINTER: KIND: detail`.
    /// Exit 0 when converted (losses or not), 1 in strict mode with any loss or
    /// when a message is rejected, 2 for bad arguments or an unreadable file.
    Convert {
        /// The trace's protocol version.
        #[arg(long, value_enum)]
        from: ProtocolArg,
        /// The protocol version to convert to.
        #[arg(long, value_enum)]
        to: ProtocolArg,
        /// Any loss is an error: the message produces no output.
        #[arg(long)]
        strict: bool,
        /// Also write the losses as a JSON array of `{line, pointer, kind, detail}`.
        #[arg(long, value_name = "FILE")]
        losses_json: Option<PathBuf>,
        /// A `.jsonl` trace.
        trace: PathBuf,
    },
    /// What changed between two schema revisions, classified by who it breaks:
    /// the reports of `cargo xtask diff`. Each side is a schema file, a directory
    /// in the layout of `schema/` (`v1/`, `v2/`), `npm:<version>` (the files of
    /// that release of `@agentclientprotocol/sdk`) or `git:<rev>:<path>` (a file
    /// or directory of the current repository at a revision). Exit 1 when a change
    /// not accepted meets `--fail-on`, 2 for bad arguments or an unreadable side.
    Diff {
        #[command(flatten)]
        options: xtask::diff::Options,
        /// A directory with `schema/upserts.json` and `schema/conversions.json` to
        /// use instead of the configuration this binary was built with.
        #[arg(long, value_name = "DIR")]
        config: Option<PathBuf>,
        /// In a GitHub Actions job: append the markdown report to
        /// `$GITHUB_STEP_SUMMARY` and the counts (`breaking`, `dangerous`,
        /// `compatible`, `rust-breaking`, `failed`) to `$GITHUB_OUTPUT`, print the
        /// annotations, and write the comment body to `--comment-file`.
        #[arg(long)]
        github_action: bool,
        /// With `--github-action`: where to write the pull-request comment's body.
        #[arg(long, value_name = "FILE", requires = "github_action")]
        comment_file: Option<PathBuf>,
    },
    /// Fold a v2 trace's `session/update` notifications and print the final state as JSON,
    /// or with `--compact` the shortest stream that rebuilds it. The trace is read a line at
    /// a time. Exit 1 when a line is rejected (it leaves the state unchanged), 2 for bad
    /// arguments or an unreadable trace.
    Replay {
        /// The protocol version (only v2 has upserts).
        #[arg(long, value_enum)]
        protocol: ProtocolArg,
        /// Use the unstable schema's types (needs a build with the `unstable` feature).
        #[arg(long)]
        unstable: bool,
        /// Print the state as the shortest `session/update` stream that rebuilds it (one
        /// notification a line: each message whole instead of its chunks, one upsert per
        /// tool call, each plan as its latest whole update) instead of the state.
        #[arg(long)]
        compact: bool,
        /// A `.jsonl` trace.
        trace: PathBuf,
    },
}

fn main() -> ExitCode {
    let (protocol, unstable, method, type_name, paths) = match Cli::parse().command {
        Command::CheckMessages { protocol, unstable, method, type_name, paths } => {
            (protocol, unstable, method, type_name, paths)
        }
        Command::Replay { protocol, unstable, compact, trace } => return replay(protocol, unstable, compact, &trace),
        Command::Diff { options, config, github_action, comment_file } => {
            let args = acp_tools::schema_diff::Args { options, config, github_action, comment_file };
            return ExitCode::from(acp_tools::schema_diff::run(&args));
        }
        Command::Convert { from, to, strict, losses_json, trace } => {
            let direction = match (from, to) {
                (ProtocolArg::V1, ProtocolArg::V2) => acp_tools::convert::Direction::V1ToV2,
                (ProtocolArg::V2, ProtocolArg::V1) => acp_tools::convert::Direction::V2ToV1,
                _ => {
                    eprintln!("error: --from and --to must name different versions");
                    return ExitCode::from(2);
                }
            };
            return ExitCode::from(acp_tools::convert::run(&trace, direction, strict, losses_json.as_deref()));
        }
    };
    if unstable && !cfg!(feature = "unstable") {
        eprintln!("error: --unstable needs acp-tools built with `--features unstable` (`cargo xtask check-messages --unstable` does that)");
        return ExitCode::from(2);
    }
    let protocol = match protocol {
        ProtocolArg::V1 => Protocol::V1,
        ProtocolArg::V2 => Protocol::V2,
    };
    let options = Options { method, type_name };
    let mut total = Summary::default();
    for path in &paths {
        match check_file(path, protocol, &options, |at, outcome| say(format_args!("{at}: {outcome}"))) {
            Ok(s) => {
                total.exact += s.exact;
                total.differs += s.differs;
                total.rejected += s.rejected;
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    say(total);
    if total.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn replay(protocol: ProtocolArg, unstable: bool, compact: bool, trace: &std::path::Path) -> ExitCode {
    if unstable && !cfg!(feature = "unstable") {
        eprintln!("error: --unstable needs acp-tools built with `--features unstable` (`cargo xtask replay --unstable` does that)");
        return ExitCode::from(2);
    }
    if matches!(protocol, ProtocolArg::V1) {
        eprintln!("error: replay folds v2 upserts; v1 has no upsert semantics (use --protocol v2)");
        return ExitCode::from(2);
    }
    let out = match acp_tools::replay::replay(trace) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {}: {e}", trace.display());
            return ExitCode::from(2);
        }
    };
    for r in &out.rejected {
        eprintln!("{r}");
    }
    if compact {
        match acp_tools::replay::compacted(&out, |l| say(l)) {
            Ok(()) => {}
            Err(e) => {
                eprintln!("error: {}: {e}", trace.display());
                return ExitCode::from(2);
            }
        }
    } else {
        match serde_json::to_string_pretty(&out.state) {
            Ok(text) => say(text),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if out.rejected.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Prints a line on stdout. A closed stdout (`acp-tools check ... | head`)
/// ends the program quietly, with the status a shell gives a process ended by
/// SIGPIPE (141), instead of panicking in `println!`.
fn say(text: impl std::fmt::Display) {
    use std::io::Write;
    if writeln!(std::io::stdout().lock(), "{text}").is_err() {
        std::process::exit(141);
    }
}
