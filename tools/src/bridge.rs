//! `acp-bridge`: a v1 ⇄ v2 bridge between a real editor and a real agent.
//!
//! [`Bridge`] is the sans-IO core: it is given each line the client or the
//! agent sends and says what to write to each side, and the losses. It holds
//! one adapter per direction, and each adapter sees the whole connection in
//! its own version, as a captured trace would have it: `V2ToV1` (for a v2
//! client) converts the client's lines, and is also shown the agent's
//! messages once they are converted to v2, so it knows which requests are
//! open and how the prompt turn stands; `V1ToV2` the other way round. Showing
//! an adapter a message the other side sent gives that message back (dropped
//! here), plus what the other version says on top of it: the v2 agent side
//! of a v1 agent's prompt turn (the acknowledgement, the echo of the prompt,
//! `running`) comes out of `V1ToV2` when it is shown the client's prompt.
//!
//! [`run`] is the process: it spawns the agent and moves lines both ways on
//! two threads that never wait on each other.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};

use acp_bindings::runtime::rpc::Side;
use acp_bindings_convert::AdaptError;

use crate::convert::{Adapter, Direction, Message, Role};
use serde::Serialize;
use serde_json::Value;

/// A protocol version a peer speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1,
    V2,
}

/// Which peer a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Peer {
    Client,
    Agent,
}

impl Peer {
    fn as_str(self) -> &'static str {
        match self {
            Peer::Client => "client",
            Peer::Agent => "agent",
        }
    }
}

/// One loss or rejection, about line `line` of the peer `from`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub line: usize,
    pub from: Peer,
    /// JSON pointer into that line's message (`""` for the whole message).
    pub pointer: String,
    /// `dropped`, `approximated`, `synthesized`, `unconvertible`, or `rejected`.
    pub kind: String,
    pub detail: String,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = if self.pointer.is_empty() { "/" } else { &self.pointer };
        let (p, d) = (acp_bindings::runtime::rpc::OneLine(p), acp_bindings::runtime::rpc::OneLine(&self.detail));
        write!(f, "line {} ({}): {p}: {}: {d}", self.line, self.from.as_str(), self.kind)
    }
}

/// What one line gives.
#[derive(Debug, Default, PartialEq)]
pub struct Step {
    /// Lines for the agent's stdin.
    pub to_agent: Vec<String>,
    /// Lines for the client (the bridge's stdout).
    pub to_client: Vec<String>,
    pub reports: Vec<Report>,
}

impl Adapter {
    fn of(from: Version) -> Adapter {
        match from {
            Version::V1 => Adapter::new(Direction::V1ToV2, false),
            Version::V2 => Adapter::new(Direction::V2ToV1, false),
        }
    }
}

/// The bridge between a client and an agent (see the module docs).
pub struct Bridge {
    client: Version,
    agent: Version,
    strict: bool,
    /// Converts what the client says (client version in, agent version out).
    to_agent: Option<Adapter>,
    /// Converts what the agent says.
    to_client: Option<Adapter>,
    /// Ids (JSON text) of requests each side sent: a response goes back to the
    /// side that did not send its request.
    client_ids: HashSet<String>,
    agent_ids: HashSet<String>,
    lines: [usize; 2],
}

impl Bridge {
    /// A bridge; `strict` refuses any message that would lose something.
    pub fn new(client: Version, agent: Version, strict: bool) -> Bridge {
        let (to_agent, to_client) =
            if client == agent { (None, None) } else { (Some(Adapter::of(client)), Some(Adapter::of(agent))) };
        Bridge {
            client,
            agent,
            strict,
            to_agent,
            to_client,
            client_ids: HashSet::new(),
            agent_ids: HashSet::new(),
            lines: [0, 0],
        }
    }

    /// A line from the client.
    pub fn from_client(&mut self, line: &str) -> Step {
        self.step(Peer::Client, line)
    }

    /// A line from the agent.
    pub fn from_agent(&mut self, line: &str) -> Step {
        self.step(Peer::Agent, line)
    }

