//! `acp-bridge --client v2 --agent v1 [--losses-json FILE] [--strict] -- AGENT_COMMAND ARGS...`:
//! runs an ACP agent of one protocol version for a client of the other
//! (see `acp_tools::bridge`).

use std::path::PathBuf;

use acp_tools::bridge::{run, Options, Version};
use clap::{Parser, ValueEnum};

#[derive(Clone, Copy, ValueEnum)]
enum V {
    V1,
    V2,
}

impl V {
    fn version(self) -> Version {
        match self {
            V::V1 => Version::V1,
            V::V2 => Version::V2,
        }
    }
}

/// Runs an ACP agent of one protocol version for a client of the other: the
/// client talks to the bridge on stdin and stdout, the bridge to the agent it
/// starts. Losses go to stderr as `line N (client|agent): POINTER: KIND: detail`.
#[derive(Parser)]
#[command(name = "acp-bridge", version)]
struct Args {
    /// The protocol version the client (the editor) speaks.
    #[arg(long, value_enum)]
    client: V,
    /// The protocol version the agent speaks.
    #[arg(long, value_enum)]
    agent: V,
    /// Also write every loss as a JSON array of `{line, from, pointer, kind, detail}`
    /// (written when the agent exits).
    #[arg(long, value_name = "FILE")]
    losses_json: Option<PathBuf>,
    /// Refuse any message that would lose something (a request is answered
    /// with an error instead of being forwarded).
    #[arg(long)]
    strict: bool,
    /// The agent's command and its arguments.
    #[arg(last = true, required = true)]
    command: Vec<String>,
}

fn main() {
    let a = Args::parse();
    let code = run(Options {
        client: a.client.version(),
        agent: a.agent.version(),
        strict: a.strict,
        losses_json: a.losses_json,
        command: a.command,
    });
    std::process::exit(code);
}
