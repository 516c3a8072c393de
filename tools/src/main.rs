//! `acp-tools`: the commands behind `cargo xtask check-messages`.

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
}

fn main() -> ExitCode {
    let Command::CheckMessages { protocol, unstable, method, type_name, paths } = Cli::parse().command;
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
        match check_file(path, protocol, &options, |at, outcome| println!("{at}: {outcome}")) {
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
    println!("{total}");
    if total.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