    fn step(&mut self, from: Peer, line: &str) -> Step {
        let n = &mut self.lines[from as usize];
        *n += 1;
        let line_no = *n;
        let mut step = Step::default();
        if line.trim().is_empty() {
            return step;
        }
        let source: Option<Value> = serde_json::from_str(line).ok();
        // Record the ids of requests, as their sender wrote them.
        if let Some(id) = source.as_ref().filter(|v| v.get("method").is_some()).and_then(|v| v.get("id")) {
            let ids = match from {
                Peer::Client => &mut self.client_ids,
                Peer::Agent => &mut self.agent_ids,
            };
            ids.insert(id.to_string());
        }
        let (target, peer_version) = match from {
            Peer::Client => (self.agent, self.client),
            Peer::Agent => (self.client, self.agent),
        };
        if target == peer_version {
            // Same version on both sides: pass through.
            match from {
                Peer::Client => step.to_agent.push(line.to_owned()),
                Peer::Agent => step.to_client.push(line.to_owned()),
            }
            return step;
        }
        let strict = self.strict;
        let (primary, secondary) = match from {
            Peer::Client => (self.to_agent.as_mut(), self.to_client.as_mut()),
            Peer::Agent => (self.to_client.as_mut(), self.to_agent.as_mut()),
        };
        let (primary, secondary) = (primary.expect("versions differ"), secondary.expect("versions differ"));
        let report = |pointer: String, kind: &str, detail: String| Report {
            line: line_no,
            from,
            pointer,
            kind: kind.to_owned(),
            detail,
        };
        let converted = match primary.convert(line) {
            Ok(a) if strict && !a.losses.is_empty() => Err(a.losses),
            Ok(a) => Ok(a),
            Err(AdaptError::NotConverted(e)) => Err(e.losses),
            Err(AdaptError::Rejected(e)) => {
                step.reports.push(report(e.pointer().to_owned(), "rejected", e.message().to_owned()));
                // The error reply the peers produce, sent back to the sender.
                if let Some(id) = e.reply_id_json() {
                    let reply = format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{}}}"#, e.error_object());
                    push_back(&mut step, from, reply);
                }
                return step;
            }
        };
        let adapted = match converted {
            Ok(a) => a,
            Err(losses) => {
                step.reports.extend(losses.into_iter().map(|l| report(l.pointer, l.kind.as_str(), l.detail)));
                answer_unconverted(&mut step, from, source.as_ref(), target);
                return step;
            }
        };
        step.reports.extend(adapted.losses.into_iter().map(|l| report(l.pointer, l.kind.as_str(), l.detail)));
        for m in &adapted.messages {
            // What the adapter says on behalf of the other peer (the v2
            // acknowledgement of a v1 client's prompt) is left out: that
            // peer is real here and says it itself.
            if from_of(m, &self.client_ids, &self.agent_ids, from) != Some(from) {
                continue;
            }
            let text = m.text();
            // Shown to the other direction's adapter: its state follows the
            // whole connection; what it adds on the sender's behalf goes back.
            if let Ok(more) = secondary.convert(&text) {
                for o in more.messages {
                    if from_of(&o, &self.client_ids, &self.agent_ids, from) != Some(from) {
                        push_back(&mut step, from, o.text());
                    }
                }
            }
            match from {
                Peer::Client => step.to_agent.push(text),
                Peer::Agent => step.to_client.push(text),
            }
        }
        step
    }
}

/// A request that cannot reach the other side is answered here (an internal
/// error naming the bridge's losses), so its sender does not wait for ever.
fn answer_unconverted(step: &mut Step, from: Peer, source: Option<&Value>, target: Version) {
    let Some(id) = source.filter(|v| v.get("method").is_some()).and_then(|v| v.get("id")) else {
        return;
    };
    let message = format!(
        "the bridge cannot convert this request for the {} peer (see the bridge's losses)",
        version_name(target)
    );
    let error = serde_json::json!({"code": -32603, "message": message});
    push_back(step, from, serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string());
}

fn version_name(v: Version) -> &'static str {
    match v {
        Version::V1 => "v1",
        Version::V2 => "v2",
    }
}

/// A line for the peer that sent the source line.
fn push_back(step: &mut Step, from: Peer, line: String) {
    match from {
        Peer::Client => step.to_client.push(line),
        Peer::Agent => step.to_agent.push(line),
    }
}

/// Which peer a converted message comes from: a request or notification
/// by the side that handles its method; a response by the side that did not
/// send its request. `None` when it cannot be told (an extension; a response
/// to an id both sides used): treated as the sender's own message given back.
fn from_of(m: &Message, client_ids: &HashSet<String>, agent_ids: &HashSet<String>, sender: Peer) -> Option<Peer> {
    match m.role() {
        Role::Call(side) => match side? {
            Side::Agent => Some(Peer::Client),
            Side::Client => Some(Peer::Agent),
            _ => Some(sender),
        },
        Role::Answer(Some(id)) => match (client_ids.contains(&id), agent_ids.contains(&id)) {
            (true, false) => Some(Peer::Agent),
            (false, true) => Some(Peer::Client),
            _ => Some(sender),
        },
        Role::Answer(None) => Some(sender),
    }
}

