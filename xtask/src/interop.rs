//! `cargo xtask interop`: the project's peers and the official SDKs' peers
//! (`interop/`: the Python SDK `agent-client-protocol` for v1, the
//! TypeScript SDK `@agentclientprotocol/sdk` for v1 and v2) run against each
//! other, every client with every agent: directly when they speak the same
//! version, through `acp-bridge` when they do not. A pairing passes when the
//! client ends a prompt turn with a tool call and a permission request in
//! its transcript.
//!
//! It needs Python 3 (with `venv`) and Node.js with npm; the SDKs are
//! installed under `target/interop/` from PyPI and npm. A missing tool is
//! named, and the pairings that need it are listed as skipped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The pinned SDK versions (the Python one as `interop/python/requirements.txt` pins it).
pub const PYTHON_SDK: &str = "agent-client-protocol==0.12.1";
pub const NODE_SDK: &str = "@agentclientprotocol/sdk@2.4.0";

/// How long one pairing may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// One peer: its name, protocol version, and command.
#[derive(Debug, Clone)]
struct Peer {
    name: &'static str,
    version: &'static str,
    command: Vec<String>,
    /// The tool it needs (`python3`, `node`), if any.
    needs: Option<&'static str>,
}

/// The outcome of one pairing.
#[derive(Debug)]
pub struct Pairing {
    pub client: String,
    pub agent: String,
    /// `direct`, or the bridge's direction (`v2 -> v1`).
    pub via: String,
    /// `None`: skipped (a tool is missing).
    pub passed: Option<bool>,
    /// The last lines of stderr, or why it was skipped.
    pub note: String,
}

fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn run_ok(cmd: &mut Command, what: &str) -> Result<()> {
    let out =
        cmd.output().map_err(|e| Error::Command { what: what.to_owned(), message: format!("cannot run: {e}") })?;
    if !out.status.success() {
        return Err(Error::Command {
            what: what.to_owned(),
            message: format!("failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr)),
        });
    }
    Ok(())
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Write { path: dir.to_path_buf(), source })
}