/// What `acp-bridge` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    pub client: Version,
    pub agent: Version,
    pub strict: bool,
    pub losses_json: Option<PathBuf>,
    /// The agent's command and its arguments.
    pub command: Vec<String>,
}

/// How many lines may wait for the agent's stdin before the reader of the
/// client waits too (the bridge never buffers without bound).
const QUEUE: usize = 256;

/// Runs the bridge: spawns the agent, moves lines both ways until the agent
/// exits, and returns its exit code (2 when it cannot be started, 1 when it
/// was killed by a signal or the losses file cannot be written).
pub fn run(o: Options) -> i32 {
    let Some((program, args)) = o.command.split_first() else {
        eprintln!("acp-bridge: no agent command (after `--`)");
        return 2;
    };
    let mut child: Child = match Command::new(program).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("acp-bridge: cannot start the agent `{program}`: {e}");
            return 2;
        }
    };
    let agent_in = child.stdin.take().expect("piped");
    let agent_out = child.stdout.take().expect("piped");
    let bridge = Arc::new(Mutex::new(Bridge::new(o.client, o.agent, o.strict)));
    let reports: Arc<Mutex<Vec<Report>>> = Arc::default();
    let stdout = Arc::new(Mutex::new(std::io::stdout()));

    // The agent's stdin has one writer thread fed by a bounded queue; `None`
    // closes it. The thread reading the agent never waits on it (its rare
    // lines for the agent go in only if there is room), so the agent's output
    // is always drained: no deadlock between the two pipes.
    let (to_agent, queue) = mpsc::sync_channel::<Option<String>>(QUEUE);
    let writer = std::thread::spawn(move || {
        let mut agent_in = agent_in;
        while let Ok(Some(line)) = queue.recv() {
            if writeln!(agent_in, "{line}").and_then(|()| agent_in.flush()).is_err() {
                break;
            }
        }
        // Dropping the handle closes the agent's stdin.
    });

    // The client: its lines, converted, go to the agent (waiting for room).
    {
        let (bridge, reports, stdout, to_agent) = (bridge.clone(), reports.clone(), stdout.clone(), to_agent.clone());
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                let step = bridge.lock().expect("bridge").from_client(&line);
                for l in emit(step, &reports, &stdout) {
                    if to_agent.send(Some(l)).is_err() {
                        return;
                    }
                }
            }
            // The client closed its end: so does the bridge, then it waits for the agent.
            let _ = to_agent.send(None);
        });
    }

    // The agent: its lines, converted, go to the client.
    for line in BufReader::new(agent_out).lines() {
        let Ok(line) = line else { break };
        let step = bridge.lock().expect("bridge").from_agent(&line);
        for l in emit(step, &reports, &stdout) {
            if to_agent.try_send(Some(l)).is_err() {
                eprintln!("acp-bridge: the agent is not reading its input; a reply to it was left out");
            }
        }
    }
    drop(to_agent);
    let status = child.wait();
    // Not joined: with the client's input still open, the writer waits on a
    // queue the client's reader can still feed; the process ends here.
    drop(writer);
    let mut code = match status {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) => {
            eprintln!("acp-bridge: waiting for the agent: {e}");
            1
        }
    };
    if let Some(path) = &o.losses_json {
        if let Err(e) = write_losses(path, &reports.lock().expect("reports")) {
            eprintln!("acp-bridge: {}: {e}", path.display());
            if code == 0 {
                code = 1;
            }
        }
    }
    code
}

/// Prints a step's losses and lines for the client, keeps the losses for
/// `--losses-json`, and returns the lines for the agent.
fn emit(step: Step, reports: &Mutex<Vec<Report>>, stdout: &Mutex<std::io::Stdout>) -> Vec<String> {
    for r in &step.reports {
        eprintln!("{r}");
    }
    reports.lock().expect("reports").extend(step.reports);
    if !step.to_client.is_empty() {
        let mut out = stdout.lock().expect("stdout");
        for l in &step.to_client {
            let _ = writeln!(out, "{l}");
        }
        let _ = out.flush();
    }
    step.to_agent
}

/// Writes the losses as JSON through a temporary file renamed into place: a
/// failed write leaves no half-written file.
fn write_losses(path: &std::path::Path, reports: &[Report]) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(reports).expect("reports serialize");
    let tmp = path.with_extension("tmp-acp-bridge");
    let r = std::fs::write(&tmp, json + "\n").and_then(|()| std::fs::rename(&tmp, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}