/// Installs what is missing under `target/interop/`.
fn setup(root: &Path, python: bool, node: bool) -> Result<()> {
    let dir = root.join("target/interop");
    create_dir(&dir)?;
    if python && !dir.join("venv/bin/python").exists() {
        eprintln!("interop: creating target/interop/venv and installing {PYTHON_SDK} from PyPI");
        run_ok(Command::new("python3").args(["-m", "venv"]).arg(dir.join("venv")), "python3 -m venv")?;
        run_ok(
            Command::new(dir.join("venv/bin/python"))
                .args(["-m", "pip", "install", "-q", "-r"])
                .arg(root.join("interop/python/requirements.txt")),
            "pip install",
        )?;
    }
    if node && !dir.join("node/node_modules/@agentclientprotocol/sdk").exists() {
        eprintln!("interop: installing {NODE_SDK} from npm into target/interop/node");
        create_dir(&dir.join("node"))?;
        run_ok(
            Command::new("npm")
                .args(["install", "--silent", "--no-save", "--prefix"])
                .arg(dir.join("node"))
                .arg(NODE_SDK),
            "npm install",
        )?;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run_ok(
        Command::new(&cargo).current_dir(root).args([
            "build",
            "-q",
            "-p",
            "acp-bindings",
            "--features",
            "v2",
            "--examples",
        ]),
        "build the examples",
    )?;
    run_ok(
        Command::new(&cargo).current_dir(root).args(["build", "-q", "-p", "acp-tools", "--bin", "acp-bridge"]),
        "build acp-bridge",
    )?;
    Ok(())
}

fn peers(root: &Path, clients: bool) -> Vec<Peer> {
    let s = |p: PathBuf| p.display().to_string();
    let examples = root.join("target/debug/examples");
    let python = s(root.join("target/interop/venv/bin/python"));
    let (kind, rust_v1, rust_v2) =
        if clients { ("client", "client_v1", "client") } else { ("agent", "agent_v1", "agent") };
    let script = |dir: &str, ext: &str| s(root.join(format!("interop/{dir}/{kind}.{ext}")));
    vec![
        Peer { name: "rust", version: "v1", command: vec![s(examples.join(rust_v1))], needs: None },
        Peer { name: "rust", version: "v2", command: vec![s(examples.join(rust_v2))], needs: None },
        Peer {
            name: "python-sdk",
            version: "v1",
            command: vec![python, script("python", "py")],
            needs: Some("python3"),
        },
        Peer {
            name: "ts-sdk",
            version: "v1",
            command: vec!["node".into(), script("node", "mjs"), "--protocol".into(), "v1".into()],
            needs: Some("node"),
        },
        Peer {
            name: "ts-sdk",
            version: "v2",
            command: vec!["node".into(), script("node", "mjs"), "--protocol".into(), "v2".into()],
            needs: Some("node"),
        },
    ]
}

/// Runs every pairing; `Err` when the set-up itself fails.
pub fn run(root: &Path) -> Result<Vec<Pairing>> {
    let (python, node) = (available("python3"), available("node") && available("npm"));
    if !python {
        eprintln!("interop: python3 is missing: the Python SDK pairings are skipped");
    }
    if !node {
        eprintln!("interop: node or npm is missing: the TypeScript SDK pairings are skipped");
    }
    setup(root, python, node)?;
    let bridge = root.join("target/debug/acp-bridge").display().to_string();
    let has = |p: &Peer| match p.needs {
        Some("python3") => python,
        Some("node") => node,
        _ => true,
    };
    let mut out = Vec::new();
    for c in peers(root, true) {
        for a in peers(root, false) {
            let (client, agent) = (format!("{} {}", c.name, c.version), format!("{} {}", a.name, a.version));
            let via =
                if c.version == a.version { "direct".to_owned() } else { format!("{} -> {}", c.version, a.version) };
            if !has(&c) || !has(&a) {
                let missing = [c.needs, a.needs].into_iter().flatten().find(|t| !available(t)).unwrap_or("a tool");
                out.push(Pairing { client, agent, via, passed: None, note: format!("skipped: {missing} is missing") });
                continue;
            }
            let mut cmd = Command::new(&c.command[0]);
            cmd.args(&c.command[1..]);
            if c.version != a.version {
                cmd.args([bridge.as_str(), "--client", c.version, "--agent", a.version, "--"]);
            }
            cmd.args(&a.command).env("ACP_NODE_MODULES", root.join("target/interop/node/node_modules"));
            let (passed, note) = pairing(cmd);
            out.push(Pairing { client, agent, via, passed: Some(passed), note });
        }
    }
    Ok(out)
}

/// Runs one client (which starts its agent) with a time limit.
fn pairing(mut cmd: Command) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!("acp-interop-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let (out_path, err_path) = (dir.join("stdout"), dir.join("stderr"));
    let files = std::fs::File::create(&out_path).and_then(|o| Ok((o, std::fs::File::create(&err_path)?)));
    let Ok((o, e)) = files else { return (false, "cannot create the transcript files".into()) };
    let mut child = match cmd.stdin(Stdio::null()).stdout(o).stderr(e).spawn() {
        Ok(c) => c,
        Err(e) => return (false, format!("cannot start the client: {e}")),
    };
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => break None,
        }
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    let has = |prefix: &str| stdout.lines().any(|l| l.starts_with(prefix));
    let complete = has("tool call") && has("permission:") && has("turn ended:");
    let tail = |t: &str| t.lines().rev().take(3).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" | ");
    match status {
        Some(s) if s.success() && complete => (true, String::new()),
        Some(s) if s.success() => (false, format!("exited 0 without a whole turn; stdout: {}", tail(&stdout))),
        Some(s) => (false, format!("{s}; stderr: {}", tail(&stderr))),
        None => (
            false,
            format!("no end after {} s; stdout: {}; stderr: {}", TIMEOUT.as_secs(), tail(&stdout), tail(&stderr)),
        ),
    }
}

/// The table `cargo xtask interop` prints.
pub fn table(pairings: &[Pairing]) -> String {
    let mut s =
        String::from("| client | agent | via | a whole turn (tool call, permission) | note |\n|---|---|---|---|---|\n");
    for p in pairings {
        let r = match p.passed {
            Some(true) => "yes",
            Some(false) => "no",
            None => "skipped",
        };
        s += &format!("| {} | {} | {} | {r} | {} |\n", p.client, p.agent, p.via, p.note.replace('|', "\\|"));
    }
    s
}
